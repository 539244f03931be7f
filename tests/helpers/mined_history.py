"""A small Maven project's git history written here for ``nl2fix mine``'s tests.

Its commits, oldest first (each fix's bug id is its commit count):

1. the initial import: ``Calc`` and a passing ``CalcTest``;
2. a refactoring that names no issue;
3. ``CLI-13``: a single-method fix of ``Calc.half`` with a test that fails before it (Jira) → an instance;
4. ``CLI-15``: a fix of two methods with a test → rejected, multi-method;
5. ``CLI-16``: a single-method fix without a test → rejected, no test;
6. ``#531``: a single-method fix of ``Calc.sign`` whose new test class holds a trigger test and a flaky one (it
   fails half the time on either version) → an instance, the flaky test dropped (GitHub);
7. ``CLI-17``: a single-method fix of ``Calc.negate`` whose test is JUnit 5 (Jupiter) → an instance, whose report the
   tracker does not have (it keeps its link).

Dates are fixed (2025-01-0N), so the history is the same on every machine.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>calc</artifactId>
  <version>1.0</version>
  <issueManagement><url>https://issues.apache.org/jira/browse/CLI</url></issueManagement>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
"""

CALC = "src/main/java/org/example/calc/Calc.java"
CALC_TEST = "src/test/java/org/example/calc/CalcTest.java"
SIGN_TEST = "src/test/java/org/example/calc/SignTest.java"
NEGATE_TEST_PATH = "src/test/java/org/example/calc/NegateTest.java"

CALC_V1 = """package org.example.calc;

/** Small integer helpers. */
public final class Calc {
    private Calc() {
    }

    /** Half of n, rounded toward zero. */
    public static int half(int n) {
        return n >> 1;
    }

    /** -1, 0 or 1. */
    public static int sign(int n) {
        return n < 0 ? -1 : 1;
    }

    public static int max(int a, int b) {
        return a > b ? a : b;
    }

    public static int min(int a, int b) {
        return a > b ? a : b;
    }

    public static int clamp(int n, int low, int high) {
        return n < low ? low : n;
    }

    public static int negate(int n) {
        return n;
    }
}
"""

NEGATE_TEST = """package org.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class NegateTest {
    @Test
    void negatesPositive() {
        assertEquals(-3, Calc.negate(3));
    }

    @Test
    void negatesZero() {
        assertEquals(0, Calc.negate(0));
    }
}
"""

CALC_TEST_V1 = """package org.example.calc;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CalcTest {
    @Test
    public void halfOfPositive() {
        assertEquals(3, Calc.half(7));
    }

    @Test
    public void maxOfTwo() {
        assertEquals(5, Calc.max(2, 5));
    }
}
"""

HALF_TEST = """
    @Test
    public void halfOfNegativeRoundsTowardZero() {
        assertEquals(-3, Calc.half(-7));
    }
"""

MIN_TEST = """
    @Test
    public void minOfTwo() {
        assertEquals(2, Calc.min(2, 5));
    }
"""

SIGN_TEST_TEXT = """package org.example.calc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Random;
import org.junit.Test;

public class SignTest {
    @Test
    public void signOfZero() {
        assertEquals(0, Calc.sign(0));
    }

    @Test
    public void signOfPositive() {
        assertEquals(1, Calc.sign(4));
    }

    @Test
    public void flakyOnEveryVersion() {
        assertTrue("half of the runs fail", new Random().nextBoolean());
    }
}
"""


def _commit(repo: Path, message: str, day: int, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    date = f"2025-01-{day:02d}T12:00:00+00:00"
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
    }
    identity = ["-c", "user.name=Benchsmith Test", "-c", "user.email=test@benchsmith.invalid"]
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", *identity, "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)


def write_history(repo: Path) -> Path:
    """The history above in a new repository at *repo*; returns *repo*."""
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    calc = CALC_V1
    _commit(repo, "Initial import", 1, {"pom.xml": POM, CALC: calc, CALC_TEST: CALC_TEST_V1})
    calc = calc.replace(
        "public static int max(int a, int b) {\n        return a > b ? a : b;",
        "public static int max(int a, int b) {\n        return Math.max(a, b);",
    )
    _commit(repo, "Use Math.max", 2, {CALC: calc})
    calc = calc.replace("return n >> 1;", "return n / 2;")
    test = CALC_TEST_V1.replace("\n}\n", HALF_TEST + "}\n")
    _commit(repo, "CLI-13: half rounds negative numbers toward zero", 3, {CALC: calc, CALC_TEST: test})
    calc = calc.replace(
        "public static int min(int a, int b) {\n        return a > b ? a : b;",
        "public static int min(int a, int b) {\n        return a < b ? a : b;",
    )
    calc = calc.replace("return Math.max(a, b);", "return a >= b ? a : b;")
    test = test.replace("\n}\n", MIN_TEST + "}\n")
    _commit(repo, "[CLI-15] min returned the larger number", 4, {CALC: calc, CALC_TEST: test})
    calc = calc.replace("return n < low ? low : n;", "return n < low ? low : n > high ? high : n;")
    _commit(repo, "Fix CLI-16: clamp ignored its upper bound", 5, {CALC: calc})
    calc = calc.replace("return n < 0 ? -1 : 1;", "return n < 0 ? -1 : n == 0 ? 0 : 1;")
    _commit(repo, "The sign of zero is zero (fixes #531)", 6, {CALC: calc, SIGN_TEST: SIGN_TEST_TEXT})
    calc = calc.replace(
        "public static int negate(int n) {\n        return n;", "public static int negate(int n) {\n        return -n;"
    )
    _commit(repo, "CLI-17: negate returned its argument", 7, {CALC: calc, NEGATE_TEST_PATH: NEGATE_TEST})
    return repo


UNBUILDABLE_POM = POM.replace(
    "<modelVersion>4.0.0</modelVersion>",
    """<modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example.absent</groupId><artifactId>absent-parent</artifactId><version>9</version></parent>""",
).replace(
    "<dependencies>",
    """<dependencies>
    <dependency><groupId>org.example.absent</groupId><artifactId>absent-library</artifactId><version>1.0</version></dependency>""",
)


def write_unbuildable_history(repo: Path) -> Path:
    """A fix that cannot be built offline: its parent pom and a library it imports are nowhere at hand."""
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    calc = CALC_V1.replace(
        "/** Small integer helpers. */", "import org.example.absent.Library;\n\n/** Small integer helpers. */"
    )
    _commit(repo, "Initial import", 1, {"pom.xml": UNBUILDABLE_POM, CALC: calc, CALC_TEST: CALC_TEST_V1})
    test = CALC_TEST_V1.replace("\n}\n", HALF_TEST + "}\n")
    _commit(
        repo,
        "CLI-13: half rounds negative numbers toward zero",
        2,
        {CALC: calc.replace("return n >> 1;", "return n / 2;"), CALC_TEST: test},
    )
    return repo


HALVER = "src/main/java/org/example/calc/Halver.java"
HALVER_TEXT = """package org.example.calc;

/** Halves through Calc: its tests load Calc without naming it. */
public final class Halver {
    private final int n;

    public Halver(int n) {
        this.n = n;
    }

    public int halved() {
        return Calc.half(n);
    }
}
"""
WORDS = "src/main/java/org/example/calc/Words.java"
WORDS_TEXT = """package org.example.calc;

public final class Words {
    private Words() {
    }

    public static String shout(String s) {
        return s.toUpperCase();
    }
}
"""
HALVER_TEST = "src/test/java/org/example/calc/HalverTest.java"
HALVER_TEST_TEXT = """package org.example.calc;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class HalverTest {
    @Test
    public void halvesSeven() {
        assertEquals(3, new Halver(7).halved());
    }
}
"""
WORDS_TEST = "src/test/java/org/example/calc/WordsTest.java"
WORDS_TEST_TEXT = """package org.example.calc;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** Nothing here runs Calc; this comment only names it. */
public class WordsTest {
    @Test
    public void shouts() {
        assertEquals("CALC", Words.shout("Calc"));
    }
}
"""


def write_indirect_history(repo: Path) -> Path:
    """``CLI-13`` (``Calc.half``) in a project where one test class reaches ``Calc`` only through ``Halver`` (its
    source never names ``Calc``) and another names ``Calc`` only in a comment and a string: the relevant tests by
    class loading are ``CalcTest`` and ``HalverTest``; reading the sources would give ``CalcTest`` and ``WordsTest``.
    A last commit names no issue."""
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _commit(
        repo,
        "Initial import",
        1,
        {
            "pom.xml": POM,
            CALC: CALC_V1,
            CALC_TEST: CALC_TEST_V1,
            HALVER: HALVER_TEXT,
            WORDS: WORDS_TEXT,
            HALVER_TEST: HALVER_TEST_TEXT,
            WORDS_TEST: WORDS_TEST_TEXT,
        },
    )
    test = CALC_TEST_V1.replace("\n}\n", HALF_TEST + "}\n")
    _commit(
        repo,
        "CLI-13: half rounds negative numbers toward zero",
        2,
        {CALC: CALC_V1.replace("return n >> 1;", "return n / 2;"), CALC_TEST: test},
    )
    _commit(
        repo,
        "Words: a comment",
        3,
        {WORDS: WORDS_TEXT.replace("public final class Words", "/** Words. */\npublic final class Words")},
    )
    return repo
