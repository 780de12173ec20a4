"""nvJitLink and NVVM end to end through the Python module (issue #25), run by tests/gpu/jitnvvm.sh
with the cudagen wheel built from the CUDA 13.0 headers: the kernel `scale` (x[i] *= a) as NVRTC
LTO-IR linked by `cudagen.nvjitlink` into a cubin for the device, and as NVVM IR compiled by
`cudagen.nvvm` to PTX; each loaded with cuModuleLoadData, launched on 1,048,576 floats and compared
with numpy. Where NVIDIA's cuda.bindings is installed, its nvjitlink / nvvm must produce the same
cubin and PTX bytes. Prints one line per step and `RESULT: PASS` / `RESULT: FAIL ...`."""

import ctypes
import importlib
import os
import sys

import numpy as np

from cudagen import driver, nvjitlink, nvrtc, nvvm

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from jit_sources import KERNEL, NVVM_IR, link, nvvm_ptx  # noqa: E402  (the same kernel and IR as the CPU tests)

N = 1 << 20


def check(what, err):
    if int(err) != 0:
        raise SystemExit("RESULT: FAIL %s -> %r" % (what, err))


def ltoir(sm):
    err, prog = nvrtc.nvrtcCreateProgram(KERNEL, b"scale.cu", 0, [], [])
    check("nvrtcCreateProgram", err)
    err, = nvrtc.nvrtcCompileProgram(prog, 2, [b"-dlto", b"--gpu-architecture=sm_%d" % sm])
    check("nvrtcCompileProgram -dlto", err)
    err, n = nvrtc.nvrtcGetLTOIRSize(prog)
    buf = b" " * n
    check("nvrtcGetLTOIR", nvrtc.nvrtcGetLTOIR(prog, buf)[0])
    nvrtc.nvrtcDestroyProgram(prog)
    return buf


def launch(image):
    err, mod = driver.cuModuleLoadData(image)
    check("cuModuleLoadData", err)
    err, fn = driver.cuModuleGetFunction(mod, b"scale")
    check("cuModuleGetFunction", err)
    host = np.arange(N, dtype=np.float32)
    err, d = driver.cuMemAlloc(host.nbytes)
    check("cuMemAlloc", err)
    check("cuMemcpyHtoD", driver.cuMemcpyHtoD(d, host.ctypes.data, host.nbytes)[0])
    args = ((d, 3.0, N), (None, ctypes.c_float, ctypes.c_int))
    check("cuLaunchKernel", driver.cuLaunchKernel(fn, N // 256, 1, 1, 256, 1, 1, 0, 0, args, 0)[0])
    out = np.empty_like(host)
    check("cuMemcpyDtoH", driver.cuMemcpyDtoH(out.ctypes.data, d, out.nbytes)[0])
    driver.cuMemFree(d)
    driver.cuModuleUnload(mod)
    return int(np.count_nonzero(out != host * 3))


def main():
    check("cuInit", driver.cuInit(0)[0])
    err, dev = driver.cuDeviceGet(0)
    check("cuDeviceGet", err)
    major = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)[1]
    minor = driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)[1]
    sm = major * 10 + minor
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    check("cuDevicePrimaryCtxRetain", err)
    check("cuCtxSetCurrent", driver.cuCtxSetCurrent(ctx)[0])
    data = ltoir(sm)
    cubin = link(nvjitlink, data, sm)
    print("nvjitlink: nvJitLink %d.%d linked %d bytes of cubin for sm_%d" % (nvjitlink.version() + (len(cubin), sm)))
    ptx = nvvm_ptx(nvvm, NVVM_IR, sm)
    print("nvvm: NVVM %d.%d compiled %d bytes of PTX" % (nvvm.version() + (len(ptx),)))
    try:
        with_theirs = importlib.import_module("cuda.bindings.nvjitlink"), importlib.import_module("cuda.bindings.nvvm")
    except ImportError as e:
        print("oracle: cuda.bindings not importable (%s)" % e)
    else:
        same = link(with_theirs[0], data, sm) == cubin and nvvm_ptx(with_theirs[1], NVVM_IR, sm) == ptx
        print("oracle: cuda.bindings %s gives the %s cubin and PTX" % (importlib.import_module("cuda.bindings").__version__, "same" if same else "DIFFERENT"))
        if not same:
            raise SystemExit("RESULT: FAIL cuda.bindings differs")
    bad = launch(cubin), launch(ptx)
    print("launch-cubin: %d floats, %d differ from numpy" % (N, bad[0]))
    print("launch-nvvm: %d floats, %d differ from numpy" % (N, bad[1]))
    driver.cuDevicePrimaryCtxRelease(dev)
    print("RESULT: %s" % ("PASS" if bad == (0, 0) else "FAIL %s wrong" % (bad,)))
    return 0 if bad == (0, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
