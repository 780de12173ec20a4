/*
 * A fake libcuda + libnvrtc for safebench (tests/gpu/safebench_fake.sh), so the benchmark's
 * code runs without a GPU: cudagen reaches it through cuGetProcAddress_v2 (CUDAGEN_LIBCUDA,
 * CUDAGEN_NVRTC_PATH), cudarc through its exported names (a libcuda.so link on
 * LD_LIBRARY_PATH). Device memory is host memory; every call completes at once. Kernels come
 * by name: "saxpy" (float, float*, float*, size_t) computes y = a * x + y on the host,
 * "empty5" (float, float*, float*, float*, size_t) does nothing. Times measured against it are
 * the libraries' own host-side work plus this file's, not a driver's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define OK 0
#define INVALID_VALUE 1
#define NOT_FOUND 500

struct fake_fn {
    const char *name;
    size_t count;
    size_t sizes[5];
};
static struct fake_fn SAXPY = {"saxpy", 4, {4, 8, 8, 8}};
static struct fake_fn EMPTY5 = {"empty5", 5, {4, 8, 8, 8, 8}};
static int module_token, primary_token;
static __thread void *current;

CUresult cuDriverGetVersion(int *v) { *v = 12090; return OK; }
CUresult cuInit(unsigned flags) { (void)flags; return OK; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal == 0 ? OK : INVALID_VALUE; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
CUresult cuDeviceGetName(char *name, int len, int dev)
{
    (void)dev;
    strncpy(name, "fake device (host memory)", (size_t)len);
    if (len > 0) name[len - 1] = 0;
    return OK;
}
/* Compute capability 9.0; memory pools supported (115); anything else 0. */
CUresult cuDeviceGetAttribute(int *v, int attrib, int dev)
{
    (void)dev;
    *v = attrib == 75 ? 9 : attrib == 115 ? 1 : 0;
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { (void)dev; *ctx = &primary_token; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return OK; }
CUresult cuCtxPushCurrent_v2(void *ctx) { current = ctx; return OK; }
CUresult cuCtxPopCurrent_v2(void **ctx) { if (ctx) *ctx = current; current = 0; return OK; }
CUresult cuCtxGetCurrent(void **ctx) { *ctx = current; return OK; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }

CUresult cuModuleLoadData(void **mod, const void *image) { (void)image; *mod = &module_token; return OK; }
CUresult cuModuleUnload(void *mod) { (void)mod; return OK; }
CUresult cuModuleGetFunction(struct fake_fn **f, void *mod, const char *name)
{
    (void)mod;
    *f = strcmp(name, "saxpy") == 0 ? &SAXPY : strcmp(name, "empty5") == 0 ? &EMPTY5 : 0;
    return *f ? OK : NOT_FOUND;
}
CUresult cuFuncGetParamInfo(struct fake_fn *f, size_t i, size_t *offset, size_t *size)
{
    if (i >= f->count) return INVALID_VALUE;
    *offset = i == 0 ? 0 : 8 * i;
    *size = f->sizes[i];
    return OK;
}
CUresult cuFuncGetName(const char **name, struct fake_fn *f) { *name = f->name; return OK; }
/* MAX_THREADS_PER_BLOCK (0) and MAX_DYNAMIC_SHARED_SIZE_BYTES (8). */
CUresult cuFuncGetAttribute(int *v, int attrib, struct fake_fn *f)
{
    (void)f;
    *v = attrib == 0 ? 1024 : attrib == 8 ? 48 * 1024 : 0;
    return OK;
}
CUresult cuLaunchKernel(struct fake_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void *stream, void **params, void **extra)
{
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)stream; (void)extra;
    if (f == &SAXPY) {
        float a = *(float *)params[0];
        const float *x = (const float *)(uintptr_t) * (CUdeviceptr *)params[1];
        float *y = (float *)(uintptr_t) * (CUdeviceptr *)params[2];
        size_t n = *(size_t *)params[3];
        for (size_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
    }
    return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(uintptr_t)malloc(n); return *p ? OK : 2; }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { (void)s; return cuMemAlloc_v2(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return OK; }
CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { (void)s; return cuMemFree_v2(p); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, void *s) { (void)s; memcpy((void *)(uintptr_t)d, h, n); return OK; }
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, void *s) { (void)s; memcpy(h, (void *)(uintptr_t)d, n); return OK; }
/* Every host pointer is pageable here: each attribute asked reads as zero (memory CUDA does not know). */
CUresult cuPointerGetAttributes(unsigned n, const int *attrs, void **data, CUdeviceptr ptr)
{
    (void)attrs; (void)ptr;
    for (unsigned i = 0; i < n; i++) *(unsigned *)data[i] = 0;
    return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) { (void)s; memset((void *)(uintptr_t)d, v, n); return OK; }

CUresult cuStreamCreate(void **s, unsigned flags) { (void)flags; *s = malloc(1); return OK; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
CUresult cuStreamSynchronize(void *s) { (void)s; return OK; }
CUresult cuStreamIsCapturing(void *s, int *status) { (void)s; *status = 0; return OK; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned flags) { (void)s; (void)e; (void)flags; return OK; }
CUresult cuEventCreate(void **e, unsigned flags) { (void)flags; *e = malloc(1); return OK; }
CUresult cuEventRecord(void *e, void *s) { (void)e; (void)s; return OK; }
CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }

struct entry { const char *name; void *fn; };
#define E(n) {#n, (void *)n}
#define V2(n) {#n, (void *)n##_v2}
static const struct entry ENTRIES[] = {
    E(cuDriverGetVersion), E(cuInit), E(cuDeviceGet), E(cuDeviceGetCount), E(cuDeviceGetName),
    E(cuDeviceGetAttribute), E(cuDevicePrimaryCtxRetain), V2(cuDevicePrimaryCtxRelease), V2(cuCtxPushCurrent),
    V2(cuCtxPopCurrent), E(cuCtxGetCurrent), E(cuCtxSetCurrent), E(cuCtxSynchronize), E(cuModuleLoadData),
    E(cuModuleUnload), E(cuModuleGetFunction), E(cuFuncGetParamInfo), E(cuFuncGetName), E(cuFuncGetAttribute),
    E(cuLaunchKernel), V2(cuMemAlloc), E(cuMemAllocAsync), V2(cuMemFree), E(cuMemFreeAsync),
    V2(cuMemcpyHtoDAsync), V2(cuMemcpyDtoHAsync), E(cuMemsetD8Async), E(cuStreamCreate), V2(cuStreamDestroy),
    E(cuStreamSynchronize), E(cuStreamIsCapturing), E(cuStreamWaitEvent), E(cuEventCreate), E(cuEventRecord), V2(cuEventDestroy),
    E(cuPointerGetAttributes),
};

int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    (void)ver; (void)flags;
    *pfn = 0;
    for (size_t i = 0; !*pfn && i < sizeof ENTRIES / sizeof ENTRIES[0]; i++)
        if (strcmp(ENTRIES[i].name, sym) == 0) *pfn = ENTRIES[i].fn;
    if (status) *status = *pfn ? 0 : 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return *pfn ? OK : NOT_FOUND;
}

/* NVRTC: every program compiles to the same placeholder PTX. */
static const char PTX[] = "// fake PTX";
static int program_token;
int nvrtcVersion(int *major, int *minor) { *major = 12; *minor = 9; return 0; }
int nvrtcCreateProgram(void **prog, const char *src, const char *name, int n, const char *const *h, const char *const *names)
{
    (void)src; (void)name; (void)n; (void)h; (void)names;
    *prog = &program_token;
    return 0;
}
int nvrtcCompileProgram(void *prog, int n, const char *const *options) { (void)prog; (void)n; (void)options; return 0; }
int nvrtcGetPTXSize(void *prog, size_t *size) { (void)prog; *size = sizeof PTX; return 0; }
int nvrtcGetPTX(void *prog, char *ptx) { (void)prog; memcpy(ptx, PTX, sizeof PTX); return 0; }
int nvrtcGetProgramLogSize(void *prog, size_t *size) { (void)prog; *size = 1; return 0; }
int nvrtcGetProgramLog(void *prog, char *log) { (void)prog; *log = 0; return 0; }
int nvrtcDestroyProgram(void **prog) { *prog = 0; return 0; }
