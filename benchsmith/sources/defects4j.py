"""Reading a Defects4J checkout's metadata (``framework/projects/<P>/...``)."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError

# The Defects4J-NL2Fix paper, Table 1.
PAPER_PROJECTS = (
    "Chart",
    "Cli",
    "Codec",
    "Collections",
    "Compress",
    "Csv",
    "JacksonCore",
    "JacksonDatabind",
    "JacksonXml",
    "JxPath",
    "Math",
    "Mockito",
)

_ACTIVE_BUGS_HEADER = ["bug.id", "revision.id.buggy", "revision.id.fixed", "report.id", "report.url"]
_COMMIT_DATES_HEADER = ["bug.id", "revision.id.fixed", "commit.date"]


@dataclass(frozen=True)
class Bug:
    project: str
    bug_id: int
    revision_buggy: str
    revision_fixed: str
    report_id: str
    report_url: str


class Defects4JRoot:
    """A Defects4J checkout, the D4J_ROOT every command's --defects4j names."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.projects_dir = self.root / "framework" / "projects"
        if not self.projects_dir.is_dir():
            raise BenchsmithError(f"{self.root}: not a Defects4J root (no framework/projects/ folder)")
        self._layouts: dict[str, dict[str, tuple[str, str]]] = {}

    def available_projects(self) -> list[str]:
        return sorted(p.name for p in self.projects_dir.iterdir() if (p / "active-bugs.csv").is_file())

    def resolve_projects(self, requested: str | None) -> list[str]:
        """``None`` means the paper's twelve, ``all`` every project; else a comma-separated list."""
        available = self.available_projects()
        if requested is None:
            wanted = [p for p in PAPER_PROJECTS if p in available]
        elif requested.strip() == "all":
            wanted = available
        else:
            wanted = [p.strip() for p in requested.split(",") if p.strip()]
        unknown = [p for p in wanted if p not in available]
        if unknown:
            raise BenchsmithError(
                f"{self.projects_dir}: unknown project(s) {', '.join(unknown)}; known: {', '.join(available)}"
            )
        if not wanted:
            raise BenchsmithError(f"{self.projects_dir}: no projects selected")
        return wanted

    def project_dir(self, project: str) -> Path:
        return self.projects_dir / project

    def bugs(self, project: str) -> list[Bug]:
        path = self.project_dir(project) / "active-bugs.csv"
        try:
            with path.open(newline="", encoding="utf-8") as handle:
                rows = list(csv.reader(handle))
        except OSError as exc:
            raise BenchsmithError(f"{path}: cannot read: {exc.strerror}") from exc
        if not rows or rows[0] != _ACTIVE_BUGS_HEADER:
            raise BenchsmithError(f"{path}: header is not {','.join(_ACTIVE_BUGS_HEADER)}")
        bugs = []
        for number, row in enumerate(rows[1:], start=2):
            if len(row) != len(_ACTIVE_BUGS_HEADER) or not row[0].isdigit():
                raise BenchsmithError(f"{path}:{number}: malformed row {','.join(row)!r}")
            bugs.append(Bug(project, int(row[0]), row[1], row[2], row[3], row[4]))
        return bugs

    def patch_path(self, bug: Bug) -> Path:
        return self.project_dir(bug.project) / "patches" / f"{bug.bug_id}.src.patch"

    def trigger_tests(self, bug: Bug) -> list[str]:
        """The failing tests, ``pkg.Class::method``, from the ``--- `` lines of ``trigger_tests/<id>``."""
        path = self.project_dir(bug.project) / "trigger_tests" / str(bug.bug_id)
        text = _read_optional(path)
        return [line[4:].strip() for line in text.splitlines() if line.startswith("--- ")]

    def relevant_tests(self, bug: Bug) -> list[str]:
        path = self.project_dir(bug.project) / "relevant_tests" / str(bug.bug_id)
        return [line.strip() for line in _read_optional(path).splitlines() if line.strip()]

    def layout(self, project: str, revision: str) -> tuple[str, str] | None:
        """The (main source, test source) folders of *revision* from ``dir-layout.csv``, when listed."""
        return self._layout(project).get(revision)

    def _layout(self, project: str) -> dict[str, tuple[str, str]]:
        if project not in self._layouts:
            path = self.project_dir(project) / "dir-layout.csv"
            rows = (line.strip().split(",") for line in _read_optional(path).splitlines())
            self._layouts[project] = {row[0]: (row[1], row[2]) for row in rows if len(row) >= 3}
        return self._layouts[project]

    def broken_tests(self, project: str, revision: str) -> list[str]:
        """Tests Defects4J excludes: those failing on *revision* (``failing_tests/<rev>``) and the flaky ones
        (``dependent_tests``)."""
        listed = _read_optional(self.project_dir(project) / "failing_tests" / revision)
        listed += _read_optional(self.project_dir(project) / "dependent_tests")
        return sorted({line[4:].strip() for line in listed.splitlines() if line.startswith("--- ")})

    def commit_dates(self, project: str) -> dict[int, str]:
        """Bug id → its fix's commit date, from ``commit-dates.csv`` (written by ``nl2fix mine``; Defects4J has
        none)."""
        path = self.project_dir(project) / "commit-dates.csv"
        rows = list(csv.reader(_read_optional(path).splitlines()))
        if rows and rows[0] != _COMMIT_DATES_HEADER:
            raise BenchsmithError(f"{path}: header is not {','.join(_COMMIT_DATES_HEADER)}")
        return {int(row[0]): row[2] for row in rows[1:] if len(row) == 3 and row[0].isdigit()}

    def compile_error_diffs(self, bug: Bug) -> list[tuple[Path, bool]]:
        """The diffs Defects4J applies to a checkout of *bug*'s fixed version before anything else (``compile-errors/
        <name>-<first>-<last>[.optional].diff`` whose range holds the bug's id, or its revision's number for a
        Subversion project: each project's ``_post_checkout``): tests and sources mended to compile and pass on the
        Java Defects4J runs. Each with whether it is optional (applied where it applies), in the order of their
        names."""
        folder = self.project_dir(bug.project) / "compile-errors"
        number = int(bug.revision_fixed) if bug.revision_fixed.isdigit() else bug.bug_id
        found = []
        for path in sorted(folder.glob("*.diff")) if folder.is_dir() else []:
            match = re.search(r"-(\d+)-(\d+)(\.optional)?\.diff$", path.name)
            if match and int(match[1]) <= number <= int(match[2]):
                found.append((path, match[3] is not None))
        return found

    def deprecated_bugs(self, project: str) -> dict[int, str]:
        """Bug id → why Defects4J deprecated it (``deprecated-bugs.csv``: "JVM11.Not.Reproducible", "Duplicate"),
        with the version that did; such a bug is no longer one of its active bugs."""
        path = self.project_dir(project) / "deprecated-bugs.csv"
        rows = list(csv.reader(_read_optional(path).splitlines()))
        if not rows:
            return {}
        header = rows[0]
        if "bug.id" not in header or "deprecated.reason" not in header:
            raise BenchsmithError(f"{path}: no bug.id and deprecated.reason columns in its header")
        at, why = header.index("bug.id"), header.index("deprecated.reason")
        version = header.index("deprecated.version") if "deprecated.version" in header else None
        found = {}
        for row in rows[1:]:
            if len(row) == len(header) and row[at].isdigit():
                since = f" (Defects4J {row[version]})" if version is not None else ""
                found[int(row[at])] = f"deprecated by Defects4J: {row[why]}{since}"
        return found

    def lib_dir(self, project: str) -> Path:
        return self.project_dir(project) / "lib"

    def versioned_lib_dirs(self, project: str) -> list[Path]:
        """Folders of jars besides ``lib/`` that Defects4J's build picks from by the version the revision's own build
        names (Mockito's ``byte-buddy/``, see its chooseDepedencyVersion.sh)."""
        folder = self.project_dir(project)
        return (
            sorted(p for p in folder.iterdir() if p.is_dir() and p.name != "lib" and any(p.glob("*.jar")))
            if folder.is_dir()
            else []
        )

    def resolved_versions(self, project: str, revision: str) -> dict[str, str]:
        """``artifactId → version`` of every jar on the class path Defects4J's Maven resolved for *revision*
        (``build_files/<rev>/maven-build.xml``), transitive ones included: cglib 2.2.2 brings asm 3.3.1, which the
        project's pom never names, and cglib 3.1 brings org.ow2's asm 4.2. Empty where Defects4J keeps none."""
        text = _read_optional(self.project_dir(project) / "build_files" / revision / "maven-build.xml")
        found: dict[str, str] = {}
        for path in re.findall(r'location="\$\{maven\.repo\.local\}/([^"]+\.jar)"', text):
            parts = path.split("/")
            if len(parts) >= 4:
                found.setdefault(parts[-3], parts[-2])
        return found


def _read_optional(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""
