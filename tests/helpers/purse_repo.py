"""A repository written here whose suite shares tests through base classes and wraps them in decorators (purse).

Its tests: unittest inheritance across files (``TestShared(Core)``, through an alias) and from a contract class in
the same file, ``mock.patch`` on a method and on a function, a warning from a test's frame, and a test a factory in
another file makes. With it, the attacks that try to make an inherited test run a donor, and a purse wrong for one
owner. Used by tests/classbench/test_inherited_tests.py and test_redteam7_inherited.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchsmith.core.schema import ClassBenchTask, read_records
from tests.helpers.cli import run_cli
from tests.helpers.sandbox_tree import write_tree

MONEY = '''\
"""What a coin may be worth."""

import warnings

CURRENCY = "EUR"


def legacy_currency():
    warnings.warn("legacy_currency() is deprecated: use CURRENCY", DeprecationWarning, stacklevel=2)
    return CURRENCY


def require_positive(value):
    if value <= 0:
        raise ValueError("a coin has a positive value")
    return value
'''

PURSE = '''\
"""A purse of coins."""

from .money import CURRENCY, require_positive


class Purse:
    """Coins of one owner."""

    def __init__(self, owner="nobody"):
        self.owner = owner
        self.coins = []

    def add(self, value):
        self.coins.append(require_positive(value))
        return self

    def total(self):
        return sum(self.coins)

    def largest(self):
        return max(self.coins) if self.coins else 0

    def label(self):
        return f"{self.owner}: {self.total()} {CURRENCY}"
'''

TEST_CORE = """\
import unittest
from unittest import mock

from purse import Purse


class TestCore(unittest.TestCase):
    def make(self):
        return Purse("ann")

    def test_total(self):
        self.assertEqual(self.make().add(2).add(3).total(), 5)

    def test_rejects_nothing(self):
        with self.assertRaises(ValueError):
            self.make().add(0)

    def test_largest(self):
        self.assertEqual(self.make().add(2).add(7).largest(), 7)

    @mock.patch("purse.purse.CURRENCY", "USD")
    def test_label_in_dollars(self):
        purse = self.make()
        self.assertEqual(purse.add(1).label(), purse.owner + ": 1 USD")
"""

# Inherits every test of another file's class, under another name, as transitions' test_parallel.py does.
TEST_SHARED = """\
from purse import Purse

from .test_core import TestCore as Core


class TestShared(Core):
    def make(self):
        return Purse("bob")

    def test_label(self):
        self.assertEqual(self.make().add(4).label(), "bob: 4 EUR")
"""

# A contract in the same file, never collected itself, run by two classes.
TEST_CONTRACT = """\
from unittest import mock

from purse import Purse
from purse.money import legacy_currency


@mock.patch("purse.purse.CURRENCY", "GBP")
def test_label_in_pounds():
    # the warning names this frame: warnings keeps its registry in this module's globals from now on
    assert legacy_currency() == "EUR"
    assert Purse("dee").add(2).label() == "dee: 2 GBP"


class PurseContract:
    owner = "nobody"

    def make(self):
        return Purse(self.owner)

    def test_empty_total(self):
        assert self.make().total() == 0

    def test_owner(self):
        assert self.make().owner == self.owner

    def test_rejects_negative(self):
        try:
            self.make().add(-1)
        except ValueError:
            return
        raise AssertionError("a negative coin was taken")


class TestDefault(PurseContract):
    pass


class TestNamed(PurseContract):
    owner = "carl"
"""

# Tests of the same names that pass whatever the purse does: the donors a forger would reach for.
TEST_OTHER = """\
from purse.money import require_positive


class TestOther:
    def test_largest(self):
        assert max([2, 7]) == 7

    def test_rejects_negative(self):
        assert require_positive(2) == 2
"""


WALLET = '''\
"""A wallet of notes."""

from .money import CURRENCY, require_positive


class Wallet:
    """Notes of one owner."""

    def __init__(self):
        self.notes = []

    def put(self, value):
        self.notes.append(require_positive(value))
        return self

    def worth(self):
        return f"{sum(self.notes)} {CURRENCY}"
'''

# Tests made by a factory in another file: what pytest collects is the factory's function, which no check of a
# test module can tell from a forger's donor. eval would call every candidate of Wallet forged; the build says so.
TEST_WALLET = """\
from purse.wallet import Wallet

from .factories import worth_test

test_worth_of_five = worth_test(Wallet, 5, "5 EUR")


def test_put_returns_the_wallet():
    wallet = Wallet()
    assert wallet.put(1) is wallet
"""

FACTORIES = """\
def worth_test(cls, value, expected):
    def test():
        assert cls().put(value).worth() == expected

    return test
"""


def write_inheriting_repo(root: Path) -> Path:
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "purse"\nversion = "0.1"\n\n[tool.setuptools]\npackages = ["purse"]\n',
        "purse/__init__.py": "from .purse import Purse\n",
        "purse/money.py": MONEY,
        "purse/purse.py": PURSE,
        "purse/wallet.py": WALLET,
        "tests/__init__.py": "",
        "tests/factories.py": FACTORIES,
        "tests/test_wallet.py": TEST_WALLET,
        "tests/test_core.py": TEST_CORE,
        "tests/test_shared.py": TEST_SHARED,
        "tests/test_contract.py": TEST_CONTRACT,
        "tests/test_other.py": TEST_OTHER,
    }
    return write_tree(root, files)


# Each attack waits, in an import hook the candidate's module leaves behind, until the base class's test module is
# loaded (pytest imports the test files after the candidate's module), imports the donors' file, and acts once.
DEFERRED = """
import sys as _s


class _Later:
    done = False

    def find_spec(self, name, path=None, target=None):
        if not self.done and "tests.test_core" in _s.modules:
            self.done = True
            try:
                import tests.test_other as other

                _act(_s.modules["tests.test_core"], other)
            except Exception:
                pass
        return None


_s.meta_path.insert(0, _Later())
"""

ATTACKS = {
    # another class's test of the same name, put in the base class in place of its own
    "donor-in-base": """
def _act(core, other):
    core.TestCore.test_largest = other.TestOther.test_largest
""",
    # the base class a subclass will inherit from, swapped for one the candidate built from the donors
    "swapped-base": """
import unittest as _u


def _act(core, other):
    real = core.TestCore

    class TestCore(other.TestOther, _u.TestCase):
        make = real.make
        test_total = real.test_total
        test_rejects_nothing = real.test_rejects_nothing
        test_label_in_dollars = real.test_label_in_dollars

    core.TestCore = TestCore
""",
    # the same class under the name and module of the donors' class
    "swapped-base-as-donor": """
import unittest as _u


def _act(core, other):
    real = core.TestCore
    names = ("make", "test_total", "test_rejects_nothing", "test_label_in_dollars")
    forged = type(
        "TestOther",
        (_u.TestCase,),
        {
            "__module__": "tests.test_other",
            "__qualname__": "TestOther",
            "test_largest": other.TestOther.test_largest,
            **{name: vars(real)[name] for name in names},
        },
    )
    core.TestCore = forged
""",
    # the base class's own test deleted and the donors' class put among its bases
    "rebased": """
import unittest as _u


def _act(core, other):
    del core.TestCore.test_largest
    core.TestCore.__bases__ = (other.TestOther, _u.TestCase)
""",
}


def wrong_for_bob(gold: str) -> str:
    """The gold, wrong for one owner only: bob's largest coin is his smallest. Bob's tests are TestShared's, all
    inherited from test_core.py's TestCore but its own test_label."""
    wrong = gold.replace(
        "return max(self.coins) if self.coins else 0",
        "return (min if self.owner == 'bob' else max)(self.coins) if self.coins else 0",
    )
    assert wrong != gold
    return wrong


def built_purse(root: Path) -> tuple[Path, ClassBenchTask]:
    """``classbench build`` on the purse repository written under *root*: its dataset and Purse's task."""
    repo = write_inheriting_repo(root / "purse")
    out = root / "purse.parquet"
    completed = run_cli("classbench", "build", "--repo", str(repo), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    tasks = [task for task in read_records(out, ClassBenchTask) if task.class_name == "Purse"]
    assert len(tasks) == 1, json.loads(out.with_suffix(".card.json").read_text())
    return out, tasks[0]
