"""SourceForge (Allura) tickets (``sourceforge.net/p/PROJECT/TOOL/N``) from their HTML pages.

Parsed with BeautifulSoup after Allura's ticket template: the title in ``h2.dark.title`` (else
``<title>``), the description in ``#ticket_content``, the fields (Status, Creator, Created, Updated) in
``.view_holder`` as ``label.simple`` + value, the comments as ``#comment .discussion-post`` (skipping the
generated ``meta_post`` change records), with the thread's further pages followed from its page list.
``BENCHSMITH_SOURCEFORGE_URL`` replaces ``https://sourceforge.net``.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timezone
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import requests
from bs4 import BeautifulSoup, Tag

from benchsmith.core.schema import IssueText
from benchsmith.scrapers.base import MISSING_STATUSES, UNPARSEABLE, fetched_at, missing, unavailable
from benchsmith.scrapers.http import base_url, recording, shared
from benchsmith.scrapers.markup import decode_bytes, html_to_text

log = logging.getLogger(__name__)

TRACKER = "sourceforge"
URL_ENV = "BENCHSMITH_SOURCEFORGE_URL"
DEFAULT_URL = "https://sourceforge.net"
MAX_COMMENT_PAGES = 50

_URL = re.compile(r"^https?://(?:www\.)?sourceforge\.net/p/([\w.-]+)/([\w.-]+)/(\d+)/?(?:[?#].*)?$")
_META_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([\w.:-]+)", re.I)


def handles(url: str) -> bool:
    return bool(_URL.match(url))


def fetch(url: str) -> IssueText:
    """The ticket at *url*: summary, description, fields and the discussion's comments."""
    match = _URL.match(url)
    if not match:
        raise ValueError(f"{url}: not a SourceForge ticket URL")
    project, tool, number = match.groups()
    page_url = f"{base_url(URL_ENV, DEFAULT_URL)}/p/{project}/{tool}/{number}/"
    http = shared()
    with recording() as exchanges:
        try:
            soup = _page(http, page_url)
            if isinstance(soup, int):
                return _missing_or_error(url, soup, exchanges)
            ticket = _ticket(soup, number)
            if ticket is None:
                log.warning("%s: the page has no ticket #%s title", url, number)
                return missing(url, TRACKER, UNPARSEABLE, exchanges)
            posts = _posts(soup)
            for extra in _other_pages(soup, page_url):
                more = _page(http, extra)
                if isinstance(more, int):
                    return _missing_or_error(url, more, exchanges)
                posts.update(_posts(more))
        except requests.RequestException as exc:
            raise unavailable(url, f"{type(exc).__name__}: {exc}", exchanges) from None
    title, description, fields = ticket
    return IssueText(
        url=url,
        title=title,
        description=description,
        comments=[p[2] for p in posts.values()],
        tracker=TRACKER,
        status=fields.get("Status", ""),
        author=fields.get("Creator", ""),
        created=fields.get("Created", ""),
        updated=fields.get("Updated", ""),
        comment_authors=[p[0] for p in posts.values()],
        comment_created=[p[1] for p in posts.values()],
        fetched_at=fetched_at(exchanges),
    )


def _missing_or_error(url: str, status: int, exchanges) -> IssueText:
    if status in MISSING_STATUSES:
        return missing(url, TRACKER, MISSING_STATUSES[status], exchanges)
    raise unavailable(url, f"HTTP {status}", exchanges)


def _page(http, url: str) -> BeautifulSoup | int:
    """The parsed page, or its status when it is not a 200."""
    response = http.get(url)
    if response.status_code != 200:
        return response.status_code
    declared = requests.utils.get_encoding_from_headers(response.headers)
    if declared == "ISO-8859-1" and "charset" not in response.headers.get("Content-Type", "").lower():
        declared = None  # requests' default for text/*, not something the server said
    if declared is None:
        meta = _META_CHARSET.search(response.content[:4096])
        declared = meta.group(1).decode("ascii") if meta else None
    return BeautifulSoup(decode_bytes(response.content, declared), "html.parser")


def _ticket(soup: BeautifulSoup, number: str) -> tuple[str, str, dict[str, str]] | None:
    heading = soup.select_one("h2.dark.title span") or soup.select_one("h2.title") or soup.title
    text = " ".join(heading.get_text(" ").split()) if heading else ""
    found = re.search(rf"#{number}\s+(.*)$", text)
    if not found:
        return None
    content = soup.select_one("#ticket_content")
    if content is not None:
        for attachments in content.select(".attachment_thumb, .attachment_holder"):
            attachments.decompose()
        body = content.select_one(".markdown_content") or content
    description = html_to_text(body) if content is not None else ""
    return found.group(1).strip(), description, _fields(soup)


def _fields(soup: BeautifulSoup) -> dict[str, str]:
    fields = {}
    for label in soup.select(".view_holder label.simple"):
        name = label.get_text().strip().rstrip(":").strip()
        holder = label.parent
        dated = holder.find("span", title=True)
        if name in ("Created", "Updated") and dated is not None:
            fields[name] = _allura_date(dated["title"])
            continue
        value = next((t for t in label.find_all_next(string=True) if t.strip() and t.parent is not label), None)
        fields[name] = " ".join(value.split()) if value is not None and holder in value.parents else ""
    return fields


def _allura_date(title: str) -> str:
    try:
        moment = datetime.strptime(title.strip(), "%a %b %d, %Y %I:%M %p UTC").replace(tzinfo=timezone.utc)
    except ValueError:
        return title.strip()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _posts(soup: BeautifulSoup) -> dict[str, tuple[str, str, str]]:
    """Comment id → (author, date, text), in page order."""
    posts = {}
    for index, post in enumerate(soup.select("#comment .discussion-post")):
        if "meta_post" in (post.get("class") or []):
            continue
        header = post.select_one(".header")
        author = header.find("a") if isinstance(header, Tag) else None
        dated = header.find("span", title=True) if isinstance(header, Tag) else None
        body = post.select_one(".display_post .markdown_content") or post.select_one(".display_post")
        posts[post.get("id") or f"post-{index}"] = (
            author.get_text().strip() if author else "",
            _allura_date(dated["title"]) if dated else "",
            html_to_text(body),
        )
    return posts


def _other_pages(soup: BeautifulSoup, page_url: str) -> list[str]:
    """The discussion's further pages (``?page=N``) that the page list links to, in order."""
    pages = {}
    for link in soup.select(".page_list a[href]"):
        target = urljoin(page_url, link["href"])
        query = dict(parse_qsl(urlsplit(target).query))
        if query.get("page", "").isdigit() and int(query["page"]) > 0:
            pages[int(query["page"])] = f"{page_url}?{urlencode(sorted(query.items()))}"
    return [pages[n] for n in sorted(pages)][:MAX_COMMENT_PAGES]
