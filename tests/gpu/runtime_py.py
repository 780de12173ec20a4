"""Issue #25 on the GPU machine: SAXPY through `cudagen.runtime`, runtime and driver objects
mixed, and a bench of small runtime calls against cuda.bindings.runtime.

Prints `RESULT: PASS|FAIL ...` for the SAXPY/mixing part and one `BENCH <call> ours_ns theirs_ns`
line per call (median of alternating rounds, each call a statement in timeit's compiled loop),
with the floors of tests/python/bench_rt_floor.c when they are built.
"""

import statistics
import sys
import timeit

import numpy as np
from cudagen import driver as dr
from cudagen import nvrtc
from cudagen import runtime as rt

ROUNDS = 21
SAXPY = b"""extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
 size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
 if (tid < n) {
   out[tid] = a * x[tid] + y[tid];
 }
}
"""


def ck(result, what):
    err, rest = result[0], result[1:]
    if int(err) != 0:
        raise RuntimeError("%s: %r" % (what, err))
    return rest[0] if len(rest) == 1 else rest


def ptx(arch):
    prog = ck(nvrtc.nvrtcCreateProgram(SAXPY, b"saxpy.cu", 0, [], []), "nvrtcCreateProgram")
    ck(nvrtc.nvrtcCompileProgram(prog, 2, [b"--fmad=false", ("--gpu-architecture=" + arch).encode()]), "nvrtcCompileProgram")
    size = ck(nvrtc.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
    buf = b" " * size
    ck(nvrtc.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
    ck(nvrtc.nvrtcDestroyProgram(prog), "nvrtcDestroyProgram")
    return buf


def saxpy():
    ck(rt.cudaSetDevice(0), "cudaSetDevice")
    major = ck(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, 0), "attr")
    minor = ck(rt.cudaDeviceGetAttribute(rt.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, 0), "attr")
    code = ptx("compute_%d%d" % (major, minor))
    lib = ck(rt.cudaLibraryLoadData(code, None, None, 0, None, None, 0), "cudaLibraryLoadData")
    kernel = ck(rt.cudaLibraryGetKernel(lib, b"saxpy"), "cudaLibraryGetKernel")
    n = 1 << 22
    nbytes = n * 4
    rng = np.random.default_rng(1)
    hx = rng.random(n, dtype=np.float32)
    hy = rng.random(n, dtype=np.float32)
    dx, dy, dout = (ck(rt.cudaMalloc(nbytes), "cudaMalloc") for _ in range(3))
    stream = ck(rt.cudaStreamCreate(), "cudaStreamCreate")
    checks = {"runtime stream is a driver.CUstream": type(stream) is dr.CUstream and rt.cudaStream_t is dr.CUstream,
              "runtime kernel is a driver.CUkernel": type(kernel) is dr.CUkernel}
    h2d = rt.cudaMemcpyKind.cudaMemcpyHostToDevice
    ck(rt.cudaMemcpyAsync(dx, hx.ctypes.data, nbytes, h2d, stream), "cudaMemcpyAsync")
    ck(rt.cudaMemcpyAsync(dy, hy.ctypes.data, nbytes, h2d, stream), "cudaMemcpyAsync")
    # the runtime's kernel and stream go to the driver as they are
    f = ck(dr.cuKernelGetFunction(kernel), "cuKernelGetFunction")
    store = [np.array([2.0], dtype=np.float32), np.array([dx], dtype=np.uint64), np.array([dy], dtype=np.uint64),
             np.array([dout], dtype=np.uint64), np.array([n], dtype=np.uint64)]
    params = np.array([a.ctypes.data for a in store], dtype=np.uint64)
    ck(dr.cuLaunchKernel(f, n // 512, 1, 1, 512, 1, 1, 0, stream, params, 0), "cuLaunchKernel")
    ck(dr.cuStreamSynchronize(stream), "cuStreamSynchronize(runtime stream)")
    hout = np.full(n, np.nan, dtype=np.float32)
    ck(rt.cudaMemcpy(hout.ctypes.data, dout, nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost), "cudaMemcpy")
    err = float(np.max(np.abs(hout - (2.0 * hx + hy))))
    checks["saxpy max |gpu - cpu| == 0 (%d floats, %g)" % (n, err)] = err == 0.0
    # and a driver stream to the runtime
    s2 = ck(dr.cuStreamCreate(0), "cuStreamCreate")
    ck(rt.cudaStreamSynchronize(s2), "cudaStreamSynchronize(driver stream)")
    checks["driver stream accepted by cudaStreamQuery"] = int(rt.cudaStreamQuery(s2)[0]) == 0
    ck(rt.cudaStreamDestroy(s2), "cudaStreamDestroy(driver stream)")
    for d in (dx, dy, dout):
        ck(rt.cudaFree(d), "cudaFree")
    ck(rt.cudaLibraryUnload(lib), "cudaLibraryUnload")
    for k, v in checks.items():
        print("  %-60s %s" % (k, "ok" if v else "FAILED"))
    return stream, all(checks.values())


def floors():
    """{"dyn": module, "static": module} of the floors tests/python/bench_rt_floor.c builds (from
    $CUDAGEN_BENCH_FLOOR), each left out when not built or not loadable."""
    import importlib
    import os

    sys.path.insert(0, os.environ.get("CUDAGEN_BENCH_FLOOR", ".carry/runtime/floor"))
    out = {}
    for key in ("dyn", "static"):
        try:
            out[key] = importlib.import_module("bench_rt_floor_" + key)
        except (ImportError, RuntimeError) as e:
            print("BENCH note: no %s floor (%s)" % (key, e))
    return out


def bench(stream):
    """One `BENCH <call> ours theirs ratio [dyn_floor static_floor]` line per call: medians of
    ROUNDS rounds, the order of the sides swapping every round; the ratio is the median of the
    per-round ratios. The floors call the same runtime entries from a few lines of C (ints in and
    out, GIL released): `dyn` through the libcudart cudagen loads, `static` linked with
    libcudart_static.a as cuda.bindings is."""
    try:
        from cuda.bindings import runtime as theirs
    except ImportError:
        print("BENCH skipped: no cuda.bindings.runtime")
        return
    ours_stream = rt.cudaStreamCreate()[1]
    streams = {"s": ours_stream, "ts": theirs.cudaStreamCreate()[1], "si": int(ours_stream)}
    measure(theirs, streams, floors())


def measure(theirs, streams, floor, number=20000):
    """Prints the BENCH lines (see `bench`) for cudagen.runtime against ``theirs`` with the
    stream objects ``streams`` (``s`` ours, ``ts`` theirs, ``si`` an int) and the floor modules
    ``floor``."""
    env = {"rt": rt, "th": theirs, "ours_get": rt.cudaGetDevice, "theirs_get": theirs.cudaGetDevice, **streams}
    env.update({"f_" + k: m for k, m in floor.items()})
    cases = {
        "cudaGetDevice": ("rt.cudaGetDevice()", "th.cudaGetDevice()", "get_device()"),
        # the same call without the module attribute lookup (which cost ~20 ns while cudagen's
        # modules had a `__getattr__`, unspecialized by CPython: NOTES "Module attribute cost")
        "cudaGetDevice_bound": ("ours_get()", "theirs_get()", "get_device()"),
        "cudaGetDeviceCount": ("rt.cudaGetDeviceCount()", "th.cudaGetDeviceCount()", "get_device_count()"),
        "cudaStreamQuery": ("rt.cudaStreamQuery(s)", "th.cudaStreamQuery(ts)", "query(si)"),
    }
    for name, (ours, theirs_stmt, floor_stmt) in cases.items():
        stmts = [ours, theirs_stmt] + ["f_%s.%s" % (k, floor_stmt) for k in floor]
        runs = [[] for _ in stmts]
        for r in range(ROUNDS):
            order = range(len(stmts)) if r % 2 == 0 else reversed(range(len(stmts)))
            for i in order:
                runs[i].append(timeit.timeit(stmts[i], globals=env, number=number) / number * 1e9)
        med = [statistics.median(x) for x in runs]
        ratio = statistics.median(a / b for a, b in zip(runs[0], runs[1]))
        floors_text = " ".join("%s=%.1f" % (k, m) for k, m in zip(floor, med[2:]))
        print("BENCH %-20s %8.1f %8.1f %.2fx %s" % (name, med[0], med[1], ratio, floors_text))


def main():
    count = rt.cudaGetDeviceCount()
    if int(count[0]) != 0 or count[1] == 0:
        print("RESULT: SKIP no device: %r" % (count,))
        return 0
    try:
        stream, ok = saxpy()
    except Exception as e:  # noqa: BLE001 - the line says what failed
        print("RESULT: FAIL %s" % e)
        return 1
    bench(stream)
    print("RESULT: %s" % ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
