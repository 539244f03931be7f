"""A run of 100,000 candidates, replicated from the fixture run's real rows (bench/view_scale.py): the instance table
is interactive in seconds and filters without freezing the tab, in headless Chromium."""

from __future__ import annotations

import importlib.util
import sys
import time

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.java, pytest.mark.slow]

TOTAL = 100_000


def _bench():
    spec = importlib.util.spec_from_file_location("view_scale", ROOT / "bench" / "view_scale.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["view_scale"] = module
    spec.loader.exec_module(module)
    return module


def test_a_hundred_thousand_candidates(view_run, tmp_path):
    bench = _bench()
    files = bench.replicate(view_run, view_run.parent / "datasets" / "nl2fix.parquet", tmp_path / "run", TOTAL)
    started = time.perf_counter()
    bench.write_site(files, tmp_path / "site")
    written = time.perf_counter() - started
    figures = bench.measure(tmp_path / "site")
    print(f"\nsite written in {written:.1f} s; in Chromium: {figures}")
    assert figures["rows"] == f"1–50 of {TOTAL:,} candidates"
    assert figures["console_errors"] == 0
    # Generous bounds for a shared two-core machine; docs/view.md has what was measured.
    assert figures["interactive_s"] < 10
    assert figures["filter_wrong_s"] < 3 and figures["sort_s"] < 3
    assert figures["js_heap_used_mb"] < 400
    assert figures["renderer_rss_mb"] < 2000
