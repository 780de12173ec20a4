"""The runtime and the driver API in one program, as users mix them: the device, stream, events and
memory come from cuda.bindings.runtime (cudaSetDevice, cudaStreamCreate, cudaEventCreate,
cudaMalloc); the kernel is loaded and launched with the driver API, which is handed the runtime's
handles (cudaStream_t for hStream, cudaEvent_t for hEvent: the same C types); the copies back go
through the runtime again.
"""

import ctypes

import numpy as np
from cuda.bindings import driver, runtime
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

scale_add = """\
extern "C" __global__
void scale_add(const float *x, float *y, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}
"""


def main():
    checkCudaErrors(runtime.cudaSetDevice(0))
    checkCudaErrors(runtime.cudaFree(0))  # makes the primary context current for the driver calls
    cuDevice = checkCudaErrors(driver.cuCtxGetDevice())
    cubin = compile_cubin(scale_add, "scale_add.cu", cuDevice)
    module = checkCudaErrors(driver.cuModuleLoadData(cubin))
    kernel = checkCudaErrors(driver.cuModuleGetFunction(module, b"scale_add"))

    n = 1 << 20
    nbytes = n * np.dtype(np.float32).itemsize
    hX = np.arange(n, dtype=np.float32)
    hY = np.ones(n, dtype=np.float32)
    hOut = np.zeros(n, dtype=np.float32)

    stream = checkCudaErrors(runtime.cudaStreamCreate())
    start = checkCudaErrors(runtime.cudaEventCreate())
    stop = checkCudaErrors(runtime.cudaEventCreate())
    dX = checkCudaErrors(runtime.cudaMalloc(nbytes))
    dY = checkCudaErrors(runtime.cudaMalloc(nbytes))

    kind = runtime.cudaMemcpyKind
    checkCudaErrors(runtime.cudaMemcpyAsync(dX, hX.ctypes.data, nbytes, kind.cudaMemcpyHostToDevice, stream))
    # driver calls on runtime handles and runtime pointers
    checkCudaErrors(driver.cuMemcpyHtoDAsync(dY, hY.ctypes.data, nbytes, stream))
    checkCudaErrors(driver.cuEventRecord(start, stream))
    threads = 256
    blocks = (n + threads - 1) // threads
    kernelArgs = ((dX, dY, 0.5, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_int))
    for _ in range(4):
        checkCudaErrors(driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, kernelArgs, 0))
    checkCudaErrors(driver.cuEventRecord(stop, stream))
    checkCudaErrors(driver.cuStreamWaitEvent(stream, stop, 0))
    checkCudaErrors(driver.cuEventSynchronize(stop))
    status = driver.cuStreamQuery(stream)[0]
    expect(status == driver.CUresult.CUDA_SUCCESS, f"cuStreamQuery(cudaStream_t) after the stop event: {status}")

    ms_driver = checkCudaErrors(driver.cuEventElapsedTime(start, stop))
    ms_runtime = checkCudaErrors(runtime.cudaEventElapsedTime(start, stop))
    expect(ms_driver > 0 and abs(ms_driver - ms_runtime) < 1e-3,
           f"elapsed time: driver {ms_driver} ms, runtime {ms_runtime} ms")

    checkCudaErrors(runtime.cudaMemcpy(hOut.ctypes.data, dY, nbytes, kind.cudaMemcpyDeviceToHost))
    expect(np.allclose(hOut, 4 * 0.5 * hX + 1.0), "y after four launches differs from 2 * x + 1")

    # a driver stream handed to the runtime, the other way round
    dstream = checkCudaErrors(driver.cuStreamCreate(0))
    checkCudaErrors(runtime.cudaMemsetAsync(dY, 0, nbytes, dstream))
    checkCudaErrors(runtime.cudaStreamSynchronize(dstream))
    checkCudaErrors(driver.cuMemcpyDtoH(hOut.ctypes.data, dY, nbytes))
    expect(not hOut.any(), "cudaMemsetAsync on a driver CUstream left non-zero values")

    checkCudaErrors(driver.cuStreamDestroy(dstream))
    checkCudaErrors(runtime.cudaFree(dX))
    checkCudaErrors(runtime.cudaFree(dY))
    checkCudaErrors(runtime.cudaEventDestroy(start))
    checkCudaErrors(runtime.cudaEventDestroy(stop))
    checkCudaErrors(runtime.cudaStreamDestroy(stream))
    checkCudaErrors(driver.cuModuleUnload(module))
    return f"4 launches on a cudaStream_t, {ms_driver:.3f} ms between cudaEvent_t records"


if __name__ == "__main__":
    run_sample("runtime_mix", main)
