"""python_dedup_key: two classbench candidates share a key only when Python reads them as the same program."""

import pytest

from benchsmith.runners.python.class_runner import python_dedup_key

GOLD = """\
class Counter:
    def __init__(self):
        self.total = 0
        self.count = 0

    def bump(self, n):
        if n > 0:
            self.total += n
            self.count += 1
        return self.count
"""

# The gold class re-indented: `self.count += 1` leaves the `if` body, so bump(-1) now counts.
MOVED_OUT_OF_THE_IF = GOLD.replace("            self.count += 1", "        self.count += 1")


def run(code: str) -> tuple[int, int]:
    namespace: dict = {}
    exec(compile(code, "<candidate>", "exec"), namespace)
    counter = namespace["Counter"]()
    counter.bump(2)
    counter.bump(-1)
    return counter.total, counter.count


def test_a_statement_moved_out_of_a_block_is_another_program():
    assert run(GOLD) != run(MOVED_OUT_OF_THE_IF)  # the two really differ ...
    assert python_dedup_key(GOLD) != python_dedup_key(MOVED_OUT_OF_THE_IF)  # ... so they do not share a verdict


@pytest.mark.parametrize(
    "variant",
    [
        GOLD.replace("    ", "  "),  # indent width 2
        GOLD.replace("    ", "\t"),  # tabs, consistently
        GOLD.replace("\n", "\r\n"),  # CRLF line ends
        GOLD.replace("\n", "\r"),  # CR line ends
        GOLD.replace("self.total += n", "self.total += n  # add it").replace(
            "class Counter:", "# a counter\nclass Counter:"
        ),
        GOLD.replace("\n\n", "\n\n\n\n").replace("    def bump", "\n    def bump"),  # blank lines
        GOLD.replace("if n > 0:", "if n > \\\n                0:"),  # a backslash continuation
        GOLD + "\n\n",
    ],
    ids=["indent-2", "tabs", "crlf", "cr", "comments", "blank-lines", "continuation", "trailing-lines"],
)
def test_layout_and_comments_keep_the_key(variant):
    assert run(variant) == run(GOLD)
    assert python_dedup_key(variant) == python_dedup_key(GOLD)


def test_token_changes_and_kinds_change_the_key():
    assert python_dedup_key(GOLD.replace("n > 0", "n >= 0")) != python_dedup_key(GOLD)
    assert python_dedup_key(GOLD.replace("self.count = 0", "self.count = '0'")) != python_dedup_key(GOLD)
    assert python_dedup_key(GOLD.replace("if n > 0:", "if (n > 0):")) != python_dedup_key(GOLD)  # brackets are tokens
    # a statement joined onto the `if` line with `;` is in the body all the same ...
    one_line = GOLD.replace(
        "if n > 0:\n            self.total += n\n            self.count += 1",
        "if n > 0: self.total += n; self.count += 1",
    )
    assert run(one_line) == run(GOLD)
    # ... but the token sequence differs (no NEWLINE/INDENT): only a lost dedup, never a shared wrong verdict
    assert python_dedup_key(one_line) != python_dedup_key(GOLD)


def test_a_comment_ended_by_a_lone_cr_hides_nothing():
    # Python ends a line (and the comment) at a lone "\r": the `self.count += 1` after it runs.
    hidden = GOLD.replace("            self.count += 1", "            pass  # note\r            self.count += 1")
    commented = GOLD.replace("            self.count += 1", "            pass  # note            self.count += 1")
    assert run(hidden) != run(commented)
    assert python_dedup_key(hidden) != python_dedup_key(commented)
    assert python_dedup_key(hidden) == python_dedup_key(
        GOLD.replace("            self.count += 1", "            pass\n            self.count += 1")
    )


def test_inconsistent_tabs_do_not_share_a_key_with_the_program_they_resemble():
    # tokenize reads the tab as 8 columns, like the 8 spaces after it; the compiler refuses the mix (TabError).
    good = "class A:\n    def f(self):\n        x = 1\n        return x\n"
    mixed = "class A:\n    def f(self):\n\tx = 1\n        return x\n"
    with pytest.raises(TabError):
        compile(mixed, "<candidate>", "exec")
    assert python_dedup_key(mixed) != python_dedup_key(good)


def test_unparseable_candidates_share_a_key_only_when_byte_identical():
    prose = "Here is the class:\nclass A:\n    x = 'a  b'\n"
    assert python_dedup_key(prose) == python_dedup_key(prose)
    assert python_dedup_key(prose) != python_dedup_key(
        prose.replace("a  b", "a b")
    )  # the old fallback collapsed spaces
    assert python_dedup_key(prose) != python_dedup_key(prose + "\n")


def test_a_coding_declaration_where_the_class_opens_its_module_keeps_the_exact_bytes():
    declared = "# -*- coding: latin-1 -*-\n" + GOLD
    assert python_dedup_key(declared) != python_dedup_key(GOLD)
    assert python_dedup_key(declared) == python_dedup_key(declared)
