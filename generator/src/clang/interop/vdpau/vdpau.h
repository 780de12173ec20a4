/* cudagen stand-in for <vdpau/vdpau.h>: only the types cudaVDPAU.h uses, as VDPAU's header
 * defines them (VdpStatus is an enum there, of the same size and passing as unsigned int). */
#ifndef CUDAGEN_STANDIN_VDPAU_H
#define CUDAGEN_STANDIN_VDPAU_H
#include <stdint.h>
typedef unsigned int VdpStatus;
typedef uint32_t VdpFuncId;
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
#endif
