/* Diagnostic benchmark (GPU machine): is a driver entry point obtained from cuGetProcAddress as
 * cheap as the exported symbol? Measures, interleaved in one process, the median ns/call of
 * cuCtxGetCurrent and cuDeviceGetAttribute called (a) directly (linked -lcuda), (b) through the
 * dlsym pointer, (c) through cuGetProcAddress_v2 with flags 0 (default) and (d) 1 (legacy
 * stream), as the cudagen loader asks. Build: gcc -O2 -std=c11 proc_bench.c -lcuda -ldl */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SAMPLES 31
#define CALLS 200000

typedef CUresult (*ctx_fn)(CUcontext *);
typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v) {
    qsort(v, SAMPLES, sizeof(double), cmp);
    return v[SAMPLES / 2];
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("skipped: no driver\n");
        return 0;
    }
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    ctx_fn ctx_fns[4];
    attr_fn attr_fns[4];
    const char *names[4] = {"exported symbol", "dlsym pointer", "cuGetProcAddress flags=0", "cuGetProcAddress flags=1"};
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    ctx_fns[0] = cuCtxGetCurrent;
    attr_fns[0] = cuDeviceGetAttribute;
    ctx_fns[1] = (ctx_fn)dlsym(lib, "cuCtxGetCurrent");
    attr_fns[1] = (attr_fn)dlsym(lib, "cuDeviceGetAttribute");
    for (int f = 0; f < 2; f++) {
        CUdriverProcAddressQueryResult q;
        cuGetProcAddress("cuCtxGetCurrent", (void **)&ctx_fns[2 + f], 4000, (cuuint64_t)f, &q);
        cuGetProcAddress("cuDeviceGetAttribute", (void **)&attr_fns[2 + f], 2000, (cuuint64_t)f, &q);
    }
    double s[2][4][SAMPLES];
    CUcontext cur;
    int value;
    for (int i = 0; i < SAMPLES; i++) {
        for (int v = 0; v < 4; v++) {
            double t = now_ns();
            for (int k = 0; k < CALLS; k++) ctx_fns[v](&cur);
            s[0][v][i] = (now_ns() - t) / CALLS;
            t = now_ns();
            for (int k = 0; k < CALLS; k++) attr_fns[v](&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
            s[1][v][i] = (now_ns() - t) / CALLS;
        }
    }
    printf("| entry point | cuCtxGetCurrent ns | cuDeviceGetAttribute ns | same pointer as export |\n|---|---:|---:|---|\n");
    for (int v = 0; v < 4; v++)
        printf("| %s | %.2f | %.2f | %s |\n", names[v], median(s[0][v]), median(s[1][v]),
               (void *)ctx_fns[v] == (void *)ctx_fns[0] ? "yes" : "no");
    return 0;
}
