"""NVRTC for real (no GPU needed): compile the seed SAXPY to PTX."""

import gc
import os
import sys
import weakref

import pytest

from cudagen import driver, nvrtc

SAXPY = """\
extern "C" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
 size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
 if (tid < n) {
   out[tid] = a * x[tid] + y[tid];
 }
}
"""


def test_version():
    err, major, minor = nvrtc.nvrtcVersion()
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS and major >= 12


def test_the_headers_major_comes_from_the_wheel():
    """libnvrtc.so.<the headers' major> (13 for a 13.x build), found in the NVIDIA wheel of the
    virtualenv (nvidia/cuda_nvrtc/lib for 12.x, nvidia/cu13/lib for 13.x) when no path is set."""
    major = driver.CUDA_VERSION // 1000
    soname = "libnvrtc.so.%d" % major
    wheels = [os.path.join(p, "nvidia", d, "lib", soname) for p in sys.path if "-packages" in p for d in ("cuda_nvrtc", "cu%d" % major)]
    if os.environ.get("CUDAGEN_NVRTC_PATH") or not any(os.path.exists(w) for w in wheels):
        pytest.skip("no %s wheel to find here (or CUDAGEN_NVRTC_PATH names the library)" % soname)
    err, got, _ = nvrtc.nvrtcVersion()
    assert err == 0 and got == major
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if soname in line}
    assert any(os.path.exists(w) and os.path.samefile(w, p) for w in wheels for p in paths), paths


_MISSING = r"""
import os
from cudagen import LoaderError, nvrtc
# nothing but the default sonames through dlopen's own search and the fixed folders
for var in ("CUDAGEN_NVRTC_PATH", "CUDAGEN_PYTHON_SITE", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME", "CUDA_HOME", "CUDA_PATH"):
    os.environ[var] = ""
try:
    print("found", nvrtc.nvrtcVersion())
except LoaderError as e:
    print(e)
"""


def test_a_missing_library_is_named_by_the_headers_major():
    import subprocess

    p = subprocess.run([sys.executable, "-c", _MISSING], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    if p.stdout.startswith("found"):
        pytest.skip("an NVRTC is installed outside the virtualenv: %s" % p.stdout.strip())
    assert p.stdout.startswith("libnvrtc.so.%d not found (needed for nvrtcVersion" % (driver.CUDA_VERSION // 1000)), p.stdout


def test_error_string():
    err, s = nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_INVALID_INPUT)
    assert err == 0 and s == b"NVRTC_ERROR_INVALID_INPUT"


def test_saxpy_ptx():
    err, prog = nvrtc.nvrtcCreateProgram(str.encode(SAXPY), b"saxpy.cu", 0, [], [])
    assert err == 0 and int(prog) != 0 and isinstance(prog, nvrtc.nvrtcProgram)
    opts = [b"--fmad=false", b"--gpu-architecture=compute_75"]
    err, = nvrtc.nvrtcCompileProgram(prog, 2, opts)
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, logSize = nvrtc.nvrtcGetProgramLogSize(prog)
    assert err == 0
    log = b" " * logSize
    err, = nvrtc.nvrtcGetProgramLog(prog, log)
    assert err == 0
    err, ptxSize = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * ptxSize
    err, = nvrtc.nvrtcGetPTX(prog, ptx)  # caller buffer written in place (cuda.bindings style)
    assert err == 0 and b".entry saxpy" in ptx
    buf = bytearray(ptxSize)
    err, = nvrtc.nvrtcGetPTX(prog, buf)
    assert err == 0 and bytes(buf) == ptx
    err, = nvrtc.nvrtcDestroyProgram(prog)
    assert err == 0 and int(prog) == 0


def test_compile_error_log():
    err, prog = nvrtc.nvrtcCreateProgram(b"this is not cuda", b"bad.cu", 0, None, None)
    err, = nvrtc.nvrtcCompileProgram(prog, 0, [])
    assert err == nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION
    err, n = nvrtc.nvrtcGetProgramLogSize(prog)
    log = bytearray(n)
    nvrtc.nvrtcGetProgramLog(prog, log)
    assert b"error" in bytes(log)


def test_supported_archs():
    err, n = nvrtc.nvrtcGetNumSupportedArchs()
    err2, archs = nvrtc.nvrtcGetSupportedArchs()
    assert err == err2 == 0 and len(archs) == n and 75 in archs


def test_flow_callback_callable():
    src = b'extern "C" __global__ void k(float *x) { x[0] = 1; }'
    for cancel, expected in ((False, nvrtc.nvrtcResult.NVRTC_SUCCESS), (True, nvrtc.nvrtcResult.NVRTC_ERROR_CANCELLED)):
        calls = []

        def flow(payload):
            calls.append(payload)
            return cancel

        err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
        assert nvrtc.nvrtcSetFlowCallback(prog, flow, "payload")[0] == 0
        assert nvrtc.nvrtcCompileProgram(prog, 0, [])[0] == expected
        assert calls and calls[0] == "payload"
        nvrtc.nvrtcDestroyProgram(prog)


def test_flow_callable_released_with_its_program():
    """A flow callable (and its payload) lives while NVRTC may call it: until the program is
    destroyed or another callback replaces it."""

    class Payload:
        pass

    def kept_while(setup, release):
        payload = Payload()
        alive = weakref.ref(payload)
        setup(payload)
        del payload
        gc.collect()
        assert alive() is not None, "released while NVRTC may still call it"
        release()
        gc.collect()
        assert alive() is None, "still alive after NVRTC was told to stop calling it"

    src = b'extern "C" __global__ void k() {}'
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    kept_while(lambda p: nvrtc.nvrtcSetFlowCallback(prog, lambda x: False, p),
               lambda: nvrtc.nvrtcSetFlowCallback(prog, lambda x: False, None))
    kept_while(lambda p: nvrtc.nvrtcSetFlowCallback(prog, lambda x: False, p),
               lambda: nvrtc.nvrtcDestroyProgram(prog))
    assert int(prog) == 0


def test_callback_exception_is_reported_not_raised(monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))

    def flow(payload):
        raise ValueError("boom")

    err, prog = nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void k() {}', b"k.cu", 0, [], [])
    nvrtc.nvrtcSetFlowCallback(prog, flow, None)
    assert nvrtc.nvrtcCompileProgram(prog, 0, [])[0] == 0  # an exception does not cancel
    assert seen and isinstance(seen[0], ValueError)
