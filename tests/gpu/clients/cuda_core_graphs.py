"""CUDA graphs through cuda.core's public API: a GraphBuilder capturing launches from a stream, a
GraphDefinition built node by node; and the program's own driver calls on cuda.core's graph
handles: cuGraphLaunch(graph.handle, stream.handle), cuGraphGetNodes / cuGraphNodeGetType on the
definition, a kernel node added with cuGraphAddKernelNode (kernelParams as the ctypes pair) after
cuda.core's nodes. Results checked against NumPy.
"""

import ctypes

import numpy as np
from checks import Checks, driver_ok, host_array
from cuda.bindings import driver
from cuda.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch
from cuda.core.graph import GraphDefinition

SOURCE = r"""
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
BLOCK = 256
CONFIG = LaunchConfig(grid=N // BLOCK, block=BLOCK)


def main():
    chk = Checks("cuda_core_graphs")
    print(f"cuda_core_graphs: cuda.bindings.driver is {driver.__name__}")

    def device():
        dev = Device(0)
        dev.set_current()
        return dev

    dev = chk("Device.set_current", device)
    stream = chk("Device.create_stream", lambda: dev.create_stream(), dev)

    def build():
        mod = Program(SOURCE, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin")
        return mod.get_kernel("add"), mod.get_kernel("mul")

    kernels = chk("Program.compile + get_kernel", build, dev)
    add, mul = kernels if kernels else (None, None)
    host = chk("LegacyPinnedMemoryResource.allocate", lambda: LegacyPinnedMemoryResource().allocate(N * 4))
    hx = host_array(host, np.float32, N) if host else None
    x = chk("Device.allocate", lambda: dev.allocate(N * 4, stream=stream), stream)
    base = np.arange(N, dtype=np.float32)

    def upload():
        """Every check starts from x = 0, 1, 2, ... (so one failure does not spoil the next)."""
        hx[:] = base
        x.copy_from(host, stream=stream)

    def current():
        x.copy_to(host, stream=stream)
        stream.sync()
        return hx.copy()

    def builder():
        upload()
        gb = stream.create_graph_builder().begin_building()
        launch(gb, CONFIG, add, x, np.float32(1.0), np.int32(N))
        launch(gb, CONFIG, mul, x, np.float32(2.0), np.int32(N))
        graph = gb.end_building().complete()
        graph.upload(stream)
        graph.launch(stream)
        graph.launch(stream)
        return graph if np.array_equal(current(), ((base + 1) * 2 + 1) * 2) else False

    graph = chk("GraphBuilder capture, complete, launch x2", builder, add, x, host)

    def driver_launch():
        upload()
        driver_ok(driver.cuGraphLaunch(graph.handle, stream.handle))
        driver_ok(driver.cuStreamSynchronize(stream.handle))
        return bool(np.array_equal(current(), (base + 1) * 2))

    chk("driver.cuGraphLaunch(graph.handle, stream.handle)", driver_launch, graph)

    def definition():
        upload()
        gdef = GraphDefinition()
        n1 = gdef.launch(CONFIG, add, x, np.float32(3.0), np.int32(N))
        n2 = n1.launch(CONFIG, mul, x, np.float32(0.5), np.int32(N))
        g = gdef.instantiate()
        g.launch(stream)
        return (gdef, n1, n2) if np.array_equal(current(), (base + 3) * 0.5) else False

    built = chk("GraphDefinition.launch -> node.launch -> instantiate", definition, add, x, host)

    def nodes():
        gdef, n1, n2 = built
        listed, count = driver_ok(driver.cuGraphGetNodes(gdef.handle))
        kinds = [driver_ok(driver.cuGraphNodeGetType(n.handle)) for n in (n1, n2)]
        kernel = driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
        return count >= 2 and all(k == kernel for k in kinds)

    chk("driver.cuGraphGetNodes/cuGraphNodeGetType(definition and node handles)", nodes, built)

    def own_node():
        gdef, _, n2 = built
        params = driver.CUDA_KERNEL_NODE_PARAMS()
        params.func = driver_ok(driver.cuKernelGetFunction(add.handle))
        params.gridDimX, params.gridDimY, params.gridDimZ = N // BLOCK, 1, 1
        params.blockDimX, params.blockDimY, params.blockDimZ = BLOCK, 1, 1
        params.sharedMemBytes = 0
        params.kernelParams = ((int(x.handle), 10.0, N), (ctypes.c_void_p, ctypes.c_float, ctypes.c_int))
        driver_ok(driver.cuGraphAddKernelNode(gdef.handle, [n2.handle], 1, params))
        upload()
        g = gdef.instantiate()
        g.launch(stream)
        return bool(np.array_equal(current(), (base + 3) * 0.5 + 10))

    chk("driver.cuGraphAddKernelNode(definition.handle, [node.handle], kernelParams pair)", own_node, built)
    chk.finish()


if __name__ == "__main__":
    main()
