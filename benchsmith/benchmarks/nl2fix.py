"""Defects4J-NL2Fix: an issue report and a buggy method in, the fixed method out, judged by JUnit."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchsmith.benchmarks import Benchmark, CandidateRunner, EvalOptions, GenerationItem, ReferenceCandidate, register
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.core.verdict import Verdict
from benchsmith.generation.mutants import mutants
from benchsmith.generation.prompts import NL2FIX_STRATEGIES
from benchsmith.generation.prompts import nl2fix as prompts
from benchsmith.generation.prompts.extraction import Extraction, extract_java_method
from benchsmith.runners.java.insertion import dedup_key
from benchsmith.runners.java.method_runner import InstanceRunner, Tests

log = logging.getLogger(__name__)


class NL2Fix(Benchmark[NL2FixInstance]):
    name = "nl2fix"
    language = "java"
    record_type = NL2FixInstance
    strategies = NL2FIX_STRATEGIES

    def instance_id(self, record: NL2FixInstance) -> str:
        return record.instance_id

    def project_of(self, record: NL2FixInstance) -> str:
        return record.project

    def generation_items(
        self, records: list[NL2FixInstance], strategy: str, description: str | None, dataset: Path
    ) -> tuple[list[GenerationItem], str]:
        if description is not None:
            raise BenchsmithError(f"{dataset}: an NL2Fix dataset has no descriptions; --description does not apply")
        without_issue = [i.instance_id for i in records if not (i.issue_title.strip() or i.issue_description.strip())]
        if without_issue:
            log.warning(
                "%d instances have no issue text (built with --no-scrape?): %s",
                len(without_issue),
                ", ".join(without_issue[:10]),
            )
        shots = prompts.nearest_shots(records) if strategy == "one-shot" else {}
        return [_item(instance, strategy, shots.get(instance.instance_id)) for instance in records], ""

    def dedup_key(self, code: str) -> str:
        return dedup_key(code)

    def runners(self, options: EvalOptions) -> Callable[[NL2FixInstance, int, Path], CandidateRunner]:
        from benchsmith.runners.java.defects4j_workspace import guard_forbidden_tests, prepare
        from benchsmith.sources.defects4j import Defects4JRoot

        if options.defects4j is None:
            raise BenchsmithError(f"{options.dataset}: an NL2Fix dataset needs --defects4j")
        d4j = Defects4JRoot(options.defects4j)

        def open_runner(instance: NL2FixInstance, slot: int, logs: Path) -> CandidateRunner:
            workspace = prepare(instance, d4j, options.repos)
            excluded = [
                *d4j.broken_tests(instance.project, instance.revision_fixed),
                *guard_forbidden_tests(workspace, instance),
            ]
            runner = InstanceRunner(instance, workspace, slot, options.limits, logs, excluded)
            tests = Tests.for_instance(instance, excluded, stop_early=not options.regression)
            return _JavaCandidates(runner, tests, options.fast)

        return open_runner

    def reference_candidates(
        self, records: list[NL2FixInstance], mutants_per_instance: int, seed: int
    ) -> list[ReferenceCandidate]:
        rows = []
        for instance in records:
            rows.append(ReferenceCandidate(instance.instance_id, "gold", instance.fixed_method))
            rows.append(ReferenceCandidate(instance.instance_id, "buggy", instance.buggy_method_no_comments))
            for number, code in enumerate(mutants(instance.fixed_method, mutants_per_instance, seed=seed)):
                rows.append(ReferenceCandidate(instance.instance_id, f"mutant-{number}", code))
        return rows

    def ranking_anchor(self, record: NL2FixInstance) -> str:
        # The text the model was shown: the Defects4J-NL2Fix paper strips comments, since Defects4J's buggy files keep
        # the fix's.
        return record.buggy_method_no_comments


def _item(instance: NL2FixInstance, strategy: str, shot: NL2FixInstance | None) -> GenerationItem:
    def extract(text: str) -> Extraction:
        return extract_java_method(text, instance.method_name, instance.buggy_method_no_comments)

    if strategy == "reasoning":
        turns, conversation = len(prompts.REASONING_TURNS), lambda answers: prompts.reasoning(instance, answers)
    elif strategy == "one-shot":
        turns, conversation = 1, lambda answers: prompts.one_shot(instance, shot)
    elif strategy == "title-only":
        turns, conversation = 1, lambda answers: prompts.title_only(instance)
    else:
        turns, conversation = 1, lambda answers: prompts.zero_shot(instance)
    return GenerationItem(instance.instance_id, turns, conversation, extract, strategy)


@dataclass
class _JavaCandidates:
    runner: InstanceRunner
    tests: Tests
    fast: bool

    def evaluate(self, code: str, name: str) -> Verdict:
        return self.runner.evaluate(code, name, fast=self.fast, tests=self.tests)

    def close(self) -> None:
        self.runner.close()


register(NL2Fix())
