"""``benchsmith paraphrase``: a repository's class identifiers case-flipped consistently."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def _paraphrase(args: argparse.Namespace) -> int:
    if args.language == "java":
        from benchsmith.paraphrase.java.run import paraphrase_java_classes

        classpath = [Path(p) for p in (args.classpath or "").split(os.pathsep) if p]
        paraphrase_java_classes(
            args.repo, args.out, [args.classes] if args.classes else None, args.seed, classpath, args.release
        )
        return 0
    from benchsmith.paraphrase.python.run import paraphrase_classes

    paraphrase_classes(args.repo, args.out, args.seed, args.classes.split(",") if args.classes else None, args.strict)
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    paraphrase = commands.add_parser(
        "paraphrase", help="case-flip a repository's class identifiers consistently (Python or Java)"
    )
    paraphrase.add_argument("--language", choices=["python", "java"], default="python")
    paraphrase.add_argument("--repo", type=Path, required=True, metavar="DIR")
    paraphrase.add_argument("--out", type=Path, required=True, metavar="DIR")
    paraphrase.add_argument("--seed", type=int, default=0)
    paraphrase.add_argument(
        "--classes",
        metavar="FILE::CLASS,... | a.b.Class,...",
        help="Python: default every module-level class outside tests; Java: fully qualified top-level classes "
        "(required)",
    )
    paraphrase.add_argument(
        "--strict", action="store_true", help="(Python) also keep attributes of objects of unknown type"
    )
    paraphrase.add_argument(
        "--classpath",
        metavar="JARS",
        help=f"(Java) the jars main and test sources compile against, separated by {os.pathsep!r}",
    )
    paraphrase.add_argument("--release", metavar="N", help="(Java) javac --release for the analysis")
    paraphrase.set_defaults(handler=_paraphrase)
