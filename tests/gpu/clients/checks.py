"""Check runner shared by tests/gpu/clients/cuda_core_*.py.

Each check prints ``<program>/<check>: PASS`` or ``... FAIL <reason>``; a check whose inputs an
earlier failed check should have made prints ``SKIP``. ``finish()`` prints ``<program>: PASS`` or
``<program>: FAIL <n> of <m> checks: <names>`` and exits 0 or 1.
"""

import ctypes
import sys
import traceback

import numpy as np


class Checks:
    def __init__(self, program):
        self.program = program
        self.failed = []
        self.passed = 0

    def __call__(self, what, fn, *needs):
        """Runs ``fn()``: a check fails when it raises or returns False; returns fn's value."""
        if any(n is None for n in needs):
            print(f"{self.program}/{what}: SKIP (an earlier check failed)", flush=True)
            return None
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001  (every error is a failed check, with its trace)
            traceback.print_exc(limit=4)
            first = str(e).splitlines()[0] if str(e) else ""
            return self._fail(what, f"{type(e).__name__}: {first}")
        if value is False:
            return self._fail(what, "result differs from NumPy's")
        self.passed += 1
        print(f"{self.program}/{what}: PASS", flush=True)
        return value

    def _fail(self, what, why):
        self.failed.append(what)
        print(f"{self.program}/{what}: FAIL {why}", flush=True)
        return None

    def finish(self):
        total = self.passed + len(self.failed)
        if self.failed:
            print(f"{self.program}: FAIL {len(self.failed)} of {total} checks: {', '.join(self.failed)}")
            sys.exit(1)
        print(f"{self.program}: PASS ({total} checks)")
        sys.exit(0)


def host_array(buf, dtype, count):
    """A NumPy view of ``count`` elements of a host-accessible cuda.core Buffer."""
    nbytes = count * np.dtype(dtype).itemsize
    raw = (ctypes.c_char * nbytes).from_address(int(buf.handle))
    return np.frombuffer(raw, dtype=dtype, count=count)


def driver_ok(result):
    """The value(s) of a cuda.bindings-style result tuple; raises when its status is not success."""
    from cuda.bindings import driver

    if result[0] != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"driver call failed: {result[0]!r}")
    return result[1] if len(result) == 2 else (None if len(result) == 1 else result[1:])
