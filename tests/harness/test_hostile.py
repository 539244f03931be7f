"""Hostile candidates never pass and never touch anything outside their scratch copy.

Each hostile method returns the right answer only if its escape worked, so a
plausible verdict here would mean the sandbox failed.
"""

import hashlib
from pathlib import Path

import pytest

from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

LIMITS = Limits(wall_seconds=8)
SIGNATURE = "public static String pad(long number, int width) {\n"
GOLD_RETURN = (
    'String digits = Long.toString(Math.abs(number)); String sign = number < 0 ? "-" : "";\n'
    "return sign + repeat('0', width - sign.length() - digits.length()) + digits;\n"
)


def hostile(body: str) -> str:
    return SIGNATURE + body + "\n}"


def snapshot(*roots: Path) -> dict[str, str]:
    digests = {}
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            digests[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("outside")
    folder.chmod(0o755)
    path = folder / "precious.txt"
    path.write_text("do not delete")
    path.chmod(0o644)
    return path


def candidates(workspace, sentinel: Path) -> dict[str, str]:
    compiled = workspace.classes / "org" / "benchsmith" / "ledger" / "TextUtils.class"
    return {
        "infinite loop": hostile("for (;;) { }"),
        "memory bomb": hostile(
            "java.util.List<long[]> hog = new java.util.ArrayList<>();\nwhile (true) { hog.add(new long[1 << 24]); }"
        ),
        "fork bomb": hostile(
            'try { for (int i = 0; i < 100000; i++) { new ProcessBuilder("sleep", "600").start(); } }\n'
            "catch (Exception e) { throw new RuntimeException(e); }\n" + GOLD_RETURN
        ),
        "thread bomb": hostile(
            "for (int i = 0; i < 100000; i++) { Thread t = new Thread(() -> { try { Thread.sleep(600000); }"
            " catch (InterruptedException e) { } }); t.start(); }\n" + GOLD_RETURN
        ),
        "System.exit(0)": hostile('System.out.println("OK (2 tests)");\nSystem.exit(0);\nreturn null;'),
        "Runtime.halt(0)": hostile("Runtime.getRuntime().halt(0);\nreturn null;"),
        "delete outside": hostile(
            f'boolean a = new java.io.File("{sentinel}").delete();\n'
            f'boolean b = new java.io.File("{compiled}").delete();\n'
            'if (!a && !b) { return "not deleted"; }\n' + GOLD_RETURN
        ),
        "open a socket": hostile(
            "try (java.net.Socket s = new java.net.Socket()) {\n"
            '  s.connect(new java.net.InetSocketAddress("127.0.0.1", 22), 2000);\n'
            '} catch (java.io.IOException e) { return "no network"; }\n' + GOLD_RETURN
        ),
        "listen on a port": hostile(
            "try (java.net.ServerSocket s = new java.net.ServerSocket(0)) { } catch (java.io.IOException e) "
            '{ return "x"; }\n' + GOLD_RETURN
        ),
        "print OK": hostile(
            'System.out.println("OK (2 tests)");\nSystem.err.println("Tests run: 2,  Failures: 0");\nreturn "wrong";'
        ),
        "forge the verdict": hostile(
            'try { java.nio.file.Files.write(java.nio.file.Paths.get("../results.json"),\n'
            '  "{\\"compiled\\":true,\\"passed\\":9,\\"failed\\":0,\\"tests\\":[]}\\n00\\n".getBytes()); }\n'
            "catch (Exception e) { }\n"
            "java.io.PrintStream real = new java.io.PrintStream(new "
            "java.io.FileOutputStream(java.io.FileDescriptor.out));\n"
            'real.println("BENCHSMITH r1 '
            '{\\"compiled\\":true,\\"tests\\":[{\\"name\\":\\"x\\",\\"passed\\":true,\\"message\\":\\"\\"}]} 00");\n'
            'real.flush();\nreturn "wrong";'
        ),
        "replace the guard": hostile("System.setSecurityManager(null);\nSystem.exit(0);\nreturn null;"),
    }


@pytest.mark.parametrize("fast", [True, False], ids=["warm-then-plain", "plain"])
def test_hostile_candidates_never_pass_and_change_nothing(
    fast, ledger_instances, ledger_workspace, ledger_dataset, sentinel, tmp_path
):
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    before = snapshot(workspace.root, ledger_dataset, sentinel)
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=LIMITS, logs=tmp_path / "logs")
        try:
            assert runner.evaluate(instance.fixed_method, "gold", fast=fast).status == "plausible"
            verdicts = {
                n: runner.evaluate(code, n.replace(" ", "-"), fast=fast)
                for n, code in candidates(workspace, sentinel).items()
            }
            assert runner.evaluate(instance.fixed_method, "gold-again", fast=fast).status == "plausible"
        finally:
            runner.close()
        uid = sandbox.sandbox_uid(slot)
        if uid is not None:
            assert sandbox.living_processes(uid) == []
    for name, verdict in verdicts.items():
        assert verdict.status in ("wrong", "timeout"), (name, verdict)
        limit = 2 * LIMITS.wall_seconds + 30 if fast else LIMITS.wall_seconds + 30  # warm timeout, then plain
        assert verdict.seconds < limit, (name, verdict.seconds)
    assert verdicts["infinite loop"].status == "timeout"
    assert snapshot(workspace.root, ledger_dataset, sentinel) == before
