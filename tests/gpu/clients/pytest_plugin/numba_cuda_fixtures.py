"""pytest plugin for running numba-cuda's installed tests (tests/gpu/clients/numba_cuda.sh).

- numba-cuda's test classes ask for a class fixture, ``initialize_from_pytest_config``, that its
  source tree defines in a conftest.py the wheel does not ship: defined here (FileCheck failure
  dumps off), so pytest can run the tests from site-packages.
- With NUMBA_CLIENTS_RESULTS set, the controlling process (not xdist's workers) appends one line
  per test to that file as it finishes: ``outcome<TAB>test id<TAB>first line of the error``
  (outcome: passed, failed, skipped; a module that fails to import is one ``failed`` line). The
  file is written line by line, so a run cut short by a time limit still tells what it ran. Its
  first line says which module ``cuda.bindings.driver`` is in this process.
"""

import os

import pytest

_RESULTS = os.environ.get("NUMBA_CLIENTS_RESULTS")
_MARK = "numba/cuda/tests/"


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False


_STATE = {"config": None, "open": {}}


def _is_worker(config):
    return hasattr(config, "workerinput")


def _test_id(nodeid):
    """The node id from numba's test package on (the part before it depends on the cwd)."""
    i = nodeid.find(_MARK)
    return nodeid[i:] if i >= 0 else nodeid


def _first_line(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    lines = [s.strip() for s in text.splitlines() if s.strip()]
    return (lines[0] if lines else "")[:300].replace("\t", " ")


def _write(outcome, nodeid, why=""):
    with open(_RESULTS, "a") as f:
        f.write(f"{outcome}\t{_test_id(nodeid)}\t{why}\n")


def pytest_configure(config):
    if not _RESULTS or _is_worker(config):
        return
    _STATE["config"] = config
    try:
        import cuda.bindings.driver as d

        where = f"{d.__name__} ({getattr(d, '__file__', '?')})"
    except Exception as e:  # noqa: BLE001
        where = f"not importable: {type(e).__name__}: {e}"
    with open(_RESULTS, "w") as f:
        f.write(f"# cuda.bindings.driver = {where}\n")


def pytest_collectreport(report):
    if _STATE["config"] is not None and report.failed:
        _write("failed", report.nodeid + "::<import>", _first_line(report))


def pytest_runtest_logreport(report):
    """Folds a test's setup, call and teardown reports into one line, written at teardown."""
    if _STATE["config"] is None:
        return
    pending = _STATE["open"]
    outcome, why = pending.get(report.nodeid, ("passed", ""))
    if report.failed and outcome != "failed":
        outcome, why = "failed", _first_line(report)
    elif report.skipped and outcome == "passed":
        outcome = "skipped"
    if report.when == "teardown":
        pending.pop(report.nodeid, None)
        _write(outcome, report.nodeid, why)
    else:
        pending[report.nodeid] = (outcome, why)
