"""Version files a build writes from git (setuptools-scm, hatch-vcs, pdm): an exported tree gets them, so a package
that imports its own version file imports from the task's copy."""

import subprocess
import sys
import textwrap
from pathlib import Path

from benchsmith.sources.python import repo as python_repo
from benchsmith.sources.scm_version import declared_version_files, version_tuple, write_version_files
from tests.helpers.git_history import committed


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_each_build_tool_declares_its_file(tmp_path):
    scm = write(tmp_path / "scm", {"pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "src/kettle/_version.py"\n'})
    scm8 = write(
        tmp_path / "scm8",
        {
            "pyproject.toml": '[tool.setuptools_scm]\nversion_file = "kettle/_v.py"\n'
            'version_file_template = "V = {version!r}"\n'
        },
    )
    hatch = write(
        tmp_path / "hatch", {"pyproject.toml": '[tool.hatch.build.hooks.vcs]\nversion-file = "kettle/_v.py"\n'}
    )
    pdm = write(
        tmp_path / "pdm", {"pyproject.toml": '[tool.pdm.version]\nsource = "scm"\nwrite_to = "kettle/VERSION"\n'}
    )
    setup = write(
        tmp_path / "setup",
        {"setup.py": 'from setuptools import setup\nsetup(use_scm_version={"write_to": "kettle/version.py"})\n'},
    )
    plain = write(tmp_path / "plain", {"pyproject.toml": "[tool.setuptools_scm]\n", "setup.py": "setup()\n"})
    assert declared_version_files(scm) == {"src/kettle/_version.py": ""}
    assert declared_version_files(scm8) == {"kettle/_v.py": "V = {version!r}"}
    assert declared_version_files(hatch) == {"kettle/_v.py": ""}
    assert declared_version_files(pdm) == {"kettle/VERSION": ""}
    assert declared_version_files(setup) == {"kettle/version.py": ""}
    assert declared_version_files(plain) == {}
    (scm8 / "kettle").mkdir()
    assert write_version_files(scm8, "1.0") == ["kettle/_v.py"]
    assert (scm8 / "kettle/_v.py").read_text() == "V = '1.0'\n"


def test_written_files_import_as_setuptools_scm_would_have_written_them(tmp_path):
    tree = write(
        tmp_path / "tree",
        {
            "pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "src/kettle/_version.py"\n',
            "src/kettle/__init__.py": "from ._version import version as __version__, version_tuple\n",
            "plain/pyproject.toml": '[tool.hatch.build.hooks.vcs]\nversion-file = "VERSION.txt"\n',
        },
    )
    assert write_version_files(tree, "7.2.0.dev0") == ["src/kettle/_version.py"]
    shown = subprocess.run(
        [sys.executable, "-c", "import kettle; print(kettle.__version__, kettle.version_tuple)"],
        cwd=tree / "src",
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.split(None, 1) == ["7.2.0.dev0", "(7, 2, 0, 'dev0')\n"]
    assert write_version_files(tree, "9.9") == []  # an existing file is the tree's own: never replaced
    assert write_version_files(tree / "plain", "") == ["VERSION.txt"]
    assert (tree / "plain/VERSION.txt").read_text() == "0.1.dev0\n"
    assert version_tuple("2.15.0+g1234") == (2, 15, 0, "g1234")


def test_a_path_outside_the_tree_is_not_written(tmp_path):
    tree = write(tmp_path / "tree", {"pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "../escaped.py"\n'})
    assert write_version_files(tree, "1.0") == []
    assert not (tmp_path / "escaped.py").exists()


def test_a_tree_exported_from_git_imports_its_version_file(tmp_path):
    history = write(
        tmp_path / "kettle-history",
        {  # its own cache key: a source tree is cached per name and commit
            "pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "src/kettle/_version.py"\n',
            "src/kettle/__init__.py": "from kettle._version import version\n",
            ".gitignore": "src/kettle/_version.py\n",
        },
    )
    committed(history, {}, "one", tag="v3.4.5")
    _, tree, _ = python_repo.source_tree(str(history), "HEAD")
    shown = subprocess.run(
        [sys.executable, "-c", "import kettle; print(kettle.version)"], cwd=tree / "src", capture_output=True, text=True
    )
    assert shown.stdout.strip() == "3.4.5", shown.stderr
