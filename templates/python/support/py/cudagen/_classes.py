"""Builds the enum classes, record structures and typedef classes of a generated module from its
compact tables: each on its first access, through the module's ``__getattr__`` (`cudagen._lazy`,
which imports this module, and with it ``ctypes`` and ``enum``, only then)."""

import ctypes
import enum
import operator
import sys

from cudagen._cudagen import _field_enum, _field_handle, _field_int, _pack_kernel_params, _record_new


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


def _copy(rec):
    """A copy of record ``rec`` with memory of its own."""
    return type(rec).from_buffer_copy(rec)


def _record_setter(cls):
    """The check of a record set into an element of a field (ctypes copies it in): a ``cls``,
    else a TypeError naming the field."""

    def check(name, value):
        if not isinstance(value, cls):
            raise TypeError("%s: expected %s, got %s" % (name, cls.__name__, type(value).__name__))
        return value

    return check


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


def _ptr_set(self, value):
    """``_ptr=`` reaches ctypes' ``__init__`` as a field to set: the address the record already
    has (or 0) is taken; the record cannot move."""
    at = _field_int("%s._ptr" % type(self).__name__, value, 64, False)
    if at not in (0, ctypes.addressof(self)):
        raise AttributeError("%s._ptr is read-only: pass _ptr= to the constructor" % type(self).__name__)


_PTR = property(_get_ptr, _ptr_set, doc="The record's address (``_ptr=`` of the constructor).")


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


_ADDRESS = (0, (1 << 64) - 1)  # the range of a pointer field's int


def _width(ctype, bits=None):
    """(bits, signed) of an integer ctypes type (or of its bit field of ``bits``)."""
    return bits or ctypes.sizeof(ctype) * 8, ctype(-1).value == -1


def _int_setter(ctype, bits=None):
    """The conversion of a value for an integer field of ``ctype``: as an integer argument's
    (`_field_int`: an int, an ``__index__`` or ``__int__`` object, a float truncated, a handle),
    checked against the C range; errors name the field."""
    n, signed = _width(ctype, bits)
    return lambda name, value: _field_int(name, value, n, signed)


def _in_range(name, v, lo, hi):
    """The int ``v``, or OverflowError outside [lo, hi]."""
    if v < lo or v > hi:
        raise OverflowError("%s: %d is out of range [%d, %d]" % (name, v, lo, hi))
    return v


def _char_setter(name, value):
    """A plain ``char`` element (signed or not by platform): -128..255, as cuda.bindings takes
    it; the byte stored is the value mod 256."""
    return _in_range(name, _field_int(name, value, 16, True), -128, 255)


class _Int:
    """An integer field: reads as the C value, set from what an argument of its C type takes
    (``setter``: ctypes itself would wrap silently)."""

    __slots__ = ("raw", "name", "setter")

    def __init__(self, raw, name, setter):
        self.raw = raw
        self.name = name
        self.setter = setter

    def __set__(self, obj, value):
        self.raw.__set__(obj, self.setter(self.name, value))


class _Pointer(_Int):
    """A pointer field: set from None (NULL), an int address or an object with memory
    (`_address_of`, kept alive by the record)."""

    __slots__ = ()

    def __set__(self, obj, value):
        if value is None:
            self.raw.__set__(obj, None)
            return
        try:
            v = operator.index(value)
        except TypeError:
            if not _int_only(value):
                # a pointer field given an object: the address of its memory, kept alive by `obj`
                self.raw.__set__(obj, _address_of(self.name, value))
                _keep(obj, self.name, value)
                return
            v = int(value)  # an object that only says which integer it is, as cuda.bindings int()s it
        self.raw.__set__(obj, _in_range(self.name, v, *_ADDRESS))


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


def _int_only(value):
    """Whether ``value`` converts to an integer only through ``__int__`` (no ``__float__``: no
    float is an address; no buffer or ``getPtr()``, which say where its memory is)."""
    t = type(value)
    return (hasattr(t, "__int__") and not hasattr(t, "__float__") and not hasattr(t, "getPtr")
            and not isinstance(value, (str, bytes, bytearray, memoryview)))


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
    with (none for NULL); records as views of the array (``r:``) or copies (``c:``). Set from a
    list or tuple (copied into memory the record keeps alive) or None; an address is refused, as
    cuda.bindings refuses it."""

    __slots__ = ("raw", "name", "elem", "conv", "setter", "count")

    def __init__(self, raw, name, elem, conv, setter, count):
        self.raw = raw
        self.name = name
        self.elem = elem  # ctypes type of one element
        self.conv = conv  # element -> handle object or record copy; None for record views
        self.setter = setter  # (name, value) -> the element's C value; None for record views
        self.count = count  # sibling field with the length, or None

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        addr = self.raw.__get__(obj, cls)
        if not addr:
            # NULL: `count` empty elements, as cuda.bindings reads it (NVIDIA's test_conditional
            # takes phGraph_out[0] before the driver fills the array); at most _NULL_ITEMS
            n = min(_NULL_ITEMS, max(0, int(getattr(obj, self.count)))) if self.count is not None else 0
            record = issubclass(self.elem, (ctypes.Structure, ctypes.Union))
            return [self.elem() if record else self.conv(0) for _ in range(n)]
        held = _kept(obj, self.name)
        held = held if isinstance(held, ctypes.Array) and ctypes.addressof(held) == addr else None
        if self.count is not None:
            n = max(0, int(getattr(obj, self.count)))
            n = n if held is None else min(n, len(held))
        else:
            n = 1 if held is None else len(held)
        if self.conv is None:  # records, read as views of the array
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
        setter = self.setter or _record_setter(self.elem)
        for i, v in enumerate(value):
            arr[i] = setter("%s[%d]" % (self.name, i), v)
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
        addr, holder = _pack_kernel_params(name, value)
        raw.__set__(obj, addr or None)
        _keep(obj, name, (holder, value))

    return property(get, set_)


class _Wrapped:
    """A field whose C storage is an integer but reads as an enum member / handle object, set
    from what an argument of its C type takes (``setter``)."""

    __slots__ = ("raw", "conv", "name", "setter")

    def __init__(self, raw, conv, name, setter):
        self.raw = raw
        self.conv = conv
        self.name = name
        self.setter = setter

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return self.conv(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        self.raw.__set__(obj, self.setter(self.name, value))


def _items(name, value, n, what):
    """``value`` as a list of exactly ``n`` items (a sequence, not a str): a TypeError or
    ValueError naming the field otherwise, so nothing is padded or cut."""
    if isinstance(value, str) or not hasattr(type(value), "__len__") or not hasattr(type(value), "__iter__"):
        raise TypeError("%s: expected %s of %d items, got %s" % (name, what, n, type(value).__name__))
    items = list(value)
    if len(items) != n:
        raise ValueError("%s: expected %d items, got %d" % (name, n, len(items)))
    return items


class _ListField(_Wrapped):
    """A fixed array field read as a list and set from a sequence of exactly its length (items
    converted as scalar fields of the element's type are; ctypes' own for floats). Records are
    copied out and in, as in cuda.bindings: an element read or set is detached from the field."""

    __slots__ = ()

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        arr = self.raw.__get__(obj, cls)
        return [self.conv(x) for x in arr] if self.conv is not None else list(arr)

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        items = _items(self.name, value, len(arr), "a sequence")
        if self.setter is not None:
            items = [self.setter("%s[%d]" % (self.name, i), v) for i, v in enumerate(items)]
        for i, v in enumerate(items):
            arr[i] = v


class _BytesField(_Wrapped):
    """A ``char[N]`` or ``unsigned char[N]`` field: reads as N bytes (NULs kept); set, as
    cuda.bindings sets it, from exactly N bytes (``bytes``, ``bytearray``) or a sequence of N C
    values (each converted as the element's integer argument): never padded or cut."""

    __slots__ = ()

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return bytes(self.raw.__get__(obj, cls))

    def __set__(self, obj, value):
        arr = self.raw.__get__(obj, type(obj))
        if not isinstance(value, (bytes, bytearray)):
            items = _items(self.name, value, len(arr), "bytes or a sequence")
            value = bytes(self.setter("%s[%d]" % (self.name, i), v) & 0xFF for i, v in enumerate(items))
        elif len(value) != len(arr):
            raise ValueError("%s: expected %d bytes, got %d" % (self.name, len(arr), len(value)))
        ctypes.memmove(ctypes.addressof(arr), bytes(value), len(arr))


def _read_only(get, name):
    """The property of a field cuda.bindings makes read-only (the library fills it): setting it
    is an AttributeError naming the field."""

    def set_(obj, value):
        raise AttributeError("%s is read-only (the library fills it)" % name)

    return property(get, set_)


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
        at = _field_int("%s() _ptr" % name, _ptr, 64, False)
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


_INTS = frozenset(
    ("c_byte", "c_ubyte", "c_short", "c_ushort", "c_int", "c_uint", "c_long", "c_ulong",
     "c_longlong", "c_ulonglong", "c_size_t", "c_ssize_t")
)


def _ctype(g, module, spec, records):
    """(ctypes type, converter or None, setter or None) of a field spec: the converter reads the
    C value as its class (an enum member, a handle, a copy of a ``c:`` record), the setter
    converts a value set, as an argument of the field's C type is converted (`_field_int`,
    `_field_enum`, `_field_handle`); None for ctypes' own (floats, ``r:`` records, read as views)
    and for pointers (`_Pointer`)."""
    plain = _PLAIN.get(spec)
    if plain is not None:
        return plain
    if spec.startswith("a:") and spec.endswith((":c_char", ":c_ubyte")) and spec.count(":") == 2:
        setter = _char_setter if spec.endswith(":c_char") else _int_setter(ctypes.c_ubyte)
        return ctypes.c_ubyte * int(spec.split(":")[1]), "bytes", setter
    if spec.startswith("a:"):
        _, n, rest = spec.split(":", 2)
        t, conv, setter = _ctype(g, module, rest, records)
        return t * int(n), conv, setter
    if spec.startswith("e:"):
        _, ename, base = spec.split(":")
        t = getattr(ctypes, base)
        n, signed = _width(t)
        # the enum class reads the value (built before the records)
        return t, g[ename], lambda name, v: _field_enum(name, v, n, signed)
    if spec.startswith("h:"):
        _, hname, base = spec.split(":")
        cls = g[hname]
        return getattr(ctypes, base), lambda v: cls(v or 0), lambda name, v: _field_handle(name, v, cls)
    if spec.startswith("t:"):
        _, tname, base = spec.split(":")
        t, cls = getattr(ctypes, base), g[tname]
        if t is ctypes.c_void_p:  # a function pointer: None is NULL
            return t, lambda v: cls(v or 0), lambda name, v: 0 if v is None else _field_int(name, v, 64, False)
        # an integer typedef (`cudaGraphConditionalHandle`): None is 0, as cuda.bindings sets it
        n, signed = _width(t)
        return t, lambda v: cls(v or 0), lambda name, v: 0 if v is None else _field_int(name, v, n, signed)
    if spec == "d:c_void_p":
        return ctypes.c_void_p, None, None
    if spec.startswith(("r:", "c:")):
        cls = g.get(spec[2:]) or _make_record(g, module, spec[2:], records)
        # a view (ctypes' own), or an element of a fixed array of records: read as a copy
        return (cls, None, None) if spec[0] == "r" else (cls, _copy, _record_setter(cls))
    t = getattr(ctypes, spec)
    plain = _PLAIN[spec] = (t, None, _int_setter(t) if spec in _INTS else None)
    return plain


_PLAIN: dict = {}  # a plain ctypes spec ("c_uint") -> what `_ctype` returns for it


_POINTERS = ("c_void_p", "d:c_void_p")


def _field_property(d, raw, name, conv, spec, setter):
    """The property of field ``name`` stored in ctypes field ``d`` (named ``raw``)."""
    if conv == "bytes":
        desc = _BytesField(d, None, name, setter)
    elif spec.startswith("a:"):
        desc = _ListField(d, conv, name, setter)
    elif conv is not None:
        desc = _Wrapped(d, conv, name, setter)
    elif spec in _POINTERS:
        # a NULL pointer field reads as 0, as in cuda.bindings (ctypes would give None)
        return property(lambda s: getattr(s, raw) or 0, _Pointer(d, name, None).__set__)
    else:
        return property(operator.attrgetter(raw), _Int(d, name, setter).__set__)
    return property(desc.__get__, desc.__set__)


def _make_record(g, module, name, records):
    if name in g:
        return g[name]
    union, size, fields = record_layout(records[name])
    ns = {"__module__": module, "getPtr": _get_ptr, "__repr__": _str, "__str__": _str, "__setattr__": _setattr,
          "__new__": _record_new, "_ptr": _PTR, "__doc__": _Doc(module, "RECORDS", name)}
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
            et, econv, esetter = _ctype(g, module, espec, records)
            cfields.append(("_cg_" + fname, ctypes.c_void_p))
            lists.append((fname, et, econv, esetter, None if count == "-" else count))
            fmt.append((fname, "v"))
            continue
        t, conv, setter = _ctype(g, module, spec, records)
        if fname.startswith("_cg_"):  # a placeholder member: in the C layout only
            cfields.append((fname, t) if bits is None else (fname, t, bits))
            continue
        if bits is not None and spec in _INTS:
            setter = _int_setter(t, bits)
        raw = fname
        if spec.startswith("a:") or conv is not None or setter is not None or spec in _POINTERS:
            raw = "_cg_" + fname
            wrap.append((fname, raw, conv, spec, setter))
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
    qual = cls.__name__ + "."
    for fname, et, econv, esetter, count in lists:
        d = getattr(cls, "_cg_" + fname)
        desc = _PointerList(d, qual + fname, et, econv, esetter, count)
        setattr(cls, fname, property(desc.__get__, desc.__set__))
    for fname in kparams:
        setattr(cls, fname, _kernel_params(getattr(cls, "_cg_" + fname), qual + fname))
    for fname, raw, conv, spec, setter in wrap:
        setattr(cls, fname, _field_property(getattr(cls, raw), raw, qual + fname, conv, spec, setter))
    for fname in g.get("_READ_ONLY", {}).get(name, ()):
        d = cls.__dict__.get(fname) or getattr(cls, fname)
        get = d.fget if isinstance(d, property) else (lambda s, _d=d: _d.__get__(s, type(s)))
        setattr(cls, fname, _read_only(get, qual + fname))
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
