"""The generated modules build each class on its first access (`cudagen._lazy._Lazy`, the
module's `__getattr__`): the import builds none; one class object per name, aliases the very
class of their target; once all are built (`build_all`) no `__getattr__` is left, so CPython
specializes attribute loads on the module; enums built by the fast path equal what `IntEnum`'s
functional API makes."""

import ctypes
import dis
import enum
import importlib
import json
import pickle
import subprocess
import sys
import types

import pytest

import cudagen._cudagen as _ext
from cudagen import _classes, _lazy
from cudagen._classes import CEnum, enum_members

# modules rendered from templates/python/module.py.tera, and the raising ones over them
TABLE_MODULES = ("cudagen.driver", "cudagen.runtime", "cudagen.nvrtc", "cudagen._nvjitlink", "cudagen._nvvm")
ALL_MODULES = TABLE_MODULES + ("cudagen.nvjitlink", "cudagen.nvvm")
TABLES = ("_ENUMS", "_RECORDS", "_TYPEDEFS", "_ALIASES")


@pytest.mark.parametrize("name", ALL_MODULES)
def test_only_table_modules_have_a_getattr(name):
    mod = importlib.import_module(name)
    hook = vars(mod).get("__getattr__")
    if name not in TABLE_MODULES:
        assert hook is None and "__dir__" not in vars(mod), name
    elif hook is not None:  # until every class is built (`build_all`)
        assert isinstance(hook.__self__, _lazy._Lazy) and callable(vars(mod)["__dir__"]), name


def test_import_builds_no_class_and_access_builds_each_once():
    """In a fresh interpreter: right after the import no table name is in a module's dict, but
    each is in ``dir()``; the first access binds it (a record with what its fields need); after
    `build_all` every table name is bound with the right kind of class, each alias is its target,
    and the module has no ``__getattr__`` left."""
    code = """
import ctypes, importlib, sys
import cudagen.driver
# the import builds nothing, so it needs neither the class builder nor ctypes through it
bad = [("import", "imported cudagen._classes", "")] if "cudagen._classes" in sys.modules else []
from cudagen import _lazy
from cudagen._classes import CEnum
for name in %r:
    mod = importlib.import_module(name)
    names = [n for t in %r for n in getattr(mod, t)]
    bad += [(name, "bound at import", n) for n in names if n in vars(mod)]
    bad += [(name, "not in dir()", n) for n in names if n not in dir(mod)]
    if not hasattr(mod, "__getattr__"):
        bad.append((name, "no __getattr__", ""))
    if mod._RECORDS:
        first = sorted(mod._RECORDS)[0]
        cls = getattr(mod, first)
        if vars(mod)[first] is not cls or getattr(mod, first) is not cls:
            bad.append((name, "not bound once", first))
    _lazy.build_all(mod)
    d = dict(vars(mod))
    if "__getattr__" in d:
        bad.append((name, "__getattr__ after build_all", ""))
    for t, base in (("_ENUMS", CEnum), ("_RECORDS", (ctypes.Structure, ctypes.Union)), ("_TYPEDEFS", object)):
        for n in getattr(mod, t):
            if not (isinstance(d.get(n), type) and issubclass(d[n], base)):
                bad.append((name, t, n))
    for a, target in mod._ALIASES.items():
        if a not in d or d[a] is not d.get(target) or not isinstance(d[a], type):
            bad.append((name, "_ALIASES", a))
    if sorted(d) != dir(mod):
        bad.append((name, "dir() after build_all", ""))
    print(name, len(names))
print("BAD", bad)
""" % (TABLE_MODULES, TABLES)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[-1] == "BAD []", lines[-1][:3000]
    counts = dict(line.split() for line in lines[:-1])
    # the driver and runtime tables are not empty (so the loop above checked something)
    assert int(counts["cudagen.driver"]) > 300 and int(counts["cudagen.runtime"]) > 250, counts


@pytest.mark.parametrize("name", TABLE_MODULES)
def test_star_import_binds_every_class(name):
    # `__all__` lists the classes not built yet, so `import *` builds and binds them (the very
    # objects of the module), and it binds nothing private
    code = (
        "import importlib, json; m = importlib.import_module(%r); ns = {}; exec('from %s import *', ns)\n"
        "want = {n for t in %r for n in getattr(m, t) if n[0] != '_'}\n"
        "print(json.dumps([len(want), sorted(want - set(ns)), sorted(n for n in ns if n[0] == '_' and n != '__builtins__'),"
        " all(ns[n] is getattr(m, n) for n in want)]))"
    ) % (name, name, TABLES)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    count, missing, private, same = json.loads(out.stdout)
    assert count > 0 and missing == [] and private == [] and same, out.stdout


def test_first_access_builds_a_record_with_its_fields_classes():
    """A record built first builds the records, enums and typedefs its fields read as, bound
    under their own names (the same objects the module then hands out)."""
    code = """
from cudagen import driver
p = driver.CUDA_KERNEL_NODE_PARAMS
before = sorted(n for n in ("CUDA_MEMCPY3D", "CUmemorytype", "CUhostFn") if n in vars(driver))
cls = driver.CUDA_MEMCPY3D
dep = "CUmemorytype" in vars(driver)  # bound with the record that needed it
m = cls()
m.srcMemoryType = 2
h = driver.CUDA_HOST_NODE_PARAMS()
print(before, dep, type(m.srcMemoryType) is driver.CUmemorytype, type(h.fn) is driver.CUhostFn,
      driver.CUmemorytype(2) is m.srcMemoryType)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["[]", "True", "True", "True", "True"], out.stdout


def test_threads_racing_for_a_class_get_one_object():
    """Threads that ask for the same unbuilt class at once all get the one class object."""
    code = """
import sys, threading
sys.setswitchinterval(1e-6)
from cudagen import runtime
names = sorted(runtime._RECORDS)[:40]
barrier = threading.Barrier(8)
seen = [[] for _ in range(8)]
def run(i):
    barrier.wait()
    seen[i] = [getattr(runtime, n) for n in (names if i % 2 else names[::-1])]
ts = [threading.Thread(target=run, args=(i,)) for i in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
ok = all(seen[i][k if i % 2 else len(names) - 1 - k] is getattr(runtime, names[k]) for i in range(8) for k in range(len(names)))
print(len(names), ok)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["40", "True"], out.stdout


def test_lazy_classes_pickle_and_refuse_unknown_names():
    code = """
import pickle
from cudagen import driver
e = pickle.loads(pickle.dumps(driver.CUmemorytype.CU_MEMORYTYPE_DEVICE))
r = pickle.loads(pickle.dumps(driver.CUDA_ARRAY_DESCRIPTOR(Width=3)))
try:
    driver.CUnotAName
    missing = "no error"
except AttributeError as x:
    missing = str(x)
print(e is driver.CUmemorytype.CU_MEMORYTYPE_DEVICE, type(r) is driver.CUDA_ARRAY_DESCRIPTOR and r.Width == 3, repr(missing))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().split(None, 2) == ["True", "True", "\"module 'cudagen.driver' has no attribute 'CUnotAName'\""], out.stdout


@pytest.mark.parametrize("name", TABLE_MODULES)
def test_tables_do_not_shadow_the_extension(name):
    """A first access binds a table name in the module dict: none may be a function or handle
    class of the extension (or a constant), which it would replace."""
    mod = importlib.import_module(name)
    ext = getattr(_ext, name.rsplit(".", 1)[1])
    names = [n for t in TABLES for n in getattr(mod, t)]
    assert len(names) == len(set(names)), "a name in two tables"
    assert not set(names) & {k for k in vars(ext) if k[0] != "_"}
    assert not [n for n in names if isinstance(getattr(mod, n), int)]


def test_records_and_typedefs_built_with_their_modules():
    from cudagen import driver, runtime

    for mod in (driver, runtime):
        for n in mod._RECORDS:
            cls = getattr(mod, n)
            assert cls.__module__ == mod.__name__ and ctypes.sizeof(cls) == _classes.record_layout(mod._RECORDS[n])[1], n
        for n in mod._TYPEDEFS:
            assert getattr(mod, n).__module__ == mod.__name__, n
    # an enum field reads as the module's own enum class, a typedef field as its typedef class
    m = driver.CUDA_MEMCPY2D()
    m.srcMemoryType = 2
    assert type(m.srcMemoryType) is driver.CUmemorytype and m.srcMemoryType is driver.CUmemorytype(2)
    p = driver.CUDA_HOST_NODE_PARAMS()
    assert type(p.fn) is driver.CUhostFn


def _fast_path_expected():
    # CPython versions whose empty enum namespace `_classes` knows (3.11 ... 3.13 checked)
    return (3, 11) <= sys.version_info[:2] <= (3, 13)


def test_fast_enum_path_is_used():
    if _fast_path_expected():
        assert _classes._TEMPLATE is not None, sys.version
    from cudagen import driver, runtime

    for mod in (driver, runtime):
        for n, table in mod._ENUMS.items():
            names = [m for m, _ in enum_members(table)]
            # no member takes the functional API's path (so the comparison below compares two ways)
            assert _classes._RESERVED.isdisjoint(names) and not any(m.startswith("_") for m in names), n


def _reference(mod, name):
    return CEnum(name, enum_members(mod._ENUMS[name]), module=mod.__name__)


def _members(cls):
    return [(k, v.name, v.value) for k, v in cls.__members__.items()]


@pytest.mark.parametrize("name", TABLE_MODULES)
def test_enums_equal_the_functional_api(name):
    mod = importlib.import_module(name)
    checked = 0
    for ename in mod._ENUMS:
        cls, ref = getattr(mod, ename), _reference(mod, ename)
        assert type(cls) is type(ref) and cls.__bases__ == ref.__bases__, ename
        assert cls.__name__ == ref.__name__ == cls.__qualname__ and cls.__module__ == ref.__module__ == name
        assert _members(cls) == _members(ref), ename
        assert [(m.name, m.value) for m in cls] == [(m.name, m.value) for m in ref], ename
        assert len(cls) == len(ref) > 0, ename
        assert cls._member_names_ == ref._member_names_, ename
        for m in ref:
            assert cls(m.value).name == m.name and cls(m.value) is cls[m.name], (ename, m.name)
        for k, m in ref.__members__.items():  # aliases included
            c = cls[k]
            assert (c.name, c.value, c._sort_order_) == (m.name, m.value, m._sort_order_), (ename, k)
            assert type(c) is cls and c.__objclass__ is cls and getattr(cls, k) is c, (ename, k)
            assert (repr(c), str(c), format(c), hash(c)) == (repr(m), str(m), format(m), hash(m)), (ename, k)
        assert set(vars(cls)) == set(vars(ref)), (ename, set(vars(cls)) ^ set(vars(ref)))
        for k, v in vars(ref).items():
            w = vars(cls)[k]
            if k in ref.__members__:
                assert (w.name, w.value) == (v.name, v.value), (ename, k)
            elif k in ("_member_map_", "_value2member_map_"):
                assert {a: b.name for a, b in w.items()} == {a: b.name for a, b in v.items()}, (ename, k)
            elif k == "__doc__":
                assert isinstance(w, _classes._Doc) and v is None, ename
            else:  # 3.12+ wraps `_generate_next_value_` in a staticmethod of its own per class
                w, v = (x.__func__ if isinstance(x, staticmethod) else x for x in (w, v))
                assert w is v or w == v, (ename, k, w, v)
        assert dir(cls) == dir(ref), ename
        # a value the table does not have: an UNKNOWN_<value> pseudo-member
        unknown = max(m.value for m in ref) + 1
        u = cls(unknown)
        assert type(u) is cls and u == unknown and u.name == "UNKNOWN_%d" % unknown == ref(unknown).name, ename
        assert unknown not in cls._value2member_map_, ename
        with pytest.raises(KeyError):
            cls["UNKNOWN_%d" % unknown]
        checked += 1
    assert checked == len(mod._ENUMS) > 0


def test_enum_members_pickle_and_keep_their_docs():
    from cudagen import driver, runtime

    r = driver.CUresult.CUDA_ERROR_INVALID_VALUE
    assert pickle.loads(pickle.dumps(r)) is r and pickle.loads(pickle.dumps(driver.CUresult)) is driver.CUresult
    assert pickle.loads(pickle.dumps(runtime.cudaError_t.cudaErrorInvalidValue)) is runtime.cudaError_t.cudaErrorInvalidValue
    assert "acceptable range of values" in r.__doc__ and driver.CUresult.__doc__ == "Error codes"
    assert isinstance(vars(driver.CUresult)["__doc__"], _classes._Doc)


def test_make_enum_fallback_and_errors():
    """Members the fast path cannot enter (a base's attribute, a private name) go through the
    functional API; a repeated member name is refused, as the functional API refuses it."""
    e = _classes.make_enum(__name__, "E", (("name", 1), ("_x", 2), ("B", 1)))
    assert e["name"].value == 1 and e["_x"].value == 2 and e["B"] is e["name"] and len(e) == 2
    assert e.B.name == "name" and isinstance(vars(e)["__doc__"], _classes._Doc)
    with pytest.raises(TypeError):
        _classes.make_enum(__name__, "F", (("A", 1), ("A", 2)))
    with pytest.raises(TypeError):
        CEnum("F", (("A", 1), ("A", 2)))


def _specializes(m, attr):
    """Whether CPython specializes the load of ``m.<attr>`` in a warmed function to
    LOAD_ATTR_MODULE (3.11 ... 3.13 name it so)."""
    f = eval("lambda m: m.%s" % attr)
    for _ in range(2000):
        f(m)
    ops = [i.opname for i in dis.get_instructions(f, adaptive=True) if i.argval == attr]
    assert ops, attr
    return ops[0] == "LOAD_ATTR_MODULE"


def test_module_attribute_loads_specialize():
    if sys.version_info < (3, 11) or not hasattr(dis, "get_instructions"):
        pytest.skip("no adaptive interpreter")
    plain = types.ModuleType("plain")
    plain.f = len
    lazy = types.ModuleType("lazy")
    lazy.f = len
    lazy.__getattr__ = lambda name: None
    try:
        control = _specializes(plain, "f"), _specializes(lazy, "f")
    except TypeError:  # no `adaptive` argument
        pytest.skip("dis has no adaptive view")
    if control != (True, False):
        pytest.skip("this CPython does not specialize module attributes as 3.11-3.13 do: %r" % (control,))
    from cudagen import driver, nvrtc, runtime

    for m in (driver, nvrtc, runtime):  # once every class is built, `__getattr__` is gone
        _lazy.build_all(m)
    assert _specializes(driver, "cuDriverGetVersion")
    assert _specializes(driver, "CUresult")
    assert _specializes(runtime, "cudaGetDevice")
    assert _specializes(nvrtc, "nvrtcVersion")
