"""Values that real programs pass, accepted as NVIDIA's cuda.bindings accepts them, with the same
C value reaching the library (issue #22: integers from floats, NVIDIA's runtime and driver handle
objects, `_ptr=` construction, a CUkernel where a CUfunction goes, list arguments and the lists
cuStreamGetCaptureInfo returns, None for a record pointer). No GPU: each case runs in a
subprocess against a fake libcuda (built here with gcc) that records the argument registers of
the last call, and runs once with cuda.bindings and once with cudagen; the two records must agree.

Differences kept on purpose (each asserted below):
- cudagen refuses a handle object of another C type (a `cudaEvent_t` where a `CUstream` goes, a
  `CUstream` where a `CUfunction` goes); cuda.bindings converts any handle with `int()`.
- cudagen refuses a float, bool, enum member or numpy integer where a pointer handle goes
  (`CUstream`, `CUfunction`): an address has no such form. Integer handles (`CUdevice`,
  `CUdeviceptr`) take floats as cuda.bindings does.
- cudagen also takes objects that have only `__index__` (cuda.bindings' Cython conversion reads
  `__int__` alone): `__index__` is Python's lossless integer protocol.

The pair compared follows `CUDAGEN_ORACLE_THEIRS` / `CUDAGEN_ORACLE_OURS` as in test_oracle.py
(`cargo xtask python13` runs this file against cuda-bindings 13.x). Run as a script
(`python test_clients.py run <fake> <package> <case>`) this file is the subprocess.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
THEIRS = os.environ.get("CUDAGEN_ORACLE_THEIRS") or "cuda.bindings"
OURS = os.environ.get("CUDAGEN_ORACLE_OURS") or "cudagen"

FAKE_CUDA = r"""
#include <stdint.h>
#include <string.h>
/* Every entry records its integer argument registers and stack words (x86-64 SysV: six in
   registers, the rest on the stack; float arguments go to xmm registers and are not counted),
   copies `fake_deref[i]` words from the address in argument i, stores `fake_write[i]`
   (`fake_write_bytes[i]` bytes) at the address in argument i, and returns `fake_status`. */
uint64_t fake_args[12];
uint64_t fake_mem[12][8];
int fake_deref[12];
uint64_t fake_write[12];
int fake_write_bytes[12];
uint64_t fake_array[8];
uint64_t fake_array2[8];
int fake_calls;
int fake_status = 1;
static int stub(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
                double f0, double f1, double f2, double f3, double f4, double f5, double f6, double f7,
                uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3, uint64_t s4, uint64_t s5) {
    uint64_t a[12] = {a0, a1, a2, a3, a4, a5, s0, s1, s2, s3, s4, s5};
    (void)f0; (void)f1; (void)f2; (void)f3; (void)f4; (void)f5; (void)f6; (void)f7;
    memcpy(fake_args, a, sizeof a);
    for (int i = 0; i < 12; i++) {
        memset(fake_mem[i], 0, sizeof fake_mem[i]);
        if (fake_deref[i] && a[i]) memcpy(fake_mem[i], (void *)a[i], 8 * (size_t)fake_deref[i]);
        if (fake_write_bytes[i] && a[i]) memcpy((void *)a[i], &fake_write[i], (size_t)fake_write_bytes[i]);
    }
    fake_calls++;
    return fake_status;
}
int cuDriverGetVersion(int *v) { if (v) *v = VERSION; return 0; }
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status);
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags) {
    return cuGetProcAddress_v2(sym, pfn, ver, flags, 0);
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    (void)flags; (void)ver;
    if (!pfn) return 1;
    if (!strcmp(sym, "cuGetProcAddress")) *pfn = (void *)cuGetProcAddress_v2;
    else if (!strcmp(sym, "cuDriverGetVersion")) *pfn = (void *)cuDriverGetVersion;
    else *pfn = (void *)stub;
    if (status) *status = 0;
    return 0;
}
"""


# ------------------------------------------------------------------------- the subprocess side


class _Fake:
    """The recording fake, seen through ctypes."""

    def __init__(self, path):
        import ctypes

        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        u64, c_int = ctypes.c_uint64, ctypes.c_int
        self.args = (u64 * 12).in_dll(self.lib, "fake_args")
        self.mem = ((u64 * 8) * 12).in_dll(self.lib, "fake_mem")
        self.deref = (c_int * 12).in_dll(self.lib, "fake_deref")
        self.write = (u64 * 12).in_dll(self.lib, "fake_write")
        self.write_bytes = (c_int * 12).in_dll(self.lib, "fake_write_bytes")
        self.array = (u64 * 8).in_dll(self.lib, "fake_array")
        self.array2 = (u64 * 8).in_dll(self.lib, "fake_array2")
        self.calls = c_int.in_dll(self.lib, "fake_calls")
        self.status = c_int.in_dll(self.lib, "fake_status")

    def call(self, fn, *args, deref=None, write=None, status=1, **kw):
        """["call", registers, {arg: words read there}, summary of the result] when `fn` reached
        the library, ["refused", exception class, message] when it raised, ["none", summary]
        when it returned without calling."""
        for i in range(12):
            self.deref[i], self.write[i], self.write_bytes[i] = 0, 0, 0
        for i, n in (deref or {}).items():
            self.deref[i] = n
        for i, (v, n) in (write or {}).items():
            self.write[i], self.write_bytes[i] = v, n
        self.status.value = status
        before = self.calls.value
        try:
            r = fn(*args, **kw)
        except Exception as e:
            return ["refused", type(e).__name__, str(e)]
        if self.calls.value == before:
            return ["none", _summary(r)]
        mem = {str(i): list(self.mem[i][:n]) for i, n in (deref or {}).items()}
        return ["call", list(self.args), mem, _summary(r)]


def _summary(r):
    """The result tuple as JSON: ints for handles and enum members, lists of them."""
    if isinstance(r, tuple):
        return [_summary(x) for x in r]
    if isinstance(r, list):
        return [_summary(x) for x in r]
    if r is None or isinstance(r, (bool, str)):
        return r
    try:
        return int(r)
    except Exception:
        return type(r).__name__


def _modules(package):
    import importlib

    theirs_driver = importlib.import_module(THEIRS + ".driver")
    runtime = importlib.import_module(THEIRS + ".runtime")
    return importlib.import_module(package + ".driver"), theirs_driver, runtime


class _Idx:
    def __index__(self):
        return 7


class _IntOnly:
    def __int__(self):
        return 7


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _floats():
    import numpy as np
    from decimal import Decimal
    from fractions import Fraction

    return [("2.7", 2.7), ("-2.7", -2.7), ("-1.0", -1.0), ("4.9", (1000 + 255) / 256), ("np.float64", np.float64(3.9)),
            ("np.float32", np.float32(2.2)), ("np.float16", np.float16(1.5)), ("Fraction", Fraction(7, 2)),
            ("Decimal", Decimal("3.7")), ("IntOnly", _IntOnly()), ("nan", float("nan")), ("inf", float("inf")),
            ("1e30", 1e30), ("2**32 as float", 4294967296.0), ("str", "3"), ("None", None), ("complex", 1 + 0j)]


@case
def integers(fake, d, nd, rt):
    """Integer parameters of every width and sign, a CUdevice and a CUdeviceptr given floats and
    objects with `__int__` (Cython's integer conversion); `cuLaunchKernel`'s grid from `/`."""
    out = {}
    attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    for name, v in _floats():
        out["cuDeviceGet.ordinal " + name] = fake.call(d.cuDeviceGet, v)
        out["cuMemAlloc.bytesize " + name] = fake.call(d.cuMemAlloc, v)
        out["cuCtxSetLimit.value " + name] = fake.call(d.cuCtxSetLimit, d.CUlimit.CU_LIMIT_STACK_SIZE, v)
        out["cuDeviceGetAttribute.dev " + name] = fake.call(d.cuDeviceGetAttribute, attr, v)
        out["cuMemsetD8.dstDevice " + name] = fake.call(d.cuMemsetD8, v, 1, 1)
        out["cuMemsetD8.uc " + name] = fake.call(d.cuMemsetD8, 0, v, 1)
        out["cuLaunchKernel.gridDimX " + name] = fake.call(d.cuLaunchKernel, 0, v, 1, 1, 32, 1, 1, 0, 0, None, 0)
        out["cuLaunchKernel.sharedMemBytes " + name] = fake.call(d.cuLaunchKernel, 0, 1, 1, 1, 32, 1, 1, v, 0, None, None)
    return out


@case
def index_only(fake, d, nd, rt):
    """An object with only `__index__`: taken by cudagen (not by cuda.bindings)."""
    return {"cuDeviceGet": fake.call(d.cuDeviceGet, _Idx()), "cuMemAlloc": fake.call(d.cuMemAlloc, _Idx())}


@case
def pointer_handles_refuse_numbers(fake, d, nd, rt):
    """A float, bool or enum member where a pointer handle goes (cudagen refuses them)."""
    e = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    return {name: fake.call(d.cuStreamQuery, v) for name, v in [("2.0", 2.0), ("True", True), ("enum", e)]}


def _foreign(nd, rt):
    """NVIDIA's handle objects, each with its value."""
    return {
        "runtime.cudaStream_t": rt.cudaStream_t(0x13),
        "driver.CUstream": nd.CUstream(0x12),
        "runtime.cudaEvent_t": rt.cudaEvent_t(0x14),
        "driver.CUevent": nd.CUevent(0x15),
        "runtime.cudaGraphExec_t": rt.cudaGraphExec_t(0x16),
        "runtime.cudaGraph_t": rt.cudaGraph_t(0x17),
        "runtime.cudaGraphNode_t": rt.cudaGraphNode_t(0x18),
        "driver.CUgraphNode": nd.CUgraphNode(0x19),
        "runtime.cudaArray_t": rt.cudaArray_t(0x1A),
        "runtime.cudaMemPool_t": rt.cudaMemPool_t(0x1B),
        "runtime.cudaTextureObject_t": rt.cudaTextureObject_t(0x1C),
        "runtime.cudaUserObject_t": rt.cudaUserObject_t(0x1D),
        "runtime.cudaKernel_t": rt.cudaKernel_t(0x1E),
        "driver.CUkernel": nd.CUkernel(0x1F),
        "runtime.cudaFunction_t": rt.cudaFunction_t(0x20),
        "driver.CUdevice": nd.CUdevice(3),
        "driver.CUdeviceptr": nd.CUdeviceptr(0x21),
    }


@case
def foreign_handles(fake, d, nd, rt):
    """NVIDIA's runtime and driver handles where a driver handle of the same C type goes, as
    arguments, list elements and constructor values."""
    f = _foreign(nd, rt)
    attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    out = {
        "cuStreamQuery runtime stream": fake.call(d.cuStreamQuery, f["runtime.cudaStream_t"]),
        "cuStreamQuery driver stream": fake.call(d.cuStreamQuery, f["driver.CUstream"]),
        "cuEventRecord event, stream": fake.call(d.cuEventRecord, f["runtime.cudaEvent_t"], f["runtime.cudaStream_t"]),
        "cuStreamWaitEvent": fake.call(d.cuStreamWaitEvent, f["driver.CUstream"], f["driver.CUevent"], 0),
        "cuGraphLaunch": fake.call(d.cuGraphLaunch, f["runtime.cudaGraphExec_t"], f["runtime.cudaStream_t"]),
        "cuGraphDestroy": fake.call(d.cuGraphDestroy, f["runtime.cudaGraph_t"]),
        "cuArrayDestroy": fake.call(d.cuArrayDestroy, f["runtime.cudaArray_t"]),
        "cuMemPoolTrimTo": fake.call(d.cuMemPoolTrimTo, f["runtime.cudaMemPool_t"], 0),
        "cuTexObjectDestroy": fake.call(d.cuTexObjectDestroy, f["runtime.cudaTextureObject_t"]),
        "cuUserObjectRelease": fake.call(d.cuUserObjectRelease, f["runtime.cudaUserObject_t"], 1),
        "cuFuncGetAttribute runtime function": fake.call(d.cuFuncGetAttribute, d.CUfunction_attribute(0), f["runtime.cudaFunction_t"]),
        "cuDeviceGetAttribute driver device": fake.call(d.cuDeviceGetAttribute, attr, f["driver.CUdevice"]),
        "cuMemsetD8 driver deviceptr": fake.call(d.cuMemsetD8, f["driver.CUdeviceptr"], 1, 1),
        "cuGraphAddEmptyNode node list": fake.call(
            d.cuGraphAddEmptyNode, f["runtime.cudaGraph_t"], [f["runtime.cudaGraphNode_t"], f["driver.CUgraphNode"]], 2, deref={2: 2}),
    }
    out["constructors"] = ["none", [int(d.CUstream(f["runtime.cudaStream_t"])), int(d.CUgraphNode(f["driver.CUgraphNode"])),
                                    int(d.CUdevice(f["driver.CUdevice"])), int(d.CUtexObject(f["runtime.cudaTextureObject_t"]))]]
    return out


@case
def foreign_handles_of_another_type(fake, d, nd, rt):
    """NVIDIA's handle of another C type (cudagen refuses it, naming both)."""
    f = _foreign(nd, rt)
    return {
        "cuStreamQuery runtime event": fake.call(d.cuStreamQuery, f["runtime.cudaEvent_t"]),
        "cuEventRecord stream as event": fake.call(d.cuEventRecord, f["driver.CUstream"], 0),
        "cuStreamQuery our event": fake.call(d.cuStreamQuery, d.CUevent(5)),
        "CUstream(runtime event)": fake.call(d.CUstream, f["runtime.cudaEvent_t"]),
    }


@case
def kernel_as_function(fake, d, nd, rt):
    """A CUkernel (ours, cuda.bindings.driver's, the runtime's cudaKernel_t) where a CUfunction
    goes: occupancy, attributes, launch."""
    f = _foreign(nd, rt)
    out = {}
    for name, k in [("ours", d.CUkernel(0x31)), ("driver", f["driver.CUkernel"]), ("runtime", f["runtime.cudaKernel_t"])]:
        out["cuOccupancyMaxActiveBlocksPerMultiprocessor " + name] = fake.call(d.cuOccupancyMaxActiveBlocksPerMultiprocessor, k, 32, 0)
        out["cuFuncGetAttribute " + name] = fake.call(d.cuFuncGetAttribute, d.CUfunction_attribute(0), k)
        out["cuFuncSetAttribute " + name] = fake.call(d.cuFuncSetAttribute, k, d.CUfunction_attribute(8), 1024)
        out["cuLaunchKernel " + name] = fake.call(d.cuLaunchKernel, k, 1, 1, 1, 32, 1, 1, 0, 0, None, 0)
    out["CUfunction(CUkernel)"] = ["none", int(d.CUfunction(d.CUkernel(0x32)))]
    return out


@case
def kernel_refusals(fake, d, nd, rt):
    """What stays refused: a stream where a function goes, a function where a kernel goes."""
    return {
        "cuOccupancy stream as function": fake.call(d.cuOccupancyMaxActiveBlocksPerMultiprocessor, d.CUstream(5), 32, 0),
        "cuKernelGetAttribute function as kernel": fake.call(d.cuKernelGetAttribute, d.CUfunction_attribute(0), d.CUfunction(5), 0),
    }


def _ptr_scenario(fake, cls, init, second_positional=False):
    """Builds `cls` on a C value held in the fake's array: what the object reads, its getPtr(),
    what the memory holds after construction and after being rewritten."""
    import ctypes

    fake.array[0] = 0xAAAABBBBCCCCDDDD
    at = ctypes.addressof(fake.array)
    o = cls(init, at) if second_positional else (cls(_ptr=at) if init is None else cls(init, _ptr=at))
    seen = [int(o), o.getPtr() == at, fake.array[0]]
    fake.array[0] = 0x99
    seen += [int(o), repr(o)]
    return seen


@case
def ptr_keyword(fake, d, nd, rt):
    """`Class(_ptr=address)`: the object views the C value at `address` (handles)."""
    import ctypes

    out = {}
    for cls in ("CUstream", "CUdevice", "CUdeviceptr", "CUgraphNode"):
        c = getattr(d, cls)
        out[cls + "(_ptr=)"] = ["none", _ptr_scenario(fake, c, None)]
        out[cls + "(5, _ptr=)"] = ["none", _ptr_scenario(fake, c, 5)]
        out[cls + "(5, address)"] = ["none", _ptr_scenario(fake, c, 5, second_positional=True)]
        out[cls + "(_ptr=0)"] = ["none", [int(c(_ptr=0)), int(c(4, _ptr=0)), int(c(init_value=4))]]
        out[cls + "(_ptr=None)"] = fake.call(c, _ptr=None)
        out[cls + "(_ptr=-1)"] = fake.call(c, _ptr=-1)
    fake.array[0] = 0x77
    out["cuStreamQuery(CUstream(_ptr=))"] = fake.call(d.cuStreamQuery, d.CUstream(_ptr=ctypes.addressof(fake.array)))
    return out


@case
def ptr_keyword_typedefs(fake, d, nd, rt):
    """`_ptr=` on typedef classes (`CUoccupancyB2DSize`, `cuuint64_t`, `cuuint32_t`)."""
    out = {}
    for cls in ("CUoccupancyB2DSize", "cuuint64_t", "cuuint32_t", "CUhostFn"):
        c = getattr(d, cls)
        out[cls + "(_ptr=)"] = ["none", _ptr_scenario(fake, c, None)]
        out[cls + "(5, _ptr=)"] = ["none", _ptr_scenario(fake, c, 5)]
    return out


@case
def dependency_lists(fake, d, nd, rt):
    """List-of-handle arguments in the forms graph code passes them, with the count given."""
    n = d.CUgraphNode
    out = {}
    forms = [("None", None), ("[]", []), ("()", ()), ("list", [n(1), n(2)]), ("tuple", (n(1), n(2))),
             ("NVIDIA's nodes", [nd.CUgraphNode(3), rt.cudaGraphNode_t(4)]), ("one node", n(1)), ("int", 0), ("str", "ab")]
    for name, v in forms:
        for count in (0, 2):
            out["cuGraphAddEmptyNode %s, %d" % (name, count)] = fake.call(d.cuGraphAddEmptyNode, 0, v, count, deref={2: 2})
    edge = d.CUgraphEdgeData()
    for name, data in [("None", None), ("one edge", [edge]), ("two edges", [edge, edge])]:
        out["cuStreamBeginCaptureToGraph dependencyData " + name] = fake.call(
            d.cuStreamBeginCaptureToGraph, 0, 0, [n(1), n(2)], data, 2, d.CUstreamCaptureMode(0), deref={2: 2})
    return out


@case
def count_queries(fake, d, nd, rt):
    """cuGraphGetNodes and kin called without the capacity (cuda.bindings' `numNodes=0`): the
    node array goes as NULL, the count query the header describes."""
    return {
        "cuGraphGetNodes": fake.call(d.cuGraphGetNodes, 0),
        "cuGraphGetRootNodes": fake.call(d.cuGraphGetRootNodes, 0),
        "cuGraphNodeGetDependencies": fake.call(d.cuGraphNodeGetDependencies, 0),
        "cuGraphNodeGetDependentNodes": fake.call(d.cuGraphNodeGetDependentNodes, 0),
    }


@case
def capture_dependencies(fake, d, nd, rt):
    """cuStreamGetCaptureInfo's dependencies come back as a list of nodes (the driver's array,
    `numDependencies_out` long), which cuGraphAddEmptyNode takes back."""
    import ctypes

    fake.array[0], fake.array[1] = 0x51, 0x52
    fake.array2[0] = 0
    deps = ctypes.addressof(fake.array)
    major = int(os.environ["CUDAGEN_CLIENTS_MAJOR"])
    # 12.x ABI: (stream, status, id, graph, deps, count); 13.x adds the edge data before the count
    write = {1: (0, 4), 2: (0, 8), 3: (0, 8), 4: (deps, 8)}
    write.update({5: (2, 8)} if major < 13 else {5: (ctypes.addressof(fake.array2), 8), 6: (2, 8)})
    got = fake.call(d.cuStreamGetCaptureInfo, 0, write=write, status=0)
    out = {"cuStreamGetCaptureInfo": got}
    if got[0] == "call":
        r = d.cuStreamGetCaptureInfo(0)
        out["passed back"] = fake.call(d.cuGraphAddEmptyNode, 0, r[4], r[-1], deref={2: 2})
        if major >= 13:
            out["edge data"] = ["none", [type(e).__name__ for e in r[5]]]
    return out


@case
def none_records(fake, d, nd, rt):
    """None for a pointer to one record (cuda.bindings: `Optional[record]`, passed as NULL)."""
    return {
        "cuMemcpy3D": fake.call(d.cuMemcpy3D, None),
        "cuTexObjectCreate": fake.call(d.cuTexObjectCreate, None, None, None),
        "cuGraphAddKernelNode": fake.call(d.cuGraphAddKernelNode, 0, None, 0, None),
    }


def _run(fake_path, package, name):
    fake = _Fake(fake_path)
    d, nd, rt = _modules(package)
    print(json.dumps(CASES[name](fake, d, nd, rt)))


# ----------------------------------------------------------------------------- the test side


def _oracle_major():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("cuda-bindings").split(".")[0]) if THEIRS == "cuda.bindings" else int(os.environ.get("CUDAGEN_CLIENTS_MAJOR", "12"))
    except PackageNotFoundError:
        pytest.skip("cuda-bindings (the oracle) is not installed")


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        pytest.skip("the recording fake reads x86-64 argument registers")
    major = _oracle_major()
    d = tmp_path_factory.mktemp("clients_fake")
    (d / "fake.c").write_text(FAKE_CUDA)
    so = d / "libcuda.so.1"
    subprocess.run([gcc, "-shared", "-fPIC", "-O0", "-DVERSION=%d" % (major * 1000 + 90 if major == 12 else major * 1000 + 50),
                    "-Wl,-soname,libcuda.so.1", "-o", str(so), str(d / "fake.c")], check=True)
    return str(so), major


def _case(fake, package, name):
    path, major = fake
    env = dict(os.environ, CUDAGEN_LIBCUDA=path, CUDAGEN_CLIENTS_MAJOR=str(major))
    env["LD_LIBRARY_PATH"] = os.path.dirname(path) + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    p = subprocess.run([sys.executable, __file__, "run", path, package, name], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, "%s %s crashed: %s" % (package, name, p.stderr[-2000:])
    return json.loads(p.stdout.splitlines()[-1])


def _both(fake, name):
    return _case(fake, THEIRS, name), _case(fake, OURS, name)


# Which argument registers carry the value each case varies, by case-name prefix, and how many of
# their low bits a C `int` / `unsigned char` parameter uses.
_REGS = {"cuDeviceGetAttribute": [2], "cuFuncGetAttribute": [2], "cuOccupancy": [1], "cuLaunchKernel.sharedMemBytes": [7],
         "cuLaunchKernel.gridDimX": [1], "cuMemsetD8.dstDevice": [0], "cuEventRecord": [0, 1], "cuStreamWaitEvent": [0, 1],
         "cuGraphLaunch": [0, 1], "cuGraphAddEmptyNode": [1, 3], "cuStreamBeginCaptureToGraph": [4], "cuDeviceGet": [1],
         "cuMemAlloc": [1], "cuCtxSetLimit": [1], "cuMemsetD8.uc": [1]}
_WIDTH = {"cuDeviceGet": 32, "cuLaunchKernel": 32, "cuMemsetD8.uc": 8}


def _regs(name, rec):
    """The registers `name` varies (argument 0 unless `_REGS` says), masked to their C width."""
    regs = next((r for p, r in _REGS.items() if name.startswith(p)), [0])
    bits = next((b for p, b in _WIDTH.items() if name.startswith(p)), 64)
    return [rec[1][k] & ((1 << bits) - 1) for k in regs]


# Refusals of another class: a list shorter than its count is a ValueError here (a bad value),
# a RuntimeError in cuda.bindings.
_SAME_REFUSAL = {("RuntimeError", "ValueError")}


def _same_as_theirs(theirs, ours, more=()):
    """Each case: accepted by both with the same C values, or refused by both (with the same
    exception class, but for `_SAME_REFUSAL`), or built by both to the same values. Cases whose
    name starts with one of `more` may be refused by cuda.bindings only."""
    diffs = []
    for name, t in theirs.items():
        o = ours[name]
        if t[0] == "refused" and o[0] == "call" and name.startswith(tuple(more)):
            continue
        if t[0] != o[0] or (t[0] == "refused" and t[1] != o[1] and (t[1], o[1]) not in _SAME_REFUSAL):
            diffs.append("%s: theirs %s, ours %s" % (name, t[:2], o[:3]))
        elif t[0] == "call" and (_regs(name, t) != _regs(name, o) or t[2] != o[2]):
            diffs.append("%s: theirs passed %s %s, ours %s %s" % (name, _regs(name, t), t[2], _regs(name, o), o[2]))
        elif t[0] == "none" and t[1] != o[1]:
            diffs.append("%s: theirs %s, ours %s" % (name, t[1], o[1]))
    assert not diffs, "\n".join(diffs)


def test_integers_convert_as_cython_does(fake):
    theirs, ours = _both(fake, "integers")
    # cuda.bindings' cuLaunchKernel takes no float for sharedMemBytes (it does for the grid)
    _same_as_theirs(theirs, ours, more=["cuLaunchKernel.sharedMemBytes"])
    assert ours["cuLaunchKernel.sharedMemBytes 4.9"][1][7] == 4
    # the values the issue names: a float grid size, a numpy float, a float CUdevice
    assert ours["cuLaunchKernel.gridDimX 4.9"][1][1] == 4
    assert ours["cuMemAlloc.bytesize np.float64"][1][1] == 3
    assert ours["cuDeviceGetAttribute.dev 2.7"][1][2] == 2
    assert ours["cuDeviceGet.ordinal nan"][1] == "ValueError" and ours["cuMemAlloc.bytesize -1.0"][1] == "OverflowError"


def test_index_only_objects_are_taken_too(fake):
    theirs, ours = _both(fake, "index_only")
    assert all(r[0] == "refused" for r in theirs.values()), theirs
    assert [r[1][1] for r in ours.values()] == [7, 7], ours


def test_pointer_handles_take_no_numbers_but_ints(fake):
    theirs, ours = _both(fake, "pointer_handles_refuse_numbers")
    assert all(r[0] == "call" for r in theirs.values()), theirs
    assert all(r[0] == "refused" and r[1] == "TypeError" for r in ours.values()), ours


def test_nvidia_handles_of_the_same_c_type(fake):
    theirs, ours = _both(fake, "foreign_handles")
    _same_as_theirs(theirs, ours)
    assert ours["cuStreamQuery runtime stream"][1][0] == 0x13
    assert ours["cuEventRecord event, stream"][1][:2] == [0x14, 0x13]
    assert ours["cuGraphAddEmptyNode node list"][2] == {"2": [0x18, 0x19]}
    assert ours["constructors"][1] == [0x13, 0x19, 3, 0x1C]


def test_nvidia_handles_of_another_c_type_are_refused(fake):
    theirs, ours = _both(fake, "foreign_handles_of_another_type")
    assert all(r[0] in ("call", "none") for r in theirs.values()), theirs
    for name, r in ours.items():
        assert r[0] == "refused" and r[1] == "TypeError", (name, r)
    msg = ours["cuStreamQuery runtime event"][2]
    assert "cudaEvent_t" in msg and "CUstream" in msg, msg


def test_a_kernel_goes_where_a_function_goes(fake):
    theirs, ours = _both(fake, "kernel_as_function")
    _same_as_theirs(theirs, ours)
    assert ours["cuLaunchKernel ours"][1][0] == 0x31 and ours["cuFuncGetAttribute runtime"][1][2] == 0x1E
    assert ours["CUfunction(CUkernel)"][1] == 0x32
    refused = _case(fake, OURS, "kernel_refusals")
    assert all(r[0] == "refused" and r[1] == "TypeError" for r in refused.values()), refused


def test_ptr_keyword_views_the_value_at_the_address(fake):
    theirs, ours = _both(fake, "ptr_keyword")
    _same_as_theirs(theirs, ours)
    # CUdevice is a C int: 5 is stored in its 4 bytes, the rest untouched
    assert ours["CUdevice(5, _ptr=)"][1][2] == 0xAAAABBBB00000005
    assert ours["CUstream(_ptr=)"][1][:2] == [0xAAAABBBBCCCCDDDD, True] and ours["CUstream(_ptr=)"][1][3] == 0x99
    assert ours["cuStreamQuery(CUstream(_ptr=))"][1][0] == 0x77


def test_ptr_keyword_on_typedef_classes(fake):
    theirs, ours = _both(fake, "ptr_keyword_typedefs")
    _same_as_theirs(theirs, ours)


def test_dependency_lists(fake):
    theirs, ours = _both(fake, "dependency_lists")
    # one edge for two dependencies: cuda.bindings passes it (the driver reads past it); cudagen
    # refuses a list shorter than its count
    short = "cuStreamBeginCaptureToGraph dependencyData one edge"
    assert theirs.pop(short)[0] == "call" and ours.pop(short)[:2] == ["refused", "ValueError"]
    _same_as_theirs(theirs, ours)
    # NULL edge data with two dependencies: the driver's defaults, whatever the count
    assert ours["cuStreamBeginCaptureToGraph dependencyData None"][1][3] == 0


def test_count_queries_send_null(fake):
    theirs, ours = _both(fake, "count_queries")
    for name in theirs:
        # the array (argument 1) is NULL on both sides; the count pointer (argument 2) is not
        assert theirs[name][0] == ours[name][0] == "call", (name, theirs[name], ours[name])
        assert theirs[name][1][1] == ours[name][1][1] == 0, (name, theirs[name][1][:3], ours[name][1][:3])


def test_none_for_a_record_pointer_passes_null(fake):
    theirs, ours = _both(fake, "none_records")
    # (registers of the record pointers)
    for name, regs in (("cuMemcpy3D", [0]), ("cuTexObjectCreate", [1, 2, 3]), ("cuGraphAddKernelNode", [4])):
        assert theirs[name][0] == ours[name][0] == "call", (name, theirs[name][:3], ours[name][:3])
        assert [theirs[name][1][k] for k in regs] == [ours[name][1][k] for k in regs] == [0] * len(regs), (name, ours[name][1])
        assert ours[name][3] == theirs[name][3]


def test_capture_dependencies_come_back_as_a_list(fake):
    from cudagen import driver

    if driver.CUDA_VERSION // 1000 != fake[1]:
        # the fake writes the oracle's cuStreamGetCaptureInfo ABI, which 13.x changed
        pytest.skip("cudagen binds CUDA %d, the oracle %d: cuStreamGetCaptureInfo's ABIs differ" % (driver.CUDA_VERSION // 1000, fake[1]))
    theirs, ours = _both(fake, "capture_dependencies")
    assert theirs["cuStreamGetCaptureInfo"][3][4] == [0x51, 0x52], theirs
    assert ours["cuStreamGetCaptureInfo"][3] == theirs["cuStreamGetCaptureInfo"][3]
    assert ours["passed back"][2] == theirs["passed back"][2] == {"2": [0x51, 0x52]}
    assert ours.get("edge data") == theirs.get("edge data")


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "run":
    _run(sys.argv[2], sys.argv[3], sys.argv[4])
