"""Events with the driver API: timing a kernel between two events (cuEventElapsedTime), a longer
run timing longer, cuEventQuery before and after cuEventSynchronize, an event without timing
refusing cuEventElapsedTime, flags combined with `|`, and two streams ordered by cuStreamWaitEvent
(the consumer reads what the producer, spinning first, wrote).
"""

import ctypes

import numpy as np
from cuda.bindings import driver
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

kernels = """\
extern "C" __global__
void produce(float *x, int n, long long spin)
{
  long long t0 = clock64();
  while (clock64() - t0 < spin) { }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (float)i;
}
extern "C" __global__
void consume(const float *x, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
"""

N = 1 << 16
THREADS = 256


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    cubin = compile_cubin(kernels, "events.cu", cuDevice)
    context = checkCudaErrors(driver.cuCtxCreate(None, 0, cuDevice))
    module = checkCudaErrors(driver.cuModuleLoadData(cubin))
    produce = checkCudaErrors(driver.cuModuleGetFunction(module, b"produce"))
    consume = checkCudaErrors(driver.cuModuleGetFunction(module, b"consume"))

    dX = checkCudaErrors(driver.cuMemAlloc(N * 4))
    dY = checkCudaErrors(driver.cuMemAlloc(N * 4))
    producer = checkCudaErrors(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    consumer = checkCudaErrors(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    start = checkCudaErrors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    stop = checkCudaErrors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DEFAULT))
    marker = checkCudaErrors(driver.cuEventCreate(
        driver.CUevent_flags.CU_EVENT_DISABLE_TIMING | driver.CUevent_flags.CU_EVENT_BLOCKING_SYNC))

    def timed(spin):
        args = ((dX, N, spin), (None, ctypes.c_int, ctypes.c_longlong))
        checkCudaErrors(driver.cuEventRecord(start, producer))
        checkCudaErrors(driver.cuLaunchKernel(produce, N // THREADS, 1, 1, THREADS, 1, 1, 0, producer, args, 0))
        checkCudaErrors(driver.cuEventRecord(stop, producer))
        early = driver.cuEventQuery(stop)[0]
        checkCudaErrors(driver.cuEventSynchronize(stop))
        expect(driver.cuEventQuery(stop)[0] == driver.CUresult.CUDA_SUCCESS, "cuEventQuery after cuEventSynchronize")
        expect(early in (driver.CUresult.CUDA_SUCCESS, driver.CUresult.CUDA_ERROR_NOT_READY),
               f"cuEventQuery right after recording: {early!r}")
        return checkCudaErrors(driver.cuEventElapsedTime(start, stop))

    clock_khz = checkCudaErrors(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE, cuDevice)) or 1_500_000
    short = timed(0)
    long = timed(2 * clock_khz)  # about 2 ms of spinning
    expect(0 < short < long and long > 0.5, f"elapsed: {short:.3f} ms without spinning, {long:.3f} ms with")

    err = driver.cuEventElapsedTime(marker, stop)[0]
    expect(err != driver.CUresult.CUDA_SUCCESS, "cuEventElapsedTime on an event made with CU_EVENT_DISABLE_TIMING succeeded")

    # producer -> marker -> consumer
    hY = np.zeros(N, dtype=np.float32)
    checkCudaErrors(driver.cuMemsetD32(dX, 0xBF800000, N))  # -1.0f
    args = ((dX, N, clock_khz), (None, ctypes.c_int, ctypes.c_longlong))
    checkCudaErrors(driver.cuLaunchKernel(produce, N // THREADS, 1, 1, THREADS, 1, 1, 0, producer, args, 0))
    checkCudaErrors(driver.cuEventRecord(marker, producer))
    checkCudaErrors(driver.cuStreamWaitEvent(consumer, marker, 0))
    args = ((dX, dY, N), (None, None, ctypes.c_int))
    checkCudaErrors(driver.cuLaunchKernel(consume, N // THREADS, 1, 1, THREADS, 1, 1, 0, consumer, args, 0))
    checkCudaErrors(driver.cuStreamSynchronize(consumer))
    checkCudaErrors(driver.cuMemcpyDtoH(hY.ctypes.data, dY, N * 4))
    expect(np.array_equal(hY, np.arange(N, dtype=np.float32) + 1), "the consumer ran before the producer's values were there")

    for e in (start, stop, marker):
        checkCudaErrors(driver.cuEventDestroy(e))
    for s in (producer, consumer):
        checkCudaErrors(driver.cuStreamDestroy(s))
    checkCudaErrors(driver.cuMemFree(dX))
    checkCudaErrors(driver.cuMemFree(dY))
    checkCudaErrors(driver.cuModuleUnload(module))
    checkCudaErrors(driver.cuCtxDestroy(context))
    return f"{short:.3f} ms without spinning, {long:.3f} ms with"


if __name__ == "__main__":
    run_sample("events_timing", main)
