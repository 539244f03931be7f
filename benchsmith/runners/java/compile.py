"""What a Java build leaves out, and why: main sources that do not compile against the class path, deleted round by
round with their first error; the reasons test classes were left out; each error in one line that names the missing
symbol and the declared artifact that would provide a package not found."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.defects4j_workspace import compile_main


def leave_out_uncompilable_main(
    building: Path,
    source_dir: str,
    more_dirs: tuple[str, ...],
    libraries: tuple[str, ...],
    release: str,
    engine: tuple,
    missing: list[str],
) -> dict[str, str]:
    """Main sources that cannot compile against the class path (an optional dependency no repository here has, such
    as Compress's Brotli decoder) are deleted from the workspace's tree, with the first error of each; what depends on
    them goes too, round by round. Their tests then fail to compile and are left out as well."""
    left_out: dict[str, str] = {}
    roots = [building / "tree" / d for d in (source_dir, *more_dirs)]
    for _ in range(MAX_MAIN_ROUNDS):
        try:
            compile_main(building / "tree", source_dir, building, libraries, release, engine, more_dirs)
            return left_out
        except BenchsmithError:
            text = (building / "compile-main.log").read_text(errors="replace")
        broken: dict[Path, str] = {}
        for match in re.finditer(r"^(/\S+\.java):\d+: error: .*$", text, re.M):
            path = Path(match[1])
            if any(path.is_relative_to(r) for r in roots) and path not in broken:
                broken[path] = explain_error(text, match.start(), missing)
        if not broken:
            break
        for path, why in broken.items():
            home = next(r for r in roots if path.is_relative_to(r))
            left_out[".".join(path.relative_to(home).with_suffix("").parts)] = why
            path.unlink()
        shutil.rmtree(building / "classes", ignore_errors=True)
    return left_out


MAX_MAIN_ROUNDS = 6


def explain_error(log_text: str, at: int, missing: list[str]) -> str:
    """The javac error starting at offset *at* of a log, in one line: its message, the symbol javac names, and the
    declared artifact that would provide a package not found (or that no declared dependency does)."""
    lines = log_text[at:].splitlines()
    message = lines[0].split(": error: ", 1)[-1].strip()
    symbol = next((ln.strip() for ln in lines[1:6] if ln.strip().startswith("symbol:")), "")
    why = f"{message} ({symbol})" if symbol else message
    package = re.match(r"package ([\w.]+) does not exist", message)
    if package:
        owners = [c for c in missing if _may_hold(package[1], c)]
        why += f"; missing artifact {owners[0]}" if owners else "; no dependency on the class path provides it"
    return why


def _may_hold(package: str, coordinates: str) -> bool:
    """Whether the artifact *coordinates* (``group:artifact:version``) is likely to hold *package*: the package is in
    its group or its group in the package, dashes dropped (``org.junit-pioneer`` holds ``org.junitpioneer.jupiter``),
    or the package has the group's first two segments and a segment named as the artifact (``com.google.jimfs:jimfs``
    holds ``com.google.common.jimfs``)."""
    group, artifact = (coordinates.split(":") + [""])[:2]
    group = group.replace("-", "")
    if package.startswith(group) or group.startswith(package):
        return True
    segments = package.split(".")
    return segments[:2] == group.split(".")[:2] and artifact.replace("-", "") in segments[2:]


def exclusion_reasons(log_path: Path, excluded: list[str], missing: list[str]) -> dict[str, str]:
    logs = [*sorted(log_path.parent.glob(f"{log_path.stem}.round*.log")), log_path]
    text = "\n".join(p.read_text(errors="replace") for p in logs if p.is_file())
    reasons = {}
    for name in excluded:
        match = re.search(rf"^/\S*/{re.escape(name.replace('.', '/'))}\.java:\d+: error:", text, re.M)
        reasons[name] = explain_error(text, match.start(), missing) if match else "does not compile"
    return reasons
