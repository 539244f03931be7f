"""The Google Code archive's issues, from its JSON export.

URLs: ``code.google.com/archive/p/PROJECT/issues/N``, ``code.google.com/p/PROJECT/issues/detail?id=N``
and the export itself, ``storage.googleapis.com/google-code-archive/v2/code.google.com/PROJECT/issues/issue-N.json``
(what Defects4J lists for Closure). The export holds ``summary``, ``status``, ``labels`` and ``comments``
(``id``, ``commenterId``, ``content``, ``timestamp``), comment 0 being the report itself.
``BENCHSMITH_GOOGLECODE_URL`` replaces ``https://storage.googleapis.com/google-code-archive``.
"""

from __future__ import annotations

import json
import logging
import re

import requests

from benchsmith.core.schema import IssueText
from benchsmith.scrapers.base import MISSING_STATUSES, UNPARSEABLE, fetched_at, iso_utc, missing, unavailable
from benchsmith.scrapers.http import base_url, recording, shared
from benchsmith.scrapers.markup import decode_bytes, googlecode_to_text

log = logging.getLogger(__name__)

TRACKER = "googlecode"
URL_ENV = "BENCHSMITH_GOOGLECODE_URL"
DEFAULT_URL = "https://storage.googleapis.com/google-code-archive"

_URLS = (
    re.compile(r"^https?://code\.google\.com/archive/p/([\w.-]+)/issues/(\d+)/?(?:[?#].*)?$"),
    re.compile(r"^https?://code\.google\.com/p/([\w.-]+)/issues/detail\?(?:.*&)?id=(\d+)(?:[&#].*)?$"),
    re.compile(
        r"^https?://storage\.googleapis\.com/google-code-archive/v2/code\.google\.com/([\w.-]+)/issues/issue-(\d+)\.json$"
    ),
)


def handles(url: str) -> bool:
    return any(pattern.match(url) for pattern in _URLS)


def fetch(url: str) -> IssueText:
    """The archived issue at *url*: its summary, the report (comment 0) and the later comments."""
    match = next((m for m in (p.match(url) for p in _URLS) if m), None)
    if match is None:
        raise ValueError(f"{url}: not a Google Code issue URL")
    project, number = match.groups()
    export = f"{base_url(URL_ENV, DEFAULT_URL)}/v2/code.google.com/{project}/issues/issue-{number}.json"
    http = shared()
    with recording() as exchanges:
        try:
            response = http.get(export)
        except requests.RequestException as exc:
            raise unavailable(url, f"{type(exc).__name__}: {exc}", exchanges) from None
    if response.status_code == 403:  # the archive's bucket answers 403 for objects it does not hold
        return missing(url, TRACKER, "not in the archive (HTTP 403)", exchanges)
    if response.status_code in MISSING_STATUSES:
        return missing(url, TRACKER, MISSING_STATUSES[response.status_code], exchanges)
    if response.status_code != 200:
        raise unavailable(url, f"HTTP {response.status_code}", exchanges)
    try:
        data = json.loads(
            decode_bytes(response.content, "utf-8-sig" if response.content[:3] == b"\xef\xbb\xbf" else None)
        )
        entries = [c for c in data.get("comments") or [] if isinstance(c, dict)]
        summary = str(data.get("summary") or "").strip()
    except (ValueError, AttributeError) as exc:
        log.warning("%s: unparseable Google Code export %s (%s)", url, export, exc)
        return missing(url, TRACKER, UNPARSEABLE, exchanges)
    report = entries[0] if entries and entries[0].get("id", 0) == 0 else {}
    later = [c for c in entries if c is not report and str(c.get("content") or "").strip()]
    return IssueText(
        url=url,
        title=summary,
        description=googlecode_to_text(report.get("content")),
        comments=[googlecode_to_text(c.get("content")) for c in later],
        tracker=TRACKER,
        status=str(data.get("status") or ""),
        author=_commenter(report),
        created=_time(report),
        updated=_time(entries[-1]) if entries else "",
        comment_authors=[_commenter(c) for c in later],
        comment_created=[_time(c) for c in later],
        fetched_at=fetched_at(exchanges),
    )


def _commenter(entry: dict) -> str:
    """The archive keeps no user names, only an opaque commenter id."""
    value = entry.get("commenterId")
    return "" if value in (None, "") else str(value)


def _time(entry: dict) -> str:
    value = entry.get("timestamp")
    return iso_utc(value) if isinstance(value, (int, float)) else ""
