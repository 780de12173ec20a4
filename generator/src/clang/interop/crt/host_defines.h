/* Hermetic stand-in for NVIDIA's crt/host_defines.h (nvcc's, not in the runtime wheel): the
 * attribute macros cuda_runtime_api.h, driver_types.h and vector_types.h use, as a host C
 * compiler on Linux sees them. */
#pragma once
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __device_builtin__
#define __cudart_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(a) __align__(a)
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __thread__ __thread
#define __import__
#define __export__
#define __cdecl
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define __specialization_static
#define CUDARTAPI
#define CUDARTAPI_CDECL
