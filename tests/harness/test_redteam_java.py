"""Red team, Java: hostile NL2Fix candidates against the runner, with honest twins interleaved.

Every hostile candidate computes the buggy answer unless its attack works (it
read the ground truth, forged the report, or reached another candidate), so a
``plausible`` verdict means a defence failed. Gold and buggy candidates run
between the hostile ones: any cross-candidate contamination shows as a gold
that is not plausible or a buggy one that is. Afterwards the dataset, the
workspace (ground truth), the public view, the caches, a root-owned canary
outside every tree and a canary in ``$HOME`` are byte-identical, nothing is
left in the host's ``/tmp`` or ``/dev/shm``, and no process of a sandbox uid lives.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import sandbox
from harness.java_runner import InstanceRunner
from harness.javatools import runner_classes
from harness.jvm import release_api
from harness.sandbox import Limits
from harness.workspace import public_view
from tests.conftest import FIXTURE_D4J

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

LIMITS = Limits(wall_seconds=10)
SIGNATURE = "public static String pad(long number, int width) {\n"
GOLD = (
    "String digits = Long.toString(Math.abs(number)); String sign = number < 0 ? \"-\" : \"\";\n"
    "return sign + repeat('0', width - sign.length() - digits.length()) + digits;\n"
)
BUGGY = (
    "String digits = Long.toString(Math.abs(number)); String sign = number < 0 ? \"-\" : \"\";\n"
    "return sign + repeat('0', width - digits.length()) + digits;\n"
)
PLANT = f"benchsmith-redteam-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Attack:
    name: str
    code: str
    forged: bool = False  # a forgery the report checks must name


def method(body: str) -> str:
    return SIGNATURE + body + "\n}"


def if_escaped(condition: str, before: str = "") -> str:
    """The gold answer when *condition* holds after *before* ran, the buggy one otherwise."""
    return method(before + f"\nboolean escaped = false;\ntry {{ escaped = {condition}; }} catch (Throwable t) {{ }}\n"
                  f"if (escaped) {{ {GOLD} }}\n{BUGGY}")  # fmt: skip


def java_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def forged_report(triggers: list[str], relevant: list[str]) -> str:
    """A report claiming every trigger and every relevant class passed."""
    entries = [f'{{"phase":1,"name":"{t}","spec":"{t}","outcome":"passed","message":""}}' for t in triggers]
    entries += [f'{{"phase":2,"name":"{c}::x","spec":"{c}","outcome":"passed","message":""}}' for c in relevant]
    return '{"phases":2,"test_ms":1,"tests":[' + ",".join(entries) + "]}\n"


def write_stdout(text: str) -> str:
    return (f"try {{ java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);\n"
            f"out.write({java_string(text)}.getBytes(\"UTF-8\")); out.flush(); }} catch (Throwable t) {{ }}\n")  # fmt: skip


def attacks(instance, workspace, dataset: Path, canary: Path, home_canary: Path) -> list[Attack]:
    gold_class = workspace.classes / "org" / "benchsmith" / "ledger" / "TextUtils.class"
    view = public_view(workspace, instance.file_path)
    patch = FIXTURE_D4J / "framework" / "projects" / "Ledger" / "patches" / "1.src.patch"
    report = forged_report(list(instance.trigger_tests), list(instance.relevant_tests))
    def readable(*paths: Path) -> str:
        return " || ".join(f"new java.io.File({java_string(str(p))}).canRead()" for p in paths)

    return [
        Attack("assumption failure", method("throw new org.junit.AssumptionViolatedException(\"skip me\");")),
        Attack("Assume.assumeTrue", method("org.junit.Assume.assumeTrue(false);\n" + BUGGY)),
        Attack("forged report, then the real one", method(write_stdout(report) + BUGGY), forged=True),
        Attack("forged report, then silence", method(write_stdout(report) + "for (;;) { }"), forged=True),
        Attack("forged report from a thread, after the real one", method(
            "Thread t = new Thread(() -> { try { Thread.sleep(30); } catch (Throwable e) { }\n"
            + write_stdout(report) + "});\nt.setDaemon(true); t.start();\n" + BUGGY)),
        Attack("old protocol line", method(write_stdout("BENCHSMITH r1 {\"compiled\":true,\"tests\":[]} 00\n") + BUGGY)),
        Attack("read the workspace", if_escaped(readable(gold_class, workspace.tree / instance.file_path,
                                                        view.classes / "org" / "benchsmith" / "ledger" / "TextUtils.class"))),
        Attack("read the patch, the dataset, $HOME", if_escaped(readable(patch, dataset, home_canary))),
        Attack("load the gold class", if_escaped(
            "((String) new java.net.URLClassLoader(new java.net.URL[] {new java.io.File("
            f"{java_string(str(workspace.classes))}).toURI().toURL()}}, null).loadClass(\"org.benchsmith.ledger.TextUtils\")"
            ".getMethod(\"pad\", long.class, int.class).invoke(null, -5L, 4)).equals(\"-005\")")),
        Attack("hidden member after // \\r", SIGNATURE + BUGGY + "}\n// \r public static String unused() { return \"\"; }"),
        Attack("plant in /tmp and /dev/shm", method(
            f"try {{ java.nio.file.Files.write(java.nio.file.Paths.get(\"/tmp/{PLANT}\"), new byte[] {{1}});\n"
            f"java.nio.file.Files.write(java.nio.file.Paths.get(\"/dev/shm/{PLANT}\"), new byte[] {{1}}); }} catch (Throwable t) {{ }}\n"
            + BUGGY)),
        Attack("read a plant", if_escaped(f"new java.io.File(\"/tmp/{PLANT}\").exists() || new java.io.File(\"/dev/shm/{PLANT}\").exists()")),
        Attack("thread that outlives its candidate", method(
            "Thread t = new Thread(() -> { for (;;) { try {\n"
            "  for (java.io.File f : new java.io.File(System.getProperty(\"user.dir\")).getParentFile().listFiles()) {\n"
            "    java.nio.file.Files.write(new java.io.File(f, \"TextUtils.class\").toPath(), new byte[] {0}); }\n"
            "  Thread.sleep(5); } catch (Throwable e) { } } });\n"
            "t.setDaemon(true); t.start();\n" + BUGGY)),
        Attack("finalizer", method(
            "new Object() { @Override protected void finalize() { try { java.nio.file.Files.write(\n"
            f"  java.nio.file.Paths.get(\"/tmp/{PLANT}\"), new byte[] {{1}}); }} catch (Throwable t) {{ }} }} }};\n"
            "System.gc(); System.runFinalization();\n" + BUGGY)),
        Attack("write the classes on the class path", if_escaped(
            "java.util.Arrays.stream(System.getProperty(\"java.class.path\").split(\":\")).anyMatch(p -> {\n"
            "  try { java.nio.file.Files.write(java.nio.file.Paths.get(p, \"planted.txt\"), new byte[] {1}); return true; }\n"
            "  catch (Throwable e) { return false; } })")),
        Attack("delete outside", if_escaped(
            f"new java.io.File({java_string(str(canary))}).delete() | new java.io.File({java_string(str(home_canary))}).delete()"
            f" | new java.io.File({java_string(str(gold_class))}).delete()")),
        Attack("see and kill other processes", if_escaped(
            "ProcessHandle.allProcesses().filter(p -> p.pid() != ProcessHandle.current().pid() && p.pid() > 2)"
            ".map(p -> p.destroyForcibly()).count() > 0")),
        Attack("start a process", method(
            "try { new ProcessBuilder(\"sleep\", \"600\").start(); } catch (Throwable t) { }\n" + BUGGY)),
        Attack("exit 0", method("System.exit(0);\n" + BUGGY)),
        Attack("replace the guard", method("System.setSecurityManager(null);\nSystem.exit(0);\n" + BUGGY)),
        Attack("poison the Integer cache", method(
            "try { Class<?> c = Class.forName(\"java.lang.Integer$IntegerCache\");\n"
            "java.lang.reflect.Field f = c.getDeclaredField(\"cache\"); f.setAccessible(true);\n"
            "Integer[] cache = (Integer[]) f.get(null); java.util.Collections.reverse(java.util.Arrays.asList(cache));\n"
            "} catch (Throwable t) { }\n" + BUGGY)),
        Attack("fill /tmp", method(
            "try (java.io.FileOutputStream out = new java.io.FileOutputStream(\"/tmp/fill\")) {\n"
            "  byte[] block = new byte[1 << 20]; for (int i = 0; i < 4096; i++) out.write(block); } catch (Throwable t) { }\n" + BUGGY)),
        Attack("network", if_escaped(
            "new java.net.Socket(\"10.0.0.1\", 80) != null")),
    ]


def digest(*roots: Path) -> dict[str, str]:
    found = {}
    for root in roots:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        for path in paths:
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture
def canaries(tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    outside.chmod(0o755)
    canary = outside / "canary.txt"
    canary.write_text("root's")
    canary.chmod(0o644)
    home = Path(os.path.expanduser("~")) / f".benchsmith-canary-{secrets.token_hex(4)}"
    home.write_text("home's")
    yield canary, home
    home.unlink(missing_ok=True)


def judged(instance, workspace, hostile: list[Attack], fast: bool, logs: Path) -> list[tuple[str, object, Attack | None]]:
    """*hostile* judged by a runner of its own, in a slot of its own."""
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=LIMITS, logs=logs)
        try:
            return run_all(runner, instance, hostile, fast)
        finally:
            runner.close()
            for plant in (Path(f"/tmp/{PLANT}"), Path(f"/dev/shm/{PLANT}")):  # shared /tmp where no namespace is
                plant.unlink(missing_ok=True)


def run_all(runner: InstanceRunner, instance, hostile: list[Attack], fast: bool) -> list[tuple[str, object, Attack | None]]:
    """Each hostile candidate between an honest gold and an honest buggy one."""
    verdicts = [("gold first", runner.evaluate(instance.fixed_method, "gold-first", fast=fast), None)]
    for number, attack in enumerate(hostile):
        verdicts.append((attack.name, runner.evaluate(attack.code, f"hostile-{number}", fast=fast), attack))
        verdicts.append(("gold after " + attack.name, runner.evaluate(instance.fixed_method, f"gold-{number}", fast=fast), None))
        verdicts.append(("buggy after " + attack.name, runner.evaluate(instance.buggy_method, f"buggy-{number}", fast=fast), None))
    return verdicts


def assert_verdicts(verdicts) -> None:
    for name, verdict, attack in verdicts:
        if attack is None:
            expected = "plausible" if name.startswith("gold") else "wrong"
            assert verdict.status == expected, (name, verdict)
        else:
            assert verdict.status != "plausible", (name, verdict)
            if attack.forged:
                assert verdict.reason.startswith("forged"), (name, verdict)


@pytest.mark.slow
def test_no_hostile_java_candidate_passes_or_changes_anything(ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path):
    canary, home_canary = canaries
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = attacks(instance, workspace, ledger_dataset, canary, home_canary)
    cache = Path(os.environ["BENCHSMITH_CACHE"])
    protected = [ledger_dataset, workspace.root, cache / "views", cache / "runner", canary, home_canary]
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=LIMITS, logs=tmp_path / "logs")
        runner_classes()  # compiled at first use: made before the snapshot, so that it counts as a cache
        release_api()  # the same: the compiler's platform classes, extracted at first use
        before = digest(*protected)
        try:
            verdicts = run_all(runner, instance, hostile, fast=True)
        finally:
            runner.close()
        assert [sandbox.living_processes(sandbox.sandbox_uid(slot, lane)) for lane in range(sandbox.LANES)] == [[]] * sandbox.LANES
    assert_verdicts(verdicts)
    by_name = {name: verdict for name, verdict, _ in verdicts}
    assert by_name["hidden member after // \\r"].status == "uncompilable"
    # The first report line is the one judged: a forgery followed by silence is refused at once, not at the timeout.
    assert by_name["forged report, then silence"].seconds < LIMITS.wall_seconds
    assert digest(*protected) == before
    assert not Path(f"/tmp/{PLANT}").exists() and not Path(f"/dev/shm/{PLANT}").exists()


@pytest.mark.slow
def test_forgeries_are_refused_on_the_plain_path_too(ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path):
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = [a for a in attacks(instance, workspace, ledger_dataset, *canaries)
               if a.name in ("assumption failure", "forged report, then the real one", "read the workspace", "plant in /tmp and /dev/shm")]  # fmt: skip
    verdicts = judged(instance, workspace, hostile, False, tmp_path / "logs")
    assert_verdicts(verdicts)
    assert all(v.path == "plain" for _, v, _ in verdicts)


NO_NAMESPACES = {"mount_namespace": False, "pid_namespace": False, "private_tmp": False, "network_namespace": False}
PURE_FORGERIES = ("assumption failure", "Assume.assumeTrue", "forged report, then the real one", "old protocol line",
                  "hidden member after // \\r")  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("missing, names", [
    (NO_NAMESPACES, (*PURE_FORGERIES, "thread that outlives its candidate", "finalizer", "read the workspace",
                     "load the gold class")),
    ({**NO_NAMESPACES, "unprivileged_uid": False}, PURE_FORGERIES),  # not root: candidates run as this user
], ids=["no namespaces", "not root"])  # fmt: skip
def test_with_layers_missing_the_forgeries_are_still_refused(missing, names, monkeypatch, ledger_instances, ledger_workspace,
                                                            ledger_dataset, canaries, tmp_path):  # fmt: skip
    """Trees are real copies and files are guarded by modes only (or not at all): what needs no missing layer holds."""
    layers = {**sandbox.isolation(), **missing}
    monkeypatch.setattr(sandbox, "isolation", lambda: layers)
    line = sandbox.missing_layers(layers)
    assert "mount namespace" in line and "still enforced" in line and "\n" not in line
    assert ("not root" in line) == (not layers["unprivileged_uid"])
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = [a for a in attacks(instance, workspace, ledger_dataset, *canaries) if a.name in names]
    assert len(hostile) == len(names)
    assert_verdicts(judged(instance, workspace, hostile, True, tmp_path / "logs"))
