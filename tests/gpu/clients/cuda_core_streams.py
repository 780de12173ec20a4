"""cuda.core's Stream and Event through its public API (options, priorities, record/wait/sync,
elapsed time), streams made by the program's own driver calls handed to cuda.core
(Stream.from_handle, the __cuda_stream__ protocol), and the program's own driver calls on
cuda.core's handles (cuStreamGetFlags/Priority/Ctx, cuEventQuery, cuEventElapsedTime,
cuStreamWaitEvent). A producer kernel that spins on clock64() makes a missing dependency visible.
"""

import numpy as np
from checks import Checks, driver_ok, host_array
from cuda.bindings import driver
from cuda.core import (
    Device,
    EventOptions,
    LaunchConfig,
    LegacyPinnedMemoryResource,
    Program,
    ProgramOptions,
    Stream,
    StreamOptions,
    launch,
)

SOURCE = r"""
extern "C" __global__ void produce(float *x, int n, long long spin)
{
    long long t0 = clock64();
    while (clock64() - t0 < spin) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (float)i;
}
extern "C" __global__ void consume(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"""
N = 1 << 16
BLOCK = 256
CONFIG = LaunchConfig(grid=N // BLOCK, block=BLOCK)


def spin_cycles(dev):
    """About 1 ms of clock64() cycles on ``dev`` (its clock rate is in kHz)."""
    try:
        return int(dev.properties.clock_rate) or 1_500_000
    except Exception:  # noqa: BLE001  (no device, or an attribute CUDA 13 no longer reports)
        return 1_500_000


def main():
    chk = Checks("cuda_core_streams")
    print(f"cuda_core_streams: cuda.bindings.driver is {driver.__name__}")

    def device():
        dev = Device(0)
        dev.set_current()
        return dev

    dev = chk("Device.set_current", device)

    def build():
        mod = Program(SOURCE, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}")).compile("cubin")
        return mod.get_kernel("produce"), mod.get_kernel("consume")

    kernels = chk("Program.compile + get_kernel", build, dev)
    produce, consume = kernels if kernels else (None, None)
    s1 = chk("create_stream(StreamOptions(nonblocking=True))",
             lambda: dev.create_stream(options=StreamOptions(nonblocking=True)), dev)
    s2 = chk("create_stream (second)", lambda: dev.create_stream(options=StreamOptions(nonblocking=True)), dev)
    host = chk("LegacyPinnedMemoryResource.allocate", lambda: LegacyPinnedMemoryResource().allocate(N * 4))
    spin = np.int64(spin_cycles(dev))

    chk("driver.cuStreamGetFlags(stream.handle)",
        lambda: driver_ok(driver.cuStreamGetFlags(s1.handle)) == int(driver.CUstream_flags.CU_STREAM_NON_BLOCKING), s1)
    chk("driver.cuStreamGetCtx(stream.handle) == device.context.handle",
        lambda: int(driver_ok(driver.cuStreamGetCtx(s1.handle))) == int(dev.context.handle), s1)

    def priority():
        least, greatest = driver_ok(driver.cuCtxGetStreamPriorityRange())
        s = dev.create_stream(options=StreamOptions(priority=greatest))
        return s.priority == greatest and driver_ok(driver.cuStreamGetPriority(s.handle)) == greatest

    chk("StreamOptions(priority) == driver.cuStreamGetPriority", priority, dev)

    def readback(buf):
        buf.copy_to(host, stream=s1)
        s1.sync()
        return host_array(host, np.float32, N).copy()

    def fresh():
        x = dev.allocate(N * 4, stream=s1)
        y = dev.allocate(N * 4, stream=s1)
        x.fill(np.array([-1.0], dtype=np.float32), stream=s1)
        y.fill(0, stream=s1)
        s1.sync()
        return x, y

    want = 2.0 * np.arange(N, dtype=np.float32)

    def timing():
        x, _ = fresh()
        e1 = dev.create_event(EventOptions(timing_enabled=True))
        s1.record(e1)
        launch(s1, CONFIG, produce, x, np.int32(N), spin)
        e2 = s1.record(options=EventOptions(timing_enabled=True))
        q = driver.cuEventQuery(e2.handle)[0]
        e2.sync()
        ms = e2 - e1
        ms_driver = driver_ok(driver.cuEventElapsedTime(e1.handle, e2.handle))
        done = e2.is_done and driver.cuEventQuery(e2.handle)[0] == driver.CUresult.CUDA_SUCCESS
        print(f"  producer: {ms:.3f} ms (cuda.core), {ms_driver:.3f} ms (driver); first query {q!r}")
        return done and ms > 0.25 and abs(ms - ms_driver) < 1e-3

    chk("Event timing: e2 - e1 == driver.cuEventElapsedTime(handles)", timing, produce, s1, host)

    def wait_core():
        x, y = fresh()
        launch(s1, CONFIG, produce, x, np.int32(N), spin)
        s2.wait(s1.record())
        launch(s2, CONFIG, consume, x, y, np.int32(N))
        s2.sync()
        return bool(np.array_equal(readback(y), want))

    chk("Stream.wait(event) orders consume after produce", wait_core, produce, s1, s2, host)

    def wait_driver():
        x, y = fresh()
        ev = driver_ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        launch(s1, CONFIG, produce, x, np.int32(N), spin)
        driver_ok(driver.cuEventRecord(ev, s1.handle))
        driver_ok(driver.cuStreamWaitEvent(s2.handle, ev, 0))
        launch(s2, CONFIG, consume, x, y, np.int32(N))
        driver_ok(driver.cuStreamSynchronize(s2.handle))
        driver_ok(driver.cuEventDestroy(ev))
        return bool(np.array_equal(readback(y), want))

    chk("driver.cuEventRecord/cuStreamWaitEvent(stream.handle) between cuda.core launches", wait_driver, produce, s1, s2, host)

    def foreign_stream():
        own = driver_ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        s = Stream.from_handle(int(own))
        x, y = fresh()
        launch(s, CONFIG, produce, x, np.int32(N), np.int64(0))
        launch(s, CONFIG, consume, x, y, np.int32(N))
        s.sync()
        ok = bool(np.array_equal(readback(y), want))
        s.close()
        driver_ok(driver.cuStreamDestroy(own))
        return ok

    chk("Stream.from_handle(driver.cuStreamCreate(...))", foreign_stream, produce, s1, host)

    class ForeignStream:
        def __init__(self, handle):
            self.handle = handle

        def __cuda_stream__(self):
            return (0, int(self.handle))

    def protocol_stream():
        own = driver_ok(driver.cuStreamCreate(0))
        s = dev.create_stream(ForeignStream(own))
        x, y = fresh()
        launch(s, CONFIG, produce, x, np.int32(N), np.int64(0))
        launch(s, CONFIG, consume, x, y, np.int32(N))
        driver_ok(driver.cuStreamSynchronize(own))
        ok = bool(np.array_equal(readback(y), want))
        s.close()
        driver_ok(driver.cuStreamDestroy(own))
        return ok

    chk("Device.create_stream(__cuda_stream__ object over a driver stream)", protocol_stream, produce, s1, host)

    def stream_on_stream():
        x, y = fresh()
        launch(s1, CONFIG, produce, x, np.int32(N), spin)
        s2.wait(s1)
        launch(s2, CONFIG, consume, x, y, np.int32(N))
        s2.sync()
        return bool(np.array_equal(readback(y), want))

    chk("Stream.wait(stream)", stream_on_stream, produce, s1, s2, host)
    chk.finish()


if __name__ == "__main__":
    main()
