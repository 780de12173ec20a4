"""Issue #25 on the GPU machine: SAXPY through `cudagen.runtime`, runtime and driver objects
mixed, and a bench of small runtime calls against cuda.bindings.runtime.

Prints `RESULT: PASS|FAIL ...` for the SAXPY/mixing part and one `BENCH <call> ours_ns theirs_ns`
line per call (median of alternating rounds, each call a statement in timeit's compiled loop).
"""

import statistics
import sys
import timeit

import numpy as np
from cudagen import driver as dr
from cudagen import nvrtc
from cudagen import runtime as rt

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


def bench(stream):
    try:
        from cuda.bindings import runtime as theirs
    except ImportError:
        print("BENCH skipped: no cuda.bindings.runtime")
        return
    tstream = theirs.cudaStreamCreate()[1]
    pairs = {
        "cudaGetDevice": ("rt.cudaGetDevice()", "th.cudaGetDevice()"),
        "cudaGetDeviceCount": ("rt.cudaGetDeviceCount()", "th.cudaGetDeviceCount()"),
        "cudaStreamQuery": ("rt.cudaStreamQuery(s)", "th.cudaStreamQuery(ts)"),
    }
    env = {"rt": rt, "th": theirs, "s": rt.cudaStreamCreate()[1], "ts": tstream}
    number = 20000
    for name, (ours, theirs_stmt) in pairs.items():
        a, b = [], []
        for _ in range(15):
            a.append(timeit.timeit(ours, globals=env, number=number) / number * 1e9)
            b.append(timeit.timeit(theirs_stmt, globals=env, number=number) / number * 1e9)
        print("BENCH %-20s %8.1f %8.1f %.2fx" % (name, statistics.median(a), statistics.median(b), statistics.median(a) / statistics.median(b)))


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
