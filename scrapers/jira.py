"""Apache Jira (``issues.apache.org/jira/browse/KEY-N``) through the ``jira`` package's REST v2 client.

The client's session is mounted on the shared HTTP layer (cache, retries, per-host limits) and its own
retry loop is switched off, so every request is retried, limited and cached in one place.
``BENCHSMITH_JIRA_URL`` replaces ``https://issues.apache.org/jira`` (tests point it at a local server).
"""

from __future__ import annotations

import logging
import re
import threading

import requests

from benchsmith.core.schema import IssueText
from benchsmith.scrapers.base import MISSING_STATUSES, UNPARSEABLE, fetched_at, iso_utc, missing, unavailable
from benchsmith.scrapers.http import Http, base_url, recording, shared
from benchsmith.scrapers.markup import jira_to_text

log = logging.getLogger(__name__)

TRACKER = "jira"
URL_ENV = "BENCHSMITH_JIRA_URL"
DEFAULT_URL = "https://issues.apache.org/jira"
FIELDS = "summary,description,comment,reporter,created,updated,status"
COMMENT_PAGE = 100

_URL = re.compile(r"^https?://issues\.apache\.org/jira/browse/([A-Z][A-Z0-9_]*-\d+)/?(?:[?#].*)?$")
_local = threading.local()


def handles(url: str) -> bool:
    return bool(_URL.match(url))


def _client(http: Http, server: str):
    """One jira client per thread and server, its session routed through *http*."""
    from jira import JIRA

    if getattr(_local, "http", None) is not http:
        _local.http, _local.clients = http, {}
    if server not in _local.clients:
        client = JIRA(
            server=server,
            options={"check_update": False},
            get_server_info=False,
            max_retries=0,
            timeout=(http.policy.connect_timeout, http.policy.timeout),
        )
        http.mount(client._session)  # the package's documented session attribute; mounting routes every request
        _local.clients[server] = client
    return _local.clients[server]


def fetch(url: str) -> IssueText:
    """The issue at *url*: summary, description and every comment (paging through them when Jira truncates)."""
    from jira.exceptions import JIRAError

    match = _URL.match(url)
    if not match:
        raise ValueError(f"{url}: not an Apache Jira issue URL")
    key = match.group(1)
    http = shared()
    server = base_url(URL_ENV, DEFAULT_URL)
    with recording() as exchanges:
        try:
            client = _client(http, server)
            raw = client.issue(key, fields=FIELDS).raw
            if not isinstance(raw, dict) or not isinstance(raw.get("fields"), dict):
                log.warning("%s: the issue JSON has no fields object", url)
                return missing(url, TRACKER, UNPARSEABLE, exchanges)
            block = raw["fields"].get("comment") or {}
            comments = [c for c in block.get("comments") or [] if isinstance(c, dict)]
            total = block.get("total") if isinstance(block.get("total"), int) else len(comments)
            while len(comments) < total:
                page = client.comments(key, start_at=len(comments), max_results=COMMENT_PAGE)
                if not page:
                    break
                comments.extend(c.raw for c in page)
        except JIRAError as exc:
            if exc.status_code in MISSING_STATUSES:
                return missing(url, TRACKER, MISSING_STATUSES[exc.status_code], exchanges)
            raise unavailable(url, f"HTTP {exc.status_code}" if exc.status_code else str(exc.text), exchanges) from None
        except (requests.exceptions.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s: unparseable Jira response (%s)", url, exc)
            return missing(url, TRACKER, UNPARSEABLE, exchanges)
        except requests.RequestException as exc:
            raise unavailable(url, f"{type(exc).__name__}: {exc}", exchanges) from None
        except ValueError as exc:
            log.warning("%s: unparseable Jira response (%s)", url, exc)
            return missing(url, TRACKER, UNPARSEABLE, exchanges)
    return _issue_text(url, raw["fields"], comments, fetched_at(exchanges))


def _person(value: object) -> str:
    if not isinstance(value, dict):
        return ""
    return str(value.get("displayName") or value.get("name") or "")


def _issue_text(url: str, fields: dict, comments: list[dict], when: str) -> IssueText:
    status = fields.get("status")
    return IssueText(
        url=url,
        title=str(fields.get("summary") or "").strip(),
        description=jira_to_text(fields.get("description")),
        comments=[jira_to_text(c.get("body")) for c in comments],
        tracker=TRACKER,
        status=str(status.get("name") or "") if isinstance(status, dict) else "",
        author=_person(fields.get("reporter")),
        created=iso_utc(fields.get("created")),
        updated=iso_utc(fields.get("updated")),
        comment_authors=[_person(c.get("author")) for c in comments],
        comment_created=[iso_utc(c.get("created")) for c in comments],
        fetched_at=when,
    )
