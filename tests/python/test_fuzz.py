"""Hostile input at the boundary: no argument crashes the interpreter or the library through us.

`fuzz_boundary.py` calls every function of `driver`, `nvrtc`, `nvjitlink` and `nvvm` with hostile
values, each batch in a subprocess (a crash is named with its call). CI runs the
one-parameter-at-a-time sweep of every function plus a few random calls per function; `cargo
xtask fuzz --calls N` runs longer. nvJitLink and NVVM are NVIDIA's libraries of the test
virtualenv's wheels, and the same plan runs through cuda.bindings as the oracle. The NVRTC buffer
and count cases also run under PYTHONMALLOC=debug.
"""

import importlib
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fuzz_boundary  # noqa: E402

SEED = 20261123
JIT = ("nvjitlink", "nvvm")
REFUSED = ("TypeError", "ValueError", "OverflowError", "BufferError")


def test_every_function_with_hostile_values():
    """0 crashes; only TypeError, ValueError, OverflowError, BufferError or LoaderError, each
    naming its function."""
    calls = int(os.environ.get("CUDAGEN_FUZZ_CALLS", "2"))
    s = fuzz_boundary.run(calls, SEED, 20000, ["nvrtc", "driver"])
    print(f"fuzz: {s['calls']} calls, {len(s['crashes'])} crashes, {s['seconds']} s")
    assert s["per_module"]["driver"]["made"] > 50000 and s["per_module"]["nvrtc"]["made"] > 2000
    assert not s["crashes"], s["crashes"][:10]
    assert not s["bad_exceptions"], s["bad_exceptions"][:10]


def _jit_libraries():
    """Skips unless both packages load nvJitLink and NVVM (the virtualenv's NVIDIA wheels)."""
    for package in ("cudagen", "cuda.bindings"):
        for name in JIT:
            try:
                m = importlib.import_module(package + "." + name)
                m.version()
                if name == "nvjitlink":  # a library of another major lacks the versioned entries
                    m.destroy(m.create(1, ["-arch=sm_80"]))
            except Exception as e:  # ImportError, LoaderError, cuda.pathfinder's not-found error
                pytest.skip("%s.%s not usable here: %s" % (package, name, e))


def _sweep(module, calls):
    """{plan index: (function, parameter, value)} of the plan's one-parameter calls."""
    funcs = fuzz_boundary.functions(module)
    pool = fuzz_boundary.Pool(module)
    out = {}
    for k, (fi, overrides) in enumerate(fuzz_boundary.plan(funcs, len(pool.values), SEED, calls)):
        if len(overrides) == 1:
            (p, v), = overrides
            out[k] = (funcs[fi][0], funcs[fi][1][p][0], pool.describe(pool.values[v]))
    return out


def _range_mismatches(ours, theirs, calls):
    """One-parameter calls whose integer cuda.bindings refuses as out of its C type's range
    (OverflowError: an intptr_t handle or address, a size_t, a C int enum or count) and cudagen
    takes: it must raise OverflowError too, or TypeError where it takes no int at all (an int
    address of an options array)."""
    out = []
    for module in JIT:
        for k, call in _sweep(module, calls).items():
            t, o = theirs["outcomes"][module].get(k), ours["outcomes"][module].get(k)
            if t == "OverflowError" and o not in ("OverflowError", "TypeError"):
                out.append((module,) + call + (o,))
    return out


def test_jit_modules_with_the_real_libraries():
    """nvJitLink and NVVM of NVIDIA's wheels behind both packages, one plan: 0 crashes here (the
    guarded buffers make a read or write past a buffer a crash, not a silent over-read), every
    refusal names the function and a parameter, no `bytes` argument is written (cuda.bindings'
    nvjitlink and nvvm take no read-only output buffer); and every int cuda.bindings refuses as
    out of its C type's range is an OverflowError here too. cuda.bindings' own crashes on the same
    calls are counted, not judged."""
    _jit_libraries()
    calls = int(os.environ.get("CUDAGEN_FUZZ_CALLS", "2"))
    ours = fuzz_boundary.run(calls, SEED, 4000, list(JIT), strict=True)
    theirs = fuzz_boundary.run(calls, SEED, 4000, list(JIT), side="theirs")
    tally = Counter()
    for module in JIT:
        for k, o in ours["outcomes"][module].items():
            t = theirs["outcomes"][module].get(k)
            tally[("refused" if t in REFUSED else t, "refused" if o in REFUSED else o)] += 1
    print(f"jit fuzz: {ours['calls']} calls, {len(ours['crashes'])} crashes here, "
          f"{len(theirs['crashes'])} in cuda.bindings; (theirs, ours): {dict(sorted(tally.items()))}")
    assert ours["calls"] > 3000 and ours["calls"] == theirs["calls"], (ours["per_module"], theirs["per_module"])
    assert not ours["crashes"], ours["crashes"][:10]
    assert not ours["bad_exceptions"], ours["bad_exceptions"][:10]
    assert tally[("refused", "refused")] > 2000, tally
    mismatches = _range_mismatches(ours, theirs, calls)
    assert not mismatches, mismatches[:20]


# The nvJitLink and NVVM cases of issue 33 (class 10): (function, the parameter its refusal
# names, the arguments after a real handle `h`), each called in a fresh interpreter so that a crash
# fails the test instead of ending the run.
JIT_CALLS = {
    "nvjitlink": {
        "size_over": ("add_data", "data", "2, b'x', 4096, 'm'"),
        "size_2p63": ("add_data", "data", "2, b'x', 2**63, 'm'"),
        "none_sized": ("add_data", "data", "2, None, 16, 'm'"),
        "guarded": ("add_data", "data", "2, fuzz_boundary.guarded(1, False), 4096, 'm'"),
        "bytes_log": ("get_error_log", "log", "b'x' * 64"),
    },
    "nvvm": {
        "size_over": ("add_module_to_program", "buffer", "b'x', 4096, 'm'"),
        "size_2p63": ("lazy_add_module_to_program", "buffer", "b'x', 2**63, 'm'"),
        "none_sized": ("add_module_to_program", "buffer", "None, 16, 'm'"),
        "guarded": ("add_module_to_program", "buffer", "fuzz_boundary.guarded(1, False), 4096, 'm'"),
        "bytes_log": ("get_program_log", "buffer", "b'x' * 64"),
    },
}
JIT_CASE = textwrap.dedent(
    r'''
    import importlib, sys
    package, here, module, func, args, handle_2p63 = sys.argv[1:7]
    sys.path.insert(0, here)
    import fuzz_boundary
    m = importlib.import_module(package + "." + module)
    h = m.create(1, ["-arch=sm_80"]) if module == "nvjitlink" else m.create_program()
    if handle_2p63 == "1":
        h = 2**63
    given = eval("(%s,)" % args) if args else ()
    before = [bytes(bytearray(a)) for a in given if type(a) is bytes]
    try:
        getattr(m, func)(h, *given)
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
    assert before == [a for a in given if type(a) is bytes], "a bytes argument was written"
    '''
)


def _jit_case(package, module, func, args, handle_2p63, tmp_path):
    """What `package.module.func(handle, *args)` raises (`ok` when it returns), in a fresh
    interpreter that must not crash."""
    script = tmp_path / "case.py"
    script.write_text(JIT_CASE)
    cmd = [sys.executable, str(script), package, str(HERE), module, func, args, "1" if handle_2p63 else "0"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, (package, module, func, args, p.returncode, p.stderr[-2000:])
    return p.stdout.strip()


@pytest.mark.parametrize("module", JIT)
@pytest.mark.parametrize("case", ["size_over", "size_2p63", "none_sized", "guarded", "bytes_log"])
def test_jit_buffers_as_cuda_bindings_refuses_them(module, case, tmp_path):
    """A size larger than its buffer (2**63 too), None with a size, a buffer right before an
    unmapped page: ValueError here and in cuda.bindings 12.9; a `bytes` output buffer: refused
    unwritten (cuda.bindings' ValueError, here a TypeError: not a writable buffer). Each names the
    function and the parameter; none crashes or reads past the buffer."""
    _jit_libraries()
    func, param, args = JIT_CALLS[module][case]
    ours = _jit_case("cudagen", module, func, args, False, tmp_path)
    theirs = _jit_case("cuda.bindings", module, func, args, False, tmp_path)
    assert theirs.startswith("ValueError"), theirs
    assert ours.startswith("TypeError" if case == "bytes_log" else "ValueError"), ours
    assert f"{func}()" in ours and f"'{param}'" in ours, ours


@pytest.mark.parametrize("module, func, param", [("nvjitlink", "complete", "handle"), ("nvvm", "get_program_log_size", "prog")])
def test_jit_handles_beyond_intptr_t(module, func, param, tmp_path):
    """A handle of 2**63: cuda.bindings' intptr_t raises OverflowError, and so does cudagen,
    naming the function and the parameter, before the library sees it."""
    _jit_libraries()
    ours = _jit_case("cudagen", module, func, "", True, tmp_path)
    theirs = _jit_case("cuda.bindings", module, func, "", True, tmp_path)
    assert theirs.startswith("OverflowError") and ours.startswith("OverflowError"), (ours, theirs)
    assert f"{func}()" in ours and f"'{param}'" in ours, ours


# The NVRTC buffer and count cases, run in a fresh interpreter (under PYTHONMALLOC=debug, which
# catches a write past a Python buffer when it is freed).
CASES = textwrap.dedent(
    r'''
    import sys
    import cudagen
    from cudagen import nvrtc
    src = b'extern "C" __global__ void k(float *x) { x[threadIdx.x] = 2.0f; }'
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    assert int(err) == 0
    err, = nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=compute_80"])
    assert int(err) == 0, err
    seen = []
    def expect(exc, f, *args):
        try:
            f(*args)
        except exc as e:
            assert f.__name__ in str(e), e
            seen.append(type(e).__name__)
            return
        raise AssertionError(f"{f.__name__}{args!r} did not raise {exc.__name__}")
    err, n = nvrtc.nvrtcGetPTXSize(prog)
    for short in (b" " * 3, bytearray(3), bytearray(n - 1)):
        expect(ValueError, nvrtc.nvrtcGetPTX, prog, short)
    expect(TypeError, nvrtc.nvrtcGetPTX, prog, memoryview(bytearray(n)).toreadonly())
    expect(TypeError, nvrtc.nvrtcGetPTX, prog, 0)
    expect(ValueError, nvrtc.nvrtcGetPTX, prog, None)
    err, logn = nvrtc.nvrtcGetProgramLogSize(prog)
    expect(ValueError, nvrtc.nvrtcGetProgramLog, prog, b"")
    for get in ("CUBIN", "LTOIR", "NVVM", "OptiXIR"):
        f = getattr(nvrtc, "nvrtcGet" + get)
        try:
            f(prog, b"")
        # LoaderError: the installed NVRTC lacks the function (NVRTC 13 dropped nvrtcGetNVVM*)
        except (ValueError, cudagen.LoaderError) as e:
            assert f.__name__ in str(e) or f.__name__ + "Size" in str(e), e
    expect(ValueError, nvrtc.nvrtcCompileProgram, prog, 8, [b"-w"])
    expect(ValueError, nvrtc.nvrtcCompileProgram, prog, -1, [])
    expect(ValueError, nvrtc.nvrtcCreateProgram, src, b"k.cu", 50, [b"h"], [b"n"])
    expect(ValueError, nvrtc.nvrtcCreateProgram, src, b"k.cu", 2, [b"h", b"i"], [b"n"])
    for bad in (b"bytes", 1.5, [prog], nvrtc.nvrtcResult.NVRTC_SUCCESS, True):
        expect(TypeError, nvrtc.nvrtcDestroyProgram, bad)
    expect(TypeError, nvrtc.nvrtcSetFlowCallback, prog, 12345, None)
    # exact sizes work: bytes (as cuda.bindings' `b" " * size` pattern) and bytearray
    for buf in (b" " * n, bytearray(n)):
        err, = nvrtc.nvrtcGetPTX(prog, buf)
        assert int(err) == 0 and bytes(buf).startswith(b"//"), bytes(buf[:20])
    log = bytearray(logn)
    assert int(nvrtc.nvrtcGetProgramLog(prog, log)[0]) == 0
    err, = nvrtc.nvrtcDestroyProgram(prog)
    assert int(err) == 0 and int(prog) == 0
    print("ok", len(seen))
    '''
)


@pytest.mark.parametrize("malloc", ["debug", "default"])
def test_nvrtc_buffers_and_counts(malloc, tmp_path):
    script = tmp_path / "cases.py"
    script.write_text(CASES)
    env = dict(os.environ, PYTHONMALLOC="debug" if malloc == "debug" else "malloc")
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("ok "), p.stdout


RACE = textwrap.dedent(
    r'''
    import threading
    from cudagen import nvrtc
    body = " ".join(f"x[{i}] = x[{i}] * 2.0f + {i}.0f;" for i in range(3000))
    src = ('extern "C" __global__ void k(float *x) {' + body + '}').encode()
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    assert int(nvrtc.nvrtcCompileProgram(prog, 0, [])[0]) == 0
    err, n = nvrtc.nvrtcGetPTXSize(prog)
    buf = bytearray(n)
    stop = False
    refused = 0
    def shrink():
        global refused
        while not stop:
            try:
                buf[len(buf) // 2:] = b""
                buf.extend(bytes(n - len(buf)))
            except BufferError:
                refused += 1
    t = threading.Thread(target=shrink)
    t.start()
    for _ in range(200):
        try:
            nvrtc.nvrtcGetPTX(prog, buf)
        except ValueError:
            pass  # caught shrunk: too small for the PTX
    stop = True
    t.join()
    print("ok", refused)
    '''
)


def test_buffer_is_held_for_the_call(tmp_path):
    """A thread shrinking a bytearray while nvrtcGetPTX copies into it: the binding holds a
    buffer export for the whole call, so the resize fails with BufferError instead of freeing
    the memory under the library."""
    script = tmp_path / "race.py"
    script.write_text(RACE)
    env = dict(os.environ, PYTHONMALLOC="debug")
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("ok "), p.stdout
