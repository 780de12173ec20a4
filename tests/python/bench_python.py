"""Per-call cost of cudagen vs NVIDIA's cuda.bindings (GPU machine; not a test).

python tests/python/bench_python.py
"""

import ctypes
import statistics
import subprocess
import sys
import time

import numpy as np


def per_call(f, n=20000, reps=7):
    out = []
    for _ in range(reps):
        t = time.perf_counter_ns()
        for _ in range(n):
            f()
        out.append((time.perf_counter_ns() - t) / n)
    return statistics.median(out)


def import_time(mod):
    code = f"import time; t=time.perf_counter(); import {mod}; print(time.perf_counter()-t)"
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout) * 1e9 for _ in range(7))


def suite(driver, nvrtc):
    res = {}
    driver.cuInit(0)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuCtxCreate(0, dev)
    err, stream = driver.cuStreamCreate(0)
    attr = driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    res["cuCtxGetCurrent"] = per_call(lambda: driver.cuCtxGetCurrent())
    res["cuDeviceGetAttribute"] = per_call(lambda: driver.cuDeviceGetAttribute(attr, dev))
    res["cuStreamQuery"] = per_call(lambda: driver.cuStreamQuery(stream))
    res["nvrtcVersion"] = per_call(lambda: nvrtc.nvrtcVersion())
    src = b'extern "C" __global__ void k(int a, float *b, float *c, unsigned long long d, double e) {}'
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    nvrtc.nvrtcCompileProgram(prog, 0, [])
    err, n = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    nvrtc.nvrtcGetPTX(prog, ptx)
    err, module = driver.cuModuleLoadData(ptx)
    err, k = driver.cuModuleGetFunction(module, b"k")
    err, d = driver.cuMemAlloc(64)
    vals = (np.array(1, dtype=np.int32), np.array([int(d)], dtype=np.uint64), np.array([int(d)], dtype=np.uint64),
            np.array(5, dtype=np.uint64), np.array(2.0, dtype=np.float64))
    arr = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
    pair = ((1, d, d, 5, 2.0), (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ulonglong, ctypes.c_double))

    def batch(params):
        def run():
            for _ in range(256):
                driver.cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, stream, params, 0)
            driver.cuStreamSynchronize(stream)
        return per_call(run, n=20) / 256

    res["cuLaunchKernel numpy"] = batch(arr)
    res["cuLaunchKernel ctypes"] = batch(pair)
    driver.cuMemFree(d)
    driver.cuModuleUnload(module)
    driver.cuStreamDestroy(stream)
    driver.cuCtxDestroy(ctx)
    return res


def main():
    from cudagen import driver as d1, nvrtc as n1
    ours = suite(d1, n1)
    ours["import driver"] = import_time("cudagen.driver")
    try:
        from cuda.bindings import driver as d2, nvrtc as n2
        theirs = suite(d2, n2)
        theirs["import driver"] = import_time("cuda.bindings.driver")
    except ImportError:
        theirs = {}
    print(f"{'call':28} {'cudagen ns':>12} {'cuda.bindings ns':>17} {'ratio':>7}")
    for key, v in ours.items():
        t = theirs.get(key)
        print(f"{key:28} {v:12.0f} {t if t is None else round(t):>17} {'' if not t else f'{v / t:7.2f}'}")


if __name__ == "__main__":
    main()
