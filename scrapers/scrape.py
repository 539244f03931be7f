"""The ``scrape`` stage: a list of issue URLs → IssueText rows in Parquet, with a card of what is missing.

Every URL is checked before anything is fetched (an unknown one is an error naming the file and line,
and nothing is written). Issues are then fetched by a few threads, each request through the shared HTTP
layer, so what was fetched is on disk the moment it arrives: a killed run, run again, asks only for the
rest. An issue the tracker lacks keeps its ``missing_reason``; one whose tracker stayed unreachable gets
``missing_reason = "unavailable: ..."`` (not cached, so the next run tries it again).
"""

from __future__ import annotations

import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from benchsmith import __version__
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.progress import progress
from benchsmith.core.schema import IssueText
from benchsmith.scrapers import TrackerUnavailable, UnknownTracker, fetch_issue, tracker_name
from benchsmith.scrapers.http import shared

log = logging.getLogger(__name__)


@dataclass
class ScrapeSummary:
    urls: int
    filled: int
    missing: dict[str, int] = field(default_factory=dict)
    network_requests: int = 0
    cache_hits: int = 0


def read_urls(path: Path) -> list[str]:
    """One URL a line (blank lines and ``#`` comments skipped, duplicates dropped); each must have a tracker."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such URL list") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchsmithError(f"{path}: unreadable URL list ({exc})") from None
    urls: list[str] = []
    for number, line in enumerate(lines, start=1):
        url = line.strip()
        if not url or url.startswith("#"):
            continue
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            raise BenchsmithError(f"{path}:{number}: not an http(s) URL: {url!r}")
        try:
            tracker_name(url)
        except UnknownTracker as exc:
            raise BenchsmithError(f"{path}:{number}: {exc}") from None
        if url not in urls:
            urls.append(url)
    if not urls:
        raise BenchsmithError(f"{path}: no URLs in the list")
    return urls


def fetch_one(url: str) -> IssueText:
    """fetch_issue, with an unreachable tracker recorded on the row instead of raised."""
    try:
        return fetch_issue(url)
    except TrackerUnavailable as exc:
        log.warning("%s", exc)
        return IssueText(url=url, tracker=tracker_name(url), missing_reason=f"unavailable: {exc.reason}")


def scrape(urls: list[str], workers: int = 4) -> list[IssueText]:
    """Fetch every URL (in parallel, at most BENCHSMITH_HTTP_PER_HOST at a time per host); rows in input order."""
    if workers <= 1:
        return [fetch_one(url) for url in progress(urls, "issues", total=len(urls))]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="scrape") as pool:
        return list(progress(pool.map(fetch_one, urls), "issues", total=len(urls)))


def run(urls_file: Path, out: Path, workers: int = 4) -> ScrapeSummary:
    """The ``benchsmith scrape`` command: read, fetch, write ``out`` and its card atomically."""
    urls = read_urls(urls_file)
    adapter = shared().adapter
    requests_before, hits_before = adapter.network_requests, adapter.cache_hits
    issues = scrape(urls, workers)
    missing = Counter(issue.missing_reason for issue in issues if issue.missing_reason)
    summary = ScrapeSummary(
        urls=len(issues),
        filled=len(issues) - sum(missing.values()),
        missing=dict(missing.most_common()),
        network_requests=adapter.network_requests - requests_before,
        cache_hits=adapter.cache_hits - hits_before,
    )
    card = {
        "dataset": "issue reports",
        "tool": f"benchsmith {__version__}",
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "urls_file": str(urls_file),
        "issues": summary.urls,
        "filled": summary.filled,
        "missing": summary.missing,
        "trackers": dict(Counter(issue.tracker for issue in issues).most_common()),
        "missing_issues": [{"url": i.url, "reason": i.missing_reason} for i in issues if i.missing_reason],
    }
    write_dataset(issues, IssueText, out, card, render_card(card), **hub_card(card))
    return summary


def render_card(card: dict) -> str:
    lines = [
        f"# Issue reports ({card['issues']})",
        "",
        f"Scraped by {card['tool']} on {card['built_at']} from `{card['urls_file']}`.",
        "",
        f"Filled: {card['filled']}; missing: {card['missing'] or 'none'}.",
        "",
        "| tracker | issues |",
        "| --- | ---: |",
        *(f"| {tracker} | {count} |" for tracker, count in card["trackers"].items()),
    ]
    if card["missing_issues"]:
        lines += ["", "## Missing", "", "| url | reason |", "| --- | --- |"]
        lines += [f"| {m['url']} | {m['reason'].replace('|', '/')} |" for m in card["missing_issues"]]
    return "\n".join(lines) + "\n"


def hub_card(card: dict) -> dict:
    """The Hugging Face card's sources and counts. Issue text is under each tracker's and project's own terms,
    which nothing here records: "unknown"."""
    sources = [HubSource(f"{tracker} issues") for tracker in card["trackers"]]
    counts = {"issues": card["issues"], "filled": card["filled"], "missing": card["missing"]}
    return {"sources": sources, "counts": counts}
