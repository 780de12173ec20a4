"""Helpers `cuda.bindings.runtime` has beside the C API, re-exported by `cudagen.runtime`
(the runtime profile's `python_helpers`): the constructors `driver_functions.h` defines inline
(`make_cudaPitchedPtr`, `make_cudaPos`, `make_cudaExtent`) and `getLocalRuntimeVersion`."""

__all__ = ["getLocalRuntimeVersion", "make_cudaExtent", "make_cudaPitchedPtr", "make_cudaPos"]


def _runtime():
    from cudagen import runtime  # loaded by the time a helper runs (it imports this module)

    return runtime


def _record(name, **fields):
    r = getattr(_runtime(), name)()
    for k, v in fields.items():
        setattr(r, k, v)
    return r


def make_cudaPitchedPtr(d, p, xsz, ysz):
    """A `cudaPitchedPtr` of pointer `d`, pitch `p`, logical width `xsz` and height `ysz`."""
    return _record("cudaPitchedPtr", ptr=0 if d is None else d, pitch=p, xsize=xsz, ysize=ysz)


def make_cudaPos(x, y, z):
    """A `cudaPos` of `x`, `y`, `z`."""
    return _record("cudaPos", x=x, y=y, z=z)


def make_cudaExtent(w, h, d):
    """A `cudaExtent` of width `w` (bytes for linear memory, elements for arrays), height `h`
    and depth `d`."""
    return _record("cudaExtent", width=w, height=h, depth=d)


def getLocalRuntimeVersion():
    """`(cudaError_t, version)` of the CUDA runtime library cudagen loaded (`libcudart`, found as
    every runtime call finds it): `cudaRuntimeGetVersion` of that library."""
    return _runtime().cudaRuntimeGetVersion()
