"""What the tests share beside fixtures: test modules import from here or from tests.conftest, never each other.

* ``cli``: the ``benchsmith`` command in a subprocess, the Ledger build and eval, the stand-in ``defects4j``;
* ``records``: hand-made NL2Fix instances and a classbench task;
* ``openai_server``, ``interrupted``: a local OpenAI-format server, and a backend with Ctrl-C pressed;
* ``trackers``: a local server playing the four issue trackers, and their recorded issues;
* ``paraphrase``: the tricky fixture repository and a runner for its tests.
"""
