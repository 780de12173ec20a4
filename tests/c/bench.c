/*
 * Per-call cost of three driver calls, built twice from this source: linked to libcudagen
 * (-lcudagen) and to libcuda (-lcuda); gpu.sh also runs the shim build with tracing to /dev/null.
 *   cuCtxGetCurrent       100,000 calls per sample
 *   cuDeviceGetAttribute  100,000 calls per sample
 *   cuLaunchKernel        5-argument empty kernel, batches of 256 launches + cuStreamSynchronize,
 *                         102,400 launches per sample
 * Prints "BENCH <function> <median ns/call> <min> <max>" per function (medians of >= 15 samples).
 * Needs a GPU; without one it prints "BENCH SKIP <reason>" and exits 0.
 */
#define _POSIX_C_SOURCE 199309L
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SAMPLES 21
#define CALLS 100000
#define BATCH 256
#define BATCHES 400

/* An empty kernel with SAXPY's five parameters; PTX needs no NVRTC and JITs on any GPU. */
static const char *empty5_ptx =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry empty5(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out, .param .u64 n)\n"
    "{\n"
    "    ret;\n"
    "}\n";

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, double *s, int n)
{
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    printf("BENCH %s %.2f %.2f %.2f\n", name, s[n / 2], s[0], s[n - 1]);
}

#define CHECK(call)                                                        \
    do {                                                                   \
        CUresult r_ = (call);                                              \
        if (r_ != CUDA_SUCCESS) {                                          \
            printf("BENCH FAIL %s returned %d\n", #call, (int)r_);         \
            return 1;                                                      \
        }                                                                  \
    } while (0)

int main(void)
{
    CUdevice dev;
    CUcontext ctx, cur;
    CUmodule mod;
    CUfunction fn;
    CUstream stream;
    CUresult init;
    double s[SAMPLES];
    int i, j, k, value = 0;
    float a = 1.0f;
    CUdeviceptr x = 0, y = 0, out = 0;
    size_t n = 0;
    void *args[5];

    init = cuInit(0);
    if (init != CUDA_SUCCESS) {
        printf("BENCH SKIP cuInit returned %d (no driver or no GPU)\n", (int)init);
        return 0;
    }
    CHECK(cuDeviceGet(&dev, 0));
#if CUDA_VERSION >= 13000
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
#else
    CHECK(cuCtxCreate(&ctx, 0, dev));
#endif
    CHECK(cuModuleLoadData(&mod, empty5_ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "empty5"));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    args[0] = &a;
    args[1] = &x;
    args[2] = &y;
    args[3] = &out;
    args[4] = &n;

    /* warm up: resolve every entry point, JIT, first launches */
    for (k = 0; k < 1000; k++) {
        CHECK(cuCtxGetCurrent(&cur));
        CHECK(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    }
    for (k = 0; k < 4 * BATCH; k++) CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL));
    CHECK(cuStreamSynchronize(stream));

    for (i = 0; i < SAMPLES; i++) {
        double t0 = now_ns();
        for (k = 0; k < CALLS; k++) cuCtxGetCurrent(&cur);
        s[i] = (now_ns() - t0) / CALLS;
    }
    report("cuCtxGetCurrent", s, SAMPLES);

    for (i = 0; i < SAMPLES; i++) {
        double t0 = now_ns();
        for (k = 0; k < CALLS; k++) cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        s[i] = (now_ns() - t0) / CALLS;
    }
    report("cuDeviceGetAttribute", s, SAMPLES);

    for (i = 0; i < SAMPLES; i++) {
        double t0 = now_ns();
        for (j = 0; j < BATCHES; j++) {
            for (k = 0; k < BATCH; k++) cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
            cuStreamSynchronize(stream);
        }
        s[i] = (now_ns() - t0) / ((double)BATCH * BATCHES);
    }
    report("cuLaunchKernel", s, SAMPLES);

    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    return 0;
}
