"""cuda.core's public API: compile with Program/ProgramOptions, load with ObjectCode, launch with
LaunchConfig on a Stream, kernel attributes and occupancy; and the program's own
cuda.bindings.driver calls on the handles cuda.core gives out (stream.handle, kernel.handle,
buffer.handle), which is where cudagen sits in when swapped. Results checked against NumPy.
"""

import ctypes

import numpy as np
from checks import Checks, driver_ok, host_array
from cuda.bindings import driver
from cuda.core import (
    Device,
    Kernel,
    LaunchConfig,
    LegacyPinnedMemoryResource,
    ObjectCode,
    Program,
    ProgramOptions,
    launch,
)

SOURCE = r"""
template <typename T>
__global__ void saxpy(T a, const T *x, const T *y, T *out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
"""
N = 1 << 20
BLOCK = 256


def main():
    chk = Checks("cuda_core_launch")
    print(f"cuda_core_launch: cuda.bindings.driver is {driver.__name__}")

    def device():
        dev = Device(0)
        dev.set_current()
        print(f"  device {dev.name}, sm_{dev.arch}")
        return dev

    dev = chk("Device.set_current", device)
    stream = chk("Device.create_stream", lambda: dev.create_stream(), dev)

    def compile_cubin():
        opts = ProgramOptions(std="c++17", arch=f"sm_{dev.arch}")
        prog = Program(SOURCE, code_type="c++", options=opts)
        return prog.compile("cubin", name_expressions=("saxpy<float>", "saxpy<double>"))

    mod = chk("Program.compile(cubin)", compile_cubin, dev)
    k32 = chk("ObjectCode.get_kernel(saxpy<float>)", lambda: mod.get_kernel("saxpy<float>"), mod)

    def reload_cubin():
        code = ObjectCode.from_cubin(mod.code, symbol_mapping=mod.symbol_mapping)
        return code.get_kernel("saxpy<double>")

    k64 = chk("ObjectCode.from_cubin", reload_cubin, mod)

    rng = np.random.default_rng(11)
    pinned = LegacyPinnedMemoryResource()

    def buffers(dtype):
        nbytes = N * np.dtype(dtype).itemsize
        hx, hy, hout = (pinned.allocate(nbytes) for _ in range(3))
        host_array(hx, dtype, N)[:] = rng.random(N).astype(dtype)
        host_array(hy, dtype, N)[:] = rng.random(N).astype(dtype)
        dx, dy, dout = (dev.allocate(nbytes, stream=stream) for _ in range(3))
        dx.copy_from(hx, stream=stream)
        dy.copy_from(hy, stream=stream)
        return hx, hy, hout, dx, dy, dout

    def run_saxpy(kernel, dtype, a):
        hx, hy, hout, dx, dy, dout = buffers(dtype)
        config = LaunchConfig(grid=(N + BLOCK - 1) // BLOCK, block=BLOCK)
        launch(stream, config, kernel, dtype(a), dx, dy, dout, np.uint64(N))
        dout.copy_to(hout, stream=stream)
        stream.sync()
        x, y, out = (host_array(b, dtype, N) for b in (hx, hy, hout))
        return bool(np.allclose(out, dtype(a) * x + y))

    chk("launch saxpy<float>", lambda: run_saxpy(k32, np.float32, 2.5), k32, stream)
    chk("launch saxpy<double> from ObjectCode.from_cubin", lambda: run_saxpy(k64, np.float64, -1.25), k64, stream)

    def stream_query():
        stream.sync()
        return driver.cuStreamQuery(stream.handle)[0] == driver.CUresult.CUDA_SUCCESS

    chk("driver.cuStreamQuery(stream.handle)", stream_query, stream)

    def own_driver_launch():
        hx, hy, hout, dx, dy, dout = buffers(np.float32)
        stream.sync()
        h = host_array(hx, np.float32, N)
        h[:] = np.arange(N, dtype=np.float32)
        driver_ok(driver.cuMemcpyHtoDAsync(dx.handle, h.ctypes.data, N * 4, stream.handle))
        values = (np.float32(3.0), int(dx.handle), int(dy.handle), int(dout.handle), N)
        types = (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
        driver_ok(driver.cuLaunchKernel(k32.handle, (N + BLOCK - 1) // BLOCK, 1, 1, BLOCK, 1, 1, 0,
                                        stream.handle, (values, types), 0))
        driver_ok(driver.cuStreamSynchronize(stream.handle))
        out = np.empty(N, dtype=np.float32)
        driver_ok(driver.cuMemcpyDtoH(out.ctypes.data, dout.handle, N * 4))
        return bool(np.allclose(out, 3.0 * h + host_array(hy, np.float32, N)))

    chk("driver.cuLaunchKernel(kernel.handle, ..., stream.handle)", own_driver_launch, k32, stream)

    def attributes():
        func = driver_ok(driver.cuKernelGetFunction(k32.handle))
        regs = driver_ok(driver.cuFuncGetAttribute(
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, func))
        return regs == k32.attributes.num_regs and regs > 0

    chk("driver.cuFuncGetAttribute(cuKernelGetFunction(kernel.handle)) == attributes.num_regs", attributes, k32)

    occ = chk("Kernel.occupancy.max_active_blocks_per_multiprocessor",
              lambda: k32.occupancy.max_active_blocks_per_multiprocessor(BLOCK, 0) or False, k32)
    chk("driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel.handle)",
        lambda: driver_ok(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(k32.handle, BLOCK, 0)) == occ, occ)

    def potential():
        r = k32.occupancy.max_potential_block_size(0, 0)
        return r.max_block_size > 0 and r.max_block_size % 32 == 0 and r.min_grid_size > 0

    chk("Kernel.occupancy.max_potential_block_size", potential, k32)

    def foreign_kernel():
        # a library loaded by the program's own driver call, its kernel handed to cuda.core
        lib = driver_ok(driver.cuLibraryLoadData(mod.code, None, None, 0, None, None, 0))
        lowered = mod.symbol_mapping["saxpy<float>"]
        handle = driver_ok(driver.cuLibraryGetKernel(lib, lowered.encode() if isinstance(lowered, str) else lowered))
        kernel = Kernel.from_handle(int(handle))
        ok = run_saxpy(kernel, np.float32, 0.5)
        driver_ok(driver.cuLibraryUnload(lib))
        return ok

    chk("Kernel.from_handle(driver.cuLibraryGetKernel(...))", foreign_kernel, mod, stream)
    chk("Device.sync", lambda: dev.sync(), dev)
    chk.finish()


if __name__ == "__main__":
    main()
