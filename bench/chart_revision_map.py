"""Chart's Subversion revisions mapped to commits of the jfree/jfreechart conversion, with the evidence, as a table.

The same matching the builder does (``benchsmith.sources.svn_history``), for every active Chart bug of a Defects4J
checkout:
found (exact file or twin) with the fix commit, how far it is from the revision and whether the message matches, or
not found with the commits tried.

    python bench/chart_revision_map.py --defects4j D4J_ROOT --repo JFREECHART_GIT_DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.sources.defects4j import Defects4JRoot
from benchsmith.sources.history import REVISION_MAPS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defects4j", type=Path, required=True)
    parser.add_argument(
        "--repo", type=Path, required=True, help="jfree/jfreechart's git directory (with refs/import/raw)"
    )
    args = parser.parse_args()
    d4j = Defects4JRoot(args.defects4j)
    history = REVISION_MAPS["Chart"].matcher(args.repo)
    print("| bug | revision | found | commit | evidence |\n|---|--:|---|---|---|")
    found = 0
    for bug in d4j.bugs("Chart"):
        patch = d4j.patch_path(bug)
        text = patch.read_bytes().decode("utf-8", errors="surrogateescape")
        match = history.match(f"Chart-{bug.bug_id}", bug.revision_fixed, text, str(patch))
        evidence = match.evidence
        if match.commit:
            found += 1
            print(
                f"| Chart-{bug.bug_id} | {bug.revision_fixed} | yes ({match.kind}) | {match.commit[:10]} | fix commit "
                f"{evidence.get('fix_commit', '')[:10]} of {evidence.get('fix_date', '')[:10]}, "
                f"{evidence.get('revisions_away')} revision(s) away, same message: "
                f"{'yes' if evidence.get('same_message') else 'no'}; the patch applies to it, not to its parent |"
            )
        else:
            print(f"| Chart-{bug.bug_id} | {bug.revision_fixed} | no | — | {evidence.get('why')} |")
    print(f"\n{found} of {len(d4j.bugs('Chart'))} active bugs found")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
