"""Lombok, expanded once when a workspace is made.

Every compile of the harness runs with ``-proc:none``: no annotation processor runs while candidates are
compiled. A module whose sources use Lombok (``@Getter``, ``@Data``, ``@Builder``) compiles only with its
processor, so its trusted sources are expanded once, by Lombok's own ``delombok``, with the jar its class
path has, or Debian's where that is newer: the tree then compiles as plain Java. (A pom's Lombok 1.18.20, which the
central class path brings at the version the pom names, predates Java 17 and expands a plain ``switch`` into one
with two ``default`` labels there.) A candidate is compiled as written, Lombok annotations
unexpanded: a task whose class uses Lombok cannot be judged, and its gold says so by failing to compile.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.toolchain import JAVA_RELEASE, jdk_for

_LOMBOK_JAR = re.compile(r"^lombok-(?P<version>\d[\w.\-]*)\.jar$")
DEBIAN_LOMBOK = Path("/usr/share/maven-repo/org/projectlombok/lombok")
_USES_LOMBOK = re.compile(r"^\s*import\s+lombok\.", re.M)
DELOMBOK_SECONDS = 900


def lombok_jar(libraries: list[str]) -> str | None:
    """The Lombok that expands a module whose class path has one: the newest of that one and Debian's."""
    own = [jar for jar in libraries if _LOMBOK_JAR.match(Path(jar).name)]
    if not own:
        return None
    debian = [str(j) for j in DEBIAN_LOMBOK.glob("*/lombok-*.jar") if _LOMBOK_JAR.match(j.name) and j.is_file()]
    return max([own[0], *debian], key=_version)


def _version(jar: str) -> tuple[int, ...]:
    match = _LOMBOK_JAR.match(Path(jar).name)
    return tuple(int(part) for part in re.findall(r"\d+", match["version"])[:3]) if match else ()


def delombok(
    module: Path,
    main_roots: list[str],
    test_roots: list[str],
    libraries: list[str],
    encoding: str = "UTF-8",
    release: str = JAVA_RELEASE,
) -> list[str]:
    """Expand Lombok in place in *module*'s source roots (relative folders, as the Maven model gives them), main then
    test; the roots expanded (none without a Lombok jar on the class path or a file importing it). Each root's output
    is logged beside *module*. It runs on the JDK that compiles *release*: delombok parses with that JVM's javac."""
    jar = lombok_jar(libraries)
    if jar is None:
        return []
    expanded = []
    for folder in [*main_roots, *test_roots]:
        sources = module / folder
        if (
            not _below(folder)
            or not sources.is_dir()
            or not any(
                _USES_LOMBOK.search(p.read_text(encoding=encoding, errors="replace")) for p in sources.rglob("*.java")
            )
        ):
            continue
        # the other roots a root's code refers to: a main root's sibling roots; a test root's, and every main root
        others = [r for r in (main_roots if folder in main_roots else [*main_roots, *test_roots]) if r != folder]
        sourcepath = [str(module / r) for r in others if _below(r) and (module / r).is_dir()]
        name = "delombok-" + folder.replace("/", "-")
        out, log_path = module.parent / name, module.parent / f"{name}.log"
        shutil.rmtree(out, ignore_errors=True)
        command = [
            jdk_for(release).java,
            "-jar",
            jar,
            "delombok",
            str(sources),
            "-d",
            str(out),
            f"--classpath={':'.join(libraries)}",
            f"--encoding={encoding}",
        ]
        if sourcepath:
            command.append(f"--sourcepath={':'.join(sourcepath)}")
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=DELOMBOK_SECONDS)
        except subprocess.TimeoutExpired:
            raise BenchsmithError(f"{sources}: Lombok's delombok took over {DELOMBOK_SECONDS}s") from None
        log_path.write_text(completed.stdout + completed.stderr)
        # delombok reports the type errors of code it cannot resolve (a dependency Debian has in another version) and
        # still writes every file: those are left to the compile, which leaves out what does not build
        if not out.is_dir() or len(list(out.rglob("*.java"))) != len(list(sources.rglob("*.java"))):
            # the log goes with the failed build's folder: its first error travels in the message
            first = next(
                (line for line in log_path.read_text().splitlines() if "error" in line.lower()), "no error shown"
            )
            raise BenchsmithError(f"{sources}: Lombok's delombok did not write every file: {first.strip()[:300]}")
        shutil.rmtree(sources)
        out.rename(sources)
        expanded.append(folder)
    return expanded


def _below(folder: str) -> bool:
    """Whether *folder* is a folder below the module's copy, which can be replaced whole: a root outside it
    (``../shared/src``) is not copied here, and the module's own folder (``${basedir}``) holds its pom."""
    parts = Path(folder).parts
    return bool(parts) and not Path(folder).is_absolute() and ".." not in parts
