"""Compares two runs of numba-cuda's tests written by pytest_plugin/numba_cuda_fixtures.py.

usage: numba_compare.py BASELINE.results SWAPPED.results [LIST_FILE]

Prints ``numba-cuda (<label>): N passed, M failed, K skipped`` per run, then the tests whose
outcome differs (passed on one, failed on the other; passed, then skipped with cudagen), the
swapped run's failures grouped by their first error line, and the tests that only one run reached
(a run cut short by its time limit).
LIST_FILE, when given, gets the full lists. Exit status: 0 when no test passes on cuda.bindings
and fails with cudagen, 1 otherwise, 2 when a results file is missing or empty.
"""

import collections
import sys

SHOWN = 40


def load(path):
    """{test id: (outcome, why)} and the header line; a test written twice keeps its worst."""
    rank = {"passed": 0, "skipped": 1, "failed": 2}
    tests, header = {}, ""
    try:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("#"):
                    header = header or line.lstrip("# ")
                    continue
                parts = line.split("\t")
                if len(parts) < 2 or parts[0] not in rank:
                    continue
                why = parts[2] if len(parts) > 2 else ""
                old = tests.get(parts[1])
                if old is None or rank[parts[0]] > rank[old[0]]:
                    tests[parts[1]] = (parts[0], why)
    except FileNotFoundError:
        pass
    return tests, header


def counts(tests):
    c = collections.Counter(o for o, _ in tests.values())
    return f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped"


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    base, base_head = load(argv[1])
    swap, swap_head = load(argv[2])
    out = open(argv[3], "w") if len(argv) > 3 else None
    for label, tests, head in (("cuda.bindings", base, base_head), ("cudagen", swap, swap_head)):
        print(f"numba-cuda ({label}): {counts(tests)}    [{head or 'no header'}]")
    if not base or not swap:
        print("numba-cuda: a run wrote no results (see its log)")
        return 2

    lost = sorted(t for t in base if base[t][0] == "passed" and t in swap and swap[t][0] == "failed")
    gained = sorted(t for t in base if base[t][0] == "failed" and t in swap and swap[t][0] == "passed")
    skipped = sorted(t for t in base if base[t][0] == "passed" and t in swap and swap[t][0] == "skipped")
    only_base = sorted(set(base) - set(swap))
    only_swap = sorted(set(swap) - set(base))

    def show(title, names, why_of=None):
        print(f"{title}: {len(names)}")
        for t in names[:SHOWN]:
            print(f"  {t}" + (f"    <- {why_of[t][1]}" if why_of else ""))
        if len(names) > SHOWN:
            print(f"  ... {len(names) - SHOWN} more" + (f" (all in {argv[3]})" if out else ""))
        if out:
            out.write(f"## {title}: {len(names)}\n")
            for t in names:
                out.write(f"{t}\t{why_of[t][1] if why_of else ''}\n")

    show("pass on cuda.bindings, fail on cudagen", lost, swap)
    show("fail on cuda.bindings, pass on cudagen", gained, base)
    if skipped:
        show("pass on cuda.bindings, skipped with cudagen", skipped)
    causes = collections.Counter(swap[t][1] or "(no message)" for t in lost)
    if causes:
        print("cudagen-only failures by first error line:")
        for why, n in causes.most_common(12):
            print(f"  {n:5d}  {why}")
    if only_base or only_swap:
        show("reached by the cuda.bindings run only", only_base)
        show("reached by the cudagen run only", only_swap)
    if out:
        out.close()
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
