"""Boundary fuzz of every function of a `cudagen` module (`driver`, `nvrtc`, `nvjitlink`, `nvvm`).

Each function is called with hostile values (None, ints at every edge, floats, str, bytes, short
and long lists, handles of the wrong class, enum members, struct instances, numpy arrays,
read-only buffers, buffers right before an unmapped page, callables): first one parameter at a
time with the others benign (read from the `.pyi` stubs, or real handles and inputs of the
libraries), then random combinations. Calls run in batches, each in a subprocess, so a crash is
caught and named with its call; the next batch starts after it. Fixed seed.

Pass: no crash, and every exception is a TypeError, ValueError, OverflowError, BufferError or
cudagen.LoaderError whose message names the function, or the library's own error class of a
raising module (`nvJitLinkError`, `nvvmError`: the library answered). With `strict`: each such
refusal names a parameter too, and no `bytes` argument is written (cuda.bindings' raising
modules take no read-only output buffer).

A read past a buffer or a write into one reaches the unmapped page after the guarded buffers of
the pool, so it is a crash, not a silent over-read. Raw ints in the range of a C pointer and
handles built from nonzero ints are never given where a library dereferences them (a program,
a link handle, a caller buffer): like cuda.bindings, an int address is the caller's promise.
Ints outside that range are given: the binding must refuse them before any call. Driver calls
are made without a driver (the test forces that), so the driver never sees the values; NVRTC,
nvJitLink and NVVM are the real libraries.

`side="theirs"` runs the same plan through cuda.bindings' module of the same name, as the oracle
of each call's outcome (`outcomes`: ok, status, the exception's type, or crash).

    python fuzz_boundary.py [--calls N] [--seed S] [--batch B] [--json OUT]
    python fuzz_boundary.py --child MODULE START STOP SEED CALLS LOG SIDE STRICT   (one batch; internal)
"""

import argparse
import ast
import enum
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ALLOWED = ("TypeError", "ValueError", "OverflowError", "BufferError", "LoaderError")
SOURCE = b'extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }'
PTX = b""".version 7.0
.target sm_80
.address_size 64
.visible .entry k() { ret; }
"""
NVVM_IR = (Path(__file__).resolve().parent.parent / "kernels" / "scale.ll").read_bytes()
# The handle parameter of each module whose library dereferences it, and how a real one is made.
HANDLES = {"nvrtc": "prog", "nvjitlink": "handle", "nvvm": "prog"}
# Caller buffers of the raising modules: an int there is an address the library reads or writes.
ADDRESSES = {"nvjitlink": ("data", "cubin", "ptx", "log"), "nvvm": ("buffer",)}
INTPTR = (-(2**63), 2**63 - 1)


def stubs(module):
    """{function: [(param, annotation text)]} from the package's `.pyi` stub."""
    import cudagen

    path = Path(cudagen.__file__).with_name(f"{module}.pyi")
    tree = ast.parse(path.read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = [(a.arg, ast.unparse(a.annotation) if a.annotation else "Any") for a in node.args.args]
    return out


def module_of(module, side):
    """`cudagen.<module>`, or cuda.bindings' module of the same name (`side="theirs"`)."""
    import importlib

    return importlib.import_module(("cuda.bindings." if side == "theirs" else "cudagen.") + module)


def guarded(n, writable):
    """`n` bytes right before an unmapped page (mapped once per process, never unmapped): a read
    or write past them faults."""
    import ctypes
    import mmap

    page = mmap.PAGESIZE
    m = mmap.mmap(-1, 2 * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if libc.mprotect(base + page, page, 0) != 0:  # PROT_NONE
        raise OSError(ctypes.get_errno(), "mprotect")
    view = memoryview(m)[page - n:page]
    return view if writable else view.toreadonly()


def functions(module):
    """(name, params) of every function the module exports, in name order."""
    m = module_of(module, "ours")
    st = stubs(module)
    names = sorted(n for n in st if callable(getattr(m, n, None)) and not isinstance(getattr(m, n), type))
    return [(n, st[n]) for n in names]


class Pool:
    """The hostile values, built in the child process."""

    def __init__(self, module, side="ours"):
        import ctypes

        import numpy as np

        from cudagen import driver, nvrtc

        self.driver, self.nvrtc, self.module, self.side, self.np = driver, nvrtc, module, side, np
        self.m = module_of(module, side)

        class Color(enum.IntEnum):
            RED = 1

        edges = [0, 1, -1, 2, 255, 256, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32,
                 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 10**30, -(10**30)]
        self.ints = edges
        others = [
            None, 0.0, 1.5, -1.5, float("nan"), float("inf"), True, False,
            "", "str", "-w", b"", b"x", b"bytes\0nul", b" " * 3, bytearray(1), bytearray(4096),
            memoryview(b"read-only").toreadonly(), memoryview(bytearray(4096)).toreadonly(),
            [], [0], [None], [b"-w"], ["-w"], [0] * 64, [b"-w"] * 64, [1.5], [object()], (0, 1), {}, {0: 1},
            object(), Color.RED, driver.CUresult.CUDA_ERROR_INVALID_VALUE, nvrtc.nvrtcResult.NVRTC_SUCCESS,
            np.int64(3), np.uint32(7), np.float32(1.0), np.zeros(4, np.uint64), np.zeros(4096, np.uint8),
            np.zeros((2, 2), np.float32), np.zeros(8, np.uint8)[::2],
            ctypes.c_int(1), ctypes.create_string_buffer(16), ctypes.c_void_p(0),
            driver.CUcontext(0), driver.CUdevice(0), driver.CUstream(0), driver.CUdeviceptr(0),
            driver.CUevent(0), driver.CUgraph(0), driver.CUgraphNode(0), nvrtc.nvrtcProgram(0),
            driver.CUcontext(0x1000), driver.CUdevice(7), driver.CUdeviceptr(0x1000), driver.CUstream(0x1000),
            driver.CUmemLocation(), driver.CUDA_MEMCPY2D(), driver.CUipcEventHandle(), driver.CUuuid(),
            [driver.CUmemLocation()], [driver.CUstreamBatchMemOpParams()], [driver.CUcontext(0)],
            [driver.CUgraphNode(0)] * 3, [nvrtc.nvrtcProgram(0)],
            lambda *a: 0, print, len,
            guarded(1, False), guarded(1, True), guarded(64, True),
        ]
        self.values = self.ints + others
        self.names = {id(v): self.describe(v) for v in self.values}

    def describe(self, v):
        r = repr(v)
        return r if len(r) < 60 else r[:57] + "..."

    def handle(self):
        """A fresh handle of the module's library (never destroyed: batches are short-lived
        processes)."""
        if self.module == "nvjitlink":
            return self.m.create(1, ["-arch=sm_80"])
        if self.module == "nvvm":
            return self.m.create_program()
        err, prog = self.m.nvrtcCreateProgram(SOURCE, b"k.cu", 0, [], [])
        assert int(err) == 0, err
        return prog

    def safe(self, func, param, v):
        """False for values that stand for a raw handle or address the library dereferences (the
        caller's promise): an int of a C pointer's range but 0 for a handle; any for an address."""
        if param != HANDLES.get(self.module) and param not in ADDRESSES.get(self.module, ()):
            return True
        if isinstance(v, self.np.integer):
            v = int(v)  # a numpy integer is the int it holds, as a handle or address
        if isinstance(v, int) and not isinstance(v, enum.Enum) and not isinstance(v, bool):
            in_range = INTPTR[0] <= v < 2**64
            return not in_range or (v == 0 and param == HANDLES.get(self.module))
        if isinstance(v, self.nvrtc.nvrtcProgram):
            return int(v) == 0
        return True

    def jit_benign(self, func, param):
        """A real input of the raising modules (nvJitLink, NVVM), or None for the stub's value."""
        if param == HANDLES.get(self.module):
            return self.handle()
        source = PTX if self.module == "nvjitlink" else NVVM_IR
        inputs = {
            "input_type": 2, "data": bytearray(source), "buffer": bytearray(source), "size": len(source),
            "name": "m", "file_name": "/nonexistent/m.ptx", "cubin": bytearray(1 << 16),
            "ptx": bytearray(1 << 16), "log": bytearray(1 << 16), "num_options": 0, "options": [],
        }
        return inputs.get(param)

    def benign(self, ann, param, func=None):
        """A value the parameter accepts, from its stub annotation."""
        if param == HANDLES.get(self.module):
            return self.handle()
        if self.module in ADDRESSES:
            v = self.jit_benign(func, param)
            if v is not None:
                return v
        a = ann.replace(" ", "")
        if a.startswith("Sequence") or a.startswith("list"):
            return []
        if a.startswith("bytes"):
            return b"-w"
        if a.startswith("float"):
            return 0.0
        if a.startswith("Callable") or a == "Any":
            return 0 if a == "Any" else None
        head = a.split("|")[0]
        mod = self.driver if hasattr(self.driver, head) else self.nvrtc
        cls = getattr(mod, head, None)
        if isinstance(cls, type) and not issubclass(cls, enum.Enum):
            try:
                return cls()
            except Exception:
                return 0
        return 0


def plan(funcs, n_values, seed, extra):
    """Sweep (each parameter x each value) then `extra` random calls per function."""
    rng = random.Random(seed)
    out = []
    for fi, (_, params) in enumerate(funcs):
        if not params:
            out.append((fi, ()))
        for pi in range(len(params)):
            for vi in range(n_values):
                out.append((fi, ((pi, vi),)))
        for _ in range(extra):
            if params:
                k = rng.randint(1, len(params))
                pos = rng.sample(range(len(params)), k)
                out.append((fi, tuple((p, rng.randrange(n_values)) for p in sorted(pos))))
    return out


def status_classes(m):
    """The module's own exception classes (`nvJitLinkError`): the library answered a call."""
    return tuple(v for v in vars(m).values() if isinstance(v, type) and issubclass(v, Exception))


def judge(e, name, params, status):
    """The outcome of a call that raised `e`, and why it is bad (or None)."""
    if isinstance(e, status):
        return "status", None
    tn, msg = type(e).__name__, str(e)
    if tn not in ALLOWED or name not in msg:
        return tn, "a refusal that is not a boundary error naming the function"
    if params is not None and not any(f"'{p}'" in msg or f"{p} (" in msg for p, _ in params):
        return tn, "a refusal that names no parameter"
    return tn, None


def child(module, start, stop, seed, extra, log, side="ours", strict=False):
    """Runs calls [start, stop) of the plan, logging each before it is made and its outcome."""
    pool = Pool(module, side)
    funcs = functions(module)
    m = pool.m
    status = status_classes(m)
    todo = plan(funcs, len(pool.values), seed, extra)[start:stop]
    bad, made = [], 0
    with open(log, "a", buffering=1) as f:
        for k, (fi, overrides) in enumerate(todo, start):
            name, params = funcs[fi]
            if any(not pool.safe(name, params[p][0], pool.values[v]) for p, v in overrides):
                continue
            args = [pool.benign(ann, p, name) for p, ann in params]
            for p, v in overrides:
                args[p] = pool.values[v]
            desc = f"{module}.{name}(" + ", ".join(pool.describe(a) for a in args) + ")"
            frozen = [(a, bytes(bytearray(a))) for a in args if type(a) is bytes]
            f.write(f"CALL {k} {desc}\n")
            made += 1
            outcome, why = "ok", None
            try:
                getattr(m, name)(*args)
            except BaseException as e:  # noqa: BLE001 - every exception is judged
                outcome, why = judge(e, name, params if strict else None, status)
                if why:
                    bad.append({"call": desc, "type": outcome, "message": str(e)[:300], "why": why})
            if strict and any(a != was for a, was in frozen):
                bad.append({"call": desc, "type": outcome, "message": "", "why": "a bytes argument was written"})
            f.write(f"OUT {k} {outcome}\n")
        f.write(f"DONE {stop} {made} {json.dumps(bad if side == 'ours' else [])}\n")


def run(calls_per_function, seed, batch, modules, env_extra=None, budget_s=None, side="ours", strict=False):
    """Runs every batch in a subprocess; returns the summary, with each call's outcome by
    module and plan index (`outcomes`)."""
    env = dict(os.environ)
    env["CUDAGEN_LIBCUDA"] = "/nonexistent/libcuda.so.1"  # no driver: its calls never reach one
    env.update(env_extra or {})
    summary = {"calls": 0, "crashes": [], "bad_exceptions": [], "seed": seed, "per_module": {}, "outcomes": {}}
    t0 = time.monotonic()
    for module in modules:
        code = (
            "import sys; sys.path.insert(0, %r); import fuzz_boundary as f; "
            "print(len(f.plan(f.functions(%r), len(f.Pool(%r).values), %d, %d)))"
        ) % (str(Path(__file__).parent), module, module, seed, calls_per_function)
        total = int(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout)
        start, made = 0, 0
        log = Path(os.environ.get("TMPDIR", "/tmp")) / f"cudagen_fuzz_{os.getpid()}_{side}_{module}.log"
        outcomes = summary["outcomes"].setdefault(module, {})
        while start < total:
            if budget_s is not None and time.monotonic() - t0 > budget_s:
                summary.setdefault("stopped_early", []).append(f"{module} at {start}/{total}")
                break
            stop = min(start + batch, total)
            log.write_text("")
            p = subprocess.run(
                [sys.executable, __file__, "--child", module, str(start), str(stop), str(seed), str(calls_per_function),
                 str(log), side, "1" if strict else "0"],
                env=env, capture_output=True, text=True,
            )
            lines = log.read_text().splitlines()
            for l in lines:
                if l.startswith("OUT "):
                    _, k, o = l.split(" ", 2)
                    outcomes[int(k)] = o
            done = [l for l in lines if l.startswith("DONE ")]
            if p.returncode == 0 and done:
                _, _, n, bad = done[-1].split(" ", 3)
                made += int(n)
                summary["bad_exceptions"] += json.loads(bad)
                start = stop
                continue
            last = [l for l in lines if l.startswith("CALL ")]
            made += len(last)
            if not last:
                raise RuntimeError(f"batch {module}[{start}:{stop}] failed before any call: {p.stderr[-2000:]}")
            k, desc = last[-1].split(" ", 2)[1:]
            outcomes[int(k)] = "crash"
            summary["crashes"].append({"call": desc, "returncode": p.returncode, "stderr": p.stderr[-300:]})
            start = int(k) + 1
        summary["per_module"][module] = {"planned": total, "made": made}
        summary["calls"] += made
        log.unlink(missing_ok=True)
    summary["seconds"] = round(time.monotonic() - t0, 1)
    return summary


def merged(summaries):
    """One summary of the runs of several modules."""
    out = {"calls": 0, "crashes": [], "bad_exceptions": [], "seed": summaries[0]["seed"], "per_module": {}, "outcomes": {},
           "seconds": 0.0}
    for s in summaries:
        for key in ("calls", "crashes", "bad_exceptions", "seconds"):
            out[key] += s[key]
        out["per_module"].update(s["per_module"])
        out["outcomes"].update(s["outcomes"])
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        module, start, stop, seed, extra, log, side, strict = sys.argv[2:10]
        child(module, int(start), int(stop), int(seed), int(extra), log, side, strict == "1")
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20, help="random calls per function, after the sweep")
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--batch", type=int, default=4000)
    ap.add_argument("--modules", default="nvrtc,driver,nvjitlink,nvvm")
    ap.add_argument("--strict", default="nvjitlink,nvvm", help="modules whose refusals name a parameter and that write no bytes")
    ap.add_argument("--json")
    a = ap.parse_args()
    strict = set(a.strict.split(","))
    s = merged([run(a.calls, a.seed, a.batch, [m], strict=m in strict) for m in a.modules.split(",")])
    text = json.dumps(s, indent=1)
    if a.json:
        Path(a.json).write_text(text)
    print(f"calls: {s['calls']}, crashes: {len(s['crashes'])}, other exceptions: {len(s['bad_exceptions'])}, {s['seconds']} s")
    for c in s["crashes"][:50]:
        print("CRASH", c["returncode"], c["call"])
    for b in s["bad_exceptions"][:50]:
        print("BAD", b["type"], b["call"], "->", b["message"][:200])
    sys.exit(1 if s["crashes"] or s["bad_exceptions"] else 0)


if __name__ == "__main__":
    main()
