"""What keeps its spelling, and why; and what is renamed at both ends."""

import textwrap

import pytest

from benchsmith.paraphrase.python.repository import paraphrase_repository
from benchsmith.paraphrase.python.run import paraphrase_classes
from tests.helpers.paraphrase import GOLDEN_SEED, TINYREPO


def paraphrase_files(tmp_path, files, classes=None, strict=False):
    repo = tmp_path / "repo"
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(textwrap.dedent(text))
    out = tmp_path / "out"
    report = paraphrase_classes(repo, out, seed=0, classes=classes, strict=strict)
    return report, (lambda rel: (out / rel).read_text())


def rules(report):
    return {name: e.rule for name, e in report.excluded.items()}


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("get", "common-attribute"),  # dict.get: the RepoClassBench paper's "common identifiers"
        ("encode", "common-attribute"),  # str.encode
        ("wrap", "external-attribute"),  # self.wrapper.wrap where wrapper is a textwrap.TextWrapper
        ("value", "external-attribute"),  # pytest's ExceptionInfo.value in the tests
        ("mode", "string"),  # getattr(self, 'mode')
        ("render_plain", "dynamic"),  # getattr(self, "render_" + self.mode)
        ("request", "fixture"),  # pytest's own fixture, a parameter of a test
        ("fill_char", "keyword"),  # passed through **options
        ("core", "module"),
        ("__eq__", "reserved"),
        ("self", "convention"),
    ],
)
def test_fixture_exclusions(paraphrased, name, rule):
    _, report = paraphrased
    assert report.excluded[name].rule == rule
    assert report.seed == GOLDEN_SEED


def test_keyword_of_an_external_call_keeps_its_spelling(tmp_path):
    report, read = paraphrase_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/reader.py": """
        class Reader:
            def __init__(self, path, charset="utf-8"):
                self.path = path
                self.charset = charset

            def read_all(self):
                with open(self.path, encoding=self.charset) as handle:
                    return handle.read()


        def make(charset):
            return Reader("x", charset=charset)
        """,
        },
    )
    charset, reader = report.mapping["charset"], report.mapping["Reader"]
    text = read("pkg/reader.py")
    assert f"open(self.{report.mapping['path']}, encoding=self.{charset})" in text  # open's keyword stays
    assert f'{reader}("x", {charset}={charset})' in text  # the repository's keyword follows its parameter


def test_names_of_other_packages_and_their_subclass_hooks(tmp_path):
    report, read = paraphrase_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/log.py": """
        import logging
        from json import loads
        from thirdparty import Base


        class Sink(logging.Handler):
            def emit(self, record):
                self.records.append(self._shape(record))

            def _shape(self, record):
                return record

            def flush_all(self):
                self.records = []


        class Codec:
            def loads(self, text):
                return loads(text)


        class Task(Base):
            def run(self):
                return 1
        """,
        },
    )
    found = rules(report)
    assert found["emit"] == "external-base"  # logging.Handler.emit: the base calls it
    assert found["_shape"] == "external-base"  # a private name in a subclass of an external class
    assert found["loads"] == "external-import"
    assert found["run"] == "external-base"  # thirdparty.Base cannot be inspected: everything it defines stays
    assert "flush_all" in report.mapping and "Sink" in report.mapping
    assert "from json import loads" in read("pkg/log.py")


def test_attributes_of_external_objects_are_followed_through_instance_attributes(tmp_path):
    report, _ = paraphrase_files(
        tmp_path,
        {
            "cli.py": """
        import argparse


        class Command:
            def __init__(self):
                self.parser = argparse.ArgumentParser()

            def parse_args(self, argv):
                return self.parser.parse_args(argv)

            def run(self, argv):
                return self.parse_args(argv)
        """
        },
    )
    assert report.excluded["parse_args"].rule == "external-attribute"
    assert "parser" in report.mapping and "Command" in report.mapping


def test_unknown_receivers_strict_and_standard_library_names(tmp_path):
    files = {
        "sig.py": """
        import inspect


        class Binder:
            def bind(self, *args):
                return args

            def frobnicate(self):
                return 1


        def check(signature, args):
            return signature.bind(*args)


        def poke(thing):
            return thing.frobnicate()
        """
    }
    report, _ = paraphrase_files(tmp_path / "lenient", files)
    assert report.excluded["bind"].rule == "stdlib-attribute"  # inspect.Signature.bind on an unknown object
    assert "frobnicate" in report.mapping
    strict, _ = paraphrase_files(tmp_path / "strict", files, strict=True)
    assert strict.excluded["frobnicate"].rule == "unknown-receiver"


def test_strings_that_name_identifiers(tmp_path):
    report, read = paraphrase_files(
        tmp_path,
        {
            "shapes.py": """
        from collections import namedtuple
        from functools import partial

        Point = namedtuple("Point", "x y")


        class Shape:
            __slots__ = ("_size", "label")

            def __init__(self, size, label):
                self._size = size
                self.label = label

            def grow(self, factor) -> "Shape":
                return Shape(self._size * factor, label=self.label)

            def describe(self):
                return f"{type(self).__name__}({self._size})"

            def build(self, scale):
                return partial(Shape, label=scale)


        def lookup(shape):
            return getattr(shape, "grow")
        """,
            "test_shapes.py": """
        from shapes import Shape


        def test_describe():
            assert Shape(2, "a").describe() == "Shape(2)"
        """,
        },
    )
    found = rules(report)
    assert found["grow"] == "string"  # getattr(shape, "grow")
    assert found["Shape"] == "runtime-name"  # spelled in a test string while __name__ is read
    assert found["label"] == "keyword"  # partial(Shape, label=...) forwards it
    text = read("shapes.py")
    size = report.mapping["_size"]
    assert f'__slots__ = ("{size}", "label")' in text  # kept in step with the attribute
    assert "factor" in report.mapping and 'namedtuple("Point", "x y")' in text


def test_string_annotations_are_renamed_as_code(tmp_path):
    report, read = paraphrase_files(
        tmp_path,
        {
            "tree.py": """
        from typing import Literal, Optional


        class Tree:
            def child(self, kind: Literal["leaf"] = "leaf") -> "Optional[Tree]":
                leaf = kind
                return None if leaf else Tree()
        """
        },
    )
    tree, kind, child = report.mapping["Tree"], report.mapping["kind"], report.mapping["child"]
    assert f'def {child}(self, {kind}: Literal["leaf"] = "leaf") -> "Optional[{tree}]":' in read("tree.py")
    assert report.excluded["leaf"].rule == "string"  # Literal values are strings, not names


def test_import_paths_never_change(tmp_path):
    report, read = paraphrase_files(
        tmp_path,
        {
            "paths.py": """
        import os.path


        class Finder:
            def find(self, path):
                return path
        """
        },
    )
    assert "path" in report.mapping
    text = read("paths.py")
    assert text.startswith("\nimport os.path\n") and f"return {report.mapping['path']}" in text


def test_paraphrase_repository_with_explicit_names(tmp_path):
    report = paraphrase_repository(TINYREPO, tmp_path / "out", {"Encoder", "get", "nowhere"}, seed=3)
    assert set(report.mapping) == {"Encoder"}
    assert {n: e.rule for n, e in report.excluded.items()} == {"get": "common-attribute", "nowhere": "absent"}
    assert report.files_changed == [
        "tests/conftest.py",
        "tests/test_codec.py",
        "tinycodec/__init__.py",
        "tinycodec/core.py",
        "tinycodec/fancy.py",
    ]
