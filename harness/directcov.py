"""pytest plugin ``benchsmith_directcov``: exact test selection, each test's outcome, and direct coverage.

Selection: with ``BENCHSMITH_SELECT`` naming a file of node ids, only those
tests run (pytest cannot select some ids from its command line, such as a
parameter set with an empty id, ``test_x[]``).

Report: with ``BENCHSMITH_REPORT_FD`` naming an inherited descriptor (the
write end of the harness's pipe), one JSON line per test, sent when its
teardown is reported: ``{"nodeid": ..., "outcome": ...}`` where the outcome is
passed, failed, error (setup or teardown failed), skipped, xfailed or xpassed;
a module that fails to collect sends ``{"nodeid": <its id>, "outcome":
"error"}``. With ``BENCHSMITH_REPORT_COLLECTED`` set, the first line is
``{"collected": [node id, ...]}``: every test the session is about to run,
so that a run that dies part way tells which tests never reported. The descriptor is written with ``os.write``: a sandbox uid cannot
reopen ``/dev/fd/N`` of a pipe that root made, but it can write to the
descriptor it inherited. Nothing is written to files: whatever the tests'
process can write, the candidate under test can write too. The harness does
not believe this report blindly either (``harness.outcomes``): the candidate
runs in this process and can forge it.

DirectCoverage(T), as seed 002 (E.1.2) defines it, is the set of functions and
classes invoked directly in the body of test T: here, every call event whose
caller frame is the test function's own frame; with ``BENCHSMITH_DIRECTCOV``
set, each test's line carries ``"calls": [[file, qualname], ...]``.

Messages: a test that does not pass, and a module that fails to collect, also
send ``"message"``: the end of pytest's report of the failure (at most
``MESSAGE_LIMIT`` characters), which agents show the model as feedback. It is
only ever shown, never believed: outcomes decide verdicts.

Loaded into the repository's own pytest with ``-p benchsmith_directcov``.
Standard library only: it runs inside the repository's environment.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

MESSAGE_LIMIT = 2000
_outcomes: dict[str, str] = {}
_messages: dict[str, str] = {}
_calls: dict[str, list[list[str]]] = {}


def _report_fd() -> int | None:
    value = os.environ.get("BENCHSMITH_REPORT_FD", "")
    return int(value) if value.isdigit() else None


def _send(record: dict) -> None:
    fd = _report_fd()
    if fd is None:
        return
    data = (json.dumps(record) + "\n").encode("utf-8", errors="surrogateescape")
    while data:  # a pipe takes at most its buffer's worth per call
        data = data[os.write(fd, data):]


def pytest_collection_modifyitems(config, items):
    path = os.environ.get("BENCHSMITH_SELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        wanted = set(handle.read().splitlines())
    deselected = [item for item in items if item.nodeid not in wanted]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item.nodeid in wanted]


def _message(report) -> str:
    try:
        text = report.longreprtext
    except Exception:  # a report object of another make: no message, the outcome is what counts
        return ""
    return text[-MESSAGE_LIMIT:]  # the end: where the assertion or the exception is


def pytest_collection_finish(session):
    if os.environ.get("BENCHSMITH_REPORT_COLLECTED"):
        _send({"collected": [item.nodeid for item in session.items]})


def pytest_collectreport(report):
    if report.failed:
        _send({"nodeid": report.nodeid, "outcome": "error", "message": _message(report)})


def _test_code(item):
    function = getattr(item, "obj", None)
    function = getattr(function, "__func__", function)
    return getattr(function, "__code__", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    code = _test_code(item)
    if code is None or not os.environ.get("BENCHSMITH_DIRECTCOV"):
        yield
        return
    calls: set[tuple[str, str]] = set()

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
        _calls[item.nodeid] = [list(c) for c in sorted(calls)]


def _phase_outcome(report) -> str:
    """What one phase says of the test; a skip or an expected failure is no pass (see ``harness.outcomes``)."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return "passed"


def pytest_runtest_logreport(report):
    outcome = _phase_outcome(report)
    if report.when == "setup" or _outcomes.get(report.nodeid, "passed") == "passed":
        _outcomes[report.nodeid] = outcome  # the first phase that does not pass decides
        if report.failed:
            _messages[report.nodeid] = _message(report)
    if report.when == "teardown":
        record = {"nodeid": report.nodeid, "outcome": _outcomes.pop(report.nodeid, outcome)}
        if report.nodeid in _calls:
            record["calls"] = _calls.pop(report.nodeid)
        if report.nodeid in _messages:
            record["message"] = _messages.pop(report.nodeid)
        _send(record)
