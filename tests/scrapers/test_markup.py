"""Tracker markup → text: code blocks and stack traces verbatim, everything else clean."""

import time

import pytest

from benchsmith.scrapers.markup import (
    decode_bytes,
    fence,
    googlecode_to_text,
    html_to_text,
    jira_to_text,
    markdown_to_text,
)

pytestmark = pytest.mark.timeout(60)

TRACE = (
    "java.lang.NullPointerException: value_was_null\n"
    "\tat org.apache.commons.cli.Parser.parse(Parser.java:120)\n"
    "\tat org.apache.commons.cli.Parser.<init>(Parser.java:10)\n"
    "Caused by: java.lang.IllegalStateException: *state*\n"
    "\t... 3 more"
)


def test_jira_code_and_noformat_blocks_are_kept_verbatim_as_fences():
    code = (
        '  Options o = new Options();   \n  o.addOption("a", *b*, _c_); // {{not mono}}\n'
        "\n\n  // three blank lines above"
    )
    text = jira_to_text(
        f"Before *bold*\r\n{{code:java}}\r\n{code}\r\n{{code}}\r\n{{noformat}}\n[not|a link]\n{{noformat}}\nafter"
    )
    assert f"```java\n{code}\n```" in text
    assert "```\n[not|a link]\n```" in text
    assert text.startswith("Before bold\n\n```java")
    assert text.endswith("\n\nafter")


def test_jira_code_block_parameters_give_the_language_only_when_it_is_one():
    assert jira_to_text("{code:title=Foo.java|borderStyle=solid}\nx = 1;\n{code}") == "```\nx = 1;\n```"
    assert jira_to_text("{code:xml}<a/>{code}") == "```xml\n<a/>\n```"


def test_an_unclosed_jira_code_block_runs_to_the_end_verbatim():
    assert jira_to_text("see:\n{code}\nint *x* = 1;\n") == "see:\n\n```\nint *x* = 1;\n```"


def test_jira_markup_is_stripped_to_clean_text():
    raw = (
        "h2. Problem\n"
        "The *parser* fails on _options_ with {{--foo_bar}}, "
        "see [CLI-12|https://issues.apache.org/jira/browse/CLI-12], "
        "[http://example.org/x] and ask [~ebourg].\n"
        "bq. quoted\n"
        "# first\n# second\n* bullet\n"
        "{color:red}red{color} {quote}q{quote} !shot.png|thumbnail! \\*literal\\*\n"
        "||h1||h2||\n|1|2|\n"
        "my_var_name and __init__ and http://x.org/_a_/b stay"
    )
    assert jira_to_text(raw) == (
        "Problem\n"
        "The parser fails on options with `--foo_bar`, see CLI-12 (https://issues.apache.org/jira/browse/CLI-12), "
        "http://example.org/x and ask ebourg.\n"
        "> quoted\n"
        "1. first\n2. second\n- bullet\n"
        "red q shot.png *literal*\n"
        "|h1|h2|\n|1|2|\n"
        "my_var_name and __init__ and http://x.org/_a_/b stay"
    )


def test_stack_traces_outside_code_blocks_are_untouched():
    assert jira_to_text(f"Trace:\n{TRACE}") == f"Trace:\n{TRACE}"
    assert markdown_to_text(f"Trace:\n{TRACE}") == f"Trace:\n{TRACE}"


def test_markdown_fences_are_kept_as_written():
    body = "```java\nObjectMapper m = new ObjectMapper();   \n**not bold** <!-- kept -->\n\n\n\n```"
    tilde = "~~~\n_kept_\n~~~"
    text = markdown_to_text(f"Intro **bold**\n{body}\nmiddle\n{tilde}")
    assert body in text and tilde in text
    assert text.startswith("Intro bold\n\n```java")


def test_an_unclosed_markdown_fence_is_closed():
    assert markdown_to_text("x\n```\ncode *here*") == "x\n\n```\ncode *here*\n```"


def test_markdown_markup_is_stripped_to_clean_text():
    raw = (
        "<!-- Please fill in\nthe template -->\n"
        "### Steps\n"
        "Use **Jackson** `Object_Mapper *x*` with _this_ [doc](https://x.org) and <https://y.org>.<br>Next\n"
        "![screenshot](https://img/x.png) ~~old~~ \\*star\\* &lt;T&gt;\n"
        "    indented *code* stays\n"
        "<details><summary>Trace</summary>\n\nhidden\n</details>"
    )
    assert markdown_to_text(raw) == (
        "Steps\n"
        "Use Jackson `Object_Mapper *x*` with this doc (https://x.org) and https://y.org.\nNext\n"
        "screenshot old *star* <T>\n"
        "    indented *code* stays\n"
        "Trace\n\nhidden"
    )


def test_html_pre_is_kept_and_other_markup_stripped():
    raw = (
        "<div class='markdown_content'><p>The <em>legend</em> is wrong &amp; odd.<br/>Second   line</p>"
        "<div class='codehilite'><pre><span class='n'>x</span> = 1;\n  y  =  2;   \n\n\n</pre></div>"
        "<ul><li>one</li><li>two <a href='http://z.org'>link</a></li></ul><p>Use <code>foo()</code>.</p>"
        "<script>alert(1)</script></div>"
    )
    assert html_to_text(raw) == (
        "The legend is wrong & odd.\nSecond line\n\n"
        "```\nx = 1;\n  y  =  2;   \n```\n\n"
        "- one\n- two link (http://z.org)\n\nUse `foo()`."
    )


def test_a_code_block_holding_backticks_gets_a_longer_fence():
    assert fence("a\n```\nb") == "````\na\n```\nb\n````"
    assert jira_to_text("{code}\n```\n{code}") == "````\n```\n````"


def test_google_code_content_keeps_its_lines_and_loses_its_tags():
    raw = "<b>What steps?</b>\n1. call &quot;mock()&quot;\n\tat Foo.&lt;init&gt;(Foo.java:3)\n"
    assert googlecode_to_text(raw) == 'What steps?\n1. call "mock()"\n\tat Foo.<init>(Foo.java:3)'


def test_bytes_that_are_not_utf8_are_read_as_windows_1252():
    assert decode_bytes("café ".encode() + b"na\xefve \x93q\x94") == "café naïve “q”"
    assert decode_bytes(b"caf\xe9", "iso-8859-1") == "café"
    assert decode_bytes(b"caf\xc3\xa9", "no-such-charset") == "café"


def test_a_very_long_description_converts_whole_and_fast():
    paragraph = "The *renderer* fails on _large_ inputs, see {{Renderer.draw}}.\n" + TRACE + "\n"
    raw = paragraph * 8000 + "{code}\n" + "int x = 1;\n" * 20000 + "{code}"  # about 1.3 MB
    started = time.monotonic()
    text = jira_to_text(raw)
    assert time.monotonic() - started < 10
    assert text.count("The renderer fails on large inputs, see `Renderer.draw`.") == 8000
    assert text.count("\tat org.apache.commons.cli.Parser.<init>(Parser.java:10)") == 8000
    assert text.endswith("```\n" + "int x = 1;\n" * 19999 + "int x = 1;\n```")
