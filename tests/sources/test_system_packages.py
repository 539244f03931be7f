"""The Debian package that provides a missing header, library, pkg-config module or program, looked up in a Contents
index served from loopback; and what uv's output of a failed build says (issue 41)."""

from __future__ import annotations

import pytest

from benchsmith.sources.python.build_failures import build_failures, first_meaningful_line, missing_file
from benchsmith.sources.system_packages import MissingFile, debian_package
from tests.classbench import test_not_built

contents_index = test_not_built.contents_index  # a Contents index served from loopback, a fixture

# uv 0.13's stderr for an sdist whose extension includes a header that is not here (abridged: the gcc line)
UV_OUTPUT = """\
Resolved 2 packages in 138ms
   Building brokenext==1.0
error: Failed to build `brokenext==1.0`
  cause: The build backend returned an error
  cause: Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)

         [stdout]
         running bdist_wheel
         running build
         running build_py
         creating build/lib.linux-x86_64-cpython-311/brokenext
         copying brokenext/__init__.py -> build/lib.linux-x86_64-cpython-311/brokenext
         running build_ext
         building 'brokenext._c' extension
         x86_64-linux-gnu-gcc -fPIC -I/usr/include/python3.11 -c brokenext/_c.c -o build/temp/brokenext/_c.o

         [stderr]
         warning: build_py: byte-compiling is disabled, skipping.

         brokenext/_c.c:2:10: fatal error: nosuchlib/nosuch.h: No such file or directory
             2 | #include <nosuchlib/nosuch.h>
               |          ^~~~~~~~~~~~~~~~~~~~
         compilation terminated.
         error: Command '['x86_64-linux-gnu-gcc', '-fPIC', '-c', 'brokenext/_c.c']' returned non-zero exit status 1.

hint: This error likely indicates that you need to install a library that provides `nosuchlib/nosuch.h` for \
`brokenext@1.0`
"""


def test_uv_s_output_names_the_distribution_its_compiler_line_and_the_missing_header():
    (failure,) = build_failures(UV_OUTPUT)
    assert (failure.requirement, failure.name) == ("brokenext==1.0", "brokenext")
    assert failure.line == "brokenext/_c.c:2:10: fatal error: nosuchlib/nosuch.h: No such file or directory"
    assert failure.missing == MissingFile("header", "nosuchlib/nosuch.h")
    assert failure.modules == ("brokenext",)
    assert build_failures("error: Request failed after 3 retries: connection refused") == []


@pytest.mark.parametrize(
    ("output", "missing"),
    [
        ("/usr/bin/ld: cannot find -lnosuch: No such file or directory", MissingFile("library", "libnosuch.so")),
        (
            "Package nosuch was not found in the pkg-config search path.",
            MissingFile("pkg-config module", "nosuch.pc"),
        ),
        ("Error: nosuch-config executable not found.", MissingFile("program", "nosuch-config")),
        (
            "ImportError: libnosuch.so.3: cannot open shared object file: No such file or directory",
            MissingFile("shared object", "libnosuch.so.3"),
        ),
        ("error: command 'gcc' failed with exit code 1", None),
    ],
)
def test_the_missing_file_is_read_from_what_builds_say(output, missing):
    assert missing_file(output) == missing


def test_the_first_meaningful_line_skips_the_frames_around_the_error():
    lines = [
        "running build_ext",
        "error: command 'gcc' failed: No such file or directory",
        "Error: pg_config not found",
    ]
    assert first_meaningful_line(lines) == "Error: pg_config not found"


def test_the_providing_package_is_looked_up_in_the_contents_index(contents_index):
    assert debian_package(MissingFile("header", "nosuchlib/nosuch.h")) == "libnosuch-dev"  # not the vendored copy
    assert debian_package(MissingFile("pkg-config module", "nosuch.pc")) == "libnosuch-dev"
    assert debian_package(MissingFile("program", "nosuch-config")) == "libnosuch-dev"
    # below a folder of its own, as libxml2's libxml/tree.h is (its pkg-config module adds -I/usr/include/libxml2)
    assert debian_package(MissingFile("header", "nosuch.h")) == "libnosuch-dev"
    assert debian_package(MissingFile("header", "elsewhere/absent.h")) is None
