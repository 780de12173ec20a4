"""CuPy under the shim: a RawKernel SAXPY and a reduction; prints RESULT."""
import cupy as cp

saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}''', "saxpy")
n = 1 << 20
x = cp.arange(n, dtype=cp.float32) / n
y = cp.ones(n, dtype=cp.float32)
saxpy(((n + 255) // 256,), (256,), (cp.float32(2.0), x, y, cp.int32(n)))
s = float(y.sum())
m = float(cp.max(cp.sqrt(x)))
print(f"RESULT saxpy_sum={s:.3f} max_sqrt={m:.6f}")
