/* cudagen stand-in for NVIDIA's cudart_platform.h, which cuda_egl_interop.h includes: the
 * platform test it makes, as on Linux x86-64. */
#pragma once
#define isEglSupported 1
