// Runtime-API program built with `nvcc --default-stream per-thread`: cudaMalloc, <<<>>> on the
// per-thread default stream from two threads, cudaMemcpy; prints RESULT.
#include <cstdio>
#include <thread>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + 1.0f;
}

static double run(float a) {
    const int n = 1 << 18;
    float *h = new float[n], *d = nullptr;
    for (int i = 0; i < n; i++) h[i] = float(i % 97);
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return -1;
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 255) / 256, 256>>>(d, a, n);
    if (cudaGetLastError() != cudaSuccess) return -1;
    cudaStreamSynchronize(cudaStreamPerThread);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    double s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    delete[] h;
    return s;
}

int main() {
    double r1 = 0, r2 = 0;
    std::thread t1([&] { r1 = run(2.0f); }), t2([&] { r2 = run(3.0f); });
    t1.join();
    t2.join();
    if (r1 < 0 || r2 < 0) { printf("RESULT FAIL\n"); return 1; }
    printf("RESULT r1=%.1f r2=%.1f\n", r1, r2);
    return 0;
}
