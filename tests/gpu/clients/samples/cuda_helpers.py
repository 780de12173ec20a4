"""What the sample programs beside this file share, written the way cuda.bindings' samples are:
``checkCudaErrors`` on every call's result tuple, NVRTC compiling a kernel for the device's own
architecture (a CUBIN, so no PTX JIT is involved), and one ``<name>: PASS`` / ``<name>: FAIL
<reason>`` line at the end (exit status 1 on failure).

Every sample imports ``driver`` and ``nvrtc`` from ``cuda.bindings``; run with CUDAGEN_SWAP=1 and
tests/gpu/clients/swap first on PYTHONPATH, those are cudagen's modules (the programs don't change).
"""

import sys
import traceback

from cuda.bindings import driver, nvrtc

try:
    from cuda.bindings import runtime
except ImportError:  # pragma: no cover - runtime is part of every cuda-bindings wheel
    runtime = None


class SampleFailure(Exception):
    """A result that differs from what the sample computed on the host."""


def _error_name(error):
    if isinstance(error, driver.CUresult):
        err, name = driver.cuGetErrorName(error)
        return name.decode() if err == driver.CUresult.CUDA_SUCCESS else "<unknown>"
    if isinstance(error, nvrtc.nvrtcResult):
        return nvrtc.nvrtcGetErrorString(error)[1].decode()
    if runtime is not None and isinstance(error, runtime.cudaError_t):
        return runtime.cudaGetErrorName(error)[1].decode()
    return f"<unknown error type {type(error).__name__}>"


def checkCudaErrors(result):
    """Raises on a failed call; returns the call's value(s) without the status."""
    if result[0].value:
        raise RuntimeError(f"CUDA error code={result[0].value}({_error_name(result[0])})")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def device_arch(cuDevice):
    attr = driver.CUdevice_attribute
    major = checkCudaErrors(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice))
    minor = checkCudaErrors(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice))
    return major, minor


def compile_cubin(source, name, cuDevice, extra_options=()):
    """NVRTC: ``source`` compiled to a CUBIN for ``cuDevice``'s architecture (bytes)."""
    major, minor = device_arch(cuDevice)
    return compile_cubin_for(source, name, major, minor, extra_options)


def compile_cubin_for(source, name, major, minor, extra_options=()):
    """NVRTC: ``source`` compiled to a CUBIN for sm_<major><minor> (needs no GPU)."""
    prog = checkCudaErrors(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []))
    opts = [b"--fmad=false", f"--gpu-architecture=sm_{major}{minor}".encode(), *extra_options]
    try:
        checkCudaErrors(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    except RuntimeError:
        size = checkCudaErrors(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        checkCudaErrors(nvrtc.nvrtcGetProgramLog(prog, log))
        raise RuntimeError(f"NVRTC could not compile {name}: {log.decode(errors='replace')}") from None
    size = checkCudaErrors(nvrtc.nvrtcGetCUBINSize(prog))
    cubin = b" " * size
    checkCudaErrors(nvrtc.nvrtcGetCUBIN(prog, cubin))
    checkCudaErrors(nvrtc.nvrtcDestroyProgram(prog))
    return cubin


def expect(condition, what):
    if not condition:
        raise SampleFailure(what)


def run_sample(name, main):
    """Runs ``main()``; prints ``name: PASS`` or ``name: FAIL reason`` and exits accordingly."""
    print(f"{name}: cuda.bindings.driver is {driver.__name__}", flush=True)
    try:
        detail = main()
    except SampleFailure as e:
        print(f"{name}: FAIL {e}")
        sys.exit(1)
    except Exception as e:  # noqa: BLE001  (any other error is a failure of the run, with its trace)
        traceback.print_exc()
        print(f"{name}: FAIL {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        sys.exit(1)
    print(f"{name}: PASS" + (f" ({detail})" if detail else ""))
