"""GitHub issues (``github.com/OWNER/REPO/issues/N``, pull requests too) through PyGithub.

The token comes from ``GITHUB_TOKEN`` when set (5,000 requests an hour); without it PyGithub works
unauthenticated (60 an hour), and an exhausted limit is waited out up to ``BENCHSMITH_HTTP_MAX_WAIT``
by the shared HTTP layer, which PyGithub's connections are mounted on (its own retries and throttle
are off). ``BENCHSMITH_GITHUB_API_URL`` replaces ``https://api.github.com``.
"""

from __future__ import annotations

import logging
import os
import re
import threading

import requests

from benchsmith.core.schema import IssueText
from benchsmith.scrapers.base import MISSING_STATUSES, UNPARSEABLE, fetched_at, iso_utc, missing, unavailable
from benchsmith.scrapers.http import Http, base_url, recording, shared
from benchsmith.scrapers.markup import markdown_to_text

log = logging.getLogger(__name__)

TRACKER = "github"
URL_ENV = "BENCHSMITH_GITHUB_API_URL"
DEFAULT_URL = "https://api.github.com"
TOKEN_ENV = "GITHUB_TOKEN"

_URL = re.compile(r"^https?://(?:www\.)?github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull)/(\d+)/?(?:[?#].*)?$")
_local = threading.local()


def handles(url: str) -> bool:
    return bool(_URL.match(url))


def _client(http: Http, api: str, token: str):
    """One PyGithub client per thread, API URL and token, whose connections mount *http*."""
    from github import Auth, Github

    if getattr(_local, "http", None) is not http:
        _local.http, _local.clients = http, {}
    key = (api, token)
    if key not in _local.clients:
        gh = Github(
            auth=Auth.Token(token) if token else None,
            base_url=api,
            timeout=max(1, int(http.policy.timeout)),
            retry=None,
            per_page=100,
            seconds_between_requests=None,
            seconds_between_writes=None,
            lazy=True,
            user_agent="benchsmith",
        )
        requester = gh.requester
        # PyGithub makes its requests.Session inside a connection class of its own; a subclass that
        # mounts the shared layer on that session is the one way in that keeps PyGithub's HTTP code.
        attribute = "_Requester__connectionClass"
        if not hasattr(requester, attribute):
            raise RuntimeError("this PyGithub has no Requester connection class to route through the HTTP layer")
        connection_class = getattr(requester, attribute)

        class Routed(connection_class):  # type: ignore[misc, valid-type]
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                http.mount(self.session)

        setattr(requester, attribute, Routed)
        _local.clients[key] = gh
    return _local.clients[key]


def _data(obj) -> dict:
    """The JSON an object was made from, without asking GitHub to complete it."""
    from github.GithubObject import GithubObject

    data = GithubObject.raw_data.fget(obj)
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object, got {type(data).__name__}")
    return data


def fetch(url: str) -> IssueText:
    """The issue (or pull request) at *url*: title, body and every comment, following the Link pages."""
    from github import BadCredentialsException, GithubException, RateLimitExceededException, UnknownObjectException

    match = _URL.match(url)
    if not match:
        raise ValueError(f"{url}: not a GitHub issue URL")
    owner, repo, number = match.group(1), match.group(2), int(match.group(3))
    http = shared()
    api = base_url(URL_ENV, DEFAULT_URL)
    with recording() as exchanges:
        try:
            issue = (
                _client(http, api, os.environ.get(TOKEN_ENV, "").strip()).get_repo(f"{owner}/{repo}").get_issue(number)
            )
            data = issue.raw_data  # GET /repos/{owner}/{repo}/issues/{number}
            comments = [_data(c) for c in issue.get_comments()] if data.get("comments") else []
        except UnknownObjectException:
            return missing(url, TRACKER, MISSING_STATUSES[404], exchanges)
        except RateLimitExceededException:
            raise unavailable(url, f"rate limit exhausted (set {TOKEN_ENV} for a larger one)", exchanges) from None
        except BadCredentialsException:
            raise unavailable(url, f"{TOKEN_ENV} was refused (HTTP 401)", exchanges) from None
        except GithubException as exc:
            if exc.status in MISSING_STATUSES:
                return missing(url, TRACKER, MISSING_STATUSES[exc.status], exchanges)
            raise unavailable(url, f"HTTP {exc.status}", exchanges) from None
        except requests.RequestException as exc:
            raise unavailable(url, f"{type(exc).__name__}: {exc}", exchanges) from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s: unparseable GitHub response (%s)", url, exc)
            return missing(url, TRACKER, UNPARSEABLE, exchanges)
    return _issue_text(url, data, comments, fetched_at(exchanges))


def _login(data: dict) -> str:
    user = data.get("user")
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def _issue_text(url: str, data: dict, comments: list[dict], when: str) -> IssueText:
    return IssueText(
        url=url,
        title=str(data.get("title") or "").strip(),
        description=markdown_to_text(data.get("body")),
        comments=[markdown_to_text(c.get("body")) for c in comments],
        tracker=TRACKER,
        status=str(data.get("state") or ""),
        author=_login(data),
        created=iso_utc(data.get("created_at")),
        updated=iso_utc(data.get("updated_at")),
        comment_authors=[_login(c) for c in comments],
        comment_created=[iso_utc(c.get("created_at")) for c in comments],
        fetched_at=when,
    )
