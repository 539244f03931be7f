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

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.java.class_runner import ClassTaskRunner, task_workspace
from benchsmith.runners.java.defects4j_workspace import java_public_view
from benchsmith.runners.java.jvm import release_api
from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.java.toolchain import default_runtime, runner_classes
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits
from tests.conftest import FIXTURE_D4J
from tests.helpers import java_attacks as hack

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

LIMITS = Limits(wall_seconds=10)
SIGNATURE = "public static String pad(long number, int width) {\n"
GOLD = (
    'String digits = Long.toString(Math.abs(number)); String sign = number < 0 ? "-" : "";\n'
    "return sign + repeat('0', width - sign.length() - digits.length()) + digits;\n"
)
BUGGY = (
    'String digits = Long.toString(Math.abs(number)); String sign = number < 0 ? "-" : "";\n'
    "return sign + repeat('0', width - digits.length()) + digits;\n"
)
PLANT = f"benchsmith-redteam-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Attack:
    name: str
    code: str
    # A forgery: where it reaches the harness (a layer missing), the report checks must name it; with every layer
    # there, the confinement keeps it from being written at all.
    forged: bool = False


def method(body: str) -> str:
    return SIGNATURE + body + "\n}"


def if_escaped(condition: str, before: str = "") -> str:
    """The gold answer when *condition* holds after *before* ran, the buggy one otherwise."""
    return method(
        before + f"\nboolean escaped = false;\ntry {{ escaped = {condition}; }} catch (Throwable t) {{ }}\n"
        f"if (escaped) {{ {GOLD} }}\n{BUGGY}"
    )


def java_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def forged_report(triggers: list[str], relevant: list[str]) -> str:
    """A report claiming every trigger and every relevant class passed."""
    entries = [f'{{"phase":1,"name":"{t}","spec":"{t}","outcome":"passed","message":""}}' for t in triggers]
    entries += [f'{{"phase":2,"name":"{c}::x","spec":"{c}","outcome":"passed","message":""}}' for c in relevant]
    return '{"phases":2,"test_ms":1,"tests":[' + ",".join(entries) + "]}\n"


def write_stdout(text: str) -> str:
    return (
        f"try {{ java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);\n"
        f'out.write({java_string(text)}.getBytes("UTF-8")); out.flush(); }} catch (Throwable t) {{ }}\n'
    )


def attacks(instance, workspace, dataset: Path, canary: Path, home_canary: Path) -> list[Attack]:
    gold_class = workspace.classes / "org" / "benchsmith" / "ledger" / "TextUtils.class"
    view = java_public_view(workspace, instance.file_path)
    patch = FIXTURE_D4J / "framework" / "projects" / "Ledger" / "patches" / "1.src.patch"
    report = forged_report(list(instance.trigger_tests), list(instance.relevant_tests))

    def readable(*paths: Path) -> str:
        return " || ".join(f"new java.io.File({java_string(str(p))}).canRead()" for p in paths)

    return [
        Attack("assumption failure", method('throw new org.junit.AssumptionViolatedException("skip me");')),
        Attack("Assume.assumeTrue", method("org.junit.Assume.assumeTrue(false);\n" + BUGGY)),
        Attack("forged report, then the real one", method(write_stdout(report) + BUGGY), forged=True),
        Attack("forged report, then silence", method(write_stdout(report) + "for (;;) { }"), forged=True),
        Attack(
            "forged report from a thread, after the real one",
            method(
                "Thread late = new Thread(() -> { try { Thread.sleep(30); } catch (Throwable e) { }\n"
                + write_stdout(report)
                + "});\nlate.setDaemon(true); late.start();\n"
                + BUGGY
            ),
        ),
        Attack("old protocol line", method(write_stdout('BENCHSMITH r1 {"compiled":true,"tests":[]} 00\n') + BUGGY)),
        Attack(
            "read the workspace",
            if_escaped(
                readable(
                    gold_class,
                    workspace.tree / instance.file_path,
                    view.classes / "org" / "benchsmith" / "ledger" / "TextUtils.class",
                )
            ),
        ),
        Attack("read the patch, the dataset, $HOME", if_escaped(readable(patch, dataset, home_canary))),
        Attack(
            "load the gold class",
            if_escaped(
                "((String) new java.net.URLClassLoader(new java.net.URL[] {new java.io.File("
                f'{java_string(str(workspace.classes))}).toURI().toURL()}}, null).loadClass("org.benchsmith.ledger.TextUtils")'
                '.getMethod("pad", long.class, int.class).invoke(null, -5L, 4)).equals("-005")'
            ),
        ),
        Attack(
            "hidden member after // \\r", SIGNATURE + BUGGY + '}\n// \r public static String unused() { return ""; }'
        ),
        Attack(
            "plant in /tmp and /dev/shm",
            method(
                f'try {{ java.nio.file.Files.write(java.nio.file.Paths.get("/tmp/{PLANT}"), new byte[] {{1}});\n'
                f'java.nio.file.Files.write(java.nio.file.Paths.get("/dev/shm/{PLANT}"), new byte[] {{1}}); '
                f"}} catch (Throwable t) {{ }}\n" + BUGGY
            ),
        ),
        Attack(
            "read a plant",
            if_escaped(f'new java.io.File("/tmp/{PLANT}").exists() || new java.io.File("/dev/shm/{PLANT}").exists()'),
        ),
        Attack(
            "thread that outlives its candidate",
            method(
                "Thread t = new Thread(() -> { for (;;) { try {\n"
                '  for (java.io.File f : new java.io.File(System.getProperty("user.dir")).getParentFile().listFiles()) '
                "{\n"
                '    java.nio.file.Files.write(new java.io.File(f, "TextUtils.class").toPath(), new byte[] {0}); }\n'
                "  Thread.sleep(5); } catch (Throwable e) { } } });\n"
                "t.setDaemon(true); t.start();\n" + BUGGY
            ),
        ),
        Attack(
            "finalizer",
            method(
                "new Object() { @Override protected void finalize() { try { java.nio.file.Files.write(\n"
                f'  java.nio.file.Paths.get("/tmp/{PLANT}"), new byte[] {{1}}); }} catch (Throwable t) {{ }} }} }};\n'
                "System.gc(); System.runFinalization();\n" + BUGGY
            ),
        ),
        Attack(
            "write the classes on the class path",
            if_escaped(
                'java.util.Arrays.stream(System.getProperty("java.class.path").split(":")).anyMatch(p -> {\n'
                '  try { java.nio.file.Files.write(java.nio.file.Paths.get(p, "planted.txt"), new byte[] {1}); return true; }\n'
                "  catch (Throwable e) { return false; } })"
            ),
        ),
        Attack(
            "delete outside",
            if_escaped(
                f"new java.io.File({java_string(str(canary))}).delete() | new "
                f"java.io.File({java_string(str(home_canary))}).delete()"
                f" | new java.io.File({java_string(str(gold_class))}).delete()"
            ),
        ),
        Attack(
            "see and kill other processes",
            if_escaped(  # ProcessHandle is Java 9's: reached by reflection
                "((java.util.function.Supplier<Boolean>) () -> "
                '{ try { Class<?> handle = Class.forName("java.lang.ProcessHandle");\n'
                '  Object self = handle.getMethod("current").invoke(null); long own = (Long) '
                'handle.getMethod("pid").invoke(self);\n'
                "  long[] killed = {0};\n"
                '  ((java.util.stream.Stream<Object>) handle.getMethod("allProcesses").invoke(null)).forEach(p -> '
                "{ try {\n"
                '    long pid = (Long) handle.getMethod("pid").invoke(p);\n'
                '    if (pid != own && pid > 2 && (Boolean) handle.getMethod("destroyForcibly").invoke(p)) '
                "killed[0]++; } catch (Throwable e) { } });\n"
                "  return killed[0] > 0; } catch (Throwable e) { return false; } }).get()"
            ),
        ),
        Attack(
            "start a process",
            method('try { new ProcessBuilder("sleep", "600").start(); } catch (Throwable t) { }\n' + BUGGY),
        ),
        Attack("exit 0", method("System.exit(0);\n" + BUGGY)),
        Attack("replace the guard", method("System.setSecurityManager(null);\nSystem.exit(0);\n" + BUGGY)),
        Attack(
            "poison the Integer cache",
            method(
                'try { Class<?> c = Class.forName("java.lang.Integer$IntegerCache");\n'
                'java.lang.reflect.Field f = c.getDeclaredField("cache"); f.setAccessible(true);\n'
                "Integer[] cache = (Integer[]) f.get(null); "
                "java.util.Collections.reverse(java.util.Arrays.asList(cache));\n"
                "} catch (Throwable t) { }\n" + BUGGY
            ),
        ),
        Attack(
            "fill /tmp",
            method(
                'try (java.io.FileOutputStream out = new java.io.FileOutputStream("/tmp/fill")) {\n'
                "  byte[] block = new byte[1 << 20]; for (int i = 0; i < 4096; i++) out.write(block); "
                "} catch (Throwable t) { }\n" + BUGGY
            ),
        ),
        Attack("network", if_escaped('new java.net.Socket("10.0.0.1", 80) != null')),
        *verdict_attacks(instance),
    ]


PROJECT_CLASS = "org/benchsmith/ledger/TextUtils"


def verdict_attacks(instance) -> list[Attack]:
    """Attacks on the verdict itself (issue 27): the report forged through every channel a candidate could find, the
    control tests told apart by behaviour, the runner's state reached through the stack, the request read from a
    heap dump or from System.in's buffer."""
    report = forged_report(list(instance.trigger_tests), list(instance.relevant_tests))
    return [
        Attack(
            "sentinels told apart, the request from System.in's buffer",
            method(hack.forger(hack.REQUEST_FROM_SYSTEM_IN, PROJECT_CLASS) + BUGGY),
            forged=True,
        ),
        Attack(
            "sentinels told apart, the request from a heap dump",
            method(hack.forger(hack.REQUEST_FROM_HEAP_DUMP, PROJECT_CLASS) + BUGGY),
            forged=True,
        ),
        Attack(
            "outcomes pre-filled through live stack frames",
            method(hack.prefill_through_live_frames() + BUGGY),
            forged=True,
        ),
        Attack("sun.misc.Unsafe", if_escaped(hack.UNSAFE)),
        Attack("a stack walker with class references", if_escaped(hack.STACK_WALKER_WITH_CLASSES)),
        Attack("a heap dump", if_escaped(hack.HEAP_DUMP)),
        Attack("reflection into the guard's fields", if_escaped(hack.GUARD_FIELDS)),
        Attack("a class loader of its own", if_escaped(hack.OWN_CLASS_LOADER)),
        Attack("System.in's buffer", if_escaped(hack.SYSTEM_IN)),
        Attack("a private lookup into the runner", if_escaped(hack.PRIVATE_LOOKUP)),
        Attack(
            "report through /proc/self/fd/1",
            method(hack.write_through('"/proc/self/fd/1"', report) + BUGGY),
            forged=True,
        ),
        Attack("report through /dev/stdout", method(hack.write_through('"/dev/stdout"', report) + BUGGY), forged=True),
        Attack(
            "report through a symbolic link to fd 1", method(hack.write_through_symlink(report) + BUGGY), forged=True
        ),
        Attack(
            "report through a FileDescriptor made by reflection",
            method(hack.write_descriptor_by_reflection(report) + BUGGY),
            forged=True,
        ),
        Attack("report from a thread of its own", method(hack.write_from_thread(report) + BUGGY), forged=True),
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


def judged(
    instance, workspace, hostile: list[Attack], fast: bool, logs: Path
) -> list[tuple[str, object, Attack | None]]:
    """*hostile* judged by a runner of its own, in a slot of its own."""
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=LIMITS, logs=logs)
        try:
            return run_all(runner, instance, hostile, fast)
        finally:
            runner.close()
            for plant in (Path(f"/tmp/{PLANT}"), Path(f"/dev/shm/{PLANT}")):  # shared /tmp where no namespace is
                plant.unlink(missing_ok=True)


def run_all(
    runner: InstanceRunner, instance, hostile: list[Attack], fast: bool
) -> list[tuple[str, object, Attack | None]]:
    """Each hostile candidate between an honest gold and an honest buggy one."""
    verdicts = [("gold first", runner.evaluate(instance.fixed_method, "gold-first", fast=fast), None)]
    for number, attack in enumerate(hostile):
        verdicts.append((attack.name, runner.evaluate(attack.code, f"hostile-{number}", fast=fast), attack))
        verdicts.append(
            ("gold after " + attack.name, runner.evaluate(instance.fixed_method, f"gold-{number}", fast=fast), None)
        )
        verdicts.append(
            ("buggy after " + attack.name, runner.evaluate(instance.buggy_method, f"buggy-{number}", fast=fast), None)
        )
    return verdicts


def assert_verdicts(verdicts, confined: bool = True) -> None:
    """Honest twins keep their verdicts, no hostile candidate is plausible; where the confinement is off, a forgery
    reaches the harness and the report checks must name it."""
    for name, verdict, attack in verdicts:
        if attack is None:
            expected = "plausible" if name.startswith("gold") else "wrong"
            assert verdict.status == expected, (name, verdict)
        else:
            assert verdict.status != "plausible", (name, verdict)
            if attack.forged and not confined:
                assert verdict.reason.startswith("forged"), (name, verdict)


@pytest.mark.slow
def test_no_hostile_java_candidate_passes_or_changes_anything(
    ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path
):
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
        assert [sandbox.living_processes(sandbox.sandbox_uid(slot, lane)) for lane in range(sandbox.LANES)] == [
            []
        ] * sandbox.LANES
    assert_verdicts(verdicts)
    by_name = {name: verdict for name, verdict, _ in verdicts}
    assert by_name["hidden member after // \\r"].status == "uncompilable"
    assert [n for n, v, a in verdicts if a is not None and v.status == "uncompilable"] == ["hidden member after // \\r"]
    # The candidate cannot write to the runner's stdout: its forgery followed by silence ends at the timeout.
    assert by_name["forged report, then silence"].status == "timeout"
    assert digest(*protected) == before
    assert not Path(f"/tmp/{PLANT}").exists() and not Path(f"/dev/shm/{PLANT}").exists()


@pytest.mark.slow
def test_forgeries_are_refused_on_the_plain_path_too(
    ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path
):
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = [
        a
        for a in attacks(instance, workspace, ledger_dataset, *canaries)
        if a.name
        in (
            "assumption failure",
            "forged report, then the real one",
            "read the workspace",
            "plant in /tmp and /dev/shm",
        )
    ]
    verdicts = judged(instance, workspace, hostile, False, tmp_path / "logs")
    assert_verdicts(verdicts)
    assert all(v.path == "plain" for _, v, _ in verdicts)


NO_NAMESPACES = {"mount_namespace": False, "pid_namespace": False, "private_tmp": False, "network_namespace": False}
PURE_FORGERIES = (
    "assumption failure",
    "Assume.assumeTrue",
    "forged report, then the real one",
    "old protocol line",
    "hidden member after // \\r",
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "missing, names",
    [
        (
            NO_NAMESPACES,
            (
                *PURE_FORGERIES,
                "thread that outlives its candidate",
                "finalizer",
                "read the workspace",
                "load the gold class",
            ),
        ),
        ({**NO_NAMESPACES, "unprivileged_uid": False}, PURE_FORGERIES),  # not root: candidates run as this user
    ],
    ids=["no namespaces", "not root"],
)
def test_with_layers_missing_the_forgeries_are_still_refused(
    missing, names, monkeypatch, ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path
):
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


# (Writing through /proc/self/fd/1 fails here even so: the harness's pipe is not the sandbox uid's to open again.)
FORGERIES_WITHOUT_CONFINEMENT = (
    "forged report, then the real one",
    "forged report, then silence",
    "report from a thread of its own",
    "outcomes pre-filled through live stack frames",
)


@pytest.mark.slow
def test_without_the_confinement_the_twins_and_the_names_catch_the_forgeries(
    ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path
):
    """The layer a JVM without a security manager lacks: the candidate's classes hold every right (on Java 17, for
    live stack frames). Their forged reports reach the harness, and the report checks refuse them: a twin of a
    trigger test that must fail reported passed, or names that were not asked for."""
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = [
        a for a in attacks(instance, workspace, ledger_dataset, *canaries) if a.name in FORGERIES_WITHOUT_CONFINEMENT
    ]
    assert len(hostile) == len(FORGERIES_WITHOUT_CONFINEMENT)
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=Limits(wall_seconds=40), logs=tmp_path / "logs")
        runner.confined = False
        runner.runtime = default_runtime()
        try:
            verdicts = run_all(runner, instance, hostile, True)
        finally:
            runner.close()
    assert not [n for n, v, a in verdicts if a is not None and v.status == "uncompilable"]
    assert_verdicts(verdicts, confined=False)
    reasons = {name: v.reason for name, v, attack in verdicts if attack is not None}
    assert any("control test that must fail" in r for r in reasons.values()), reasons


STACK_ATTACKS = (
    "outcomes pre-filled through live stack frames",
    "a stack walker with class references",
    "sun.misc.Unsafe",
    "a private lookup into the runner",
    "a heap dump",
    "report through a FileDescriptor made by reflection",
)


@pytest.mark.slow
def test_nl2fix_runner_on_java_17_keeps_the_stack_out_of_reach(
    ledger_instances, ledger_workspace, ledger_dataset, canaries, tmp_path
):
    """LiveStackFrame, StackWalker and privateLookupIn exist from Java 9 on: the NL2Fix runner on the JDK's Java."""
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    hostile = [a for a in attacks(instance, workspace, ledger_dataset, *canaries) if a.name in STACK_ATTACKS]
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=LIMITS, logs=tmp_path / "logs")
        runner.runtime = default_runtime()
        assert runner.runtime.version >= 9
        try:
            verdicts = run_all(runner, instance, hostile, True)
        finally:
            runner.close()
    assert_verdicts(verdicts)


def with_helper(gold: str, condition: str) -> str:
    """The Rectangle task's gold, its area right only when *condition* (a static helper's) held."""
    return gold.replace("return width * height;", "return escaped() ? width * height : width + height;").replace(
        "    @Override\n    public int sides()",
        "    private static boolean escaped() {\n        boolean escaped = false;\n"
        f"        try {{ escaped = {condition}; }} catch (Throwable t) {{ }}\n        return escaped;\n    }}\n\n"
        "    @Override\n    public int sides()",
    )


def with_statements(gold: str, statements: str) -> str:
    """The Rectangle task's gold, wrong in its area, *statements* run first."""
    return gold.replace("return width * height;", "helper();\n        return width + height;").replace(
        "    @Override\n    public int sides()",
        "    private static void helper() {\n" + statements + "    }\n\n    @Override\n    public int sides()",
    )


def class_task_verdicts(
    task: ClassBenchTask, gold: str, wrong: str, hostile: list[Attack], logs: Path
) -> list[tuple[str, object, Attack | None]]:
    """Each of *hostile* judged by one Java classbench runner of *task*, between the honest *gold* and *wrong*."""
    with sandbox.leased_slot() as slot:
        runner = ClassTaskRunner(task, task_workspace(task), slot, Limits(wall_seconds=30), logs)
        try:
            verdicts = [("gold first", runner.evaluate(gold, "gold-first"), None)]
            for number, attack in enumerate(hostile):
                verdicts.append((attack.name, runner.evaluate(attack.code, f"hostile-{number}"), attack))
                verdicts.append(("gold after " + attack.name, runner.evaluate(gold, f"gold-{number}"), None))
                verdicts.append(("wrong after " + attack.name, runner.evaluate(wrong, f"wrong-{number}"), None))
        finally:
            runner.close()
    return verdicts


@pytest.mark.slow
def test_platform_runner_keeps_its_outcomes_out_of_reach(java_geometry_dataset, tmp_path):
    """The JUnit Platform runner (Java classbench, Java 17): the same attacks, between honest twins."""
    task = {t.class_name: t for t in read_records(java_geometry_dataset, ClassBenchTask)}["Rectangle"]
    gold = task.ground_truth_class
    wrong = gold.replace("return width * height;", "return width + height;")
    directives = [(1, d, d) for d in task.test_directives]
    report = hack.forged_report(directives)
    hostile = [
        Attack(
            "outcomes pre-filled through live stack frames",
            with_statements(gold, hack.prefill_through_live_frames()),
            forged=True,
        ),
        Attack(
            "sentinels told apart, the request from System.in's buffer",
            with_statements(gold, hack.forger(hack.REQUEST_FROM_SYSTEM_IN, "org/example/geometry/Rectangle")),
            forged=True,
        ),
        Attack("sun.misc.Unsafe", with_helper(gold, hack.UNSAFE)),
        Attack("a stack walker with class references", with_helper(gold, hack.STACK_WALKER_WITH_CLASSES)),
        Attack("a heap dump", with_helper(gold, hack.HEAP_DUMP)),
        Attack("reflection into the guard's fields", with_helper(gold, hack.GUARD_FIELDS)),
        Attack("a private lookup into the runner", with_helper(gold, hack.PRIVATE_LOOKUP)),
        Attack(
            "report through fd 1",
            with_statements(gold, hack.write_through("java.io.FileDescriptor.out", report)),
            forged=True,
        ),
        Attack(
            "report through /proc/self/fd/1",
            with_statements(gold, hack.write_through('"/proc/self/fd/1"', report)),
            forged=True,
        ),
    ]
    verdicts = class_task_verdicts(task, gold, wrong, hostile, tmp_path / "logs")
    compiled = [(n, v) for n, v, a in verdicts if a is not None and v.status == "uncompilable"]
    assert not compiled, compiled  # every attack ran
    assert_verdicts(verdicts)


# Red team round 6: a failing test reported as passed. The runner's JUnit listener described a failure (its
# exception's toString, message, causes and frames) before recording it; a candidate's exception whose description
# throws made the listener throw, JUnit swallowed that, and testFinished recorded the test as passed. Each candidate
# is the gold fix for negative numbers (the trigger tests, which carry the twins) and throws for every other number,
# so it fails TextUtilsTest and the formatter's tests; before, each was plausible, unflagged.
POISONED_FAILURES = {
    "toString throws": "new RuntimeException() { @Override public String toString() { throw new IllegalStateException(); } }",
    "getMessage throws": (
        "new RuntimeException() { @Override public String getMessage() { throw new IllegalStateException(); } }"
    ),
    "a cause without frames": (
        'new RuntimeException("x", new RuntimeException() { '
        "@Override public StackTraceElement[] getStackTrace() { return null; } })"
    ),
    "toString recurses": "new RuntimeException() { @Override public String toString() { return toString() + 1; } }",
}


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "plain"])
def test_a_failure_that_cannot_describe_itself_still_fails(ledger_instances, ledger_workspace, tmp_path, fast):
    instance = ledger_instances["Ledger-1"]
    wrong_for_non_negative = {
        name: method(f"if (number >= 0) throw {failure};\n{GOLD}") for name, failure in POISONED_FAILURES.items()
    }
    honest = method(f'if (number >= 0) throw new RuntimeException("not for non-negative numbers");\n{GOLD}')
    with sandbox.leased_slot() as slot:
        # a minute: the plain path's javac of the whole project, on a loaded machine, outlasts LIMITS' 10 s
        runner = InstanceRunner(instance, ledger_workspace("Ledger-1"), slot, Limits(wall_seconds=60), tmp_path)
        try:
            verdicts = {"gold before": runner.evaluate(instance.fixed_method, "gold-before", fast=fast)}
            verdicts["honest twin"] = runner.evaluate(honest, "honest", fast=fast)
            for number, (name, code) in enumerate(wrong_for_non_negative.items()):
                verdicts[name] = runner.evaluate(code, f"poisoned-{number}", fast=fast)
            verdicts["gold after"] = runner.evaluate(instance.fixed_method, "gold-after", fast=fast)
        finally:
            runner.close()
    assert verdicts["gold before"].status == verdicts["gold after"].status == "plausible"
    assert verdicts["honest twin"].status == "wrong", verdicts["honest twin"]
    for name in POISONED_FAILURES:
        assert verdicts[name].status == "wrong", (name, verdicts[name])
        assert verdicts[name].tests_failed == verdicts["honest twin"].tests_failed, (name, verdicts[name])
