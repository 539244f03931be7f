"""The docs' map of the tree lists every module there is and none that is not; the README's links lead somewhere."""

import re

from tests.conftest import ROOT


def _map() -> dict[str, list[str]]:
    """Folder → the names docs/architecture.md's "Every module, by package" block lists for it, parentheticals aside."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    start = text.index("Every module, by package:")
    block = text[start : text.index("```\n", text.index("```", start) + 3)]
    listed: dict[str, str] = {}
    folder = None
    for line in block.splitlines():
        if match := re.match(r"^(\S+/)\s*(.*)$", line):
            folder = match.group(1)
            listed[folder] = match.group(2)
        elif folder and line.startswith("  "):
            listed[folder] += " " + line.strip()
    names = {}
    for folder, entry in listed.items():
        while "(" in entry:
            entry = re.sub(r"\([^()]*\)", "", entry)
        names[folder] = [item.split()[0] for item in re.split(r"[,;]", entry) if item.strip()]
    return names


def test_every_module_is_listed_and_every_listed_module_exists():
    listed = _map()
    assert {
        "benchsmith/runners/sandbox/",
        "benchsmith/runners/java/",
        "benchsmith/core/",
        "benchsmith/cli/",
        "benchsmith/sources/",
        "builders/",
        "scrapers/",
        "paraphrase/",
    } <= set(listed)
    packages = {
        str(p.parent.relative_to(ROOT)) + "/"
        for top in ("benchsmith", "builders", "scrapers", "paraphrase")
        for p in (ROOT / top).rglob("__init__.py")
    }
    assert packages - set(listed) == set(), "packages not in docs/architecture.md's map"
    for folder, names in listed.items():
        if folder in ("data/fixtures/", "tests/"):
            continue
        path = ROOT / folder
        modules = {p.stem for p in path.glob("*.py") if p.stem != "__init__"} | {p.name for p in path.glob("*.java")}
        shown = {name.rstrip("/") for name in names}
        assert modules - shown == set(), f"{folder}: not in docs/architecture.md's map"
        for name in shown:
            assert (path / f"{name}.py").is_file() or (path / name).exists() or name == "templates/*.txt", (
                f"{folder}{name}: in docs/architecture.md's map, not in the tree"
            )


def test_the_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)]+)\)", (ROOT / "README.md").read_text())
    assert len(set(links)) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []
