"""Builds enum classes and record structures from the compact tables of the generated modules,
on first attribute access (module ``__getattr__``), so ``import cudagen.driver`` stays cheap."""

import ctypes
import enum
import sys


class CEnum(enum.IntEnum):
    """Base of every generated enum: an ``int`` with ``.name``/``.value``; values a newer
    library returns that this version does not know become pseudo-members ``UNKNOWN_<value>``."""

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, int) and not isinstance(value, bool):
            m = int.__new__(cls, value)
            m._name_ = "UNKNOWN_%d" % value
            m._value_ = value
            return m
        return None


def make_enum(module, name, members):
    return CEnum(name, members, module=module)


def _record_base(union):
    return ctypes.Union if union else ctypes.Structure


def _get_ptr(self):
    """Address of the C object."""
    return ctypes.addressof(self)


def _repr(self):
    parts = []
    for f in type(self)._cg_names:
        try:
            parts.append("%s=%r" % (f, getattr(self, f)))
        except Exception:  # pragma: no cover
            parts.append("%s=?" % f)
    return "<%s %s>" % (type(self).__name__, " ".join(parts))


class _Wrapped:
    """A field whose C storage is an integer but reads as an enum member / handle object."""

    __slots__ = ("raw", "conv", "name")

    def __init__(self, raw, conv, name):
        self.raw = raw
        self.conv = conv
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return self.conv(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        self.raw.__set__(obj, int(value))


class _ListField:
    """A fixed array field read as a list (bytes for char arrays) and set from a sequence."""

    __slots__ = ("raw", "conv", "name")

    def __init__(self, raw, conv, name):
        self.raw = raw
        self.conv = conv
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        arr = self.raw.__get__(obj, cls)
        if isinstance(arr, bytes):
            return arr
        return [self.conv(x) for x in arr] if self.conv else list(arr)

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        if isinstance(arr, bytes):
            self.raw.__set__(obj, value)
            return
        for i, v in enumerate(value):
            arr[i] = int(v) if self.conv else v


class _BytesField:
    """A `char[N]` field: bytes of length N (NULs kept), set from bytes."""

    __slots__ = ("raw",)

    def __init__(self, raw):
        self.raw = raw

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return bytes(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        value = bytes(value)[: len(arr)]
        ctypes.memmove(ctypes.addressof(arr), value, len(value))


def enum_members(table):
    """``((name, value), ...)`` from an enum's table string."""
    words = table.split()
    return tuple((words[i], int(words[i + 1])) for i in range(0, len(words), 2))


def record_layout(table):
    """``(union, size, ((field, spec, anonymous, bit width or None), ...))`` from a record's
    table string."""
    words = table.split()
    fields = tuple(
        (words[i], words[i + 1], words[i + 2] == "1", None if words[i + 3] == "-" else int(words[i + 3]))
        for i in range(2, len(words), 4)
    )
    return words[0] == "1", int(words[1]), fields


def resolve(g, module, name, enums, records):
    """Module ``__getattr__``: builds and caches the enum or record ``name``."""
    if name in enums:
        cls = make_enum(module, name, enum_members(enums[name]))
        g[name] = cls
        return cls
    if name in records:
        cls = _make_record(g, module, name, records)
        return cls
    raise AttributeError("module %r has no attribute %r" % (module, name))


def _ctype(g, module, spec, records):
    """(ctypes type, converter or None) of a field spec."""
    if spec.startswith("a:") and spec.endswith(":c_char") and spec.count(":") == 2:
        return ctypes.c_ubyte * int(spec.split(":")[1]), "bytes"
    if spec.startswith("a:"):
        _, n, rest = spec.split(":", 2)
        t, conv = _ctype(g, module, rest, records)
        return t * int(n), conv
    if spec.startswith("e:"):
        _, ename, base = spec.split(":")
        return getattr(ctypes, base), lambda v, _n=ename: getattr(sys.modules[module], _n)(v)
    if spec.startswith("h:"):
        _, hname, base = spec.split(":")
        return getattr(ctypes, base), lambda v, _c=g[hname]: _c(v or 0)
    if spec.startswith("r:"):
        rname = spec[2:]
        cls = g.get(rname) or _make_record(g, module, rname, records)
        return cls, None
    return getattr(ctypes, spec), None


def _make_record(g, module, name, records):
    if name in g:
        return g[name]
    union, size, fields = record_layout(records[name])
    ns = {"__module__": module, "getPtr": _get_ptr, "__repr__": _repr}
    cls = type(name, (_record_base(union),), ns)
    g[name] = cls  # before the fields: records may refer to themselves through pointers
    cfields = []
    anon = []
    wrap = []
    names = []
    for fname, spec, anonymous, bits in fields:
        t, conv = _ctype(g, module, spec, records)
        raw = fname
        if spec.startswith("a:") or conv is not None:
            raw = "_cg_" + fname
            wrap.append((fname, raw, conv, spec.startswith("a:")))
        cfields.append((raw, t) if bits is None else (raw, t, bits))
        if anonymous:
            anon.append(raw)
        else:
            names.append(fname)
    if anon:
        cls._anonymous_ = anon
    cls._fields_ = cfields
    for fname, raw, conv, is_array in wrap:
        d = getattr(cls, raw)
        if conv == "bytes":
            desc = _BytesField(d)
        else:
            desc = _ListField(d, conv, fname) if is_array else _Wrapped(d, conv, fname)
        setattr(cls, fname, property(desc.__get__, desc.__set__))
    # fields of anonymous members, reachable on the parent: also wrap the promoted raw names
    for a in anon:
        inner = dict(cfields)[a]
        for iname in getattr(inner, "_cg_names", ()):
            if not hasattr(cls, iname):
                setattr(cls, iname, property(lambda s, _a=a, _n=iname: getattr(getattr(s, _a), _n),
                                             lambda s, v, _a=a, _n=iname: setattr(getattr(s, _a), _n, v)))
            names.append(iname)
    cls._cg_names = tuple(names)
    if ctypes.sizeof(cls) != size:  # pragma: no cover - checked by the tests
        raise RuntimeError("cudagen: %s is %d bytes, the header says %d" % (name, ctypes.sizeof(cls), size))
    return cls
