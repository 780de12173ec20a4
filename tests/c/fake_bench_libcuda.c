/*
 * A fake libcuda.so.1 for running tests/c/bench_pair.c without a GPU (tests/c/bench_fake.sh) and
 * for the tracer test (tests/c/trace_test.c): exports what they call, each returning at once (as
 * cheap as a call can be, so the shim's and the tracer's added cost stands out), and
 * cuGetProcAddress_v2 hands the shim the very same functions (cuMemAlloc is missing on purpose).
 * FAKE_LAUNCH_NS=N makes cuLaunchKernel spin N ns (the real one takes ~3 us on an H100, so the
 * trace writer keeps up with launches; 0 by default). FAKE_LAUNCH_TOUCH_KB=N makes it also write
 * one byte in every cache line of N KiB of its own memory and end with a full fence, as the real
 * one moves through its own data and fences its writes to the GPU: what the tracer keeps in
 * cache between calls is evicted as it would be there.
 * For the tracer's names (trace_test names): cuModuleGetFunction hands out one handle per name
 * (0x3000, 0x3010, ...); cuFuncGetName answers only for functions whose name starts with
 * "_Z6hidden" (trace_test makes those by calling this library directly, so the tracer can name
 * them only by asking), so a traced function named in the trace was named from its traced call;
 * cuFuncGetParamInfo knows "saxpy(float, float*, float*, int)", "view" (one 16-byte struct) and
 * bench_pair's "empty5"; streams, graphs and nodes get
 * distinct handles; cuMemAllocManaged hands out 0x7f0000100000 on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;

static long launch_ns = -1;
static long touch_kb = -1;
static volatile unsigned char touched[8 << 20];

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 12090; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
CUresult cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { (void)flags; (void)dev; *ctx = (void *)0x1000; return 0; }
CUresult cuModuleLoadData(void **mod, const void *image) { (void)image; *mod = (void *)0x2000; return 0; }
CUresult cuModuleLoad(void **mod, const char *path) { (void)path; *mod = (void *)0x2100; return 0; }
CUresult cuModuleUnload(void *mod) { (void)mod; return 0; }

#define MAX_FUNCTIONS 64
static char names[MAX_FUNCTIONS][64];
static int functions;
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name)
{
    (void)mod;
    int i = 0;
    while (i < functions && strcmp(names[i], name) != 0) i++;
    if (i == functions) {
        if (functions == MAX_FUNCTIONS || strlen(name) >= sizeof names[0]) return 1;
        strcpy(names[functions++], name);
    }
    *fn = (void *)(uintptr_t)(0x3000 + 0x10 * i);
    return 0;
}
static int function_index(const void *f)
{
    uintptr_t k = (uintptr_t)f;
    if (k < 0x3000 || (k - 0x3000) % 0x10 || (k - 0x3000) / 0x10 >= (uintptr_t)functions) return -1;
    return (int)((k - 0x3000) / 0x10);
}
CUresult cuFuncGetName(const char **name, void *f)
{
    int i = function_index(f);
    if (i < 0 || strncmp(names[i], "_Z6hidden", 9) != 0) return 1; /* CUDA_ERROR_INVALID_VALUE */
    *name = names[i];
    return 0;
}
CUresult cuFuncGetModule(void **mod, void *f)
{
    if (function_index(f) < 0) return 400; /* CUDA_ERROR_INVALID_HANDLE */
    *mod = (void *)0x2000;
    return 0;
}
CUresult cuFuncGetParamInfo(void *f, size_t i, size_t *offset, size_t *size)
{
    /* saxpy(float, float *, float *, int); view({float *, size_t}); bench_pair's empty5(float, u64, u64, u64, u64) */
    static const size_t saxpy[] = {4, 8, 8, 4}, view[] = {16}, empty5[] = {4, 8, 8, 8, 8};
    int k = function_index(f);
    const char *name = k < 0 ? "" : names[k];
    const size_t *sizes = !strcmp(name, "saxpy") ? saxpy : !strcmp(name, "view") ? view : !strcmp(name, "empty5") ? empty5 : NULL;
    size_t n = sizes == saxpy ? 4 : sizes == view ? 1 : 5;
    if (!sizes || i >= n) return 1;
    *offset = 0;
    for (size_t j = 0; j < i; j++) *offset = (*offset + sizes[j] + 7) & ~(size_t)7;
    if (size) *size = sizes[i];
    return 0;
}
CUresult cuMemAllocManaged(uint64_t *dptr, size_t size, unsigned flags)
{
    static uint64_t next = 0x7f0000100000;
    (void)flags;
    *dptr = next;
    next += (size + 0xfff) & ~(size_t)0xfff;
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags)
{
    static uintptr_t next = 0x4000;
    (void)flags;
    *s = (void *)next;
    next += 0x100;
    return 0;
}
CUresult cuGraphCreate(void **g, unsigned flags) { (void)flags; *g = (void *)0x5000; return 0; }
CUresult cuGraphAddKernelNode_v2(void **node, void *g, const void *deps, size_t n, const void *params)
{
    static uintptr_t next = 0x6000;
    (void)g; (void)deps; (void)n; (void)params;
    *node = (void *)next;
    next += 0x10;
    return 0;
}
CUresult cuGraphInstantiateWithFlags(void **exec, void *g, unsigned long long flags) { (void)g; (void)flags; *exec = (void *)0x5800; return 0; }
CUresult cuGraphLaunch(void *exec, void *stream) { (void)exec; (void)stream; return 0; }
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
/* Runs the host function at once, on the calling thread (the real one runs it later on a driver
 * thread): trace_test calls the shim from it, a traced call inside another. */
CUresult cuLaunchHostFunc(void *stream, void (*fn)(void *), void *data)
{
    (void)stream;
    fn(data);
    return 0;
}
CUresult cuCtxGetCurrent(void **ctx)
{
    if (!ctx) return 1; /* CUDA_ERROR_INVALID_VALUE */
    *ctx = (void *)0x1000;
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attrib, int dev)
{
    if (dev != 0) return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *v = attrib == 16 ? 132 : 1;
    return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra)
{
    (void)f; (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)stream; (void)params; (void)extra;
    if (launch_ns < 0) {
        const char *e = getenv("FAKE_LAUNCH_NS");
        launch_ns = e ? atol(e) : 0;
    }
    if (launch_ns > 0) {
        uint64_t end = now_ns() + (uint64_t)launch_ns;
        while (now_ns() < end) {
        }
    }
    if (touch_kb < 0) {
        const char *e = getenv("FAKE_LAUNCH_TOUCH_KB");
        touch_kb = e ? atol(e) : 0;
        if (touch_kb > (long)(sizeof touched >> 10)) touch_kb = (long)(sizeof touched >> 10);
    }
    if (touch_kb > 0) {
        static size_t at;
        for (size_t k = 0; k < (size_t)touch_kb << 10; k += 64) {
            touched[at] += 1;
            at = (at + 64) % sizeof touched;
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return 0;
}

static const struct {
    const char *name;
    void *fn;
} table[] = {
    {"cuInit", (void *)cuInit},
    {"cuDriverGetVersion", (void *)cuDriverGetVersion},
    {"cuDeviceGet", (void *)cuDeviceGet},
    {"cuCtxCreate", (void *)cuCtxCreate_v2},
    {"cuModuleLoadData", (void *)cuModuleLoadData},
    {"cuModuleGetFunction", (void *)cuModuleGetFunction},
    {"cuModuleLoad", (void *)cuModuleLoad},
    {"cuModuleUnload", (void *)cuModuleUnload},
    {"cuFuncGetName", (void *)cuFuncGetName},
    {"cuFuncGetModule", (void *)cuFuncGetModule},
    {"cuFuncGetParamInfo", (void *)cuFuncGetParamInfo},
    {"cuMemAllocManaged", (void *)cuMemAllocManaged},
    {"cuGraphCreate", (void *)cuGraphCreate},
    {"cuGraphAddKernelNode", (void *)cuGraphAddKernelNode_v2},
    {"cuGraphInstantiateWithFlags", (void *)cuGraphInstantiateWithFlags},
    {"cuGraphLaunch", (void *)cuGraphLaunch},
    {"cuStreamCreate", (void *)cuStreamCreate},
    {"cuStreamSynchronize", (void *)cuStreamSynchronize},
    {"cuCtxGetCurrent", (void *)cuCtxGetCurrent},
    {"cuDeviceGetAttribute", (void *)cuDeviceGetAttribute},
    {"cuLaunchKernel", (void *)cuLaunchKernel},
    {"cuLaunchHostFunc", (void *)cuLaunchHostFunc},
};

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    (void)ver; (void)flags;
    void *p = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(sym, table[i].name) == 0) p = table[i].fn;
    if (strcmp(sym, "cuGetProcAddress") == 0) p = (void *)cuGetProcAddress_v2;
    *pfn = p;
    if (status) *status = p ? 0 : 1; /* CU_GET_PROC_ADDRESS_SUCCESS / SYMBOL_NOT_FOUND */
    return p ? 0 : 500;
}
