"""Sources and resources Maven writes at build time, from a module's :class:`~benchsmith.sources.java.maven.MavenModel`.

* templating-maven-plugin: ``src/main/java-templates`` (and ``src/test/java-templates``) copied to
  ``target/generated-sources/java-templates`` with ``${project.version}``-style expressions filled in;
* maven-replacer-plugin as the Jackson projects use it: each ``X.java.in`` of a source root filled in as ``X.java``
  (``@package@``, ``@projectversion@``, ``@projectgroupid@``, ``@projectartifactid@``), and any replacer execution
  whose ``file``, ``outputFile`` and tokens the pom names in full;
* filtered resources (``<filtering>true</filtering>``): their ``${...}`` and ``@...@`` expressions filled in, in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchsmith.sources.java.maven import MavenModel

TEMPLATING = "templating-maven-plugin"
REPLACER = "replacer"
_AT_EXPRESSION = re.compile(r"@([\w.\-]+)@")
_FILTERED_SUFFIXES = {".properties", ".xml", ".txt", ".json", ".yml", ".yaml", ".java", ".html", ".cfg", ".conf"}


@dataclass(frozen=True)
class Generated:
    main_roots: list[str]  # source roots written, relative to the module
    test_roots: list[str]
    files: list[str]  # every file written, relative to the module


def filter_text(text: str, model: MavenModel) -> str:
    """Maven filtering's default delimiters, ``${expr}`` and ``@expr@``, against the model's properties; an expression
    it does not know is kept as written (Maven does the same)."""
    text = model.interpolate(text)
    return _AT_EXPRESSION.sub(lambda m: model.properties.get(m[1], m[0]), text)


def generate_sources(model: MavenModel, replacer_beside: bool = False) -> Generated:
    """Write the module's generated sources under its folder. *replacer_beside* writes ``X.java`` next to its
    ``X.java.in`` (the NL2Fix workspaces' layout) instead of under ``target/generated-sources/replacer``."""
    main, test, files = [], [], []
    for kind, goal, default_in, default_out in (
        ("main", "filter-sources", "src/main/java-templates", "target/generated-sources/java-templates"),
        ("test", "filter-test-sources", "src/test/java-templates", "target/generated-test-sources/java-templates"),
    ):
        configurations = model.executions(TEMPLATING, goal)
        pairs = {
            (_setting(model, c, "sourceDirectory") or default_in, _setting(model, c, "outputDirectory") or default_out)
            for c in configurations
        }
        if not configurations and (model.directory / default_in).is_dir():
            pairs.add((default_in, default_out))  # the convention, where the plugin is declared by a parent not at hand
        for source, output in sorted(pairs):
            written = _filter_tree(model, model.directory / source, model.directory / output)
            if written:
                (main if kind == "main" else test).append(_relative(model, output))
                files += written
    configured = _replacer_executions(model)  # the pom's own replacer settings, where its parents are at hand
    replaced = [] if configured else fill_replacer_templates(model, model.source_roots, replacer_beside)
    if replaced and not replacer_beside:
        main.append("target/generated-sources/replacer")
    return Generated(main, test, files + configured + replaced)


def filter_resources(model: MavenModel) -> list[str]:
    """Filter, in place, the module's resources whose ``<filtering>`` is true (text files only)."""
    written = []
    for resource in model.resources:
        folder = model.directory / resource.directory
        if not resource.filtering or not folder.is_dir():
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in _FILTERED_SUFFIXES):
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            filtered = filter_text(text, model)
            if filtered != text:
                path.write_text(filtered, encoding="utf-8", errors="surrogateescape")
                written.append(_relative(model, str(path)))
    return written


def _setting(model: MavenModel, configuration, name: str) -> str:
    return model.interpolate((configuration.findtext(name) or "").strip())


def _relative(model: MavenModel, path: str) -> str:
    absolute = Path(path) if Path(path).is_absolute() else model.directory / path
    try:
        return str(absolute.relative_to(model.directory))
    except ValueError:
        return str(absolute)


def _filter_tree(model: MavenModel, source: Path, output: Path) -> list[str]:
    written = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else []:
        target = output / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        target.write_text(filter_text(text, model), encoding="utf-8", errors="surrogateescape")
        written.append(_relative(model, str(target)))
    return written


def fill_replacer_templates(model: MavenModel, roots: list[str], beside: bool) -> list[str]:
    """Each ``X.java.in`` under the source *roots* filled in as ``X.java``, beside it or under
    ``target/generated-sources/replacer``: the Jackson projects' PackageVersion, which their parent pom (rarely at
    hand) has maven-replacer-plugin write from the pom's coordinates."""
    written = []
    for root in roots:
        folder = model.directory / root
        for template in sorted(folder.rglob("*.java.in")) if folder.is_dir() else []:
            relative = template.relative_to(folder).with_suffix("")  # X.java.in -> X.java
            target = (
                template.with_suffix("") if beside else model.directory / "target/generated-sources/replacer" / relative
            )
            if beside and target.exists():
                continue
            text = template.read_text(encoding="utf-8", errors="surrogateescape")
            for key, value in {
                "package": ".".join(relative.parent.parts),
                "projectversion": model.version or "0",
                "projectgroupid": model.group,
                "projectartifactid": model.artifact,
            }.items():
                text = text.replace(f"@{key}@", value)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", errors="surrogateescape")
            written.append(_relative(model, str(target)))
    return written


def _replacer_executions(model: MavenModel) -> list[str]:
    """A replacer plugin configured in full by the poms at hand: ``file`` → ``outputFile``, its token/value pairs."""
    written = []
    for plugin in model.plugin(REPLACER):
        configuration = plugin.find("configuration")
        if configuration is None:
            continue
        source, output = _setting(model, configuration, "file"), _setting(model, configuration, "outputFile")
        pairs = [
            (_setting(model, r, "token"), _setting(model, r, "value"))
            for r in configuration.findall("replacements/replacement")
        ]
        if token := _setting(model, configuration, "token"):
            pairs.append((token, _setting(model, configuration, "value")))
        source_path = Path(source) if Path(source).is_absolute() else model.directory / source
        if not source or not output or "${" in source + output or not source_path.is_file() or not pairs:
            continue
        text = source_path.read_text(encoding="utf-8", errors="surrogateescape")
        for token, value in pairs:
            text = text.replace(token, value)
        target = Path(output) if Path(output).is_absolute() else model.directory / output
        if not target.resolve().is_relative_to(model.directory.resolve()):
            continue  # a build writes inside its module only
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", errors="surrogateescape")
        written.append(_relative(model, str(target)))
    return written
