import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * benchsmith's test runner. Verdicts leave this JVM only as JSON signed with an
 * HMAC whose key arrives on stdin before any candidate code runs and lives in a
 * local variable, so whatever a candidate prints or writes cannot pose as one.
 *
 * <pre>
 * run   --classpath CP --results FILE --trigger T1,T2 --relevant C1,C2 [--exclude T3,T4] [--all]
 * serve --classpath CP                                                         (warm: one request per stdin line)
 *   request:  id \t source.java \t class-output-dir \t timeout-ms \t triggers \t relevant-classes \t stop|all \t excluded
 * "stop" skips the relevant classes after a trigger test fails; "all" runs everything. Excluded tests
 * (Class::method, known broken or flaky) are left out of the relevant classes.
 *   response: BENCHSMITH id json hmac
 * </pre>
 */
public final class BenchsmithRunner {
    private BenchsmithRunner() {}

    /** Blocks what no test of a library should need: exiting the JVM, starting processes, sockets. */
    static final class Guard extends SecurityManager {
        volatile boolean exitAllowed;

        @Override public void checkPermission(Permission perm) {
            if (perm instanceof RuntimePermission && "setSecurityManager".equals(perm.getName())) {
                throw new SecurityException("benchsmith: replacing the security manager is not allowed");
            }
        }
        @Override public void checkPermission(Permission perm, Object context) { checkPermission(perm); }
        @Override public void checkExit(int status) {
            if (!exitAllowed) throw new SecurityException("benchsmith: System.exit(" + status + ") is not allowed");
        }
        @Override public void checkExec(String cmd) { throw new SecurityException("benchsmith: starting processes is not allowed"); }
        @Override public void checkConnect(String host, int port) {
            if (port != -1) throw new SecurityException("benchsmith: network access is not allowed");
        }
        @Override public void checkConnect(String host, int port, Object context) { checkConnect(host, port); }
        @Override public void checkListen(int port) { throw new SecurityException("benchsmith: network access is not allowed"); }
        @Override public void checkAccept(String host, int port) { throw new SecurityException("benchsmith: network access is not allowed"); }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        byte[] key = in.readLine().trim().getBytes(StandardCharsets.US_ASCII);
        PrintStream out = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        String mode = args[0];
        String classpath = option(args, "--classpath", "");
        Guard guard = new Guard();
        if ("run".equals(mode)) {
            String results = option(args, "--results", null);
            List<String> triggers = split(option(args, "--trigger", ""));
            List<String> relevant = split(option(args, "--relevant", ""));
            System.setSecurityManager(guard);
            boolean all = Arrays.asList(args).contains("--all");
            Set<String> excluded = new HashSet<>(split(option(args, "--exclude", "")));
            String json = runTests(loader(classpath, null), triggers, relevant, !all, excluded);
            guard.exitAllowed = true;
            Files.write(Paths.get(results), (json + "\n" + hmac(key, json) + "\n").getBytes(StandardCharsets.UTF_8));
            System.exit(0);
        } else if ("serve".equals(mode)) {
            serve(in, out, key, classpath, guard);
        } else {
            throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static void serve(BufferedReader in, PrintStream out, byte[] key, String classpath, Guard guard) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        System.setSecurityManager(guard);
        out.println("BENCHSMITH ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            String id = f[0];
            String json = handle(compiler, files, classpath, f[1], f[2], Long.parseLong(f[3]), split(f[4]), split(f[5]),
                    "stop".equals(f[6]), new HashSet<>(split(f[7])));
            out.println("BENCHSMITH " + id + " " + json + " " + hmac(key, id + " " + json));
            if (json.contains("\"tainted\":true")) break;
        }
        guard.exitAllowed = true;
        System.exit(0);
    }

    private static String handle(JavaCompiler compiler, StandardJavaFileManager files, String classpath, String source,
                                 String outputDir, long timeoutMs, List<String> triggers, List<String> relevant,
                                 boolean stopEarly, Set<String> excluded) {
        long started = System.nanoTime();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = Arrays.asList("-d", outputDir, "-cp", classpath, "-proc:none", "-nowarn",
                "-encoding", "UTF-8", "--release", "8", "-g");
        boolean compiled = compiler.getTask(null, files, diagnostics, options, null,
                files.getJavaFileObjects(new File(source))).call();
        long compileMs = (System.nanoTime() - started) / 1_000_000;
        if (!compiled) {
            StringBuilder errors = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) errors.append("line ").append(d.getLineNumber()).append(": ")
                        .append(d.getMessage(Locale.ROOT)).append('\n');
            }
            return "{\"compiled\":false,\"diagnostics\":" + quote(errors.toString()) + "}";
        }
        Properties properties = (Properties) System.getProperties().clone();
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        PrintStream stdout = System.out, stderr = System.err;
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        final String[] result = new String[1];
        Thread worker = new Thread(() -> {
            try {
                result[0] = runTests(loader(classpath, outputDir), triggers, relevant, stopEarly, excluded);
            } catch (Throwable t) {
                result[0] = "{\"compiled\":true,\"harness_error\":" + quote(String.valueOf(t)) + "}";
            }
        }, "benchsmith-candidate");
        try (PrintStream log = new PrintStream(new FileOutputStream(new File(outputDir, "test-output.log")), true, "UTF-8")) {
            System.setOut(log);
            System.setErr(log);
            worker.setDaemon(true);
            worker.start();
            worker.join(Math.max(1, timeoutMs - (System.nanoTime() - started) / 1_000_000));
        } catch (Exception e) {
            return "{\"compiled\":true,\"harness_error\":" + quote(String.valueOf(e)) + ",\"tainted\":true}";
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        if (worker.isAlive()) return "{\"compiled\":true,\"timeout\":true,\"tainted\":true}";
        System.setProperties(properties);
        Locale.setDefault(locale);
        TimeZone.setDefault(zone);
        boolean leftovers = false;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t) && t.isAlive() && t != worker) leftovers = true;
        }
        long testMs = (System.nanoTime() - started) / 1_000_000 - compileMs;
        String json = result[0].substring(0, result[0].length() - 1) + ",\"compile_ms\":" + compileMs + ",\"test_ms\":" + testMs + "}";
        return leftovers ? json.substring(0, json.length() - 1) + ",\"tainted\":true}" : json;
    }

    /** Tests run in a fresh class loader, so every class of the project starts with fresh static state. */
    private static ClassLoader loader(String classpath, String firstEntry) throws Exception {
        List<URL> urls = new ArrayList<>();
        if (firstEntry != null) urls.add(new File(firstEntry).toURI().toURL());
        for (String entry : split(classpath.replace(File.pathSeparatorChar, ','))) urls.add(new File(entry).toURI().toURL());
        return new URLClassLoader(urls.toArray(new URL[0]), BenchsmithRunner.class.getClassLoader());
    }

    /** Trigger tests first, stopping at the first failure when asked to; then the relevant test classes. */
    static String runTests(ClassLoader loader, List<String> triggers, List<String> relevant, boolean stopEarly,
                           Set<String> excluded) {
        Thread.currentThread().setContextClassLoader(loader);
        StringBuilder tests = new StringBuilder();
        int[] counts = new int[2];
        boolean triggerFailed = false;
        for (String spec : triggers) {
            if (!runSpec(loader, spec, tests, counts, excluded)) {
                triggerFailed = true;
                if (stopEarly) break;
            }
        }
        boolean relevantFailed = false;
        if (!triggerFailed || !stopEarly) {
            for (String spec : relevant) relevantFailed |= !runSpec(loader, spec, tests, counts, excluded);
        }
        return "{\"compiled\":true,\"trigger_failed\":" + triggerFailed + ",\"relevant_failed\":" + relevantFailed
                + ",\"passed\":" + counts[0] + ",\"failed\":" + counts[1] + ",\"tests\":[" + tests + "]}";
    }

    private static boolean runSpec(ClassLoader loader, String spec, StringBuilder tests, int[] counts, Set<String> excluded) {
        int split = spec.indexOf("::");
        String className = split < 0 ? spec : spec.substring(0, split);
        Request request;
        try {
            Class<?> testClass = Class.forName(className, true, loader);
            request = split < 0 ? Request.aClass(testClass) : Request.method(testClass, spec.substring(split + 2));
            if (split < 0 && !excluded.isEmpty()) request = request.filterWith(new Filter() {
                @Override public boolean shouldRun(Description d) {
                    return d.getMethodName() == null || !excluded.contains(d.getClassName() + "::" + d.getMethodName());
                }
                @Override public String describe() { return "benchsmith exclusions"; }
            });
        } catch (Throwable t) {
            record(tests, counts, spec, false, "cannot load test class: " + t);
            return false;
        }
        final List<String[]> outcomes = new ArrayList<>();
        final Set<Description> failed = new HashSet<>();
        JUnitCore core = new JUnitCore();
        core.addListener(new RunListener() {
            @Override public void testFailure(Failure failure) {
                failed.add(failure.getDescription());
                outcomes.add(new String[] {name(failure.getDescription(), spec), "false", String.valueOf(failure.getException())});
            }
            @Override public void testFinished(Description description) {
                if (!failed.contains(description)) outcomes.add(new String[] {name(description, spec), "true", ""});
            }
        });
        org.junit.runner.Result result = core.run(request);
        if (outcomes.isEmpty() && result.getRunCount() == 0 && !result.getFailures().isEmpty()
                && String.valueOf(result.getFailures().get(0).getException()).contains("No tests found matching benchsmith exclusions")) {
            return true;  // every test of the class is excluded
        }
        if (outcomes.isEmpty()) {
            record(tests, counts, spec, false, "no test ran");
            return false;
        }
        for (String[] outcome : outcomes) record(tests, counts, outcome[0], Boolean.parseBoolean(outcome[1]), outcome[2]);
        return result.wasSuccessful();
    }

    private static String name(Description d, String spec) {
        return d.getMethodName() == null ? spec : d.getClassName() + "::" + d.getMethodName();
    }

    private static void record(StringBuilder tests, int[] counts, String name, boolean passed, String message) {
        counts[passed ? 0 : 1]++;
        if (tests.length() > 0) tests.append(',');
        String shortMessage = message.length() > 500 ? message.substring(0, 500) : message;
        tests.append("{\"name\":").append(quote(name)).append(",\"passed\":").append(passed)
                .append(",\"message\":").append(quote(shortMessage)).append('}');
    }

    static String hmac(byte[] key, String text) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal(text.getBytes(StandardCharsets.UTF_8))) hex.append(String.format("%02x", b));
        return hex.toString();
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        for (String item : list.split(",")) if (!item.trim().isEmpty()) items.add(item.trim());
        return items;
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) if (args[i].equals(name)) return args[i + 1];
        if (fallback == null) throw new IllegalArgumentException("missing " + name);
        return fallback;
    }
}
