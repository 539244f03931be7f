"""A git history written here: files committed once, on a fixed date, for builders that read a repository's history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def committed(history: Path, files: dict[str, str]) -> str:
    """*files* as the one commit (dated 2024-03-01) of a new git history at *history*; its id."""
    for path, text in files.items():
        (history / path).parent.mkdir(parents=True, exist_ok=True)
        (history / path).write_text(text)
    dated = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-03-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-03-01T00:00:00Z",
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@b",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@b",
    }
    for argv in (["init", "--quiet"], ["add", "."], ["commit", "--quiet", "-m", "upstream"]):
        subprocess.run(["git", "-C", str(history), *argv], check=True, env=dated)
    return subprocess.run(
        ["git", "-C", str(history), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
