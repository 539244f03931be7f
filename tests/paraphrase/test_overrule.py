"""Names another paraphrase flipped that benchsmith's rules keep, renamed through imports, re-exports, ``__all__``,
module attributes and strings, and kept where another package spells them (paraphrase/python/overrule.py)."""

import pytest

from benchsmith.paraphrase.python.repository import paraphrase_repository
from tests.helpers.paraphrase import run_repo_tests

# A package whose Module is also ast's, whose postinit is looked up by a string, whose frame is also inspect's:
# each of those names is kept by a rule; each is spelled through a re-export, __all__, `from . import x`, a module
# attribute, a dotted patch target and a string annotation.
ASTROLITE = {
    "astrolite/__init__.py": 'from astrolite.nodes import Module, Const\nfrom . import nodes\n\n__all__ = ["Module", '
    '"Const", "nodes"]\n',
    "astrolite/nodes.py": (
        "import ast\nimport inspect\n\n\n"
        "class Const:\n    def __init__(self, value):\n        self.value = value\n\n"
        '    def __repr__(self):\n        return f"{type(self).__name__}({self.value})"\n\n\n'
        "class Module:\n"
        "    def __init__(self):\n        self.body = []\n\n"
        "    def postinit(self, body):\n        self.body = body\n\n"
        '    def __repr__(self):\n        return f"<{type(self).__name__} body={len(self.body)}>"\n\n'
        '    def frame(self) -> "Module":\n        return self\n\n\n'
        "def parse(text):\n"
        "    tree = ast.parse(text)\n"
        "    assert isinstance(tree, ast.Module)  # ast's: kept\n"
        "    caller = inspect.stack()[0].frame  # inspect's frame: kept\n"
        "    node = Module()\n"
        '    if hasattr(node, "postinit") and caller is not None:\n'
        "        node.postinit([Const(s.value.value) for s in tree.body])\n"
        "    return node\n"
    ),
    "astrolite/manager.py": (
        "from __future__ import annotations\n\nfrom astrolite import nodes\nfrom ast import Module as AstModule\n\n\n"
        'def build(text) -> "nodes.Module":\n'
        "    node = nodes.parse(text)\n"
        '    assert getattr(node, "frame")() is node and not isinstance(node, AstModule)\n'
        "    assert next(iter([node])).frame() is node  # a builtin's result is no other package's object\n"
        '    assert type(node.body[0]).__name__ == "Const"\n'
        "    return node\n"
    ),
    "tests/test_astrolite.py": (
        "import astrolite\nimport astrolite.nodes\nfrom astrolite import *\nfrom astrolite.manager import build\n\n\n"
        "def test_build():\n    assert [c.value for c in build('1\\n2').body] == [1, 2]\n"
        "    assert repr(build('3').body) == \"[Const(3)]\"  # an expected repr: changes with the class\n"
        '    assert repr(build(\'3\')) == "<Module body=1>" and "<Module" + "s>" != repr(build(\'3\'))\n\n\n'
        "def test_reexports():\n    assert astrolite.Module is astrolite.nodes.Module is Module and Const\n\n\n"
        "def test_python_messages_spell_the_class():\n"
        "    import pytest\n\n"
        "    with pytest.raises(TypeError, match=\"'Const' object is not iterable\"):\n        iter(Const(1))\n"
        "    with pytest.raises(AttributeError, match=r\"type object 'Module' has no attribute\"):\n"
        "        Module.missing\n"
        "    with pytest.raises(TypeError, match=\"between instances of 'Const' and 'Const'\"):\n"
        "        Const(1) < Const(2)\n"
        "    assert \"the 'Module' keyword\" != 'the \\'Const\\' object'  # a quoted word, not a type's message\n\n\n"
        "def test_patch_target(monkeypatch):\n"
        '    monkeypatch.setattr("astrolite.nodes.Module.frame", lambda self: None)\n'
        "    assert astrolite.nodes.Module().frame() is None\n"
    ),
}
FLIPS = {"Module": "moDuLE", "Const": "COnST", "postinit": "poSTINIt", "frame": "fRAMe"}


@pytest.fixture
def astrolite(tmp_path):
    root = tmp_path / "astrolite-src"
    for path, text in ASTROLITE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_kept_names_are_kept_without_overrule(astrolite, tmp_path):
    report = paraphrase_repository(astrolite, tmp_path / "out", FLIPS, chosen=FLIPS)
    assert set(report.excluded) == set(FLIPS) and report.overruled == {}


def test_overruled_names_follow_imports_re_exports_module_attributes_and_strings(astrolite, tmp_path):
    before = run_repo_tests(astrolite, tmp_path / "before.xml")
    assert len(before) == 4
    out = tmp_path / "out"
    report = paraphrase_repository(astrolite, out, FLIPS, chosen=FLIPS, overrule=FLIPS)
    assert set(report.overruled) == set(FLIPS) and report.mapping == FLIPS
    assert run_repo_tests(out, tmp_path / "after.xml") == before
    init = (out / "astrolite/__init__.py").read_text()
    assert init.startswith("from astrolite.nodes import moDuLE, COnST\n") and '["moDuLE", "COnST", "nodes"]' in init
    nodes = (out / "astrolite/nodes.py").read_text()
    assert "isinstance(tree, ast.Module)" in nodes  # ast's, kept
    assert "inspect.stack()[0].frame" in nodes and 'hasattr(node, "poSTINIt")' in nodes
    assert 'def fRAMe(self) -> "moDuLE":' in nodes
    manager = (out / "astrolite/manager.py").read_text()
    assert "from ast import Module as AstModule" in manager and '-> "nodes.moDuLE"' in manager
    assert "next(iter([node])).fRAMe()" in manager
    assert '== "COnST"' in manager
    tests = (out / "tests/test_astrolite.py").read_text()
    assert '"astrolite.nodes.moDuLE.fRAMe"' in tests and "astrolite.nodes.moDuLE is moDuLE" in tests
    assert '== "[COnST(3)]"' in tests and '== "<moDuLE body=1>"' in tests
    assert '"<Module" + "s>"' in tests  # not a repr: "<Module" ends no name
    # Python's messages name a type in quotes: they spell the flipped class now
    assert "match=\"'COnST' object is not iterable\"" in tests and "type object 'moDuLE' has" in tests
    assert "between instances of 'COnST' and 'COnST'" in tests
    assert "\"the 'Module' keyword\"" in tests and "'the \\'COnST\\' object'" in tests
