"""The installed wheel over every nvJitLink of `.cache/nvjitlink/<release>/` (12.4, 12.9, 13.0,
13.5: fetched by `cargo xtask test`), older or of another major than the wheel's headers: a PTX
kernel links into a cubin through the module, and `python -m cudagen` names the export each
versioned entry was bound to. The export expected is found independently, with ctypes: the
header's own name, else the newest earlier release's of the same major, else the unversioned one."""

import glob
import os
import re
import subprocess
import sys

import pytest

from importlib.metadata import version

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = ".".join(version("cudagen").split(".")[:2])  # the release of the wheel's headers
LIBRARIES = sorted(glob.glob(os.path.join(ROOT, ".cache", "nvjitlink", "*", "libnvJitLink.so.*")))

PTX = """.version 7.8
.target sm_90
.address_size 64
.visible .entry noop()
{
    ret;
}
"""

# Run in a fresh interpreter (the library is chosen once per process): link, then the doctor.
PROGRAM = """
import runpy, sys
from cudagen import nvjitlink as jl
h = jl.create(1, ["-arch=sm_90"])
ptx = sys.argv[1].encode()
jl.add_data(h, jl.InputType.PTX, ptx, len(ptx), "noop.ptx")
jl.complete(h)
cubin = bytearray(jl.get_linked_cubin_size(h))
jl.get_linked_cubin(h, cubin)
jl.destroy(h)
print("cubin", bytes(cubin[:4]).hex(), len(cubin))
sys.argv = ["cudagen"]
runpy.run_module("cudagen", run_name="__main__")
"""


def test_every_release_is_fetched():
    releases = {os.path.basename(os.path.dirname(p)) for p in LIBRARIES}
    assert {"12.4", "12.9", "13.0"} <= releases, "run `cargo xtask test` to fetch them: %s" % sorted(releases)


def _expected(library, symbol):
    """The export `library` binds for the header's `symbol` (`__nvJitLinkCreate_12_9`), asked of
    ctypes in a subprocess (a library loaded here would stand in for the one the tests load)."""
    name, major, minor = re.fullmatch(r"__(\w+?)_(\d+)_(\d+)", symbol).groups()
    names = [symbol] + ["__%s_%s_%d" % (name, major, k) for k in range(int(minor) - 1, -1, -1)] + [name]
    probe = "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); print(next((n for n in sys.argv[2:] if hasattr(lib, n)), ''))"
    return subprocess.run([sys.executable, "-c", probe, library] + names, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda p: os.path.basename(os.path.dirname(p)))
def test_the_module_links_over_the_library_and_the_doctor_names_each_export_bound(library):
    env = dict(os.environ, CUDAGEN_NVJITLINK_PATH=library)
    p = subprocess.run([sys.executable, "-c", PROGRAM, PTX], env=env, capture_output=True, text=True, timeout=120)
    out = p.stdout
    header_create = "__nvJitLinkCreate_" + HEADERS.replace(".", "_")
    if not _expected(library, header_create):
        # a library with none of the names (12.0 and 12.1 export no unversioned ones) is an error
        # naming each export tried
        assert p.returncode and "LoaderError: %s (CUDA %s) not found in %s, nor its other exports" % (header_create, HEADERS, library) in p.stderr, p.stderr
        return
    assert "cubin 7f454c46" in out, "no cubin (exit %d):\n%s%s" % (p.returncode, out, p.stderr)
    line = next(l for l in out.splitlines() if l.startswith("nvjitlink "))
    assert library in line and " of " in line, line
    bound, total = map(int, re.search(r"(\d+) of (\d+) entries", line).groups())
    # a library older than the headers lacks the functions added since (and only those)
    own_release = os.path.basename(os.path.dirname(library)) == HEADERS
    assert bound == total if own_release else 0 < bound <= total, line
    rebound = re.findall(r"^bound NvJitLink: (\S+) -> (\S+)(?: \(\+(\d+) names of other releases\))? \((.*)\)$", out, re.M)
    create = [r for r in rebound if r[0].startswith("__nvJitLinkCreate_")]
    if os.path.basename(os.path.dirname(library)) == HEADERS:
        assert not rebound, "the headers' own release has their names:\n" + out
        return
    assert create, "nothing rebound over an older release:\n" + out
    assert create[0][0] == header_create, out
    assert create[0][1] == _expected(library, create[0][0]), out
    assert all(r[3] == library for r in rebound), out
