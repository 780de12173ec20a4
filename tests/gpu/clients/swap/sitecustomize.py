"""Puts cudagen in place of ``cuda.bindings.driver`` / ``cuda.bindings.nvrtc`` when CUDAGEN_SWAP=1.

Python imports this at start-up when its folder is on PYTHONPATH (tests/gpu/clients/run.sh puts
it there for both runs). Without CUDAGEN_SWAP=1 it only runs the ``sitecustomize`` it shadows, so
a run without the swap is the interpreter's ordinary one.

With the swap, before any program code runs:
  1. Unless ``runtime`` is swapped too, NVIDIA's ``cuda.bindings.runtime`` is imported first: its
     Cython types are built on the driver module's types and it refuses to import once
     ``cuda.bindings.driver`` is cudagen's.
  2. ``sys.modules["cuda.bindings.<m>"]`` becomes ``cudagen.<m>`` for each swapped module ``m``,
     and so does the ``<m>`` attribute of the ``cuda.bindings`` package, so
     ``import cuda.bindings.driver`` and ``from cuda.bindings import driver`` both give cudagen's.
The swapped modules are ``CUDAGEN_SWAP_MODULES`` (comma-separated, any of driver, nvrtc, runtime,
nvjitlink, nvvm; ``all`` for the five), ``driver,nvrtc`` when unset.
The swap never fails quietly: when cudagen or NVIDIA's package is missing the interpreter exits
(status 2) with a message (a silent fallback would make the two runs look alike). CUDAGEN_SWAP_VERBOSE=1
prints one line per process on stderr saying what was swapped.

CUDAGEN_CLIENTS_COMPAT=1 (set for both runs of numba-cuda's tests and of NVIDIA's samples, swap or
not): gives numpy back ``numpy.row_stack`` (an alias of ``vstack``, removed in numpy 2.5) when it
lacks it: numba-cuda 0.30.4 names it at import of its kernel lowering, so on numpy 2.5 it can
compile no kernel. And gives ``cuda.pathfinder._utils.env_vars`` whichever of
``get_cuda_home_or_path`` / ``get_cuda_path_or_home`` it lacks (NVIDIA's samples name the other).
"""

import os
import sys


def _chain():
    """Runs the next ``sitecustomize`` on sys.path (the one this file shadows), if any."""
    import importlib.machinery
    import importlib.util

    if getattr(sys, "_cudagen_swap_chained", False):
        return  # a second copy of this file further down sys.path
    sys._cudagen_swap_chained = True
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_ALL = ("driver", "nvrtc", "runtime", "nvjitlink", "nvvm")


def _swapped():
    """The module names CUDAGEN_SWAP_MODULES asks for (see the module doc); exits on a bad name."""
    value = os.environ.get("CUDAGEN_SWAP_MODULES", "driver,nvrtc").strip()
    names = _ALL if value == "all" else tuple(n.strip() for n in value.split(",") if n.strip())
    bad = [n for n in names if n not in _ALL]
    if bad or not names:
        sys.stderr.write(f"CUDAGEN_SWAP_MODULES={value!r}: not a list of {', '.join(_ALL)} (or all)\n")
        sys.stderr.flush()
        os._exit(2)
    return names


def _swap():
    import importlib

    names = _swapped()
    try:
        import cuda.bindings

        if "runtime" not in names:
            import cuda.bindings.runtime  # noqa: F401  (before the swap: see the module doc)
        modules = {name: importlib.import_module("cudagen." + name) for name in names}
    except Exception as e:  # noqa: BLE001  (site.py would print it and go on without the swap)
        sys.stderr.write(f"CUDAGEN_SWAP=1 but the swap could not be made: {type(e).__name__}: {e}\n")
        sys.stderr.flush()
        os._exit(2)
    for name, module in modules.items():
        sys.modules["cuda.bindings." + name] = module
        setattr(cuda.bindings, name, module)
    if os.environ.get("CUDAGEN_SWAP_VERBOSE") == "1":
        driver = modules.get("driver")
        print(
            f"cudagen swap: cuda.bindings.{{{','.join(names)}}} -> cudagen "
            f"({getattr(sys.modules.get('cudagen'), '__file__', '?')}, CUDA_VERSION "
            f"{getattr(driver, 'CUDA_VERSION', '?')}) in pid {os.getpid()}",
            file=sys.stderr,
        )


def _compat():
    import numpy

    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack
    try:
        from cuda.pathfinder._utils import env_vars
    except ImportError:
        return
    # NVIDIA's sample helpers (examples/common/common.py) name one of these two; cuda-pathfinder
    # has had one or the other
    for have, want in (("get_cuda_path_or_home", "get_cuda_home_or_path"), ("get_cuda_home_or_path", "get_cuda_path_or_home")):
        if hasattr(env_vars, have) and not hasattr(env_vars, want):
            setattr(env_vars, want, getattr(env_vars, have))


try:
    _chain()
finally:
    if os.environ.get("CUDAGEN_CLIENTS_COMPAT") == "1":
        _compat()
    if os.environ.get("CUDAGEN_SWAP") == "1":
        _swap()
