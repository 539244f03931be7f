"""Paraphrase a real Java repository and run its own JUnit 4 tests before and after (the RepoClassBench paper's check).

By hand (Apache Commons CLI from its local mirror; the ``fetch`` tool brings it)::

    .venv/bin/python tests/paraphrase/realcheck_java.py /work/.mirror/apache+commons-cli/repo \\
        commons-cli-1.5.0 org.apache.commons.cli.Options,org.apache.commons.cli.Option,... --work /tmp/clicheck

It clones the mirror at the tag, compiles ``src/main/java`` and ``src/test/java`` with javac
against Debian's JUnit 4 and Hamcrest, runs the test classes (``*Test``, ``Test*``,
``*Tests``, ``*TestCase``) with a listener that prints each passing test, paraphrases the
clone with :func:`paraphrase_java_repository`, and runs the same in the copy. It prints
one JSON object: tests passing before, still passing after, the ratio, names flipped and
exclusions by rule. The fixture test (test_java.py) uses the same build-and-run helpers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchsmith.paraphrase.java import paraphrase_java_repository  # noqa: E402

JUNIT4 = [Path("/usr/share/java/junit4.jar"), Path("/usr/share/java/hamcrest.jar")]
RUNNER = Path(__file__).with_name("java") / "PassingTests.java"
_TEST_CLASS = re.compile(r"(^Test.*|.*Tests?|.*TestCase)$")


class BuildFailed(RuntimeError):
    pass


def _javac(sources: list[Path], output: Path, classpath: list[Path], release: str | None) -> None:
    output.mkdir(parents=True, exist_ok=True)
    listing = output.with_suffix(".sources")
    listing.write_text("\n".join(str(s) for s in sources) + "\n")
    command = [
        "javac",
        "-nowarn",
        "-encoding",
        "UTF-8",
        "-proc:none",
        "-d",
        str(output),
        "-cp",
        os.pathsep.join(map(str, classpath)) or ".",
        f"@{listing}",
    ]
    if release:
        command[1:1] = ["--release", release]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise BuildFailed(completed.stdout[-3000:] + completed.stderr[-3000:])


def test_classes(repo: Path) -> list[str]:
    """The JUnit test classes of ``src/test/java`` by Maven Surefire's default name patterns."""
    names = []
    for path in sorted((repo / "src/test/java").rglob("*.java")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if (
            _TEST_CLASS.match(path.stem)
            and ("@Test" in text or "TestCase" in text)
            and not re.search(rf"abstract\s+class\s+{re.escape(path.stem)}\b", text)
        ):
            names.append(path.relative_to(repo / "src/test/java").with_suffix("").as_posix().replace("/", "."))
    return names


def build_and_test(repo: Path, work: Path, jars: list[Path] = JUNIT4, release: str | None = None) -> set[str]:
    """Compile main and test sources of a Maven-layout *repo* into *work*; the ``Class#method`` ids that pass."""
    repo, work = repo.resolve(), work.resolve()  # the tests run in the repository: class path entries absolute
    shutil.rmtree(work, ignore_errors=True)
    main, tests, runner = work / "classes", work / "test-classes", work / "runner"
    _javac(sorted((repo / "src/main/java").rglob("*.java")), main, jars, release)
    _javac(sorted((repo / "src/test/java").rglob("*.java")), tests, [main, *jars], release)
    _javac([RUNNER], runner, jars, None)
    resources = [d for d in (repo / "src/main/resources", repo / "src/test/resources") if d.is_dir()]
    classpath = [tests, main, *resources, *jars, runner]
    completed = subprocess.run(
        ["java", "-Xmx512m", "-cp", os.pathsep.join(map(str, classpath)), "PassingTests", *test_classes(repo)],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    return {line.split("\t", 1)[1] for line in completed.stdout.splitlines() if line.startswith("PASS\t")}


def check(
    mirror: Path,
    tag: str,
    classes: list[str],
    work: Path,
    seed: int = 0,
    jars: list[Path] = JUNIT4,
    release: str | None = None,
) -> dict:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    clone = work / "original"
    subprocess.run(["git", "clone", "-q", str(mirror), str(clone)], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", tag], cwd=clone, check=True)
    before = build_and_test(clone, work / "build-before", jars, release)
    started = time.monotonic()
    report = paraphrase_java_repository(clone, classes, work / "flipped", seed, classpath=jars, release=release)
    seconds = time.monotonic() - started
    after = build_and_test(work / "flipped", work / "build-after", jars, release)
    (work / "report.json").write_text(report.to_json())
    return {
        "repository": f"{mirror} @ {tag}",
        "classes": classes,
        "passed_before": len(before),
        "still_passing": len(before & after),
        "ratio": round(len(before & after) / len(before), 4) if before else None,
        "lost": sorted(before - after)[:20],
        "names_requested": report.requested,
        "flipped": len(report.mapping),
        "excluded_by_rule": report.exclusion_counts,
        "files_changed": len(report.files_changed),
        "files_renamed": report.files_renamed,
        "renamed_occurrences": report.renamed_occurrences,
        "paraphrase_seconds": round(seconds, 1),
        "report": str(work / "report.json"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirror", type=Path, help="a git repository (bare mirror) to clone")
    parser.add_argument("tag")
    parser.add_argument("classes", help="fully qualified top-level classes, comma-separated")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--release")
    args = parser.parse_args()
    result = check(args.mirror, args.tag, args.classes.split(","), args.work, args.seed, release=args.release)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
