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
 *   trace_test names           handles the tracer names: modules from memory and a file, functions (one
 *                              made on another thread, C++ names, one made by calling the fake
 *                              driver directly, so only the driver's name query can name it),
 *                              streams, an allocation, launches with arguments, a graph of two
 *                              nodes launched three times, a module unload
 * Build: gcc -std=c11 -I generated/c/include trace_test.c -L<dir> -lcudagen -lpthread */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
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

static CUmodule names_module;
static CUfunction cross;

static void *get_cross(void *arg) {
    (void)arg;
    cuModuleGetFunction(&cross, names_module, "cross");
    return NULL;
}

/* The `names` run (see the top). */
static int names(void) {
    static const char ptx[] = ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry saxpy()\n{\n    ret;\n}\n";
    CUdevice dev;
    CUcontext ctx;
    CUfunction saxpy, scale, hidden;
    CUstream s1, s2;
    CUdeviceptr x;
    cuInit(0);
    cuDeviceGet(&dev, 0);
    cuCtxCreate(&ctx, 0, dev);
    cuModuleLoadData(&names_module, ptx);
    cuModuleGetFunction(&saxpy, names_module, "saxpy");
    cuModuleGetFunction(&scale, names_module, "_Z5scaleIfEvPT_S0_i");
    CUmodule from_file;
    CUfunction k2;
    cuModuleLoad(&from_file, "/opt/kernels/k2.cubin");
    cuModuleGetFunction(&k2, from_file, "k2");
    pthread_t t;
    pthread_create(&t, NULL, get_cross, NULL);
    pthread_join(t, NULL);
    /* Made behind the tracer's back: the fake driver's own entry point. */
    void *fake = dlopen(getenv("CUDAGEN_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    CUresult (*get)(CUfunction *, CUmodule, const char *) = fake ? (CUresult(*)(CUfunction *, CUmodule, const char *))dlsym(fake, "cuModuleGetFunction") : NULL;
    if (!get || get(&hidden, names_module, "_Z6hiddenPfi") != CUDA_SUCCESS) return 3;
    cuMemAllocManaged(&x, 4096, CU_MEM_ATTACH_GLOBAL);
    cuStreamCreate(&s1, 0);
    cuStreamCreate(&s2, 0);
    float a = 2.0f;
    CUdeviceptr y = x + 256;
    int n = 64;
    void *args[] = {&a, &x, &y, &n};
    cuLaunchKernel(saxpy, 2, 1, 1, 32, 1, 1, 0, s1, args, NULL);
    cuLaunchKernel(scale, 1, 1, 1, 64, 1, 1, 0, s2, args, NULL);
    cuLaunchKernel(scale, 4, 1, 1, 64, 1, 1, 0, s2, args, NULL);
    cuLaunchKernel(cross, 1, 1, 1, 1, 1, 1, 0, s1, NULL, NULL);
    cuLaunchKernel(hidden, 1, 1, 1, 1, 1, 1, 0, s2, NULL, NULL);
    CUfunction view;
    struct { CUdeviceptr p; size_t n; } span = {x + 512, 64};
    void *span_args[] = {&span};
    cuModuleGetFunction(&view, names_module, "view");
    cuLaunchKernel(view, 1, 1, 1, 1, 1, 1, 0, s1, span_args, NULL);
    CUgraph g;
    CUgraphNode nodes[2];
    CUgraphExec exec;
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.func = saxpy;
    cuGraphCreate(&g, 0);
    cuGraphAddKernelNode(&nodes[0], g, NULL, 0, &p);
    cuGraphAddKernelNode(&nodes[1], g, &nodes[0], 1, &p);
    cuGraphInstantiate(&exec, g, 0);
    for (int i = 0; i < 3; i++) cuGraphLaunch(exec, s1);
    cuModuleUnload(names_module);
    return 0;
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
    if (strcmp(mode, "names") == 0) return names();
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
