"""Name, kind and parameter oracle of `cudagen.runtime` against `cuda.bindings.runtime`.

Run by hand while the runtime joins `test_oracle.py`'s MODULES (which also needs a fake
libcudart for its differential runs): `python tests/python/oracle_runtime.py [-v]`. Prints one
count per check and, with -v, every difference.
"""

import sys
from collections import Counter

import test_oracle as o


def main(verbose):
    theirs, ours = o._theirs("runtime"), o._ours("runtime")
    found = []
    for name in o._public(theirs):
        if not hasattr(ours, name):
            found.append(("name", name, "missing"))
            continue
        kt, dt = o._kind(getattr(theirs, name))
        ko, do = o._kind(getattr(ours, name))
        if (kt, dt) != (ko, do):
            if kt == ko == "enum":
                a, b = dict(dt), dict(do)
                why = "enum members: only theirs %s, only ours %s" % (sorted(set(a) - set(b)), sorted(set(b) - set(a)))
            elif kt == ko == "record":
                why = "fields: only theirs %s, only ours %s" % (sorted(set(dt) - set(do)), sorted(set(do) - set(dt)))
            else:
                why = "theirs %s, ours %s" % (kt, ko)
            found.append(("kind", name, why))
        if kt == "function" and ko == "function" and name.startswith("cuda"):
            try:
                a, b = o._params(getattr(theirs, name)), o._params(getattr(ours, name))
            except (TypeError, ValueError) as e:
                found.append(("sig", name, "no signature: %s" % e))
                continue
            if a != b:
                found.append(("sig", name, "theirs %s, ours %s" % (a, b)))
    print("cuda.bindings.runtime public names:", len(o._public(theirs)), "cudagen.runtime:", len(o._public(ours)))
    print("differences by check:", dict(Counter(c for c, _, _ in found)))
    if verbose:
        for c, n, why in found:
            print("%-5s %-45s %s" % (c, n, why))
    return found


if __name__ == "__main__":
    main("-v" in sys.argv)
