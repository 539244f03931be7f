package org.example.shapes;

/**
 * Something with an area.
 */
public interface Shape extends Comparable<Shape>, java.io.Serializable {
    double UNIT = 1.0;

    /** Its area, in square units. */
    double area();

    default int compareTo(Shape other) {
        return Double.compare(area(), other.area());
    }
}

enum Color implements Shape {
    /** The first. */
    RED("r"),
    GREEN("g") {
        @Override
        public double area() {
            return 2.0;
        }
    },
    BLUE("b");

    private final String code;

    Color(String code) {
        this.code = code;
    }

    @Override
    public double area() {
        return 0.0;
    }
}

@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
@interface Drawn {
    /** Its layers. */
    int[] layers() default {1, 2};

    String by() default "hand";
}
