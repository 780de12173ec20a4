"""cudagen: drop-in bindings to the CUDA driver API and NVRTC (``cuda.bindings`` style).

``from cudagen import driver, nvrtc`` (``cudagen.cuda`` is an alias of ``cudagen.driver``).
Libraries are loaded at the first call, never at import; a missing ``libcuda``/``libnvrtc``
raises :class:`LoaderError` naming the library and where it was looked for.
"""

import os as _os
import sys as _sys


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
from cudagen import driver, nvrtc  # noqa: E402

cuda = driver
_sys.modules.setdefault(__name__ + ".cuda", driver)

__all__ = ["LoaderError", "cuda", "driver", "nvrtc"]
