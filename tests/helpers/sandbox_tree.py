"""Trees of Python files for tests whose runs are sandboxed: scratch folders the sandbox user can reach (pytest's own
temporary folders are private to root) and a writer of small source trees."""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path


def reachable_scratch(prefix: str) -> Iterator[Path]:
    """A scratch folder under BENCHSMITH_CACHE that the sandbox user can walk, removed afterwards (a fixture body)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ["BENCHSMITH_CACHE"]))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """*files* (path → dedented text) written under *root*, which the sandbox user can read."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    root.chmod(0o755)
    return root
