"""SAXPY through NVRTC and the driver API, as cuda.bindings' overview writes it: a context made
with cuCtxCreate, the module loaded from a NumPy char array's address, kernel arguments as a NumPy
array of argument addresses; then launched a second time with the ctypes form of the arguments,
where the device pointer objects go with type None (passed through their getPtr()).
"""

import ctypes

import numpy as np
from cuda.bindings import driver
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

saxpy = """\
extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) {
    out[tid] = a * x[tid] + y[tid];
  }
}
"""


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    cubin = compile_cubin(saxpy, "saxpy.cu", cuDevice)
    context = checkCudaErrors(driver.cuCtxCreate(None, 0, cuDevice))

    image = np.char.array(cubin)
    module = checkCudaErrors(driver.cuModuleLoadData(image.ctypes.data))
    kernel = checkCudaErrors(driver.cuModuleGetFunction(module, b"saxpy"))

    NUM_THREADS = 512
    NUM_BLOCKS = 32768
    a = np.array([2.0], dtype=np.float32)
    n = np.array(NUM_THREADS * NUM_BLOCKS, dtype=np.uint32)
    bufferSize = n * a.itemsize
    rng = np.random.default_rng(7)
    hX = rng.random(n, dtype=np.float32)
    hY = rng.random(n, dtype=np.float32)
    hOut = np.zeros(n, dtype=np.float32)

    dXclass = checkCudaErrors(driver.cuMemAlloc(bufferSize))
    dYclass = checkCudaErrors(driver.cuMemAlloc(bufferSize))
    dOutclass = checkCudaErrors(driver.cuMemAlloc(bufferSize))
    stream = checkCudaErrors(driver.cuStreamCreate(0))
    checkCudaErrors(driver.cuMemcpyHtoDAsync(dXclass, hX.ctypes.data, bufferSize, stream))
    checkCudaErrors(driver.cuMemcpyHtoDAsync(dYclass, hY.ctypes.data, bufferSize, stream))

    # 1. NumPy: an array of the arguments' addresses
    dX = np.array([int(dXclass)], dtype=np.uint64)
    dY = np.array([int(dYclass)], dtype=np.uint64)
    dOut = np.array([int(dOutclass)], dtype=np.uint64)
    args = [a, dX, dY, dOut, n]
    args = np.array([arg.ctypes.data for arg in args], dtype=np.uint64)
    checkCudaErrors(driver.cuLaunchKernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream, args.ctypes.data, 0))
    checkCudaErrors(driver.cuMemcpyDtoHAsync(hOut.ctypes.data, dOutclass, bufferSize, stream))
    checkCudaErrors(driver.cuStreamSynchronize(stream))
    hZ = a * hX + hY
    expect(np.allclose(hOut, hZ), "NumPy-argument launch: hOut differs from a * hX + hY")

    # 2. ctypes: (values, types); None for the CUDA objects (their getPtr() is used)
    hOut[:] = 0
    checkCudaErrors(driver.cuMemsetD32Async(dOutclass, 0, int(n), stream))
    kernelValues = (3.0, dXclass, dYclass, dOutclass, int(n))
    kernelTypes = (ctypes.c_float, None, None, None, ctypes.c_size_t)
    checkCudaErrors(driver.cuLaunchKernel(
        kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream,
        kernelParams=(kernelValues, kernelTypes), extra=0,
    ))
    checkCudaErrors(driver.cuMemcpyDtoHAsync(hOut.ctypes.data, dOutclass, bufferSize, stream))
    checkCudaErrors(driver.cuStreamSynchronize(stream))
    expect(np.allclose(hOut, np.float32(3.0) * hX + hY), "ctypes-argument launch: hOut differs from 3 * hX + hY")

    checkCudaErrors(driver.cuStreamDestroy(stream))
    checkCudaErrors(driver.cuMemFree(dXclass))
    checkCudaErrors(driver.cuMemFree(dYclass))
    checkCudaErrors(driver.cuMemFree(dOutclass))
    checkCudaErrors(driver.cuModuleUnload(module))
    checkCudaErrors(driver.cuCtxDestroy(context))
    return f"{int(n)} elements, two launches"


if __name__ == "__main__":
    run_sample("saxpy_nvrtc", main)
