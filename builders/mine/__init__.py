"""``nl2fix mine``: fresh Defects4J-shaped projects mined from a Java repository's git history.

scan (the history's commits, each against its first parent: their issue references and changed files) → select (the
single-method rule
of builders/single_method.py on the step's main-code diff) → reproduce (the NL2Fix harness runs the step's tests on
the fixed and the buggy method, three times each) → export (``framework/projects/<Name>/`` as Defects4J lays it out,
and a dataset card). docs/nl2fix-mine.md describes the command.
"""
