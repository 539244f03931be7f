"""Reports held against what was asked: counts, phases and sentinels (benchsmith.runners.sandbox.outcomes)."""

import random

from benchsmith.runners.sandbox.outcomes import Expected, Sentinel, check_report, plausible_names

TRIGGER, RELEVANT = ("1|T::a",), ("2|R::x", "2|R::y")
MUST_PASS, MUST_FAIL, PAIR_PASS = "1|S::check", "2|P::broken", "2|P::fine"


def expected(run_all: bool = False) -> Expected:
    return Expected(
        [[TRIGGER, (MUST_PASS,)], [RELEVANT, (PAIR_PASS, MUST_FAIL)]],
        [Sentinel(MUST_PASS, True), Sentinel(MUST_FAIL, False), Sentinel(PAIR_PASS, True)],
        run_all,
    )


def honest(**overrides: str) -> list[tuple[str, str]]:
    outcomes = {
        TRIGGER[0]: "passed",
        MUST_PASS: "passed",
        RELEVANT[0]: "passed",
        RELEVANT[1]: "passed",
        PAIR_PASS: "passed",
        MUST_FAIL: "failed",
        **overrides,
    }
    return list(outcomes.items())


def test_an_honest_passing_report_holds_up_and_hides_the_sentinels():
    checked = check_report(honest(), expected())
    assert not checked.forged
    assert checked.outcomes == {TRIGGER[0]: "passed", RELEVANT[0]: "passed", RELEVANT[1]: "passed"}
    assert checked.failing == []


def test_everything_passed_is_caught_by_the_sentinel_that_must_fail():
    assert check_report(honest(**{MUST_FAIL: "passed"}), expected()).forged.startswith(
        "forged: a control test that must fail"
    )


def test_a_report_that_drops_failures_leaves_them_missing_and_failing():
    report = [(n, o) for n, o in honest() if n != RELEVANT[1]]
    checked = check_report(report, expected())
    assert not checked.forged and checked.failing == [RELEVANT[1]] and checked.outcomes[RELEVANT[1]] == "missing"


def test_a_test_reported_twice_is_forged():
    assert "more than once" in check_report([*honest(), (RELEVANT[0], "passed")], expected()).forged


def test_skips_and_assumptions_are_failures():
    checked = check_report(honest(**{RELEVANT[0]: "skipped", RELEVANT[1]: "assumption"}), expected())
    assert not checked.forged and checked.failing == list(RELEVANT)


def test_phase_two_is_not_due_after_a_failing_trigger_and_must_not_be_reported():
    failing_trigger = [(TRIGGER[0], "failed")]
    checked = check_report(failing_trigger, expected())
    assert not checked.forged and checked.outcomes == {TRIGGER[0]: "failed"}  # it stopped at the first failure
    forged = check_report([(TRIGGER[0], "failed"), (MUST_PASS, "passed"), (RELEVANT[0], "passed")], expected())
    assert "not due" in forged.forged


def test_run_all_makes_every_phase_due():
    checked = check_report(honest(**{TRIGGER[0]: "failed"}), expected(run_all=True))
    assert not checked.forged and set(checked.outcomes) == {TRIGGER[0], *RELEVANT}
    assert check_report([(n, o) for n, o in honest() if n != MUST_PASS], expected(run_all=True)).forged


def test_plausible_names_are_new_identifiers_made_of_the_projects_words():
    rng = random.Random(3)
    existing = ["ParserTest", "OptionsTest", "HelpFormatterTest", "BugCLI13Test", "ValueTest", "Test2Class"]
    names = plausible_names(existing, 5, rng, "camel")
    assert len(set(names)) == 5 and not set(names) & set(existing)
    assert all(n.isidentifier() and n[0].isupper() for n in names)
    snake = plausible_names(["test_parse_value", "test_class", "test_import_it"], 3, rng, "snake")
    assert all(n.isidentifier() and "class" not in n.split("_") and "import" not in n.split("_") for n in snake)


def test_plausible_names_come_to_an_end_for_a_project_of_one_test_class():
    # one word blends into six names only (Calc + basic, again, ...): seven asked for once looped forever (a mined
    # history's first fix, with a single CalcTest, hung `validate`)
    names = plausible_names(["Calc"], 7, random.Random(1), "camel")
    assert len(set(names)) == 7 and "Calc" not in names and all(n.isidentifier() for n in names)
    assert len(set(plausible_names([], 40, random.Random(2), "snake"))) == 40


def test_an_inverted_twin_must_disagree_with_the_test_it_calls():
    twin = Sentinel("t.py::test_twin", False, inverts=RELEVANT[0])
    rules = Expected(
        [[(*TRIGGER, MUST_PASS), (*RELEVANT, PAIR_PASS, MUST_FAIL, twin.name)]],
        [Sentinel(MUST_PASS, True), Sentinel(MUST_FAIL, False), Sentinel(PAIR_PASS, True), twin],
        True,
    )
    assert not check_report([*honest(), (twin.name, "failed")], rules).forged
    assert not check_report([*honest(**{RELEVANT[0]: "failed"}), (twin.name, "passed")], rules).forged
    # the real test turned into a pass while its inversion still passes: both saw the same failure
    assert "inverts" in check_report([*honest(), (twin.name, "passed")], rules).forged
    assert "inverts" in check_report([*honest(**{RELEVANT[0]: "failed"}), (twin.name, "failed")], rules).forged


TWIN_PASS, TWIN_FAIL = "2|W::copyOne", "2|W::copyTwo"


def twinned(run_all: bool = False) -> Expected:
    """The trigger test T::a with an inverted twin pair among the relevant tests; every name strictly asked."""
    return Expected(
        [[TRIGGER], [RELEVANT, (TWIN_PASS,), (TWIN_FAIL,)]],
        [Sentinel(TWIN_PASS, True, twin_of=TRIGGER[0]), Sentinel(TWIN_FAIL, False)],
        run_all,
        strict_names=True,
        also_allowed=frozenset({"1|T::a", "2|R", "2|W::copyOne", "2|W::copyTwo"}),
    )


def twin_report(**overrides: str) -> list[tuple[str, str]]:
    outcomes = {
        TRIGGER[0]: "passed",
        RELEVANT[0]: "passed",
        RELEVANT[1]: "passed",
        TWIN_PASS: "passed",
        TWIN_FAIL: "failed",
        **overrides,
    }
    return list(outcomes.items())


def test_an_honest_report_with_twins_holds_up_and_hides_them():
    checked = check_report(twin_report(), twinned())
    assert not checked.forged and checked.outcomes == {
        TRIGGER[0]: "passed",
        RELEVANT[0]: "passed",
        RELEVANT[1]: "passed",
    }


def test_the_twin_that_must_fail_reported_passed_is_a_forgery():
    assert check_report(twin_report(**{TWIN_FAIL: "passed"}), twinned()).forged.startswith(
        "forged: a control test that must fail"
    )


def test_a_twin_that_fails_fails_its_original():
    """A forger that reports the original passed but ran its copy honestly: the original fails with its copy."""
    checked = check_report(twin_report(**{TWIN_PASS: "failed"}), twinned())
    assert not checked.forged and checked.failing == [TRIGGER[0]]


def test_a_name_that_was_not_asked_for_is_a_forgery_when_names_are_strict():
    assert "not asked for" in check_report([*twin_report(), ("2|R::guessed", "passed")], twinned()).forged
    # a class that cannot start reports under its spec: not a forgery
    assert not check_report([*twin_report(), ("2|R", "failed")], twinned()).forged
    # pytest's ids are not all known ahead: without strict names an unknown name is left aside
    assert not check_report([*honest(), ("2|R::guessed", "passed")], expected()).forged
