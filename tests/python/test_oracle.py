"""NVIDIA's cuda.bindings as the oracle of the Python surface (no GPU needed).

For every public name of `cuda.bindings.driver` / `.nvrtc` / `.runtime` / `.nvjitlink` / `.nvvm`: cudagen has it as the same kind of
thing (function, IntEnum with the same members, record with the same fields, value class, int
constant); every function has the same parameter names in the same order; and a differential
run calls every function of both packages with the same arguments against one fake libcuda /
libnvrtc (built here with gcc) whose entries all return an error, so both must return the same
number of values. Known differences live in `oracle_allowlist.txt` (a reason on every line); an
entry that no longer differs fails too.

Which pair is compared (`cargo xtask test` runs it once per pair, each in its own virtualenv):
`CUDAGEN_ORACLE_THEIRS` / `CUDAGEN_ORACLE_OURS` name the packages whose `driver` and `nvrtc`
modules are compared (default `cuda.bindings` / `cudagen`), `CUDAGEN_ORACLE_ALLOWLIST` the
allow-list file (default `oracle_allowlist.txt`, the 12.9 pair's); the allow-list's first line
names the cuda-bindings version it is about (`# oracle: cuda-bindings 12.9.5`), which must be the
one installed.

Run as a script (`python test_oracle.py run <package> <module> <start> <out>`) this file is the
subprocess that makes the calls, so a crash is named instead of killing pytest.
"""

import enum
import fnmatch
import importlib
import inspect
from collections.abc import Mapping
import itertools
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
THEIRS = os.environ.get("CUDAGEN_ORACLE_THEIRS") or "cuda.bindings"
OURS = os.environ.get("CUDAGEN_ORACLE_OURS") or "cudagen"
ALLOWLIST = os.path.join(HERE, os.environ.get("CUDAGEN_ORACLE_ALLOWLIST") or "oracle_allowlist.txt")
CHECKS = ("name", "kind", "sig", "ret", "order")
MODULES = ("driver", "nvrtc")
# Modules of cuda.bindings' other convention (snake_case, exceptions): names, kinds and
# signatures are compared; the fake-library runs cover MODULES.
RAISING = ("nvjitlink", "nvvm")
# Modules whose oracle links its C library statically: cuda.bindings.runtime carries NVIDIA's
# static cudart inside its extension (12.9.5: `_bindings/cyruntime*.so`, 13.x:
# `_internal/runtime*.so`; no libcudart is loaded, only libcuda.so.1), so no fake libcudart can
# stand under it. Names, kinds and signatures are compared; the fake-library runs cover MODULES.
STATIC = ("runtime",)
# Every module whose names, kinds and signatures are compared.
COMPARED = MODULES + RAISING + STATIC


# ---------------------------------------------------------------- shared by test and runner


def _theirs(module):
    return importlib.import_module(THEIRS + "." + module)


def _ours(module):
    return importlib.import_module(OURS + "." + module)


def _public(m):
    return sorted(k for k in dir(m) if not k.startswith("_"))


def _is_enum(x):
    """An enum class: `enum.Enum`, or an int class with named members (cuda.bindings 13's
    `FastEnum`, which is no `enum.Enum`)."""
    return isinstance(x, type) and (issubclass(x, enum.Enum) or (issubclass(x, int) and isinstance(getattr(x, "__members__", None), Mapping)))


def _is_function(x):
    return callable(x) and not isinstance(x, type)


def _functions(module):
    """The C functions of the oracle's module (its helper `sizeof` is no C function)."""
    m = _theirs(module)
    api = lambda k: module in RAISING or k.startswith(("cu", "nvrtc"))
    return [k for k in _public(m) if type(getattr(m, k)).__name__ == "cython_function_or_method" and api(k)]


def _param_types(fn):
    """{parameter: type text} from a cuda.bindings docstring: its Parameters section, else the C
    type its first (signature) line gives."""
    doc = fn.__doc__ or ""
    out = {}
    first = doc.splitlines()[0] if doc else ""
    m = re.match(r"^\w+\((.*)\)", first)
    if m and m.group(1):
        for item in re.split(r",\s*(?![^\[]*\])", m.group(1)):
            name, _, annotation = item.partition(":")
            words = name.strip().replace("*", "* ").split()
            if len(words) >= 2:
                out[words[-1]] = " ".join(words[:-1]).replace("* ", "*").replace(" *", " *")
            elif len(words) == 1 and re.match(r"^\w+$", annotation.strip()):  # `attr: cudaDeviceP2PAttr`
                out[words[0]] = annotation.strip()
    i = doc.find("Parameters\n")
    j = doc.find("Returns\n", i)
    if i >= 0:
        for line in doc[i : j if j > 0 else None].splitlines():
            m = re.match(r"^(\w+) : (.+)$", line)
            if m and m.group(1) not in out:
                out[m.group(1)] = m.group(2).strip()
    return out


_INT = re.compile(r"^(unsigned |signed )?(int|long|long long|short|char|size_t|int\d+_t|uint\d+_t|cuuint\d+_t|void_ptr|CUdeviceptr)$")


def _candidates(mod, text):
    """Argument values to try, in order, for a parameter of type ``text`` in module ``mod``."""
    out = []
    if text is None:
        pass
    elif _INT.match(text):
        out = [0]
    elif text in ("float", "double"):
        out = [0.0]
    elif text == "bool":
        out = [False]
    elif text in ("bytes", "str", "char *", "char*"):
        out = [b"", None]
    elif text.startswith("list[") or text.startswith("tuple["):
        out = [[], None]
    else:
        m = re.match(r"^:py:obj:`~\.(\w+)`", text) or re.match(r"^(\w+)$", text)
        cls = getattr(mod, m.group(1), None) if m else None
        if _is_enum(cls):
            out = [next(iter(cls.__members__.values()))]
        elif isinstance(cls, type):
            try:
                out = [cls()]
            except Exception:
                pass
    extras = [0, None, b"", []]  # the fallbacks, for types the text did not tell ("Any")
    # the driver's cuuint64_t (graph memory attribute values; the runtime module has none)
    cu64 = getattr(mod, "cuuint64_t", None) or getattr(importlib.import_module(mod.__name__.rsplit(".", 1)[0] + ".driver"), "cuuint64_t", None)
    if cu64 is not None:
        extras.append(cu64(0))
    for extra in extras:
        if not any(type(x) is type(extra) and x == extra for x in out):
            out.append(extra)
    return out


def _candidate_lists(theirs_fn, fn, mod):
    """(parameter names of ``fn``, candidate values of each) from cuda.bindings' docstring."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = list(inspect.signature(theirs_fn).parameters)
    types = _param_types(theirs_fn)
    return names, [_candidates(mod, types.get(n)) for n in names]


def _index_order(cands, limit=500):
    """Index tuples into ``cands`` (one per parameter), fewest fallbacks first, at most ``limit``."""
    tries = 0
    for total in range(sum(len(c) - 1 for c in cands) + 1):
        for idx in itertools.product(*[range(min(len(c), total + 1)) for c in cands]):
            if sum(idx) != total:
                continue
            tries += 1
            if tries > limit:
                return
            yield idx


def _call(theirs_fn, fn, mod):
    """Calls ``fn`` with the first combination of candidate arguments (fewest fallbacks first)
    that it accepts; returns a JSON-able result."""
    _, cands = _candidate_lists(theirs_fn, fn, mod)
    last = None
    for idx in _index_order(cands):
        try:
            r = fn(*[c[i] for c, i in zip(cands, idx)])
        except Exception as e:
            last = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            continue
        if isinstance(r, tuple):
            return {"len": len(r), "types": [type(x).__name__ for x in r]}
        return {"len": None, "type": type(r).__name__}
    return {"exc": last}


def _run(package, module, start, out):
    """Runner (subprocess): calls every function from index ``start``, one JSON line each."""
    theirs = _theirs(module)
    mod = theirs if package == "theirs" else _ours(module)
    names = _functions(module)
    with open(out, "a") as f:
        for name in names[start:]:
            f.write("S %s\n" % name)
            f.flush()
            fn = getattr(mod, name, None)
            res = {"missing": True} if fn is None else _call(getattr(theirs, name), fn, mod)
            f.write("R %s %s\n" % (name, json.dumps(res)))
            f.flush()


# ---------------------------------------------------------------- allow-list


def _allowlist(path=None, checks=CHECKS):
    """{(module, name, check): reason}; every line ``module.name check reason``. ``module`` and
    ``name`` may be globs (``anon_struct*``, `_glob`) for one reason shared by a family of names. ``path``: another
    allow-list of this format (default ALLOWLIST); ``checks``: the checks it may name (None: any)."""
    out = {}
    path = path or ALLOWLIST
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            assert len(parts) == 3 and (checks is None or parts[1] in checks) and "." in parts[0], "%s:%d: '%s'" % (os.path.basename(path), n, line)
            module, name = parts[0].split(".", 1)
            out[(module, name, parts[1])] = parts[2]
    return out


def _glob(text, pattern):
    """Whether ``text`` matches the allow-list glob ``pattern``: fnmatch globs, ``|`` between
    alternatives (``nvjitlink|nvvm``, ``refused:bool|refused:enum_other``), so that one reason is
    one line."""
    return any(fnmatch.fnmatchcase(text, p) for p in pattern.split("|"))


def _covers(entry, module, name):
    return _glob(module, entry[0]) and _glob(name, entry[1])


def _judge(check, found, compared=None):
    """Fails on a difference that is not allowed and on an allowed one that no longer differs
    (among the ``compared`` (module, name) pairs when given)."""
    allowed = [k for k in _allowlist() if k[2] == check]
    new = sorted("%s.%s %s: %s" % (m, n, check, why) for m, n, why in found if not any(_covers(k, m, n) for k in allowed))
    stale = sorted(
        "%s.%s %s" % k
        for k in allowed
        if not any(_covers(k, m, n) for m, n, _ in found) and (compared is None or any(_covers(k, m, n) for m, n in compared))
    )
    assert not new and not stale, "\n".join(
        ["differences from cuda.bindings (%d):" % len(new)] + new + ["stale allow-list entries (%d):" % len(stale)] + stale
    )


# ---------------------------------------------------------------- tests


def oracle_version():
    """The cuda-bindings version the allow-list is about (its first line), as `cargo xtask test`
    installs it."""
    with open(ALLOWLIST) as f:
        m = re.match(r"^# oracle: cuda-bindings (\S+)$", f.readline().strip())
    assert m, "%s: the first line must be '# oracle: cuda-bindings <version>'" % ALLOWLIST
    return m.group(1)


ORACLE_VERSION = oracle_version()


def oracle_major_minor():
    """(major, minor) of the oracle, e.g. (12, 9)."""
    major, minor = ORACLE_VERSION.split(".")[:2]
    return int(major), int(minor)


def oracle_or_skip():
    """Skips (fails in CI) unless cuda-bindings ORACLE_VERSION is importable as THEIRS."""
    try:
        found = importlib.import_module(THEIRS).__version__
        _theirs("driver")
    except ImportError as e:
        found = "none (%s)" % e
    if found != ORACLE_VERSION:
        why = "the oracle is cuda-bindings %s; found %s" % (ORACLE_VERSION, found)
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="module")
def oracle():
    oracle_or_skip()
    return True


def test_the_pair_binds_one_cuda_version(oracle):
    """Both packages were built from the headers of the oracle's CUDA version."""
    major, minor = oracle_major_minor()
    assert _theirs("driver").CUDA_VERSION == _ours("driver").CUDA_VERSION == major * 1000 + minor * 10


def test_allowlist_lines_have_reasons():
    """Every entry names a module, a name, a known check and a reason of a few words."""
    entries = _allowlist()
    assert entries and all(len(r.split()) >= 2 for r in entries.values())


def _value_repr(cls, v):
    """repr of ``cls(v)`` with the class name left out (aliases print their own), or the error."""
    try:
        o = cls(v)
    except Exception as e:
        return type(e).__name__
    return repr(o).replace(type(o).__name__, "T")


def _kind(x):
    """(kind, detail) of a public object, comparable across the two packages."""
    if _is_enum(x):
        return "enum", sorted((m.name, int(m.value)) for m in x.__members__.values())
    if isinstance(x, type):
        fields = getattr(x, "_cg_names", None)
        if fields is None:
            fields = [k for k in dir(x) if type(getattr(x, k, None)).__name__ == "getset_descriptor"]
        fields = [k for k in fields if not k.startswith("_")]
        try:
            inst = x()
        except Exception:
            inst = None
        if inst is not None and hasattr(inst, "__int__") and hasattr(inst, "getPtr"):
            return "value class", [_value_repr(x, v) for v in (0, 5, 2**31, 2**64)]
        if hasattr(x, "getPtr"):
            return "record", sorted(fields)
        return "class", None
    if _is_function(x):
        return "function", None
    if isinstance(x, int):
        return "int", int(x)
    return type(x).__name__, None


@pytest.mark.parametrize("check", ["name", "kind"])
def test_public_names_and_kinds(oracle, check):
    found = []
    for module in COMPARED:
        theirs, ours = _theirs(module), _ours(module)
        for name in _public(theirs):
            if not hasattr(ours, name):
                if check == "name":
                    found.append((module, name, "missing"))
                continue
            if check != "kind":
                continue
            kt, dt = _kind(getattr(theirs, name))
            ko, do = _kind(getattr(ours, name))
            if (kt, dt) != (ko, do):
                if kt == ko == "enum":
                    a, b = dict(dt), dict(do)
                    why = "enum members differ: only theirs %s, only ours %s, values %s" % (
                        sorted(set(a) - set(b)), sorted(set(b) - set(a)),
                        sorted(k for k in set(a) & set(b) if a[k] != b[k]))
                elif kt == ko == "record":
                    why = "fields differ: only theirs %s, only ours %s" % (sorted(set(dt) - set(do)), sorted(set(do) - set(dt)))
                else:
                    why = "theirs %s %s, ours %s %s" % (kt, dt, ko, do)
                found.append((module, name, why))
    _judge(check, found)


def _params(fn):
    """[name or name=default] of a function's signature."""
    return [p.name if p.default is inspect.Parameter.empty else "%s=%r" % (p.name, p.default)
            for p in inspect.signature(fn).parameters.values()]


def test_signatures(oracle):
    found = []
    for module in COMPARED:
        theirs, ours = _theirs(module), _ours(module)
        for name in _functions(module):
            if not hasattr(ours, name):
                continue
            # names in order, and each default (cuda.bindings' `numNodes=0`: a call may leave it out)
            a = _params(getattr(theirs, name))
            b = _params(getattr(ours, name))
            if a != b:
                found.append((module, name, "theirs %s, ours %s" % (a, b)))
    _judge("sig", found)


# ------------------------------------------------ differential run against fake libraries

_FAKE_CUDA = r"""
#include <stdint.h>
#include <string.h>
/* Every entry but these returns STATUS without touching its arguments; the driver is the
   oracle's CUDA version (VERSION), so no entry of the headers is too new for it. */
static int stub(void) { return STATUS; }
int cuDriverGetVersion(int *v) { if (v) *v = VERSION; return 0; }
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status);
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags) {
    return cuGetProcAddress_v2(sym, pfn, ver, flags, 0);
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    (void)flags;
    if (!pfn) return 1;
    if (!strcmp(sym, "cuGetProcAddress")) *pfn = ver >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    else if (!strcmp(sym, "cuDriverGetVersion")) *pfn = (void *)cuDriverGetVersion;
    else *pfn = (void *)stub;
    if (status) *status = 0;
    return 0;
}
"""


def _fake_source(names, strings):
    """A fake library whose entries ``names`` all return STATUS without touching their arguments;
    those in ``strings`` return a C string instead (the error-text functions)."""
    lines = ["/* Every entry returns STATUS without touching its arguments. */"]
    for n in sorted(names):
        if n in strings:
            lines.append('const char *%s(int r) { (void)r; return "fake"; }' % n)
        else:
            lines.append("int %s(void) { return STATUS; }" % n)
    return "\n".join(lines) + "\n"


def _entry_names(module, prefix):
    """The C entries both packages' ``module`` may call (the oracle's functions and ours)."""
    return set(_functions(module)) | {n for n in _public(_ours(module)) if n.startswith(prefix)}


@pytest.fixture(scope="module")
def fakes(oracle, tmp_path_factory):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libraries")
    nvrtc = _fake_source(_entry_names("nvrtc", "nvrtc"), ("nvrtcGetErrorString",))
    cudart = _fake_source(_entry_names("runtime", "cuda"), ("cudaGetErrorName", "cudaGetErrorString"))
    major, minor = oracle_major_minor()
    out = {}
    # "fail": every entry returns CUDA_ERROR_INVALID_VALUE / NVRTC_ERROR_INVALID_INPUT /
    # cudaErrorInvalidValue, so nothing is decoded; "ok": every entry returns success without
    # writing, so each output is decoded (from whatever its memory held) and its type shows where
    # it is in the tuple
    for mode, cuda_status, nvrtc_status, cudart_status in (("fail", 1, 3, 1), ("ok", 0, 0, 0)):
        d = tmp_path_factory.mktemp("oracle_fakes_" + mode)
        for soname, src, status in (("libcuda.so.1", _FAKE_CUDA, cuda_status), (_fake_nvrtc_soname(), nvrtc, nvrtc_status),
                                    (_fake_cudart_soname(), cudart, cudart_status)):
            c = d / (soname + ".c")
            c.write_text(src)
            subprocess.run([gcc, "-shared", "-fPIC", "-O0", "-DSTATUS=%d" % status, "-DVERSION=%d" % (major * 1000 + minor * 10),
                            "-Wl,-soname," + soname,
                            "-o", str(d / soname), str(c)], check=True)
        out[mode] = d
    return out


def _fake_nvrtc_soname():
    """libnvrtc.so.<major> of the oracle's CUDA major: the name both loaders look for first."""
    return "libnvrtc.so.%d" % oracle_major_minor()[0]


def _fake_cudart_soname():
    """libcudart.so.<major>: the one name cudagen's runtime loads (cuda.bindings' runtime carries
    a static cudart that calls the fake libcuda instead)."""
    return "libcudart.so.%d" % oracle_major_minor()[0]


def _fake_env(fakes):
    """The environment of a runner whose libcuda and libnvrtc are the fakes in folder ``fakes``."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = str(fakes) + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    env["CUDAGEN_LIBCUDA"] = str(fakes / "libcuda.so.1")
    env["CUDAGEN_NVRTC_PATH"] = str(fakes / _fake_nvrtc_soname())
    env["CUDAGEN_CUDART_PATH"] = str(fakes / _fake_cudart_soname())
    return env


# the fakes each module's runner loads first (the runtime: cuda.bindings' static cudart calls
# libcuda, cudagen loads libcudart)
_PRELOAD = {"driver": ("libcuda.so.1",), "nvrtc": (_fake_nvrtc_soname(),), "runtime": ("libcuda.so.1", _fake_cudart_soname())}


def _differential(fakes, package, module):
    """{function: result} of the runner, restarted after the function that crashed it."""
    out = fakes / ("%s_%s.txt" % (package, module))
    if out.exists():
        out.unlink()
    env = _fake_env(fakes)
    env["CUDAGEN_ORACLE_PRELOAD"] = os.pathsep.join(str(fakes / so) for so in _PRELOAD[module])
    names = _functions(module)
    results = {}
    start = 0
    while start < len(names):
        try:
            p = subprocess.run([sys.executable, __file__, "run", package, module, str(start), str(out)], env=env,
                               capture_output=True, text=True, timeout=300)
            why = None if p.returncode == 0 else "crashed (exit %d): %s" % (p.returncode, p.stderr.strip().splitlines()[-1:] )
        except subprocess.TimeoutExpired:
            why = "hung (300 s)"
        started = None
        for line in out.read_text().splitlines():
            kind, name, *rest = line.split(" ", 2)
            if kind == "S":
                started = name
            else:
                results[name] = json.loads(rest[0])
                started = None
        if why is None:
            break
        assert started is not None, "the %s runner failed outside any call: %s" % (package, why)
        results[started] = {"exc": why}
        start = names.index(started) + 1
    return results


def test_return_shapes(fakes):
    """The number of values each function returns when its call fails (every fake entry fails;
    cuda.bindings' static cudart fails over the fake libcuda)."""
    found = []
    for module in MODULES + STATIC:
        theirs = _differential(fakes["fail"], "theirs", module)
        ours = _differential(fakes["fail"], "ours", module)
        for name in _functions(module):
            t, o = theirs.get(name, {}), ours.get(name, {})
            if o.get("missing"):
                continue
            if "exc" in t:
                found.append((module, name, "cuda.bindings could not be called: %s" % t["exc"]))
            elif "exc" in o:
                found.append((module, name, "cudagen could not be called: %s" % o["exc"]))
            elif t.get("len") != o.get("len"):
                found.append((module, name, "returns %s values, cudagen %s" % (t.get("len"), o.get("len"))))
    _judge("ret", found)


def test_return_types(fakes):
    """Each returned value's class, where both packages decoded the same number of values from
    the "ok" fake (outputs read from memory the fake never wrote: a call that fails on what it
    read is not compared)."""
    found, compared = [], set()
    for module in MODULES:
        theirs = _differential(fakes["ok"], "theirs", module)
        ours = _differential(fakes["ok"], "ours", module)
        for name in _functions(module):
            t, o = theirs.get(name, {}), ours.get(name, {})
            if "types" not in t or "types" not in o or len(t["types"]) != len(o["types"]):
                continue
            compared.add((module, name))
            if t["types"] != o["types"]:
                found.append((module, name, "returns %s, cudagen %s" % (t["types"], o["types"])))
    assert len(compared) > 400
    _judge("order", found, compared)


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "run":
    import ctypes

    # the fakes are loaded first under their sonames, so both packages' loaders find them
    for path in os.environ["CUDAGEN_ORACLE_PRELOAD"].split(os.pathsep):
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    _run(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
