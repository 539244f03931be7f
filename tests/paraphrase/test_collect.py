import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.python.collect import collect_identifiers
from benchsmith.paraphrase.python.index import build_index
from benchsmith.paraphrase.python.run import default_classes
from benchsmith.paraphrase.python.source import load_repository
from tests.helpers.paraphrase import TINYREPO


@pytest.fixture(scope="module")
def index():
    return build_index(load_repository(TINYREPO))


def test_collects_the_repository_identifiers_of_a_class(index):
    names = collect_identifiers(index, [("tinycodec/core.py", "Encoder")])
    expected = {
        "Encoder",
        "encode",
        "pad",
        "from_config",
        "block_count",
        "width",
        "fill_char",
        "text",
        "strict",
        "chunk",
        "chunks",
        "padded",
        "start",
        "options",
        "cache",
        "calls",
        "wrapper",
        "separator",
        "mode",
        "DEFAULT_WIDTH",
        "traced",
        "get",
        "key",
        "default",
        "remember",
        "wrap",
        "describe",
        "renderer",
        "render_plain",
        "other",
        "config",
        "cls",
        "self",
        "__init__",
        "__eq__",
        "__hash__",
        "__repr__",
    }
    assert expected <= names


def test_names_from_other_packages_and_builtins_are_not_collected(index):
    names = collect_identifiers(index, [("tinycodec/core.py", "Encoder")])
    # imported from the standard library, builtins, attributes of external objects
    assert names.isdisjoint(
        {
            "textwrap",
            "TextWrapper",
            "OrderedDict",
            "wraps",
            "len",
            "range",
            "map",
            "list",
            "getattr",
            "isinstance",
            "hash",
            "ValueError",
            "ljust",
            "join",
            "staticmethod",
        }
    )


def test_cross_module_classes(index):
    names = collect_identifiers(index, [("tinycodec/fancy.py", "FancyEncoder")])
    assert {
        "FancyEncoder",
        "Encoder",
        "DEFAULT_WIDTH",
        "border",
        "_border",
        "compare",
        "handle",
        "request",
        "CodecError",
        "position",
        "widest",
    } <= names
    assert "core" in names  # a repository module: collected here, excluded later


def test_default_classes_skip_test_files(index):
    assert default_classes(index) == [
        ("tinycodec/core.py", "Encoder"),
        ("tinycodec/fancy.py", "CodecError"),
        ("tinycodec/fancy.py", "FancyEncoder"),
    ]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (("tinycodec/missing.py", "Encoder"), "tinycodec/missing.py: no such Python file"),
        (("tinycodec/core.py", "Decoder"), "tinycodec/core.py::Decoder: no such class in the file"),
    ],
)
def test_unknown_targets_are_reported(index, target, message):
    with pytest.raises(BenchsmithError, match=message):
        collect_identifiers(index, [target])
