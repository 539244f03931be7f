"""Issue trackers → IssueText.

One interface, ``fetch_issue(url)``, and a registry that picks the tracker
from the URL. Trackers register themselves in TRACKERS.
"""

from __future__ import annotations

from collections.abc import Callable

from benchsmith.errors import BenchsmithError
from benchsmith.schema import IssueText


class UnknownTracker(BenchsmithError):
    """No registered tracker handles the URL."""


# (predicate on the URL, fetcher); the first match wins.
TRACKERS: list[tuple[Callable[[str], bool], Callable[[str], IssueText]]] = []


def fetch_issue(url: str) -> IssueText:
    for handles, fetch in TRACKERS:
        if handles(url):
            return fetch(url)
    raise UnknownTracker(f"{url}: no issue tracker registered for this URL")
