"""cudagen beside NVIDIA's cuda.bindings, no GPU needed: kernelParams in record fields, the docs
real programs read (every enumerator's own), and our handles accepted by NVIDIA's helpers
(`cuda.bindings.utils.get_cuda_native_handle`, `int()`, `getPtr()`) without importing NVIDIA's
package when the program does not.

NVIDIA's package is the oracle where it is installed (12.9.5 in `.venv`, 13.5.0 in `.venv13`);
the import orders of `get_cuda_native_handle` also run against stand-ins of its two shapes (a
registry as in 12.9 and 13.3; a function with a private table as in 13.0), so they run with any
installed version.
"""

import ctypes
import gc
import os
import re
import subprocess
import sys
import textwrap

import pytest

from cudagen import driver, nvrtc

MODULES = (driver, nvrtc)


def _nvidia(module):
    """NVIDIA's module of that name, or None when the package is not installed."""
    try:
        import importlib

        return importlib.import_module("cuda.bindings." + module)
    except ImportError:
        return None


def _nvidia_major():
    try:
        import cuda.bindings

        return int(cuda.bindings.__version__.split(".")[0])
    except ImportError:
        return None


# ---------------------------------------------------------------- kernelParams in record fields


def _kernel_params_records():
    """Table names of the records whose table gives a field the kernelParams spec (the IR's
    mark), and those known to have one."""
    marked = {n for n, t in driver._RECORDS.items() if " kernelParams k:c_void_p " in t}
    known = {n for n in driver._RECORDS if n.startswith(("CUDA_KERNEL_NODE_PARAMS", "CUDA_LAUNCH_PARAMS"))}
    return sorted(marked | known)


def _pair():
    """A ((values), (types)) pair made of temporaries, and what each slot must hold."""
    values = (7, 2.5, 2**40 + 3, ctypes.c_double(-1.25), True)
    types = (ctypes.c_int, ctypes.c_float, ctypes.c_size_t, ctypes.c_double, ctypes.c_bool)
    return (values, types), [(ctypes.c_int, 7), (ctypes.c_float, 2.5), (ctypes.c_size_t, 2**40 + 3),
                             (ctypes.c_double, -1.25), (ctypes.c_bool, True)]


def _read(addr, expected):
    """The values the `void *[]` at ``addr`` points to, read as ``expected``'s types."""
    ptrs = (ctypes.c_void_p * len(expected)).from_address(addr)
    return [t.from_address(ptrs[i]).value for i, (t, _) in enumerate(expected)]


def test_kernel_params_fields_are_the_irs():
    """The IR marks every `void **kernelParams` record field (not `extra`, a `void **` too)."""
    marked = {n for n, t in driver._RECORDS.items() if " kernelParams k:c_void_p " in t}
    assert marked == set(_kernel_params_records()) and len(marked) >= 4, marked
    assert not any(" extra k:" in t for t in driver._RECORDS.values())


@pytest.mark.parametrize("name", _kernel_params_records())
def test_kernel_params_field_takes_a_pair_kept_by_the_record(name):
    """A pair is packed into memory the record keeps: the values survive their temporaries and
    a collection; reading gives the address of the pointer array, as in cuda.bindings."""
    rec = getattr(driver, name)()
    pair, expected = _pair()
    rec.kernelParams = pair
    del pair
    gc.collect()
    junk = [bytearray(64) for _ in range(1000)]  # reuse of freed memory would show
    addr = rec.kernelParams
    assert isinstance(addr, int) and addr != 0
    assert _read(addr, expected) == [v for _, v in expected]
    assert "kernelParams : %d" % addr in str(rec)
    del junk


@pytest.mark.parametrize("name", _kernel_params_records())
def test_kernel_params_field_takes_every_argument_form(name):
    """None, an int address and a buffer of pointers, as the function argument takes them."""
    np = pytest.importorskip("numpy")
    cls = getattr(driver, name)
    rec = cls()
    rec.kernelParams = ((1,), (ctypes.c_int,))
    rec.kernelParams = None
    assert rec.kernelParams == 0
    rec.kernelParams = 0x1234
    assert rec.kernelParams == 0x1234
    arr = np.array([11, 12], dtype=np.uint64)
    rec.kernelParams = arr
    assert rec.kernelParams == arr.ctypes.data
    ptrs = (ctypes.c_void_p * 1)(5)
    rec.kernelParams = ptrs
    assert rec.kernelParams == ctypes.addressof(ptrs)
    rec.kernelParams = ((), ())
    assert rec.kernelParams == 0
    assert cls(kernelParams=((3,), (ctypes.c_int,))).kernelParams != 0


@pytest.mark.parametrize("bad, error", [("x", TypeError), (1.5, TypeError), (((1,), (ctypes.c_int, ctypes.c_int)), ValueError),
                                        (((object(),), (ctypes.c_int,)), TypeError)])
def test_kernel_params_field_refuses_what_the_argument_refuses(bad, error):
    """A refused value raises the argument's error, naming the record; the field is unchanged."""
    rec = driver.CUDA_KERNEL_NODE_PARAMS()
    rec.kernelParams = 0x40
    with pytest.raises(error, match="CUDA_KERNEL_NODE_PARAMS.*kernelParams"):
        rec.kernelParams = bad
    assert rec.kernelParams == 0x40


def test_kernel_params_in_a_nested_record_outlive_the_view():
    """`params.kernel.kernelParams = pair` sets a field of a short-lived view: the outer record
    keeps the packed memory."""
    params = driver.CUgraphNodeParams()
    pair, expected = _pair()
    params.kernel.kernelParams = pair
    del pair
    gc.collect()
    junk = [bytearray(64) for _ in range(1000)]
    assert _read(params.kernel.kernelParams, expected) == [v for _, v in expected]
    del junk


def test_kernel_params_field_packs_as_cuda_bindings():
    """The same pair set on NVIDIA's record and ours gives the same bytes behind each pointer."""
    theirs = _nvidia("driver")
    if theirs is None:
        pytest.skip("cuda.bindings is not installed")
    pair, expected = _pair()
    mine, other = driver.CUDA_KERNEL_NODE_PARAMS(), theirs.CUDA_KERNEL_NODE_PARAMS()
    mine.kernelParams = pair
    other.kernelParams = pair
    assert isinstance(other.kernelParams, int) and isinstance(mine.kernelParams, int)
    assert _read(mine.kernelParams, expected) == _read(other.kernelParams, expected)


class _Struct(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int)]


def _nvidia_forms(drv, rt, buf):
    """The kernel argument forms of NVIDIA's own kernelParams tests (test_kernelParams.py), built
    from one side's modules ``drv`` / ``rt``: (value, ctypes type, bytes the kernel reads or None,
    object whose getPtr() the pointer must be). ``buf`` is host memory both sides view through
    ``_ptr=`` (the slot the kernel writes through a `c_void_p`)."""
    dim = rt.dim3()
    dim.x, dim.y, dim.z = 1, 2, 3
    stream = drv.CUstream(7)
    at = ctypes.addressof(buf)
    return [
        (rt.cudaError_t.cudaErrorUnknown, None, (999).to_bytes(4, "little"), None),  # enums
        (0x1234, ctypes.c_void_p, (0x1234).to_bytes(8, "little"), None),
        (rt.cudaSurfaceObject_t(248), None, (248).to_bytes(8, "little"), None),  # a typedef of a primitive
        (rt.cudaSurfaceObject_t(_ptr=at), ctypes.c_void_p, at.to_bytes(8, "little"), None),  # where the kernel writes
        (dim, None, bytes((ctypes.c_uint * 3)(1, 2, 3)), None),  # a record by value
        (rt.dim3(_ptr=at + 16), ctypes.c_void_p, (at + 16).to_bytes(8, "little"), None),
        (_Struct(5), None, bytes(_Struct(5)), None),  # a ctypes struct passed by value
        (ctypes.c_int(1), ctypes.c_int, bytes(ctypes.c_int(1)), None),
        (ctypes.c_float(123.456), ctypes.c_float, bytes(ctypes.c_float(123.456)), None),
        (ctypes.c_float(1.5), ctypes.c_double, bytes(ctypes.c_double(1.5)), None),
        (ctypes.c_void_p(at), ctypes.c_void_p, at.to_bytes(8, "little"), None),
        (True, ctypes.c_bool, b"\x01", None),
        (b"Z", ctypes.c_char, b"Z", None),
        ("\u0100", ctypes.c_wchar, bytes(ctypes.c_wchar("\u0100")), None),
        (-127, ctypes.c_byte, bytes(ctypes.c_byte(-127)), None),
        (stream, None, (7).to_bytes(8, "little"), None),  # a handle: its value, by getPtr()
        (stream, ctypes.c_void_p, None, stream),  # a handle as a pointer: its getPtr()
    ]


def _packed(cls, forms):
    """The bytes behind each pointer of the array a record of ``cls`` packs for ``forms``."""
    rec = cls()
    rec.kernelParams = (tuple(f[0] for f in forms), tuple(f[1] for f in forms))
    ptrs = (ctypes.c_void_p * len(forms)).from_address(rec.kernelParams)
    out = []
    for i, (_, _, want, _) in enumerate(forms):
        out.append(ctypes.string_at(ptrs[i], len(want) if want is not None else 8))
    return rec, out


@pytest.mark.parametrize("module, record", [("driver", "CUDA_KERNEL_NODE_PARAMS"), ("runtime", "cudaKernelNodeParams"),
                                            ("runtime", "cudaKernelNodeParamsV2")])
def test_kernel_params_pack_nvidias_forms_as_cuda_bindings(module, record):
    """NVIDIA's kernelParams tests pass enums, typedef objects (`cudaSurfaceObject_t(_ptr=p)`
    as a `c_void_p`: the kernel writes to `p`), records, ctypes structs and handles: each pointer
    of our packed array leads to the bytes cuda.bindings' leads to (its helper packs without a
    GPU: the record field setter uses it)."""
    theirs = (_nvidia("driver"), _nvidia("runtime"))
    if None in theirs:
        pytest.skip("cuda.bindings is not installed")
    from cudagen import runtime

    buf = (ctypes.c_ubyte * 64)()
    ours_forms, their_forms = _nvidia_forms(driver, runtime, buf), _nvidia_forms(*theirs, buf)
    _, mine = _packed(getattr(driver if module == "driver" else runtime, record), ours_forms)
    _, other = _packed(getattr(theirs[0] if module == "driver" else theirs[1], record), their_forms)
    for k, (m, o, f, g) in enumerate(zip(mine, other, ours_forms, their_forms)):
        if f[3] is not None:  # the address of each side's own object
            assert int.from_bytes(m, "little") == f[3].getPtr() and int.from_bytes(o, "little") == g[3].getPtr(), k
        else:
            assert m == o == f[2], (k, f[0], m, o)


# ---------------------------------------------------------------- docs


def _enums(module):
    return [getattr(module, n) for n in module._ENUMS]


def test_every_enum_member_has_a_docstring():
    """Never None: the header's comment of that enumerator, else its enum's doc."""
    missing = [(e.__name__, m) for mod in MODULES for e in _enums(mod) for m, v in e.__members__.items()
               if not isinstance(v.__doc__, str) or not v.__doc__.strip()]
    assert not missing, missing[:10]


def test_enum_members_have_their_own_docstrings():
    """Each enumerator reads its own comment (cuda.bindings 13's behaviour; 12.x gave the class
    doc to every member); a value unknown to these headers reads the class doc."""
    r = driver.CUresult
    assert "acceptable range of values" in r.CUDA_ERROR_INVALID_VALUE.__doc__
    assert "no errors" in r.CUDA_SUCCESS.__doc__
    assert r.CUDA_SUCCESS.__doc__ != r.CUDA_ERROR_INVALID_VALUE.__doc__ != r.__doc__
    assert r(987654).__doc__ == r.__doc__ == "Error codes"
    own = sum(v.__doc__ != e.__doc__ for e in _enums(driver) for v in e.__members__.values())
    assert own > 800, own


def test_member_docs_cover_cuda_bindings():
    """Where NVIDIA's enumerator has a docstring, ours has one, mostly with the same words
    (theirs is the same header comment, reflowed)."""
    major = _nvidia_major()
    if major is None:
        pytest.skip("cuda.bindings is not installed")
    words = lambda s: set(re.findall(r"[a-z0-9]+", s.lower()))  # noqa: E731
    compared = close = 0
    for mod in MODULES:
        theirs = _nvidia(mod.__name__.split(".")[-1])
        for e in _enums(mod):
            other = getattr(theirs, e.__name__, None)
            for name, v in getattr(other, "__members__", {}).items():
                if name not in e.__members__ or not isinstance(v.__doc__, str):
                    continue
                ours = e.__members__[name].__doc__
                assert isinstance(ours, str) and ours.strip(), (e.__name__, name)
                compared += 1
                a, b = words(v.__doc__), words(ours)
                close += len(a & b) >= 0.5 * len(a | b)
    assert compared > 500
    if major >= 13:
        assert close >= 0.9 * compared, (close, compared)


def test_classes_and_functions_have_docstrings():
    """Every enum, record, typedef and handle class and every function has a string
    `__doc__` (records and typedefs are built here, so their docs are read on first use)."""
    missing = []
    for mod in MODULES:
        for name in sorted(set(mod._ENUMS) | set(mod._RECORDS) | set(mod._TYPEDEFS) | {n for m, n in _native_classes() if m is mod}):
            cls = getattr(mod, name)
            if not isinstance(cls.__doc__, str) or not cls.__doc__.strip():
                missing.append(name)
        for name in dir(mod):
            f = getattr(mod, name)
            if callable(f) and type(f).__name__ == "builtin_function_or_method" and not (f.__doc__ or "").strip():
                missing.append(name)
    assert not missing, missing[:10]
    rec = driver.CUDA_KERNEL_NODE_PARAMS
    assert rec.__doc__.startswith("GPU kernel node parameters") and "kernelParams : void **" in rec.__doc__
    assert rec().__doc__ == rec.__doc__
    assert driver.cuuint32_t.__doc__ and driver.cuuint32_t(1).__doc__ == driver.cuuint32_t.__doc__


def _python(code, env=None):
    """Runs ``code`` in a fresh interpreter; its stdout."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_docs_load_on_first_read_only():
    """Importing the module, building an enum and a record load no doc text; a `__doc__` does."""
    out = _python("""
        import sys
        import cudagen.driver as d
        a = "cudagen._driver_docs" in sys.modules
        d.CUresult.CUDA_SUCCESS, d.CUDA_MEMCPY2D()
        b = "cudagen._driver_docs" in sys.modules
        d.CUresult.CUDA_SUCCESS.__doc__
        print(a, b, "cudagen._driver_docs" in sys.modules)
    """)
    assert out.split() == ["False", "False", "True"]


# ---------------------------------------------------------------- handles for NVIDIA's helpers


# handle classes of every CUDA 12.x and 13.x header (the generated lists have more)
_KNOWN_HANDLES = {driver: ("CUcontext", "CUstream", "CUevent", "CUmodule", "CUfunction", "CUkernel", "CUlibrary", "CUgraph",
                           "CUgraphNode", "CUgraphExec", "CUmemoryPool", "CUdevice", "CUdeviceptr", "EGLImageKHR"),
                  nvrtc: ("nvrtcProgram",)}


def _native_classes():
    """(module, class name) of the classes registered with NVIDIA's helper."""
    return sorted({(mod, name) for mod in MODULES for name in getattr(mod, "_NATIVE_HANDLES", "").split() + list(_KNOWN_HANDLES[mod])},
                  key=lambda x: (x[0].__name__, x[1]))


def test_native_handle_classes_are_the_handles():
    """The classes registered with NVIDIA's helper: every handle class and the `void *` interop
    aliases."""
    for mod, known in _KNOWN_HANDLES.items():
        names = set(mod._NATIVE_HANDLES.split())
        assert set(known) <= names and "cuuint32_t" not in names and "CUhostFn" not in names


@pytest.mark.parametrize("mod, name", _native_classes(), ids=lambda x: x if isinstance(x, str) else "")
def test_int_and_get_ptr_as_nvidias(mod, name):
    """`int()` is the C value, `getPtr()` the address of the C value (stable per object), as in
    NVIDIA's class of the same name."""
    cls = getattr(mod, name)
    h = cls(5)
    assert int(h) == 5
    addr = h.getPtr()
    assert addr == h.getPtr() and addr != cls(5).getPtr()
    assert ctypes.c_uint32.from_address(addr).value == 5  # the low word of the C value
    theirs = getattr(_nvidia(mod.__name__.split(".")[-1]) or object(), name, None)
    if theirs is not None:
        t = theirs(5)
        assert int(t) == 5 and ctypes.c_uint32.from_address(t.getPtr()).value == 5


# stand-ins of NVIDIA's `cuda.bindings.utils`: with a registry (12.9, 13.3) and without (13.0)
_REGISTRY = '''
_handle_getters = {}
def _add_cuda_native_handle_getter(t, getter):
    _handle_getters[t] = getter
def get_cuda_native_handle(obj):
    try:
        getter = _handle_getters[type(obj)]
    except KeyError:
        raise TypeError("Unknown type: " + str(type(obj))) from None
    return getter(obj)
'''
_FUNCTION = '''
def get_cuda_native_handle(obj):
    raise TypeError("Unknown type: " + str(type(obj)))
'''

_CHECK = """
    import sys
    order = %r
    if order == "before":
        import cuda.bindings.utils as u
        import cudagen
    else:
        import cudagen
        assert not [m for m in sys.modules if m.startswith("cuda.bindings")], sorted(sys.modules)
        import cuda.bindings.utils as u
    from cudagen import driver, nvrtc
    from cuda.bindings.utils import get_cuda_native_handle as g
    for mod, name in %r:
        for v in (0, 5, 2**31 - 1):
            assert g(getattr(sys.modules[mod], name)(v)) == v, name
    assert g(driver.CUstream(2**64 - 1)) == 2**64 - 1
    try:
        g(object())
        raise SystemExit("an unknown type was accepted")
    except TypeError as e:
        assert "Unknown type" in str(e)
    print("ok")
"""


def _check(order):
    return _CHECK % (order, [(m.__name__, n) for m, n in _native_classes()])


def _stand_in(tmp_path, body):
    """A folder holding a `cuda.bindings.utils` whose body is ``body`` (first on the path)."""
    pkg = tmp_path / "cuda" / "bindings" / "utils"
    pkg.mkdir(parents=True)
    (tmp_path / "cuda" / "__init__.py").write_text("")
    (tmp_path / "cuda" / "bindings" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text(body)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])
    return env


@pytest.mark.parametrize("shape", ["registry", "function"])
@pytest.mark.parametrize("order", ["before", "after"])
def test_get_cuda_native_handle_takes_our_handles(tmp_path, shape, order):
    """NVIDIA's helper (stand-in) imported before or after cudagen returns our handles' C
    values; importing cudagen imports nothing of `cuda.*`."""
    env = _stand_in(tmp_path, _REGISTRY if shape == "registry" else _FUNCTION)
    assert _python(_check(order), env).startswith("ok")


@pytest.mark.parametrize("order", ["before", "after"])
def test_get_cuda_native_handle_of_the_installed_cuda_bindings(order):
    """The same with NVIDIA's own package, where it has the helper (12.9.5, 13.x)."""
    utils = pytest.importorskip("cuda.bindings.utils")
    if not hasattr(utils, "get_cuda_native_handle"):
        pytest.skip("this cuda.bindings has no get_cuda_native_handle")
    assert _python(_check(order)).startswith("ok")


def test_nvidias_registered_classes_are_ours_too():
    """Every driver and NVRTC class NVIDIA registers with its helper is a class of ours that it
    takes (its runtime module's classes are not ours)."""
    utils = pytest.importorskip("cuda.bindings.utils")
    getters = getattr(utils, "_handle_getters", None)
    if not isinstance(getters, dict):
        pytest.skip("this cuda.bindings has no registry of handle getters")
    _nvidia("driver"), _nvidia("nvrtc")
    theirs = {t.__name__ for t in getters if t.__module__ in ("cuda.bindings.driver", "cuda.bindings.nvrtc")}
    ours = {n for _, n in _native_classes()}
    # a class of a newer cuda.bindings than our headers (CUcoredumpCallbackHandle, 13.1) is not ours
    import cudagen.driver
    import cudagen.nvrtc

    missing = {n for n in theirs - ours if hasattr(cudagen.driver, n) or hasattr(cudagen.nvrtc, n)}
    assert theirs & ours and not missing, missing
    for mod, name in _native_classes():
        assert utils.get_cuda_native_handle(getattr(mod, name)(9)) == 9


def test_importing_cudagen_imports_no_cuda_bindings():
    """Nothing of NVIDIA's package is imported by `import cudagen` (it may not be installed; its
    wheel's `.pth` file imports the `cuda` namespace at startup, so only `cuda.bindings` counts)."""
    out = _python("""
        import sys
        import cudagen, cudagen.driver, cudagen.nvrtc
        cudagen.driver.CUresult.CUDA_SUCCESS.__doc__
        print(sorted(m for m in sys.modules if m.startswith("cuda.bindings")))
    """)
    assert out.strip() == "[]"
