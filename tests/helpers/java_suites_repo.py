"""A small Maven repository written here whose tests are found only by running them: a JUnit 3 suite through a base
class (``ShiftCodecTest extends AbstractCodecTest extends TestCase``, no annotations), JUnit 3 tests run only through
a suite class (``TestAll.suite()``), a JUnit 4 ``Parameterized`` test whose tests an abstract contract declares, and
JUnit 5 tests in an interface's default methods, a ``@Nested`` class and behind a meta-annotation. A custom JUnit 4
runner and an anonymous test case run tests that no source method stands for."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.java_repo import junit_pom

POM = junit_pom("codec")

P = "package org.example.codec;\n\n"

MAIN = {
    "Codec.java": P
    + "public interface Codec {\n    String encode(String text);\n\n    String decode(String text);\n}\n",
    "ReverseCodec.java": P
    + """public class ReverseCodec implements Codec {
    @Override
    public String encode(String text) {
        return new StringBuilder(text).reverse().toString();
    }

    @Override
    public String decode(String text) {
        return encode(text);
    }
}
""",
    "ShiftCodec.java": P
    + """public class ShiftCodec implements Codec {
    private final int shift;

    public ShiftCodec(int shift) {
        this.shift = shift;
    }

    public int shift() {
        return shift;
    }

    @Override
    public String encode(String text) {
        return moved(text, shift);
    }

    @Override
    public String decode(String text) {
        return moved(text, -shift);
    }

    private static String moved(String text, int by) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            out.append((char) (c + by));
        }
        return out.toString();
    }
}
""",
    "RomanCodec.java": P
    + """/** Numbers written in decimal, encoded as Roman numerals. */
public class RomanCodec implements Codec {
    private static final int[] VALUES = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1};
    private static final String[] DIGITS = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"};

    @Override
    public String encode(String text) {
        int n = Integer.parseInt(text);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < VALUES.length; i++) {
            while (n >= VALUES[i]) {
                out.append(DIGITS[i]);
                n -= VALUES[i];
            }
        }
        return out.toString();
    }

    @Override
    public String decode(String text) {
        int n = 0;
        int at = 0;
        for (int i = 0; i < VALUES.length; i++) {
            while (text.startsWith(DIGITS[i], at)) {
                n += VALUES[i];
                at += DIGITS[i].length();
            }
        }
        return Integer.toString(n);
    }
}
""",
    "Limits.java": P
    + """public final class Limits {
    public static final int MAX = 10;

    private Limits() {}

    public static int check(int n) {
        if (n > MAX) {
            throw new IllegalArgumentException(n + " > " + MAX);
        }
        return n;
    }
}
""",
    "Counter.java": P
    + """public class Counter {
    private int total;

    public void add(int n) {
        total = Limits.check(total + n);
    }

    public int total() {
        return total;
    }

    public void reset() {
        total = 0;
    }
}
""",
    "BoundedStack.java": P
    + """import java.util.ArrayList;
import java.util.List;

public class BoundedStack {
    private final List<String> items = new ArrayList<>();

    public void push(String item) {
        if (items.size() == Limits.MAX) {
            throw new IllegalStateException("full");
        }
        items.add(item);
    }

    public String pop() {
        return items.remove(items.size() - 1);
    }

    public String peek() {
        return items.get(items.size() - 1);
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    public int size() {
        return items.size();
    }
}
""",
}

TESTS = {
    # JUnit 3 through a base class: the tests are the base class's, run under each subclass's name.
    "AbstractCodecTest.java": P
    + """import junit.framework.TestCase;

public abstract class AbstractCodecTest extends TestCase {
    protected abstract Codec makeCodec();

    public void testRoundTrip() {
        Codec codec = makeCodec();
        assertEquals("hello", codec.decode(codec.encode("hello")));
    }

    public void testEmptyStaysEmpty() {
        assertEquals("", makeCodec().encode(""));
    }
}
""",
    "ReverseCodecTest.java": P
    + """public class ReverseCodecTest extends AbstractCodecTest {
    protected Codec makeCodec() {
        return new ReverseCodec();
    }

    public void testReversesLetters() {
        assertEquals("cba", new ReverseCodec().encode("abc"));
    }
}
""",
    "ShiftCodecTest.java": P
    + """public class ShiftCodecTest extends AbstractCodecTest {
    protected Codec makeCodec() {
        return new ShiftCodec(3);
    }

    public void testShiftIsKept() {
        assertEquals(3, ((ShiftCodec) makeCodec()).shift());
    }
}
""",
    # JUnit 3 run only through a suite class: CounterChecks is not named as Surefire runs classes.
    "CheckBase.java": P
    + """import junit.framework.TestCase;

public abstract class CheckBase extends TestCase {
    protected Counter counter;

    protected void setUp() {
        counter = new Counter();
    }
}
""",
    "CounterChecks.java": P
    + """public class CounterChecks extends CheckBase {
    public void testAddsUp() {
        counter.add(2);
        counter.add(3);
        assertEquals(5, counter.total());
    }

    public void testResetEmpties() {
        counter.add(4);
        counter.reset();
        assertEquals(0, counter.total());
    }

    public void testRefusesTooMuch() {
        try {
            counter.add(Limits.MAX + 1);
            fail();
        } catch (IllegalArgumentException expected) {
        }
    }
}
""",
    "TestAll.java": P
    + """import junit.framework.Test;
import junit.framework.TestCase;
import junit.framework.TestSuite;

public class TestAll {
    public static Test suite() {
        TestSuite suite = new TestSuite("all");
        suite.addTestSuite(CounterChecks.class);
        suite.addTest(new TestCase("limitIsTen") {
            @Override
            protected void runTest() {
                assertEquals(10, Limits.MAX);
            }
        });
        return suite;
    }
}
""",
    # JUnit 4: a Parameterized test whose test method an abstract contract declares.
    "CodecContract.java": P
    + """import static org.junit.Assert.assertEquals;

import org.junit.Test;

public abstract class CodecContract {
    protected abstract Codec codec();

    protected abstract String sample();

    @Test
    public void roundTrips() {
        assertEquals(sample(), codec().decode(codec().encode(sample())));
    }
}
""",
    "RomanCodecTest.java": P
    + """import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Collection;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

@RunWith(Parameterized.class)
public class RomanCodecTest extends CodecContract {
    @Parameters(name = "{index}: {0}")
    public static Collection<Object[]> numbers() {
        return Arrays.asList(new Object[][] {{"1"}, {"4"}, {"1994"}});
    }

    private final String number;

    public RomanCodecTest(String number) {
        this.number = number;
    }

    protected Codec codec() {
        return new RomanCodec();
    }

    protected String sample() {
        return number;
    }

    @Test
    public void encodesKnownValue() {
        assertEquals("MCMXCIV", new RomanCodec().encode("1994"));
    }
}
""",
    # JUnit 4: a runner whose tests are rows, not methods.
    "TableRunner.java": P
    + """import org.junit.runner.Description;
import org.junit.runner.Runner;
import org.junit.runner.notification.RunNotifier;

public class TableRunner extends Runner {
    private final Class<?> table;

    public TableRunner(Class<?> table) {
        this.table = table;
    }

    @Override
    public Description getDescription() {
        Description suite = Description.createSuiteDescription(table);
        suite.addChild(row(1));
        suite.addChild(row(2));
        return suite;
    }

    private Description row(int n) {
        return Description.createTestDescription(table, "row " + n);
    }

    @Override
    public void run(RunNotifier notifier) {
        for (int n = 1; n <= 2; n++) {
            notifier.fireTestStarted(row(n));
            notifier.fireTestFinished(row(n));
        }
    }
}
""",
    "TableTest.java": P
    + "import org.junit.runner.RunWith;\n\n@RunWith(TableRunner.class)\npublic class TableTest {}\n",
    # JUnit 5: an interface's default test, a meta-annotated test in a @Nested class, a parameterized test.
    "Check.java": P
    + """import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;

@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Test
public @interface Check {}
""",
    "StackContract.java": P
    + """import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public interface StackContract {
    BoundedStack make();

    @Test
    default void pushThenPop() {
        BoundedStack stack = make();
        stack.push("a");
        assertEquals("a", stack.peek());
        assertEquals("a", stack.pop());
        assertTrue(stack.isEmpty());
    }
}
""",
    "BoundedStackTest.java": P
    + """import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BoundedStackTest implements StackContract {
    @Override
    public BoundedStack make() {
        return new BoundedStack();
    }

    @ParameterizedTest(name = "holds {0}")
    @ValueSource(ints = {1, 5, 10})
    void holdsUpTo(int n) {
        BoundedStack stack = make();
        for (int i = 0; i < n; i++) {
            stack.push("x" + i);
        }
        assertEquals(n, stack.size());
    }

    @Nested
    class WhenFull {
        BoundedStack full;

        @BeforeEach
        void fill() {
            full = make();
            for (int i = 0; i < Limits.MAX; i++) {
                full.push("x");
            }
        }

        @Check
        void refusesMore() {
            assertThrows(IllegalStateException.class, () -> full.push("y"));
        }
    }
}
""",
}


def write_suites_repo(root: Path) -> Path:
    """The repository under *root* (returned)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(POM)
    for folder, files in (("src/main/java", MAIN), ("src/test/java", TESTS)):
        for name, text in files.items():
            path = root / folder / "org/example/codec" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return root
