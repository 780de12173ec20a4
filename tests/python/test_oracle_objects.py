"""Object behaviour users see, next to NVIDIA's cuda.bindings where it is the reference (no GPU):
C tag names, typedef classes, how records print, range-checked field setters, kernelParams.
The pair compared is test_oracle's (`CUDAGEN_ORACLE_*`)."""

import ctypes
import gc
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from test_oracle import OURS, _ours, _theirs, oracle_major_minor, oracle_or_skip

driver = _ours("driver")
# CUDA_VERSION the fake drivers report: the pair's, so no entry of its headers is too new
FAKE_VERSION = "-DVERSION=%d" % (oracle_major_minor()[0] * 1000 + oracle_major_minor()[1] * 10)
IMPORT = "import importlib; driver = importlib.import_module(%r)" % (OURS + ".driver")


def _oracle():
    oracle_or_skip()
    return _theirs("driver")


# ------------------------------------------------------------------------- names and classes


def test_tag_names_are_the_record_classes():
    assert driver.CUDA_MEMCPY2D_st is driver.CUDA_MEMCPY2D
    assert driver.CUlaunchAttributeValue_union is driver.CUlaunchAttributeValue
    assert driver.CUuuid_st is driver.CUuuid
    theirs = _oracle()
    tags = [k for k in dir(theirs) if k.endswith(("_st", "_union")) and isinstance(getattr(theirs, k), type)]
    missing = [k for k in tags if not hasattr(driver, k) and "egl" not in k.lower()]
    assert len(tags) > 70 and not missing, missing


TYPEDEFS = [("cuuint32_t", 32, False), ("cuuint64_t", 64, False), ("CUoccupancyB2DSize", 64, True),
            ("CUhostFn", 64, True), ("CUstreamCallback", 64, True), ("CUasyncCallback", 64, True),
            ("CUlogsCallback", 64, True)]


@pytest.mark.parametrize("name,bits,pointer", TYPEDEFS)
def test_typedef_classes_behave_like_the_oracle(name, bits, pointer):
    ours = getattr(driver, name)
    theirs = getattr(_oracle(), name)
    for v in (0, 77, (1 << bits) - 1):
        a, b = ours(v), theirs(v)
        assert repr(a) == repr(b) and int(a) == int(b) == v
        # getPtr is the address of the C value
        ct = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64
        assert ct.from_address(a.getPtr()).value == v
    assert repr(ours()) == repr(theirs()) == ("<%s 0x0>" if pointer else "<%s 0>") % name
    assert int(ours(5.7)) == int(theirs(5.7)) == 5
    if pointer:  # callback and pointer classes are indexes (`hex(cb)`), as the oracle's are
        assert hex(ours(77)) == hex(theirs(77)) == "0x4d"
    for bad in (-1, 1 << bits):
        for cls in (ours, theirs):
            with pytest.raises(OverflowError):
                cls(bad)
    for bad in ("x", b"1", lambda: 0):
        with pytest.raises(TypeError):
            ours(bad)


def test_integer_typedefs_are_accepted_where_ints_are():
    import operator

    assert operator.index(driver.cuuint64_t(9)) == 9 and [0, 1, 2, 3][driver.cuuint32_t(3)] == 3


# ------------------------------------------------------------------------- printing


def _shape(text):
    """(indent, field name) of each line of a printed record (cuda.bindings 13 prints a nested
    record whose members are all placeholders, `CUdevWorkqueueResource`, as an empty line)."""
    return [(len(line) - len(line.lstrip()), line.strip().split(" :")[0]) for line in text.splitlines() if line.strip()]


def test_records_print_like_the_oracle():
    theirs = _oracle()
    m = driver.CUDA_MEMCPY2D()
    m.WidthInBytes, m.srcHost = 12, 0x10
    text = str(m)
    assert repr(m) == text and "WidthInBytes : 12" in text.splitlines() and "srcHost : 0x10" in text.splitlines()
    assert str(driver.CUuuid()) == str(theirs.CUuuid()) == "bytes : " + "00" * 16
    # every record the oracle prints has the same lines, nesting, order and default values
    compared, differ = 0, []
    for k in dir(theirs):
        t = getattr(theirs, k)
        o = getattr(driver, k, None)
        if not isinstance(t, type) or not hasattr(o, "_cg_fmt"):
            continue
        try:
            expected = str(t())
        except TypeError:  # a few oracle classes cannot be built without arguments
            continue
        compared += 1
        if _shape(expected) != _shape(str(o())) or expected.split() != str(o()).split():
            differ.append(k)
    # CUlaunchAttribute: cudagen also lists the padding member `pad` (oracle_allowlist.txt);
    # CUmemDecompressParams: cuda.bindings prints the `cuuint32_t *dstActBytes` pointer as a
    # `<cuuint32_t 0>` value, cudagen as the address it is (0x0)
    assert compared > 200 and sorted(differ) == [
        "CUlaunchAttribute", "CUlaunchAttribute_st", "CUmemDecompressParams", "CUmemDecompressParams_st"], differ
    nested = str(driver.CUDA_RESOURCE_DESC()).splitlines()
    assert nested[1] == "res :" and nested[2] == "    array :" and nested[3].startswith("        hArray : <CUarray")


# ------------------------------------------------------------------------- field setters


def test_integer_fields_are_range_checked():
    m = driver.CUDA_MEMCPY2D()
    for bad in (-1, 2**64, 2**70):
        with pytest.raises(OverflowError, match="WidthInBytes"):
            m.WidthInBytes = bad
    m.WidthInBytes = 2**64 - 1
    assert m.WidthInBytes == 2**64 - 1
    with pytest.raises(TypeError, match="CUDA_MEMCPY2D.WidthInBytes"):
        m.WidthInBytes = "1"
    d = driver.CUDA_ARRAY3D_DESCRIPTOR()
    with pytest.raises(OverflowError, match="NumChannels"):
        d.NumChannels = 2**32
    k = driver.CUDA_KERNEL_NODE_PARAMS()
    with pytest.raises(OverflowError):
        k.gridDimX = -1
    # pointers and handles too
    with pytest.raises(OverflowError):
        m.srcHost = -1
    m.srcHost = None
    assert m.srcHost == 0  # NULL reads as 0, as in cuda.bindings
    with pytest.raises(OverflowError):
        m.srcDevice = -5
    m.srcDevice = driver.CUdeviceptr(7)
    assert int(m.srcDevice) == 7
    # keyword construction goes through the same checks
    with pytest.raises(OverflowError):
        driver.CUDA_MEMCPY2D(Height=-1)


class _IntOnly:
    def __int__(self):
        return 7


def test_fields_take_the_numbers_and_none_cuda_bindings_takes():
    # converted as arguments are: an int-like number truncated (`dim3.x = n / 256`), an object
    # with only `__int__`, None for a handle or integer handle (NULL); the same C value as there
    for module, cls, field in (("runtime", "dim3", "x"), ("driver", "CUDA_MEMCPY2D", "WidthInBytes"),
                               ("driver", "CUDA_KERNEL_NODE_PARAMS", "gridDimX")):
        ours, theirs = getattr(_ours(module), cls)(), getattr(_oracle() and _theirs(module), cls)()
        for value in (1000 / 256, 2.0, np.float64(3.9), np.float32(2.5), _IntOnly(), True):
            setattr(ours, field, value)
            setattr(theirs, field, value)
            assert getattr(ours, field) == getattr(theirs, field) == int(value), (cls, field, value)
        with pytest.raises(ValueError, match="%s.%s" % (cls, field)):
            setattr(ours, field, float("nan"))
    for module, cls, field in (("driver", "CUDA_MEMCPY3D", "srcArray"), ("driver", "CUDA_MEMCPY3D", "srcDevice"),
                               ("runtime", "cudaMemcpy3DParms", "srcArray"), ("driver", "CUDA_HOST_NODE_PARAMS", "fn")):
        ours, theirs = getattr(_ours(module), cls)(), getattr(_theirs(module), cls)()
        setattr(ours, field, 5)
        setattr(ours, field, None)
        setattr(theirs, field, None)
        assert int(getattr(ours, field)) == int(getattr(theirs, field)) == 0, (cls, field)


def test_const_twins_are_one_type():
    # `cudaArray_t` where `cudaArray_const_t` goes and back (C converts them; so does
    # cuda.bindings), in record fields and arguments; a handle of another C type is still refused
    rt, theirs = _ours("runtime"), (_oracle() and _theirs("runtime"))
    p = rt.cudaMemcpy3DParms()
    for twin in (rt.cudaArray_const_t(5), theirs.cudaArray_const_t(5), rt.cudaArray_t(5)):
        p.srcArray = twin
        assert int(p.srcArray) == 5 and type(p.srcArray) is rt.cudaArray_t
    assert int(rt.cudaArray_const_t(rt.cudaArray_t(6))) == int(rt.cudaArray_t(rt.cudaArray_const_t(6))) == 6
    with pytest.raises(TypeError, match="cudaMemcpy3DParms.srcArray"):
        p.srcArray = rt.cudaStream_t(5)
    kind = rt.cudaMemcpyKind.cudaMemcpyHostToHost
    for arr in (rt.cudaArray_t(5), rt.cudaArray_const_t(5)):
        err = rt.cudaMemcpy2DFromArray(0, 0, arr, 0, 0, 0, 0, kind)[0]
        assert isinstance(err, rt.cudaError_t)  # converted and called (no driver here: an error status)
    with pytest.raises(TypeError, match="cudaMemcpy2DFromArray"):
        rt.cudaMemcpy2DFromArray(0, 0, rt.cudaMipmappedArray_t(5), 0, 0, 0, 0, kind)


def test_sizeof_is_cuda_bindings_sizeof():
    # `sizeof(objType)` of the tuple modules: the same size for every class both have, and
    # TypeError ("Unknown type") where cuda.bindings raises it (an enum, an instance)
    for module in ("driver", "runtime", "nvrtc"):
        ours, theirs = _ours(module), (_oracle() and _theirs(module))
        compared = 0
        for name in dir(theirs):
            t, o = getattr(theirs, name), getattr(ours, name, None)
            if not isinstance(t, type) or not isinstance(o, type) or name.startswith("_"):
                continue
            try:
                want = theirs.sizeof(t)
            except TypeError:
                if issubclass(o, (ctypes.Structure, ctypes.Union)):
                    # a record cuda.bindings' sizeof forgets (CUstreamMemOpWaitValueParams_st): its C size
                    assert ours.sizeof(o) == ctypes.sizeof(o), name
                    continue
                with pytest.raises(TypeError, match="Unknown type"):
                    ours.sizeof(o)
                continue
            assert ours.sizeof(o) == want, (module, name)
            compared += 1
        assert compared >= {"driver": 200, "runtime": 100, "nvrtc": 1}[module], (module, compared)
    with pytest.raises(TypeError, match="Unknown type"):
        driver.sizeof(driver.CUuuid())
    with pytest.raises(TypeError, match="Unknown type"):
        _ours("nvrtc").sizeof(driver.CUuuid)  # another module's class


def test_pointer_fields_take_buffers_and_records_and_keep_them_alive():
    # cuda.bindings' own tests set `dstHost` to a numpy array: the field holds its data address
    m = driver.CUDA_MEMCPY3D()
    a = np.arange(4, dtype=np.float32)
    m.dstHost = a
    assert m.dstHost == a.__array_interface__["data"][0]
    b = bytearray(8)
    m.srcHost = b
    assert m.srcHost == ctypes.addressof(ctypes.c_char.from_buffer(b))
    del a, b
    # kept while the record lives, also when set through a nested record's short-lived view
    p = driver.CUgraphNodeParams()
    p.memcpy.copyParams.dstHost = np.full(4096, 2, dtype=np.uint8)
    gc.collect()
    junk = [np.zeros(4096, dtype=np.uint8) for _ in range(64)]
    got = np.ctypeslib.as_array(ctypes.cast(p.memcpy.copyParams.dstHost, ctypes.POINTER(ctypes.c_uint8)), shape=(4096,))
    assert (got == 2).all() and len(junk) == 64
    r = driver.CUDA_MEMCPY2D()
    m.srcHost = r
    assert m.srcHost == r.getPtr()
    with pytest.raises(TypeError, match="srcHost"):
        m.srcHost = 1.5
    with pytest.raises(TypeError, match="read-only"):
        m.dstHost = memoryview(bytearray(4)).toreadonly()


def test_pointer_to_elements_fields_are_lists_of_their_count():
    # cuda.bindings reads `CUgraph *phGraph_out` as a list of `size` graphs (NVIDIA's
    # test_conditional takes phGraph_out[0]); the count field comes from the IR (`fields` pass)
    theirs = _oracle()
    for cls in ("CUDA_CONDITIONAL_NODE_PARAMS", "CUlaunchConfig", "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS"):
        assert getattr(driver, cls)().__getattribute__(
            {"CUDA_CONDITIONAL_NODE_PARAMS": "phGraph_out", "CUlaunchConfig": "attrs"}.get(cls, "extSemArray")) == []
        assert str(getattr(theirs, cls)()).split() == str(getattr(driver, cls)()).split()
    c = driver.CUDA_CONDITIONAL_NODE_PARAMS()
    c.size = 1  # before the driver fills it: `size` empty graphs, as cuda.bindings reads it
    t = theirs.CUDA_CONDITIONAL_NODE_PARAMS()
    t.size = 1
    assert [int(g) for g in c.phGraph_out] == [int(g) for g in t.phGraph_out] == [0]
    graphs = (ctypes.c_void_p * 2)(0x1000, 0x2000)
    c._cg_phGraph_out = ctypes.addressof(graphs)  # as the driver fills it (the raw C field)
    with pytest.raises(AttributeError, match="CUDA_CONDITIONAL_NODE_PARAMS.phGraph_out is read-only"):
        c.phGraph_out = [driver.CUgraph(1)]  # the driver fills it: read-only, as in cuda.bindings
    with pytest.raises(AttributeError):
        t.phGraph_out = [theirs.CUgraph(1)]
    c.size = 2
    got = c.phGraph_out
    assert [type(g).__name__ for g in got] == ["CUgraph", "CUgraph"] and [int(g) for g in got] == [0x1000, 0x2000]
    c.size = 1
    assert [int(g) for g in c.phGraph_out] == [0x1000]
    # set from a list: copied into memory the record keeps, read back up to the count
    cfg = driver.CUlaunchConfig()
    a, b = driver.CUlaunchAttribute(), driver.CUlaunchAttribute()
    a.id, b.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY
    cfg.attrs = [a, b]
    assert cfg.attrs == []  # numAttrs is still 0
    cfg.numAttrs = 5  # more than were set: only the two that exist
    gc.collect()
    assert [x.id for x in cfg.attrs] == [a.id, b.id]
    with pytest.raises(TypeError, match=r"attrs\[1\]"):
        cfg.attrs = [a, 3]
    n = driver.CUDA_EXT_SEM_SIGNAL_NODE_PARAMS()
    n.extSemArray = [driver.CUexternalSemaphore(0x10), 0x20]
    n.numExtSems = 2
    assert [int(h) for h in n.extSemArray] == [0x10, 0x20]
    with pytest.raises(TypeError, match=r"extSemArray\[0\]"):
        n.extSemArray = ["x"]
    with pytest.raises(TypeError, match="extSemArray: expected a list"):
        n.extSemArray = 0x20  # an address is refused, as by cuda.bindings
    n.extSemArray = None
    assert [int(h) for h in n.extSemArray] == [0, 0]


def test_an_unknown_field_name_is_an_error():
    # a ctypes object would keep `val.reserved2 = ...` as a Python attribute and read it back
    for name in ("CUDA_MEMCPY2D", "CUipcMemHandle_st", "CUlaunchAttributeValue"):
        r = getattr(driver, name)()
        with pytest.raises(AttributeError, match="no attribute 'notAField'"):
            r.notAField = 1
        with pytest.raises(AttributeError):
            getattr(driver, name)(notAField=1)
    m = driver.CUDA_MEMCPY2D(WidthInBytes=4)
    m.Height = 2
    assert (m.WidthInBytes, m.Height) == (4, 2)


def test_typedef_fields_read_as_their_class_and_void_pp_as_an_int():
    w = driver.CUstreamMemOpWaitValueParams_st()
    w.value = 7
    assert type(w.value).__name__ == "cuuint32_t" and int(w.value) == 7
    w.value = driver.cuuint32_t(9)
    assert int(w.value) == 9
    with pytest.raises(OverflowError):
        w.value = 1 << 32
    k = driver.CUDA_KERNEL_NODE_PARAMS()
    assert k.kernelParams == 0 and "kernelParams : 0" in str(k).splitlines()
    args = np.array([0x10, 0x20], dtype=np.uint64)
    k.kernelParams = args
    assert k.kernelParams == args.__array_interface__["data"][0]
    assert "extra : 0" in str(k).splitlines() and "func : <CUfunction 0x0>" in str(k).splitlines()


def test_enum_fields_take_members_and_ints_only():
    m = driver.CUDA_MEMCPY2D()
    with pytest.raises(TypeError, match="srcMemoryType"):
        m.srcMemoryType = 1.5
    m.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
    assert m.srcMemoryType is driver.CUmemorytype.CU_MEMORYTYPE_HOST
    with pytest.raises(OverflowError):
        m.srcMemoryType = 2**40


def test_bytes_fields_take_exactly_their_length():
    # as cuda.bindings: exactly N bytes or N C char values, never padded or cut
    theirs = _oracle()
    ours, t = driver.CUlaunchAttributeValue(), theirs.CUlaunchAttributeValue()
    n = len(t.pad)
    assert len(ours.pad) == n >= 16
    for bad in (b"x" * (n + 1), b"bb", [1] * (n - 1), []):
        with pytest.raises(ValueError, match="CUlaunchAttributeValue.pad: expected %d" % n):
            ours.pad = bad
        with pytest.raises(ValueError):
            t.pad = bad
    for good in (b"a" * n, bytearray(b"b" * n), [-1] * n, [2.5] * n, np.ones(n, np.uint8)):
        ours.pad = t.pad = good
        assert ours.pad == t.pad and len(ours.pad) == n, good
    with pytest.raises(TypeError, match="CUlaunchAttributeValue.pad"):
        ours.pad = 3
    with pytest.raises(OverflowError, match=r"CUlaunchAttributeValue.pad\[0\]"):
        ours.pad = [256] * n
    with pytest.raises(OverflowError):
        t.pad = [256] * n


def test_read_only_fields_are_read_only_as_in_cuda_bindings():
    # the fields cuda.bindings gives no setter are the annotated ones (`[read_only_fields]`), in
    # the driver's and the runtime's records; setting one names it and changes nothing
    for module in ("driver", "runtime"):
        ours, theirs = _ours(module), (_oracle() and _theirs(module))
        read_only = set()
        for name in dir(theirs):
            cls = getattr(theirs, name)
            if not isinstance(cls, type) or not hasattr(cls, "getPtr") or not isinstance(getattr(ours, name, None), type):
                continue
            for field in (k for k in dir(cls) if type(getattr(cls, k, None)).__name__ == "getset_descriptor"):
                try:
                    setattr(cls(), field, 0)
                except AttributeError as e:
                    if "not writable" in str(e):
                        read_only.add((getattr(ours, name).__name__, field))
                except Exception:
                    pass
        ours_ro = {(n, f) for n, fields in ours._READ_ONLY.items() for f in fields}
        assert read_only and {(getattr(ours, n).__name__, f) for n, f in ours_ro} == read_only, module
    u = driver.CUuuid()
    with pytest.raises(AttributeError, match="CUuuid.bytes is read-only"):
        u.bytes = b"a" * 16
    assert u.bytes == bytes(16)


def test_list_fields_need_their_length_and_range():
    p = driver.CUdevprop()
    with pytest.raises(ValueError, match="maxThreadsDim"):
        p.maxThreadsDim = [1, 2, 3, 4]
    with pytest.raises(ValueError, match="maxThreadsDim"):
        p.maxThreadsDim = [1, 2]
    with pytest.raises(OverflowError, match="maxThreadsDim"):
        p.maxThreadsDim = [1, 2**40, 3]
    p.maxThreadsDim = [1, -1, 3]
    assert p.maxThreadsDim == [1, -1, 3]


# ------------------------------------------------------------------------- nested records


def _views_and_copies(dr, rt):
    """What a program sees of views and copies with modules ``dr`` (driver) and ``rt``
    (runtime): a nested record is a view, an element read from or set into a fixed array of
    records a copy, an element of the array a pointer field points to a view in cuda.bindings 12
    and a copy from 13 on; every record set is copied in."""
    p = rt.cudaMemcpy3DParms()
    p.srcPos.x = 7  # a view: changes p
    s = p.srcPos
    s.y = 8  # so does a view kept
    view = (p.srcPos.x, p.srcPos.y)
    pos = rt.cudaPos()
    pos.z = 3
    p.srcPos = pos  # copied in
    pos.z = 4
    f = rt.cudaEglFrame()
    x = f.frame.pPitch[0]
    x.pitch = 5  # a copy: the frame keeps 0
    pitch_read = f.frame.pPitch[0].pitch
    f.frame.pPitch = [x, x, x]
    x.pitch = 1234  # copied in: the frame keeps 5
    d = f.planeDesc[1]
    d.width = 9
    desc_read = f.planeDesc[1].width
    f.planeDesc = [d, d, d]
    d.width = 3
    cfg = dr.CUlaunchConfig()
    a = dr.CUlaunchAttribute()
    a.id = dr.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    cfg.attrs = [a, a]
    cfg.numAttrs = 2
    a.id = dr.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY  # copied in
    e = cfg.attrs[0]
    e.id = dr.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PRIORITY  # 12: a view of the array; 13: a copy
    return {"srcPos": view + (p.srcPos.z,), "pPitch read": pitch_read, "pPitch set": [e.pitch for e in f.frame.pPitch],
            "planeDesc read": desc_read, "planeDesc set": [e.width for e in f.planeDesc],
            "attrs": [int(e.id) for e in cfg.attrs]}


def test_nested_records_are_views_and_array_elements_copies_as_in_cuda_bindings():
    ours = _views_and_copies(driver, _ours("runtime"))
    ids = driver.CUlaunchAttributeID
    first = ids.CU_LAUNCH_ATTRIBUTE_PRIORITY if oracle_major_minor()[0] < 13 else ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
    assert ours == {"srcPos": (7, 8, 3), "pPitch read": 0, "pPitch set": [5, 5, 5], "planeDesc read": 0,
                    "planeDesc set": [9, 9, 9], "attrs": [first, ids.CU_LAUNCH_ATTRIBUTE_COOPERATIVE]}
    assert ours == _views_and_copies(_oracle(), _theirs("runtime"))
    f = _ours("runtime").cudaEglFrame()
    with pytest.raises(TypeError, match=r"planeDesc\[1\]: expected cudaEglPlaneDesc, got cudaPitchedPtr"):
        f.planeDesc = [f.planeDesc[0], f.frame.pPitch[0], f.planeDesc[2]]


def _ptr_story(drv, rt):
    """What a pair's records built with ``_ptr=`` see and change in memory they are given."""
    buf = (ctypes.c_uint * 3)(5, 6, 7)
    x = rt.dim3(_ptr=ctypes.addressof(buf))
    out = {"read": (x.x, x.y, x.z), "getPtr": x.getPtr() == ctypes.addressof(buf)}
    x.y = 99
    buf[2] = 42
    out["write"], out["z"] = list(buf), x.z
    out["own"] = (rt.dim3(_ptr=0).getPtr() not in (0, ctypes.addressof(buf)), rt.dim3().getPtr() != 0)
    # nested records of a view are views of the same memory; a driver record too
    raw = (ctypes.c_ubyte * ctypes.sizeof(_ours("runtime").cudaMemcpy3DParms))()
    p = rt.cudaMemcpy3DParms(_ptr=ctypes.addressof(raw))
    p.srcPos.x, p.extent.depth, p.kind = 7, 3, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
    out["nested"] = bytes(raw).hex()
    raw2 = (ctypes.c_ubyte * ctypes.sizeof(driver.CUDA_MEMCPY2D))()
    m = drv.CUDA_MEMCPY2D(_ptr=ctypes.addressof(raw2))
    m.srcXInBytes, m.WidthInBytes = 11, 12
    out["driver"] = (bytes(raw2).hex(), m.getPtr() == ctypes.addressof(raw2))
    # what `_ptr` takes: an int, a float truncated, an object of the module's CUdeviceptr
    out["takes"] = (rt.dim3(_ptr=1.5).getPtr(), rt.dim3(_ptr=drv.CUdeviceptr(4096)).getPtr())
    refused = []
    for bad in (None, -1, 1 << 64, "1"):
        try:
            rt.dim3(_ptr=bad)
            refused.append("taken")
        except (TypeError, OverflowError) as e:
            refused.append(type(e).__name__)
    out["refused"] = refused
    return out


def test_a_record_built_with_ptr_views_that_memory_as_in_cuda_bindings():
    ours = _ptr_story(driver, _ours("runtime"))
    assert ours["read"] == (5, 6, 7) and ours["write"] == [5, 99, 42] and ours["z"] == 42 and ours["getPtr"]
    assert ours["refused"] == ["TypeError", "OverflowError", "OverflowError", "TypeError"]
    assert ours == _ptr_story(_oracle(), _theirs("runtime"))
    # field values given with `_ptr` are written there; the record cannot move afterwards
    buf = (ctypes.c_uint * 3)()
    x = _ours("runtime").dim3(_ptr=ctypes.addressof(buf), x=4)
    assert list(buf) == [4, 0, 0]
    with pytest.raises(AttributeError, match=r"dim3\._ptr is read-only"):
        x._ptr = 8


_DEVPTR = """
@IMPORT@
import importlib
runtime = importlib.import_module(%r)
theirs = importlib.import_module("cuda.bindings.driver") if "theirs" in sys.argv else None
runtime.cudaMemset(driver.CUdeviceptr(0x1000), 0, 0)
if theirs is not None:
    runtime.cudaMemset(theirs.CUdeviceptr(0x2000), 0, 0)
runtime.cudaMemcpy(driver.CUdeviceptr(0x3000), b"ab", 2, runtime.cudaMemcpyKind.cudaMemcpyHostToDevice)
"""


def test_a_device_pointer_object_is_its_address_where_a_void_pointer_goes(tmp_path):
    """cuda.bindings takes a driver ``CUdeviceptr`` where the runtime's ``void *`` goes (NVIDIA's
    test_interop_deviceptr: cudaMemset on a cuMemAlloc address), as the address it holds; the
    trace shows what reached the library."""
    rt_theirs = _theirs("runtime")
    th = _oracle()
    assert isinstance(rt_theirs.cudaMemset(th.CUdeviceptr(0x1000), 0, 0), tuple)  # taken (no GPU: an error status)
    import cuda.bindings

    if cuda.bindings.__version__.startswith("12."):  # 13.x takes any handle there (its int value)
        with pytest.raises(TypeError):
            rt_theirs.cudaMemset(th.CUstream(0x1000), 0, 0)
    trace = tmp_path / "trace"
    env = dict(os.environ, CUDAGEN_TRACE="1", CUDAGEN_TRACE_FILE=str(trace))
    script = "import sys\n" + _DEVPTR.replace("@IMPORT@", IMPORT) % (OURS + ".runtime")
    p = subprocess.run([sys.executable, "-c", script, "theirs"], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    text = trace.read_text()
    for line in ("cudaMemset(devPtr=0x1000,", "cudaMemset(devPtr=0x2000,", "cudaMemcpy(dst=0x3000,"):
        assert line in text, text


def _where(rec, root):
    """"view" where record ``rec`` lies in the memory of record ``root`` (an ``(address, size)``
    pair), "copy" elsewhere."""
    return "view" if root[0] <= rec.getPtr() < root[0] + root[1] else "copy"


def _handed_out(ours, theirs, roots, path=""):
    """``(field path, ours, theirs)`` for each record or list of records a field of the pair
    hands out, as `_where` each is in its root (``roots``: ours', theirs'); views are walked."""
    out = []
    for name in type(ours)._cg_names:
        a = getattr(ours, name)
        try:
            b = getattr(theirs, name)
        except Exception:  # the oracle cannot read it on an empty record
            continue
        if isinstance(a, (ctypes.Structure, ctypes.Union)):
            kinds = (_where(a, roots[0]), _where(b, roots[1]))
            out.append((path + name,) + kinds)
            if kinds == ("view", "view"):
                out.extend(_handed_out(a, b, roots, path + name + "."))
        elif isinstance(a, list) and a and isinstance(a[0], (ctypes.Structure, ctypes.Union)):
            out.append((path + name, [_where(x, roots[0]) for x in a], [_where(x, roots[1]) for x in b]))
    return out


def test_every_record_a_field_hands_out_is_a_view_or_a_copy_as_in_cuda_bindings():
    # every record class of both modules, empty: its nested records, walked, and its fixed arrays
    # of records lie where the oracle's do (views inside the record, copies outside)
    found, differ, seen = [], [], set()
    for module in ("driver", "runtime"):
        ours, theirs = _ours(module), (_oracle() and _theirs(module))
        for name in sorted(dir(theirs)):
            t, o = getattr(theirs, name), getattr(ours, name, None)
            if not isinstance(t, type) or not hasattr(o, "_cg_names") or id(o) in seen:
                continue
            try:
                b = t()
            except TypeError:  # a few oracle classes cannot be built without arguments
                continue
            seen.add(id(o))
            a = o()
            for path, x, y in _handed_out(a, b, ((a.getPtr(), ctypes.sizeof(a)), (b.getPtr(), ctypes.sizeof(a)))):
                found.append((module, name, path, x))
                if x != y:
                    differ.append((module, name, path, x, y))
    copies = {(m, n, p) for m, n, p, x in found if isinstance(x, list) and "copy" in x}
    assert len(found) > 100 and {("runtime", "cudaEglFrame", "frame.pPitch"), ("runtime", "cudaEglFrame", "planeDesc")} <= copies
    assert not differ, differ


# ------------------------------------------------------------------------- kernelParams


def _launch(params):
    return driver.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)


@pytest.mark.parametrize("bad,exc,what", [
    (np.ones((2, 2)), ValueError, "1-D"),
    (np.ones((2, 2), dtype=np.intp), ValueError, "2-D"),
    (memoryview(b"abc"), TypeError, "1-byte items"),
    (np.zeros(3, dtype=np.int32), TypeError, "4-byte items"),
    (np.zeros((1, 1, 1)), ValueError, "3-D"),
    (b"12345678", TypeError, "kernelParams"),
    (((b"ab",), (ctypes.c_char,)), ValueError, "1 byte"),
    ((("ab",), (ctypes.c_wchar,)), ValueError, "1 character"),
    (((1.5,), (ctypes.c_char,)), TypeError, "kernelParams"),
])
def test_kernel_params_reject_bad_buffers_and_values(bad, exc, what):
    with pytest.raises(exc, match="cuLaunchKernel.*kernelParams") as e:
        _launch(bad)
    assert what in str(e.value)


# every ctypes scalar type (the ctypes table the kernel-arguments documentation points to)
SCALARS = [
    ("c_bool", True), ("c_char", b"z"), ("c_wchar", "\u20ac"), ("c_byte", -5), ("c_ubyte", 200),
    ("c_short", -300), ("c_ushort", 60000), ("c_int", -70000), ("c_uint", 4000000000),
    ("c_long", -(2**40)), ("c_ulong", 2**63 + 5), ("c_longlong", -(2**41)), ("c_ulonglong", 2**64 - 2),
    ("c_size_t", 2**50), ("c_ssize_t", -(2**50)), ("c_float", 1.5), ("c_double", -2.25),
    ("c_longdouble", 3.125), ("c_void_p", 0x1234), ("c_int8", -7), ("c_uint8", 7), ("c_int16", -7),
    ("c_uint16", 7), ("c_int32", -7), ("c_uint32", 7), ("c_int64", -7), ("c_uint64", 7),
]

_FAKE = r"""
#include <stdint.h>
#include <string.h>
/* Records the bytes each kernelParams entry points at; every other entry fails. */
unsigned char fake_params[64][16];
int fake_sizes[64];
int fake_count;
static int stub(void) { return 1; }
int cuDriverGetVersion(int *v) { *v = VERSION; return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shm, void *stream, void **kp, void **extra) {
    for (int i = 0; i < fake_count; i++) memcpy(fake_params[i], kp[i], fake_sizes[i]);
    return 0;
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    *pfn = !strcmp(sym, "cuLaunchKernel") ? (void *)cuLaunchKernel
         : !strcmp(sym, "cuDriverGetVersion") ? (void *)cuDriverGetVersion : (void *)stub;
    if (status) *status = 0;
    return 0;
}
"""

_SCRIPT = r"""
import ctypes, json, os, sys
@IMPORT@
names, values, wrapped = json.loads(sys.argv[1])
values = [v.encode("latin-1") if n == "c_char" else v for n, v in zip(names, values)]
types = [getattr(ctypes, n) for n in names]
if wrapped:  # each value given as an instance of its ctypes type (`c_void_p(0x1234)`)
    values = [t(v) for t, v in zip(types, values)]
fake = ctypes.CDLL(os.environ["CUDAGEN_LIBCUDA"])
sizes = (ctypes.c_int * 64).in_dll(fake, "fake_sizes")
for i, t in enumerate(types):
    sizes[i] = min(ctypes.sizeof(t), 10 if t is ctypes.c_longdouble else 16)
ctypes.c_int.in_dll(fake, "fake_count").value = len(types)
err, = driver.cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, (tuple(values), tuple(types)), 0)
rec = (ctypes.c_ubyte * 16 * 64).in_dll(fake, "fake_params")
print(json.dumps([int(err)] + [bytes(rec[i])[: sizes[i]].hex() for i in range(len(types))]))
"""


@pytest.mark.parametrize("wrapped", [False, True], ids=["python values", "ctypes instances"])
def test_kernel_params_pack_every_ctypes_scalar(tmp_path, wrapped):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    (tmp_path / "fake.c").write_text(_FAKE)
    lib = tmp_path / "libcuda.so.1"
    subprocess.run([gcc, "-shared", "-fPIC", FAKE_VERSION, "-o", str(lib), str(tmp_path / "fake.c")], check=True)
    names = [n for n, _ in SCALARS]
    values = [v.decode("latin-1") if isinstance(v, bytes) else v for _, v in SCALARS]
    env = dict(os.environ, CUDAGEN_LIBCUDA=str(lib))
    p = subprocess.run([sys.executable, "-c", _SCRIPT.replace("@IMPORT@", IMPORT), json.dumps([names, values, wrapped])], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    err, *got = json.loads(p.stdout)
    assert err == 0
    for (name, value), hexbytes in zip(SCALARS, got):
        t = getattr(ctypes, name)
        n = min(ctypes.sizeof(t), 10 if t is ctypes.c_longdouble else 16)
        assert hexbytes == bytes(t(value))[:n].hex(), name


# ------------------------------------------------------------------------- query by count 0

_FAKE_SPLIT = r"""
#include <stdint.h>
#include <string.h>
/* Records whether the result array came as NULL; a NULL array is asked for the count (5). */
int seen_null = -1;
static int stub(void) { return 1; }
int cuDriverGetVersion(int *v) { *v = VERSION; return 0; }
static int split(void *result, unsigned *nb, const void *input, void *rem, unsigned flags, unsigned min) {
    (void)input; (void)rem; (void)flags; (void)min;
    seen_null = result == 0;
    if (result == 0) *nb = 5;
    return 0;
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    *pfn = !strcmp(sym, "cuDevSmResourceSplitByCount") ? (void *)split
         : !strcmp(sym, "cuDriverGetVersion") ? (void *)cuDriverGetVersion : (void *)stub;
    if (status) *status = 0;
    return 0;
}
"""

_SPLIT = r"""
import ctypes, os
@IMPORT@
fake = ctypes.CDLL(os.environ["CUDAGEN_LIBCUDA"])
for n in (0, 2):
    err, res, count, rem = driver.cuDevSmResourceSplitByCount(n, driver.CUdevResource(), 0, 2)
    print(int(err), len(res), int(count), ctypes.c_int.in_dll(fake, "seen_null").value)
"""


def test_a_count_of_zero_asks_for_the_count(tmp_path):
    # NVIDIA's test_cuDeviceGetDevResource: cuDevSmResourceSplitByCount(0, ...) must pass a NULL
    # result array (the driver then reports the group count), a nonzero count a real array.
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    (tmp_path / "fake.c").write_text(_FAKE_SPLIT)
    lib = tmp_path / "libcuda.so.1"
    subprocess.run([gcc, "-shared", "-fPIC", FAKE_VERSION, "-o", str(lib), str(tmp_path / "fake.c")], check=True)
    p = subprocess.run([sys.executable, "-c", _SPLIT.replace("@IMPORT@", IMPORT)], env=dict(os.environ, CUDAGEN_LIBCUDA=str(lib)),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["0 0 5 1", "0 2 2 0"], p.stdout


# ------------------------------------------------------------------------- placeholders, NULL


def test_placeholder_members_follow_the_oracle():
    # cuda.bindings 13 leaves `reserved`-style members out of its classes, 12.x shows them; the
    # C layout keeps them either way
    theirs = _oracle()
    assert hasattr(driver.CUipcMemHandle(), "reserved") == hasattr(theirs.CUipcMemHandle(), "reserved")
    assert ctypes.sizeof(driver.CUipcMemHandle) == 64
    m = driver.CUDA_MEMCPY3D()
    assert ("reserved0" in str(m)) == ("reserved0" in str(theirs.CUDA_MEMCPY3D()))


def test_char_array_elements_take_both_signs_as_the_oracle():
    # NVIDIA's test_char_range: a plain `char[N]` element takes -128..255 (stored mod 256)
    theirs = _oracle()
    if not hasattr(theirs.CUipcMemHandle(), "reserved"):
        pytest.skip("the oracle's CUipcMemHandle has no reserved member (13.x)")
    for x in (-129, -128, -1, 0, 127, 128, 255, 256):
        outcome = []
        for m in (driver, theirs):
            h = m.CUipcMemHandle()
            try:
                h.reserved = [x] * 64
                outcome.append(bytes(h.reserved))
            except OverflowError:
                outcome.append(OverflowError)
        assert outcome[0] == outcome[1], (x, outcome)


_FAKE_CREATE = r"""
#include <stdint.h>
#include <string.h>
/* cuCtxCreate_v4 records whether its params pointer was NULL. */
int seen_null = -1;
static int stub(void) { return 1; }
int cuDriverGetVersion(int *v) { *v = VERSION; return 0; }
static int create(void **pctx, void *params, unsigned flags, int dev) {
    (void)flags; (void)dev;
    seen_null = params == 0;
    *pctx = (void *)0x1234;
    return 0;
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    *pfn = !strcmp(sym, "cuCtxCreate") && ver >= 12050 ? (void *)create
         : !strcmp(sym, "cuDriverGetVersion") ? (void *)cuDriverGetVersion : (void *)stub;
    if (status) *status = 0;
    return 0;
}
"""

_CREATE = r"""
import ctypes, inspect, os
@IMPORT@
fake = ctypes.CDLL(os.environ["CUDAGEN_LIBCUDA"])
# cuCtxCreate from 13.0 on, cuCtxCreate_v4 in 12.5 ... 12.9
fn = next(getattr(driver, n) for n in ("cuCtxCreate", "cuCtxCreate_v4")
          if "ctxCreateParams" in inspect.signature(getattr(driver, n)).parameters)
for params in (None, driver.CUctxCreateParams()):
    err, ctx = fn(params, 0, 0)
    print(int(err), hex(int(ctx)), ctypes.c_int.in_dll(fake, "seen_null").value)
"""


def test_context_create_params_may_be_none(tmp_path):
    # cuda.bindings 13's cuCtxCreate(None, flags, dev): "Can be NULL to create a regular context"
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    (tmp_path / "fake.c").write_text(_FAKE_CREATE)
    lib = tmp_path / "libcuda.so.1"
    subprocess.run([gcc, "-shared", "-fPIC", FAKE_VERSION, "-o", str(lib), str(tmp_path / "fake.c")], check=True)
    p = subprocess.run([sys.executable, "-c", _CREATE.replace("@IMPORT@", IMPORT)], env=dict(os.environ, CUDAGEN_LIBCUDA=str(lib)),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["0 0x1234 1", "0 0x1234 0"], p.stdout
