"""Issue trackers → IssueText.

One interface, ``fetch_issue(url)``, and a registry (TRACKERS) that picks the tracker from the URL.
Each tracker is a module with ``handles(url)`` and ``fetch(url)``; all of them go through the one HTTP
layer in :mod:`benchsmith.scrapers.http`. Importing this package loads no client library and touches no network.

A missing issue (404, 410, private, unparseable) comes back as an IssueText with ``missing_reason``;
a tracker that cannot be reached raises :class:`TrackerUnavailable`; a URL no tracker handles raises
:class:`UnknownTracker`. Both errors name the URL.
"""

from __future__ import annotations

from collections.abc import Callable

from benchsmith.core.schema import IssueText
from benchsmith.scrapers import github, googlecode, jira, sourceforge
from benchsmith.scrapers.base import TrackerUnavailable, UnknownTracker

__all__ = ["TRACKERS", "TrackerUnavailable", "UnknownTracker", "fetch_issue", "tracker_name"]

# (predicate on the URL, fetcher); the first match wins.
TRACKERS: list[tuple[Callable[[str], bool], Callable[[str], IssueText]]] = [
    (jira.handles, jira.fetch),
    (github.handles, github.fetch),
    (sourceforge.handles, sourceforge.fetch),
    (googlecode.handles, googlecode.fetch),
]

_NAMES = {
    jira.fetch: jira.TRACKER,
    github.fetch: github.TRACKER,
    sourceforge.fetch: sourceforge.TRACKER,
    googlecode.fetch: googlecode.TRACKER,
}


def _fetcher(url: str) -> Callable[[str], IssueText]:
    if isinstance(url, str):
        url = url.strip()
        for handles, fetch in TRACKERS:
            if handles(url):
                return fetch
    known = ", ".join(sorted(set(_NAMES.values())))
    raise UnknownTracker(f"{url}: no issue tracker registered for this URL (known: {known})")


def tracker_name(url: str) -> str:
    """The name of the tracker that handles *url*; UnknownTracker when none does."""
    fetch = _fetcher(url)
    return _NAMES.get(fetch, getattr(fetch, "__module__", "?"))


def fetch_issue(url: str) -> IssueText:
    """The issue report at *url*, from the tracker the URL belongs to."""
    return _fetcher(url)(url.strip())
