"""Debian's Chromium, headless, driven by Playwright: the real browser the view's tests open sites in.

``playwright install`` downloads a browser of its own; these tests use the system's (``make java`` installs the
``chromium`` package), so nothing is fetched at test time.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",  # as root, Chromium's own sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium() -> Iterator[object]:
    """A fresh headless Chromium with a profile of its own (a Playwright ``BrowserContext``)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM}: no Chromium; `make java` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="benchsmith-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=ARGS, viewport={"width": 1400, "height": 900}
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
