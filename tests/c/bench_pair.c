/* Side-by-side benchmark (GPU machine): the shim against libcuda in ONE process, so context,
 * clocks and process layout are the same for both. The program links libcuda directly (-lcuda)
 * and dlopens libcudagen.so (argv[1]) for the shim's exports; samples alternate between the two.
 * cuCtxGetCurrent and cuDeviceGetAttribute: 61 samples x 200k calls; cuLaunchKernel (empty
 * 5-argument kernel): 61 samples of 100 batches of 256 launches, each batch then cuStreamSynchronize.
 * Only the launch calls are timed, not the synchronize: 256 launches fit the queue, so none waits
 * for the GPU and the time is the calling thread's (timing the synchronize too measured the GPU
 * whenever it was the slower side, and its noise swamped the tracer's cost).
 * Each sample times both paths back to back (the order swaps every sample; the launch batches
 * alternate within the sample, swapping order every batch); the table gives each path's median
 * and the median of the per-sample differences, which cancels slow drift, and that median over
 * the samples (the launches: the batch pairs) where each path ran first: they differ when going
 * first costs more. Recorded launches on the H100 machine, median of 5 processes: when whole
 * samples alternated, +26 ns where libcuda went first and +132 where the shim did (a process's
 * median fell on either side: +76 to +127); alternating batches, +75 and +96.
 * Run it again with CUDAGEN_TRACE_FILE=/dev/null for the cost of tracing (the shim column).
 * BENCH_CALLS=N changes the calls per sample of the two small calls (BENCH_BATCHES=N the launch
 * batches, BENCH_SAMPLES=N the samples, 61 by default, at most 1001), BENCH_PAUSE_MS=N sleeps
 * between samples (so the trace writer catches up and every traced call is recorded, not dropped;
 * after each pause both paths make a few untimed calls and launches, unless BENCH_WARM=0),
 * BENCH_CLOCK=thread times with the calling thread's CPU clock instead of the monotonic clock (on a
 * machine with few cores the writer thread and other jobs preempt the caller: wall time counts that).
 * Without a GPU, tests/c/bench_fake.sh runs it against a fake libcuda (tests/c/fake_bench_libcuda.c).
 * Build: gcc -O2 -std=c11 -Igenerated/c/include bench_pair.c -lcuda -ldl */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SAMPLES 1001
#define BATCH 256
/* Calls and launches of each path, untimed, after each pause. */
#define WARM_CALLS 200
#define WARM_LAUNCHES 64

static const char *empty5_ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry empty5(.param .f32 a, .param .u64 x, .param .u64 y, .param .u64 out, .param .u64 n)\n"
    "{\n    ret;\n}\n";

typedef CUresult (*ctx_fn)(CUcontext *);
typedef CUresult (*attr_fn)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);
typedef CUresult (*sync_fn)(CUstream);

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}
static clockid_t clock_id = CLOCK_MONOTONIC;
static double now_ns(void) {
    struct timespec t;
    clock_gettime(clock_id, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp);
    return v[n / 2];
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_pair path/to/libcudagen.so\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx, cur;
    CUmodule mod;
    CUfunction fn;
    CUstream stream;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) {
        printf("skipped: no driver\n");
        return 0;
    }
    void *shim = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!shim) {
        printf("cannot open %s: %s\n", argv[1], dlerror());
        return 1;
    }
    ctx_fn ctx_f[2] = {cuCtxGetCurrent, (ctx_fn)dlsym(shim, "cuCtxGetCurrent")};
    attr_fn attr_f[2] = {cuDeviceGetAttribute, (attr_fn)dlsym(shim, "cuDeviceGetAttribute")};
    launch_fn launch_f[2] = {cuLaunchKernel, (launch_fn)dlsym(shim, "cuLaunchKernel")};
    sync_fn sync_f[2] = {cuStreamSynchronize, (sync_fn)dlsym(shim, "cuStreamSynchronize")};
    if (cuCtxCreate(&ctx, 0, dev) || cuModuleLoadData(&mod, empty5_ptx) || cuModuleGetFunction(&fn, mod, "empty5") ||
        cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) {
        printf("setup failed\n");
        return 1;
    }
    float a = 1.0f;
    CUdeviceptr x = 0, y = 0, out = 0;
    size_t n = 0;
    void *args[5] = {&a, &x, &y, &out, &n};
    int value = 0;
    const int CALLS = env_int("BENCH_CALLS", 200000), BATCHES = env_int("BENCH_BATCHES", 100);
    const int pause_ms = env_int("BENCH_PAUSE_MS", 0), warm = env_int("BENCH_WARM", 1);
    int samples = env_int("BENCH_SAMPLES", 61);
    if (samples < 1 || samples > MAX_SAMPLES) samples = 61;
    const char *clk = getenv("BENCH_CLOCK");
    if (clk && strcmp(clk, "thread") == 0) clock_id = CLOCK_THREAD_CPUTIME_ID;
    static double s[3][2][MAX_SAMPLES], split[2][MAX_SAMPLES];
    for (int w = 0; w < 2; w++) { /* warm up both paths: resolve entries, JIT, first launches */
        for (int k = 0; k < 1000; k++) {
            ctx_f[w](&cur);
            attr_f[w](&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        }
        for (int k = 0; k < 4 * BATCH; k++) launch_f[w](fn, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
        sync_f[w](stream);
    }
    for (int i = 0; i < samples; i++) {
        if (pause_ms > 0) {
            struct timespec p = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
            nanosleep(&p, NULL);
        }
        if (pause_ms > 0 && warm) {
            /* Untimed, both paths: after the sleep the caller's caches and branch predictors are
             * cold, and whichever path runs first pays for it. */
            for (int w = 0; w < 2; w++) {
                for (int k = 0; k < WARM_CALLS; k++) {
                    ctx_f[w](&cur);
                    attr_f[w](&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
                }
                for (int k = 0; k < WARM_LAUNCHES; k++) launch_f[w](fn, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
                sync_f[w](stream);
            }
        }
        for (int j = 0; j < 2; j++) {
            int w = (i + j) % 2; /* alternate which path goes first */
            double t = now_ns();
            for (int k = 0; k < CALLS; k++) ctx_f[w](&cur);
            s[0][w][i] = (now_ns() - t) / CALLS;
            t = now_ns();
            for (int k = 0; k < CALLS; k++) attr_f[w](&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
            s[1][w][i] = (now_ns() - t) / CALLS;
        }
        /* Launches alternate batch by batch (the order swaps every batch), so that going first
         * (slower, whichever path does) falls on both paths in every sample. */
        double launching[2][2] = {{0, 0}, {0, 0}}; /* [path][ran first] */
        for (int b = 0; b < BATCHES; b++) {
            for (int j = 0; j < 2; j++) {
                int w = (i + b + j) % 2;
                double t = now_ns();
                for (int k = 0; k < BATCH; k++) launch_f[w](fn, 1, 1, 1, 32, 1, 1, 0, stream, args, NULL);
                launching[w][j == 0] += now_ns() - t;
                sync_f[w](stream); /* not timed: the GPU's time is not the caller's */
            }
        }
        for (int w = 0; w < 2; w++) s[2][w][i] = (launching[w][0] + launching[w][1]) / (BATCHES * BATCH);
        if (BATCHES >= 2) { /* added ns over the batch pairs where libcuda / the shim went first */
            split[0][i] = 2 * (launching[1][0] - launching[0][1]) / (BATCHES * BATCH);
            split[1][i] = 2 * (launching[1][1] - launching[0][0]) / (BATCHES * BATCH);
        }
    }
    const char *names[3] = {"cuCtxGetCurrent", "cuDeviceGetAttribute", "cuLaunchKernel (5 args)"};
    char setup[128] = "";
    if (CALLS != 200000 || BATCHES != 100 || pause_ms > 0 || samples != 61)
        snprintf(setup, sizeof setup, ", %d samples of %d calls / %d launches, %d ms pauses", samples, CALLS, BATCHES * BATCH, pause_ms);
    printf("| call (%s%s%s) | libcuda ns | libcudagen ns | added ns (median of paired differences) | libcuda first | libcudagen first |\n"
           "|---|---:|---:|---:|---:|---:|\n",
           getenv("CUDAGEN_TRACE_FILE") ? "shim traced to /dev/null" : "tracing off",
           clock_id == CLOCK_MONOTONIC ? "" : ", thread CPU time", setup);
    for (int f = 0; f < 3; f++) {
        double diff[MAX_SAMPLES], by_order[2][MAX_SAMPLES];
        int n_order[2] = {0, 0};
        for (int i = 0; i < samples; i++) {
            diff[i] = s[f][1][i] - s[f][0][i];
            if (f < 2) { /* sample i ran path i % 2 first */
                by_order[i % 2][n_order[i % 2]++] = diff[i];
            } else if (BATCHES >= 2) {
                for (int o = 0; o < 2; o++) by_order[o][n_order[o]++] = split[o][i];
            }
        }
        double dm = median(diff, samples);
        printf("| %s | %.2f | %.2f | %+.2f | %+.2f | %+.2f |\n", names[f], median(s[f][0], samples), median(s[f][1], samples), dm,
               n_order[0] ? median(by_order[0], n_order[0]) : 0.0, n_order[1] ? median(by_order[1], n_order[1]) : 0.0);
    }
    return 0;
}
