"""DirectCoverage as the RepoClassBench paper defines it (E.1.2): what is invoked in the body of a test. Calls written
in functions, lambdas and comprehensions inside the test's body count; a helper defined elsewhere does not; a class
built there has its constructor covered, inherited or generated. Real pytest runs, sandboxed, on a package made here."""

from benchsmith.builders.classbench.python.analysis import analyse_file
from benchsmith.builders.classbench.python.shortlist import directly_covered_methods, is_shortlisted
from benchsmith.builders.classbench.python.suite import SuitePolicy, run_tests
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


def test_direct_calls_are_read_off_the_test_body(tmp_path):  # noqa: F811 (the imported fixture)
    tree = make_suite(tmp_path / "repo", PACKAGE)
    log_path = tmp_path / "logs" / "suite.log"
    run = in_a_copy(
        tree,
        tmp_path,
        lambda repo, copy, slot: run_tests(
            repo, copy, slot, log_path, None, SuitePolicy(unit_seconds=120), coverage=True
        ),
    )
    copy = tmp_path / "copy"
    model = str(copy / "shapes" / "model.py")
    ours = {node.split("::")[1]: sorted(q for f, q in calls if f == model) for node, calls in run.coverage.items()}
    assert run.counts() == {"collected": 5, "passed": 5}
    assert ours == {
        # register() from the body; Base.grow from the handler written in it; not build()'s Base(...).grow()
        "test_nested_and_helper": ["Base.grow", "register"],
        # the comprehension's Point(n) (a generated __init__, which has no file), its moved(); the lambda's
        # Inherits(2) (Base.__init__ runs, and Inherits is the class built) and its double()
        "test_comprehension_and_lambda": [
            "Base.__init__",
            "Inherits.__init__",
            "Inherits.double",
            "Point.__init__",
            "Point.moved",
        ],
        "test_a_thread_it_starts": ["Base.__init__", "Base.grow"],
        "test_wrapper": ["Base.__init__", "Wrapper.__init__", "Wrapper.describe"],
        "test_nothing_of_ours": [],
    }
    # The shortlist: two members covered (the constructor among them) and a reference in the class's body
    passed = {node for node, outcome in run.outcomes.items() if outcome == "passed"}
    classes = {c.name: c for c in analyse_file(copy / "shapes" / "model.py", copy, "", {"shapes"})}
    decisions = {
        name: is_shortlisted(c, directly_covered_methods(c, run.coverage, passed, copy)) for name, c in classes.items()
    }
    assert {name: d.reason or "shortlisted" for name, d in decisions.items()} == {
        "Base": "no external reference",
        "Inherits": "no external reference",
        "Point": "no external reference",
        "Wrapper": "shortlisted",
    }
    assert classes["Wrapper"].external_references == ["Base"]


def test_calls_are_attributed_to_their_class_on_a_python_before_3_11(tmp_path):  # noqa: F811 (the imported fixture)
    """Before Python 3.11 a code object names no class (``grow``, not ``Base.grow``): the plugin reads the qualified
    name off the file's definitions, by the line the code starts at. Real code objects of a Python 3.8 (litestar's,
    as the RepoClassBench paper set it up), with a stand-in for pytest, which that interpreter lacks here."""
    import json
    import subprocess
    from pathlib import Path

    import pytest

    from benchsmith.sources.python.environment import _interpreters

    older = sorted((v, str(p)) for p, v in _interpreters().items() if v.startswith(("3.8.", "3.9.", "3.10.")))
    if not older:
        pytest.skip("no Python before 3.11 here")
    module = tmp_path / "model.py"
    module.write_text(
        "def keep(function):\n    return function\n\n\nclass Base:\n    def grow(self):\n        return 1\n\n"
        "    @keep\n    @keep\n    def decorated(self):\n        return 2\n\n"
        "    class Inner:\n        async def visit(self):\n            return 3\n\n\n"
        "if True:\n    def guarded():\n        def nested():\n            return 4\n        return nested\n"
    )
    plugin = Path(__file__).parents[2] / "benchsmith" / "runners" / "python" / "directcov.py"
    probe = f"""
import json, sys, types
sys.modules["pytest"] = types.SimpleNamespace(hookimpl=lambda **kw: (lambda f: f), Class=type)
namespace = {{"__name__": "directcov"}}
exec(compile(open({str(plugin)!r}).read(), "directcov.py", "exec"), namespace)
sys.path.insert(0, {str(tmp_path)!r})
import model
codes = [model.Base.grow.__code__, model.Base.decorated.__code__, model.Base.Inner.visit.__code__,
         model.guarded.__code__, model.guarded().__code__]
print(json.dumps([hasattr(codes[0], "co_qualname")] + [namespace["_qualname"](c) for c in codes]))
"""
    for version, python in older[:1]:
        found = json.loads(subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout)
        assert found == [
            False,
            "Base.grow",
            "Base.decorated",
            "Base.Inner.visit",
            "guarded",
            "guarded.<locals>.nested",
        ], version
