import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * BenchsmithRunner's {@code test} mode on the JUnit Platform: JUnit 5 Jupiter tests, and JUnit 3 and 4 tests through
 * the vintage engine, in one JVM for one candidate. The same line protocol, the same guard, the same halt after the
 * one report; only the engine differs. A test is {@code Class::method}: every invocation of a method (parameterized,
 * repeated, or overloads of one name) counts as one test, which passes only when every invocation does. A test whose
 * class cannot start (a failing {@code @BeforeAll}, a class that does not load) is reported failed with that reason.
 * A test that ran with no method for its source (a JUnit 4 runner whose names are not methods', a dynamic test with a
 * source of its own) cannot be asked for by name: it is reported apart, under {@code unattributed}, with its class,
 * the engine's name for it and its outcome, so that the suite run counts it.
 */
public final class PlatformRunner {
    private PlatformRunner() {}

    /** Tests that ran without a method source: unique id → {class, the engine's name, outcome}. */
    private static final Map<String, String[]> UNATTRIBUTED = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(new java.io.FileInputStream(java.io.FileDescriptor.in),
                StandardCharsets.UTF_8));
        System.setIn(new java.io.ByteArrayInputStream(new byte[0]));  // no buffer of System.in's holds the request
        OutputStream report = new FileOutputStream(java.io.FileDescriptor.out);
        System.setOut(System.err);
        BenchsmithRunner.Guard guard = BenchsmithRunner.Guard.install();
        Launcher launcher = LauncherFactory.create();
        for (int i = 0; i < WARM_UP_RUNS && (i == 0 || !in.ready()); i++) {
            run(launcher, PlatformRunner.class.getClassLoader(), "BenchsmithRunner$Warmup", new HashSet<>(), new LinkedHashMap<>());
        }
        UNATTRIBUTED.clear();
        String line = in.readLine();
        if (line == null) {
            guard.exitAllowed = true;
            Runtime.getRuntime().halt(3);
        }
        String[] f = line.split("\t", -1);
        long started = System.nanoTime();
        Set<String> excluded = new HashSet<>(split(f[2]));
        List<Map<String, String[]>> phases = new ArrayList<>();
        phases.add(new LinkedHashMap<>());
        Set<String> candidateTypes = new HashSet<>(split(f.length > 5 ? f[5] : ""));
        guard.confinement.grant(f.length > 6 ? f[6] : "");
        ClassLoader loader = BenchsmithRunner.loader(f[0], candidateTypes);
        Thread.currentThread().setContextClassLoader(loader);
        boolean passed = true;
        for (String spec : split(f[3])) {
            passed &= run(launcher, loader, spec, excluded, phases.get(0));
            if (!passed && !"all".equals(f[1])) break;
        }
        if (passed || "all".equals(f[1])) {
            phases.add(new LinkedHashMap<>());
            ClassLoader fresh = BenchsmithRunner.loader(f[0], candidateTypes);
            Thread.currentThread().setContextClassLoader(fresh);
            for (String spec : split(f[4])) run(launcher, fresh, spec, excluded, phases.get(1));
        }
        StringBuilder tests = new StringBuilder();
        for (int phase = 0; phase < phases.size(); phase++) {
            for (Map.Entry<String, String[]> e : phases.get(phase).entrySet()) {
                if (tests.length() > 0) tests.append(',');
                String message = e.getValue()[1].length() > 500 ? e.getValue()[1].substring(0, 500) : e.getValue()[1];
                tests.append("{\"phase\":").append(phase + 1).append(",\"name\":").append(BenchsmithRunner.quote(e.getKey()))
                        .append(",\"spec\":").append(BenchsmithRunner.quote(e.getValue()[2])).append(",\"outcome\":")
                        .append(BenchsmithRunner.quote(e.getValue()[0])).append(",\"message\":")
                        .append(BenchsmithRunner.quote(message)).append('}');
            }
        }
        StringBuilder unattributed = new StringBuilder();
        for (String[] u : UNATTRIBUTED.values()) {
            if (unattributed.length() > 0) unattributed.append(',');
            unattributed.append("{\"class\":").append(BenchsmithRunner.quote(u[0])).append(",\"name\":")
                    .append(BenchsmithRunner.quote(u[1])).append(",\"outcome\":").append(BenchsmithRunner.quote(u[2]))
                    .append('}');
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        report.write(("{\"phases\":" + phases.size() + ",\"test_ms\":" + ms + ",\"tests\":[" + tests + "],"
                + "\"unattributed\":[" + unattributed + "],"
                + BenchsmithRunner.confinement(guard.confinement, candidateTypes) + "}\n")
                .getBytes(StandardCharsets.UTF_8));
        report.flush();
        guard.exitAllowed = true;
        Runtime.getRuntime().halt(0);
    }

    private static final int WARM_UP_RUNS = 10;

    /** Runs one spec (Class or Class::method); true when every test it ran passed. */
    private static boolean run(Launcher launcher, ClassLoader loader, String spec, Set<String> excluded,
                               Map<String, String[]> outcomes) {
        int split = spec.indexOf("::");
        String className = split < 0 ? spec : spec.substring(0, split);
        final String method = split < 0 ? null : spec.substring(split + 2);
        Class<?> testClass;
        try {
            testClass = Class.forName(className, false, loader);
        } catch (Throwable t) {
            put(outcomes, spec, spec, "failed", "cannot load test class: " + t);
            return false;
        }
        DiscoverySelector selector = DiscoverySelectors.selectClass(testClass);
        PostDiscoveryFilter filter = descriptor -> {
            Optional<TestSource> source = descriptor.getSource();
            if (!source.isPresent() || !(source.get() instanceof MethodSource)) return FilterResult.included("container");
            MethodSource m = (MethodSource) source.get();
            String name = testName(m);
            boolean wanted = (method == null || method.equals(m.getMethodName())) && !excluded.contains(name);
            return wanted ? FilterResult.included("wanted") : FilterResult.excluded("not asked for");
        };
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selector).filters(filter)
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false").build();
        final Map<String, String[]> mine = new LinkedHashMap<>();
        final Map<String, String> containerFailures = new LinkedHashMap<>();
        final Map<String, String[]> unattributed = new LinkedHashMap<>();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override public void executionSkipped(TestIdentifier id, String reason) {
                String name = methodName(id);
                if (name != null) merge(mine, name, spec, "ignored", reason == null ? "" : reason);
                else if (id.isTest()) unattributed.put(id.getUniqueId(), new String[] {className(id, className), id.getLegacyReportingName(), "ignored"});
            }
            @Override public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                String name = methodName(id);
                String message = result.getThrowable().map(BenchsmithRunner::describe).orElse("");
                if (name == null && id.isTest()) {
                    String outcome = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? "passed"
                            : result.getStatus() == TestExecutionResult.Status.ABORTED ? "assumption" : "failed";
                    unattributed.put(id.getUniqueId(), new String[] {className(id, className), id.getLegacyReportingName(), outcome});
                    return;
                }
                if (name == null) {
                    if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) containerFailures.put(id.getDisplayName(), message);
                    return;
                }
                if (!id.isTest()) {
                    // A test template (parameterized, repeated): its invocations report themselves; its own failure
                    // (no arguments, a broken source) fails it.
                    if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) merge(mine, name, spec, "failed", message);
                    return;
                }
                String outcome = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL ? "passed"
                        : result.getStatus() == TestExecutionResult.Status.ABORTED ? "assumption" : "failed";
                merge(mine, name, spec, outcome, message);
            }
        };
        try {
            launcher.execute(request, listener);
        } catch (Throwable t) {
            put(outcomes, spec, spec, "failed", "the platform failed: " + t);
            return false;
        }
        UNATTRIBUTED.putAll(unattributed);
        if (mine.isEmpty() && method == null && !unattributed.isEmpty()) {  // every test it ran is apart
            boolean allPassed = true;
            for (String[] u : unattributed.values()) allPassed &= "passed".equals(u[2]);
            return allPassed;
        }
        if (mine.isEmpty()) {
            String why = containerFailures.isEmpty() ? "no test ran" : containerFailures.values().iterator().next();
            if (containerFailures.isEmpty() && method == null && !excluded.isEmpty()) return true;  // all excluded
            put(mine, spec, spec, "failed", why);
        }
        boolean passed = true;
        for (Map.Entry<String, String[]> e : mine.entrySet()) {
            outcomes.putIfAbsent(e.getKey(), e.getValue());
            passed &= "passed".equals(e.getValue()[0]);
        }
        return passed;
    }

    private static String testName(MethodSource m) {
        return m.getClassName() + "::" + m.getMethodName();
    }

    /** The class a test without a method source belongs to: its class source's, else the class run. */
    private static String className(TestIdentifier id, String run) {
        Optional<TestSource> source = id.getSource();
        if (source.isPresent() && source.get() instanceof ClassSource) return ((ClassSource) source.get()).getClassName();
        return run;
    }

    private static String methodName(TestIdentifier id) {
        Optional<TestSource> source = id.getSource();
        if (source.isPresent() && source.get() instanceof MethodSource) return testName((MethodSource) source.get());
        return null;
    }

    /** Several invocations of one test: failed beats assumption beats passed beats ignored. */
    private static void merge(Map<String, String[]> outcomes, String name, String spec, String outcome, String message) {
        String[] now = outcomes.get(name);
        if (now == null || rank(outcome) > rank(now[0])) outcomes.put(name, new String[] {outcome, message, spec});
    }

    private static int rank(String outcome) {
        switch (outcome) {
            case "failed": return 3;
            case "assumption": return 2;
            case "passed": return 1;
            default: return 0;
        }
    }

    private static void put(Map<String, String[]> outcomes, String name, String spec, String outcome, String message) {
        if (!outcomes.containsKey(name)) outcomes.put(name, new String[] {outcome, message, spec});
    }

    private static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        for (String item : list.split(",")) if (!item.trim().isEmpty()) items.add(item.trim());
        return items;
    }
}
