"""Java classbench on Maven repositories as a new user brings them: each built from an empty cache, then again warm.

    python bench/maven_repos_table.py --mirrors /work/.mirror --work /tmp/maven-table [--only gson,numbers-fraction]

Each repository is a public git history (``<mirrors>/<owner+name>/repo``, as the ``fetch`` tool lays them out) at a
release tag, one module of it where it is a reactor. Class paths come from Debian's Maven repository
(``make java-extras``; commons-validator, joda-money and jackson-modules-java8 also need ``apt-get install
libcommons-beanutils-java libcommons-digester-java libcommons-collections3-java libjoda-convert-java
libassertj-core-java libjackson2-databind-java``). One row per repository, failures included (the error's last line):
tasks, directives, gold
passing, empty classes failing, main and test classes left out (with the first reason of each kind), declared
dependencies without a jar, sibling modules compiled, sources generated, build seconds cold and warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPOSITORIES = {  # name → (mirror folder, tag, module, test framework, extra build options...)
    "jackson-core": ("FasterXML+jackson-core", "jackson-core-2.12.7", "", "JUnit 4"),
    "jackson-core-2.15": ("FasterXML+jackson-core", "jackson-core-2.15.4", "", "JUnit 4"),
    "jackson-annotations": ("FasterXML+jackson-annotations", "jackson-annotations-2.12.7", "", "JUnit 4"),
    "gson": ("google+gson", "gson-parent-2.10.1", "gson", "JUnit 4"),
    "gson-extras": ("google+gson", "gson-parent-2.10.1", "extras", "JUnit 4"),
    "numbers-fraction": ("apache+commons-numbers", "rel/commons-numbers-1.1", "commons-numbers-fraction", "JUnit 5"),
    "rng-simple": ("apache+commons-rng", "rel/commons-rng-1.5", "commons-rng-simple", "JUnit 5"),
    "jsoup": ("jhy+jsoup", "jsoup-1.15.4", "", "JUnit 5"),
    "commons-text": ("apache+commons-text", "rel/commons-text-1.10.0", "", "JUnit 5"),
    "zxing-core": ("zxing+zxing", "zxing-3.5.1", "core", "JUnit 4"),
    "collections": ("apache+commons-collections", "commons-commons-collections-4.4", "", "JUnit 4"),
    "validator": ("apache+commons-validator", "VALIDATOR_1_7", "", "JUnit 4"),
    "dbutils": ("apache+commons-dbutils", "rel/commons-dbutils-1.8.1", "", "JUnit 4 on the vintage engine"),
    "joda-money": ("JodaOrg+joda-money", "v2.0.0", "", "JUnit 5"),
    # what the one-line error on joda-money asks for: its pom says Java 21, the JDK here is 17
    "joda-money-17": ("JodaOrg+joda-money", "v2.0.0", "", "JUnit 5", "--release", "17"),
    "java8-datetime": ("FasterXML+jackson-modules-java8", "jackson-modules-java8-2.14.0", "datetime", "JUnit 4"),
    "commons-io": ("apache+commons-io", "rel/commons-io-2.11.0", "", "JUnit 5"),
}


def build(
    work: Path, name: str, repo: Path, tag: str, module: str, label: str, extra: tuple[str, ...] = ()
) -> tuple[dict | None, float, str]:
    out = work / f"{name}-{label}.parquet"
    started = time.monotonic()
    argv = [
        sys.executable,
        "-m",
        "benchsmith.cli",
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(repo),
        "--commit",
        tag,
        "--classpath",
        "maven-repo",
        "--out",
        str(out),
        *(["--module", module] if module else []),
        *extra,
    ]
    completed = subprocess.run(
        argv, capture_output=True, text=True, env={**os.environ, "BENCHSMITH_CACHE": str(work / "cache")}
    )
    seconds = time.monotonic() - started
    (work / f"{name}-{label}.log").write_text(completed.stdout + completed.stderr)
    if completed.returncode != 0:
        return None, seconds, (completed.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(out.with_suffix(".card.json").read_text()), seconds, ""


def _first(reasons: dict[str, str]) -> str:
    if not reasons:
        return "0"
    name, why = next(iter(reasons.items()))
    return f"{len(reasons)} (e.g. {name.rsplit('.', 1)[-1]}: {why[:90]})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", default=",".join(REPOSITORIES))
    args = parser.parse_args()
    shutil.rmtree(args.work / "cache", ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.only.split(","):
        folder, tag, module, framework, *extra = REPOSITORIES[name]
        repo = args.mirrors / folder / "repo"
        commit = (
            subprocess.run(
                ["git", "--git-dir", str(repo), "rev-parse", f"{tag}^{{commit}}"], capture_output=True, text=True
            ).stdout.strip()[:12]
            or "?"
        )
        cold, cold_seconds, error = build(args.work, name, repo, tag, module, "cold", tuple(extra))
        warm, warm_seconds, _ = (
            build(args.work, name, repo, tag, module, "warm", tuple(extra)) if cold else (None, 0.0, "")
        )
        where = (
            f"{folder.replace('+', '/')}@{commit} ({tag}{', module ' + module if module else ''}"
            f"{', ' + ' '.join(extra) if extra else ''}; {framework})"
        )
        if cold is None:
            rows.append(
                [where, "-", "-", "-", "-", "-", "-", "-", "-", "-", f"{cold_seconds:.0f} s / -", f"failed: {error}"]
            )
        else:
            checks = cold["solution_checks"].values()
            rows.append(
                [
                    where,
                    cold["tasks"],
                    cold["directives"],
                    f"{sum(c['gold'] == 'plausible' for c in checks)}/{len(checks)}",
                    f"{sum(c['empty'] != 'plausible' for c in checks)}/{len(checks)}",
                    _first(cold["excluded_main_classes"]),
                    _first(cold["excluded_test_classes"]),
                    ", ".join(cold["missing_artifacts"]) or "none",
                    ", ".join(cold["sibling_modules"]) or "-",
                    len(cold["generated_files"]),
                    f"{cold_seconds:.0f} s / {warm_seconds:.0f} s",
                    f"ok; suite {cold['test_suite']}; release {cold['release']}",
                ]
            )
        print(f"{name}: {'done' if cold else 'failed'}", file=sys.stderr, flush=True)
        (args.work / "rows.json").write_text(json.dumps(rows, indent=1))
    header = [
        "repository@commit",
        "tasks",
        "directives",
        "gold passing",
        "empty failing",
        "main classes left out",
        "test classes left out",
        "declared, no jar",
        "siblings compiled",
        "generated files",
        "build cold / warm",
        "outcome",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c).replace("|", "/") for c in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
