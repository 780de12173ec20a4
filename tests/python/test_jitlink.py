"""nvJitLink and NVVM for real (no GPU needed), through cudagen and, as the oracle, NVIDIA's
cuda.bindings, both with the libraries of NVIDIA's wheels: NVRTC -dlto LTO-IR linked into an
sm_90 cubin, a hand-written NVVM IR kernel compiled to PTX, and the same failures raising the
same error class with the same status. The two packages must give the same bytes."""

import importlib

import pytest

from cudagen import nvrtc

import jit_sources  # noqa: E402
from jit_sources import KERNEL, NVVM_IR  # noqa: E402

PACKAGES = ("cudagen", "cuda.bindings")


def _module(package, name):
    """`package.name`, or a skip when it or its library is not there."""
    try:
        m = importlib.import_module(package + "." + name)
        m.version()
    except Exception as e:  # ImportError, LoaderError, cuda.pathfinder's not-found error
        pytest.skip("%s.%s not usable here: %s" % (package, name, str(e).splitlines()[0] if str(e) else type(e).__name__))
    return m


def ltoir():
    """The kernel as LTO-IR for sm_90, from NVRTC (`-dlto`)."""
    err, prog = nvrtc.nvrtcCreateProgram(KERNEL, b"scale.cu", 0, [], [])
    assert err == 0
    err, = nvrtc.nvrtcCompileProgram(prog, 2, [b"-dlto", b"--gpu-architecture=sm_90"])
    assert err == 0, nvrtc.nvrtcGetProgramLog(prog, b" " * nvrtc.nvrtcGetProgramLogSize(prog)[1])
    err, n = nvrtc.nvrtcGetLTOIRSize(prog)
    buf = b" " * n
    err, = nvrtc.nvrtcGetLTOIR(prog, buf)
    assert err == 0
    nvrtc.nvrtcDestroyProgram(prog)
    return buf


def nvvm_ptx(nv, ir):
    """The PTX NVVM compiles `ir` to for compute_90, as text."""
    return jit_sources.nvvm_ptx(nv, ir, 90).rstrip(b"\0").decode()


@pytest.mark.parametrize("package", PACKAGES)
def test_lto_ir_links_into_an_sm_90_cubin(package):
    jl = _module(package, "nvjitlink")
    cubin = jit_sources.link(jl, ltoir(), 90)
    assert cubin[:4] == b"\x7fELF" and b"scale" in cubin


def test_both_packages_link_the_same_cubin():
    ours, theirs = _module("cudagen", "nvjitlink"), _module("cuda.bindings", "nvjitlink")
    data = ltoir()
    assert jit_sources.link(ours, data, 90) == jit_sources.link(theirs, data, 90)
    assert ours.version() == theirs.version()


@pytest.mark.parametrize("package", PACKAGES)
def test_a_link_without_an_arch_raises_missing_arch(package):
    jl = _module(package, "nvjitlink")
    with pytest.raises(jl.nvJitLinkError) as e:
        jl.create(1, ["-lto"])
    assert e.value.status == jl.Result.ERROR_MISSING_ARCH
    assert str(e.value) == "ERROR_MISSING_ARCH (2)"


@pytest.mark.parametrize("package", PACKAGES)
def test_nvvm_compiles_ir_to_ptx(package):
    nv = _module(package, "nvvm")
    ptx = nvvm_ptx(nv, NVVM_IR)
    assert ".entry scale(" in ptx and ".target sm_90" in ptx


def test_both_packages_compile_the_same_ptx():
    ours, theirs = _module("cudagen", "nvvm"), _module("cuda.bindings", "nvvm")
    assert nvvm_ptx(ours, NVVM_IR) == nvvm_ptx(theirs, NVVM_IR)
    assert ours.ir_version() == theirs.ir_version()
    assert ours.get_error_string(ours.Result.ERROR_INVALID_IR) == theirs.get_error_string(theirs.Result.ERROR_INVALID_IR)


@pytest.mark.parametrize("package", PACKAGES)
def test_broken_ir_raises_with_a_log(package):
    nv = _module(package, "nvvm")
    prog = nv.create_program()
    bad = b"this is not IR"
    nv.add_module_to_program(prog, bad, len(bad), "bad.ll")
    with pytest.raises(nv.nvvmError) as e:
        nv.compile_program(prog, 1, ["-arch=compute_90"])
    assert e.value.status in (nv.Result.ERROR_INVALID_IR, nv.Result.ERROR_COMPILATION)
    log = bytearray(nv.get_program_log_size(prog))
    nv.get_program_log(prog, log)
    assert log.rstrip(b"\0"), "empty log"
    nv.destroy_program(prog)


def test_bad_arguments_are_refused_before_the_call():
    """A count larger than its list, a negative count and a str handle are Python errors here
    (cuda.bindings 12.9.5 reads past the list, and so may crash, on the first)."""
    jl = _module("cudagen", "nvjitlink")
    with pytest.raises(ValueError):
        jl.create(2, ["-arch=sm_90"])
    with pytest.raises(OverflowError):
        jl.create(-1, [])
    with pytest.raises(TypeError):
        jl.complete("x")
