"""Small Maven repositories written here for the Maven model's builds: a source generated from java-templates, a
reactor whose module depends on a sibling, and a build that fails."""

from __future__ import annotations

import subprocess
from pathlib import Path

NS = 'xmlns="http://maven.apache.org/POM/4.0.0"'
JUNIT = (
    "<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version>"
    "<scope>test</scope></dependency>"
)

COUNTER = """package org.example.{package};

public class Counter {{
    private int count;

    public void add(int n) {{
        count += n;
    }}

    public int total() {{
        return count;
    }}

    public String label() {{
        return Labels.join({label}, count);
    }}
}}
"""

LABELS = """package org.example.{package};

final class Labels {{
    static String join(String name, int count) {{
        return name + ":" + count;
    }}
}}
"""

COUNTER_TEST = """package org.example.{package};

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CounterTest {{
    @Test
    public void addsUp() {{
        Counter counter = new Counter();
        counter.add(2);
        counter.add(3);
        assertEquals(5, counter.total());
    }}

    @Test
    public void labelNamesTheVersion() {{
        Counter counter = new Counter();
        counter.add(1);
        assertEquals({expected}, counter.label());
    }}
}}
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit(root: Path) -> str:
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "repo"]):
        subprocess.run(["git", "-C", str(root), *argv], check=True)
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def templated_repo(root: Path) -> Path:
    """A module whose ``Version`` is filtered from ``src/main/java-templates`` (``${project.version}``), a class that
    uses it, and a class whose declared dependency no repository here has (left out, the artifact named)."""
    pom = f"""<project {NS}>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId><artifactId>templated</artifactId><version>4.2.0</version>
  <properties><maven.compiler.release>11</maven.compiler.release></properties>
  <dependencies>{JUNIT}
    <dependency><groupId>org.nowhere</groupId><artifactId>absent-lib</artifactId><version>1.0</version></dependency>
  </dependencies>
  <build><plugins><plugin><groupId>org.codehaus.mojo</groupId><artifactId>templating-maven-plugin</artifactId>
    <version>1.0.0</version><executions><execution><goals><goal>filter-sources</goal></goals></execution></executions>
  </plugin></plugins></build>
</project>
"""
    _write(
        root,
        {
            "pom.xml": pom,
            "src/main/java-templates/org/example/templated/Version.java": "package org.example.templated;\n\npublic "
            "final class Version "
            '{\n    public static final String VALUE = "${project.version}";\n}\n',
            "src/main/java/org/example/templated/Counter.java": COUNTER.format(
                package="templated", label="Version.VALUE"
            ),
            "src/main/java/org/example/templated/Labels.java": LABELS.format(package="templated"),
            "src/main/java/org/example/templated/Bridge.java": "package org.example.templated;\n\nimport "
            "org.nowhere.absent.Thing;\n\npublic class Bridge {\n"
            "    public Thing thing() {\n        return null;\n    }\n}\n",
            "src/test/java/org/example/templated/CounterTest.java": COUNTER_TEST.format(
                package="templated", expected='"4.2.0:1"'
            ),
            "src/test/java/org/example/templated/BridgeTest.java": "package org.example.templated;\n\nimport "
            "org.junit.Test;\n\npublic class BridgeTest {\n"
            "    @Test\n    public void bridges() {\n        new Bridge().thing();\n    }\n}\n",
        },
    )
    return root


def reactor_repo(root: Path, broken_core: bool = False) -> Path:
    """A reactor of two modules: ``app`` (its Counter labels with core's ``Names``) depends on its sibling ``core``,
    which the parent's dependency management versions, and on core's test-jar (its ``Fixtures``); core has a
    ``module-info.java`` that Java 8 cannot compile (Maven compiles it apart). *broken_core*: core does not compile."""
    parent = f"""<project {NS}>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>core</module><module>app</module></modules>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.example</groupId><artifactId>core</artifactId><version>${{project.version}}</version></dependency>
  </dependencies></dependencyManagement>
</project>
"""
    core = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>core</artifactId>
</project>
"""
    app = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>app</artifactId>
  <dependencies><dependency><groupId>org.example</groupId><artifactId>core</artifactId></dependency>{JUNIT}
    <dependency><groupId>org.example</groupId><artifactId>core</artifactId><type>test-jar</type><scope>test</scope></dependency>
  </dependencies>
</project>
"""
    names = (
        "package org.example.core;\n\npublic final class Names {\n    public static String of(String what) {\n"
        '        return "app-" + what;\n    }\n}\n'
    )
    if broken_core:
        names = names.replace("return", "return undefinedHelper() +")
    _write(
        root,
        {
            "pom.xml": parent,
            "core/pom.xml": core,
            "app/pom.xml": app,
            "core/src/main/java/org/example/core/Names.java": names,
            "core/src/main/resources/core.properties": "name=core\n",
            "core/src/main/java/module-info.java": "module org.example.core {\n    exports org.example.core;\n}\n",
            "core/src/test/java/org/example/core/Fixtures.java": "package org.example.core;\n\npublic final class "
            "Fixtures {\n    public static int two() {\n        return 2;\n    }\n}\n",
            "app/src/test/java/org/example/app/FixturesUseTest.java": "package org.example.app;\n\nimport static "
            "org.junit.Assert.assertEquals;\n\nimport "
            "org.junit.Test;\n\n"
            "public class FixturesUseTest {\n    @Test\n    public void usesCoreFixtures() {\n"
            "        assertEquals(2, org.example.core.Fixtures.two());\n    }\n}\n",
            "app/src/main/java/org/example/app/Counter.java": COUNTER.format(
                package="app", label='org.example.core.Names.of("counter")'
            ),
            "app/src/main/java/org/example/app/Labels.java": LABELS.format(package="app"),
            "app/src/test/java/org/example/app/CounterTest.java": COUNTER_TEST.format(
                package="app", expected='"app-counter:1"'
            ),
        },
    )
    return root


def java21_repo(root: Path) -> Path:
    """A module whose pom asks for Java 21 (``maven.compiler.release``): its ``Shape`` switches over its own sealed
    records with record patterns and a guard (Java 21's language, which javac 17 cannot read), and ``Areas``, the
    task, calls Java 21's API (``Math.clamp``, ``List.getFirst``), which Java 17 lacks at compile and at run time.
    (``Areas`` keeps to the syntax javalang reads: the shortlist reads a class with it, and rejects ``Shape`` as "does
    not parse".)"""
    pom = f"""<project {NS}>
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId><artifactId>shapes</artifactId><version>1.0</version>
  <properties><maven.compiler.release>21</maven.compiler.release></properties>
  <dependencies>{JUNIT}</dependencies>
</project>
"""
    shape = """package org.example.shapes;

public sealed interface Shape {
    record Square(int side) implements Shape {
    }

    record Rect(int width, int height) implements Shape {
    }

    default int area() {
        return switch (this) {
            case Square(int side) -> side * side;
            case Rect(int width, int height) -> width * height;
        };
    }

    default String kind() {
        return switch (this) {
            case Square square when square.side() == 0 -> "empty";
            case Square square -> "square";
            case Rect rect -> "rect";
        };
    }
}
"""
    areas = """package org.example.shapes;

import java.util.List;

public final class Areas {
    private Areas() {
    }

    public static int capped(Shape shape, int limit) {
        return Math.clamp(shape.area(), 0, limit);
    }

    public static String largest(List<Shape> shapes) {
        List<Shape> sorted = new java.util.ArrayList<Shape>(shapes);
        sorted.sort(java.util.Comparator.comparingInt(Shape::area));
        Shape last = sorted.getLast();
        return last.kind() + " " + last.area();
    }
}
"""
    test = """package org.example.shapes;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import org.junit.Test;

public class AreasTest {
    @Test
    public void capsTheArea() {
        assertEquals(9, Areas.capped(new Shape.Square(3), 10));
        assertEquals(4, Areas.capped(new Shape.Rect(2, 3), 4));
    }

    @Test
    public void namesTheLargest() {
        assertEquals("rect 6", Areas.largest(Arrays.asList(new Shape.Square(2), new Shape.Rect(2, 3))));
        assertEquals("empty 0", Areas.largest(Arrays.asList(new Shape.Square(0))));
    }

    @Test
    public void runsOnJava21() {
        assertEquals(21, Runtime.version().feature());
    }
}
"""
    _write(
        root,
        {
            "pom.xml": pom,
            "src/main/java/org/example/shapes/Shape.java": shape,
            "src/main/java/org/example/shapes/Areas.java": areas,
            "src/test/java/org/example/shapes/AreasTest.java": test,
        },
    )
    return root
