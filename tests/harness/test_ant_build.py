"""What a revision's Ant build adds to Defects4J's layout, read from its build.xml (runners/java/ant_build)."""

import subprocess
import zipfile

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.ant_build import AntBuild, relocated_libraries
from benchsmith.runners.java.defects4j_workspace import _more_source_dirs

BUILD = """<project name="demo" default="compile" basedir=".">
  <property name="src.dir" value="${basedir}/src" />
  <property name="gen.dir" value="${basedir}/gen" />
  <property name="test.dir" value="${basedir}/test" />
  <property name="build.dir" value="${basedir}/build" />
  <property name="classes.dir" value="${build.dir}/classes" />
  <property name="buildlib.dir" value="${build.dir}/lib" />
  <target name="engine">
    <ant antfile="build.xml" inheritAll="false" dir="lib/engine/" target="jar" />
  </target>
  <target name="engine-jarjar" depends="engine">
    <taskdef name="jarjar" classname="com.tonicsystems.jarjar.JarJarTask" classpath="lib/jarjar.jar"/>
    <jarjar destfile="${buildlib.dir}/engine.jar" update="true">
      <zipfileset src="${buildlib.dir}/engine/js.jar"/>
      <rule pattern="org.example.engine.**" result="com.demo.engine.@1"/>
    </jarjar>
  </target>
  <target name="compile" depends="engine-jarjar">
    <javac srcdir="${gen.dir}" destdir="${classes.dir}" />
    <javac srcdir="${src.dir}" destdir="${classes.dir}" />
    <copy file="${src.dir}/demo/Messages.properties" todir="${classes.dir}/ast/demo/" />
    <copy file="${src.dir}/demo/Config.properties" todir="${build.dir}/elsewhere" />
  </target>
  <target name="compile-tests" depends="compile">
    <javac srcdir="${test.dir}" destdir="${build.dir}/test" />
  </target>
</project>
"""


def _write(tree, files):
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)


def test_the_folders_an_ant_build_compiles_into_the_classes_of_the_sources_are_compiled_with_them(tmp_path):
    """Closure compiles its generated protocol buffers (gen/) into the classes of src/: without them its sources do
    not compile."""
    _write(tmp_path, {"build.xml": BUILD, "gen/A.java": "class A {}", "src/B.java": "class B {}", "test/T.java": ""})
    assert AntBuild(tmp_path).source_dirs() == [["gen", "src"], ["test"]]
    assert _more_source_dirs(tmp_path, "src", "test") == (("gen",), ())
    assert _more_source_dirs(tmp_path, "src", "test", ant=False) == ((), ())
    (tmp_path / "build.xml").write_text("<project><javac srcdir='${undefined.dir}' destdir='out'/></project>")
    assert AntBuild(tmp_path).source_dirs() == []  # a folder set on Ant's command line is not guessed
    (tmp_path / "build.xml").write_text("<project><javac")
    assert AntBuild(tmp_path).source_dirs() == []


@pytest.mark.java
def test_a_library_the_build_renames_with_jarjar_is_compiled_renamed_and_shared(tmp_path):
    """Closure's Rhino: the classes, the names that spell the package in strings (a resource bundle found by name)
    and the resources all move to the new package; a second revision with the same sources gets the same jar."""
    engine = "lib/engine/src/org/example/engine"
    library = {
        f"{engine}/Engine.java": (
            "package org.example.engine;\n"
            "import org.example.engine.util.Names;\n"
            "public class Engine {\n"
            "  public static String hello() {\n"
            '    return java.util.ResourceBundle.getBundle("org.example.engine.resources.Messages").getString("hi")\n'
            "        + Names.of(Engine.class);\n"
            "  }\n"
            "}\n"
        ),
        f"{engine}/util/Names.java": (
            "package org.example.engine.util;\n"
            'public class Names { public static String of(Class<?> c) { return " from " + c.getName(); } }\n'
        ),
        f"{engine}/resources/Messages.properties": "hi=hello\n",
        "lib/engine/build.xml": "<project/>",
    }
    trees = [tmp_path / "r1", tmp_path / "r2"]
    for tree in trees:
        _write(tree, {"build.xml": BUILD, **library})
    jars = [relocated_libraries(tree, "8") for tree in trees]
    assert len(jars[0]) == 1 and jars[0] == jars[1]
    with zipfile.ZipFile(jars[0][0]) as archive:
        names = archive.namelist()
    assert "com/demo/engine/Engine.class" in names and "com/demo/engine/util/Names.class" in names
    assert "com/demo/engine/resources/Messages.properties" in names
    assert not any(name.startswith("org/") for name in names)
    user = tmp_path / "user"
    _write(
        user,
        {
            "Main.java": "public class Main { public static void main(String[] a) {"
            " System.out.println(com.demo.engine.Engine.hello()); } }"
        },
    )
    classpath = f"{jars[0][0]}:{user}"
    subprocess.run(["javac", "-cp", classpath, "-d", str(user), str(user / "Main.java")], check=True)
    shown = subprocess.run(["java", "-cp", classpath, "Main"], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "hello from com.demo.engine.Engine"


def test_a_jarjar_rule_that_is_not_a_package_renaming_is_an_error_naming_it(tmp_path):
    _write(tmp_path, {"build.xml": BUILD.replace('result="com.demo.engine.@1"', 'result="com.demo.Fixed"')})
    with pytest.raises(BenchsmithError, match=r"build.xml: jarjar rule org.example.engine.\*\* → com.demo.Fixed"):
        AntBuild(tmp_path).relocations()


def test_the_files_the_build_copies_beside_the_classes_are_resources_of_the_workspace(tmp_path):
    """Closure looks its messages up at rhino_ast/java/com/google/javascript/rhino/, where its build.xml copies
    them; a copy into another folder than the classes' is none of the workspace's business."""
    from benchsmith.runners.java.defects4j_workspace import BUILD_RESOURCES, Workspace

    _write(tmp_path, {"build.xml": BUILD, "src/demo/Messages.properties": "hi=hello\n"})
    assert AntBuild(tmp_path).copied_resources("src") == [
        ("src/demo/Messages.properties", "ast/demo/Messages.properties")
    ]
    assert AntBuild(tmp_path).copied_resources("test") == []
    workspace = Workspace(tmp_path.parent, tmp_path.name + "/src", "test", "UTF-8", "UTF-8", (), ())
    (tmp_path.parent / "tree" / BUILD_RESOURCES).mkdir(parents=True)
    assert workspace.tree / BUILD_RESOURCES in workspace.resource_dirs()
