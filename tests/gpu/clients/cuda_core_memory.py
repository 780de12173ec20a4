"""cuda.core's memory resources through its public API (DeviceMemoryResource, PinnedMemoryResource,
LegacyPinnedMemoryResource, ManagedMemoryResource, VirtualMemoryResource: the last two pinned and
virtual ones make their driver calls from Python, so they reach cudagen when swapped), Buffer
copies and fills, and the program's own driver calls on buffer.handle / stream.handle, checked
against NumPy.
"""

import numpy as np
from checks import Checks, driver_ok, host_array
from cuda.bindings import driver
from cuda.core import (
    Buffer,
    Device,
    DeviceMemoryResource,
    LegacyPinnedMemoryResource,
    ManagedMemoryResource,
    PinnedMemoryResource,
    VirtualMemoryResource,
    VirtualMemoryResourceOptions,
)

SIZE = 4 << 20  # bytes


def main():
    chk = Checks("cuda_core_memory")
    print(f"cuda_core_memory: cuda.bindings.driver is {driver.__name__}")

    def device():
        dev = Device(0)
        dev.set_current()
        return dev

    dev = chk("Device.set_current", device)
    stream = chk("Device.create_stream", lambda: dev.create_stream(), dev)
    legacy = LegacyPinnedMemoryResource()
    host = chk("LegacyPinnedMemoryResource.allocate", lambda: legacy.allocate(SIZE))

    def readback(buf, dtype=np.uint8):
        buf.copy_to(host, stream=stream)
        stream.sync()
        return host_array(host, dtype, SIZE // np.dtype(dtype).itemsize).copy()

    def device_mr():
        mr = DeviceMemoryResource(dev)
        buf = mr.allocate(SIZE, stream=stream)
        buf.fill(0xAB, stream=stream)
        ok = bool((readback(buf) == 0xAB).all())
        buf.close(stream)
        return ok

    chk("DeviceMemoryResource.allocate + Buffer.fill(int)", device_mr, dev, stream, host)

    def fill_pattern():
        buf = dev.allocate(SIZE, stream=stream)
        buf.fill(np.array([0x01020304], dtype=np.uint32), stream=stream)
        return bool((readback(buf, np.uint32) == 0x01020304).all())

    chk("Buffer.fill(4-byte pattern)", fill_pattern, dev, stream, host)

    def pinned_roundtrip():
        pinned = PinnedMemoryResource().allocate(SIZE, stream=stream)
        want = np.arange(SIZE // 4, dtype=np.uint32) * 3
        stream.sync()
        host_array(pinned, np.uint32, SIZE // 4)[:] = want
        dbuf = dev.allocate(SIZE, stream=stream)
        dbuf.copy_from(pinned, stream=stream)
        return bool(np.array_equal(readback(dbuf, np.uint32), want))

    chk("PinnedMemoryResource -> device -> LegacyPinned", pinned_roundtrip, dev, stream, host)

    def driver_on_buffers():
        buf = dev.allocate(SIZE, stream=stream)
        n = SIZE // 4
        driver_ok(driver.cuMemsetD32Async(buf.handle, 7, n, stream.handle))
        driver_ok(driver.cuStreamSynchronize(stream.handle))
        out = np.zeros(n, dtype=np.uint32)
        driver_ok(driver.cuMemcpyDtoH(out.ctypes.data, buf.handle, SIZE))
        ordinal = driver_ok(driver.cuPointerGetAttribute(
            driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, buf.handle))
        base, size = driver_ok(driver.cuMemGetAddressRange(buf.handle))
        return bool((out == 7).all()) and ordinal == dev.device_id and int(base) <= int(buf.handle) and size >= SIZE

    chk("driver.cuMemsetD32Async/cuMemcpyDtoH/cuPointerGetAttribute(buffer.handle)", driver_on_buffers, dev, stream)

    def foreign_pointer():
        ptr = driver_ok(driver.cuMemAlloc(SIZE))
        buf = Buffer.from_handle(int(ptr), SIZE)
        want = (np.arange(SIZE, dtype=np.uint64) % 251).astype(np.uint8)
        host_array(host, np.uint8, SIZE)[:] = want
        buf.copy_from(host, stream=stream)
        stream.sync()
        got = np.empty(SIZE, dtype=np.uint8)
        driver_ok(driver.cuMemcpyDtoH(got.ctypes.data, ptr, SIZE))
        buf.close()
        driver_ok(driver.cuMemFree(ptr))
        return bool(np.array_equal(got, want))

    chk("Buffer.from_handle(driver.cuMemAlloc(...))", foreign_pointer, dev, stream, host)

    def managed():
        buf = ManagedMemoryResource().allocate(SIZE, stream=stream)
        buf.fill(0x5A, stream=stream)
        stream.sync()
        return bool((host_array(buf, np.uint8, SIZE) == 0x5A).all())

    chk("ManagedMemoryResource.allocate (host reads)", managed, dev, stream)

    def virtual():
        vmr = VirtualMemoryResource(dev, VirtualMemoryResourceOptions())
        buf = vmr.allocate(SIZE // 2)
        first = int(buf.handle)
        buf.fill(0x11, stream=stream)
        stream.sync()
        grown = vmr.modify_allocation(buf, SIZE)
        ok_size = grown.size >= SIZE
        grown.copy_to(host, stream=stream)
        stream.sync()
        kept = bool((host_array(host, np.uint8, SIZE // 2) == 0x11).all())
        grown.fill(0x22, stream=stream)
        whole = bool((readback(grown) == 0x22).all())
        print(f"  VMM: {SIZE // 2} -> {grown.size} bytes, base {'kept' if int(grown.handle) == first else 'moved'}")
        grown.close()
        return ok_size and kept and whole

    chk("VirtualMemoryResource.allocate + modify_allocation", virtual, dev, stream, host)

    def legacy_close():
        b = legacy.allocate(4096)
        host_array(b, np.uint8, 4096)[:] = 9
        ok = bool((host_array(b, np.uint8, 4096) == 9).all())
        b.close()
        return ok and b.is_closed

    chk("LegacyPinnedMemoryResource buffer close", legacy_close)
    chk.finish()


if __name__ == "__main__":
    main()
