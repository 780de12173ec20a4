"""Shared fixtures. GPU tests use the `gpu` fixture: without a driver they skip with one line."""

import pytest

_GPU = None


def _probe():
    global _GPU
    if _GPU is None:
        from cudagen import LoaderError, driver

        try:
            err, = driver.cuInit(0)
            err2, n = driver.cuDeviceGetCount()
            _GPU = (err == 0 and err2 == 0 and n > 0, f"cuInit -> {err!r}, devices: {n}")
        except LoaderError as e:
            _GPU = (False, str(e).split(";")[0])
    return _GPU


@pytest.fixture
def gpu():
    ok, why = _probe()
    if not ok:
        pytest.skip(f"no CUDA driver/GPU: {why}")


@pytest.fixture
def ctx(gpu):
    from cudagen import driver

    err, dev = driver.cuDeviceGet(0)
    err, c = driver.cuCtxCreate(0, dev)
    assert err == 0
    yield c
    driver.cuCtxDestroy(c)
