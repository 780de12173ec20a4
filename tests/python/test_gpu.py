"""GPU tests (skip with one line when no driver): seeds 000/002/004 verbatim, kernel-argument
forms of seed 002, memcpy round trips, a Python host callback, and the GIL released."""

import ctypes
import gc
import os
import subprocess
import sys
import threading
import time
import weakref

import pytest

np = pytest.importorskip("numpy")
from cudagen import driver, nvrtc  # noqa: E402

HERE = os.path.dirname(__file__)


@pytest.mark.parametrize("seed", ["seed000.py", "seed002.py", "seed004.py"])
def test_seed(gpu, seed):
    out = subprocess.run([sys.executable, os.path.join(HERE, "seeds", seed)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def _arch():
    err, dev = driver.cuDeviceGet(0)
    _, major = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
    _, minor = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    return f"--gpu-architecture=compute_{major}{minor}".encode()


def _kernel(src, name):
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    err, = nvrtc.nvrtcCompileProgram(prog, 1, [_arch()])
    assert err == 0
    err, n = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    nvrtc.nvrtcGetPTX(prog, ptx)
    err, module = driver.cuModuleLoadData(ptx)
    assert err == 0, err
    err, k = driver.cuModuleGetFunction(module, name.encode())
    assert err == 0
    return module, k


SCALARS = [
    ("bool", np.bool_, ctypes.c_bool, True),
    ("signed char", np.int8, ctypes.c_byte, -5),
    ("short", np.int16, ctypes.c_short, -300),
    ("int", np.int32, ctypes.c_int, -70000),
    ("long long", np.int64, ctypes.c_longlong, -(2**40)),
    ("unsigned char", np.uint8, ctypes.c_ubyte, 200),
    ("unsigned short", np.uint16, ctypes.c_ushort, 60000),
    ("unsigned int", np.uint32, ctypes.c_uint, 4000000000),
    ("unsigned long long", np.uint64, ctypes.c_ulonglong, 2**63 + 5),
    ("float", np.float32, ctypes.c_float, 1.5),
    ("double", np.float64, ctypes.c_double, 2.25),
]


@pytest.mark.parametrize("ctype,nptype,cttype,value", SCALARS)
@pytest.mark.parametrize("form", ["numpy", "ctypes"])
def test_kernel_scalar_args(ctx, ctype, nptype, cttype, value, form):
    src = f'extern "C" __global__ void k({ctype} v, {ctype} *out) {{ *out = v; }}'
    module, k = _kernel(src, "k")
    size = np.dtype(nptype).itemsize
    err, d = driver.cuMemAlloc(size)
    if form == "numpy":
        vals = (np.array(value, dtype=nptype), np.array([int(d)], dtype=np.intp))
        params = np.array([a.ctypes.data for a in vals], dtype=np.intp)
    else:
        params = ((value, d), (cttype, ctypes.c_void_p))
    err, = driver.cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)
    assert err == 0
    h = np.zeros(1, dtype=nptype)
    err, = driver.cuMemcpyDtoH(h.ctypes.data, d, size)
    assert err == 0 and h[0] == nptype(value)
    driver.cuMemFree(d)
    driver.cuModuleUnload(module)


def test_kernel_struct_and_handles(ctx):
    class S(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_double)]

    src = 'struct S { int a; double b; }; extern "C" __global__ void k(S s, int e, unsigned long long p, double *out) { out[0] = s.a; out[1] = s.b; out[2] = e; out[3] = (double)(p != 0); }'
    module, k = _kernel(src, "k")
    err, d = driver.cuMemAlloc(32)
    enum = driver.CUresult.CUDA_ERROR_INVALID_VALUE
    params = ((S(7, 3.5), enum, d, d), (None, None, None, ctypes.c_void_p))
    err, = driver.cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, driver.CUstream(0), params, 0)
    assert err == 0
    h = np.zeros(4)
    driver.cuMemcpyDtoH(h, d, 32)
    assert list(h) == [7.0, 3.5, 1.0, 1.0]


def test_memcpy_roundtrip(ctx):
    a = np.arange(1000, dtype=np.float32)
    err, d = driver.cuMemAlloc(a.nbytes)
    assert err == 0 and isinstance(d, driver.CUdeviceptr)
    assert driver.cuMemcpyHtoD(d, a, a.nbytes) == (0,)
    b = np.zeros_like(a)
    assert driver.cuMemcpyDtoH(b.ctypes.data, d, a.nbytes) == (0,)
    assert (a == b).all()
    err, stream = driver.cuStreamCreate(0)
    c = np.zeros_like(a)
    driver.cuMemcpyDtoHAsync(c, d, a.nbytes, stream)
    driver.cuStreamSynchronize(stream)
    assert (a == c).all()
    driver.cuStreamDestroy(stream)
    driver.cuMemFree(d)


def test_host_callback(ctx):
    err, stream = driver.cuStreamCreate(0)
    seen = []
    token = object()
    err, = driver.cuLaunchHostFunc(stream, lambda ud: seen.append(ud), token)
    assert err == 0
    err, = driver.cuStreamAddCallback(stream, lambda s, st, ud: seen.append((int(st), ud)), 5, 0)
    assert err == 0
    driver.cuStreamSynchronize(stream)
    assert seen[0] is token and seen[1] == (0, 5)
    driver.cuStreamDestroy(stream)


def test_occupancy_callable(ctx):
    module, k = _kernel('extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1; }', "k")
    sizes = []

    def smem(block_size):
        sizes.append(block_size)
        return 4 * block_size

    err, min_grid, block = driver.cuOccupancyMaxPotentialBlockSize(k, smem, 0, 0)
    assert err == 0 and block > 0 and min_grid > 0
    assert sizes and all(isinstance(b, int) and b > 0 for b in sizes)


def test_user_object_destroy_callable(ctx):
    destroyed = threading.Event()
    token = object()
    got = []

    def destroy(ud):
        got.append(ud)
        destroyed.set()

    err, obj = driver.cuUserObjectCreate(token, destroy, 1, driver.CUuserObject_flags.CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    assert err == 0
    err, = driver.cuUserObjectRelease(obj, 1)
    assert err == 0
    assert destroyed.wait(10), "destroy callback not called within 10 s"
    assert got == [token]


class Payload:
    """User data whose lifetime a weak reference shows."""


def released_by(unregister, payload_ref):
    """Whether the kept user data is alive before `unregister()` and gone after it."""
    gc.collect()
    before = payload_ref() is not None
    unregister()
    gc.collect()
    return before and payload_ref() is None


def test_logs_callable(ctx):
    messages = []
    payload = Payload()
    err, handle = driver.cuLogsRegisterCallback(lambda ud, level, msg: messages.append((ud, level, msg)), payload)
    if err == driver.CUresult.CUDA_ERROR_NOT_SUPPORTED:
        pytest.skip("this driver has no error log callbacks")
    assert err == 0
    driver.cuMemAlloc(0)  # an invalid call the driver logs
    alive = weakref.ref(payload)
    del payload
    assert messages, "no log message reached the callable"
    ud, level, msg = messages[0]
    assert ud is alive() and isinstance(level, driver.CUlogLevel) and isinstance(msg, bytes) and msg
    del ud
    messages.clear()
    assert released_by(lambda: driver.cuLogsUnregisterCallback(handle), alive)


def test_async_notification_callable(ctx):
    err, dev = driver.cuCtxGetDevice()
    payload = Payload()
    err, handle = driver.cuDeviceRegisterAsyncNotification(dev, lambda info, ud, h: None, payload)
    if err == driver.CUresult.CUDA_ERROR_NOT_SUPPORTED:
        pytest.skip("this device sends no async notifications")
    assert err == 0 and int(handle) != 0
    alive = weakref.ref(payload)
    del payload
    assert released_by(lambda: driver.cuDeviceUnregisterAsyncNotification(dev, handle), alive)


def test_gil_released(ctx):
    src = 'extern "C" __global__ void spin(long long cycles) { long long t = clock64(); while (clock64() - t < cycles) {} }'
    module, k = _kernel(src, "spin")
    err, stream = driver.cuStreamCreate(0)
    err, = driver.cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, stream, ((2_000_000_000,), (ctypes.c_longlong,)), 0)
    assert err == 0
    count = [0]
    done = threading.Event()

    def waiter():
        driver.cuStreamSynchronize(stream)
        done.set()

    t = threading.Thread(target=waiter)
    t0 = time.perf_counter()
    t.start()
    while not done.is_set():
        count[0] += 1
    t.join()
    elapsed = time.perf_counter() - t0
    print(f"progress while synchronizing: {count[0]} iterations in {elapsed:.3f}s")
    assert elapsed > 0.05 and count[0] > 10000
