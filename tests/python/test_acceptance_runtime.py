"""Acceptance oracle of the runtime: which values each parameter accepts, without words.

cuda.bindings.runtime links NVIDIA's static cudart, so no recording fake can stand under it and
`test_acceptance.py`'s word comparison cannot cover the runtime (NOTES.md, "Runtime oracle").
What can be compared is whether a value is taken: every function of the oracle's runtime module
is called with a baseline that cuda.bindings accepts and, for each parameter, each value kind of
`test_acceptance.py`'s menu replacing that argument, by both packages: theirs with its static
cudart over the failing fake libcuda of `test_oracle.py`, ours over the generated failing fake
libcudart (`CUDAGEN_CUDART_PATH`). A unit's outcome is "reached" (a result tuple came back) or the
class of the exception raised before the call (a refusal). The pairs are judged by
`test_acceptance._judge_pair` (no words: reached both agrees, refused there and reached here only
by its rules); every other difference is a line of `acceptance_runtime_allowlist.txt` (12.9 pair)
or `acceptance_runtime_allowlist_13.txt` (13.x pair), in the acceptance allow-list's format:
"runtime.<function>.<parameter>:<category> <class>:<kind> <reason>". The runtime's record field
setters enter no library: `test_acceptance.py` compares them (values stored included) with the
driver's, under `acceptance_allowlist.txt`.

Run as a script (`python test_acceptance_runtime.py run <fakes> <jobs.json> <out>`) this file is
the subprocess that makes the calls.
"""

import ctypes
import fnmatch
import inspect
import os
import sys
import time
from collections import Counter, defaultdict

import test_acceptance as acc
import test_oracle as base
from test_oracle import fakes, oracle  # noqa: F401  (the fixtures: the failing fake libcuda and libcudart)

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = acc.RUNTIME
ALLOWLIST = os.path.join(HERE, os.path.basename(base.ALLOWLIST).replace("oracle_", "acceptance_runtime_", 1))


class RuntimeRunner(acc.Runner):
    """`test_acceptance.Runner`'s unit bookkeeping and crash recovery (`test_acceptance._run`),
    with outcomes instead of words: "reached" (a result tuple), "returned:<type>" (something
    else) or the exception's class."""

    def __init__(self, out):
        self.menu = acc.RuntimeMenu()
        self.job, self.n, self.start = 0, -1, 0
        self.fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    @staticmethod
    def outcome(fn, args):
        try:
            r = fn(*args)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # PyO3's PanicException is a BaseException
            return type(e).__name__, "-", "-"
        return ("reached" if isinstance(r, tuple) else "returned:" + type(r).__name__), "-", "-"

    def baseline(self, module, name):
        """{side: arguments} of the first candidate arguments cuda.bindings accepts (ours: the
        same choices of its own classes, else its own first accepted ones)."""
        mods = {s: self.menu.mods[(s, module)] for s in ("theirs", "ours")}
        theirs_fn, ours_fn = getattr(mods["theirs"], name), getattr(mods["ours"], name, None)
        if ours_fn is None:
            return None
        _, tc = base._candidate_lists(theirs_fn, theirs_fn, mods["theirs"])
        found = next((idx for idx in base._index_order(tc) if self.outcome(theirs_fn, [c[i] for c, i in zip(tc, idx)])[0] == "reached"), None)
        if found is None:
            return None
        _, oc = base._candidate_lists(theirs_fn, ours_fn, mods["ours"])
        oargs = [c[min(i, len(c) - 1)] for c, i in zip(oc, found)]
        if self.outcome(ours_fn, oargs)[0] != "reached":
            oargs = next(([c[i] for c, i in zip(oc, idx)] for idx in base._index_order(oc)
                          if self.outcome(ours_fn, [c[i] for c, i in zip(oc, idx)])[0] == "reached"), None)
        return {"theirs": [c[i] for c, i in zip(tc, found)], "ours": oargs}

    def function(self, module, name):
        menu = self.menu
        n = self.unit((module, name, "-", "baseline", "both"))
        b = self.baseline(module, name)
        if n is not None:
            self.emit_result(n, module, name, "-", "baseline", "theirs", "reached" if b else "none", "-")
            self.emit_result(n, module, name, "-", "baseline", "ours", "reached" if b and b["ours"] is not None else "none", "-")
        if not b or b["ours"] is None:
            return
        fns = {s: getattr(menu.mods[(s, module)], name) for s in ("theirs", "ours")}
        cparams = acc._c_params(menu.decls[module], name)
        for i, p in enumerate(inspect.signature(fns["theirs"]).parameters):
            info = menu.info(module, cparams.get(p, "?"))
            for kind in menu.kinds(info):
                for side in ("theirs", "ours"):
                    n = self.unit((module, name, p, kind, side))
                    if n is None:
                        continue
                    try:
                        v = menu.value(kind, info, side, module)
                    except Exception as e:
                        self.emit_result(n, module, name, p, kind, side, "novalue:" + type(e).__name__, "-")
                        continue
                    args = list(b[side])
                    args[i] = v
                    self.emit_result(n, module, name, p, kind, side, *self.outcome(fns[side], args))


def _version():
    with open(ALLOWLIST) as f:
        first = f.readline().strip()
    return first.replace("# oracle: cuda-bindings ", "", 1) if first.startswith("# oracle: cuda-bindings ") else None


def test_acceptance_runtime_allowlist_is_about_the_oracle():
    """The allow-list names the oracle's version, and every line a known class and a reason."""
    assert _version() == base.ORACLE_VERSION, "%s: the first line must be '# oracle: cuda-bindings %s'" % (ALLOWLIST, base.ORACLE_VERSION)
    for (m, n, check), why in base._allowlist(ALLOWLIST, checks=None).items():
        assert base._glob(MODULE, m) and all(any(fnmatch.fnmatchcase(c, alt.split(":")[0]) for c in acc.CLASSES) for alt in check.split("|")) and ":" in check and len(why.split()) >= 2, (m, n, check, why)


def test_acceptance_runtime(fakes, capsys):  # noqa: F811
    t0 = time.time()
    d = fakes["fail"]
    env = base._fake_env(d)
    env["CUDAGEN_ORACLE_PRELOAD"] = os.pathsep.join(str(d / so) for so in base._PRELOAD[MODULE])
    jobs = [("fn", MODULE, n) for n in base._functions(MODULE)]
    jobs, results = acc._run_all(d, jobs, script=os.path.abspath(__file__), env=env)
    described = acc._describe(jobs, {})
    pairs = defaultdict(dict)
    for key, val in results.items():
        pairs[key[:4]][key[4]] = val
    found, funcs, params, tally, unjudged = [], set(), set(), Counter(), []
    for (m, name, p, kind), sides in sorted(pairs.items()):
        t, o = sides.get("theirs", ("none", "-", "-")), sides.get("ours", ("none", "-", "-"))
        if kind == "baseline":
            funcs.add(name)
            if o[0].startswith("crash"):
                found.append((m, name + ".-", "crash:-", "baseline: cudagen %s" % o[0]))
            elif t[0] == "reached" and o[0] != "reached":
                found.append((m, name + ".-", "baseline:-", "cuda.bindings' baseline call: cudagen %s" % o[0]))
            continue
        params.add((name, p))
        abi, category = described.get((m, name, p), ("?", "python"))
        cls = acc._judge_pair(kind, abi, category, t, o)
        if t[0].startswith("crash"):
            unjudged.append((m, "%s.%s:%s" % (name, p, category), kind))
        tally[{"reached-same": "reached-both"}.get(acc._tally_key(t, o, cls), acc._tally_key(t, o, cls))] += 1
        if cls:
            found.append((m, "%s.%s:%s" % (name, p, category), "%s:%s" % (cls, kind), "theirs %s, ours %s" % (t[0], o[0])))
    entries = base._allowlist(ALLOWLIST, checks=None)
    new = [f for f in found if not acc._allowed(entries, f[0], f[1], f[2])]
    stale = acc._stale(entries, [MODULE], found, unjudged)
    label = lambda u: "%s.%s:%s" % (u[1], u[2], described.get(u[:3], ("?", "python"))[1])
    rerun = lambda redo: acc._run_all(d, redo, script=os.path.abspath(__file__), env=env)[1]
    new, stale, undefined = acc._reproduced(new, stale, jobs, pairs, label, rerun)
    with capsys.disabled():
        print("\nruntime acceptance, cuda-bindings %s, %.0f s:\n  runtime: %d functions, %d parameters, %d (parameter, kind) units: %s; "
              "%d differences, %d allow-listed (%s)" % (
                  base.ORACLE_VERSION, time.time() - t0, len(funcs), len(params), sum(tally.values()),
                  ", ".join("%s %d" % kv for kv in sorted(tally.items())), len(found), len(found) - len(new),
                  ", ".join("%s %d" % kv for kv in sorted(Counter(f[2].split(":")[0] for f in found).items()))))
        acc._print_undefined(undefined)
        acc._dump(found)
    assert len(funcs) > 300 and tally["reached-both"] > 1000, (len(funcs), dict(tally))
    acc._judge_found("runtime acceptance", new, stale)


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "run":
    # the fakes are loaded first under their sonames (cuda.bindings' static cudart finds libcuda,
    # cudagen its libcudart)
    for lib in os.environ["CUDAGEN_ORACLE_PRELOAD"].split(os.pathsep):
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    out = sys.argv[4]
    acc._run(sys.argv[2], sys.argv[3], out, runner=RuntimeRunner(out))
