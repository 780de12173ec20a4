"""Import time of cudagen's Python modules against NVIDIA's cuda.bindings, side by side in one
run (a benchmark, not a test: it asserts nothing about time; no GPU needed).

Each sample is a fresh interpreter that times one ``import`` with ``time.perf_counter`` (as
tests/python/bench_python.py does), ``.pyc`` files written by a warm-up import (``PYTHONDONTWRITEBYTECODE`` is dropped). Every
round runs each side once per module, the order of the sides reversed every other round; the
table gives the median of each side and the median of the per-round ratios to cuda.bindings,
which cancels slow drift of a shared machine.

    python tests/benches/import_time.py [--runs 31] [--tree LABEL=DIR ...]

``--tree`` adds a cudagen side imported from ``DIR`` (put first on ``PYTHONPATH``), e.g. the
Python files of two commits over one installed extension; without it the installed cudagen is
the one side.
"""

import argparse
import os
import statistics
import subprocess
import sys

MODULES = ("driver", "runtime", "nvrtc")
CODE = "import time; t = time.perf_counter(); import %s; print(time.perf_counter() - t)"


def sample(module, path):
    """Seconds one fresh interpreter takes to import ``module`` (``path``: a PYTHONPATH prefix)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up writes the .pyc files
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = subprocess.run([sys.executable, "-c", CODE % module], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout)


def sides(trees):
    """``(label, package, PYTHONPATH prefix)`` of every side, cuda.bindings last."""
    ours = [(label, "cudagen", path) for label, path in trees] or [("cudagen", "cudagen", None)]
    return ours + [("cuda.bindings", "cuda.bindings", None)]


def measure(module, all_sides, runs):
    """Per side, the import times of ``<package>.<module>`` over ``runs`` rounds."""
    times = {label: [] for label, _, _ in all_sides}
    for _, package, path in all_sides:  # warm-up: writes the .pyc files
        sample("%s.%s" % (package, module), path)
    for r in range(runs):
        for label, package, path in (all_sides if r % 2 == 0 else all_sides[::-1]):
            times[label].append(sample("%s.%s" % (package, module), path))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=31, help="rounds (fresh imports per side and module)")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR", help="a cudagen side from DIR")
    args = parser.parse_args()
    trees = [tuple(t.split("=", 1)) for t in args.tree]
    all_sides = sides(trees)
    import cuda.bindings

    print("Python %s, cuda.bindings %s, %d rounds, median ms of a fresh `import`; ratio: median of "
          "per-round ratios to cuda.bindings" % (sys.version.split()[0], cuda.bindings.__version__, args.runs))
    head = " | ".join("%s ms" % label for label, _, _ in all_sides)
    ratios = " | ".join("%s ratio" % label for label, _, _ in all_sides[:-1])
    print("| module | %s | %s |" % (head, ratios))
    print("| --- |" + " ---: |" * (2 * len(all_sides) - 1))
    for module in MODULES:
        times = measure(module, all_sides, args.runs)
        theirs = times["cuda.bindings"]
        cells = ["%.1f" % (statistics.median(times[label]) * 1e3) for label, _, _ in all_sides]
        cells += ["%.2fx" % statistics.median(a / b for a, b in zip(times[label], theirs)) for label, _, _ in all_sides[:-1]]
        print("| `%s` | %s |" % (module, " | ".join(cells)))


if __name__ == "__main__":
    main()
