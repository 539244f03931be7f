"""What the tracker modules share: the errors, the missing-issue record, dates, fetch times."""

from __future__ import annotations

from datetime import datetime, timezone

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import IssueText
from benchsmith.scrapers.http import Exchange

# A tracker's answer that means "no such issue for you": recorded, never retried, never a crash.
MISSING_STATUSES = {
    401: "private (HTTP 401)",
    403: "private or blocked (HTTP 403)",
    404: "not found (HTTP 404)",
    410: "deleted (HTTP 410)",
    451: "blocked for legal reasons (HTTP 451)",
}
UNPARSEABLE = "unparseable response"


class UnknownTracker(BenchsmithError):
    """No registered tracker handles the URL."""


class TrackerUnavailable(BenchsmithError):
    """The tracker gave no usable answer, even after retries (network, timeouts, 5xx, rate limits, auth)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


def missing(url: str, tracker: str, reason: str, exchanges: list[Exchange] = ()) -> IssueText:
    return IssueText(url=url, tracker=tracker, missing_reason=reason, fetched_at=fetched_at(exchanges))


def fetched_at(exchanges: list[Exchange]) -> str:
    """When the tracker gave what the record holds: the earliest answer among the exchanges (cached or not)."""
    times = [e.fetched_at for e in exchanges if e.status is not None]
    return min(times) if times else ""


def unavailable(url: str, what: str, exchanges: list[Exchange]) -> TrackerUnavailable:
    """The error for a failed fetch: *what* went wrong, and the HTTP layer's note on why it stopped retrying."""
    note = next((e.note for e in reversed(exchanges) if e.note), "")
    return TrackerUnavailable(url, f"{what}; {note}" if note else what)


def iso_utc(value: str | int | float | datetime | None) -> str:
    """A tracker's date (ISO 8601 with any offset, Jira's ``+0000``, epoch seconds) → ``YYYY-MM-DDTHH:MM:SSZ``."""
    if value in (None, ""):
        return ""
    if isinstance(value, (int, float)):
        moment = datetime.fromtimestamp(value, timezone.utc)
    elif isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    else:
        text = str(value).strip().replace("Z", "+00:00")
        if len(text) > 5 and text[-5] in "+-" and text[-3] != ":":  # Jira: 2006-05-22T04:05:29.000+0000
            text = f"{text[:-2]}:{text[-2:]}"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return str(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
