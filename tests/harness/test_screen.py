"""The screen names the escape and introspection primitives a candidate's source uses
(benchsmith.runners.sandbox.screen)."""

import pytest

from benchsmith.runners.sandbox import screen
from benchsmith.runners.sandbox.screen import primitives, suspicious


def test_python_primitives_are_named_through_imports_and_aliases():
    code = (
        "import gc, sys as system\nfrom os import _exit\nimport importlib\n"
        "class A:\n"
        "    def f(self):\n"
        "        frame = system._getframe(1).f_back\n"
        "        system.modules['tests.helpers'] = object()\n"
        "        system.settrace(None)\n"
        "        _exit(0)\n"
        "        return open('/proc/self/maps').read()\n"
    )
    assert primitives(code, "python") == ["/proc", "frames", "gc", "process-exit", "sys.modules", "trace-hooks"]


def test_honest_python_uses_none_and_reading_sys_modules_is_not_a_swap():
    code = "import sys, os\nclass A:\n    def f(self):\n        return sys.modules[__name__], os.path.join('a', 'b')\n"
    assert primitives(code, "python") == []
    assert primitives("import ctypes\nclass A: pass\n", "python") == ["ctypes"]
    assert primitives("class A:\n    def f(self):\n        import _pytest.reports\n", "python") == ["pytest-internals"]


def test_java_primitives_are_read_from_tokens_not_from_comments_or_strings():
    code = (
        "public String pad(long n) {\n"
        "  // System.exit(0) would be wrong here\n"
        '  String s = "setAccessible";\n'
        '  java.lang.reflect.Field f = Foo.class.getDeclaredField("x"); f.setAccessible(true);\n'
        "  StackWalker.getInstance().walk(x -> x);\n"
        "  java.lang.management.ManagementFactory.getRuntimeMXBean();\n"
        '  new java.io.FileInputStream("/proc/self/status");\n'
        "  Runtime.getRuntime().halt(0);\n"
        "  System.in.read();\n"
        "  return s;\n}\n"
    )
    assert primitives(code, "java") == [
        "/proc",
        "System.in",
        "management-beans",
        "process-exit",
        "setAccessible",
        "stack-walking",
    ]
    assert primitives("public int f() { return halt(2); }", "java") == []


def test_what_the_ground_truth_uses_is_not_suspicious():
    truth = "import sys\nclass A:\n    def stop(self):\n        sys.exit(2)\n"
    candidate = "import sys, gc\nclass A:\n    def stop(self):\n        gc.collect()\n        sys.exit(2)\n"
    assert suspicious(candidate, truth, "python") == "gc"
    assert suspicious(truth, truth, "python") == ""


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("/* " * 2000, 1),
        ("/*\n" * 2000, 1),
        ("'" + "\\'" * 2000, 1),
        ('"' + "a\\" * 2000 + "a", 1),
        ("a." * 2000 + "/* open", 4001),
    ],
)
def test_the_java_screen_reads_an_open_comment_or_literal_once(text, tokens):
    """A comment or a literal left open is one token, to the end of the text (a comment) or of its line (a literal),
    so no scan starts again further on. (Each unclosed ``/*`` scanned to the end for its closing mark, then the next
    did the same: 255,000 characters held the harness and the GIL for 90 s, red team round 5.)"""
    assert len(screen._JAVA_TOKEN.findall(text)) == tokens
    assert screen.primitives('String s = "/proc/self"; /* left open', "java") == ["/proc"]


def test_a_candidate_that_reads_its_callers_test_line_is_flagged():
    """The test-reading oracle (red team round 5): a candidate asks where it was called from and reads the assertion's
    literal off that test line. It passes the tests for real, so no outcome is forged; the screen flags it."""
    python = (
        "import linecache\nimport logging\n_where = logging.getLogger('x')\n"
        "def _line(level):\n    filename, lineno, _, _ = _where.findCaller(False, level)\n"
        "    return linecache.getline(filename, lineno)\n"
    )
    assert primitives(python, "python") == ["frames", "source-reading"]
    java = (
        "int area() { StackTraceElement[] trace = new Throwable().getStackTrace();\n"
        "  return java.nio.file.Files.readAllLines(java.nio.file.Paths.get(trace[2].getFileName())).size(); }"
    )
    assert primitives(java, "java") == ["stack-walking"]
    assert suspicious(java, "int area() { return width * height; }", "java") == "stack-walking"
