"""pytest plugin ``benchsmith_directcov``: exact test selection, and each test's outcome and direct coverage.

Selection: with ``BENCHSMITH_SELECT`` naming a file of node ids, only those
tests run (pytest cannot select some ids from its command line, such as a
parameter set with an empty id, ``test_x[]``).

DirectCoverage(T), as seed 002 (E.1.2) defines it, is the set of functions and
classes invoked directly in the body of test T: here, every call event whose
caller frame is the test function's own frame. Loaded into the repository's
own pytest with ``-p benchsmith_directcov``; writes JSON to the path in
``BENCHSMITH_DIRECTCOV_OUT`` at the end of the session. Standard library only:
it runs inside the repository's environment.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

_records: dict[str, dict] = {}


def pytest_collection_modifyitems(session, config, items):
    path = os.environ.get("BENCHSMITH_SELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        wanted = set(handle.read().splitlines())
    deselected = [item for item in items if item.nodeid not in wanted]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item.nodeid in wanted]


def _test_code(item):
    function = getattr(item, "obj", None)
    function = getattr(function, "__func__", function)
    return getattr(function, "__code__", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    code = _test_code(item)
    calls: set[tuple[str, str]] = set()
    if code is None:
        yield
        return

    def profiler(frame, event, arg):
        if event == "call" and frame.f_back is not None and frame.f_back.f_code is code:
            target = frame.f_code
            calls.add((target.co_filename, getattr(target, "co_qualname", target.co_name)))

    previous = sys.getprofile()
    sys.setprofile(profiler)
    try:
        yield
    finally:
        sys.setprofile(previous)
        _records.setdefault(item.nodeid, {"outcome": "unknown"})["calls"] = sorted(calls)


def pytest_runtest_logreport(report):
    record = _records.setdefault(report.nodeid, {"outcome": "unknown", "calls": []})
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        record["outcome"] = report.outcome
    elif report.when == "teardown" and report.outcome == "failed":
        record["outcome"] = "failed"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("BENCHSMITH_DIRECTCOV_OUT")
    if path:
        with open(path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(_records, handle)
        os.replace(path + ".tmp", path)
