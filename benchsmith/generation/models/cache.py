"""Model answers on disk, so that a rerun sends no request and costs nothing.

An entry is keyed by the sha256 of the canonical JSON of everything that
decides the answer: the endpoint (host and path, never credentials), the
model, the messages, n, temperature, max_tokens and the kind of call (chat or
embed). Answers sampled at a temperature above zero are cached too: a rerun
reproduces the same samples rather than drawing new ones (``--no-cache``
draws afresh and overwrites the entries).

Each entry is one JSON file holding the request and the response; it is
written atomically, and one that cannot be read back is an error naming the
file, never a silent miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)
FORMAT = 1


def endpoint_identity(url: str) -> str:
    """Host (with port) and path of *url*: user names, passwords and query strings stay out of keys and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{host}{parts.path.rstrip('/')}"


def canonical_json(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(payload: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


class AnswerCache:
    """The entries of one backend, under ``cache_dir("models", backend_name)``."""

    def __init__(self, backend_name: str) -> None:
        self.backend_name = backend_name

    def path(self, key: str) -> Path:
        # Two-level fan-out keeps directories small for runs of many thousand requests.
        return cache_dir("models", self.backend_name, key[:2]) / f"{key}.json"

    def get(self, payload: Mapping[str, Any], fields: Mapping[str, type] | None = None) -> dict[str, Any] | None:
        """The cached response for *payload*, or None (logged) when there is none.

        *fields* names what the response must hold, and of which type; an entry
        lacking one is corrupt.
        """
        key = cache_key(payload)
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            log.debug("model cache miss: %s %s (%s)", payload.get("kind"), payload.get("model"), key[:12])
            return None
        try:
            entry = json.loads(text)
        except ValueError as exc:
            raise BenchsmithError(f"{path}: corrupt model cache entry (not JSON: {exc}); delete it to re-ask") from None
        if (
            not isinstance(entry, dict)
            or entry.get("format") != FORMAT
            or not isinstance(entry.get("response"), dict)
            or entry.get("request") != json.loads(canonical_json(payload))
        ):
            raise BenchsmithError(f"{path}: corrupt model cache entry (wrong format or request); delete it to re-ask")
        response = entry["response"]
        for name, kind in (fields or {}).items():
            if not isinstance(response.get(name), kind):
                problem = f"no {kind.__name__} {name!r}"
                raise BenchsmithError(f"{path}: corrupt model cache entry ({problem}); delete it to re-ask")
        return response

    def put(self, payload: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        entry = {"format": FORMAT, "request": payload, "response": response}
        write_text_atomic(self.path(cache_key(payload)), canonical_json(entry) + "\n")
