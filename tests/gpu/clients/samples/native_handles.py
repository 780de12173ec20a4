"""Driver handles in the places libraries put them: cuda.bindings.utils.get_cuda_native_handle (the
helper cuda.bindings 13 recommends over int(); numba-cuda calls it on every context and stream)
on a context, stream, event, module, function, library, kernel, graph and executable graph, agreeing
with int() and with the pointer at getPtr(); and the driver's handles handed to the runtime's
functions (cudaStreamSynchronize, cudaEventRecord, cudaStreamWaitEvent, cudaGraphLaunch), checked
by a kernel's results.
"""

import ctypes

import numpy as np
from cuda.bindings import driver, runtime
from cuda.bindings.utils import get_cuda_native_handle
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

inc = """\
extern "C" __global__
void inc(int *x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
"""

N = 4096


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    cubin = compile_cubin(inc, "inc.cu", cuDevice)
    context = checkCudaErrors(driver.cuCtxCreate(None, 0, cuDevice))
    current = checkCudaErrors(driver.cuCtxGetCurrent())
    expect(get_cuda_native_handle(current) == get_cuda_native_handle(context) == int(context) != 0,
           "get_cuda_native_handle: the current context differs from the created one")

    module = checkCudaErrors(driver.cuModuleLoadData(cubin))
    function = checkCudaErrors(driver.cuModuleGetFunction(module, b"inc"))
    library = checkCudaErrors(driver.cuLibraryLoadData(cubin, None, None, 0, None, None, 0))
    kernel = checkCudaErrors(driver.cuLibraryGetKernel(library, b"inc"))
    stream = checkCudaErrors(driver.cuStreamCreate(0))
    event = checkCudaErrors(driver.cuEventCreate(0))
    dX = checkCudaErrors(driver.cuMemAlloc(N * 4))
    checkCudaErrors(driver.cuMemsetD32(dX, 0, N))

    # a graph of one launch, captured, launched by the runtime later
    args = ((dX, N), (None, ctypes.c_int))
    checkCudaErrors(driver.cuStreamBeginCapture(stream, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    checkCudaErrors(driver.cuLaunchKernel(function, N // 256, 1, 1, 256, 1, 1, 0, stream, args, 0))
    graph = checkCudaErrors(driver.cuStreamEndCapture(stream))
    graphExec = checkCudaErrors(driver.cuGraphInstantiate(graph, 0))

    handles = {"CUcontext": context, "CUmodule": module, "CUfunction": function, "CUlibrary": library,
               "CUkernel": kernel, "CUstream": stream, "CUevent": event, "CUgraph": graph, "CUgraphExec": graphExec}
    for name, h in handles.items():
        native = get_cuda_native_handle(h)
        stored = ctypes.c_void_p.from_address(h.getPtr()).value or 0
        expect(native == int(h) == stored != 0,
               f"{name}: get_cuda_native_handle {native:#x}, int() {int(h):#x}, *getPtr() {stored:#x}")

    # driver handles given to the runtime
    checkCudaErrors(driver.cuLaunchKernel(kernel, N // 256, 1, 1, 256, 1, 1, 0, stream, args, 0))
    checkCudaErrors(runtime.cudaEventRecord(event, stream))
    other = checkCudaErrors(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
    checkCudaErrors(runtime.cudaStreamWaitEvent(other, event, 0))
    checkCudaErrors(runtime.cudaGraphLaunch(graphExec, other))
    checkCudaErrors(runtime.cudaStreamSynchronize(other))
    hX = np.zeros(N, dtype=np.int32)
    checkCudaErrors(driver.cuMemcpyDtoH(hX.ctypes.data, dX, N * 4))
    expect((hX == 2).all(), f"after a launch and a graph launch through the runtime, x holds {np.unique(hX)} (expected 2)")

    checkCudaErrors(driver.cuGraphExecDestroy(graphExec))
    checkCudaErrors(driver.cuGraphDestroy(graph))
    for s in (stream, other):
        checkCudaErrors(driver.cuStreamDestroy(s))
    checkCudaErrors(driver.cuEventDestroy(event))
    checkCudaErrors(driver.cuMemFree(dX))
    checkCudaErrors(driver.cuLibraryUnload(library))
    checkCudaErrors(driver.cuModuleUnload(module))
    checkCudaErrors(driver.cuCtxDestroy(context))
    return f"{len(handles)} handle kinds agree; runtime calls on driver handles"


if __name__ == "__main__":
    run_sample("native_handles", main)
