import pytest

from benchsmith.errors import PatchError
from sources.patches import apply_patch, parse_patch

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
