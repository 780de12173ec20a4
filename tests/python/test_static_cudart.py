"""The wheel links NVIDIA's static cudart (feature `static-cudart`, on in pyproject.toml), as
cuda.bindings.runtime does: `cudagen.runtime` answers with no shared libcudart in the process,
and `$CUDAGEN_CUDART_PATH` still makes the loader use a shared library instead."""

import os
import subprocess
import sys

_PROBE = """
from cudagen import LoaderError, runtime
try:
    err, version = runtime.cudaRuntimeGetVersion()
    print(int(err), version, runtime.CUDART_VERSION)
except LoaderError as e:
    print("LoaderError", str(e).split(";")[0])
print("mapped" if "libcudart.so" in open("/proc/self/maps").read() else "unmapped")
"""


def _probe(**env):
    clean = {k: v for k, v in os.environ.items() if k != "CUDAGEN_CUDART_PATH"}
    out = subprocess.run([sys.executable, "-c", _PROBE], env=dict(clean, **env), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split("\n")


def test_runtime_is_linked_in():
    answer, maps = _probe()[:2]
    err, version, headers = answer.split()
    # cudaRuntimeGetVersion needs no driver: the linked cudart is of the headers' release
    assert (err, version) == ("0", headers), answer
    assert maps == "unmapped"


def test_override_loads_a_shared_library_instead():
    answer, maps = _probe(CUDAGEN_CUDART_PATH="/nonexistent/libcudart.so")[:2]
    assert answer.startswith("LoaderError /nonexistent/libcudart.so not found (needed for cudaRuntimeGetVersion"), answer
    assert maps == "unmapped"
