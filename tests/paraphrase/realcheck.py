"""Paraphrase a real PyPI sdist and run its own tests before and after (the RepoClassBench paper's check).

By hand::

    .venv/bin/python tests/paraphrase/realcheck.py more-itertools==10.2.0 --tests tests
    .venv/bin/python tests/paraphrase/realcheck.py cachetools==5.3.2 --tests tests --pythonpath src

It downloads the sdist (``pip download --no-deps --no-binary :all:``), makes a
venv holding pytest, runs the tests with a JUnit report, paraphrases the
unpacked sdist with ``paraphrase_classes`` and runs the tests again in the
copy. It prints one JSON object: tests passing before, still passing after,
the ratio, and the number of names flipped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchsmith.paraphrase.python.run import paraphrase_classes  # noqa: E402
from benchsmith.paraphrase.python.syntax import IDENTIFIER  # noqa: E402


def passed_tests(junit: Path) -> set[str]:
    """Test ids whose JUnit record holds no failure, error or skip."""
    passed = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        if not any(child.tag in ("failure", "error", "skipped") for child in case):
            passed.add(f"{case.get('classname')}::{case.get('name')}")
    return passed


def run_tests(
    python: Path, cwd: Path, tests: list[str], pythonpath: str | None, extra: list[str], junit: Path
) -> set[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = str(cwd / pythonpath)
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *extra, *tests]
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
    if not junit.is_file():
        raise RuntimeError(f"{cwd}: pytest wrote no report ({' '.join(command)})")
    return passed_tests(junit)


def fetch_sdist(spec: str, workdir: Path) -> Path:
    downloads = workdir / "downloads"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            spec,
            "-d",
            str(downloads),
        ],
        check=True,
    )
    archive = next(p for p in downloads.iterdir() if p.name.endswith((".tar.gz", ".tgz")))
    with tarfile.open(archive) as tar:
        tar.extractall(workdir / "src", filter="data")
    return next((workdir / "src").iterdir())


def make_venv(workdir: Path) -> Path:
    venv = workdir / "venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "pytest"], check=True)
    return venv / "bin" / "python"


def check(
    spec: str,
    workdir: Path,
    tests: list[str],
    pythonpath: str | None = None,
    pytest_args: list[str] | None = None,
    seed: int = 0,
    classes: list[str] | None = None,
    strict: bool = False,
) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    source = fetch_sdist(spec, workdir)
    python = make_venv(workdir)
    extra = pytest_args or []
    before = run_tests(python, source, tests, pythonpath, extra, workdir / "before.xml")
    out = workdir / "paraphrased"
    report = paraphrase_classes(source, out, seed=seed, classes=classes, strict=strict)
    reverse = {flipped: name for name, flipped in report.mapping.items()}
    # test ids spell parameters' names too (``test_x[LRU]``): compare them under the original names
    after = {
        IDENTIFIER.sub(lambda m: reverse.get(m.group(0), m.group(0)), test_id)
        for test_id in run_tests(python, out, tests, pythonpath, extra, workdir / "after.xml")
    }
    kept = before & after
    return {
        "package": spec,
        "seed": seed,
        "strict": strict,
        "classes": len(report.classes),
        "identifiers": report.requested,
        "flipped": len(report.mapping),
        "excluded": report.exclusion_counts,
        "files_changed": len(report.files_changed),
        "passed_before": len(before),
        "passed_after": len(after),
        "still_passing": len(kept),
        "ratio": round(len(kept) / len(before), 4) if before else None,
        "newly_failing": sorted(before - after)[:20],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="NAME==VERSION on PyPI")
    parser.add_argument("--tests", nargs="+", default=["tests"], help="test paths inside the sdist")
    parser.add_argument("--pythonpath", help="folder of the sdist to put on PYTHONPATH (src layouts)")
    parser.add_argument("--pytest-args", default="", help="extra pytest arguments, space separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", help="path.py::Class,... (default: every non-test class)")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--workdir", type=Path, default=Path("data/cache/paraphrase-realcheck"))
    args = parser.parse_args(argv)
    workdir = args.workdir / f"{args.spec.replace('==', '-')}-seed{args.seed}{'-strict' if args.strict else ''}"
    if workdir.exists():
        parser.error(f"{workdir} exists; remove it or choose another --workdir")
    result = check(
        args.spec,
        workdir,
        args.tests,
        args.pythonpath,
        args.pytest_args.split(),
        args.seed,
        [args.classes] if args.classes else None,
        args.strict,
    )
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
