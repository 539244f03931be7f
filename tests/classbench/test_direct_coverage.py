"""DirectCoverage as the RepoClassBench paper defines it (E.1.2): what is invoked in the body of a test. Calls written
in functions, lambdas and comprehensions inside the test's body count; a helper defined elsewhere does not; a class
built there has its constructor covered, inherited or generated. Real pytest runs, sandboxed, on a package made here."""

from builders.classbench.analysis import analyse_file
from builders.classbench.shortlist import directly_covered_methods, is_shortlisted
from builders.classbench.suite import SuitePolicy, run_tests
from tests.classbench.test_suite_survives import in_a_copy, make_suite, tmp_path  # noqa: F401 (a fixture)


PACKAGE = {
    "shapes/__init__.py": "",
    "shapes/model.py": """
        from dataclasses import dataclass

        class Base:
            def __init__(self, size):
                self.size = size

            def grow(self):
                return self.size + 1

        class Inherits(Base):
            def double(self):
                return self.size * 2

        @dataclass
        class Point:
            x: int

            def moved(self):
                return Point(self.x + 1)

        @dataclass
        class Wrapper:  # one method, naming nothing of the package; its field does
            inner: Base

            def describe(self):
                return f"<{self.inner.size}>"

        def register(handler):
            return handler(Base(3))
    """,
    "tests/test_model.py": """
        from shapes.model import Base, Inherits, Point, Wrapper, register

        def build(size):
            return Base(size).grow()

        def test_nested_and_helper():
            def handler(base):  # a handler the test writes and the library calls: its calls are in the test's body
                return base.grow()
            assert register(handler) == 4
            assert build(1) == 2  # Base.grow runs in build(), a helper outside the test: not direct

        def test_comprehension_and_lambda():
            assert [Point(n).moved().x for n in range(2)] == [1, 2]
            assert (lambda: Inherits(2).double())() == 4

        def test_a_thread_it_starts():
            import threading
            def work():  # as a test client's portal thread runs the handlers written in the test
                Base(5).grow()
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()

        def test_wrapper():
            assert Wrapper(Base(1)).describe() == "<1>"

        def test_nothing_of_ours():
            assert sorted([2, 1]) == [1, 2]
    """,
}


def test_direct_calls_are_read_off_the_test_body(tmp_path):
    tree = make_suite(tmp_path / "repo", PACKAGE)
    log_path = tmp_path / "logs" / "suite.log"
    run = in_a_copy(tree, tmp_path, lambda repo, copy, slot: run_tests(repo, copy, slot, log_path, None,
                                                                       SuitePolicy(unit_seconds=120), coverage=True))  # fmt: skip
    copy = tmp_path / "copy"
    model = str(copy / "shapes" / "model.py")
    ours = {node.split("::")[1]: sorted(q for f, q in calls if f == model) for node, calls in run.coverage.items()}
    assert run.counts() == {"collected": 5, "passed": 5}
    assert ours == {
        # register() from the body; Base.grow from the handler written in it; not build()'s Base(...).grow()
        "test_nested_and_helper": ["Base.grow", "register"],
        # the comprehension's Point(n) (a generated __init__, which has no file), its moved(); the lambda's
        # Inherits(2) (Base.__init__ runs, and Inherits is the class built) and its double()
        "test_comprehension_and_lambda": ["Base.__init__", "Inherits.__init__", "Inherits.double", "Point.__init__",
                                          "Point.moved"],
        "test_a_thread_it_starts": ["Base.__init__", "Base.grow"],
        "test_wrapper": ["Base.__init__", "Wrapper.__init__", "Wrapper.describe"],
        "test_nothing_of_ours": [],
    }
    # The shortlist: two members covered (the constructor among them) and a reference in the class's body
    passed = {node for node, outcome in run.outcomes.items() if outcome == "passed"}
    classes = {c.name: c for c in analyse_file(copy / "shapes" / "model.py", copy, "", {"shapes"})}
    decisions = {name: is_shortlisted(c, directly_covered_methods(c, run.coverage, passed, copy)) for name, c in classes.items()}
    assert {name: d.reason or "shortlisted" for name, d in decisions.items()} == {
        "Base": "no external reference", "Inherits": "no external reference", "Point": "no external reference",
        "Wrapper": "shortlisted"}  # fmt: skip
    assert classes["Wrapper"].external_references == ["Base"]
