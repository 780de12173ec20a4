"""The kernel and NVVM IR of the nvJitLink / NVVM tests (tests/python/test_jitlink.py and the GPU
script tests/gpu/jitnvvm.py), kept free of pytest: the files under tests/kernels/, which the Rust
tests (tests/jit.rs) include too."""

import pathlib

_KERNELS = pathlib.Path(__file__).resolve().parent.parent / "kernels"

# `scale(x, a, n)`: x[i] *= a for i < n, as CUDA C++ (NVRTC) and as NVVM IR (typed pointers,
# nvvmir.version 2.0).
KERNEL = (_KERNELS / "scale.cu").read_bytes()
NVVM_IR = (_KERNELS / "scale.ll").read_bytes()
