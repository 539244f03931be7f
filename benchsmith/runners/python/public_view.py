"""The public view of a task's repository: its pristine tree with the task's class removed, as candidates see it.

A candidate's tests run in a copy-on-write view of this tree, never in the
pristine tree (which holds the ground truth). The view is built once per task
and cached, read-only for everyone but root: the candidate's module and the
test file carrying the sentinels are laid over it per candidate, and whatever
a run writes lands in that run's own layer.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from benchsmith.core.atomic import build_folder_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.python.pytest_run import OWN_CONFIG, has_own_config
from benchsmith.sources.python.removal import remove_class
from benchsmith.sources.python.repo import Repository

# 2: views of a tree exported from git hold the version files its build writes (benchsmith.sources.scm_version)
VIEW_FORMAT = 2
# Never in a view: compiled modules (the pristine module's bytecode is the ground truth), caches, our own markers.
_LEFT_OUT = ("__pycache__", "*.pyc", "*.pyo", ".pytest_cache", ".benchsmith-*", ".git", ".hg", ".tox", ".nox")


def python_public_view(repo: Repository, file_path: str, class_name: str) -> Path:
    """The cached view of *repo* without the module-level class *class_name* of *file_path*; built atomically."""
    module = repo.tree / file_path
    linked = [p for p in [module, *module.parents] if p.is_relative_to(repo.tree) and p.is_symlink()]
    if linked or not module.is_file():  # the view's module is rewritten in place: it must not lead out of the copy
        raise BenchsmithError(f"{repo.key}: {file_path} is not a regular file of the repository (a link, or missing)")
    removed = remove_class(module.read_text(encoding="utf-8", errors="surrogateescape"), class_name, file_path).text
    digest = hashlib.sha256(f"{VIEW_FORMAT}\0{repo.key}\0{file_path}\0{class_name}\0".encode())
    digest.update(_fingerprint(repo.tree).encode() + b"\0" + removed.encode("utf-8", errors="surrogateescape"))
    views = cache_dir("classbench", "views")
    target = views / f"{repo.key}-{class_name}-{digest.hexdigest()[:16]}"

    def build(tree: Path) -> None:
        shutil.copytree(repo.tree, tree, symlinks=True, ignore=shutil.ignore_patterns(*_LEFT_OUT))
        (tree / file_path).unlink()  # a fresh file: the copy's is the pristine one
        (tree / file_path).write_text(removed, encoding="utf-8", errors="surrogateescape")
        if not has_own_config(tree):  # else pytest would adopt a configuration from a folder above the tree
            (tree / OWN_CONFIG).write_text("[pytest]\n")
        _read_only(tree)

    return build_folder_atomic(target, build)


def _fingerprint(tree: Path) -> str:
    """Every file's path, size and modification time: a changed tree (a local folder copied again) is a new view."""
    entries = []
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        for name in sorted(files):
            path = Path(root, name)
            if name == ".benchsmith-complete" or path.is_symlink():
                entries.append(f"{path.relative_to(tree)}")
                continue
            stat = path.stat()
            entries.append(f"{path.relative_to(tree)}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode("utf-8", errors="surrogateescape")).hexdigest()


def _read_only(tree: Path) -> None:
    """Root's, readable by all, writable by none else: the sandbox reads the view and writes only its own layer."""
    is_root = os.geteuid() == 0
    for root, dirs, files in os.walk(tree):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            os.chmod(path, 0o755 if (name in dirs or mode & 0o111) else 0o644)
            if is_root:
                os.chown(path, 0, 0)
    tree.chmod(0o755)
    if is_root:
        os.chown(tree, 0, 0)
