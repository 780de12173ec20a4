"""Values whose type an enum argument selects (`cuPointerGetAttribute` and kin): signatures as
cuda.bindings has them, unlisted members refused before any driver call, typed results on a GPU."""

import inspect

import pytest

from cudagen import driver as D

A = D.CUpointer_attribute


def names(f):
    return list(inspect.signature(f).parameters)


def test_signatures_follow_the_ir():
    # Outputs are returned, sizes set from the member type, builtins renamed.
    assert names(D.cuPointerGetAttribute) == ["attribute", "ptr"]
    assert names(D.cuPointerGetAttributes) == ["numAttributes", "attributes", "ptr"]
    assert names(D.cuMemRangeGetAttribute) == ["dataSize", "attribute", "devPtr", "count"]
    assert names(D.cuMemRangeGetAttributes) == ["dataSizes", "attributes", "numAttributes", "devPtr", "count"]
    assert names(D.cuCoredumpGetAttribute) == ["attrib"]
    assert names(D.cuCoredumpSetAttribute) == ["attrib", "value"]
    assert names(D.cuMemPoolGetAttribute) == ["pool", "attr"]
    assert names(D.cuGraphKernelNodeSetAttribute) == ["hNode", "attr", "value"]
    assert names(D.cuTexRefSetBorderColor) == ["hTexRef", "pBorderColor"]
    assert names(D.cuGraphicsMapResources) == ["count", "resources", "hStream"]
    assert names(D.cuThreadExchangeStreamCaptureMode) == ["mode"]
    assert names(D.cuLogsDumpToMemory) == ["iterator", "buffer", "size", "flags"]
    assert names(D.cuDevSmResourceSplitByCount) == ["nbGroups", "input_", "useFlags", "minCount"]
    assert names(D.cuDeviceGetName) == ["length", "dev"]
    assert names(D.cuLinkAddFile) == ["state", "typename", "path", "numOptions", "options", "optionValues"]


def test_unlisted_member_is_refused_without_a_call():
    # 5 (P2P_TOKENS) has no type in the table: no buffer of a guessed size reaches the driver.
    err, value = D.cuPointerGetAttribute(5, 0)
    assert err == D.CUresult.CUDA_ERROR_INVALID_VALUE and value is None
    err, values = D.cuPointerGetAttributes(1, [5], 0)
    assert err == D.CUresult.CUDA_ERROR_INVALID_VALUE and values is None
    (err,) = D.cuCoredumpSetAttribute(12345, 1)
    assert err == D.CUresult.CUDA_ERROR_INVALID_VALUE


def test_list_and_count_must_agree():
    with pytest.raises(ValueError):
        D.cuPointerGetAttributes(3, [A.CU_POINTER_ATTRIBUTE_CONTEXT], 0)
    with pytest.raises(ValueError):
        D.cuMemRangeGetAttributes([4, 4], [1], 1, 0, 0)
    with pytest.raises(TypeError):
        D.cuPointerGetAttributes(1, 0x1000, 0)


def test_pointer_attributes_are_typed(ctx):
    err, dptr = D.cuMemAlloc(1 << 20)
    assert err == 0
    try:
        err, c = D.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_CONTEXT, dptr)
        assert err == 0 and isinstance(c, D.CUcontext) and int(c) == int(ctx)
        err, p = D.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dptr)
        assert err == 0 and isinstance(p, D.CUdeviceptr) and int(p) == int(dptr)
        err, t = D.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr)
        assert err == 0 and t == D.CUmemorytype.CU_MEMORYTYPE_DEVICE
        err, managed = D.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_IS_MANAGED, dptr)
        assert err == 0 and managed is False
        err, size = D.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_RANGE_SIZE, dptr)
        assert err == 0 and size >= 1 << 20
        attrs = [A.CU_POINTER_ATTRIBUTE_CONTEXT, A.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, A.CU_POINTER_ATTRIBUTE_IS_MANAGED]
        err, values = D.cuPointerGetAttributes(len(attrs), attrs, dptr)
        assert err == 0 and int(values[0]) == int(ctx) and int(values[1]) == int(dptr) and values[2] is False
    finally:
        D.cuMemFree(dptr)
