"""Error reporting the way libraries built on cuda.bindings do it: each failed call's CUresult
explained by the member's own docstring (``err.__doc__.strip()``, the header's comment for that
enumerator in cuda.bindings 13.x), next to cuGetErrorName / cuGetErrorString; errors provoked on
purpose (no context, a zero-byte allocation, a bad ordinal, a bad image) and an NVRTC compile
error with its log.
"""

from cuda.bindings import driver, nvrtc
from cuda_helpers import checkCudaErrors, expect, run_sample


def explain(err):
    """What a library prints for a failed call: name, the driver's string, the member's docstring."""
    name = checkCudaErrors(driver.cuGetErrorName(err)).decode()
    text = checkCudaErrors(driver.cuGetErrorString(err)).decode()
    doc = err.__doc__.strip()
    return name, text, doc


def main():
    checkCudaErrors(driver.cuInit(0))
    R = driver.CUresult
    expect(R.CUDA_ERROR_INVALID_VALUE.__doc__.strip() != "", "CUresult.CUDA_ERROR_INVALID_VALUE.__doc__ is empty")
    expect(R.CUDA_ERROR_INVALID_VALUE.__doc__ != R.CUDA_ERROR_OUT_OF_MEMORY.__doc__,
           "two CUresult members share one docstring (the class's, not their own)")

    checkCudaErrors(driver.cuCtxSetCurrent(None))
    provoked = {
        "no context": (driver.cuMemAlloc(1)[0], None),
        "bad ordinal": (driver.cuDeviceGet(9999)[0], R.CUDA_ERROR_INVALID_DEVICE),
    }
    cuDevice = checkCudaErrors(driver.cuDeviceGet(0))
    context = checkCudaErrors(driver.cuDevicePrimaryCtxRetain(cuDevice))
    checkCudaErrors(driver.cuCtxSetCurrent(context))
    provoked["zero bytes"] = (driver.cuMemAlloc(0)[0], R.CUDA_ERROR_INVALID_VALUE)
    provoked["bad image"] = (driver.cuModuleLoadData(b"\x7fELF this is not a module\x00")[0], None)

    seen = set()
    for what, (err, want) in provoked.items():
        expect(isinstance(err, R), f"{what}: the status is a {type(err).__name__}, not a CUresult")
        expect(err != R.CUDA_SUCCESS, f"{what}: the call succeeded")
        expect(want is None or err == want, f"{what}: {err!r}, expected {want!r}")
        name, text, doc = explain(err)
        print(f"  {what}: {name} ({int(err)}): {text} -- {doc.splitlines()[0] if doc else ''}")
        expect(doc and name == err.name, f"{what}: {err!r} has no docstring of its own or a name other than {name}")
        seen.add(doc)
    expect(len(seen) == len({e for e, _ in provoked.values()}), "different errors explained by one docstring")

    prog = checkCudaErrors(nvrtc.nvrtcCreateProgram(b'extern "C" __global__ void k() { undeclared(); }', b"bad.cu", 0, [], []))
    status = nvrtc.nvrtcCompileProgram(prog, 0, [])[0]
    expect(status == nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION, f"compiling bad.cu gave {status!r}")
    size = checkCudaErrors(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    checkCudaErrors(nvrtc.nvrtcGetProgramLog(prog, log))
    expect(b"undeclared" in log, f"NVRTC's log does not name the undeclared identifier: {log[:200]!r}")
    message = checkCudaErrors(nvrtc.nvrtcGetErrorString(status))
    checkCudaErrors(nvrtc.nvrtcDestroyProgram(prog))
    checkCudaErrors(driver.cuDevicePrimaryCtxRelease(cuDevice))
    return f"{len(provoked)} driver errors explained; NVRTC: {message.decode()}"


if __name__ == "__main__":
    run_sample("error_docs", main)
