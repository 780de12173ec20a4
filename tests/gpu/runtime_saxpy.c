/* Issue #25 on the GPU machine: SAXPY through the CUDA runtime API, built against cudagen's C
 * headers (cuda_runtime_api.h, cuda.h, nvrtc.h) and linked with -lcudagen only, so every call
 * goes through the shim (traced with CUDAGEN_TRACE=1). The runtime's stream goes to the driver's
 * cuStreamSynchronize as it is (cudaStream_t and CUstream are one C type).
 * Prints RESULT: PASS / FAIL. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call) do { int e_ = (int)(call); if (e_) { printf("RESULT: FAIL %s = %d (line %d)\n", #call, e_, __LINE__); return 1; } } while (0)

static const char *src =
    "extern \"C\" __global__ void saxpy(float a, float *x, float *y, float *out, size_t n)\n"
    "{ size_t tid = blockIdx.x * blockDim.x + threadIdx.x; if (tid < n) out[tid] = a * x[tid] + y[tid]; }\n";

int main(void) {
    int count = 0, major = 0, minor = 0;
    CK(cudaGetDeviceCount(&count));
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *opts[] = {"--fmad=false", arch};
    nvrtcProgram prog;
    CK(nvrtcCreateProgram(&prog, src, "saxpy.cu", 0, NULL, NULL));
    CK(nvrtcCompileProgram(prog, 2, opts));
    size_t ptx_size = 0;
    CK(nvrtcGetPTXSize(prog, &ptx_size));
    char *ptx = malloc(ptx_size);
    CK(nvrtcGetPTX(prog, ptx));
    CK(nvrtcDestroyProgram(&prog));

    cudaLibrary_t lib;
    cudaKernel_t kernel;
    CK(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CK(cudaLibraryGetKernel(&kernel, lib, "saxpy"));
    size_t n = 1u << 22, bytes = n * sizeof(float);
    float *hx = malloc(bytes), *hy = malloc(bytes), *hout = malloc(bytes);
    for (size_t i = 0; i < n; i++) { hx[i] = (float)(i % 1000) / 1000.0f; hy[i] = (float)(i % 77); hout[i] = NAN; }
    float *dx, *dy, *dout;
    CK(cudaMalloc((void **)&dx, bytes));
    CK(cudaMalloc((void **)&dy, bytes));
    CK(cudaMalloc((void **)&dout, bytes));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    CK(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, stream));
    CK(cudaMemcpyAsync(dy, hy, bytes, cudaMemcpyHostToDevice, stream));
    float a = 2.0f;
    void *args[] = {&a, &dx, &dy, &dout, &n};
    dim3 grid = {(unsigned)(n / 512), 1, 1}, block = {512, 1, 1};
    CK(cudaLaunchKernel((const void *)kernel, grid, block, args, 0, stream));
    CUstream same = stream; /* one C type for both APIs */
    CK(cuStreamSynchronize(same));
    CK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < n; i++) { double e = fabs(hout[i] - (a * hx[i] + hy[i])); if (!(e <= worst)) worst = e; }
    printf("saxpy: %zu floats, max |gpu - cpu| = %g\n", n, worst);
    CK(cudaStreamDestroy(stream));
    CK(cudaFree(dx)); CK(cudaFree(dy)); CK(cudaFree(dout));
    CK(cudaLibraryUnload(lib));
    printf("RESULT: %s\n", worst == 0 ? "PASS" : "FAIL");
    return worst == 0 ? 0 : 1;
}
