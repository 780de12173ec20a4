"""Per-call cost of cudagen vs NVIDIA's cuda.bindings, side by side (GPU machine; not a test).

Both modules drive the same device in one process; every case alternates between the two in
each of 41 rounds (the order swapping every round) and reports the medians, and the ratio as the
median of the per-round ratios, which cancels slow drift of the machine between rounds. Each call is timed as a statement in timeit's compiled
loop (no lambda around it, so the harness adds as little as possible to both sides). Launches go
in batches of 256, then a synchronize.
Contexts come from cuDevicePrimaryCtxRetain, whose signature is the same in cuda.bindings 12.x
and 13.x. Both sides launch the same kernel on the same stream (made once, handles passed by
value) and call the same libnvrtc, so the driver and NVRTC do the same work for each.

The "floor" columns time `bench_floor` (tests/python/bench_floor.c, built by tests/gpu/bundle.sh):
the least a binding that releases the GIL around each call can do: the same driver calls taking and
returning plain ints (handles as ints, no typed objects); nvrtcVersion's floor is an empty function
that only releases and retakes the GIL; both launch forms' floor is a launch with int handles and a
pointer array. "floor ratio" is
floor / cuda.bindings: no such binding can have a smaller ratio.

    python tests/python/bench_python.py
"""

import ctypes
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

ROUNDS = 41
KERNEL = b'extern "C" __global__ void k(int a, float *b, float *c, unsigned long long d, double e) {}'


def timed(timer, n):
    return timer.timeit(n) * 1e9 / n


def import_time(mod):
    code = f"import time; t=time.perf_counter(); import {mod}; print(time.perf_counter()-t)"
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(7)]
    return statistics.median(runs) * 1e9


def check(result):
    """The outputs of an `(err, out...)` tuple; raises unless err is success."""
    if int(result[0]) != 0:
        raise RuntimeError(f"CUDA call failed: {result[0]!r}")
    outs = result[1:]
    return outs[0] if len(outs) == 1 else (outs or None)


def resources(driver, nvrtc):
    """The device objects every side times its calls on, made once (with cuda.bindings): one
    stream, kernel and buffer, so no side gets a stream or module the driver treats differently."""
    check(driver.cuInit(0))
    dev = check(driver.cuDeviceGet(0))
    ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
    check(driver.cuCtxSetCurrent(ctx))
    stream = check(driver.cuStreamCreate(0))
    prog = check(nvrtc.nvrtcCreateProgram(KERNEL, b"k.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 0, []))
    ptx = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    module = check(driver.cuModuleLoadData(ptx))
    kernel = check(driver.cuModuleGetFunction(module, b"k"))
    d = check(driver.cuMemAlloc(64))
    return {"dev": int(dev), "stream": int(stream), "kernel": int(kernel), "d": int(d), "keep": (ctx, module, ptx)}


def loaded_nvrtc():
    """Path of the libnvrtc this process has loaded, or None."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libnvrtc.so" in line and "/" in line}
    return min(paths) if paths else None


def cases(driver, nvrtc, res):
    """name -> (callable, calls per sample, divisor) for one binding module, on the shared
    resources `res` (handles rebuilt from their values in this module's classes)."""
    check(driver.cuInit(0))
    check(driver.cuCtxSetCurrent(check(driver.cuDevicePrimaryCtxRetain(driver.CUdevice(res["dev"])))))
    dev = check(driver.cuDeviceGet(0))
    stream = driver.CUstream(res["stream"])
    kernel = driver.CUfunction(res["kernel"])
    d = driver.CUdeviceptr(res["d"])
    attr = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    check(nvrtc.nvrtcVersion())
    vals = (np.array(1, dtype=np.int32), np.array([int(d)], dtype=np.uint64), np.array([int(d)], dtype=np.uint64),
            np.array(5, dtype=np.uint64), np.array(2.0, dtype=np.float64))
    arr = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
    pair = ((1, d, d, 5, 2.0), (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ulonglong, ctypes.c_double))

    def batch(params):
        def run():
            for _ in range(256):
                driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, params, 0)
            driver.cuStreamSynchronize(stream)
        return run

    check(driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, arr, 0))
    check(driver.cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, stream, pair, 0))
    check(driver.cuStreamSynchronize(stream))
    keep = (vals, arr, pair, kernel, stream)
    names = {"driver": driver, "nvrtc": nvrtc, "attr": attr, "dev": dev, "stream": stream,
             "ctx_get": driver.cuCtxGetCurrent, "get_attr": driver.cuDeviceGetAttribute,
             "query": driver.cuStreamQuery, "version": nvrtc.nvrtcVersion,
             "launch_arr": batch(arr), "launch_pair": batch(pair)}

    def case(stmt, n, div=1):
        return timeit.Timer(stmt, globals=names), n, div

    return keep, {
        "cuCtxGetCurrent": case("ctx_get()", 20000),
        "cuDeviceGetAttribute": case("get_attr(attr, dev)", 20000),
        "cuStreamQuery": case("query(stream)", 20000),
        "nvrtcVersion": case("version()", 20000),
        "cuLaunchKernel numpy array": case("launch_arr()", 20, 256),
        "cuLaunchKernel ctypes pair": case("launch_pair()", 20, 256),
    }


def floor_cases(driver, keep):
    """The same case names timed with bench_floor, or {} when it is not built."""
    sys.path.insert(0, os.environ.get("CUDAGEN_BENCH_FLOOR", ".carry/floor"))
    try:
        import bench_floor
    except ImportError as e:
        print(f"bench_floor not available ({e}): no floor columns")
        return {}
    vals, arr, pair, kernel, stream = keep
    names = {"gil": bench_floor.gil, "ctx": bench_floor.ctx, "attr": bench_floor.attr, "query": bench_floor.query,
             "launch": bench_floor.launch, "k": int(kernel), "s": int(stream), "p": arr, "driver": driver,
             "stream": stream, "a": int(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)}
    launch = "for _ in range(256): launch(k, 1, 1, 1, 1, 1, 1, 0, s, p, 0)\ndriver.cuStreamSynchronize(stream)"
    batch = timeit.Timer(launch, globals=names), 20, 256

    def case(stmt):
        return timeit.Timer(stmt, globals=names), 20000, 1

    return {"cuCtxGetCurrent": case("ctx()"), "cuDeviceGetAttribute": case("attr(a, 0)"),
            "cuStreamQuery": case("query(s)"), "nvrtcVersion": case("gil()"),
            "cuLaunchKernel numpy array": batch, "cuLaunchKernel ctypes pair": batch}


def main():
    from cuda.bindings import driver as d2, nvrtc as n2

    res = resources(d2, n2)
    # ours calls the NVRTC library cuda.bindings loaded, not another one it might find first
    nvrtc_path = loaded_nvrtc()
    if nvrtc_path and "CUDAGEN_NVRTC_PATH" not in os.environ:
        os.environ["CUDAGEN_NVRTC_PATH"] = nvrtc_path
    from cudagen import driver as d1, nvrtc as n1

    keep2, theirs = cases(d2, n2, res)
    keep1, ours = cases(d1, n1, res)
    floor = floor_cases(d1, keep1)
    sides = (ours, theirs, floor)
    samples = {name: ([], [], []) for name in ours}
    for r in range(ROUNDS):
        for name in ours:
            for side in ((0, 1, 2) if r % 2 == 0 else (1, 0, 2)):
                if name in sides[side]:
                    f, n, div = sides[side][name]
                    samples[name][side].append(timed(f, n) / div)
    rows = {name: [statistics.median(s) if s else None for s in runs] for name, runs in samples.items()}
    ratios = {name: statistics.median(a / b for a, b in zip(runs[0], runs[1])) for name, runs in samples.items()}
    imports = import_time("cudagen.driver"), import_time("cuda.bindings.driver")
    import cuda.bindings

    print(f"cuda.bindings {cuda.bindings.__version__}, Python {sys.version.split()[0]}, NVRTC {loaded_nvrtc()}")
    print("| call | cudagen ns | cuda.bindings ns | ratio (median of per-round ratios) | floor ns | floor ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, (a, b, f) in rows.items():
        least = f"{f:.0f} | {f / b:.2f}x" if f is not None else "- | -"
        print(f"| {name} | {a:.0f} | {b:.0f} | {ratios[name]:.2f}x | {least} |")
    a, b = (t / 1e6 for t in imports)
    print(f"| import driver module (ms) | {a:.1f} | {b:.1f} | {a / b:.2f}x | - | - |")


if __name__ == "__main__":
    main()
