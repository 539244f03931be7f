"""Where benchsmith keeps what it downloads and produces.

Everything lives under one cache root, ``$BENCHSMITH_CACHE`` or ``data/cache``
below the working directory, so a checkout's ``make dataset`` and its tests
share warm caches while staying inside the (gitignored) project tree.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    return Path(os.environ.get("BENCHSMITH_CACHE", "data/cache")).resolve()


def cache_dir(*parts: str) -> Path:
    path = cache_root().joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
