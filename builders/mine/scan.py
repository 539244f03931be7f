"""The history's steps (each commit against its first parent), the issue each references, and what each changes.

A step is a commit of the history taken against its first parent: an ordinary
commit, or a merged pull request as a whole (its merge commit). Its
issue reference comes from its message: a tracker URL, a key of the
repository's Jira project (``CLI-42``), or a GitHub number (``#42``, ``GH-42``,
"fixes #42") of the repository's GitHub project. The trackers are read from the
newest pom's ``<issueManagement>`` and ``<scm>`` unless given.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from benchsmith.core.errors import BenchsmithError
from benchsmith.sources.history import git_dir_of
from benchsmith.sources.java.maven import interpolate

MAIN_ROOT = "src/main/java"
TEST_ROOT = "src/test/java"
# (main, test) source folders, Maven's first, then the older layouts Defects4J's projects had (benchsmith/runners/java/
# defects4j_workspace.py guesses the same when dir-layout.csv does not say)
LAYOUTS = ((MAIN_ROOT, TEST_ROOT), ("src/java", "src/test"), ("source", "tests"), ("src", "test"))
_JIRA_BROWSE = re.compile(r"(https?://[\w.-]+(?:/[\w.-]+)*?/browse)/([A-Z][A-Z0-9_]+)(?:-(\d+))?\b")
_GITHUB = re.compile(r"github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?(?:/|$)")
_GITHUB_URL = re.compile(r"https?://github\.com/([\w.-]+)/([\w.-]+)/(issues|pull)/(\d+)")
_GITHUB_NUMBER = re.compile(r"(?:(?<![\w/&])#|\bGH-)(\d+)\b")
CLONE_TIMEOUT_SECONDS = 1800


@dataclass(frozen=True)
class Trackers:
    """Where the repository's issues live: a Jira project (base URL and key) and a GitHub project, either optional."""

    jira_base: str = ""  # https://issues.apache.org/jira/browse
    jira_key: str = ""  # CLI
    github: str = ""  # owner/name

    def describe(self) -> str:
        parts = [
            f"Jira {self.jira_base}/{self.jira_key}-N" if self.jira_key else "",
            f"GitHub {self.github}" if self.github else "",
        ]
        return ", ".join(p for p in parts if p) or "none (only tracker URLs in messages count)"


@dataclass(frozen=True)
class IssueRef:
    report_id: str  # CLI-42, or the GitHub number
    report_url: str


@dataclass(frozen=True)
class Step:
    """One step of the history: *sha* against *parent*."""

    sha: str
    parent: str
    date: str  # the commit date, ISO 8601
    subject: str
    message: str
    merge: bool
    main_files: tuple[str, ...] = ()  # changed .java files under the main source folder
    test_files: tuple[str, ...] = ()  # added or changed .java files under the test source folder
    other_main: tuple[str, ...] = field(default=())  # changed non-Java files under the main source folder
    layout: tuple[str, str] = (MAIN_ROOT, TEST_ROOT)  # the (main, test) source folders of the fixed revision


def git(git_dir: Path, *args: str) -> str:
    completed = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)
    if completed.returncode != 0:
        last = (completed.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
        raise BenchsmithError(f"{git_dir}: git {' '.join(args[:2])}: {last}")
    return completed.stdout.decode("utf-8", errors="surrogateescape")


def project_name(spec: str) -> str:
    """A Defects4J project name from a repository's URL or path: ``.../apache/commons-cli.git`` → ``CommonsCli``."""
    parts = [p for p in re.split(r"[/:]", spec.rstrip("/")) if p]
    base = parts[-1].removesuffix(".git") if parts else ""
    if base in ("repo", "") and len(parts) > 1:  # a mirror's repo/ folder: name it by its parent
        base = parts[-2]
    base = base.split("+")[-1]
    name = "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", base) if word)
    if not name or not name[0].isalpha():
        raise BenchsmithError(f"--repo {spec}: cannot make a project name of it; give --name")
    return name


def open_repository(spec: str, repos: Path, name: str) -> Path:
    """The git directory of *spec* (a local repository, bare or not, or a URL cloned bare), reachable as
    ``repos/<name>`` so that ``nl2fix build --repos`` and ``validate --repos`` find it."""
    repos.mkdir(parents=True, exist_ok=True)
    link = repos / name
    local = Path(spec).expanduser()
    if local.exists():
        git_dir = git_dir_of(local)
        if git_dir is None:
            raise BenchsmithError(f"--repo {spec}: not a git repository")
        if link.is_symlink() or not link.exists():
            link.unlink(missing_ok=True)
            link.symlink_to(git_dir.resolve())
        return git_dir
    if git_dir_of(link) is not None:
        return git_dir_of(link)
    partial = link.with_name(link.name + ".partial")
    subprocess.run(["rm", "-rf", str(partial)], check=False)
    try:
        completed = subprocess.run(
            ["git", "clone", "--bare", "--quiet", spec, str(partial)],
            capture_output=True,
            text=True,
            timeout=CLONE_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise BenchsmithError(f"--repo {spec}: cloning timed out after {CLONE_TIMEOUT_SECONDS}s") from None
    if completed.returncode != 0:
        last = (completed.stderr.strip().splitlines() or ["failed"])[-1]
        raise BenchsmithError(f"--repo {spec}: not a local repository, and cloning it failed: {last}")
    partial.rename(link)
    return link


def trackers_of(git_dir: Path, revision: str, jira: str = "", github: str = "") -> Trackers:
    """The trackers *jira* (``https://.../browse/KEY``) and *github* (``owner/name``) name, else those of the pom at
    *revision* (``<issueManagement>``, ``<scm>``, ``<url>``, interpolated with its own properties)."""
    pom_text = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{revision}:pom.xml"], capture_output=True
    ).stdout.decode(errors="replace")
    urls: list[str] = []
    try:
        root = ElementTree.fromstring(pom_text) if pom_text else None
    except ElementTree.ParseError:
        root = None
    if root is not None:
        for element in root.iter():
            if isinstance(element.tag, str):
                element.tag = element.tag.split("}", 1)[-1]
        properties = {p.tag: (p.text or "").strip() for p in root.findall("properties/*") if isinstance(p.tag, str)}
        for path in ("issueManagement/url", "scm/url", "scm/connection", "url"):
            found = root.find(path)
            if found is not None and found.text:
                urls.append(interpolate(found.text.strip(), properties))
    jira_base = jira_key = ""
    for url in [jira, *urls]:
        match = _JIRA_BROWSE.search(url or "")
        if match:
            jira_base, jira_key = match[1], match[2]
            break
    if not github:
        match = next((m for m in map(_GITHUB.search, urls) if m), None)
        github = f"{match[1]}/{match[2]}" if match else ""
    if github and not re.fullmatch(r"[\w.-]+/[\w.-]+", github):
        raise BenchsmithError(f"--github {github}: not owner/name")
    return Trackers(jira_base, jira_key, github)


def issue_reference(message: str, trackers: Trackers) -> IssueRef | None:
    """The first issue *message* references: a tracker URL, a Jira key of the project, a GitHub number."""
    url = _GITHUB_URL.search(message)
    if url:
        return IssueRef(url[4], url[0])
    browse = _JIRA_BROWSE.search(message)
    if browse and browse[3]:
        return IssueRef(f"{browse[2]}-{browse[3]}", f"{browse[1]}/{browse[2]}-{browse[3]}")
    if trackers.jira_key:
        key = re.search(rf"\b{re.escape(trackers.jira_key)}-(\d+)\b", message, re.I)
        if key:
            report = f"{trackers.jira_key}-{key[1]}"
            return IssueRef(report, f"{trackers.jira_base}/{report}")
    if trackers.github:
        number = _GITHUB_NUMBER.search(message)
        if number:
            return IssueRef(number[1], f"https://github.com/{trackers.github}/issues/{number[1]}")
    return None


def history_steps(git_dir: Path, since: str | None, until: str | None, rev: str = "HEAD") -> list[Step]:
    """Every commit of *rev*'s history committed in [*since*, *until*], oldest first, each a step against its first
    parent: Defects4J's fixes are often commits of a branch merged later (commons-cli's 1.x line), and a merged pull
    request is a step as a whole too (its merge commit). Root commits have no parent to be a step against."""
    args = ["log", "--reverse", "--date-order", "--format=%H%x00%P%x00%cI%x00%B%x1e"]
    args += [f"--since={since}"] if since else []
    args += [f"--until={until}"] if until else []
    steps = []
    for record in git(git_dir, *args, rev).split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, date, message = record.split("\x00", 3)
        parents_list = parents.split()
        if not parents_list:
            continue
        message = message.strip()
        steps.append(
            Step(sha, parents_list[0], date, message.splitlines()[0] if message else "", message, len(parents_list) > 1)
        )
    return steps


def history_numbers(git_dir: Path, rev: str = "HEAD") -> dict[str, int]:
    """Each commit's bug id: its position in *rev*'s whole history, oldest first (stable whatever --since and --until
    are)."""
    shas = git(git_dir, "rev-list", "--reverse", "--date-order", rev).split()
    return {sha: number for number, sha in enumerate(shas, start=1)}


def layout_of(git_dir: Path, sha: str) -> tuple[str, str] | None:
    """The (main, test) source folders of the tree at *sha*: the first of :data:`LAYOUTS` it has both of."""
    folders = set(
        git(git_dir, "ls-tree", "-d", "-r", "--name-only", sha, "--", "src", "source", "tests", "test").split("\n")
    )
    return next(((main, test) for main, test in LAYOUTS if main in folders and test in folders), None)


def with_changes(git_dir: Path, step: Step) -> Step:
    """*step* with its changed files sorted into main code, tests and other main files, by the source folders of its
    fixed revision (nothing when it has none of :data:`LAYOUTS`)."""
    layout = layout_of(git_dir, step.sha)
    if layout is None:
        return step
    main_root, test_root = layout
    listing = git(git_dir, "diff", "--name-status", "--no-renames", "-z", step.parent, step.sha)
    fields = listing.split("\x00")
    main, tests, other = [], [], []
    for status, path in zip(fields[0::2], fields[1::2]):
        if path.startswith(test_root + "/"):  # before main: src/test lies inside the src/ layout's main folder
            if path.endswith(".java") and status in ("A", "M"):
                tests.append(path)
        elif path.startswith(main_root + "/"):
            (main if path.endswith(".java") else other).append(path)
    return Step(
        step.sha,
        step.parent,
        step.date,
        step.subject,
        step.message,
        step.merge,
        tuple(main),
        tuple(tests),
        tuple(other),
        layout,
    )


def main_patch(git_dir: Path, step: Step) -> str:
    """The step's change of main code as Defects4J stores a bug's patch: from the fixed version to the buggy one."""
    return git(git_dir, "diff", "--no-renames", "--no-color", step.sha, step.parent, "--", *step.main_files)
