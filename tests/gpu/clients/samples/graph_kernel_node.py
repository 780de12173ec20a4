"""A CUDA graph built node by node with the driver API, as graph samples write it:
CUDA_KERNEL_NODE_PARAMS records whose kernelParams field holds the ((values), (ctypes types)) pair,
dependencies passed as Python lists, a node added with cuGraphAddNode and CUgraphNodeParams,
cuGraphInstantiate + cuGraphLaunch, a parameter update on the executable graph; then a graph made
by the runtime (cudaGraphCreate, cudaGraphInstantiate) filled and launched with driver calls, and
one captured from a stream. Each result checked against NumPy.
"""

import ctypes

import numpy as np
from cuda.bindings import driver, runtime
from cuda_helpers import checkCudaErrors, compile_cubin, expect, run_sample

kernels = """\
extern "C" __global__ void add(float *x, float v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}
extern "C" __global__ void mul(float *x, float v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= v;
}
"""

N = 1 << 16
THREADS = 256


def kernel_node_params(func, dX, value):
    params = driver.CUDA_KERNEL_NODE_PARAMS()
    params.func = func
    params.gridDimX = N // THREADS
    params.gridDimY = params.gridDimZ = 1
    params.blockDimX = THREADS
    params.blockDimY = params.blockDimZ = 1
    params.sharedMemBytes = 0
    params.kernelParams = ((dX, value, N), (None, ctypes.c_float, ctypes.c_int))
    params.extra = 0
    return params


def main():
    checkCudaErrors(driver.cuInit(0))
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    cubin = compile_cubin(kernels, "graph_kernels.cu", cuDevice)
    context = checkCudaErrors(driver.cuDevicePrimaryCtxRetain(cuDevice))
    checkCudaErrors(driver.cuCtxSetCurrent(context))
    module = checkCudaErrors(driver.cuModuleLoadData(cubin))
    fAdd = checkCudaErrors(driver.cuModuleGetFunction(module, b"add"))
    fMul = checkCudaErrors(driver.cuModuleGetFunction(module, b"mul"))

    base = np.arange(N, dtype=np.float32)
    hX = np.empty_like(base)
    nbytes = hX.nbytes
    dX = checkCudaErrors(driver.cuMemAlloc(nbytes))
    stream = checkCudaErrors(driver.cuStreamCreate(0))

    def run(graphExec, launch=driver.cuGraphLaunch):
        checkCudaErrors(driver.cuMemcpyHtoD(dX, base.ctypes.data, nbytes))
        checkCudaErrors(launch(graphExec, stream))
        checkCudaErrors(driver.cuStreamSynchronize(stream))
        checkCudaErrors(driver.cuMemcpyDtoH(hX.ctypes.data, dX, nbytes))
        return hX

    # 1. add(1) -> mul(2) -> add(5) (the last through cuGraphAddNode), dependencies as lists
    graph = checkCudaErrors(driver.cuGraphCreate(0))
    nAdd = checkCudaErrors(driver.cuGraphAddKernelNode(graph, None, 0, kernel_node_params(fAdd, dX, 1.0)))
    mulParams = kernel_node_params(fMul, dX, 2.0)
    nMul = checkCudaErrors(driver.cuGraphAddKernelNode(graph, [nAdd], 1, mulParams))
    nodeParams = driver.CUgraphNodeParams()
    nodeParams.type = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    nodeParams.kernel.func = fAdd
    nodeParams.kernel.gridDimX, nodeParams.kernel.gridDimY, nodeParams.kernel.gridDimZ = N // THREADS, 1, 1
    nodeParams.kernel.blockDimX, nodeParams.kernel.blockDimY, nodeParams.kernel.blockDimZ = THREADS, 1, 1
    nodeParams.kernel.kernelParams = ((dX, 5.0, N), (None, ctypes.c_float, ctypes.c_int))
    checkCudaErrors(driver.cuGraphAddNode(graph, [nMul], None, 1, nodeParams))
    nodes, count = checkCudaErrors(driver.cuGraphGetNodes(graph))
    expect(count == 3, f"cuGraphGetNodes counts {count} nodes, expected 3")
    graphExec = checkCudaErrors(driver.cuGraphInstantiate(graph, 0))
    expect(np.array_equal(run(graphExec), (base + 1) * 2 + 5), "graph add(1) -> mul(2) -> add(5) gave other values")

    # 2. the mul node's value changed on the executable graph
    mulParams.kernelParams = ((dX, 3.0, N), (None, ctypes.c_float, ctypes.c_int))
    checkCudaErrors(driver.cuGraphExecKernelNodeSetParams(graphExec, nMul, mulParams))
    expect(np.array_equal(run(graphExec), (base + 1) * 3 + 5), "after cuGraphExecKernelNodeSetParams: other values")

    # 3. a runtime graph (cudaGraph_t, cudaGraphExec_t) filled and launched by the driver API
    rtGraph = checkCudaErrors(runtime.cudaGraphCreate(0))
    first = checkCudaErrors(driver.cuGraphAddKernelNode(rtGraph, [], 0, kernel_node_params(fMul, dX, 4.0)))
    checkCudaErrors(driver.cuGraphAddKernelNode(rtGraph, (first,), 1, kernel_node_params(fAdd, dX, -1.0)))
    rtExec = checkCudaErrors(runtime.cudaGraphInstantiate(rtGraph, 0))
    expect(np.array_equal(run(rtExec), base * 4 - 1), "runtime-made graph with driver-added nodes: other values")

    # 4. captured from a stream
    checkCudaErrors(driver.cuStreamBeginCapture(stream, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    for func, value in ((fAdd, 2.0), (fMul, 0.5)):
        checkCudaErrors(driver.cuLaunchKernel(func, N // THREADS, 1, 1, THREADS, 1, 1, 0, stream,
                                              ((dX, value, N), (None, ctypes.c_float, ctypes.c_int)), 0))
    captured = checkCudaErrors(driver.cuStreamEndCapture(stream))
    capturedExec = checkCudaErrors(driver.cuGraphInstantiate(captured, 0))
    expect(np.array_equal(run(capturedExec), (base + 2) * 0.5), "captured graph: other values")

    for exe in (graphExec, capturedExec):
        checkCudaErrors(driver.cuGraphExecDestroy(exe))
    checkCudaErrors(runtime.cudaGraphExecDestroy(rtExec))
    for g in (graph, captured):
        checkCudaErrors(driver.cuGraphDestroy(g))
    checkCudaErrors(runtime.cudaGraphDestroy(rtGraph))
    checkCudaErrors(driver.cuStreamDestroy(stream))
    checkCudaErrors(driver.cuMemFree(dX))
    checkCudaErrors(driver.cuModuleUnload(module))
    checkCudaErrors(driver.cuDevicePrimaryCtxRelease(cuDevice))
    return "built, updated, runtime-made and captured graphs"


if __name__ == "__main__":
    run_sample("graph_kernel_node", main)
