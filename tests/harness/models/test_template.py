"""The template backend: class metadata in the classbench format rendered into a description."""

import os
from pathlib import Path

import pytest

from benchsmith.builders.classbench.python.analysis import analyse_file, python_metadata
from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models import get_backend
from benchsmith.generation.models.base import ChatRequest, Message

GOLDEN = Path(__file__).parent.parent.parent / "golden" / "models"

SOURCE = '''import json

from ledger.store import Store, StoreError, register


@register("book")
class Book(Store):
    """A book of named amounts, kept within a limit."""

    currency: str = "EUR"
    kinds = ("credit", "debit")

    def __init__(
        self,
        path,
        limit: int = 100,
    ) -> None:
        super().__init__(path)
        self.entries: dict[str, float] = {}
        self.limit = limit
        self.history = [
            ("opened", path),
        ]

    def add(self, name: str, amount: float) -> float:
        """Add an amount to a named entry.

        Returns the entry's new total.
        """
        if len(self.entries) >= self.limit:
            raise StoreError(f"book full at {self.limit} entries")
        total = self.entries.get(name, 0.0) + amount
        self.entries[name] = total
        return total

    @property
    def total(self) -> float:
        return sum(self.entries.values())

    @classmethod
    def from_json(cls, text: str, *args, strict: bool = False, **options) -> "Book":
        """Build a book from its JSON form."""
        book = cls(*args, **options)
        for name, amount in json.loads(text).items():
            book.add(name, amount)
        return book
'''

# What benchsmith.core.metadata.ClassMetadata.render writes for SOURCE (checked below, so the sample stays real).
DETAILED = '''Class signature: class Book(Store):
Class full name: ledger.book.Book
File path: ledger/book.py
Decorators: @register("book")
Parent classes: Store
Member variables:
    currency: str = "EUR"
    kinds = ("credit", "debit")
    self.entries: dict[str, float] = {}
    self.limit = limit
    self.history = [
    ("opened", path),
]
Functions accessible:
<Function details for function no. 0>
Function signature: def __init__(
    self,
    path,
    limit: int = 100,
) -> None:
Function fqdn: ledger.book.Book.__init__
Decorators:
Function docstring:
Function body: def __init__(
    self,
    path,
    limit: int = 100,
) -> None:
    super().__init__(path)
    self.entries: dict[str, float] = {}
    self.limit = limit
    self.history = [
        ("opened", path),
    ]
</function details>
<Function details for function no. 1>
Function signature: def add(self, name: str, amount: float) -> float:
Function fqdn: ledger.book.Book.add
Decorators:
Function docstring: Add an amount to a named entry.

Returns the entry's new total.
Function body: def add(self, name: str, amount: float) -> float:
    """Add an amount to a named entry.

        Returns the entry's new total.
        """
    if len(self.entries) >= self.limit:
        raise StoreError(f"book full at {self.limit} entries")
    total = self.entries.get(name, 0.0) + amount
    self.entries[name] = total
    return total
</function details>
<Function details for function no. 2>
Function signature: def total(self) -> float:
Function fqdn: ledger.book.Book.total
Decorators: @property
Function docstring:
Function body: def total(self) -> float:
    return sum(self.entries.values())
</function details>
<Function details for function no. 3>
Function signature: def from_json(cls, text: str, *args, strict: bool = False, **options) -> "Book":
Function fqdn: ledger.book.Book.from_json
Decorators: @classmethod
Function docstring: Build a book from its JSON form.
Function body: def from_json(cls, text: str, *args, strict: bool = False, **options) -> "Book":
    """Build a book from its JSON form."""
    book = cls(*args, **options)
    for name, amount in json.loads(text).items():
        book.add(name, amount)
    return book
</function details>
'''

SKETCHY = """Class signature: class Book(Store):
Class full name: ledger.book.Book
File path: ledger/book.py
Decorators: @register("book")
Parent classes: Store
Member variables:
    currency: str = "EUR"
    kinds = ("credit", "debit")
    self.entries: dict[str, float] = {}
    self.limit = limit
    self.history = [
    ("opened", path),
]
Functions accessible:
<Function details for function no. 0>
Function signature: def __init__(
    self,
    path,
    limit: int = 100,
) -> None:
Function fqdn: ledger.book.Book.__init__
Decorators:
Function docstring:
</function details>
<Function details for function no. 1>
Function signature: def add(self, name: str, amount: float) -> float:
Function fqdn: ledger.book.Book.add
Decorators:
Function docstring: Add an amount to a named entry.

Returns the entry's new total.
</function details>
<Function details for function no. 2>
Function signature: def total(self) -> float:
Function fqdn: ledger.book.Book.total
Decorators: @property
Function docstring:
</function details>
<Function details for function no. 3>
Function signature: def from_json(cls, text: str, *args, strict: bool = False, **options) -> "Book":
Function fqdn: ledger.book.Book.from_json
Decorators: @classmethod
Function docstring: Build a book from its JSON form.
</function details>
"""


def describe_request(purpose: str, metadata: str, item_id: str = "ledger-Book") -> ChatRequest:
    prompt = (Message("user", "Describe the class."),)
    return ChatRequest(
        messages=prompt, item_id=item_id, purpose=purpose, context={"metadata": metadata, "class_name": "Book"}
    )


def rendered(purpose: str, metadata: str) -> str:
    response = get_backend("template").complete(describe_request(purpose, metadata))
    assert response.model == "template-v1" and len(response.texts) == 1
    return response.texts[0]


def strip_line_ends(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def test_the_sample_is_what_the_metadata_builder_writes(tmp_path):
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "book.py").write_text(SOURCE)
    (info,) = analyse_file(tmp_path / "ledger" / "book.py", tmp_path, "", {"ledger"})
    assert strip_line_ends(python_metadata(info).render(detailed=True)) == DETAILED
    assert strip_line_ends(python_metadata(info).render(detailed=False)) == SKETCHY
    # the builder's own output, trailing spaces and all, reads the same
    assert rendered("describe/detailed", python_metadata(info).render(detailed=True)) == rendered(
        "describe/detailed", DETAILED
    )


@pytest.mark.parametrize("kind, metadata", [("detailed", DETAILED), ("sketchy", SKETCHY)])
def test_description_matches_golden(kind, metadata):
    text = rendered(f"describe/{kind}", metadata)
    golden = GOLDEN / f"template_{kind}.txt"
    if os.environ.get("BENCHSMITH_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_detailed_names_what_bodies_use_without_copying_them():
    detailed = rendered("describe/detailed", DETAILED)
    sketchy = rendered("describe/sketchy", SKETCHY)
    for fact in ("`StoreError`", "`json.loads`", "`self.entries.get`", "initialised to `{}`"):
        assert fact in detailed and fact not in sketchy
    body_lines = [line.strip() for line in SOURCE.splitlines() if len(line.strip()) > 25 and "def " not in line]
    copied = [line for line in body_lines if line in detailed and not line.startswith(('"""', "Returns"))]
    assert copied == []
    for method in ("constructor of `Book`", "`add`", "property `total`", "class method `from_json`"):
        assert method in sketchy
    assert rendered("describe/detailed", DETAILED) == detailed  # deterministic


def test_java_metadata_is_described_as_java():
    java = (
        "Class signature: public class Stack<T> extends AbstractList<T>\nClass full name: org.demo.Stack\n"
        "File path: src/main/java/org/demo/Stack.java\nDecorators:\nParent classes: AbstractList<T>\n"
        "Member variables:\n    private int size = 0;\nFunctions accessible:\n<Function details for function no. 0>\n"
        "Function signature: public int size()\nFunction fqdn: org.demo.Stack.size\nDecorators: @Override\n"
        "Function docstring: The number of elements.\n</function details>\n"
    )
    text = rendered("describe/sketchy", java)
    assert "is a Java class defined in `src/main/java/org/demo/Stack.java` (package `org.demo`)." in text
    assert "The method `size` (public) takes no arguments and returns `int`. It is annotated with `@Override`." in text
    assert "It extends `AbstractList<T>`." in text and "the field `size` (of type `int`)." in text
    assert "initialised" not in text  # SKETCHY leaves initial values out
    assert "initialised to `0`" in rendered("describe/detailed", java)


def test_only_descriptions_with_metadata_are_written():
    backend = get_backend("template")
    with pytest.raises(BenchsmithError, match="only writes descriptions, not 'generate/zero-shot'"):
        backend.complete(ChatRequest(messages=(), item_id="Cli-1", purpose="generate/zero-shot"))
    with pytest.raises(BenchsmithError, match="^ledger-Book: the template backend needs the class metadata"):
        backend.complete(ChatRequest(messages=(), item_id="ledger-Book", purpose="describe/detailed"))
    with pytest.raises(BenchsmithError, match="^ledger-Book: metadata is not in the classbench format"):
        backend.complete(describe_request("describe/detailed", "class Book: pass"))
