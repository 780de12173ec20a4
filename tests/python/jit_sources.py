"""The kernel and NVVM IR of the nvJitLink / NVVM tests (tests/python/test_jitlink.py and the GPU
script tests/gpu/jitnvvm.py), kept free of pytest: the files under tests/kernels/, which the Rust
tests (tests/jit.rs) include too, and the link and compile steps both run through either
package's module (cudagen's or cuda.bindings')."""

import pathlib

_KERNELS = pathlib.Path(__file__).resolve().parent.parent / "kernels"

# `scale(x, a, n)`: x[i] *= a for i < n, as CUDA C++ (NVRTC) and as NVVM IR (typed pointers,
# nvvmir.version 2.0).
KERNEL = (_KERNELS / "scale.cu").read_bytes()
NVVM_IR = (_KERNELS / "scale.ll").read_bytes()


def link(jl, data, sm):
    """nvJitLink (the module `jl`) links the LTO-IR `data` into a cubin for sm_<sm>."""
    h = jl.create(2, ["-arch=sm_%d" % sm, "-lto"])
    if not isinstance(h, int) or h == 0:
        raise RuntimeError("nvJitLinkCreate gave the handle %r" % (h,))
    jl.add_data(h, jl.InputType.LTOIR, data, len(data), "scale.ltoir")
    jl.complete(h)
    cubin = bytearray(jl.get_linked_cubin_size(h))
    jl.get_linked_cubin(h, cubin)
    jl.destroy(h)
    return bytes(cubin)


def nvvm_ptx(nv, ir, sm):
    """NVVM (the module `nv`) verifies and compiles the IR `ir` for compute_<sm>: the PTX as NVVM
    gives it (with its NUL, as cuModuleLoadData takes it)."""
    prog = nv.create_program()
    nv.add_module_to_program(prog, ir, len(ir), "scale.ll")
    options = ["-arch=compute_%d" % sm]
    nv.verify_program(prog, len(options), options)
    nv.compile_program(prog, len(options), options)
    ptx = bytearray(nv.get_compiled_result_size(prog))
    nv.get_compiled_result(prog, ptx)
    nv.destroy_program(prog)
    return bytes(ptx)
