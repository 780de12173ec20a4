/*
 * The seed SAXPY walkthrough in C99: NVRTC compiles the kernel to PTX, the driver API loads it,
 * runs it on 16,777,216 floats and the result is checked against the CPU.
 *
 * Builds unchanged against NVIDIA's headers (-lcuda -lnvrtc) or cudagen's (-lcudagen).
 * Output contract (tests/c/run.sh and gpu.sh grep for these lines):
 *   "RESULT: PASS"                          GPU part ran and matched the CPU      exit 0
 *   "RESULT: SKIP no driver: skipped GPU part"  no CUDA driver (NVRTC part ran)   exit 0
 *   "RESULT: FAIL ..."                      anything else                        exit 1
 * Every driver/NVRTC function it calls appears as `cu*`/`nvrtc*` in this file (gpu.sh checks the
 * trace for each one).
 */
#include <cuda.h>
#include <nvrtc.h>
#ifdef CUDAGEN_CUDA_H
#include <cudagen.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *saxpy_src =
    "extern \"C\" __global__\n"
    "void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
    "{\n"
    " size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    " if (tid < n) {\n"
    "   out[tid] = a * x[tid] + y[tid];\n"
    " }\n"
    "}\n";

#define NUM_THREADS 512u
#define NUM_BLOCKS 32768u

static int fail(const char *what, int code, const char *name)
{
    printf("RESULT: FAIL %s returned %d (%s)\n", what, code, name ? name : "?");
    return 1;
}

static const char *cu_name(CUresult r)
{
    const char *s = NULL;
    if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) {
        return r == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY" : "?";
    }
    return s;
}

#define NVRTC_CHECK(call)                                                           \
    do {                                                                            \
        nvrtcResult r_ = (call);                                                    \
        if (r_ != NVRTC_SUCCESS) return fail(#call, (int)r_, nvrtcGetErrorString(r_)); \
    } while (0)

#define CU_CHECK(call)                                                              \
    do {                                                                            \
        CUresult r_ = (call);                                                       \
        if (r_ != CUDA_SUCCESS) return fail(#call, (int)r_, cu_name(r_));           \
    } while (0)

/* xorshift floats in [0, 1), so the program needs nothing beyond libc */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)(rng_state >> 40) / 16777216.0f;
}

int main(void)
{
    nvrtcProgram prog;
    const char *opts[] = {"--fmad=false", "--gpu-architecture=compute_75"};
    size_t ptx_size = 0, log_size = 0;
    char *ptx;
    nvrtcResult compiled;
    CUresult init;
    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction kernel;
    CUstream stream;
    CUdeviceptr d_x, d_y, d_out;
    float a = 2.0f;
    size_t n = (size_t)NUM_THREADS * NUM_BLOCKS, i, bad = 0;
    size_t bytes = n * sizeof(float);
    float *h_x, *h_y, *h_out;
    void *args[5];
    int major = 0, minor = 0;

    /* NVRTC: source -> PTX (runs for real, with or without a GPU) */
    NVRTC_CHECK(nvrtcVersion(&major, &minor));
    NVRTC_CHECK(nvrtcCreateProgram(&prog, saxpy_src, "saxpy.cu", 0, NULL, NULL));
    compiled = nvrtcCompileProgram(prog, 2, opts);
    NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &log_size));
    if (compiled != NVRTC_SUCCESS) {
        char *log = (char *)malloc(log_size + 1);
        if (log != NULL && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) {
            printf("%s\n", log);
        }
        free(log);
        return fail("nvrtcCompileProgram", (int)compiled, nvrtcGetErrorString(compiled));
    }
    NVRTC_CHECK(nvrtcGetPTXSize(prog, &ptx_size));
    ptx = (char *)malloc(ptx_size);
    if (ptx == NULL) return fail("malloc", 0, "out of memory");
    NVRTC_CHECK(nvrtcGetPTX(prog, ptx));
    NVRTC_CHECK(nvrtcDestroyProgram(&prog));
    printf("NVRTC %d.%d: saxpy compiled to %lu bytes of PTX (%s)\n", major, minor, (unsigned long)ptx_size,
           strstr(ptx, ".entry saxpy") != NULL ? "has .entry saxpy" : "NO .entry saxpy");
    if (strstr(ptx, ".entry saxpy") == NULL) return fail("nvrtcGetPTX", 0, "PTX lacks the kernel");

    /* Driver */
    init = cuInit(0);
    if (init == CUDA_ERROR_STUB_LIBRARY || init == CUDA_ERROR_NO_DEVICE) {
#ifdef CUDAGEN_CUDA_H
        {
            /* read it before any other call can replace it */
            const char *why = cudagenLastLoaderError();
            printf("cuInit returned %d (%s)\n", (int)init, cu_name(init));
            printf("loader: %s\n", why != NULL ? why : "(no loader error)");
        }
#else
        printf("cuInit returned %d (%s)\n", (int)init, cu_name(init));
#endif
        printf("RESULT: SKIP no driver: skipped GPU part\n");
        free(ptx);
        return 0;
    }
    CU_CHECK(init);
    CU_CHECK(cuDeviceGet(&device, 0));
#if CUDA_VERSION >= 13000
    CU_CHECK(cuCtxCreate(&context, NULL, 0, device));
#else
    CU_CHECK(cuCtxCreate(&context, 0, device));
#endif
    CU_CHECK(cuModuleLoadData(&module, ptx));
    CU_CHECK(cuModuleGetFunction(&kernel, module, "saxpy"));

    h_x = (float *)malloc(bytes);
    h_y = (float *)malloc(bytes);
    h_out = (float *)malloc(bytes);
    if (h_x == NULL || h_y == NULL || h_out == NULL) return fail("malloc", 0, "out of memory");
    for (i = 0; i < n; i++) {
        h_x[i] = rnd();
        h_y[i] = rnd();
        h_out[i] = 0.0f;
    }

    CU_CHECK(cuMemAlloc(&d_x, bytes));
    CU_CHECK(cuMemAlloc(&d_y, bytes));
    CU_CHECK(cuMemAlloc(&d_out, bytes));
    CU_CHECK(cuStreamCreate(&stream, 0));
    CU_CHECK(cuMemcpyHtoDAsync(d_x, h_x, bytes, stream));
    CU_CHECK(cuMemcpyHtoDAsync(d_y, h_y, bytes, stream));

    args[0] = &a;
    args[1] = &d_x;
    args[2] = &d_y;
    args[3] = &d_out;
    args[4] = &n;
    CU_CHECK(cuLaunchKernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream, args, NULL));
    CU_CHECK(cuMemcpyDtoHAsync(h_out, d_out, bytes, stream));
    CU_CHECK(cuStreamSynchronize(stream));

    for (i = 0; i < n; i++) {
        float want = a * h_x[i] + h_y[i];
        if (fabsf(h_out[i] - want) > 1e-5f + 1e-5f * fabsf(want)) {
            if (bad < 5) printf("mismatch at %lu: %f != %f\n", (unsigned long)i, h_out[i], want);
            bad++;
        }
    }

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuMemFree(d_x));
    CU_CHECK(cuMemFree(d_y));
    CU_CHECK(cuMemFree(d_out));
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuCtxDestroy(context));
    free(h_x);
    free(h_y);
    free(h_out);
    free(ptx);

    if (bad != 0) {
        printf("RESULT: FAIL %lu of %lu values differ from the CPU\n", (unsigned long)bad, (unsigned long)n);
        return 1;
    }
    printf("saxpy on %lu floats matches the CPU\n", (unsigned long)n);
    printf("RESULT: PASS\n");
    return 0;
}
