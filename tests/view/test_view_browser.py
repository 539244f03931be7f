"""`benchsmith view` read in a real browser: Debian's Chromium, headless, from file:// and from a static server."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from tests.helpers.browser import chromium
from tests.helpers.cli import run_cli
from tests.helpers.view_run import view_args
from tests.view.conftest import MADE_BY_MAKE

pytestmark = [pytest.mark.browser, pytest.mark.java]

# Where the screenshots go when asked (the ones in docs/view/ were taken so: BENCHSMITH_SCREENSHOTS=docs/view).
SHOTS = os.environ.get("BENCHSMITH_SCREENSHOTS")


def _shot(page, name: str, tmp_path: Path) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=name != "instances")


@pytest.fixture(scope="module")
def site(view_run, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    completed = run_cli("view", *view_args(view_run), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    return out


def _watch(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url}"))
    return errors


def _walk(page, base: str, tmp_path: Path, shots: bool) -> None:
    """Summary, the table filtered to wrong, one wrong NL2Fix candidate's failing test, the RRR transcript."""
    page.goto(f"{base}/index.html")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("h2", has_text="nl2fix-results").count() == 1
    assert "pass@1" in page.inner_text("table.report >> nth=0")
    assert page.locator("img.plot").count() >= 4
    for image in page.locator("img.plot").all():  # every plot loaded (a broken image has no natural width)
        assert image.evaluate("img => img.complete && img.naturalWidth > 0")
    if shots:
        _shot(page, "summary", tmp_path)

    page.click("#nav-instances")
    page.wait_for_selector("#rows tbody tr")
    page.select_option("#filter-status", "wrong")
    page.wait_for_function("location.hash.includes('status=wrong')")
    statuses = page.locator("#rows tbody tr td:nth-child(6)").all_inner_texts()
    assert statuses and set(statuses) == {"wrong"}
    page.select_option("#filter-run", "nl2fix-results")
    page.wait_for_function("location.hash.includes('run=nl2fix-results')")
    if shots:
        _shot(page, "instances", tmp_path)

    if not MADE_BY_MAKE:  # `make dataset` replays gold and buggy methods: no mutant, and a buggy one has no diff
        page.fill("#filter-q", "mutant")  # a mutant of the fix: its diff against the buggy method has lines to show
        page.wait_for_function("location.hash.includes('q=mutant')")
        assert all(c.startswith("mutant") for c in page.locator("#rows tbody tr td:nth-child(3)").all_inner_texts())
    page.click("#rows tbody tr >> nth=0")
    page.wait_for_selector("#failing")
    first = page.locator("#failing tr >> nth=0")
    test, message = first.locator("td").all_inner_texts()
    assert "::" in test and message and message != "(no message in the log)", (test, message)
    assert "Error" in message or "Failure" in message or "expected" in message, message
    assert page.locator("#diff").count() == 1  # against the buggy method, from the dataset
    if not MADE_BY_MAKE:
        assert page.locator("#diff .add").count() >= 1 and page.locator("#diff .del").count() >= 1
    assert page.locator("#log").count() == 1
    if shots:
        _shot(page, "candidate", tmp_path)

    page.click("#nav-agents")
    page.click("#transcripts a >> nth=0")
    page.wait_for_selector("#steps")
    steps = page.inner_text("#steps")
    for part in ("Prompt", "Tool call: ", "Reflection", "Attempt", "Verdict"):
        assert part in steps, part
    page.locator(".step.attempt a >> nth=0").click()  # an attempt leads to its candidate's page
    page.wait_for_selector("#to-transcript")
    page.click("#to-transcript")
    page.wait_for_selector("#steps")
    if shots:
        _shot(page, "transcript", tmp_path)


def test_a_reader_walks_the_run_from_file_urls(site, tmp_path):
    with chromium() as browser:
        page = browser.new_page()
        errors = _watch(page)
        _walk(page, site.as_uri(), tmp_path, shots=True)
        assert errors == []


def test_the_same_site_from_a_static_server(site, tmp_path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with chromium() as browser:
            page = browser.new_page()
            errors = _watch(page)
            _walk(page, f"http://127.0.0.1:{server.server_port}", tmp_path, shots=False)
            assert errors == []
    finally:
        server.shutdown()


def test_results_without_their_logs_say_so_on_the_page(view_run, tmp_path):
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.copy(view_run / "nl2fix-results.parquet", moved)
    logs = view_run / "nl2fix-results.parquet.logs"
    hidden = tmp_path / "hidden-logs"
    logs.rename(hidden)  # the absolute paths the results hold lead nowhere now, as on another machine
    try:
        out = tmp_path / "site"
        completed = run_cli(
            "view",
            "--results",
            str(moved / "nl2fix-results.parquet"),
            "--candidates",
            str(view_run / "nl2fix-candidates.jsonl"),
            "--out",
            str(out),
        )
    finally:
        hidden.rename(logs)
    assert completed.returncode == 0, completed.stderr
    assert "logs folder" in completed.stderr and "is missing" in completed.stderr
    with chromium() as browser:
        page = browser.new_page()
        errors = _watch(page)
        page.goto(out.as_uri() + "/index.html")
        page.wait_for_selector("body[data-ready='1']")
        assert "logs folder" in page.inner_text("#notices")
        page.goto(out.as_uri() + "/index.html#/candidate/0")
        page.wait_for_selector("#log-missing")
        assert "The log is missing" in page.inner_text("#log-missing")
        assert page.locator("#code").count() == 1  # the code is there, shown without a diff (no dataset)
        assert errors == []


def test_a_transcript_cut_short_is_named_and_the_rest_shown(view_run, site, tmp_path):
    lines = (view_run / "rrr-candidates.transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    cut = tmp_path / "rrr-candidates.transcripts.jsonl"
    # An agent stopped while writing one more transcript (the fixture's run has one task: its line again, cut).
    cut.write_text("\n".join([*lines, lines[-1][: len(lines[-1]) // 2]]), encoding="utf-8")
    out = tmp_path / "site"
    args = view_args(view_run)
    args[args.index("--transcripts") + 1] = str(cut)
    completed = run_cli("view", *args, "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    assert f"{cut}:{len(lines) + 1}: the last line is cut short" in completed.stderr
    with chromium() as browser:
        page = browser.new_page()
        errors = _watch(page)
        page.goto(out.as_uri() + "/index.html#/agents")
        page.wait_for_selector("#transcripts")
        assert "cut short" in page.inner_text("#notices")
        assert page.locator("#transcripts tbody tr").count() == len(lines)
        assert errors == []


def test_a_site_missing_its_data_says_what_is_missing(site, tmp_path):
    broken = tmp_path / "site"
    shutil.copytree(site, broken)
    (broken / "data" / "detail" / "d-00000.js").unlink()
    with chromium() as browser:
        page = browser.new_page()
        page.goto(broken.as_uri() + "/index.html#/candidate/0")
        page.wait_for_selector(".error")
        assert "data/detail/d-00000.js is missing" in page.inner_text("main")
        (broken / "data" / "meta.js").unlink()
        page.goto(broken.as_uri() + "/index.html")
        page.wait_for_selector(".error")
        assert "data/meta.js is missing" in page.inner_text("main")
