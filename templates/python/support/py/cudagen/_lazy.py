"""The ``__getattr__``, ``__dir__`` and ``sizeof`` of a generated module. A table name (enum,
record, typedef class, alias) is built by `cudagen._classes` on its first access, so ``import
cudagen.driver`` builds no class and imports neither `cudagen._classes` nor ``ctypes`` and
``enum``. Once every name is built the module has no ``__getattr__`` left, and CPython
specializes attribute loads on it again (a module with one is never specialized)."""

import _thread

_TABLES = ("_TYPEDEFS", "_ENUMS", "_RECORDS", "_ALIASES")


class _Scope(dict):
    """The classes one first access builds (a record with the records, enums and typedefs its
    fields need), read through to the module's globals ``g``: a name neither holds is built
    (``__missing__``), so `cudagen._classes` reads this as it would read the globals."""

    def __init__(self, g):
        super().__init__()
        self.g = g

    def __contains__(self, name):
        return dict.__contains__(self, name) or name in self.g

    def get(self, name, default=None):
        return self[name] if name in self else default

    def __missing__(self, name):
        from cudagen import _classes as c

        g = self.g
        if name in g:
            return g[name]
        module = g["__name__"]
        typedef = g["_TYPEDEFS"].get(name)
        if typedef is not None:
            pointer, bits = typedef.split()
            value = c.make_typedef(module, name, pointer == "1", int(bits))
        elif name in g["_ENUMS"]:
            value = c.make_enum(module, name, c.enum_members(g["_ENUMS"][name]))
        elif name in g["_RECORDS"]:
            return c._make_record(self, module, name, g["_RECORDS"])
        else:  # an alias: the very class of its target
            value = self[g["_ALIASES"][name]]
        self[name] = value
        return value


class _Lazy:
    """The module ``__getattr__`` (`getattr`) and ``__dir__`` (`dir`) of a generated module
    (``g``: its globals): a table name is built on its first access and bound in ``g`` with what
    it needed, under a lock, so there is one class object per name whichever thread asks first;
    ``dir()`` lists the names not built yet too. When the last is bound, ``__getattr__`` removes
    itself."""

    def __init__(self, g):
        self.g = g
        self.pending = set().union(*(g[t] for t in _TABLES)).difference(g)
        self.lock = _thread.RLock()

    def getattr(self, name):
        g = self.g
        with self.lock:
            value = g.get(name)
            if value is not None:  # built by another thread meanwhile
                return value
            if name not in self.pending:
                raise AttributeError("module %r has no attribute %r" % (g["__name__"], name))
            scope = _Scope(g)
            value = scope[name]
            g.update(scope)  # only once complete: a record is bound with all its fields
            self.pending.difference_update(scope)
            if not self.pending:  # `__dir__` stays: it lists the globals from now on
                del g["__getattr__"]
            return value

    def dir(self):
        return sorted(self.pending.union(self.g))


def lazy(g):
    """``(__getattr__, __dir__)`` of the generated module whose globals are ``g`` (`_Lazy`)."""
    hook = _Lazy(g)
    return hook.getattr, hook.dir


def public_names(g):
    """``__all__`` of the generated module whose globals are ``g``: its public names and every
    class not built yet, so ``from module import *`` builds and binds them all, as it binds
    every class of cuda.bindings' modules."""
    names = set(g).union(*(g[t] for t in _TABLES))
    return sorted(n for n in names if n[0] != "_")


def build_all(module):
    """Builds every class ``module`` (a generated module) has not built yet; then it has no
    ``__getattr__``."""
    hook = getattr(vars(module).get("__getattr__"), "__self__", None)
    if isinstance(hook, _Lazy):
        for name in sorted(hook.pending):
            hook.getattr(name)


def make_sizeof(g):
    """cuda.bindings' ``sizeof(objType)`` for the module whose globals are ``g``: the size in
    bytes of the C type of one of its record, handle or typedef classes; TypeError for anything
    else (an enum, an instance, another module's class), as there."""
    seen = [-1, frozenset()]  # (len(g) when collected, ids of the module's classes)

    def sizeof(objType):
        import ctypes

        from cudagen._cudagen import _handle_bits

        if len(g) != seen[0]:  # classes built since: collect again
            seen[:] = [len(g), frozenset(id(v) for v in g.values() if isinstance(v, type))]
        if isinstance(objType, type) and id(objType) in seen[1]:
            if issubclass(objType, (ctypes.Structure, ctypes.Union)):
                return ctypes.sizeof(objType)
            typedef = g["_TYPEDEFS"].get(objType.__name__)
            if typedef is not None and g.get(objType.__name__) is objType:
                return int(typedef.split()[1]) // 8
            bits = _handle_bits(objType)
            if bits is not None:
                return bits // 8
        raise TypeError("Unknown type: %r (sizeof() argument 'objType' takes a record, handle or typedef class of this module)" % (objType,))

    sizeof.__doc__ = "sizeof(objType)\n\nThe size in bytes of the C type of a record, handle or typedef class of this module."
    return sizeof
