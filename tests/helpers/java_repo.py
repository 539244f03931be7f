"""A small Maven repository written here for Java classbench's tests: JUnit 4 and JUnit 5 suites, a class hierarchy
with relatives, and a class for each rejection reason."""

from __future__ import annotations

import subprocess
from pathlib import Path


def junit_pom(artifact: str) -> str:
    """A pom of org.example:*artifact*:1.0 for Java 8 whose tests have JUnit 4.13.2 and JUnit 5.9.2."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>{artifact}</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>1.8</maven.compiler.source>
    <maven.compiler.target>1.8</maven.compiler.target>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.9.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
"""


POM = junit_pom("geometry")

MAIN = {
    "org/example/geometry/Shape.java": """package org.example.geometry;

/** Something with an area. */
public abstract class Shape {
    /** The area, in square units. */
    public abstract double area();

    public String describe() {
        return getClass().getSimpleName() + " of area " + Units.format(area());
    }
}
""",
    "org/example/geometry/Polygon.java": """package org.example.geometry;

public abstract class Polygon extends Shape {
    public abstract int sides();
}
""",
    "org/example/geometry/Rectangle.java": """package org.example.geometry;

import java.util.Objects;

/**
 * An axis-aligned rectangle.
 */
public class Rectangle extends Polygon {
    protected final double width;
    protected final double height;
    private static final int SIDES = 4;

    public Rectangle(double width, double height) {
        if (width < 0 || height < 0) {
            throw new IllegalArgumentException("negative side");
        }
        this.width = width;
        this.height = height;
    }

    @Override
    public double area() {
        return width * height;
    }

    @Override
    public int sides() {
        return SIDES;
    }

    /** A rectangle scaled by {@code factor} on both axes. */
    public Rectangle scale(double factor) {
        return new Rectangle(width * factor, height * factor);
    }

    public double perimeter() {
        return 2 * (width + height);
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Rectangle)) {
            return false;
        }
        Rectangle that = (Rectangle) other;
        return width == that.width && height == that.height;
    }

    @Override
    public int hashCode() {
        return Objects.hash(width, height);
    }
}
""",
    "org/example/geometry/Square.java": """package org.example.geometry;

public class Square extends Rectangle {
    public Square(double side) {
        super(side, side);
    }
}
""",
    "org/example/geometry/Circle.java": """package org.example.geometry;

public final class Circle extends Shape {
    private final double radius;

    public Circle(double radius) {
        this.radius = radius;
    }

    @Override
    public double area() {
        return Math.PI * radius * radius;
    }

    public double radius() {
        return radius;
    }

    public Circle scale(double factor) {
        return new Circle(radius * factor);
    }
}
""",
    "org/example/geometry/Units.java": """package org.example.geometry;

import java.util.Locale;

public final class Units {
    private Units() {
    }

    public static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }

    public static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }

    public static double inches(double centimetres) {
        return centimetres / 2.54;
    }
}
""",
    "org/example/geometry/Measure.java": """package org.example.geometry;

public interface Measure {
    double of(Shape shape);
}
""",
    "org/example/geometry/Canvas.java": """package org.example.geometry;

import java.util.ArrayList;
import java.util.List;

public class Canvas {
    private final List<Shape> shapes = new ArrayList<>();

    public Canvas add(Shape shape) {
        shapes.add(shape);
        return this;
    }

    public double totalArea() {
        double total = 0;
        for (Shape shape : shapes) {
            total += shape.area();
        }
        return total;
    }

    public int count() {
        return shapes.size();
    }

    public Shape largest() {
        Shape best = null;
        for (Shape shape : shapes) {
            if (best == null || shape.area() > best.area()) {
                best = shape;
            }
        }
        return best;
    }

    public void clear() {
        shapes.clear();
    }
}
""",
}

TESTS = {
    # JUnit 4
    "org/example/geometry/RectangleTest.java": """package org.example.geometry;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import org.junit.Test;

public class RectangleTest {
    private final Rectangle unit = new Rectangle(1, 2);

    @Test
    public void areaMultipliesSides() {
        assertEquals(6.0, new Rectangle(2, 3).area(), 1e-9);
    }

    @Test
    public void scaleGrowsBothSides() {
        assertEquals(new Rectangle(2, 4), unit.scale(2));
    }

    @Test
    public void perimeterAndSides() {
        assertEquals(6.0, unit.perimeter(), 1e-9);
        assertEquals(4, unit.sides());
        assertNotEquals(unit.hashCode(), new Rectangle(2, 1).hashCode());
    }

    @Test(expected = IllegalArgumentException.class)
    public void negativeSidesAreRefused() {
        new Rectangle(-1, 1);
    }

    @Test
    public void squareIsARectangle() {
        assertEquals(new Rectangle(3, 3), new Square(3));
    }
}
""",
    # JUnit 5
    "org/example/geometry/CanvasTest.java": """package org.example.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CanvasTest {
    @Test
    void totalAreaAddsUp() {
        Canvas canvas = new Canvas().add(new Rectangle(1, 2)).add(new Rectangle(3, 1));
        assertEquals(5.0, canvas.totalArea(), 1e-9);
        assertEquals(2, canvas.count());
    }

    @Test
    void largestIsFound() {
        Shape big = new Circle(3);
        Canvas canvas = new Canvas().add(new Rectangle(1, 1)).add(big);
        assertSame(big, canvas.largest());
        canvas.clear();
        assertNull(canvas.largest());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 5})
    void countsWhatWasAdded(int shapes) {
        Canvas canvas = new Canvas();
        for (int i = 0; i < shapes; i++) {
            canvas.add(new Circle(i));
        }
        assertEquals(shapes, canvas.count());
    }

    @Test
    void describesItsShapes() {
        assertEquals("Rectangle of area 2.00", new Rectangle(1, 2).describe());
    }

    @Test
    void knownToFail() {
        assertEquals(1, new Canvas().count(), "a test that fails on the ground truth never becomes a directive");
    }
}
""",
    "org/example/geometry/UnitsTest.java": """package org.example.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class UnitsTest {
    @Test
    void formatsTwoDecimals() {
        assertEquals("3.14", Units.format(Math.PI));
    }
}
""",
}


def write_java_repo(root: Path, git: bool = False) -> Path:
    """The repository under *root* (returned); with *git*, committed, so that it can be built at a commit."""
    (root / "pom.xml").parent.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(POM)
    for folder, files in (("src/main/java", MAIN), ("src/test/java", TESTS)):
        for relative, text in files.items():
            path = root / folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if git:
        for argv in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "geometry"],
        ):
            subprocess.run(["git", "-C", str(root), *argv], check=True)
    return root
