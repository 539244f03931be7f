"""What a revision's own Ant build (``build.xml``) adds to Defects4J's layout, read rather than run.

Defects4J builds its Ant-era projects with their own build files. Two things those files do that a javac over
Defects4J's source folder misses: compile more source folders into the same classes (Closure's generated protocol
buffers, ``gen/``), and make a library from sources kept in the tree, its packages renamed by jarjar (Closure, 2012
on: Rhino from ``lib/rhino``, renamed to ``com.google.javascript.rhino.head``). Nothing of the build file runs: its
``<property>``, ``<javac>``, ``<ant>`` and ``<jarjar>`` elements are read, and the renaming is done on the library's
sources before javac compiles them (what jarjar does to the classes: the package and every name and string that
spells it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import tempfile
import xml.etree.ElementTree as ElementTree
import zipfile
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)

_PROPERTY = re.compile(r"\$\{([^}]+)\}")
RELOCATED_FORMAT = 1  # bump when the way a relocated library is made changes


class AntBuild:
    """The ``build.xml`` at the root of *tree*, parsed, with its own ``<property>`` values (none: no such file)."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree
        script = tree / "build.xml"
        try:
            self.root = ElementTree.parse(script).getroot() if script.is_file() else None
        except (ElementTree.ParseError, OSError):
            self.root = None
        self.properties = {"basedir": "."}
        for element in self.root.iter("property") if self.root is not None else []:
            name, value = element.get("name"), element.get("value") or element.get("location")
            if name and value is not None and name not in self.properties:  # Ant's first definition wins
                self.properties[name] = self.filled(value)

    def filled(self, text: str) -> str:
        for _ in range(10):  # properties made of properties, a few deep
            text = _PROPERTY.sub(lambda m: self.properties.get(m[1], m[0]), text)
        return text

    def relative(self, path: str) -> str | None:
        """*path* with its properties filled, relative to the tree; None when it leaves the tree or names a property
        the file does not define (one set on Ant's command line)."""
        text = self.filled(path).strip()
        if "${" in text:
            return None
        resolved, top = (self.tree / text).resolve(), self.tree.resolve()
        return resolved.relative_to(top).as_posix() if resolved.is_relative_to(top) else None

    def source_dirs(self) -> list[list[str]]:
        """The source folders of each output folder: every ``<javac>`` that writes into one, with its ``srcdir`` and
        nested ``<src>`` paths."""
        groups: dict[str, list[str]] = {}
        for javac_element in self.root.iter("javac") if self.root is not None else []:
            paths = re.split(r"[,:;]", javac_element.get("srcdir") or "")
            for src in javac_element.iter("src"):
                paths += re.split(r"[:;]", src.get("path") or "")
                paths += [p.get("location") or p.get("path") or "" for p in src.iter("pathelement")]
            folders = [f for f in (self.relative(p) for p in paths if p.strip()) if f is not None]
            output = self.relative(javac_element.get("destdir") or "") if javac_element.get("destdir") else None
            if folders and output is not None:
                group = groups.setdefault(output, [])
                group.extend(f for f in folders if f not in group)
        return list(groups.values())

    def copied_resources(self, source_dir: str) -> list[tuple[str, str]]:
        """The files the build copies into the classes of *source_dir* (``<copy file=... todir=...>`` into the output
        of the ``<javac>`` that compiles it): (the file, where it goes inside those classes), relative paths. Closure
        puts ``rhino/Messages.properties`` at ``rhino_ast/java/com/google/javascript/rhino/``, where its code looks
        it up."""
        outputs = [
            self.relative(j.get("destdir") or "")
            for j in (self.root.iter("javac") if self.root is not None else [])
            if j.get("destdir")
            and source_dir.rstrip("/")
            in [self.relative(p) for p in re.split(r"[,:;]", j.get("srcdir") or "") if p.strip()]
        ]
        found = []
        for output in {o for o in outputs if o}:
            for copy in self.root.iter("copy"):
                source, into = copy.get("file"), copy.get("todir")
                if not source or not into:
                    continue
                source_path, target = self.relative(source), self.relative(into)
                if source_path is None or target is None or not (target == output or target.startswith(output + "/")):
                    continue
                inside = target[len(output) :].strip("/")
                found.append((source_path, f"{inside}/{Path(source_path).name}" if inside else Path(source_path).name))
        return found

    def relocations(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Each library the build makes from a folder of its tree and renames with jarjar: (that folder, its
        renamings as (package, new package)). Only ``pattern="a.b.**"``, ``result="c.d.@1"`` rules, which rename a
        package and its subpackages; a jarjar the build runs with any other rule is an error naming it."""
        if self.root is None:
            return []
        targets = {t.get("name"): t for t in self.root.iter("target")}
        found = []
        for target in targets.values():
            for jarjar in target.iter("jarjar"):
                renamings = []
                for rule in jarjar.iter("rule"):
                    pattern, result = rule.get("pattern") or "", rule.get("result") or ""
                    if not (pattern.endswith(".**") and result.endswith(".@1")):
                        raise BenchsmithError(
                            f"{self.tree / 'build.xml'}: jarjar rule {pattern} → {result} is not a package's renaming"
                        )
                    renamings.append((pattern[: -len(".**")], result[: -len(".@1")]))
                # the library's own build: an <ant dir=...> in this target or one it depends on
                names = [target.get("name"), *re.split(r"\s*,\s*", target.get("depends") or "")]
                folders = [
                    self.relative(call.get("dir") or "")
                    for name in names
                    if name in targets
                    for call in targets[name].iter("ant")
                    if call.get("dir")
                ]
                folder = next((f for f in folders if f and (self.tree / f / "src").is_dir()), None)
                if renamings and folder is not None:
                    found.append((folder, renamings))
        return found


def ant_source_dirs(tree: Path) -> list[list[str]]:
    """The source folders of each output folder of the Ant build at *tree*, relative to it (:meth:`AntBuild.
    source_dirs`); empty without a build file that can be read."""
    return AntBuild(tree).source_dirs()


def relocated_libraries(tree: Path, release: str) -> list[Path]:
    """The jars the Ant build at *tree* makes from libraries kept in its tree, their packages renamed as its jarjar
    renames them; each made once per library's sources (and shared by every revision that holds the same ones)."""
    from benchsmith.runners.java.toolchain import javac

    made = []
    for folder, renamings in AntBuild(tree).relocations():
        sources = tree / folder / "src"
        files = sorted(p for p in sources.rglob("*") if p.is_file())
        digest = hashlib.sha256(f"{RELOCATED_FORMAT}\0{release}\0{renamings}".encode())
        for path in files:
            digest.update(path.relative_to(sources).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        home = cache_dir("relocated-libraries")
        home.chmod(0o755)  # read by the test JVMs, as Defects4J's own lib/ is
        jar = home / f"{Path(folder).name}-{digest.hexdigest()[:16]}.jar"
        if not jar.is_file():
            log.info("compiling %s with its packages renamed (%s)", tree / folder, renamings)
            with tempfile.TemporaryDirectory(prefix="relocating-", dir=home) as scratch:
                renamed, classes = Path(scratch) / "src", Path(scratch) / "classes"
                for path in files:
                    target = renamed / _renamed_path(path.relative_to(sources).as_posix(), renamings)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = path.read_bytes()
                    if path.suffix in (".java", ".properties"):
                        data = _renamed_text(data.decode("utf-8", errors="surrogateescape"), renamings).encode(
                            "utf-8", errors="surrogateescape"
                        )
                    target.write_bytes(data)
                log_path = Path(scratch) / "compile.log"
                if not javac(sorted(renamed.rglob("*.java")), [], classes, log_path, release=release):
                    errors = [line for line in log_path.read_text(errors="replace").splitlines() if ": error: " in line]
                    raise BenchsmithError(
                        f"{tree / folder}: the library the Ant build renames does not compile: "
                        f"{errors[0].strip()[:300] if errors else 'javac failed'}"
                    )
                for path in renamed.rglob("*.properties"):  # its own build copies them beside the classes
                    target = classes / path.relative_to(renamed)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, target)
                building = Path(scratch) / jar.name
                with zipfile.ZipFile(building, "w", zipfile.ZIP_DEFLATED) as archive:
                    for path in sorted(classes.rglob("*")):
                        if path.is_file():
                            archive.write(path, path.relative_to(classes).as_posix())
                os.chmod(building, 0o644)
                building.rename(jar)
        made.append(jar)
    return made


def _renamed_path(path: str, renamings: list[tuple[str, str]]) -> str:
    for old, new in renamings:
        prefix = old.replace(".", "/") + "/"
        if path.startswith(prefix):
            return new.replace(".", "/") + "/" + path[len(prefix) :]
    return path


def _renamed_text(text: str, renamings: list[tuple[str, str]]) -> str:
    """*text* with each package renamed wherever it is spelled, dotted or slashed (names, imports, and the strings
    that name classes or resources, as jarjar renames them in the classes)."""
    for old, new in renamings:
        for separator in (".", "/"):
            spelled = re.escape(old).replace(r"\.", re.escape(separator))
            text = re.sub(rf"(?<![\w.$/]){spelled}(?![\w$])", new.replace(".", separator), text)
    return text
