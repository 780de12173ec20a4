"""The tables of tests/gpu/nvidia_tests.sh, from the result files it wrote.

usage: nvidia_table.py OUT-DIR FILE...   (FILE: test_cuda, test_cudart, ...)

Reads OUT-DIR/FILE.cuda.bindings.results and OUT-DIR/FILE.cudagen.results (one line per test:
``outcome<TAB>test id<TAB>first error line``, as tests/gpu/clients/pytest_plugin writes them and
clients/numba_compare.py reads them) and OUT-DIR/samples.results (``way<TAB>sample<TAB>exit
status<TAB>last output line``). Prints

    module | pass on cuda.bindings | pass on cudagen | tests that pass there and fail here

(a test the cudagen run never reported counts as failing there; a parametrized test whose id
differs only in a class parameter's name is the same test, listed as renamed), then each such
test with its first error line, then the samples. Exit status: 0 when nothing that passes on cuda.bindings fails
with cudagen, 1 otherwise, 2 when a test file has no results from one of its runs.
"""

import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "clients"))
from numba_compare import load  # noqa: E402

MODULE = {
    "test_cuda": "driver",
    "test_cudart": "runtime",
    "test_nvrtc": "nvrtc",
    "test_nvjitlink": "nvjitlink",
    "test_nvvm": "nvvm",
    "test_kernelParams": "driver (kernelParams)",
    "test_interoperability": "driver + runtime",
}


def short(test_id):
    return test_id.split("::", 1)[-1]


def pair_renamed(base, swap):
    """{base id: swap id} for parametrized tests whose id differs only in the parameter's name.

    pytest names a class parameter by its ``__name__``: where cudagen's class has another name
    (``runtime.cudaStream_t`` is the driver's ``CUstream``), the same test gets another id. Such
    ids are paired by function and position in the run (both runs collect in the same order).
    """
    def unmatched(a, b):
        by_fn = {}
        for t in a:  # a dict keeps the results file's order
            if t not in b and "[" in t:
                by_fn.setdefault(t.split("[", 1)[0], []).append(t)
        return by_fn

    ours, theirs = unmatched(base, swap), unmatched(swap, base)
    pairs = {}
    for fn, ids in ours.items():
        other = theirs.get(fn, [])
        if len(other) == len(ids):
            pairs.update(zip(ids, other))
    return pairs


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out, files = argv[1], argv[2:]
    rows, details, status = [], [], 0
    for f in files:
        base, _ = load(os.path.join(out, f"{f}.cuda.bindings.results"))
        swap, _ = load(os.path.join(out, f"{f}.cudagen.results"))
        if not base and not swap and not os.path.exists(os.path.join(out, f"{f}.cuda.bindings.results")):
            continue  # not fetched
        if not base or not swap:
            status = max(status, 2)
        renamed = pair_renamed(base, swap)
        for b, t in renamed.items():
            details.append(f"  (renamed here) {b} ran as {short(t)}")
            swap[b] = swap.pop(t)
        n_base = sum(o == "passed" for o, _ in base.values())
        n_swap = sum(o == "passed" for o, _ in swap.values())
        lost = sorted(t for t, (o, _) in base.items() if o == "passed" and swap.get(t, ("missing",))[0] != "passed")
        skipped = [t for t in lost if swap.get(t, ("",))[0] == "skipped"]
        if lost:
            status = max(status, 1)
        c = collections.Counter(o for o, _ in base.values())
        cs = collections.Counter(o for o, _ in swap.values())
        rows.append(
            (
                f"{f} ({MODULE.get(f, '?')})",
                f"{n_base} of {len(base)} ({c['failed']} fail, {c['skipped']} skip)",
                f"{n_swap} of {len(swap)} ({cs['failed']} fail, {cs['skipped']} skip)",
                ", ".join(short(t) + (" (skipped here)" if t in skipped else "") for t in lost) or "-",
            )
        )
        for t in lost:
            o, why = swap.get(t, ("not reported", "the cudagen run never reported it"))
            details.append(f"  {t}: {o}: {why}")
        gained = sorted(t for t, (o, _) in swap.items() if o == "passed" and base.get(t, ("",))[0] == "failed")
        for t in gained:
            details.append(f"  (passes with cudagen only) {t}: on cuda.bindings: {base[t][1]}")

    print()
    print("| module | pass on cuda.bindings | pass on cudagen | tests that pass there and fail here |")
    print("| --- | ---: | ---: | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if details:
        print("\nwhy (first error line with cudagen):")
        print("\n".join(details))

    samples = collections.defaultdict(dict)
    try:
        with open(os.path.join(out, "samples.results")) as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3:
                    samples[parts[1]][parts[0]] = (parts[2], parts[3] if len(parts) > 3 else "")
    except FileNotFoundError:
        pass
    if samples:
        print("\n| sample | cuda.bindings | cudagen | last line with cudagen when it differs |")
        print("| --- | --- | --- | --- |")
        ok = {"cuda.bindings": 0, "cudagen": 0}
        for name in sorted(samples):
            cells = []
            for way in ("cuda.bindings", "cudagen"):
                rc, _ = samples[name].get(way, ("?", ""))
                ok[way] += rc == "0"
                cells.append("PASS" if rc == "0" else f"FAIL (exit {rc})")
            rc_b = samples[name].get("cuda.bindings", ("?",))[0]
            rc_s, why = samples[name].get("cudagen", ("?", ""))
            if rc_b == "0" and rc_s != "0":
                status = max(status, 1)
            print(f"| {name} | {cells[0]} | {cells[1]} | {why if rc_b != rc_s else ''} |")
        print(f"samples: {ok['cuda.bindings']} of {len(samples)} run on cuda.bindings, {ok['cudagen']} with cudagen")
    print(f"nvidia_tests: RESULT {['PASS', 'FAIL', 'FAIL (a run wrote no results)'][status]}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
