"""cudagen: drop-in bindings to the CUDA driver API and NVRTC (``cuda.bindings`` style).

``from cudagen import driver, nvrtc`` (``cudagen.cuda`` is an alias of ``cudagen.driver``).
Libraries are loaded at the first call, never at import; a missing ``libcuda``/``libnvrtc``
raises :class:`LoaderError` naming the library and where it was looked for.
"""

import os as _os
import sys as _sys
from types import SimpleNamespace as _SimpleNamespace


def _python_sites():
    # site-packages dirs already on sys.path: the loader looks for pip-installed NVIDIA wheels
    # (nvidia/cuda_nvrtc/lib) under each of them.
    seen = []
    for p in _sys.path:
        if p and ("site-packages" in p or "dist-packages" in p) and p not in seen:
            seen.append(p)
    return seen


_sites = _python_sites()
if _sites:
    _old = _os.environ.get("CUDAGEN_PYTHON_SITE")
    _os.environ["CUDAGEN_PYTHON_SITE"] = _os.pathsep.join(([_old] if _old else []) + _sites)

from cudagen._cudagen import LoaderError  # noqa: E402
from cudagen._version import __version__  # noqa: E402
from cudagen import driver, nvrtc  # noqa: E402

cuda = driver
_sys.modules.setdefault(__name__ + ".cuda", driver)

_UTILS = "cuda.bindings.utils"


def _register_native_handles(utils):
    """Teaches NVIDIA's ``cuda.bindings.utils.get_cuda_native_handle`` our handle classes (it
    returns their C value, as ``int()`` does): through its registry where it has one
    (``_add_cuda_native_handle_getter``: 12.9, 13.3), else by wrapping the module's function
    (13.0, whose table is private to Cython; a reference taken before this ran keeps the
    unwrapped one). Versions without the helper are left alone."""
    classes = [getattr(m, n) for m in (driver, nvrtc) for n in m._NATIVE_HANDLES.split()]
    add = getattr(utils, "_add_cuda_native_handle_getter", None)
    if add is not None:
        for cls in classes:
            add(cls, int)
        return
    original = getattr(utils, "get_cuda_native_handle", None)
    if original is None or getattr(original, "_cudagen", False):
        return
    ours = frozenset(classes)

    def get_cuda_native_handle(obj):
        return int(obj) if type(obj) in ours else original(obj)

    get_cuda_native_handle.__doc__ = original.__doc__
    get_cuda_native_handle.__wrapped__ = original
    get_cuda_native_handle._cudagen = True
    utils.get_cuda_native_handle = get_cuda_native_handle


def _registered(utils):
    try:
        _register_native_handles(utils)
    except Exception as e:  # never break NVIDIA's import
        import warnings

        warnings.warn("cudagen: could not register its handles with %s: %r" % (_UTILS, e), RuntimeWarning, 2)


def _register_after(loader):
    """Makes NVIDIA's ``loader`` (an instance, maybe shared with other modules of its archive)
    register our handles right after it has run ``cuda.bindings.utils``."""
    run = loader.exec_module

    def exec_module(module):
        run(module)
        if module.__name__ == _UTILS:
            _registered(module)

    try:
        loader.exec_module = exec_module
    except AttributeError:  # a loader without an instance dict: left as it is
        pass


def _find_utils(fullname, path=None, target=None):
    """``find_spec`` of our ``sys.meta_path`` entry: when (and only when) something imports
    ``cuda.bindings.utils``, finds it through the other finders and wraps its loader, so cudagen
    never imports ``cuda.bindings`` itself."""
    if fullname != _UTILS:
        return None
    for finder in _sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if finder is _FINDER or find is None:
            continue
        spec = find(fullname, path, target)
        if spec is not None:
            if hasattr(spec.loader, "exec_module") and not isinstance(spec.loader, type):
                _register_after(spec.loader)
            return spec
    return None


_FINDER = _SimpleNamespace(find_spec=_find_utils)
_sys.meta_path.insert(0, _FINDER)
if _UTILS in _sys.modules:
    _registered(_sys.modules[_UTILS])
