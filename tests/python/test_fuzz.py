"""Hostile input at the boundary: no argument crashes the interpreter or the library through us.

`fuzz_boundary.py` calls every function of `driver` and `nvrtc` with hostile values, each batch
in a subprocess (a crash is named with its call). CI runs the one-parameter-at-a-time sweep of
every function plus a few random calls per function; `cargo xtask fuzz --calls N` runs longer.
The NVRTC buffer and count cases also run under PYTHONMALLOC=debug.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fuzz_boundary  # noqa: E402


def test_every_function_with_hostile_values():
    """0 crashes; only TypeError, ValueError, OverflowError, BufferError or LoaderError, each
    naming its function."""
    calls = int(os.environ.get("CUDAGEN_FUZZ_CALLS", "2"))
    s = fuzz_boundary.run(calls, 20261123, 20000, ["nvrtc", "driver"])
    print(f"fuzz: {s['calls']} calls, {len(s['crashes'])} crashes, {s['seconds']} s")
    assert s["per_module"]["driver"]["made"] > 50000 and s["per_module"]["nvrtc"]["made"] > 2000
    assert not s["crashes"], s["crashes"][:10]
    assert not s["bad_exceptions"], s["bad_exceptions"][:10]


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
