// A CUDA-runtime SAXPY (cudaMalloc, <<<>>>, cudaMemcpy), unmodified CUDA code for gpu.sh: built
// with `nvcc -cudart shared`, libcudart dlopens libcuda.so.1 and resolves the driver through
// cuGetProcAddress, so with the shim installed as libcuda.so.1 every driver call it makes goes
// through the shim (and shows in the trace).
// Prints "RESULT: PASS" and exits 0 when the GPU result matches the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (tid < n) out[tid] = a * x[tid] + y[tid];
}

#define CHECK(call)                                                                     \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            std::printf("RESULT: FAIL %s: %s\n", #call, cudaGetErrorString(e_));        \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main()
{
    const size_t n = 1u << 24;
    const size_t bytes = n * sizeof(float);
    const float a = 2.0f;
    float *hx = (float *)std::malloc(bytes), *hy = (float *)std::malloc(bytes), *hout = (float *)std::malloc(bytes);
    if (!hx || !hy || !hout) return 1;
    for (size_t i = 0; i < n; i++) {
        hx[i] = (float)(i % 1000) / 1000.0f;
        hy[i] = (float)((i * 7) % 1000) / 1000.0f;
    }
    float *dx, *dy, *dout;
    CHECK(cudaMalloc(&dx, bytes));
    CHECK(cudaMalloc(&dy, bytes));
    CHECK(cudaMalloc(&dout, bytes));
    CHECK(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, hy, bytes, cudaMemcpyHostToDevice));
    saxpy<<<(unsigned)((n + 511) / 512), 512>>>(a, dx, dy, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float want = a * hx[i] + hy[i];
        if (std::fabs(hout[i] - want) > 1e-5f + 1e-5f * std::fabs(want)) bad++;
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dout));
    std::free(hx);
    std::free(hy);
    std::free(hout);
    if (bad) {
        std::printf("RESULT: FAIL %zu of %zu values differ\n", bad, n);
        return 1;
    }
    std::printf("runtime saxpy on %zu floats matches the CPU\nRESULT: PASS\n", n);
    return 0;
}
