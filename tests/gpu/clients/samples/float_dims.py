"""Launch sizes computed the way Python programs often compute them: the grid with true division
(a float), NumPy scalars for the block size, the element count, the shared-memory size and the byte
counts, np.ceil's float64 for a second grid, a NumPy integer for the device ordinal. cuda.bindings
converts each to the C integer the call takes (truncating a float, as C does).
"""

import ctypes

import numpy as np
from cuda.bindings import driver
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

fill_index = """\
extern "C" __global__
void fill_index(unsigned int *out, unsigned int n, unsigned int scale)
{
  extern __shared__ unsigned int tile[];
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i * scale;
  __syncthreads();
  if (i < n) {
    out[i] = tile[threadIdx.x] + gridDim.x;
  }
}
"""


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(np.int64(0)))
    warp = checkCudaErrors(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE, cuDevice))
    cubin = compile_cubin(fill_index, "fill_index.cu", cuDevice)
    context = checkCudaErrors(driver.cuDevicePrimaryCtxRetain(cuDevice))
    checkCudaErrors(driver.cuCtxSetCurrent(context))
    module = checkCudaErrors(driver.cuModuleLoadData(cubin))
    kernel = checkCudaErrors(driver.cuModuleGetFunction(module, b"fill_index"))

    n = np.uint32(1_000_003)                       # not a multiple of the block size
    threads = np.int32(8 * warp)                   # 256 on every current GPU
    blocks = (int(n) + int(threads) - 1) / int(threads)   # float: 3907.26...
    shared = np.uint64(threads * np.dtype(np.uint32).itemsize)
    nbytes = n.astype(np.uint64) * np.uint64(4)     # numpy.uint64
    expect(isinstance(blocks, float) and blocks != int(blocks), f"the grid should be a non-integral float, is {blocks!r}")

    dOut = checkCudaErrors(driver.cuMemAlloc(nbytes))
    stream = checkCudaErrors(driver.cuStreamCreate(np.uint32(0)))
    hOut = np.zeros(int(n), dtype=np.uint32)
    for scale, grid in ((np.uint32(3), blocks), (np.uint32(5), np.ceil(int(n) / int(threads)))):
        checkCudaErrors(driver.cuMemsetD32Async(dOut, np.uint32(0xFFFFFFFF), n, stream))
        args = ((dOut, n, scale), (None, ctypes.c_uint, ctypes.c_uint))
        checkCudaErrors(driver.cuLaunchKernel(kernel, grid, 1.0, np.float64(1), threads, np.int64(1), 1,
                                              shared, stream, args, 0))
        checkCudaErrors(driver.cuMemcpyDtoHAsync(hOut.ctypes.data, dOut, nbytes, stream))
        checkCudaErrors(driver.cuStreamSynchronize(stream))
        want_grid = int(grid)                      # C truncation: ceil(n / threads)
        want = np.arange(int(n), dtype=np.uint64) * int(scale) + want_grid
        expect(want_grid * int(threads) >= int(n), f"grid {grid!r} truncates to {want_grid}: too small")
        expect(np.array_equal(hOut, want.astype(np.uint32)),
               f"grid {grid!r} ({type(grid).__name__}): out[i] != i * {int(scale)} + {want_grid}")

    checkCudaErrors(driver.cuStreamDestroy(stream))
    checkCudaErrors(driver.cuMemFree(dOut))
    checkCudaErrors(driver.cuModuleUnload(module))
    checkCudaErrors(driver.cuDevicePrimaryCtxRelease(cuDevice))
    return f"grid {blocks!r} and np.ceil's {np.ceil(int(n) / int(threads))!r}, block {threads!r}"


if __name__ == "__main__":
    run_sample("float_dims", main)
