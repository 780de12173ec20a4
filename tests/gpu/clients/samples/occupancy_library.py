"""Occupancy queries on a context-independent kernel: the CUBIN loaded with cuLibraryLoadData, the
kernel taken with cuLibraryGetKernel (a CUkernel, which CUDA accepts where a CUfunction goes), the
queries made on it and on its cuKernelGetFunction CUfunction; the dynamic shared memory per block
size given through a C callback wrapped as CUoccupancyB2DSize(_ptr=<address of the pointer>);
then the kernel launched with the suggested block size through its CUkernel handle.
"""

import ctypes

import numpy as np
from cuda.bindings import driver
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

block_sum = """\
extern "C" __global__
void block_sum(const int *in, int *out, int n)
{
  extern __shared__ int partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
"""

BYTES_PER_THREAD = 4
B2D_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_int)


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    cubin = compile_cubin(block_sum, "block_sum.cu", cuDevice)
    library = checkCudaErrors(driver.cuLibraryLoadData(cubin, None, None, 0, None, None, 0))
    kernel = checkCudaErrors(driver.cuLibraryGetKernel(library, b"block_sum"))
    context = checkCudaErrors(driver.cuDevicePrimaryCtxRetain(cuDevice))
    checkCudaErrors(driver.cuCtxSetCurrent(context))
    function = checkCudaErrors(driver.cuKernelGetFunction(kernel))

    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    maxThreads = checkCudaErrors(driver.cuKernelGetAttribute(attr, kernel, cuDevice))
    maxThreadsFunc = checkCudaErrors(driver.cuFuncGetAttribute(attr, function))
    expect(maxThreads == maxThreadsFunc > 0, f"max threads: cuKernelGetAttribute {maxThreads}, cuFuncGetAttribute {maxThreadsFunc}")

    smem = 256 * BYTES_PER_THREAD
    onKernel = checkCudaErrors(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel, 256, smem))
    onFunction = checkCudaErrors(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(function, 256, smem))
    flags = driver.CUoccupancy_flags.CU_OCCUPANCY_DEFAULT
    withFlags = checkCudaErrors(driver.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(kernel, 256, smem, flags))
    expect(onKernel == onFunction == withFlags > 0,
           f"active blocks: CUkernel {onKernel}, CUfunction {onFunction}, with flags {withFlags}")

    calls = []

    def smem_for_block(blockSize):
        calls.append(blockSize)
        return blockSize * BYTES_PER_THREAD

    callback = B2D_SIGNATURE(smem_for_block)
    slot = ctypes.c_void_p(ctypes.cast(callback, ctypes.c_void_p).value)
    b2d = driver.CUoccupancyB2DSize(_ptr=ctypes.addressof(slot))
    expect(int(b2d) == slot.value, f"CUoccupancyB2DSize(_ptr=...) reads {int(b2d):#x}, the slot holds {slot.value:#x}")
    minGrid, blockSize = checkCudaErrors(driver.cuOccupancyMaxPotentialBlockSize(kernel, b2d, 0, 0))
    expect(calls, "cuOccupancyMaxPotentialBlockSize never called the blockSizeToDynamicSMemSize callback")
    expect(minGrid > 0 and 0 < blockSize <= maxThreads and blockSize % 32 == 0,
           f"suggested grid {minGrid}, block {blockSize}")
    plainGrid, plainBlock = checkCudaErrors(driver.cuOccupancyMaxPotentialBlockSize(function, None, smem, 0))
    expect(plainGrid > 0 and plainBlock > 0, f"without callback: grid {plainGrid}, block {plainBlock}")

    # launch through the CUkernel handle with the suggestion, rounded down to a power of two
    # (block_sum halves the block in its reduction)
    threads = 1 << (int(blockSize).bit_length() - 1)
    n = 1_000_000
    blocks = (n + threads - 1) // threads
    hIn = (np.arange(n) % 7).astype(np.int32)
    hOut = np.zeros(blocks, dtype=np.int32)
    dIn = checkCudaErrors(driver.cuMemAlloc(hIn.nbytes))
    dOut = checkCudaErrors(driver.cuMemAlloc(hOut.nbytes))
    checkCudaErrors(driver.cuMemcpyHtoD(dIn, hIn.ctypes.data, hIn.nbytes))
    args = ((dIn, dOut, n), (None, None, ctypes.c_int))
    checkCudaErrors(driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, threads * BYTES_PER_THREAD, 0, args, 0))
    checkCudaErrors(driver.cuCtxSynchronize())
    checkCudaErrors(driver.cuMemcpyDtoH(hOut.ctypes.data, dOut, hOut.nbytes))
    want = np.add.reduceat(hIn, np.arange(0, n, threads))
    expect(np.array_equal(hOut, want), f"block sums with block {threads} differ from NumPy's")

    checkCudaErrors(driver.cuMemFree(dIn))
    checkCudaErrors(driver.cuMemFree(dOut))
    checkCudaErrors(driver.cuLibraryUnload(library))
    checkCudaErrors(driver.cuDevicePrimaryCtxRelease(cuDevice))
    return f"{onKernel} blocks/SM at 256 threads; suggested block {blockSize} (callback called {len(calls)} times)"


if __name__ == "__main__":
    run_sample("occupancy_library", main)
