"""Acceptance oracle: cudagen accepts every value NVIDIA's cuda.bindings accepts, with the same C value.

For every parameter of every function of `driver`, `nvrtc`, `nvjitlink` and `nvvm`, and every
field setter of their records and of the `runtime`'s records (`FIELD_MODULES`; the runtime's
functions are `test_acceptance_runtime.py`'s), a menu of value kinds (`KINDS`: ints, bool, enum
members, floats, numpy scalars, None, str, bytes, out-of-range ints, handle classes of ours and
NVIDIA's driver and runtime modules of the same and of another C type, objects with only
`getPtr()` / `__int__` / `__index__`, lists, tuples, a numpy array, the kernelParams forms)
replaces that one argument of a baseline call that cuda.bindings accepts. Both packages are called
in one subprocess (a crash is named, the runner restarts after it) against recording fake libcuda
/ libnvrtc built here with gcc: every entry stores its integer and float argument registers and
stack words, so the words that carry the parameter under test are compared. Reached there (the
library was entered) must be reached here with the same C value; refused there and reached here is
allowed by the rules of `_judge_pair`. Every other difference is a line of the allow-list
(`acceptance_allowlist.txt` for the 12.9 pair, `acceptance_allowlist_13.txt` for the 13.x pair,
chosen from `CUDAGEN_ORACLE_ALLOWLIST` or named by `CUDAGEN_ACCEPTANCE_ALLOWLIST`):
"<module>.<function>.<parameter> <class>:<kind> <reason>" (a record field is
"<module>.<record>.<field>"); name and check may be globs; a line that no longer differs fails
too (but see `_stale`). The C signatures and field types come from the oracle's own `cydriver.pxd` / `cynvrtc.pxd` /
`cyruntime.pxd` (and the `cyruntime_types.pxi` it includes), so they are those of the CUDA version
it binds. A record field's unit sets the field on a new record of each package: accepted or
refused, and the value read back from it, are compared.

Run as a script (`python test_acceptance.py run <fakes> <jobs.json> <start> <out>`) this file is
the subprocess that makes the calls.
"""

import ctypes
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict

import pytest

import test_oracle as base

HERE = os.path.dirname(os.path.abspath(__file__))
ALLOWLIST = os.path.join(
    HERE, os.environ.get("CUDAGEN_ACCEPTANCE_ALLOWLIST") or os.path.basename(base.ALLOWLIST).replace("oracle_", "acceptance_", 1)
)
# The modules compared: the tuple modules and those of the raising convention (snake_case names,
# handles as ints, a failed status raised as `<library>Error(status)`; `base.RAISING`)
MODULES = base.MODULES + base.RAISING
RAISING = base.RAISING
RUNTIME = "runtime"
# The modules whose record fields are compared: MODULES and the runtime (setting a field enters
# no library, so cuda.bindings' static cudart, which keeps the runtime's functions out of the
# recording fakes, `test_acceptance_runtime.py`, is no obstacle: accepted/refused and the value
# stored are compared as for the driver's records).
FIELD_MODULES = MODULES + (RUNTIME,)
# Difference classes (the check column is "<class>:<kind>"): reached there, refused here;
# reached both with another C value; reached there, here returned without entering the
# library or entered another entry; refused there, reached here (where no rule allows it);
# cuda.bindings' baseline call refused here (the check is "baseline:-").
# a raising module's call that entered the library on both sides and then raised another
# exception class or status (or raised on one side only) is "status".
CLASSES = ("refused", "value", "entry", "accepted", "baseline", "crash", "status")
NLOG = 8  # calls a fake logs between two resets
NREG, NXMM = 6, 8  # SysV x86-64 integer and vector argument registers
SEVEN = 7  # the C value every handle and object kind carries


# ------------------------------------------------------------- C declarations of the oracle


class CDecls:
    """Functions, typedefs, records and enums of one of the oracle's `cy*.pxd` files (with the
    runtime's typedefs, for the runtime handle classes)."""

    def __init__(self, module):
        pkg = os.path.dirname(importlib.import_module(base.THEIRS).__file__)
        self.module = module
        self.fns, self.typedefs, self.structs, self.enums = {}, {}, {}, set()
        for name in ("cy%s.pxd" % module,) + _PXD_INCLUDES.get(module, ()):
            if os.path.exists(os.path.join(pkg, name)):
                self._parse(os.path.join(pkg, name), functions=True)
        self.rt_typedefs = CDecls(RUNTIME).typedefs if module == "driver" else {}

    def _parse(self, path, functions):
        with open(path) as f:
            text = re.sub(r"\s*(['\"])[^'\"\n]*\1", "", f.read())  # the C names in quotes
        body, indent = None, 0
        for line in text.splitlines():
            line = line.split("#")[0].rstrip()
            s = line.strip()
            deep = len(line) - len(s)
            if body is not None and s and deep > indent:
                if s != "pass":
                    m = re.match(r"^(.*?)\s*(\w+)(\[\w*\])?$", s)
                    if m:
                        body.append((_ctype(m.group(1)), m.group(2), m.group(3)))
                continue
            body = None
            m = re.match(r"^cdef\s+([\w\s\*]+?)\s*\b(\w+)\((.*)\)\s*except", s)
            if m and functions and deep == 0:
                params = []
                for p in m.group(3).split(","):
                    pm = re.match(r"^(.*?)\s*(\w+)(\[\d*\])?$", p.strip())
                    if pm and pm.group(1):
                        params.append((_ctype(pm.group(1)) + ("*" if pm.group(3) else ""), pm.group(2)))
                self.fns[m.group(2)] = params
                continue
            m = re.match(r"^(?:cdef|ctypedef)\s+(struct|union|enum)\s+(\w+)\s*:?$", s)
            if m:
                if m.group(1) == "enum":
                    self.enums.add(m.group(2))
                else:
                    body, indent = self.structs.setdefault(m.group(2), []), deep
                continue
            m = re.match(r"^ctypedef\s+[\w\s\*]+\(\s*\*\s*(\w+)\s*\)", s)
            if m:
                self.typedefs[m.group(1)] = "callback*"  # a C function pointer
                continue
            m = re.match(r"^ctypedef\s+(.+?)\s*\b(\w+)$", s)
            if m:
                self.typedefs[m.group(2)] = _ctype(m.group(1))

    def chain(self, t):
        """``t`` and the types it is a typedef of, outermost first."""
        out = [t]
        while out[-1] in self.typedefs and len(out) < 20:
            out.append(self.typedefs[out[-1]])
        return out

    def resolve(self, t):
        return self.chain(t)[-1]

    def handle_struct(self, t):
        """The opaque struct a handle type points to (``CUstream`` -> ``CUstream_st``), else None."""
        r = self.resolve(t)
        if r.endswith("*") and "*" not in r[:-1]:
            s = r[:-1]
            if s in self.structs and not self.structs[s] and s not in ("void",):
                return s
        return None


# the files a `cy*.pxd` includes that declare its types (12.9's `include "cyruntime_types.pxi"`)
_PXD_INCLUDES = {"runtime": ("cyruntime_types.pxi",)}


def _ctype(text):
    """A C type without `const`, with `*` written next to the name before it."""
    t = re.sub(r"\bconst\b", "", text)
    t = re.sub(r"\s*\*", "*", t)
    return " ".join(t.split())


_SIZES = {"char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4, "unsigned int": 4,
          "unsigned": 4, "int32_t": 4, "uint32_t": 4, "int16_t": 2, "uint16_t": 2, "int8_t": 1, "uint8_t": 1, "bool": 1}


# Python names of C parameters named like a Python keyword or builtin (both packages use them)
_PY_NAMES = {"input_": "input", "typename": "type", "length": "len", "numbytes": "bytes", "pformat": "format"}


def _snake(name):
    """``nvJitLinkGetLinkedCubinSize`` -> ``nv_jit_link_get_linked_cubin_size``, ``IRVersion`` ->
    ``ir_version``: how the raising modules spell C names."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _c_params(decls, name, cname=None):
    """{Python parameter name: C type} of a C function (its names as the Python one spells them:
    the C name, a keyword's stand-in, or the raising modules' snake_case)."""
    cdecl = decls.fns.get(name) or decls.fns.get(cname, [])
    if decls.module in RAISING:
        return {_snake(p): t for t, p in cdecl}
    py = {v: k for k, v in _PY_NAMES.items()}
    return {py.get(p, p): t for t, p in cdecl}


def _c_function(decls, module, name):
    """The C function a Python function of ``module`` calls: its own name, or for a raising
    module the C function whose name without the library's prefix is ``name`` in snake_case."""
    if module not in RAISING:
        return name
    return next((c for c in sorted(decls.fns) if _snake(re.sub(r"^(nvJitLink|nvvm)", "", c)) == name), name)


def _py_class_name(module, cname):
    """The class name of C type ``cname`` in ``module``: the raising modules drop the prefix
    (``nvJitLinkInputType`` -> ``InputType``)."""
    return re.sub(r"^(nvJitLink|nvvm)(?=[A-Z])", "", cname) if module in RAISING else cname


def _abi_class(decls, ours_mod, t):
    """("int" | "float", bytes) of a scalar, ("ptr", 8), or ("mem" | "int", bytes) of a record
    passed by value (records of at most 16 bytes here hold only integers)."""
    r = decls.resolve(t)
    if r.endswith("*"):
        return "ptr", 8
    if r in ("float", "double"):
        return "float", 4 if r == "float" else 8
    if r in decls.enums or any(x in decls.enums for x in decls.chain(t)):
        return "int", 4
    if r in decls.structs:
        rec = getattr(ours_mod, r, None)
        size = ctypes.sizeof(rec) if isinstance(rec, type) else 64
        return ("int" if size <= 16 else "mem"), size
    return "int", _SIZES.get(r, 8)


def _layout(decls, ours_mod, params):
    """{parameter: (abi class, bytes, [(area, index), ...])} of one C function (SysV x86-64):
    area "r" an integer register, "x" a vector register, "s" a stack word."""
    out, nr, nx, ns = {}, 0, 0, 0
    for t, name in params:
        cls, size = _abi_class(decls, ours_mod, t)
        words = (size + 7) // 8
        if cls == "float" and nx < NXMM:
            where, nx = [("x", nx)], nx + 1
        elif cls in ("int", "ptr") and nr + words <= NREG:
            where, nr = [("r", nr + i) for i in range(words)], nr + words
        else:
            where, ns = [("s", ns + i) for i in range(words)], ns + words
        out[name] = (cls, size, where)
    return out, ns


# ------------------------------------------------------------- the recording fakes

_FAKE_HEAD = r"""
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* Every entry logs its argument registers and stack words (the first NLOG calls after
   fake_reset) and returns STATUS; fake_last copies the log out and returns the number of calls. */
#define NLOG %(nlog)d
#define NSTACK %(nstack)d
typedef struct { uint64_t id, r[6], x[8], s[NSTACK]; } rec_t;
static rec_t LOG[NLOG];
static uint64_t COUNT;
void fake_reset(void) { COUNT = 0; }
uint64_t fake_last(rec_t *out) { memcpy(out, LOG, sizeof LOG); return COUNT; }
#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, \
    double x0, double x1, double x2, double x3, double x4, double x5, double x6, double x7, %(sargs)s
#define PASS a0, a1, a2, a3, a4, a5, x0, x1, x2, x3, x4, x5, x6, x7, %(spass)s
__attribute__((noinline)) static void rec(uint64_t id, ARGS) {
    if (COUNT < NLOG) {
        rec_t *e = &LOG[COUNT];
        double x[8] = {x0, x1, x2, x3, x4, x5, x6, x7};
        uint64_t s[NSTACK] = {%(spass)s};
        e->id = id;
        e->r[0] = a0; e->r[1] = a1; e->r[2] = a2; e->r[3] = a3; e->r[4] = a4; e->r[5] = a5;
        memcpy(e->x, x, sizeof x);
        memcpy(e->s, s, sizeof s);
    }
    COUNT++;
}
"""

_FAKE_CUDA_TAIL = r"""
static const char *NAMES[] = {%(names)s};
static void *STUBS[] = {%(stubs)s};
/* symbols not in NAMES get the spare entries, ids n, n+1, ...; fake_unknown names them */
#define NSPARE 16
static char SPARE[NSPARE][128];
static int NSPARED;
#define SP(k) static int sp_##k(ARGS) { rec(%(n)d + k, PASS); return STATUS; }
SP(0) SP(1) SP(2) SP(3) SP(4) SP(5) SP(6) SP(7) SP(8) SP(9) SP(10) SP(11) SP(12) SP(13) SP(14) SP(15)
static void *SPARES[NSPARE] = {sp_0, sp_1, sp_2, sp_3, sp_4, sp_5, sp_6, sp_7, sp_8, sp_9, sp_10, sp_11, sp_12, sp_13, sp_14, sp_15};
const char *fake_unknown(int k) { return k < NSPARED ? SPARE[k] : 0; }
static void *spare(const char *sym) {
    for (int k = 0; k < NSPARED; k++) if (!strcmp(SPARE[k], sym)) return SPARES[k];
    if (NSPARED == NSPARE) return SPARES[NSPARE - 1];
    strncpy(SPARE[NSPARED], sym, 127);
    return SPARES[NSPARED++];
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status);
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags) {
    return cuGetProcAddress_v2(sym, pfn, ver, flags, 0);
}
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    rec(%(getproc)d, (uint64_t)sym, (uint64_t)pfn, (uint64_t)ver, flags, (uint64_t)status, 0, 0, 0, 0, 0, 0, 0, 0, 0, %(zeros)s);
    if (!pfn) return 1;
    *pfn = 0;
    if (!strcmp(sym, "cuGetProcAddress")) *pfn = ver >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    else for (int i = 0; i < %(n)d; i++) if (STUBS[i] && !strcmp(sym, NAMES[i])) { *pfn = STUBS[i]; break; }
    if (!*pfn) *pfn = spare(sym);
    if (status) *status = 0;
    return 0;
}
"""


def _fake_sources(decls, names, ours_mods):
    """{soname: C source} of the recording fakes; ``names[module]`` the entries, in id order."""
    nstack = max(_layout(decls[m], ours_mods[m], p)[1] for m in MODULES for p in decls[m].fns.values()) + 4
    head = _FAKE_HEAD % {
        "nlog": NLOG, "nstack": nstack,
        "sargs": ", ".join("uint64_t s%d" % i for i in range(nstack)),
        "spass": ", ".join("s%d" % i for i in range(nstack)),
    }
    cuda = [head]
    for i, n in enumerate(names["driver"]):
        if n == "cuDriverGetVersion":
            cuda.append("static int fk_%d(ARGS) { rec(%d, PASS); if (a0) *(int *)a0 = VERSION; return 0; }" % (i, i))
        elif n not in ("cuGetProcAddress", "cuGetProcAddress_v2"):
            cuda.append("static int fk_%d(ARGS) { rec(%d, PASS); return STATUS; }" % (i, i))
    cuda.append("int cuDriverGetVersion(ARGS) { return fk_%d(PASS); }" % names["driver"].index("cuDriverGetVersion"))
    stubs = ["(void *)fk_%d" % i if n not in ("cuGetProcAddress", "cuGetProcAddress_v2") else "0" for i, n in enumerate(names["driver"])]
    cuda.append(_FAKE_CUDA_TAIL % {"names": ", ".join('"%s"' % n for n in names["driver"]), "stubs": ", ".join(stubs), "n": len(names["driver"]),
                                   "getproc": names["driver"].index("cuGetProcAddress"), "zeros": ", ".join(["0"] * nstack)})
    sources = {"libcuda.so.1": "\n".join(cuda) + "\n"}
    for m in MODULES[1:]:
        sources[_fake_soname(m)] = head + "\n".join(_fake_entry(m, n, i) for i, n in enumerate(names[m])) + "\n"
    return sources, nstack


def _fake_soname(module):
    """The soname of a module's fake: the one its loaders look for first (cudagen's also through
    the profile's override variable, `_FAKE_OVERRIDES`)."""
    major = base.oracle_major_minor()[0]
    return {"driver": "libcuda.so.1", "nvrtc": base._fake_nvrtc_soname(), "nvjitlink": "libnvJitLink.so.%d" % major,
            "nvvm": "libnvvm.so.4"}[module]


# cudagen's loader override of each fake (libraries.rs; cuda.bindings finds the raising modules'
# entries with dlsym(RTLD_DEFAULT) in the fakes loaded RTLD_GLOBAL first)
_FAKE_OVERRIDES = {"nvjitlink": "CUDAGEN_NVJITLINK_PATH", "nvvm": "CUDAGEN_NVVM_PATH"}
# the status every failing entry of a fake returns: CUDA_ERROR_INVALID_VALUE,
# NVRTC_ERROR_INVALID_INPUT, NVJITLINK_ERROR_INVALID_INPUT, NVVM_ERROR_INVALID_INPUT
FAKE_STATUS = {"driver": 1, "nvrtc": 3, "nvjitlink": 3, "nvvm": 4}


def _fake_entry(module, name, i):
    """C source of entry ``name`` (id ``i``) of a dlsym-loaded fake: it logs and returns
    FAKE_STATUS, but an error string is "fake", the architecture count 2, and an output's size
    16 bytes (so a getter that asks it first goes on to the getter itself). nvJitLink entries
    are also exported under the versioned names its header calls (`__nvJitLinkCreate_12_9`,
    every minor of the oracle's major)."""
    if name in ("nvrtcGetErrorString", "nvvmGetErrorString"):
        return 'const char *%s(ARGS) { rec(%d, PASS); return "fake"; }' % (name, i)
    if name == "nvrtcGetNumSupportedArchs":
        body = "if (a0) *(int *)a0 = 2; return 0;"
    elif re.match(r"^(nvrtcGet|nvJitLinkGet|nvvmGet)\w+Size$", name):
        body = "if (a1) *(size_t *)a1 = 16; return 0;"
    else:
        body = "return STATUS;"
    out = ["int %s(ARGS) { rec(%d, PASS); %s }" % (name, i, body)]
    if module == "nvjitlink" and name != "nvJitLinkVersion":
        major, minor = base.oracle_major_minor()
        out += ['int __%s_%d_%d(ARGS) __attribute__((alias("%s")));' % (name, major, m, name) for m in range(minor + 1)]
    return "\n".join(out)


def _entry_names(decls):
    """{module: entry names in id order}: the oracle's C functions and both modules' names (the
    raising modules' Python names are no C names: their C functions only)."""
    out = {}
    for m in MODULES:
        if m in RAISING:
            out[m] = sorted(decls[m].fns)
            continue
        prefix = "cu" if m == "driver" else "nvrtc"
        extra = {n for mod in (base._ours(m), base._theirs(m)) for n in base._public(mod) if n.startswith(prefix) and base._is_function(getattr(mod, n))}
        out[m] = sorted(set(decls[m].fns) | extra | ({"cuDriverGetVersion"} if m == "driver" else set()))
    return out


# ------------------------------------------------------------- value kinds


class _GetPtrOnly:
    def getPtr(self):
        return SEVEN


class _IntOnly:
    def __int__(self):
        return SEVEN


class _IndexOnly:
    def __index__(self):
        return SEVEN


# Kinds whose value each side allocates (a pointer parameter's word is not compared for them).
ALLOCATED = {"str", "bytes", "list", "tuple", "list_empty", "kp_pair"}
# The menu: int_0, int_1, bool (True), enum_same (a member of the parameter's own enum),
# enum_theirs (that member of cuda.bindings' enum), enum_other (a member of an unrelated enum),
# float_int (2.0), float_frac (2.5), np_int32 / np_uint64 (3), np_float64 (2.0), np_float32 (2.5),
# none, str ('x'), bytes (b'x'), int_neg (-1), int_2p64, int_2p63; handle_own / handle_ours /
# handle_theirs / handle_runtime: a handle or typedef class of the parameter's C type (CUstream
# for a parameter without one) holding 7, of the calling package's own module, of cudagen, of
# cuda.bindings.driver, of cuda.bindings.runtime (cudaStream_t, ...); other_*: the same of
# another C type (a CUevent for a CUstream); obj_getptr / obj_int / obj_index: an object with
# only getPtr() / __int__ / __index__ (7); list, tuple: two handles of the element class;
# list_empty; ndarray (numpy uint64 [7, 7]); kp_pair ((1, 2.0), (c_int, c_double)) and kp_addr (the
# address of a void*[2]) for a `void **`.
KINDS = (
    "int_0", "int_1", "bool", "enum_same", "enum_theirs", "enum_other", "float_int", "float_frac",
    "np_int32", "np_uint64", "np_float64", "np_float32", "none", "str", "bytes", "int_neg", "int_2p64",
    "int_2p63", "handle_own", "handle_ours", "handle_theirs", "handle_runtime", "other_own",
    "other_ours", "other_theirs", "other_runtime", "obj_getptr", "obj_int", "obj_index", "list",
    "tuple", "list_empty", "ndarray", "kp_pair", "kp_addr",
)


class Menu:
    """Builds the value of a kind for a parameter or field, for one side ("theirs" / "ours")."""

    def __init__(self):
        import numpy

        self.mods = {(side, m): (base._theirs(m) if side == "theirs" else base._ours(m)) for side in ("theirs", "ours") for m in MODULES}
        self.runtime = importlib.import_module(base.THEIRS + ".runtime")
        self.decls = {m: CDecls(m) for m in MODULES}
        self.ndarray = numpy.array([SEVEN, SEVEN], dtype=numpy.uint64)
        self.kp_values = (ctypes.c_int(1), ctypes.c_double(2.0))
        self.kp_array = (ctypes.c_void_p * 2)(*[ctypes.addressof(v) for v in self.kp_values])
        self.fixed = {
            "int_0": 0, "int_1": 1, "bool": True, "float_int": 2.0, "float_frac": 2.5,
            "np_int32": numpy.int32(3), "np_uint64": numpy.uint64(3), "np_float64": numpy.float64(2.0),
            "np_float32": numpy.float32(2.5), "none": None, "str": "x", "bytes": b"x", "int_neg": -1,
            "int_2p64": 2**64, "int_2p63": 2**63, "obj_getptr": _GetPtrOnly(), "obj_int": _IntOnly(),
            "obj_index": _IndexOnly(), "list_empty": [], "ndarray": self.ndarray,
            "kp_pair": ((1, 2.0), (ctypes.c_int, ctypes.c_double)), "kp_addr": ctypes.addressof(self.kp_array),
        }

    def info(self, module, ctype):
        """What the menu needs to know of a C type: its class name in the oracle's module (enum,
        handle or typedef class), the element class of a pointer, the runtime classes."""
        d = self.decls[module]
        theirs = self.mods[("theirs", module)]
        classes = lambda t: (c for c in (_py_class_name(module, n) for n in d.chain(t)) if isinstance(getattr(theirs, c, None), type))
        cls = next(classes(ctype), None)
        elem = next(classes(ctype[:-1]), None) if ctype.endswith("*") else None
        enum = cls if cls and base._is_enum(getattr(theirs, cls)) else None
        value = cls if cls and not enum and _is_value_class(getattr(theirs, cls)) else None
        info = {"ctype": ctype, "enum": enum, "value": value, "elem": elem, "void2": d.resolve(ctype) == "void**"}
        info["category"] = _category(d, info)
        return info

    def kinds(self, info):
        """The kinds that apply to a parameter or field of this C type."""
        out = []
        for k in KINDS:
            if k in ("enum_same", "enum_theirs") and not info["enum"]:
                continue
            if k.startswith("other_") and not info["value"]:
                continue
            if k in ("kp_pair", "kp_addr") and not info["void2"]:
                continue
            if k.endswith("_runtime") and self._runtime_class(info, k.startswith("other_")) is None:
                continue
            out.append(k)
        return out

    def _handle_class(self, info, other):
        """The driver class name of the handle kinds: the parameter's own value class (another
        one for "other_"), CUstream for a parameter without one."""
        if not other:
            return ("nvrtc" if info["value"] == "nvrtcProgram" else "driver"), info["value"] or "CUstream"
        return "driver", "CUevent" if info["value"] == "CUevent" else "CUstream"

    def _runtime_class(self, info, other):
        module, name = self._handle_class(info, other)
        if module != "driver":
            return None
        d = self.decls["driver"]
        struct = d.handle_struct(name)
        if struct is None:
            return None
        for rname, target in sorted(self.decls["driver"].rt_typedefs.items()):
            if rname.endswith("_const_t"):
                continue
            tgt = target[:-1] if target.endswith("*") else None
            if tgt is not None and _RUNTIME_ALIASES.get(tgt, tgt) == struct and isinstance(getattr(self.runtime, rname, None), type):
                return rname
        return None

    def value(self, kind, info, side, module):
        if kind in self.fixed:
            return self.fixed[kind]
        own = self.mods[(side, module)]
        if kind == "enum_same":
            return _member(getattr(own, info["enum"]))
        if kind == "enum_theirs":
            return _member(getattr(self.mods[("theirs", module)], info["enum"]))
        if kind == "enum_other":
            m, name = _other_enum(module, info["enum"])
            return _member(getattr(self.mods[(side, m)], name))
        if kind in ("list", "tuple"):
            if info["elem"] and _is_value_class(getattr(self.mods[("theirs", module)], info["elem"], None)):
                m, name = module, info["elem"]
            else:
                m, name = self._handle_class(info, False)
            cls = getattr(self.mods[(side, m)], name)
            items = [cls(SEVEN), cls(SEVEN)]
            return items if kind == "list" else tuple(items)
        other = kind.startswith("other_")
        which = kind.split("_", 1)[1]
        if which == "runtime":
            return getattr(self.runtime, self._runtime_class(info, other))(SEVEN)
        m, name = self._handle_class(info, other)
        pkg_side = side if which == "own" else which
        return getattr(self.mods[(pkg_side, m)], name)(SEVEN)


class RuntimeMenu(Menu):
    """The menu, knowing the runtime module too: its handle kinds are the runtime classes of the
    parameter's or field's C type (cudaStream_t where it has none), of the calling package
    (handle_own), of cudagen (handle_ours) or of cuda.bindings (handle_theirs)."""

    def __init__(self):
        super().__init__()
        for side in ("theirs", "ours"):
            self.mods[(side, RUNTIME)] = base._theirs(RUNTIME) if side == "theirs" else base._ours(RUNTIME)
        self.decls[RUNTIME] = CDecls(RUNTIME)

    def info(self, module, ctype):
        out = super().info(module, ctype)
        out["module"] = module
        return out

    def kinds(self, info):
        # the "_runtime" kinds are handle_theirs / other_theirs here
        return [k for k in super().kinds(info) if info.get("module") != RUNTIME or not k.endswith("_runtime")]

    def _runtime_class(self, info, other):
        return None if info.get("module") == RUNTIME else super()._runtime_class(info, other)

    def value(self, kind, info, side, module):
        if module != RUNTIME or kind in self.fixed or kind in ("enum_same", "enum_theirs"):
            return super().value(kind, info, side, module)
        if kind == "enum_other":
            name = "cudaDeviceAttr" if info["enum"] == "cudaError_t" else "cudaError_t"
            return _member(getattr(self.mods[(side, module)], name))
        if kind in ("list", "tuple"):
            elem = info["elem"]
            name = elem if elem and _is_value_class(getattr(self.mods[("theirs", module)], elem, None)) else "cudaStream_t"
            cls = getattr(self.mods[(side, module)], name)
            items = [cls(SEVEN), cls(SEVEN)]
            return items if kind == "list" else tuple(items)
        which = kind.split("_", 1)[1]
        if kind.startswith("other_"):
            name = "cudaEvent_t" if info["value"] == "cudaStream_t" else "cudaStream_t"
        else:
            name = info["value"] or "cudaStream_t"
        return getattr(self.mods[(side if which == "own" else which, module)], name)(SEVEN)


def _other_enum(module, enum):
    """(module, enum class) of the "enum_other" kind: an enum unrelated to the parameter's."""
    if module == "driver":
        return module, "CUdevice_attribute" if enum == "CUresult" else "CUresult"
    if module == "nvjitlink":
        return module, "InputType" if enum == "Result" else "Result"
    if module == "nvvm":
        return "driver", "CUresult"  # NVVM has one enum
    return module, "nvrtcResult"


def _category(d, info):
    """What a parameter or field is, for the allow-list's names: "handle" (an opaque pointer
    type), "typedef" (another type with a class: CUdevice, CUdeviceptr, cuuint64_t, a callback),
    "enum", "int", "float", "record" (by value), "void_ptr", "char_ptr", "ptrptr" (void**),
    "array" (a pointer to typed elements: an array or an in/out value), "callback" (a C function
    pointer), or "python" (a parameter of the Python function that the C function does not
    have). `_describe` makes the `void *` of a function taking a callback "callback_data"."""
    t = info["ctype"]
    r = d.resolve(t)
    if t == "?":
        return "python"
    if info["enum"]:
        return "enum"
    if r == "callback*":
        return "callback"
    if d.handle_struct(t):
        return "handle"
    if info["value"]:
        return "typedef"
    if r.endswith("**"):
        return "ptrptr"
    if r in ("void*", "char*"):
        return r.replace("*", "_ptr")
    if r.endswith("*"):
        return "array"
    if r in ("float", "double"):
        return "float"
    return "record" if r in d.structs else "int"


# runtime handle types whose struct is not the driver's (CUDA documents them interchangeable)
_RUNTIME_ALIASES = {
    "cudaArray": "CUarray_st",
    "cudaMipmappedArray": "CUmipmappedArray_st",
    "cudaGraphicsResource": "CUgraphicsResource_st",
    "cudaAsyncCallbackEntry": "CUasyncCallbackEntry_st",
}


def _is_value_class(x):
    """A handle or typedef class: one C value, `int()` and `getPtr()`."""
    return isinstance(x, type) and not base._is_enum(x) and hasattr(x, "getPtr") and hasattr(x, "__int__")


def _member(enum_cls):
    members = list(enum_cls.__members__.values())
    return next((m for m in members if int(m) == 1), members[0])


# ------------------------------------------------------------- the runner (subprocess)


class Runner:
    """Makes the calls of a list of jobs, writing one line per side of each unit:
    ``R <job> <unit> <module> <name> <param> <kind> <side> <outcome> <words>`` (tab-separated),
    after ``S <job> <unit> ...`` before it, so that a crash names its unit."""

    def __init__(self, fakes, out):
        self.menu = RuntimeMenu()
        self.job, self.n, self.start = 0, -1, 0
        self.fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self.libs = {m: ctypes.CDLL(os.path.join(fakes, _fake_soname(m))) for m in MODULES}
        self.names = _entry_names(self.menu.decls)
        self.nstack = int(open(os.path.join(fakes, "nstack")).read())
        self.width = 15 + self.nstack
        self.buf = (ctypes.c_uint64 * (NLOG * self.width))()
        for lib in self.libs.values():
            lib.fake_last.restype = ctypes.c_uint64

    def emit(self, *fields):
        os.write(self.fd, ("\t".join(str(f) for f in fields) + "\n").encode())

    def unit(self, key):
        """The next unit's number in the job, or None where it is to be skipped (before
        ``start``, where the job is resumed after a crash)."""
        self.n += 1
        if self.n < self.start:
            return None
        self.emit("S", self.job, self.n, *key)
        return self.n

    def emit_result(self, n, *fields):
        self.emit("R", self.job, n, *fields)

    def run_jobs(self, jobs, job, start):
        """Runs ``jobs`` from unit ``start`` of job ``job`` on."""
        for self.job in range(job, len(jobs)):
            self.n, self.start = -1, (start if self.job == job else 0)
            what, module, name = jobs[self.job]
            (self.function if what == "fn" else self.record)(module, name)

    def call(self, module, fn, args, cname, where, size):
        """(outcome, words, raised) of ``fn(*args)``: "reached" with the parameter's words (hex)
        when the library entry ``cname`` was entered, "returned" when it was not, "entered:<name>"
        when another was, or the exception's class (a refusal). A raising module's exception
        after the library was entered is ``raised`` ("Class(status)"; else "-")."""
        lib = self.libs[module]
        lib.fake_reset()
        raised = "-"
        try:
            fn(*args)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # PyO3's PanicException is a BaseException
            if module not in RAISING or not lib.fake_last(self.buf):
                return type(e).__name__, "-", "-"
            raised = "%s(%s)" % (type(e).__name__, getattr(e, "status", "?"))
        count = lib.fake_last(self.buf)
        if not count:
            return "returned", "-", "-"
        if module == "driver" and any(int(self.buf[i * self.width]) >= len(self.names[module]) for i in range(min(count, NLOG))):
            self.spare_names()
        names = self.names[module]
        entries = [self.buf[i * self.width : (i + 1) * self.width] for i in range(min(count, NLOG))]
        ids = [int(e[0]) for e in entries]
        # cuda.bindings resolves `cuX_v2` as "cuX" with a version
        cnames = (cname, re.sub(r"_v\d+$", "", cname), _ENTRY_ALIASES.get(cname))
        mine = [e for e in entries if int(e[0]) < len(names) and names[int(e[0])].lstrip("?") in cnames]
        if not mine:
            return "entered:" + ",".join(names[i] if i < len(names) else "?%d" % i for i in ids), "-", raised
        return "reached", _words(mine[0], where, size), raised

    def spare_names(self):
        """Names the driver fake's spare entries for symbols it did not know."""
        lib = self.libs["driver"]
        lib.fake_unknown.restype = ctypes.c_char_p
        names = [n for n in self.names["driver"] if not n.startswith("?")]
        k = 0
        while lib.fake_unknown(k):
            names.append("?" + lib.fake_unknown(k).decode())
            k += 1
        self.names["driver"] = names

    def baseline(self, module, name):
        """{side: (arguments, outcome), "cname": C entry} of the first candidate arguments
        cuda.bindings accepts and enters the library with (the entry of the function's name, or
        the one other entry it enters: `cuGraphInstantiate` is cuGraphInstantiateWithFlags);
        ours gets the same choices (its own classes)."""
        theirs_fn = getattr(self.menu.mods[("theirs", module)], name)
        ours_fn = getattr(self.menu.mods[("ours", module)], name, None)
        _, tc = base._candidate_lists(theirs_fn, theirs_fn, self.menu.mods[("theirs", module)])
        found, cname = None, _c_function(self.menu.decls[module], module, name)
        for idx in base._index_order(tc):
            args = [c[i] for c, i in zip(tc, idx)]
            got = self.call(module, theirs_fn, args, cname, [], 0)[0]
            if got.startswith("entered:") and "," not in got:
                cname = got.split(":")[1]
            if got == "reached" or cname != _c_function(self.menu.decls[module], module, name):
                found = idx
                break
        if found is None or ours_fn is None:
            return None
        _, oc = base._candidate_lists(theirs_fn, ours_fn, self.menu.mods[("ours", module)])
        oargs = [c[min(i, len(c) - 1)] for c, i in zip(oc, found)]
        out = {"theirs": ([c[i] for c, i in zip(tc, found)], "reached"), "cname": cname}
        got = self.call(module, ours_fn, oargs, cname, [], 0)[0]
        if got != "reached":
            # ours' own choice, where a buffer may also be 64 bytes (cudagen checks an output
            # buffer's size against the library's answer: 16 bytes from the fake)
            oc = [c + [bytes(64)] if any(isinstance(x, bytes) for x in c) else c for c in oc]
            for idx in base._index_order(oc):
                a = [c[i] for c, i in zip(oc, idx)]
                if self.call(module, ours_fn, a, cname, [], 0)[0] == "reached":
                    oargs = a
                    break
            else:
                oargs = None
        out["ours"] = (oargs, got)
        return out

    def function(self, module, name):
        menu = self.menu
        decls = menu.decls[module]
        n = self.unit((module, name, "-", "baseline", "both"))
        b = self.baseline(module, name)
        if n is not None:
            self.emit_result(n, module, name, "-", "baseline", "theirs", "reached" if b else "none", b["cname"] if b else "-")
            self.emit_result(n, module, name, "-", "baseline", "ours", b["ours"][1] if b else "none", "-")
        if not b or b["ours"][0] is None:
            return
        import inspect

        params = list(inspect.signature(getattr(menu.mods[("theirs", module)], name)).parameters)
        cparams = _c_params(decls, name, b["cname"])
        layout, _ = _layout(decls, menu.mods[("ours", module)], [(t, p) for p, t in cparams.items()])
        fns = {s: getattr(menu.mods[(s, module)], name) for s in ("theirs", "ours")}
        for i, p in enumerate(params):
            ctype = cparams.get(p, "?")
            info = menu.info(module, ctype)
            cls, size, where = layout.get(p, ("?", 0, []))
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
                    args = list(b[side][0])
                    args[i] = v
                    self.emit_result(n, module, name, p, kind, side, *self.call(module, fns[side], args, b["cname"], where, size))

    def record(self, module, name):
        menu = self.menu
        decls = menu.decls[module]
        classes = {s: getattr(menu.mods[(s, module)], name, None) for s in ("theirs", "ours")}
        ftypes = _field_ctypes(decls, name)
        for field in _fields(classes["theirs"]):
            info = menu.info(module, ftypes.get(field, "?"))
            for kind in menu.kinds(info):
                for side in ("theirs", "ours"):
                    n = self.unit((module, name, field, kind, side))
                    if n is None:
                        continue
                    self.emit_result(n, module, name, field, kind, side, *self.set_field(classes[side], field, kind, info, side, module))

    def set_field(self, cls, field, kind, info, side, module):
        if cls is None:
            return "noclass", "-"
        try:
            v = self.menu.value(kind, info, side, module)
            obj = cls()
            setattr(obj, field, v)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:
            return type(e).__name__, "-"
        if info["ctype"].replace(" ", "") in ("char*", "void*") or info["ctype"].endswith("**"):
            return "set", "-"  # read back, a char* would be read from address 7
        try:
            return "set", _norm(getattr(obj, field))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:
            return "set", "-"  # cuda.bindings 13 cannot read back an enum field holding no member


def _field_ctypes(decls, name):
    """{field: C type} of record class ``name`` (an array field is a pointer to its element)."""
    struct = next((t for t in decls.chain(name) if t in decls.structs), None)
    return {f: t + ("*" if arr else "") for t, f, arr in decls.structs.get(struct, [])}


def _fields(cls):
    if cls is None:
        return []
    return [k for k in dir(cls) if not k.startswith("_") and type(getattr(cls, k, None)).__name__ == "getset_descriptor"]


def _norm(v):
    """A read-back value as comparable text: int() where it takes one, else "-"."""
    if isinstance(v, float):
        return "f%r" % v
    try:
        return "%x" % (int(v) & (2**64 - 1))
    except Exception:
        pass
    if isinstance(v, (list, tuple)):
        try:
            return "[" + ",".join("%x" % int(x) for x in v) + "]"
        except Exception:
            pass
    return "-"


# C entries of one function under two names (cuda.h: `#define cuGraphInstantiate
# cuGraphInstantiateWithFlags`; cuda.bindings asks the driver for the first, cudagen the second)
_ENTRY_ALIASES = {"cuGraphInstantiate": "cuGraphInstantiateWithFlags"}


def _words(entry, where, size):
    """The parameter's words of one log entry, as hex, masked to its size."""
    out = []
    for area, i in where:
        w = int(entry[1 + i] if area == "r" else entry[7 + i] if area == "x" else entry[15 + i])
        if size < 8 and len(where) == 1:
            w &= (1 << (8 * size)) - 1
        out.append("%x" % w)
    return ",".join(out) or "-"


def _run(fakes, jobs_path, out, runner=None):
    """Runs the jobs in forked children (imports made once): a child that crashes leaves its
    unit's "S" line last; its crash is written as that unit's result and the next child starts
    after it (after the whole job where its baseline crashed). ``runner``: the Runner to use (the
    runtime's, `test_acceptance_runtime.py`), else one over the recording fakes."""
    r = runner or Runner(fakes, out)
    with open(jobs_path) as f:
        jobs = json.load(f)
    job, start = 0, 0
    while True:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                r.run_jobs(jobs, job, start)
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status):
            if os.WEXITSTATUS(status):
                sys.exit("runner failed (exit %d)" % os.WEXITSTATUS(status))
            return
        with open(out, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 65536))
            last = f.read().decode().splitlines()[-1].split("\t")
        if last[0] != "S":
            sys.exit("runner killed by signal %d outside any call, after %s" % (os.WTERMSIG(status), last))
        r.job, crashed = int(last[1]), int(last[2])
        r.emit_result(crashed, *last[3:8], "crash:signal %d" % os.WTERMSIG(status), "-")
        job, start = (r.job + 1, 0) if crashed == 0 else (r.job, crashed + 1)


# ------------------------------------------------------------- pytest side


def _acceptance_version():
    with open(ALLOWLIST) as f:
        m = re.match(r"^# oracle: cuda-bindings (\S+)$", f.readline().strip())
    return m and m.group(1)


@pytest.fixture(scope="module")
def recording_fakes(tmp_path_factory):
    base.oracle_or_skip()
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler to build the fake libraries")
    decls = {m: CDecls(m) for m in MODULES}
    ours = {m: base._ours(m) for m in MODULES}
    sources, nstack = _fake_sources(decls, _entry_names(decls), ours)
    d = tmp_path_factory.mktemp("acceptance_fakes")
    major, minor = base.oracle_major_minor()
    status_of = {_fake_soname(m): FAKE_STATUS[m] for m in MODULES}
    for soname, src in sources.items():
        c = d / (soname + ".c")
        c.write_text(src)
        status = status_of[soname]
        subprocess.run([gcc, "-shared", "-fPIC", "-O1", "-DSTATUS=%d" % status, "-DVERSION=%d" % (major * 1000 + minor * 10),
                        "-Wl,-soname," + soname, "-o", str(d / soname), str(c)], check=True)
    (d / "nstack").write_text(str(nstack))
    return d


def _jobs():
    """[("fn" | "rec", module, name)] of every function of MODULES and every record class of
    FIELD_MODULES of the oracle."""
    out = []
    for m in _modules():
        if m in MODULES:
            out += [("fn", m, n) for n in base._functions(m)]
        out += _record_jobs(m)
    return out


def _record_jobs(m):
    """[("rec", m, name)] of every record class of the oracle's module ``m`` that cudagen has."""
    theirs, ours = base._theirs(m), base._ours(m)
    out, seen = [], set()
    # one name per record (the C tag and the versioned typedefs are aliases of one class in
    # cudagen): the name of cudagen's class where the oracle has it
    names = sorted(base._public(theirs), key=lambda n: (getattr(getattr(ours, n, None), "__name__", None) != n, n))
    for n in names:
        x = getattr(theirs, n)
        if isinstance(x, type) and not base._is_enum(x) and not _is_value_class(x) and hasattr(x, "getPtr") and _fields(x) \
                and isinstance(getattr(ours, n, None), type) and getattr(ours, n) not in seen:
            seen.add(getattr(ours, n))
            out.append(("rec", m, n))
    return out


def _worker(fakes, jobs, tag, results, errors, script=__file__, env=None):
    """Runs ``jobs`` in a runner subprocess (``script``, in ``env``: by default this file over the
    recording fakes); collects its results {key: (outcome, words)}."""
    out = fakes / ("out_%s.txt" % tag)
    jobs_path = fakes / ("jobs_%s.json" % tag)
    jobs_path.write_text(json.dumps(jobs))
    if env is None:
        env = base._fake_env(fakes)
        env.update({var: str(fakes / _fake_soname(m)) for m, var in _FAKE_OVERRIDES.items()})
        env["CUDAGEN_ACCEPTANCE_PRELOAD"] = os.pathsep.join(str(fakes / _fake_soname(m)) for m in MODULES)
    if out.exists():
        out.unlink()
    try:
        p = subprocess.run([sys.executable, script, "run", str(fakes), str(jobs_path), str(out)], env=env,
                           capture_output=True, text=True, timeout=900)
        if p.returncode:
            errors.append("runner %s: exit %d: %s" % (tag, p.returncode, p.stderr.strip()[-2000:]))
    except subprocess.TimeoutExpired:
        errors.append("runner %s hung (900 s)" % tag)
    for line in out.read_text().splitlines() if out.exists() else []:
        f = line.split("\t")
        if f[0] == "R":
            results[tuple(f[3:8])] = (f[8], f[9], f[10] if len(f) > 10 else "-")


def _run_all(fakes, jobs=None, **worker):
    """(jobs, results) of ``jobs`` (all of `_jobs()` by default) split over runner subprocesses
    (``worker``: `_worker`'s ``script`` and ``env``)."""
    jobs = _jobs() if jobs is None else jobs
    nworkers = max(2, min(4, os.cpu_count() or 2))
    # split by the expected number of units (fields and parameters), round robin by size
    weight = lambda j: 3 if j[0] == "rec" else 4
    slices = [[] for _ in range(nworkers)]
    loads = [0] * nworkers
    for j in jobs:
        i = loads.index(min(loads))
        slices[i].append(j)
        loads[i] += weight(j)
    results, errors = {}, []
    threads = [threading.Thread(target=_worker, args=(fakes, s, str(i), results, errors), kwargs=worker) for i, s in enumerate(slices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)
    return jobs, results


def _judge_pair(kind, abi, category, t, o):
    """The difference class of one unit (theirs' outcome ``t``, ours ``o``: (outcome, words,
    raised); ``abi`` the C parameter's or field's ABI class), or None where there is none or a
    rule allows it."""
    (to, tw, tr), (oo, ow, orr) = t, o
    reached = ("reached", "set")
    if oo.startswith("crash"):
        return "crash"  # a crash is never right, whatever cuda.bindings did
    if to.startswith("crash"):
        return None  # cuda.bindings crashed (reading back a field it stored garbage in): no verdict
    if to in reached:
        if oo not in reached:
            return "entry" if oo == "returned" or oo.startswith("entered:") else "refused"
        # each side passes memory (a callback trampoline, its context) of its own
        own_memory = abi == "ptr" and (kind in ALLOCATED or _both_allocated(tw, ow) or category in ("callback", "callback_data"))
        if not own_memory and tw != ow and "-" not in (tw, ow):
            return "value"
        return "status" if tr != orr else None
    if oo in reached and not _accepted_rule(kind, category) and not _their_conversion(kind, category, ow):
        return "accepted"
    return None


# The integer each kind stands for by cuda.bindings' own conversion of its Python type: `int()`
# (which its Cython code calls on numbers, `__int__` objects, enum members and its handle
# classes, whose value is SEVEN), None as NULL, an object's getPtr(). `_member` picks the member
# of value 1.
_INT_OF = {
    "int_0": 0, "int_1": 1, "bool": 1, "float_int": 2, "float_frac": 2, "np_int32": 3, "np_uint64": 3,
    "np_float64": 2, "np_float32": 2, "none": 0, "int_neg": -1, "int_2p63": 2**63, "enum_same": 1,
    "enum_theirs": 1, "enum_other": 1, "obj_int": SEVEN, "obj_index": SEVEN, "obj_getptr": SEVEN,
    "handle_own": SEVEN, "handle_ours": SEVEN, "handle_theirs": SEVEN, "handle_runtime": SEVEN,
}
# Categories whose word is the value itself (not the address of memory a side allocated; a
# callback's user data that a side wraps in a context of its own has that context's address).
_BY_VALUE = ("int", "enum", "handle", "typedef", "void_ptr", "char_ptr", "ptrptr", "callback", "callback_data")


def _their_conversion(kind, category, ow):
    """Whether cudagen, taking a value cuda.bindings refuses (``ow``: the word cudagen passed or
    stored), passed the C value that value has by cuda.bindings' own conversion of its Python
    type (`_INT_OF`), in the C type's width (-1 as all ones: the bits `int()` gives in two's
    complement). Sound by construction: no cuda.bindings program passes this value here (it
    raises), so taking it cannot change what one does; and the value taken means what
    cuda.bindings means by it everywhere else. Narrow: only a parameter or field passed by value,
    one word compared, and any other C value (an address of a copy, getPtr() of a handle, a
    truncation other than `int()`'s) is still "accepted"; a crash is judged before."""
    if kind not in _INT_OF or category not in _BY_VALUE or ow in ("-", "") or "," in ow:
        return False
    try:
        w = int(ow, 16)
    except ValueError:
        return False
    v = _INT_OF[kind]
    return any(w == v % 2**bits for bits in (64, 32, 16, 8) if v < 2**bits)


def _both_allocated(tw, ow):
    """Both words are addresses of memory each side allocated (no kind's value is that big)."""
    try:
        return all(0x10000 <= int(w, 16) < 2**63 for w in (tw, ow))
    except ValueError:
        return False


def _accepted_rule(kind, category):
    """Whether cudagen may take a value that cuda.bindings refuses: where it means what the
    caller meant (each rule says why)."""
    # Python's protocol for "this object is an integer" (cuda.bindings' Cython conversion asks
    # for `__int__` instead); a C enum is an integer too, given by its value
    if kind in ("int_0", "int_1", "bool", "np_int32", "np_uint64", "obj_index") and category == "enum":
        return True
    # an object with only `__int__` says which integer it is: cuda.bindings 13 int()s it for an
    # enum and a `void *` too (12.x refuses it there), so its int() has one meaning
    if kind == "obj_int" and category in ("enum", "void_ptr"):
        return True
    # a member of the C type's own enum (ours or NVIDIA's): the value it names, its only meaning
    # (cuda.bindings 13's setters of CUstreamMemOpAtomicReductionParams refuse their own members)
    if kind in ("enum_same", "enum_theirs") and category == "enum":
        return True
    if kind == "obj_index" and category in ("int", "handle", "typedef", "void_ptr", "ptrptr"):
        return True
    # cudagen's own handle and typedef classes where that class goes (cuda.bindings does not
    # know them; NVIDIA's functions taking ours is the interop part of issue 22)
    if kind == "handle_ours" and category in ("handle", "typedef"):
        return True
    # None for a pointer: NULL
    if kind == "none" and category in ("void_ptr", "char_ptr", "ptrptr", "array", "handle", "typedef"):
        return True
    # a str for a `char *`: its UTF-8 bytes
    if kind == "str" and category == "char_ptr":
        return True
    # a C array given as a sequence of its elements, or as a buffer (numpy array) of them
    if kind in ("list", "tuple", "list_empty", "ndarray") and category == "array":
        return True
    # a nested record field set from a tuple of its fields (ctypes builds the record)
    if kind == "tuple" and category == "record":
        return True
    # a host pointer given as a buffer (numpy array): its address
    if kind == "ndarray" and category in ("void_ptr", "ptrptr"):
        return True
    return False


def _allowed(entries, module, name, check):
    return [k for k in entries if base._glob(module, k[0]) and base._glob(name, k[1]) and base._glob(check, k[2])]


def test_acceptance_allowlist_is_about_the_oracle():
    """The acceptance allow-list names the same cuda-bindings version as the name oracle's, and
    every line has a known class and a reason of a few words."""
    assert _acceptance_version() == base.ORACLE_VERSION, "%s: the first line must be '# oracle: cuda-bindings %s'" % (ALLOWLIST, base.ORACLE_VERSION)
    for (m, n, check), why in base._allowlist(ALLOWLIST, checks=None).items():
        assert all(alt.split(":")[0] in CLASSES and ":" in alt for alt in check.split("|")) and len(why.split()) >= 2, (m, n, check, why)


def _describe(jobs, cnames, menu=None):
    """{(module, function or record, parameter or field): (ABI class, category)} of the C
    declarations (``cnames``: {(module, function): the C entry it enters}; ``menu``: a Menu that
    knows the jobs' modules)."""
    menu = menu or RuntimeMenu()
    out = {}
    for what, m, name in jobs:
        decls, ours = menu.decls[m], menu.mods[("ours", m)]
        if what == "fn":
            ctypes_ = _c_params(decls, name, cnames.get((m, name)))
            import inspect

            described = {}
            for p in inspect.signature(getattr(menu.mods[("theirs", m)], name)).parameters:
                t = ctypes_.get(p, "?")
                described[p] = ("?" if t == "?" else _abi_class(decls, ours, t)[0], menu.info(m, t)["category"])
            if any(c == "callback" for _, c in described.values()):
                # the callback's user data: each side passes a context of its own
                described = {p: (a, "callback_data" if c == "void_ptr" else c) for p, (a, c) in described.items()}
            out.update({(m, name, p): v for p, v in described.items()})
        else:
            for f, t in _field_ctypes(decls, name).items():
                out[(m, name, f)] = (_abi_class(decls, ours, t)[0], menu.info(m, t)["category"])
    return out


def _tally_key(t, o, cls):
    """How one unit ended, for the per-module counts: "reached-same" (both entered the library
    with the same words and status), "refused-both", "taken-here" (refused there, reached here
    by a rule), "differs" (a difference class), "theirs-crashed"."""
    reached = ("reached", "set")
    if cls:
        return "differs"
    if t[0].startswith("crash"):
        return "theirs-crashed"
    if t[0] in reached:
        return "reached-same"
    return "taken-here" if o[0] in reached else "refused-both"


def _modules():
    """The modules compared: MODULES and FIELD_MODULES, or those named in
    CUDAGEN_ACCEPTANCE_MODULES (comma list; a partial run while working on one module: allow-list
    lines of the others are not judged)."""
    every = MODULES + tuple(m for m in FIELD_MODULES if m not in MODULES)
    only = [m for m in os.environ.get("CUDAGEN_ACCEPTANCE_MODULES", "").split(",") if m]
    unknown = sorted(set(only) - set(every))
    assert not unknown, "CUDAGEN_ACCEPTANCE_MODULES names no module of %s: %s" % (every, unknown)
    return [m for m in every if not only or m in only]


def test_acceptance(recording_fakes, capsys):
    t0 = time.time()
    jobs, results = _run_all(recording_fakes)
    cnames = {(k[0], k[1]): v[1] for k, v in results.items() if k[3] == "baseline" and k[4] == "theirs"}
    described = _describe(jobs, cnames)
    records = {(m, n) for what, m, n in jobs if what == "rec"}
    pairs = defaultdict(dict)
    for key, val in results.items():
        pairs[key[:4]][key[4]] = val
    found = []  # (module, "name.param", "class:kind", detail)
    funcs, params, fields, kinds, calls = set(), set(), set(), set(), 0
    theirs_crashes, unjudged = 0, []
    tally = defaultdict(Counter)  # module: {outcome of a unit: count}
    for (m, name, p, kind), sides in sorted(pairs.items()):
        calls += len(sides)
        t, o = sides.get("theirs", ("none", "-", "-")), sides.get("ours", ("none", "-", "-"))
        theirs_crashes += t[0].startswith("crash")
        if kind == "baseline":
            funcs.add((m, name))
            if o[0].startswith("crash"):
                found.append((m, name + ".-", "crash:-", "baseline: cudagen %s" % o[0]))
            elif t[0] == "reached" and o[0] != "reached":
                found.append((m, name + ".-", "baseline:-", "cuda.bindings' baseline call: cudagen %s" % o[0]))
            continue
        kinds.add(kind)
        (fields if (m, name) in records else params).add((m, name, p))
        abi, category = described.get((m, name, p), ("?", "python"))
        cls = _judge_pair(kind, abi, category, t, o)
        tally[m][_tally_key(t, o, cls)] += 1
        if t[0].startswith("crash"):
            unjudged.append((m, "%s.%s:%s" % (name, p, category), kind))
        if cls:
            found.append((m, "%s.%s:%s" % (name, p, category), "%s:%s" % (cls, kind), "theirs %s %s %s, ours %s %s %s" % (t + o)))
    entries = base._allowlist(ALLOWLIST, checks=None)
    new = [f for f in found if not _allowed(entries, f[0], f[1], f[2])]
    stale = _stale(entries, _modules(), found, unjudged)
    label = lambda u: "%s.%s:%s" % (u[1], u[2], described.get(u[:3], ("?", "python"))[1])
    new, stale, undefined = _reproduced(new, stale, jobs, pairs, label, lambda redo: _run_all(recording_fakes, redo)[1])
    by_class = Counter(f[2].split(":")[0] for f in found)
    with capsys.disabled():
        print("\nacceptance oracle, cuda-bindings %s: %d functions, %d parameters, %d record fields (%d of the runtime), %d kinds, "
              "%d calls (%d crashed cuda.bindings), %.0f s; %d differences (%d allow-listed): %s" % (
                  base.ORACLE_VERSION, len(funcs), len(params), len(fields), sum(f[0] == RUNTIME for f in fields), len(kinds), calls,
                  theirs_crashes, time.time() - t0,
                  len(found), len(found) - len(new), ", ".join("%s %d" % kv for kv in sorted(by_class.items()))))
        for m in _modules():
            n_found = sum(f[0] == m for f in found)
            print("  %s: %d functions, %d parameters, %d record fields, %d (parameter or field, kind) units: %s; %d differences, "
                  "%d allow-listed" % (
                m, sum(f[0] == m for f in funcs), sum(p[0] == m for p in params), sum(p[0] == m for p in fields), sum(tally[m].values()),
                ", ".join("%s %d" % kv for kv in sorted(tally[m].items())), n_found, n_found - sum(f[0] == m for f in new)))
        _print_undefined(undefined)
        _dump(found)
    _judge_found("acceptance", new, stale)


def _stale(entries, modules, found, unjudged):
    """The allow-list lines of ``modules`` that cover no difference ``found``. A line that covers
    a unit without a verdict (``unjudged``: (module, name, kind) of the units where cuda.bindings
    crashed) is not stale: such a crash depends on memory (a setter casting a list item of another
    class to its record, `cudaExternalSemaphoreSignalNodeParams.paramsArray`), so the unit may
    differ on the next run."""
    def unjudged_only(k):
        return any(_allowed([k], m, n, c + ":" + kind) for m, n, kind in unjudged for c in CLASSES)

    return [k for k in entries if any(base._glob(m, k[0]) for m in modules) and not any(_allowed([k], *f[:3]) for f in found) and not unjudged_only(k)]


RERUNS = 3  # fresh runner rounds that re-check each unit a verdict would fail on


def _unit(f):
    """The unit (module, name, parameter, kind) of a difference ``f`` of ``found``."""
    name, rest = f[1].split(".", 1)
    return f[0], name, rest.rsplit(":", 1)[0], f[2].split(":", 1)[1]


def _reproduced(new, stale, jobs, pairs, label, rerun):
    """``new`` and ``stale`` less what cuda.bindings does not do the same way twice: every job
    they name runs `RERUNS` more times (``rerun(jobs)``: fresh runner subprocesses, their
    results), and a unit whose oracle outcome changes between runs (a setter reading memory it
    never checked, say) gets no verdict. ``label(unit)``: its allow-list name ("name.p:category").
    Returns (new, stale, {unit: oracle outcomes seen})."""
    if not new and not stale:
        return new, stale, {}
    named = {(f[0], f[1].split(".", 1)[0]) for f in new}
    globs = [(k[0], "|".join(g.split(".", 1)[0] for g in k[1].split("|"))) for k in stale]
    redo = [j for j in jobs if (j[1], j[2]) in named or any(base._glob(j[1], m) and base._glob(j[2], g) for m, g in globs)]
    seen = defaultdict(set)
    for unit, sides in pairs.items():
        if (unit[0], unit[1]) in {(j[1], j[2]) for j in redo}:
            seen[unit].add(sides.get("theirs", ("none",))[0])
    for _ in range(RERUNS):
        for key, val in rerun(redo).items():
            if key[4] == "theirs" and key[:4] in seen:
                seen[key[:4]].add(val[0])
    undefined = {u: sorted(o) for u, o in seen.items() if len(o) > 1}
    covers = lambda k, u: any(_allowed([k], u[0], label(u), c + ":" + u[3]) for c in CLASSES)
    new = [f for f in new if _unit(f) not in undefined]
    stale = [k for k in stale if not any(covers(k, u) for u in undefined)]
    return new, stale, undefined


def test_their_conversion_is_narrow():
    """`_judge_pair` takes a value cuda.bindings refuses only where cudagen passed its int() (or
    NULL, or all ones for -1 in the C type's width); another C value, a value by address, an
    unverifiable (word-less) unit and a crash still differ."""
    refused, judge = ("refused", "-", "-"), lambda kind, cat, w: _judge_pair(kind, "ptr", cat, refused, ("reached", w, "-"))
    assert judge("obj_int", "handle", "7") is None and judge("int_neg", "void_ptr", "ffffffffffffffff") is None
    assert judge("int_neg", "int", "ffffffff") is None and judge("none", "typedef", "0") is None
    assert judge("obj_int", "handle", "8") == "accepted", "another C value"
    assert judge("handle_theirs", "void_ptr", "7f0012345678") == "accepted", "getPtr() of a handle is not its value"
    assert judge("obj_index", "array", "7") == "accepted", "an array's word is an address, never checked as a value"
    assert judge("np_int32", "array", "7f0012345678") == "accepted", "an address of a copy"
    assert judge("obj_int", "handle", "-") == "accepted", "no word to check"
    assert _judge_pair("obj_int", "ptr", "handle", refused, ("crash:SIGSEGV", "-", "-")) == "crash"


def test_a_difference_that_does_not_reproduce_gets_no_verdict():
    """`_reproduced` over made-up results: a unit whose oracle outcome flips between runs leaves
    `new` (and the allow-list line covering only it stops being stale); a steady one stays."""
    jobs = [("rec", "runtime", "R"), ("fn", "driver", "f")]
    pairs = {("runtime", "R", "a", "list"): {"theirs": ("set", "-", "-")}, ("driver", "f", "p", "str"): {"theirs": ("refused", "-", "-")}}
    new = [("runtime", "R.a:array", "refused:list", "-"), ("driver", "f.p:python", "accepted:str", "-")]
    stale = [("runtime", "R.a:array", "value:list"), ("driver", "f.p:python", "value:str")]
    runs = iter([{("runtime", "R", "a", "list", "theirs"): ("refused", "-", "-"), ("driver", "f", "p", "str", "theirs"): ("refused", "-", "-")}] * RERUNS)
    label = lambda u: "%s.%s:%s" % (u[1], u[2], "array" if u[0] == "runtime" else "python")
    asked = []
    kept_new, kept_stale, undefined = _reproduced(new, stale, jobs, pairs, label, lambda redo: asked.append(redo) or next(runs))
    assert kept_new == new[1:] and kept_stale == stale[1:]
    assert undefined == {("runtime", "R", "a", "list"): ["refused", "set"]}
    assert len(asked) == RERUNS and asked[0] == jobs
    assert _reproduced([], [], jobs, pairs, label, None) == ([], [], {}), "nothing to confirm runs nothing"


def _print_undefined(undefined):
    for (m, name, p, kind), outcomes in sorted(undefined.items()):
        print("  no verdict: %s.%s.%s:%s, cuda.bindings gave %s over %d runs" % (m, name, p, kind, " or ".join(outcomes), RERUNS + 1))


def _dump(found):
    """Writes every difference, one a line, to `CUDAGEN_ACCEPTANCE_DUMP` when it is set."""
    if os.environ.get("CUDAGEN_ACCEPTANCE_DUMP"):
        with open(os.environ["CUDAGEN_ACCEPTANCE_DUMP"], "w") as f:
            for x in found:
                f.write("%s.%s %s %s\n" % x)


def _judge_found(what, new, stale):
    """Fails on a difference no allow-list line covers and on a line that covers none."""
    assert not new and not stale, "\n".join(
        ["%s differences from cuda.bindings (%d; by class: %s):" % (what, len(new), dict(Counter(f[2] for f in new)))]
        + ["%s.%s %s: %s" % x for x in new[:300]]
        + ["stale allow-list entries (%d):" % len(stale)] + ["%s.%s %s" % k for k in stale]
    )

if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "run":
    # the fakes are loaded first under their sonames, so both packages' loaders find them
    for lib in os.environ["CUDAGEN_ACCEPTANCE_PRELOAD"].split(os.pathsep):
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
    _run(sys.argv[2], sys.argv[3], sys.argv[4])
