"""A git history written here: files committed on a fixed date, for builders that read a repository's history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def committed(history: Path, files: dict[str, str], message: str = "upstream", tag: str = "") -> str:
    """*files* written into *history* and committed (dated 2024-03-01, a new history where there is none, an empty
    commit where *files* is), tagged *tag* when one is given; the commit's id."""
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
    history.mkdir(parents=True, exist_ok=True)
    steps = [] if (history / ".git").exists() else [["init", "--quiet"]]
    steps += [["add", "."], ["commit", "--quiet", "--allow-empty", "-m", message]]
    steps += [["tag", tag]] if tag else []
    for argv in steps:
        subprocess.run(["git", "-C", str(history), *argv], check=True, env=dated)
    return subprocess.run(
        ["git", "-C", str(history), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
