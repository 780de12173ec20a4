"""Tests that need no GPU: import, enums, handles, records, argument errors, missing driver."""

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

import cudagen
from cudagen import _classes
from cudagen import cuda, driver, nvrtc
import cudagen.driver as driver2


def test_import_forms():
    assert cuda is driver is driver2
    from cudagen import LoaderError

    assert issubclass(LoaderError, RuntimeError)
    assert len([n for n in dir(driver) if n.startswith("cu") and callable(getattr(driver, n))]) >= 473


def test_enums():
    r = driver.CUresult.CUDA_ERROR_INVALID_VALUE
    assert r == 1 and r.value == 1 and r.name == "CUDA_ERROR_INVALID_VALUE"
    assert isinstance(r, driver.CUresult) and isinstance(r, int)
    assert hash(r) == hash(1)
    assert driver.CUresult(1) is r
    assert "CUDA_ERROR_INVALID_VALUE" in repr(r)
    u = driver.CUresult(123456)
    assert u == 123456 and isinstance(u, driver.CUresult) and "UNKNOWN" in u.name
    assert driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == 75
    assert nvrtc.nvrtcResult.NVRTC_SUCCESS == 0


def test_handles():
    d = driver.CUdevice(3)
    assert int(d) == 3 and d.__index__() == 3 and repr(d) == "<CUdevice 3>"
    assert d == driver.CUdevice(3) and d != driver.CUdevice(4) and hash(d) == hash(driver.CUdevice(3))
    assert ctypes.c_int.from_address(d.getPtr()).value == 3
    assert repr(driver.CUcontext()) == "<CUcontext 0x0>" and int(driver.CUstream()) == 0
    assert int(driver.CUdeviceptr(2**64 - 1)) == 2**64 - 1
    assert driver.CUdevice_v1 is driver.CUdevice
    assert int(nvrtc.nvrtcProgram(0)) == 0
    with pytest.raises(OverflowError):
        driver.CUdevice(2**40)
    with pytest.raises(TypeError):
        driver.CUdevice("x")


def test_integer_widths():
    """Ints at the edges of each C width convert (int subclasses too); one past them is an
    OverflowError, and so is anything beyond 64 bits."""
    for ok in (-(2**31), -1, 0, 2**31 - 1, True, driver.CUresult.CUDA_ERROR_INVALID_VALUE):
        assert int(driver.CUdevice(ok)) == int(ok)
    for bad in (-(2**31) - 1, 2**31, 2**63, 2**64, -(2**64), 2**100):
        with pytest.raises(OverflowError):
            driver.CUdevice(bad)
    for ok in (0, 2**63 - 1, 2**63, 2**64 - 1):
        assert int(driver.CUdeviceptr(ok)) == ok
    for bad in (2**64, -(2**63) - 1, 2**100):
        with pytest.raises(OverflowError):
            driver.CUdeviceptr(bad)
    # pointer handles take either sign (two's complement)
    assert int(driver.CUcontext(-1)) == 2**64 - 1 and int(driver.CUcontext(-(2**63))) == 2**63


def test_no_leaks_on_fallback_and_error_paths():
    """Conversions that try one form and fall back to another, argument errors, and a failed
    callback registration release every object they made (10,000 rounds grow nothing)."""

    class Index:  # an address given through __index__ only: buffer and getPtr tried first
        def __index__(self):
            return 0

    def rounds():
        driver.CUcontext()
        assert driver.CUdevice(1) != "1"
        try:
            driver.cuMemFreeHost(Index())  # no driver here: converted, then LoaderError
        except cudagen.LoaderError:
            pass
        try:
            driver.cuInit(float("nan"))  # floats convert as Cython converts them: NaN cannot
            raise AssertionError("a NaN flag was accepted")
        except ValueError:
            pass
        try:
            driver.cuInit("1")
            raise AssertionError("a str flag was accepted")
        except TypeError:
            pass
        nvrtc.nvrtcSetFlowCallback(0, lambda payload: False, None)  # invalid program: refused

    for _ in range(1000):
        rounds()
    before = sys.getallocatedblocks()
    for _ in range(10000):
        rounds()
    assert sys.getallocatedblocks() - before < 500


def test_records():
    m = driver.CUDA_MEMCPY2D()
    m.srcXInBytes = 5
    m.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    m.srcDevice = driver.CUdeviceptr(0x1000)
    assert m.srcXInBytes == 5
    assert m.srcMemoryType is driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
    assert int(m.srcDevice) == 0x1000 and isinstance(m.srcDevice, driver.CUdeviceptr)
    assert ctypes.c_size_t.from_address(m.getPtr()).value == 5
    u = driver.CUuuid()
    assert isinstance(u.bytes, bytes) and len(u.bytes) == 16
    with pytest.raises(AttributeError, match="CUuuid.bytes"):
        u.bytes = bytes(16)  # the library fills it: read-only, as in cuda.bindings
    # a char[N] field takes exactly N bytes or C chars; an integer of any kind (which `bytes()`
    # reads as a count of zero bytes) is refused, the field kept
    u = driver.CUipcEventHandle()
    u.reserved = [1, 2] + [0] * 62
    assert u.reserved == b"\x01\x02" + bytes(62)
    with pytest.raises((TypeError, ValueError), match="reserved"):
        u.reserved = b"\x01\x02"  # short: never padded
    integers = [3, True, driver.CUstream(3), driver.CUresult(1)]
    try:
        import numpy

        integers.append(numpy.int32(3))
    except ImportError:
        pass
    for v in integers:
        with pytest.raises(TypeError):
            u.reserved = v
    assert u.reserved == b"\x01\x02" + bytes(62)
    # every record builds and has the header's size
    for name in driver._RECORDS:
        cls = getattr(driver, name)
        assert ctypes.sizeof(cls) == _classes.record_layout(driver._RECORDS[name])[1], name
    # every enum builds with every member of its table, values included
    for module in (driver, nvrtc):
        for name, table in module._ENUMS.items():
            members = _classes.enum_members(table)
            assert members and {n: int(getattr(module, name)[n]) for n, _ in members} == dict(members), name
    # anonymous members: fields reachable on the parent
    lp = driver.CUlaunchAttributeValue()
    lp.priority = 3
    assert lp.priority == 3


def test_argument_errors():
    with pytest.raises(TypeError, match=r"cuDeviceGetAttribute\(\) argument 'attrib' must be CUdevice_attribute or int, not str"):
        driver.cuDeviceGetAttribute("x", 0)
    with pytest.raises(TypeError, match=r"cuStreamQuery\(\) argument 'hStream' must be CUstream"):
        driver.cuStreamQuery("nope")
    with pytest.raises(OverflowError, match="cuInit"):
        driver.cuInit(2**40)
    with pytest.raises(OverflowError):
        driver.cuMemAlloc(-1)
    with pytest.raises(TypeError):
        driver.cuInit("1")
    # floats convert as Cython converts them (truncated), but NaN and infinities cannot
    with pytest.raises(ValueError, match=r"cuInit\(\) argument 'Flags': cannot convert float NaN"):
        driver.cuInit(float("nan"))
    with pytest.raises(OverflowError, match="cuInit"):
        driver.cuInit(float("inf"))
    with pytest.raises(OverflowError, match="cuMemAlloc"):
        driver.cuMemAlloc(-1.0)


class _IntOnly:
    def __int__(self):
        return 10


class _IndexOnly:
    def __index__(self):
        return 10


def _not_enums():
    """Values an enum argument refuses: cuda.bindings 12.x reads the member's `.value` (these
    raise AttributeError there, and 13.x `int()`s them); none is truncated into a member."""
    np = pytest.importorskip("numpy")
    from cudagen import runtime

    out = [2.5, 10.0, np.float64(10.0), np.float32(2.5), runtime.cudaStream_t(7), driver.CUstream(7), "10"]
    try:  # NVIDIA's handle classes: their pointer handles have __index__, still no enum value
        from cuda.bindings import driver as nd, runtime as nrt

        out += [nrt.cudaStream_t(7), nd.CUstream(7)]
    except ImportError:
        pass
    return out


def test_enum_arguments_refuse_floats_and_handles():
    """An enum argument of the driver and NVRTC modules takes a member of any enum, an int, an
    `__index__` object or an `__int__`-only one (its int(), as cuda.bindings 13 takes it); a
    float or a handle is a TypeError naming the parameter and the enum, raised before the
    library is loaded."""
    np = pytest.importorskip("numpy")
    for bad in _not_enums():
        with pytest.raises(TypeError, match=r"^cuDeviceGetAttribute\(\) argument 'attrib' must be CUdevice_attribute or int, not "):
            driver.cuDeviceGetAttribute(bad, 0)
        with pytest.raises(TypeError, match=r"^nvrtcGetErrorString\(\) argument 'result' must be nvrtcResult or int, not "):
            nvrtc.nvrtcGetErrorString(bad)
    ok = nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT
    for good in (ok, 3, np.int32(3), _IndexOnly(), _IntOnly(), driver.CUresult(3), True):
        assert nvrtc.nvrtcGetErrorString(good)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    assert nvrtc.nvrtcGetErrorString(np.int64(3))[1] == nvrtc.nvrtcGetErrorString(ok)[1] == b"NVRTC_ERROR_INVALID_INPUT"


_FAKE_CUDART = """
static int calls;
static unsigned long long seen[4];
int cudaDeviceGetAttribute(int *v, int attr, int dev) { calls++; seen[0] = attr; if (v) *v = 1; return 0; }
int cudaMemcpy3D(const void *p) { calls++; seen[1] = (unsigned long long)p; return 1; }
int cudaCreateTextureObject(void *o, const void *r, const void *t, const void *v) {
    calls++; seen[1] = (unsigned long long)r; seen[2] = (unsigned long long)t; seen[3] = (unsigned long long)v; return 1;
}
int fake_calls(void) { return calls; }
unsigned long long fake_seen(int i) { return seen[i]; }
"""

_RUNTIME_PROBE = """
import ctypes, os, sys
sys.path.insert(0, os.environ["TESTS_DIR"])
import numpy as np
from test_cpu import _IndexOnly, _IntOnly, _not_enums
from cudagen import runtime as rt
fake = ctypes.CDLL(os.environ["CUDAGEN_CUDART_PATH"])
fake.fake_seen.restype = ctypes.c_ulonglong
def record(r):
    return [type(r).__name__, [int(x) if x is not None else None for x in r] if isinstance(r, tuple) else None, fake.fake_calls()]
out = {}
attr = rt.cudaDeviceAttr.cudaDevAttrWarpSize
for name, v in [("member", attr), ("int", 10), ("np.int32", np.int32(10)), ("index", _IndexOnly()),
                ("other enum", rt.cudaError_t(10)), ("bool", True), ("int only", _IntOnly())]:
    out["attr " + name] = record(rt.cudaDeviceGetAttribute(v, 0)) + [fake.fake_seen(0)]
calls = fake.fake_calls()
for v in _not_enums():
    try:
        rt.cudaDeviceGetAttribute(v, 0)
        out.setdefault("accepted", []).append(repr(v))
    except TypeError as e:
        out.setdefault("refused", []).append(str(e))
out["refusals made no call"] = fake.fake_calls() == calls
out["memcpy3D None"] = record(rt.cudaMemcpy3D(None)) + [fake.fake_seen(1)]
out["memcpy3D record"] = record(rt.cudaMemcpy3D(rt.cudaMemcpy3DParms())) + [fake.fake_seen(1) != 0]
out["texture None"] = record(rt.cudaCreateTextureObject(None, None, None)) + [fake.fake_seen(i) for i in (1, 2, 3)]
for bad in (0, 5, "p", rt.cudaStream_t(5)):
    try:
        rt.cudaMemcpy3D(bad)
        out.setdefault("memcpy3D accepted", []).append(repr(bad))
    except TypeError as e:
        out.setdefault("memcpy3D refused", []).append(str(e))
print(repr(out))
"""


def test_runtime_enums_and_none_records(tmp_path):
    """cudagen.runtime against a fake libcudart that records what it is given: an enum argument
    takes members (of any enum), ints, `__index__` and `__int__`-only objects, and refuses floats
    and handles before any call (cuda.bindings 12.x reads `.value`); None for a
    pointer to one record passes NULL, as cuda.bindings' runtime does (`Optional[record]`), and
    the library's own status comes back."""
    import ast

    pytest.importorskip("numpy")
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcudart")
    src = tmp_path / "cudart.c"
    src.write_text(_FAKE_CUDART)
    lib = tmp_path / "libcudart.so.12"
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    env = dict(os.environ, CUDAGEN_CUDART_PATH=str(lib), TESTS_DIR=os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run([sys.executable, "-c", _RUNTIME_PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = ast.literal_eval(p.stdout.strip().splitlines()[-1])
    for k, name in enumerate(("member", "int", "np.int32", "index", "other enum", "bool", "int only")):
        expected_attr = 1 if name == "bool" else 10
        assert out["attr " + name] == ["tuple", [0, 1], k + 1, expected_attr], (name, out["attr " + name])
    assert "accepted" not in out, out["accepted"]
    assert len(out["refused"]) == len(_not_enums()) and out["refusals made no call"]
    for msg in out["refused"]:
        assert msg.startswith("cudaDeviceGetAttribute() argument 'attr' must be cudaDeviceAttr or int, not "), msg
    assert out["refused"][0].endswith("not float") and out["refused"][6].endswith("not str")
    # NULL reached the library, whose status (cudaErrorInvalidValue) came back
    assert out["memcpy3D None"] == ["tuple", [1], 8, 0]
    assert out["memcpy3D record"] == ["tuple", [1], 9, True]
    assert out["texture None"] == ["tuple", [1, None], 10, 0, 0, 0]
    assert "memcpy3D accepted" not in out, out["memcpy3D accepted"]
    for msg in out["memcpy3D refused"]:
        assert msg.startswith("cudaMemcpy3D() argument 'p' must be cudaMemcpy3DParms or None, not "), msg


def test_driver_record_pointers_take_none():
    """None for a pointer to one record converts (NULL, as cuda.bindings' driver passes it): the
    call gets as far as the driver (here none: LoaderError), where an int or a handle is refused."""
    for call in (lambda: driver.cuMemcpy3D(None), lambda: driver.cuTexObjectCreate(None, None, None),
                 lambda: driver.cuGraphAddKernelNode(0, None, 0, None)):
        try:
            r = call()
        except cudagen.LoaderError:
            continue
        assert isinstance(r, tuple) and isinstance(r[0], driver.CUresult)
    for bad in (0, driver.CUstream(5), b"x" * 4):
        with pytest.raises((TypeError, ValueError), match=r"^cuMemcpy3D\(\) argument 'pCopy'"):
            driver.cuMemcpy3D(bad)


def test_calling_convention():
    f = nvrtc.nvrtcGetErrorString
    ok = nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT
    assert f(ok) == f(result=ok) and f(result=ok)[1] == b"NVRTC_ERROR_INVALID_INPUT"
    with pytest.raises(TypeError, match=r"missing required argument 'dev' \(pos 2\)"):
        driver.cuDeviceGetAttribute(1)
    with pytest.raises(TypeError, match=r"takes 2 positional arguments but 3 were given"):
        driver.cuDeviceGetAttribute(1, 2, 3)
    with pytest.raises(TypeError, match=r"multiple values for argument 'attrib'"):
        driver.cuDeviceGetAttribute(1, attrib=2)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'devv'"):
        driver.cuDeviceGetAttribute(1, devv=2)
    # the header's docs at run time, with a signature inspect can read
    import inspect

    assert str(inspect.signature(driver.cuMemAlloc)) == "(bytesize)"
    assert "Allocates device memory" in driver.cuMemAlloc.__doc__
    assert driver.cuMemAlloc.__module__ == "cudagen.driver"


def test_handle_class_details():
    assert hash(driver.CUdevice(-1)) == hash(driver.CUdevice(-1)) != -1
    assert driver.CUdevice(init_value=5) == 5 and driver.CUdeviceptr(driver.CUdeviceptr(7)) == 7
    assert driver.CUdevice(3) != "3" and (driver.CUdevice(3) == None) is False  # noqa: E711
    with pytest.raises(TypeError, match="unexpected keyword"):
        driver.CUdevice(value=1)
    with pytest.raises(TypeError):

        class Sub(driver.CUcontext):  # handle classes are final
            pass


def test_every_function_rejects_wrong_types():
    """No argument of any function takes an arbitrary object: each call fails in conversion, with
    a TypeError that names the function, before anything reaches the library."""
    import inspect

    checked = 0
    for mod in (driver, nvrtc):
        for name in dir(mod):
            f = getattr(mod, name)
            if not name.startswith(("cu", "nvrtc")) or isinstance(f, type) or not callable(f):
                continue
            n = len(inspect.signature(f).parameters)
            if n == 0:
                continue
            with pytest.raises(TypeError, match=rf"^{name}\(\)"):
                f(*[object()] * n)
            checked += 1
    assert checked > 450


def test_numpy_scalars():
    np = pytest.importorskip("numpy")
    # numpy ints reach the library (here: NVRTC, no GPU needed) through __index__
    err, n = nvrtc.nvrtcGetNumSupportedArchs()
    assert err == 0 and n > 0
    assert int(driver.CUdevice(np.int32(2))) == 2


def test_missing_driver_raises_loader_error():
    code = (
        "import cudagen\n"
        "from cudagen import driver\n"
        "try:\n"
        "    driver.cuInit(0)\n"
        "except cudagen.LoaderError as e:\n"
        "    print('LOADER', e)\n"
        "else:\n"
        "    print('NOERROR')\n"
    )
    env = dict(os.environ, CUDAGEN_LIBCUDA="/nonexistent/libcuda.so.1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    if "NOERROR" in out.stdout:
        pytest.skip("a driver is installed")
    assert "LOADER" in out.stdout and "libcuda" in out.stdout, out.stdout + out.stderr


def test_status_members_of_a_wide_enum(tmp_path):
    """cudaError_t spans 0 ... 10000 (cudaErrorApiFailureBase): every status a call returns is
    its member (the low codes from the indexed table, the far one from the sparse one), and an
    unknown code a pseudo-member. A fake libcudart returns the code it is given."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcudart")
    src = tmp_path / "cudart.c"
    src.write_text("static int next;\nint cudaGetDevice(int *d) { if (d) *d = 3; return next; }\n"
                   "int cudaSetDevice(int code) { next = code; return 0; }\n")
    lib = tmp_path / "libcudart.so.12"
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    code = (
        "from cudagen import runtime as rt\n"
        "for c in (0, 1, 999, 10000, 123456):\n"
        "    rt.cudaSetDevice(c)\n"
        "    err, dev = rt.cudaGetDevice()\n"
        "    print(type(err).__name__, int(err), err.name, dev)\n"
    )
    env = dict(os.environ, CUDAGEN_CUDART_PATH=str(lib))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    lines = out.stdout.split("\n")
    assert lines[:4] == ["cudaError_t 0 cudaSuccess 3", "cudaError_t 1 cudaErrorInvalidValue None",
                         "cudaError_t 999 cudaErrorUnknown None", "cudaError_t 10000 cudaErrorApiFailureBase None"], out.stdout + out.stderr
    assert lines[4].startswith("cudaError_t 123456 ") and lines[4].endswith(" None"), out.stdout + out.stderr
