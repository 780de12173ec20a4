/* The tracer through the C shim, against the fake driver tests/c/fake_bench_libcuda.c
 * (CUDAGEN_LIBCUDA); tests/c/run.sh checks the trace files it leaves.
 *   trace_test calls           one call of each kind: enum names, output values written by the
 *                              call, a string, an error result, a loader failure, 11 arguments,
 *                              a traced call made inside another (the fake runs host functions
 *                              at once)
 *   trace_test threads T N     T threads x N cuCtxGetCurrent calls; the threads stay alive (blocked)
 *                              while the main thread exits, so their current buffers are written
 *                              by the exit hook; prints "calls T*N"
 *   trace_test joined T N      the same, the threads exit (and hand over their buffers) first
 *   trace_test abort N         N calls, then abort(): the pending lines are written by the handler
 * Build: gcc -std=c11 -I generated/c/include trace_test.c -L<dir> -lcudagen -lpthread */
#define _GNU_SOURCE
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int per_thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;
static int stay;

static void nested(void *arg) {
    CUdevice d;
    (void)arg;
    cuDeviceGet(&d, 5);
}

static void *worker(void *arg) {
    (void)arg;
    CUcontext c;
    for (int i = 0; i < per_thread; i++) cuCtxGetCurrent(&c);
    pthread_mutex_lock(&lock);
    done++;
    pthread_cond_broadcast(&cond);
    while (stay) pthread_cond_wait(&cond, &lock); /* never woken: stays alive until exit */
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "calls";
    if (strcmp(mode, "calls") == 0) {
        CUdevice dev;
        CUcontext ctx;
        CUmodule mod;
        CUfunction fn;
        CUstream stream;
        CUdeviceptr dptr = 0;
        int value = 0;
        cuInit(0);
        cuDeviceGet(&dev, 0);
        cuCtxCreate(&ctx, 0, dev);
        cuCtxGetCurrent(&ctx);
        cuCtxGetCurrent(NULL);
        cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
        cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 7);
        cuModuleLoadData(&mod, "");
        cuModuleGetFunction(&fn, mod, "empty5");
        cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
        float a = 1.0f;
        void *args[1] = {&a};
        cuLaunchKernel(fn, 1, 2, 3, 32, 1, 1, 48, stream, args, NULL);
        cuStreamSynchronize(stream);
        /* Twice: a function's first traced call decides its filter and is recorded after it
         * returns; the second has its record reserved before (trace::open). */
        cuLaunchHostFunc(stream, nested, NULL);
        cuLaunchHostFunc(stream, nested, NULL);
        CUresult r = cuMemAlloc(&dptr, 64);
        printf("cuMemAlloc -> %d\n", (int)r);
        return 0;
    }
    if (argc < 3) return 2;
    if (strcmp(mode, "abort") == 0) {
        CUcontext c;
        for (int i = 0, n = atoi(argv[2]); i < n; i++) cuCtxGetCurrent(&c);
        abort();
    }
    int threads = atoi(argv[2]);
    per_thread = argc > 3 ? atoi(argv[3]) : 1000;
    stay = strcmp(mode, "threads") == 0;
    pthread_t t[64];
    if (threads < 1 || threads > 64) return 2;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, NULL);
    if (stay) {
        pthread_mutex_lock(&lock);
        while (done < threads) pthread_cond_wait(&cond, &lock);
        pthread_mutex_unlock(&lock);
    } else {
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    }
    printf("calls %d\n", threads * per_thread);
    fflush(stdout);
    exit(0);
}
