import pytest

from benchsmith.core.errors import PatchError
from benchsmith.sources.patches import apply_patch, parse_patch, rediff, states_lines_of

FIXED = "class A {\n    int f() {\n        return 1;\n    }\n}"  # no newline at the end
PATCH = """\
diff --git a/src/A.java b/src/A.java
index 1111111..2222222 100644
--- a/src/A.java
+++ b/src/A.java
@@ -1,5 +1,5 @@
 class A {
     int f() {
-        return 1;
+        return 2;
     }
-}
\\ No newline at end of file
+}
"""


def test_changed_lines_ignore_a_newline_added_at_end_of_file():
    (file_patch,) = parse_patch(PATCH, "p")
    assert file_patch.path == "src/A.java"
    assert [(h.fixed_lines, h.buggy_lines) for h in file_patch.hunks] == [((3,), (3,))]


def test_apply_produces_the_buggy_text():
    buggy = apply_patch(PATCH, {"src/A.java": FIXED}, "p")
    assert buggy == {"src/A.java": "class A {\n    int f() {\n        return 2;\n    }\n}\n"}


def test_a_patch_that_does_not_apply_names_the_patch_and_file():
    with pytest.raises(PatchError, match=r"^p: patch does not apply: .*src/A.java"):
        apply_patch(PATCH, {"src/A.java": FIXED.replace("return 1", "return 7")}, "p")


def test_a_moved_line_still_counts_as_changed():
    patch = """\
--- a/B.java
+++ b/B.java
@@ -1,4 +1,4 @@
-x();
 y();
 z();
+x();
 w();
"""
    (file_patch,) = parse_patch(patch, "p")
    assert [(h.fixed_lines, h.buggy_lines) for h in file_patch.hunks] == [((1,), (3,))]


def test_garbage_is_a_patch_error():
    with pytest.raises(PatchError, match="^q: "):
        parse_patch("not a diff at all\n", "q")


def test_a_patch_applied_at_an_offset_is_renumbered_on_the_files_in_hand():
    # CRLF, as JFreeChart's sources
    fixed = "package p;\r\n\r\nclass A {\r\n    int f() {\r\n        return 1;\r\n    }\r\n}\r\n"
    patch = (
        "diff --git a/src/A.java b/src/A.java\n--- a/src/A.java\n+++ b/src/A.java\n@@ -3,5 +3,5 @@\n"
        " class A {\r\n     int f() {\r\n-        return 1;\r\n+        return 2;\r\n     }\r\n }\r\n"
    )
    shifted = "// two lines Defects4J's file lacks\r\n//\r\n" + fixed
    path = "src/A.java"
    assert states_lines_of(patch, {path: fixed}, "p")
    assert not states_lines_of(patch, {path: shifted}, "p")
    buggy = apply_patch(patch, {path: shifted}, "p")
    assert buggy[path] == shifted.replace("return 1", "return 2")
    (renumbered,) = parse_patch(rediff({path: shifted}, buggy), "p")
    assert renumbered.hunks[0].fixed_lines == (7,) and renumbered.hunks[0].buggy_lines == (7,)  # 5 + the 2 new lines
