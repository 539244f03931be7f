"""Inherited, library and overloaded members, and relatives left out: the tools on a small zoo package."""

import pytest

from benchsmith.benchmarks.classbench.python import visible_repository_of
from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.agents.python.tools import python_toolbox
from tests.harness.agents.test_python_tools import assert_unreachable

BASE = '''\
from abc import ABC, abstractmethod
from collections import OrderedDict
from typing import overload


class Animal(ABC):
    """Something that makes a sound."""

    legs = 4

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def sound(self) -> str: ...

    @staticmethod
    def kingdom() -> str:
        return "animalia"

    def _tag(self) -> str:
        return self.name.lower()

    def __secret(self) -> int:
        return 42


class Registry(OrderedDict):
    def register(self, animal: Animal) -> None:
        self[animal.name] = animal

    @overload
    def find(self, key: int) -> Animal: ...

    @overload
    def find(self, key: str) -> Animal: ...

    def find(self, key):
        return list(self.values())[key] if isinstance(key, int) else self[key]
'''

PETS = """\
from .base import Animal
from .util import shout


class Dog(Animal):
    def sound(self) -> str:
        return shout("woof") + "!" * self.legs  # the dog barks once per leg

    def fetch(self, thing: str) -> str:
        return f"{self.name} fetched the {thing} happily"


class Cat(Animal):
    def sound(self) -> str:
        return shout("meow") + "?"  # a relative of Dog
"""

UTIL = """\
def shout(word: str) -> str:
    return word.upper()
"""

TEST = """\
from zoo.pets import Dog


def test_dog_barks():
    assert Dog("rex").sound() == "WOOF!!!!"
"""

DOG = PETS[PETS.index("class Dog") : PETS.index("class Cat")].strip()


@pytest.fixture(scope="module")
def zoo(tmp_path_factory) -> ClassBenchTask:
    tree = tmp_path_factory.mktemp("zoo") / "zoo"
    files = {
        "src/zoo/__init__.py": "",
        "src/zoo/base.py": BASE,
        "src/zoo/pets.py": PETS,
        "src/zoo/util.py": UTIL,
        "tests/test_pets.py": TEST,
        "pyproject.toml": '[project]\nname = "zoo"\nversion = "1.0"\n',
    }
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    return ClassBenchTask(
        task_id="zoo::src/zoo/pets.py::Dog",
        language="python",
        repo=str(tree),
        commit="",
        file_path="src/zoo/pets.py",
        class_name="Dog",
        module="zoo.pets",
        ground_truth_class=DOG,
        imports=["from .util import shout"],
        detailed_metadata="",
        sketchy_metadata="",
        detailed_description="A dog that barks and fetches.",
        sketchy_description="",
        test_directives=["tests/test_pets.py::test_dog_barks"],
        external_references=["zoo.util.shout"],
        class_tokens=0,
        paraphrased=False,
        relatives=["zoo.pets.Cat"],
    )


@pytest.fixture(scope="module")
def tools(zoo):
    return python_toolbox(zoo, visible_repository_of(zoo))


def test_class_info_lists_inherited_members_with_their_kinds(tools):
    info = tools.call("get_class_info", {"class_name": "Cat"})
    assert "Class signature: class Cat(Animal):" in info and "Class full name: zoo.pets.Cat" in info
    assert "* def sound(self) -> str: | public | defined in class `zoo.pets.Cat`" in info
    assert "* def __init__(self, name: str) -> None: | public | defined in class `zoo.base.Animal`" in info
    assert "* @staticmethod def kingdom() -> str: | public, static | defined in class `zoo.base.Animal`" in info
    assert "* def _tag(self) -> str: | protected | defined in class `zoo.base.Animal`" in info
    assert "* def __secret(self) -> int: | private | defined in class `zoo.base.Animal`" in info
    assert "* legs = 4 | public | defined in class `zoo.base.Animal`" in info
    assert "* self.name | public | defined in class `zoo.base.Animal`" in info
    assert "abstract" in tools.call(
        "get_class_info", {"class_name": "Animal"}
    )  # Cat's own sound hides the abstract one


def test_library_members_are_external_with_signatures_and_ranked_by_the_thought(tools):
    info = tools.call("get_class_info", {"class_name": "Registry"}, thought="I must move an entry to the end")
    assert "defined in class `zoo.base.Registry`" in info
    assert (
        "def move_to_end(self, key: _KT, last: bool=True) -> None | public, external | defined in class "
        "`collections.OrderedDict`" in info
    )
    assert "more members not shown" in info and info.count("\n* ") <= 10
    body = tools.call("get_method_body", {"class_name": "Registry", "method_name": "move_to_end"})
    assert body.startswith("`collections.OrderedDict.move_to_end` is defined outside the repository; its signature:")
    imported = tools.call("get_class_info", {"class_name": "OrderedDict"})
    assert imported.startswith("Class full name: collections.OrderedDict\nDefined outside the repository")


def test_overloads_are_all_shown(tools):
    signatures = tools.call("get_signature", {"class_name": "Registry", "method_name": "find"})
    assert signatures == (
        "Signatures of `find` in `zoo.base.Registry`:\n@overload\ndef find(self, key: int) -> Animal:\n"
        "@overload\ndef find(self, key: str) -> Animal:\ndef find(self, key):"
    )
    assert tools.call("get_method_body", {"class_name": "Registry", "method_name": "find"}).count("Definition of") == 3


def test_get_imports_suggests_the_repository_definition(tools):
    # shout and Animal stay imported in the module (Cat uses them): only what the module lacks is suggested.
    tools.attempt("class Dog(Animal):\n    def sound(self):\n        return shout(Registry().x) + OrderedDict().x\n")
    assert tools.call("get_imports", {}) == (
        "Import suggestions for the undefined symbols of the current attempt:\n"
        "* Registry: from zoo.base import Registry\n"
        "* OrderedDict: from collections import OrderedDict"
    )


def test_relatives_are_left_out_on_request(zoo):
    with_relatives = python_toolbox(zoo, visible_repository_of(zoo))
    assert "Class full name: zoo.pets.Cat" in with_relatives.call("get_class_info", {"class_name": "Cat"})
    without = python_toolbox(zoo, visible_repository_of(zoo, relatives=False))
    assert without.call("get_class_info", {"class_name": "Cat"}).startswith("Class `Cat` was not found")
    for query in ("meow", "a relative of Dog", 'return shout("meow") + "?"'):
        assert "meow" not in without.call("get_relevant_code", {"search_string": query})
        assert "meow" not in without.call("get_related_snippets", {"query": query})


def test_nothing_of_dog_or_its_test_is_reachable(zoo, tools):
    assert assert_unreachable(tools, zoo, extra_classes=["Animal", "Cat", "Registry"]) > 40
    without = python_toolbox(zoo, visible_repository_of(zoo, relatives=False))
    assert assert_unreachable(without, zoo, extra_classes=["Animal", "Registry"], relatives=False) > 30
