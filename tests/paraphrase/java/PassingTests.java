import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/** Runs JUnit 4 (and 3) test classes and prints one "PASS\tClass#method" line per passing test. */
public final class PassingTests {
    public static void main(String[] args) {
        JUnitCore core = new JUnitCore();
        Set<String> failed = new HashSet<>();
        List<String> finished = new ArrayList<>();
        core.addListener(new RunListener() {
            @Override
            public void testFailure(Failure failure) {
                failed.add(id(failure.getDescription()));
            }

            @Override
            public void testAssumptionFailure(Failure failure) {
                failed.add(id(failure.getDescription()));
            }

            @Override
            public void testFinished(Description description) {
                finished.add(id(description));
            }
        });
        for (String name : args) {
            try {
                core.run(Request.aClass(Class.forName(name)));
            } catch (Throwable error) {
                System.out.println("BROKEN\t" + name + "\t" + error);
            }
        }
        for (String test : finished) {
            if (!failed.contains(test)) System.out.println("PASS\t" + test);
        }
    }

    private static String id(Description description) {
        return description.getClassName() + "#" + description.getMethodName();
    }
}
