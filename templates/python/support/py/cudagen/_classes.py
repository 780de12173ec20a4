"""Builds the enum classes, record structures and typedef classes of a generated module from its
compact tables, all at import (``build_all``): the module has no ``__getattr__``, so CPython
specializes attribute loads on it (``driver.cuCtxGetCurrent()`` costs what a bound call does)."""

import ctypes
import enum
import operator
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


# Names a member cannot take without the enum machinery's redirects (attributes of the bases,
# private names): an enum with such a member is built by the functional API instead.
_RESERVED = frozenset(k for c in CEnum.__mro__ for k in vars(c))
# The namespace an empty CEnum subclass gets from `EnumType.__new__` (one made by the functional
# API, so the values follow the running CPython), less what differs per class. `_enum_class`
# copies it into `type.__new__` (~10 us a class instead of ~30); on a CPython whose empty enum
# has other keys than these, every enum class is made by the functional API.
_PER_CLASS = ("__module__", "__doc__", "__new__", "_member_names_", "_member_map_", "_value2member_map_",
              "_unhashable_values_", "_unhashable_values_map_")
_SHARED = ("_generate_next_value_", "_new_member_", "_use_args_", "_member_type_", "_value_repr_", "__format__")


def _enum_template():
    t = CEnum("_CgTemplate", (), module=__name__)
    ns = vars(t)
    if set(ns) - set(_PER_CLASS) != set(_SHARED) or ns["_member_names_"] or ns["_value2member_map_"]:
        return None
    return type(t), {k: ns[k] for k in _SHARED}, ns["__new__"], "_unhashable_values_map_" in ns


_TEMPLATE = _enum_template()


def _enum_class(module, name, doc):
    """An empty CEnum subclass ``name`` of ``module``, as ``CEnum(name, (), module=module)``
    makes it."""
    if _TEMPLATE is None:
        cls = CEnum(name, (), module=module)
        type.__setattr__(cls, "__doc__", doc)
        return cls
    meta, shared, new, unhashable_map = _TEMPLATE
    ns = dict(shared)
    ns["__module__"] = module
    ns["__qualname__"] = name
    ns["__doc__"] = doc
    ns["_member_names_"] = []
    ns["_member_map_"] = {}
    ns["_value2member_map_"] = {}
    ns["_unhashable_values_"] = []
    if unhashable_map:
        ns["_unhashable_values_map_"] = {}
    cls = type.__new__(meta, name, (CEnum,), ns)
    type.__setattr__(cls, "__new__", new)
    return cls


def make_enum(module, name, members):
    """The CEnum subclass ``name`` with ``members`` (``((name, value), ...)``; a repeated value
    is an alias of the first member with it), equal to ``CEnum(name, members, module=module)``
    (test_classes.py compares every enum) at a quarter to a third of its cost: the members are
    made and entered as ``EnumType.__new__`` enters them, without its per-member checks."""
    doc = _Doc(module, "ENUMS", name)
    if not _RESERVED.isdisjoint(n for n, _ in members) or any(n[:1] == "_" for n, _ in members):
        cls = CEnum(name, members, module=module)
        type.__setattr__(cls, "__doc__", doc)
        return cls
    cls = _enum_class(module, name, doc)
    names, by_name, by_value = cls._member_names_, cls._member_map_, cls._value2member_map_
    new = int.__new__
    set_ = type.__setattr__
    for n, v in members:
        if n in by_name:
            raise TypeError("%s: member %r repeated" % (name, n))
        m = by_value.get(v)
        if m is None:
            m = new(cls, v)
            m._value_ = v
            m._name_ = n
            m.__objclass__ = cls
            m._sort_order_ = len(names)
            names.append(n)
            by_value[v] = m
        by_name[n] = m
        set_(cls, n, m)
    return cls


_DOC_MODULES: dict = {}


def _doc_table(module, table):
    """Table ``table`` (``ENUMS``, ``RECORDS``, ``TYPEDEFS``) of ``cudagen._<module>_docs``,
    imported on the first ``__doc__`` read."""
    docs = _DOC_MODULES.get(module)
    if docs is None:
        import importlib

        pkg, _, leaf = module.rpartition(".")
        docs = _DOC_MODULES[module] = importlib.import_module("%s._%s_docs" % (pkg, leaf))
    return getattr(docs, table)


class _Doc:
    """``__doc__`` of a generated class, read from the doc tables on first access. An enum
    member has its own (the header's comment of that enumerator; the class's where the header
    has none); a record's or typedef's instances have the class's."""

    __slots__ = ("module", "table", "name", "text")

    def __init__(self, module, table, name):
        self.module = module
        self.table = table
        self.name = name
        self.text = None  # (class doc, {member name: doc})

    def _load(self):
        if self.text is None:
            parts = _doc_table(self.module, self.table).get(self.name, "").split("\x1f")
            members = {}
            if self.table == "ENUMS":
                names = [n for n, _ in enum_members(getattr(sys.modules[self.module], "_ENUMS")[self.name])]
                members = {n: d for n, d in zip(names, parts[1:]) if d}
            self.text = (parts[0], members)
        return self.text

    def __get__(self, obj, cls=None):
        doc, members = self._load()
        if obj is None or not members:
            return doc
        return members.get(getattr(obj, "_name_", None), doc)


def _record_base(union):
    return ctypes.Union if union else ctypes.Structure


def _setattr(self, name, value):
    """Sets a field; a name the record does not have is an AttributeError, as in cuda.bindings
    (a ctypes object would quietly keep it as a Python attribute)."""
    if not hasattr(type(self), name):
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))
    object.__setattr__(self, name, value)


def _get_ptr(self):
    """Address of the C object."""
    return ctypes.addressof(self)


def _lines(rec, indent):
    """``field : value`` lines of a record, nested records indented under ``field :``."""
    out = []
    for name, kind in type(rec)._cg_fmt:
        try:
            value = getattr(rec, name)
        except Exception as e:  # pragma: no cover - a field that cannot be read
            out.append("%s%s : <%s>" % (indent, name, type(e).__name__))
            continue
        if kind == "r":
            out.append("%s%s :" % (indent, name))
            out.extend(_lines(value, indent + "    "))
        elif kind == "e":  # cuda.bindings 12: the value, None for one the enum does not know
            out.append("%s%s : %s" % (indent, name, "None" if value.name.startswith("UNKNOWN_") else value))
        elif kind == "E":  # cuda.bindings 13: the member's repr, <ValueError> for an unknown value
            out.append("%s%s : %s" % (indent, name, "<ValueError>" if value.name.startswith("UNKNOWN_") else repr(value)))
        elif kind == "p":
            out.append("%s%s : %s" % (indent, name, hex(value or 0)))
        elif kind == "b":  # a uuid's `bytes` in hex, other char arrays as bytes
            out.append("%s%s : %s" % (indent, name, value.hex() if name == "bytes" else repr(value)))
        else:
            out.append("%s%s : %s" % (indent, name, value))
    return out


def _str(self):
    """One ``field : value`` line per field (nested records indented), as cuda.bindings prints."""
    return "\n".join(_lines(self, ""))


_RANGES: dict = {}


def _int_range(ctype, bits=None):
    """(lowest, highest) value of an integer ctypes type (or of its bit field)."""
    r = _RANGES.get((ctype, bits))
    if r is None:
        n = ctypes.sizeof(ctype) * 8 if bits is None else bits
        r = _RANGES[(ctype, bits)] = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if ctype(-1).value == -1 else (0, (1 << n) - 1)
    return r


def _checked_int(name, value, lo, hi):
    """``value`` as an int within [lo, hi]: TypeError for non-integers, OverflowError outside."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s: expected an int, got %s" % (name, type(value).__name__)) from None
    return _in_range(name, v, lo, hi)


def _in_range(name, v, lo, hi):
    """The int ``v``, or OverflowError outside [lo, hi]."""
    if v < lo or v > hi:
        raise OverflowError("%s: %d is out of range [%d, %d]" % (name, v, lo, hi))
    return v


class _Int:
    """An integer or pointer field: reads as the C value, set only from an int in its C range
    (ctypes itself would wrap silently); a pointer also from None or an object with memory
    (`_address_of`)."""

    __slots__ = ("raw", "name", "lo", "hi", "none")

    def __init__(self, raw, name, lo, hi, none):
        self.raw = raw
        self.name = name
        self.lo = lo
        self.hi = hi
        self.none = none

    def __set__(self, obj, value):
        if not self.none:
            self.raw.__set__(obj, _checked_int(self.name, value, self.lo, self.hi))
        elif value is None:
            self.raw.__set__(obj, None)
        else:
            try:
                v = operator.index(value)
            except TypeError:
                # a pointer field given an object: the address of its memory, kept alive by `obj`
                self.raw.__set__(obj, _address_of(self.name, value))
                _keep(obj, self.name, value)
                return
            self.raw.__set__(obj, _in_range(self.name, v, self.lo, self.hi))


def _root(obj):
    """The outermost record whose memory ``obj`` views (``obj`` itself when it owns its memory)."""
    while getattr(obj, "_b_base_", None) is not None:
        obj = obj._b_base_
    return obj


def _keep(obj, name, value):
    """Keeps ``value`` alive as long as the memory of ``obj`` lives: on the outermost record,
    since a nested record (``params.memcpy.copyParams``) is a short-lived view into it."""
    _root(obj).__dict__.setdefault("_cg_keep", {})[(ctypes.addressof(obj), name)] = value


def _kept(obj, name):
    """What ``_keep`` holds for field ``name`` of ``obj``, or None."""
    return _root(obj).__dict__.get("_cg_keep", {}).get((ctypes.addressof(obj), name))


def _address_of(name, value):
    """The address a `void *` field takes for ``value``: a record or handle (``getPtr()``), a
    numpy array, a writable buffer (``bytearray``, ``memoryview``) or ``bytes``."""
    get_ptr = getattr(value, "getPtr", None)
    if get_ptr is not None:
        return get_ptr()
    face = getattr(value, "__array_interface__", None)
    if face is not None:
        return face["data"][0]
    if isinstance(value, bytes):
        return ctypes.cast(ctypes.c_char_p(value), ctypes.c_void_p).value or 0
    try:
        view = memoryview(value).cast("B")
    except TypeError:
        raise TypeError("%s: expected an int, a buffer or an object with getPtr(), got %s"
                        % (name, type(value).__name__)) from None
    if view.readonly:
        raise TypeError("%s: a read-only buffer cannot stand for a pointer the library may write through" % name)
    return ctypes.addressof(ctypes.c_char.from_buffer(view)) if len(view) else 0


_NULL_ITEMS = 1024


class _PointerList:
    """A pointer to an array of handles or records, read as a list: as many elements as its
    count field says (at most as many as a list it was set from), else the length it was set
    with (none for NULL). Set from a list or tuple (copied into memory the record keeps alive) or
    None; an address is refused, as cuda.bindings refuses it."""

    __slots__ = ("raw", "name", "elem", "conv", "count")

    def __init__(self, raw, name, elem, conv, count):
        self.raw = raw
        self.name = name
        self.elem = elem  # ctypes type of one element
        self.conv = conv  # element value -> handle object; None for records
        self.count = count  # sibling field with the length, or None

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        addr = self.raw.__get__(obj, cls)
        if not addr:
            # NULL: `count` empty elements, as cuda.bindings reads it (NVIDIA's test_conditional
            # takes phGraph_out[0] before the driver fills the array); at most _NULL_ITEMS
            n = min(_NULL_ITEMS, max(0, int(getattr(obj, self.count)))) if self.count is not None else 0
            return [self.elem() for _ in range(n)] if self.conv is None else [self.conv(0) for _ in range(n)]
        held = _kept(obj, self.name)
        held = held if isinstance(held, ctypes.Array) and ctypes.addressof(held) == addr else None
        if self.count is not None:
            n = max(0, int(getattr(obj, self.count)))
            n = n if held is None else min(n, len(held))
        else:
            n = 1 if held is None else len(held)
        if self.conv is None:
            size = ctypes.sizeof(self.elem)
            return [self.elem.from_address(addr + i * size) for i in range(n)]
        return [self.conv(v) for v in (self.elem * n).from_address(addr)]

    def __set__(self, obj, value):
        if value is None:
            self.raw.__set__(obj, None)
            return
        if not isinstance(value, (list, tuple)):
            # as cuda.bindings: an address is refused, since reading the field back would read
            # `count` elements wherever it points
            raise TypeError("%s: expected a list of %s or None, got %s" % (self.name, self.elem.__name__, type(value).__name__))
        arr = (self.elem * len(value))()
        for i, v in enumerate(value):
            if self.conv is None:
                if not isinstance(v, self.elem):
                    raise TypeError("%s[%d]: expected %s, got %s" % (self.name, i, self.elem.__name__, type(v).__name__))
                arr[i] = v
            elif isinstance(v, bool):
                raise TypeError("%s[%d]: expected a handle or an int, got bool" % (self.name, i))
            else:
                arr[i] = _checked_int("%s[%d]" % (self.name, i), v, 0, (1 << 64) - 1)
        self.raw.__set__(obj, ctypes.addressof(arr) if len(arr) else None)
        _keep(obj, self.name, arr)


def _kernel_params(raw, name):
    """The property of a `void **kernelParams` field: set from what a `kernelParams` argument
    takes (None, an int address, a buffer of pointers, a ``((values), (ctypes types))`` pair),
    packed by the extension into memory the record keeps alive with the value (whose objects the
    pointers may name); reads as the address, as in cuda.bindings."""

    def get(obj):
        return raw.__get__(obj, None) or 0

    def set_(obj, value):
        from cudagen._cudagen import _pack_kernel_params

        addr, holder = _pack_kernel_params(type(obj).__name__, value)
        raw.__set__(obj, addr or None)
        _keep(obj, name, (holder, value))

    return property(get, set_)


class _Wrapped:
    """A field whose C storage is an integer but reads as an enum member / handle object."""

    __slots__ = ("raw", "conv", "name", "lo", "hi")

    def __init__(self, raw, conv, name, lo, hi):
        self.raw = raw
        self.conv = conv
        self.name = name
        self.lo = lo
        self.hi = hi

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return self.conv(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        self.raw.__set__(obj, _checked_int(self.name, value, self.lo, self.hi))


class _ListField(_Wrapped):
    """A fixed array field read as a list and set from a sequence of exactly its length (items
    range-checked like scalar fields)."""

    __slots__ = ()

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        arr = self.raw.__get__(obj, cls)
        return [self.conv(x) for x in arr] if self.conv is not None else list(arr)

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        items = list(value)
        if len(items) != len(arr):
            raise ValueError("%s: expected %d items, got %d" % (self.name, len(arr), len(items)))
        if self.lo is not None:
            items = [_checked_int(self.name, v, self.lo, self.hi) for v in items]
        for i, v in enumerate(items):
            arr[i] = v


class _BytesField:
    """A `char[N]` field: bytes of length N (NULs kept), set from at most N bytes or C char
    values (the rest zeroed, so no old tail survives)."""

    __slots__ = ("raw", "name")

    def __init__(self, raw, name):
        self.raw = raw
        self.name = name

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return bytes(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        if isinstance(value, int) or (hasattr(type(value), "__index__") and not hasattr(type(value), "__len__")):
            # an integer (an int, a numpy integer, a handle, an __index__ object): `bytes()`
            # would read it as a count of zero bytes
            raise TypeError("%s: expected bytes, got %s" % (self.name, type(value).__name__))
        if isinstance(value, (list, tuple)):
            # C `char` values: -128..255, a negative one stored as its unsigned byte
            value = bytes(_checked_int(self.name, x, -128, 255) & 0xFF for x in value)
        value = bytes(value)
        if len(value) > len(arr):
            raise ValueError("%s: at most %d bytes, got %d" % (self.name, len(arr), len(value)))
        ctypes.memmove(ctypes.addressof(arr), value.ljust(len(arr), b"\0"), len(arr))


def enum_members(table):
    """``((name, value), ...)`` from an enum's table string."""
    words = table.split()
    return tuple((words[i], int(words[i + 1])) for i in range(0, len(words), 2))


def record_layout(table):
    """``(union, size, ((field, spec, anonymous, bit width or None), ...))`` from a record's
    table string. A field named ``_cg_...`` is a placeholder member, kept in the C layout only."""
    words = table.split()
    fields = tuple(
        (words[i], words[i + 1], words[i + 2] == "1", None if words[i + 3] == "-" else int(words[i + 3]))
        for i in range(2, len(words), 4)
    )
    return words[0] == "1", int(words[1]), fields


def make_typedef(module, name, pointer, bits):
    """A class holding one C value of a typedef that is neither handle, enum nor record
    (``cuuint32_t``, the callback ``CUhostFn``): built from an int, ``int()`` reads it back,
    ``getPtr()`` is the address of the C value."""
    ctype = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64
    hi = (1 << bits) - 1

    def __init__(self, init_value=0, _ptr=0):
        if isinstance(init_value, (str, bytes)) or callable(init_value):
            raise TypeError("%s() takes an int, not %s" % (name, type(init_value).__name__))
        v = int(init_value)
        if v < 0 or v > hi:
            raise OverflowError("%s: %d is out of range [0, %d]" % (name, v, hi))
        at = _checked_int("%s() _ptr" % name, _ptr, 0, (1 << 64) - 1)
        if not at:
            self._cg_c = ctype(v)
            return
        # as cuda.bindings: the object views the C value at `_ptr` (getPtr() is `_ptr`); a
        # non-zero integer value is stored there, a function pointer's is not
        self._cg_c = ctype.from_address(at)
        if v and not pointer:
            self._cg_c.value = v

    def __int__(self):
        return self._cg_c.value

    def getPtr(self):
        """Address of the C value."""
        return ctypes.addressof(self._cg_c)

    def __repr__(self):
        return ("<%s 0x%x>" if pointer else "<%s %d>") % (name, self._cg_c.value)

    ns = {"__module__": module, "__slots__": ("_cg_c",), "__init__": __init__, "__int__": __int__,
          "getPtr": getPtr, "__repr__": __repr__, "__index__": __int__, "__doc__": _Doc(module, "TYPEDEFS", name)}
    return type(name, (), ns)


def build_all(g, module, enums, records, typedefs, aliases):
    """Builds every class of the module ``module`` (``g``: its globals) from its tables: typedef
    classes and enums first (record fields read as them), then records (a record builds the
    records it holds first), then the aliases, each the very class of its target."""
    for name, spec in typedefs.items():
        pointer, bits = spec.split()
        g[name] = make_typedef(module, name, pointer == "1", int(bits))
    for name, table in enums.items():
        g[name] = make_enum(module, name, enum_members(table))
    for name in records:
        _make_record(g, module, name, records)
    for name, target in aliases.items():
        g[name] = g[target]


_INTS = frozenset(
    ("c_byte", "c_ubyte", "c_short", "c_ushort", "c_int", "c_uint", "c_long", "c_ulong",
     "c_longlong", "c_ulonglong", "c_size_t", "c_ssize_t")
)


def _ctype(g, module, spec, records):
    """(ctypes type, converter or None, integer ctypes type whose range a set value must fit, or
    None) of a field spec."""
    plain = _PLAIN.get(spec)
    if plain is not None:
        return plain
    if spec.startswith("a:") and spec.endswith((":c_char", ":c_ubyte")) and spec.count(":") == 2:
        return ctypes.c_ubyte * int(spec.split(":")[1]), "bytes", None
    if spec.startswith("a:"):
        _, n, rest = spec.split(":", 2)
        t, conv, base = _ctype(g, module, rest, records)
        return t * int(n), conv, base
    if spec.startswith("e:"):
        _, ename, base = spec.split(":")
        t = getattr(ctypes, base)
        return t, g[ename], t  # the enum class reads the value (built before the records)
    if spec.startswith("h:"):
        _, hname, base = spec.split(":")
        t = getattr(ctypes, base)
        return t, lambda v, _c=g[hname]: _c(v or 0), ctypes.c_size_t if t is ctypes.c_void_p else t
    if spec.startswith("t:"):
        _, tname, base = spec.split(":")
        t = getattr(ctypes, base)
        return t, lambda v, _c=g[tname]: _c(v or 0), ctypes.c_size_t if t is ctypes.c_void_p else t
    if spec == "d:c_void_p":
        return ctypes.c_void_p, None, ctypes.c_size_t
    if spec.startswith("r:"):
        rname = spec[2:]
        cls = g.get(rname) or _make_record(g, module, rname, records)
        return cls, None, None
    t = getattr(ctypes, spec)
    base = t if spec in _INTS else ctypes.c_size_t if spec == "c_void_p" else None
    plain = _PLAIN[spec] = (t, None, base)
    return plain


_PLAIN: dict = {}  # a plain ctypes spec ("c_uint") -> what `_ctype` returns for it


def _make_record(g, module, name, records):
    if name in g:
        return g[name]
    union, size, fields = record_layout(records[name])
    ns = {"__module__": module, "getPtr": _get_ptr, "__repr__": _str, "__str__": _str, "__setattr__": _setattr,
          "__doc__": _Doc(module, "RECORDS", name)}
    cls = type(g.get("_CLASS_NAMES", {}).get(name, name), (_record_base(union),), ns)
    g[name] = cls  # before the fields: records may refer to themselves through pointers
    cfields = []
    anon = []
    wrap = []
    lists = []
    kparams = []
    fmt = []
    enum_kind = "E" if g.get("_BINDINGS_MAJOR", 12) >= 13 else "e"
    for fname, spec, anonymous, bits in fields:
        if spec == "k:c_void_p":  # a kernel's argument pointers
            cfields.append(("_cg_" + fname, ctypes.c_void_p))
            kparams.append(fname)
            fmt.append((fname, "v"))
            continue
        if spec.startswith("l:"):  # a pointer to `count` handles or records
            _, count, espec = spec.split(":", 2)
            et, econv, _ = _ctype(g, module, espec, records)
            cfields.append(("_cg_" + fname, ctypes.c_void_p))
            lists.append((fname, et, econv, None if count == "-" else count))
            fmt.append((fname, "v"))
            continue
        t, conv, base = _ctype(g, module, spec, records)
        if fname.startswith("_cg_"):  # a placeholder member: in the C layout only
            cfields.append((fname, t) if bits is None else (fname, t, bits))
            continue
        raw = fname
        if spec.startswith("a:") or conv is not None or base is not None:
            raw = "_cg_" + fname
            lo, hi = _int_range(base, bits) if base is not None else (None, None)
            wrap.append((fname, raw, conv, spec, lo, hi))
        cfields.append((raw, t) if bits is None else (raw, t, bits))
        if anonymous:
            anon.append(raw)
            fmt.append((None, raw))  # its members are listed here, in declaration order
        else:
            kind = {"r": "r", "e": enum_kind}.get(spec[:1]) if spec[1:2] == ":" else "p" if spec == "c_void_p" else None
            kind = kind or ("b" if conv == "bytes" else "v")
            fmt.append((fname, kind))
    if anon:
        cls._anonymous_ = anon
    cls._fields_ = cfields
    for fname, et, econv, count in lists:
        d = getattr(cls, "_cg_" + fname)
        desc = _PointerList(d, fname, et, econv, count)
        setattr(cls, fname, property(desc.__get__, desc.__set__))
    for fname in kparams:
        setattr(cls, fname, _kernel_params(getattr(cls, "_cg_" + fname), fname))
    for fname, raw, conv, spec, lo, hi in wrap:
        d = getattr(cls, raw)
        if conv == "bytes":
            desc = _BytesField(d, fname)
        elif spec.startswith("a:"):
            desc = _ListField(d, conv, fname, lo, hi)
        elif conv is not None:
            desc = _Wrapped(d, conv, fname, lo, hi)
        else:
            pointer = spec in ("c_void_p", "d:c_void_p")
            desc = _Int(d, fname, lo, hi, pointer)
            # a NULL pointer field reads as 0, as in cuda.bindings (ctypes would give None)
            get = (lambda s, _r=raw: getattr(s, _r) or 0) if pointer else operator.attrgetter(raw)
            setattr(cls, fname, property(get, desc.__set__))
            continue
        setattr(cls, fname, property(desc.__get__, desc.__set__))
    # fields of anonymous members, reachable on the parent
    flat = []
    for fname, kind in fmt:
        if fname is not None:
            flat.append((fname, kind))
            continue
        a = kind
        for iname, ikind in getattr(dict(cfields)[a], "_cg_fmt", ()):
            if not hasattr(cls, iname):
                setattr(cls, iname, property(lambda s, _a=a, _n=iname: getattr(getattr(s, _a), _n),
                                             lambda s, v, _a=a, _n=iname: setattr(getattr(s, _a), _n, v)))
            flat.append((iname, ikind))
    fmt = flat
    cls._cg_fmt = tuple(fmt)
    cls._cg_names = tuple(n for n, _ in fmt)
    if ctypes.sizeof(cls) != size:  # pragma: no cover - checked by the tests
        raise RuntimeError("cudagen: %s is %d bytes, the header says %d" % (name, ctypes.sizeof(cls), size))
    return cls
