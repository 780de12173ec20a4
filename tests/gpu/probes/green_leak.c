/* Oracle for the safe layer's green-context leak line: the same rounds through NVIDIA's
 * cuda.h directly (no cudagen). Prints the device memory lost over 20 rounds when the resource
 * descriptor is generated every round, and when it is generated once. Build on the GPU machine:
 *   gcc green_leak.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda */
#include <cuda.h>
#include <stdio.h>

#define CK(x) do { CUresult r = (x); if (r) { printf("%s failed: %d\n", #x, (int)r); return 1; } } while (0)

static size_t free_bytes(CUdevice dev) {
    size_t f = 0, t = 0;
    CUmemoryPool pool;
    cuCtxSynchronize();
    cuDeviceGetDefaultMemPool(&pool, dev);
    cuMemPoolTrimTo(pool, 0);
    cuMemGetInfo(&f, &t);
    return f;
}

static int round_trip(CUdevice dev, CUdevResourceDesc *shared) {
    CUdevResource sms;
    CUdevResourceDesc desc;
    CUgreenCtx green;
    CUstream s;
    if (shared) desc = *shared;
    else {
        CK(cuDeviceGetDevResource(dev, &sms, CU_DEV_RESOURCE_TYPE_SM));
        CK(cuDevResourceGenerateDesc(&desc, &sms, 1));
    }
    CK(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CK(cuGreenCtxStreamCreate(&s, green, CU_STREAM_NON_BLOCKING, 0));
    CK(cuStreamDestroy(s));
    CK(cuGreenCtxDestroy(green));
    return 0;
}

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUdevResource sms;
    CUdevResourceDesc once;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuDeviceGetDevResource(dev, &sms, CU_DEV_RESOURCE_TYPE_SM));
    CK(cuDevResourceGenerateDesc(&once, &sms, 1));
    for (int mode = 0; mode < 2; mode++) {
        CUdevResourceDesc *shared = mode ? &once : NULL;
        for (int i = 0; i < 3; i++) if (round_trip(dev, shared)) return 1;
        size_t before = free_bytes(dev);
        for (int i = 0; i < 20; i++) if (round_trip(dev, shared)) return 1;
        size_t after = free_bytes(dev);
        printf("green-probe (cuda.h, no cudagen): desc %s: 20 rounds, lost %lld bytes\n",
               mode ? "generated once" : "generated per round", (long long)before - (long long)after);
    }
    return 0;
}
