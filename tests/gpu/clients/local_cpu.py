"""The parts of the client programs that need no GPU, run by local_check.sh with and without the
swap: every ``driver.X.Y`` / ``runtime.X`` / ``nvrtc.X`` name the programs use exists in the
module they get; every kernel of theirs compiles with NVRTC for sm_90 (the samples' through
cuda_helpers' NVRTC calls, the cuda_core programs' through cuda.core's Program, which calls the
Python-level nvrtc module); NVRTC's error path as samples/error_docs.py takes it. Prints
``local_cpu: PASS ...`` last; raises on the first failure.
"""

import ast
import importlib
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "samples")]

from cuda.bindings import driver, nvrtc, runtime  # noqa: E402
import cuda_helpers  # noqa: E402
from cuda.core import Program, ProgramOptions  # noqa: E402

MODULES = {"driver": driver, "nvrtc": nvrtc, "runtime": runtime}


def programs():
    for folder in (here, os.path.join(here, "samples")):
        for f in sorted(os.listdir(folder)):
            if f.endswith(".py"):
                yield os.path.join(folder, f)


def attribute_chain(node):
    """``driver.A.B`` as ["driver", "A", "B"] (None when it is not a plain chain of names)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def check_names():
    """Every driver/nvrtc/runtime attribute chain in the programs resolves in the loaded modules."""
    seen = set()
    for path in programs():
        for node in ast.walk(ast.parse(open(path).read(), path)):
            chain = attribute_chain(node) if isinstance(node, ast.Attribute) else None
            if not chain or chain[0] not in MODULES or tuple(chain) in seen:
                continue
            seen.add(tuple(chain))
            obj = MODULES[chain[0]]
            for i, part in enumerate(chain[1:], 1):
                if part.startswith("__") or (i == len(chain) - 1 and part in ("value", "name")):
                    break  # attributes of a member (its docstring, value, name), not the module's names
                assert hasattr(obj, part), f"{os.path.basename(path)}: {'.'.join(chain[:i + 1])} missing in {MODULES[chain[0]].__name__}"
                obj = getattr(obj, part)
    return len(seen)


def kernel_sources(folder, skip):
    for f in sorted(os.listdir(folder)):
        if f.endswith(".py") and f[:-3] not in skip:
            module = importlib.import_module(f[:-3])
            for name, value in vars(module).items():
                if isinstance(value, str) and "__global__" in value:
                    yield f, name, value


def main():
    names = check_names()
    print(f"local_cpu: {names} driver/nvrtc/runtime names used by the programs all resolve ({driver.__name__})")
    count = 0
    for f, name, source in kernel_sources(os.path.join(here, "samples"), {"cuda_helpers"}):
        cubin = cuda_helpers.compile_cubin_for(source, f"{name}.cu", 9, 0)
        assert cubin[:4] == b"\x7fELF", f"{f}: {name}: not an ELF image"
        print(f"local_cpu: {f}: {name}: {len(cubin)}-byte CUBIN ({nvrtc.__name__})")
        count += 1
    for f, name, source in kernel_sources(here, {"checks", "local_cpu", "numba_compare"}):
        templates = ("saxpy<float>", "saxpy<double>") if "template" in source else ()
        code = Program(source, code_type="c++", options=ProgramOptions(std="c++17", arch="sm_90")).compile(
            "cubin", name_expressions=templates)
        assert code.code[:4] == b"\x7fELF", f"{f}: {name}: not an ELF image"
        print(f"local_cpu: {f}: {name}: {len(code.code)}-byte CUBIN through cuda.core.Program")
        count += 1
    prog = cuda_helpers.checkCudaErrors(nvrtc.nvrtcCreateProgram(b"__global__ void k() { undeclared(); }", b"bad.cu", 0, [], []))
    status = nvrtc.nvrtcCompileProgram(prog, 0, [])[0]
    assert status == nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION, status
    size = cuda_helpers.checkCudaErrors(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    cuda_helpers.checkCudaErrors(nvrtc.nvrtcGetProgramLog(prog, log))
    assert b"undeclared" in log, log
    message = cuda_helpers.checkCudaErrors(nvrtc.nvrtcGetErrorString(status))
    print(f"local_cpu: the compile error path gives {message.decode()}")
    print(f"local_cpu: PASS {names} names resolve, {count} kernels compiled")


if __name__ == "__main__":
    main()
