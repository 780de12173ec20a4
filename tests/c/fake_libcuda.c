/*
 * A fake libcuda.so.1 for testing the shim's cuGetProcAddress interception without a GPU.
 * cuGetProcAddress_v2 knows a few names and versions; every function returns a distinct code so
 * the test can tell which ABI a call reached.
 */
#include <stdint.h>
#include <string.h>

typedef int CUresult;

int cuDriverGetVersion(int *v) { *v = 12090; return 0; }
static CUresult ctx_get_current(void **ctx) { *ctx = (void *)0x1234; return 0; }
/* An ABI of cuCtxGetCurrent newer than the shim's header knows (as from a future CUDA). */
static CUresult ctx_get_current_future(void **ctx) { *ctx = (void *)0x5678; return 0; }
static CUresult ctx_create_v2(void **c, unsigned f, int d) { (void)f; (void)d; *c = 0; return 2; }
static CUresult ctx_create_v3(void **c, void *p, int n, unsigned f, int d) { (void)p; (void)n; (void)f; (void)d; *c = 0; return 3; }
static CUresult ctx_create_v4(void **c, void *p, unsigned f, int d) { (void)p; (void)f; (void)d; *c = 0; return 4; }
static CUresult memcpy_htod_async(uint64_t d, const void *h, size_t n, void *s) { (void)d; (void)h; (void)n; (void)s; return 0; }
static CUresult memcpy_htod_async_ptsz(uint64_t d, const void *h, size_t n, void *s) { (void)d; (void)h; (void)n; (void)s; return 77; }
static CUresult internal_thing(void) { return 99; }
/* Two ABIs of one prototype and different meanings (v2000 and v12080). */
static CUresult elapsed_v1(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.0f; return 0; }
static CUresult elapsed_v2(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 2.0f; return 0; }
/* The v3020 ABI of cuMemsetD2D32 (6 register arguments): proves a legacy export forwards them. */
static CUresult memset_d2d32_v3020(uint64_t d, size_t pitch, unsigned v, size_t w, size_t h, void *s)
{
    return d == 1 && pitch == 2 && v == 3 && w == 4 && h == 5 && s == (void *)6 ? 42 : 1;
}

/* Deprecated cudaGL.h functions: their exports come from cudaGLTypedefs.h alone. */
static CUresult gl_init(void) { return 44; }
static CUresult gl_map_buffer_object_v2_ptds(uint64_t *d, size_t *n, unsigned buffer)
{
    return d == (uint64_t *)8 && n == (size_t *)9 && buffer == 10 ? 45 : 1;
}

/* Static: a reference to the exported name would bind to the shim's export (interposition). */
static CUresult get_proc(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    void *p = 0;
    if (strcmp(sym, "cuGetProcAddress") == 0 && ver >= 12000) p = (void *)get_proc;
    else if (strcmp(sym, "cuCtxGetCurrent") == 0 && ver >= 13000) p = (void *)ctx_get_current_future;
    else if (strcmp(sym, "cuCtxGetCurrent") == 0 && ver >= 4000) p = (void *)ctx_get_current;
    else if (strcmp(sym, "cuCtxCreate") == 0 && ver >= 12050) p = (void *)ctx_create_v4;
    else if (strcmp(sym, "cuCtxCreate") == 0 && ver >= 11040) p = (void *)ctx_create_v3;
    else if (strcmp(sym, "cuCtxCreate") == 0 && ver >= 3020) p = (void *)ctx_create_v2;
    else if (strcmp(sym, "cuMemcpyHtoDAsync") == 0 && ver >= 3020)
        p = flags == 2 ? (void *)memcpy_htod_async_ptsz : (void *)memcpy_htod_async;
    else if (strcmp(sym, "cuInternalThing") == 0) p = (void *)internal_thing;
    else if (strcmp(sym, "cuEventElapsedTime") == 0 && ver >= 12080) p = (void *)elapsed_v2;
    else if (strcmp(sym, "cuEventElapsedTime") == 0 && ver >= 2000) p = (void *)elapsed_v1;
    else if (strcmp(sym, "cuStreamWaitValue32") == 0 && ver >= 8000 && ver < 11070) p = (void *)memset_d2d32_v3020;
    else if (strcmp(sym, "cuGLInit") == 0 && ver >= 2000) p = (void *)gl_init;
    else if (strcmp(sym, "cuGLMapBufferObject") == 0 && ver >= 7000 && flags == 2) p = (void *)gl_map_buffer_object_v2_ptds;
    *pfn = p;
    if (status) *status = p ? 0 : 1; /* CU_GET_PROC_ADDRESS_SUCCESS / SYMBOL_NOT_FOUND */
    return p ? 0 : 500;
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    return get_proc(sym, pfn, ver, flags, status);
}
