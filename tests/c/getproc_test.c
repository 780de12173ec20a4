/*
 * cuGetProcAddress through the shim, against tests/c/fake_libcuda.c (CUDAGEN_LIBCUDA names it):
 * the shim must hand out its own export of the ABI the driver chose, keep the driver's answer
 * for names it does not export, and pass "not found" through.
 */
#include <cuda.h>
#include <cudagen.h>
#include <dlfcn.h>
#include <stdio.h>

static int failures = 0;

static void expect(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

static void *lookup(const char *name, int version, cuuint64_t flags, CUresult *r)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult status;
    *r = cuGetProcAddress(name, &p, version, flags, &status);
    return p;
}

typedef CUresult (*ctx_create_v3_t)(CUcontext *, CUexecAffinityParam *, int, unsigned int, CUdevice);
typedef CUresult (*memcpy_t)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*internal_t)(void);

int main(void)
{
    CUresult r;
    CUcontext ctx = NULL;
    void *p;

    p = lookup("cuCtxCreate", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuCtxCreate_v3, "cuCtxCreate@12000 -> shim cuCtxCreate_v3");
    expect(p != NULL && ((ctx_create_v3_t)p)(&ctx, NULL, 0, 0, 0) == 3, "calling it reaches the driver's v3");
    p = lookup("cuCtxCreate", 12090, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuCtxCreate_v4, "cuCtxCreate@12090 -> shim cuCtxCreate_v4");
    p = lookup("cuCtxCreate", 3020, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuCtxCreate_v2, "cuCtxCreate@3020 -> shim cuCtxCreate_v2");

    p = lookup("cuMemcpyHtoDAsync", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuMemcpyHtoDAsync_v2_ptsz, "per-thread flag -> shim cuMemcpyHtoDAsync_v2_ptsz");
    expect(p != NULL && ((memcpy_t)p)(0, NULL, 0, NULL) == 77, "calling it reaches the driver's _ptsz");
    p = lookup("cuMemcpyHtoDAsync", 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuMemcpyHtoDAsync_v2, "legacy flag -> shim cuMemcpyHtoDAsync_v2");
    p = lookup("cuMemcpyHtoDAsync", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuMemcpyHtoDAsync_v2, "default flag follows the driver (legacy here)");

    p = lookup("cuCtxGetCurrent", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuCtxGetCurrent, "cuCtxGetCurrent -> shim export");
    p = lookup("cuGetProcAddress", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuGetProcAddress_v2, "cuGetProcAddress@12000 -> shim cuGetProcAddress_v2");

    p = lookup("cuCtxGetCurrent", 13000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p != (void *)cuCtxGetCurrent && p != NULL && ((CUresult(*)(CUcontext *))p)(&ctx) == 0
               && ctx == (CUcontext)0x5678,
           "driver's ABI newer than the header -> the driver's pointer, not a mismatched export");
    p = lookup("cuInternalThing", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p != NULL && ((internal_t)p)() == 99, "unknown name -> the driver's pointer, unchanged");
    p = lookup("cuNoSuchThing", 12000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_ERROR_NOT_FOUND && p == NULL, "not found -> CUDA_ERROR_NOT_FOUND passed through");
    p = lookup("cuCtxGetCurrent", 3000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_ERROR_NOT_FOUND, "older than the driver knows -> CUDA_ERROR_NOT_FOUND passed through");

    expect(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx == (CUcontext)0x1234, "direct call reaches the fake driver");

    /* Two ABIs of one prototype: each export reaches its own, each version hands out its own. */
    float ms = 0;
    expect(cuEventElapsedTime(&ms, NULL, NULL) == CUDA_SUCCESS && ms == 1.0f, "cuEventElapsedTime -> the driver's v2000 ABI");
    expect(cuEventElapsedTime_v2(&ms, NULL, NULL) == CUDA_SUCCESS && ms == 2.0f, "cuEventElapsedTime_v2 -> the driver's v12080 ABI");
    p = lookup("cuEventElapsedTime", 2000, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuEventElapsedTime, "cuEventElapsedTime@2000 -> shim cuEventElapsedTime");
    p = lookup("cuEventElapsedTime", 12080, CU_GET_PROC_ADDRESS_DEFAULT, &r);
    expect(r == CUDA_SUCCESS && p == (void *)cuEventElapsedTime_v2, "cuEventElapsedTime@12080 -> shim cuEventElapsedTime_v2");

    /* A legacy ABI (not in cuda.h): the unsuffixed cuStreamWaitValue32 is the v8000 ABI. The fake
     * driver answers it with a 6-argument function to prove every register reaches it. */
    typedef CUresult (*six_t)(unsigned long long, size_t, unsigned, size_t, size_t, void *);
    void *legacy = dlsym(RTLD_DEFAULT, "cuStreamWaitValue32");
    expect(legacy != NULL && ((six_t)legacy)(1, 2, 3, 4, 5, (void *)6) == 42, "legacy export cuStreamWaitValue32 -> driver's v8000 ABI");
    expect(legacy != NULL && ((six_t)legacy)(1, 2, 3, 4, 5, (void *)6) == 42, "second call through the filled slot");
    void *gone = dlsym(RTLD_DEFAULT, "cuStreamWaitValue64");
    expect(gone != NULL && ((six_t)gone)(1, 2, 3, 4, 5, (void *)6) == CUDA_ERROR_NOT_FOUND, "legacy ABI the driver lacks -> CUDA_ERROR_NOT_FOUND");
    /* Deprecated cudaGL.h functions (left out of the bindings) are still exported: the v2000
     * cuGLInit, and the per-thread v7000 ABI of cuGLMapBufferObject_v2. */
    typedef CUresult (*none_t)(void);
    typedef CUresult (*map_t)(unsigned long long *, size_t *, unsigned);
    void *gl_init = dlsym(RTLD_DEFAULT, "cuGLInit");
    expect(gl_init != NULL && ((none_t)gl_init)() == 44, "deprecated export cuGLInit -> driver's v2000 ABI");
    void *gl_map = dlsym(RTLD_DEFAULT, "cuGLMapBufferObject_v2_ptds");
    expect(gl_map != NULL && ((map_t)gl_map)((unsigned long long *)8, (size_t *)9, 10) == 45,
           "deprecated export cuGLMapBufferObject_v2_ptds -> driver's per-thread v7000 ABI");
    printf("%d failure(s)\n", failures);
    return failures != 0;
}
