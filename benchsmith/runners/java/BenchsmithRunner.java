import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.Assert;
import org.junit.Assume;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * benchsmith's Java side. Two modes, neither holding any secret:
 *
 * <pre>
 * compile  (warm, long-lived; runs no candidate code: -proc:none, no plugins)
 *   request  (stdin line):  id \t sources (separated by \u001f) \t output-dir \t classpath \t platform-dir \t release
 *            (platform-dir: release 8's API as class files, compiled against as -bootclasspath; empty: --release)
 *   response (stdout line): BENCHSMITH id {"compiled":bool,"diagnostics":"...","compile_ms":n}
 * test     (one candidate, then the JVM halts; started ahead of its candidate and warmed up on a test of its own)
 *   arguments: the class path its request will name, its loaders made ahead on it (empty: made at the request);
 *              the project's class folder, mirrored for the candidate's classes to join ("@merged=" entries)
 *   request  (stdin line):  classpath \t stop|all \t excluded \t phase-1 specs \t phase-2 specs
 *                           \t the candidate's top-level types \t the rights they get (see Confinement; "audit": the
 *                           ground truth's run, which may use all and says which it used)
 *   report   (one line on the JVM's stdout, a pipe to the harness; what tests print goes to stderr):
 *            {"phases":n,"test_ms":n,"tests":[{"name":..,"outcome":passed|failed|assumption|ignored,"message":..}],
 *             "confinement":{"candidate":[..],"audit":bool,"rights":[..]}}
 * </pre>
 *
 * Unless "all", phase 1 stops after its first failing spec and phase 2 runs only when every test of phase 1 passed. A spec is
 * Class (every test of it, less the excluded Class::method) or Class::method. Each phase loads the classes afresh.
 * The harness trusts nothing of the report beyond what it can check: every test
 * it asked for reported once, and sentinel tests it planted (which this runner
 * cannot tell from the others) with the outcomes it knows they must have.
 */
public final class BenchsmithRunner {
    private BenchsmithRunner() {}

    /**
     * Blocks what no test of a library should need (exiting the JVM, starting processes, sockets), and holds the code
     * of the project and of the candidate to its Confinement: for a right confined code may lack, every frame on the
     * stack is checked (AccessController); every other permission is granted at once.
     */
    static final class Guard extends SecurityManager {
        volatile boolean exitAllowed;
        final Confinement confinement;

        Guard(Confinement confinement) {
            this.confinement = confinement;
        }

        /** The policy, then the guard: from here on, no code outside the runner's class path holds every right. */
        static Guard install() {
            Confinement confinement = new Confinement();
            java.security.Policy.setPolicy(confinement);
            Guard guard = new Guard(confinement);
            guard.checkPermission(new RuntimePermission("exitVM.0"));  // its own classes loaded before they are needed
            System.setSecurityManager(guard);
            return guard;
        }

        @Override public void checkPermission(Permission perm) {
            if (perm instanceof RuntimePermission && "setSecurityManager".equals(perm.getName())) {
                throw new SecurityException("benchsmith: replacing the security manager is not allowed");
            }
            if (confinement.withheld(perm) != null) java.security.AccessController.checkPermission(perm);
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

    /** Runs in every test JVM before its candidate arrives, so JUnit's own code is loaded and warm. */
    public static final class Warmup {
        @Test public void passes() { Assert.assertEquals("ab", "a" + "b"); }
        @Test public void fails() { Assert.assertEquals(1, 2); }
        @Test public void assumes() { Assume.assumeTrue(false); }
        @Test(expected = IllegalStateException.class) public void throwsExpected() { throw new IllegalStateException(); }
    }

    public static void main(String[] args) throws Exception {
        // The request is read from fd 0 directly, and System.in is left empty: no buffer of its holds the request.
        BufferedReader in = new BufferedReader(new InputStreamReader(new java.io.FileInputStream(java.io.FileDescriptor.in),
                StandardCharsets.UTF_8));
        System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
        // Temporary files go where the harness keeps this JVM's own (TMPDIR: the jail's private /tmp, or where no jail
        // can be built the run's folder, removed with it), never into a /tmp the host keeps.
        String own = System.getenv("TMPDIR");
        if (own != null && !own.isEmpty()) System.setProperty("java.io.tmpdir", own);
        if ("compile".equals(args[0])) {
            compileServer(in, new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8"));
        } else if ("test".equals(args[0])) {
            testOnce(in, new FileOutputStream(java.io.FileDescriptor.out), args.length > 1 ? args[1] : "",
                    args.length > 2 ? args[2] : "");
        } else {
            throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void compileServer(BufferedReader in, PrintStream out) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        out.println("BENCHSMITH ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            long started = System.nanoTime();
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            List<String> options = new ArrayList<>(Arrays.asList("-d", f[2], "-cp", f[3], "-proc:none", "-nowarn",
                    "-encoding", "UTF-8", "-g", "-implicit:none"));
            // javac reopens ct.sym for every --release compile; the same API from a folder costs nothing to open.
            if (f.length > 4 && !f[4].isEmpty()) options.addAll(Arrays.asList("-source", "8", "-target", "8", "-bootclasspath", f[4]));
            else options.addAll(Arrays.asList("--release", f.length > 5 && !f[5].isEmpty() ? f[5] : "8"));
            List<File> sources = new ArrayList<>();
            for (String source : f[1].split("\u001f")) sources.add(new File(source));
            boolean compiled;
            try {
                compiled = compiler.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromFiles(sources)).call();
            } catch (RuntimeException e) {  // javac's own crash on odd input: the candidate does not compile
                compiled = false;
                diagnostics = new DiagnosticCollector<>();
            }
            StringBuilder errors = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) errors.append("line ").append(d.getLineNumber()).append(": ")
                        .append(d.getMessage(Locale.ROOT)).append('\n');
            }
            long ms = (System.nanoTime() - started) / 1_000_000;
            out.println("BENCHSMITH " + f[0] + " {\"compiled\":" + compiled + ",\"diagnostics\":" + quote(errors.toString())
                    + ",\"compile_ms\":" + ms + "}");
        }
    }

    private static void testOnce(BufferedReader in, OutputStream report, String announced, String mergeInto) throws Exception {
        System.setOut(System.err);
        // Before any code but the runner's runs: the merged class folder is this JVM's own, in its private /tmp.
        File merged = mergeInto.isEmpty() ? null : linkedCopy(new File(mergeInto));
        Guard guard = Guard.install();
        new JUnitCore().run(Request.aClass(Warmup.class));
        Prepared prepared = announced.isEmpty() ? null : prepare(announced, merged, in);
        String line = in.readLine();
        if (line == null) {
            guard.exitAllowed = true;
            Runtime.getRuntime().halt(3);
        }
        String[] f = line.split("\t", -1);
        long started = System.nanoTime();
        Set<String> candidateClasses = new HashSet<>();
        String requested = f[0];
        f[0] = merge(f[0], merged, candidateClasses);
        Set<String> candidateTypes = new HashSet<>(split(f.length > 5 ? f[5] : ""));
        guard.confinement.grant(f.length > 6 ? f[6] : "");
        boolean usePrepared = prepared != null && prepared.serves(requested, candidateClasses, candidateTypes);
        if (prepared != null) System.err.println("benchsmith: " + prepared.describe(usePrepared));
        if (usePrepared) for (Confinement.Loader prepare : prepared.loaders) if (prepare != null) prepare.candidate(candidateTypes);
        ClassLoader loader = usePrepared ? prepared.loaders[0] : loader(f[0], candidateTypes);
        Thread.currentThread().setContextClassLoader(loader);
        Set<String> excluded = new HashSet<>(split(f[2]));
        List<Map<String, String[]>> phases = new ArrayList<>();
        phases.add(new LinkedHashMap<>());
        boolean passed = true;
        for (String spec : split(f[3])) {  // unless "all", phase 1 stops at its first failing spec
            passed &= runSpec(loader, spec, excluded, phases.get(0));
            if (!passed && !"all".equals(f[1])) break;
        }
        if (passed || "all".equals(f[1])) {
            phases.add(new LinkedHashMap<>());
            // Phase 2's classes hold phase 1's tests again: in a class loader of their own, so that a test that
            // keeps state in a static field (Math-44's EventStateTest) runs on fresh classes, as under Defects4J.
            ClassLoader fresh = usePrepared && prepared.loaders[1] != null ? prepared.loaders[1] : loader(f[0], candidateTypes);
            Thread.currentThread().setContextClassLoader(fresh);
            runAll(fresh, split(f[4]), excluded, phases.get(1));
        }
        StringBuilder tests = new StringBuilder();
        for (int phase = 0; phase < phases.size(); phase++) {
            for (Map.Entry<String, String[]> e : phases.get(phase).entrySet()) {
                if (tests.length() > 0) tests.append(',');
                String message = e.getValue()[1].length() > 500 ? e.getValue()[1].substring(0, 500) : e.getValue()[1];
                tests.append("{\"phase\":").append(phase + 1).append(",\"name\":").append(quote(e.getKey()))
                        .append(",\"spec\":").append(quote(e.getValue()[2])).append(",\"outcome\":").append(quote(e.getValue()[0]))
                        .append(",\"message\":").append(quote(message)).append('}');
            }
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        String json = "{\"phases\":" + phases.size() + ",\"test_ms\":" + ms + ",\"tests\":[" + tests + "],"
                + confinement(guard.confinement, candidateTypes) + "}\n";
        report.write(json.getBytes(StandardCharsets.UTF_8));
        report.flush();
        guard.exitAllowed = true;
        Runtime.getRuntime().halt(0);  // no finalizer, hook or thread of the candidate's runs after its report
    }

    /** The report's account of the confinement: the candidate's types, and the rights they held (or, in the ground
     * truth's run, used). */
    static String confinement(Confinement confinement, Set<String> candidateTypes) {
        StringBuilder text = new StringBuilder("\"confinement\":{\"candidate\":[");
        int n = 0;
        for (String type : new java.util.TreeSet<>(candidateTypes)) text.append(n++ > 0 ? "," : "").append(quote(type));
        text.append("],\"audit\":").append(confinement.auditing()).append(",\"rights\":[");
        n = 0;
        for (String right : confinement.used()) text.append(n++ > 0 ? "," : "").append(quote(right));
        return text.append("]}").toString();
    }

    /**
     * The two class loaders its request will use (phase 1's and phase 2's), made before the candidate arrives on the
     * class path the harness announced, every class of its folders defined in them (never initialized, so none of
     * their code runs). Only the public folders are there yet: a class that needs the candidate's (a subclass of the
     * class under repair) is not defined and loads when its test needs it, as does everything in a loader whose
     * preparation the request interrupted. JUnit runs a few more times first, for its code to be compiled.
     */
    private static Prepared prepare(String announced, File merged, BufferedReader request) throws Exception {
        for (int i = 0; i < WARM_UP_RUNS && !request.ready(); i++) new JUnitCore().run(Request.aClass(Warmup.class));
        String classpath = resolve(announced, merged);
        List<String> names = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty() && new File(entry).isDirectory()) classNames(new File(entry), "", names);
        }
        Prepared prepared = new Prepared(announced, names.size() * 2);
        for (int phase = 0; phase < prepared.loaders.length && !request.ready(); phase++) {
            prepared.loaders[phase] = loader(classpath, java.util.Collections.<String>emptySet());
            for (String name : names) {
                if (request.ready()) break;
                prepared.attempts++;
                try {
                    Class.forName(name, false, prepared.loaders[phase]);
                    prepared.defined.add(name);
                } catch (Throwable t) {  // e.g. its superclass is the class under repair, which no public folder has
                    if (phase == 0) prepared.undefined.add(name);
                }
            }
        }
        return prepared;
    }

    /** Loaders made for a class path, and the names of the classes defined in them before the candidate's arrived. */
    private static final class Prepared {
        final String classpath;  // as the harness announced it, "@merged=" entry and all
        final Confinement.Loader[] loaders = new Confinement.Loader[2];
        final Set<String> defined = new HashSet<>();
        final List<String> undefined = new ArrayList<>();  // classes that could not be defined (yet)
        final int due;  // attempts to define a class, over both loaders
        int attempts;  // made before the request came

        Prepared(String classpath, int due) {
            this.classpath = classpath;
            this.due = due;
        }

        String describe(boolean used) {
            return "class loaders made ahead " + (used ? "serve" : "do not serve") + " the request (" + defined.size()
                    + " classes defined in them; not yet: " + undefined.size()
                    + (undefined.isEmpty() ? "" : ", e.g. " + String.join(" ", undefined.subList(0, Math.min(3, undefined.size()))))
                    + "; " + (attempts == due ? "prepared in full" : "the request came after " + attempts + " of " + due + " attempts") + ")";
        }

        /** Whether these loaders serve a request for *requested*: none of them may hold a class the candidate brought,
         * or one of its types (which must be defined in the candidate's protection domain). */
        boolean serves(String requested, Set<String> candidateClasses, Set<String> candidateTypes) {
            if (!classpath.equals(requested) || loaders[0] == null) return false;
            for (String name : candidateClasses) if (defined.contains(name)) return false;
            for (String name : defined) {
                int nested = name.indexOf('$');
                if (candidateTypes.contains(nested < 0 ? name : name.substring(0, nested))) return false;
            }
            return true;
        }
    }

    private static final int WARM_UP_RUNS = 20;
    private static final String MERGED = "@merged=";

    /**
     * A folder of this JVM's own that mirrors *folder* with a link per file: the candidate's classes are copied in
     * beside the project's (see merge), as one folder, as under Defects4J's build. Tests that build class loaders
     * from the code source of a project class (Mockito's ClassLoaders.withCodeSourceUrlOf) or list its classes
     * (NoJUnitDependenciesTest) then see the class under repair too.
     */
    private static File linkedCopy(File folder) throws java.io.IOException {
        Path copy = Files.createTempDirectory(new File(System.getProperty("java.io.tmpdir")).toPath(), "benchsmith-classes-");
        mirror(folder.toPath(), copy, true);
        return copy.toFile();
    }

    /**
     * The class path with its "@merged=<folder>" entry replaced by the merged folder, <folder>'s classes copied in
     * (their names added to *copied*).
     */
    private static String merge(String classpath, File merged, Set<String> copied) throws java.io.IOException {
        for (String entry : classpath.split(File.pathSeparator, -1)) {
            if (!entry.startsWith(MERGED)) continue;
            if (merged == null) throw new IllegalStateException("benchsmith: no merged class folder was prepared");
            File from = new File(entry.substring(MERGED.length()));
            mirror(from.toPath(), merged.toPath(), false);
            List<String> names = new ArrayList<>();
            classNames(from, "", names);
            copied.addAll(names);
        }
        return resolve(classpath, merged);
    }

    /** The class path with its "@merged=<folder>" entry replaced by the merged folder. */
    private static String resolve(String classpath, File merged) {
        List<String> entries = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator, -1)) {
            if (!entry.startsWith(MERGED)) entries.add(entry);
            else if (merged == null) throw new IllegalStateException("benchsmith: no merged class folder was prepared");
            else entries.add(merged.getPath());
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Every folder of *from* made under *to*, and every file linked there (*link*) or copied over what is there. */
    private static void mirror(final Path from, final Path to, final boolean link)
            throws java.io.IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<Path>() {
            @Override public FileVisitResult preVisitDirectory(Path dir,
                    BasicFileAttributes attributes) throws java.io.IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }
            @Override public FileVisitResult visitFile(Path file,
                    BasicFileAttributes attributes) throws java.io.IOException {
                Path target = to.resolve(from.relativize(file).toString());
                if (link) Files.createSymbolicLink(target, file);
                else Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void classNames(File folder, String prefix, List<String> names) {
        File[] entries = folder.listFiles();
        if (entries == null) return;
        for (File entry : entries) {
            String name = entry.getName();
            if (entry.isDirectory()) classNames(entry, prefix + name + ".", names);
            else if (name.endsWith(".class") && !name.equals("module-info.class")) names.add(prefix + name.substring(0, name.length() - 6));
        }
    }

    /** The project's and the candidate's classes in a loader of their own, over the runner's (JUnit only); the types
     * *candidateTypes* (top-level binary names) and their nested classes in the candidate's protection domain. */
    static Confinement.Loader loader(String classpath, Set<String> candidateTypes) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) if (!entry.isEmpty()) urls.add(new File(entry).toURI().toURL());
        Confinement.Loader loader = new Confinement.Loader(urls.toArray(new URL[0]), BenchsmithRunner.class.getClassLoader());
        loader.candidate(candidateTypes);
        return loader;
    }

    private static boolean runAll(ClassLoader loader, List<String> specs, Set<String> excluded, Map<String, String[]> outcomes) {
        boolean passed = true;
        for (String spec : specs) passed &= runSpec(loader, spec, excluded, outcomes);
        return passed;
    }

    private static boolean runSpec(ClassLoader loader, String spec, Set<String> excluded, Map<String, String[]> outcomes) {
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
            put(outcomes, spec, spec, "failed", "cannot load test class: " + t);
            return false;
        }
        final Map<String, String[]> mine = new LinkedHashMap<>();
        // JUnit's report that the exclusions left nothing of the class (a description of its Filter's, not a test)
        final Set<Description> filteredEmpty = new HashSet<>();
        JUnitCore core = new JUnitCore();
        // A test that signalled a failure is never recorded as passed, whatever describing it did.
        final Set<Description> failed = new HashSet<>();
        core.addListener(new RunListener() {
            @Override public void testFailure(Failure failure) {
                if ("org.junit.runner.manipulation.Filter".equals(failure.getDescription().getClassName())
                        && String.valueOf(failure.getException()).contains("No tests found matching benchsmith exclusions")) {
                    filteredEmpty.add(failure.getDescription());
                    return;
                }
                failed.add(failure.getDescription());
                put(mine, name(failure.getDescription(), spec), spec, "failed", describe(failure.getException()));
            }
            @Override public void testAssumptionFailure(Failure failure) {
                failed.add(failure.getDescription());
                put(mine, name(failure.getDescription(), spec), spec, "assumption", describe(failure.getException()));
            }
            @Override public void testIgnored(Description description) {
                put(mine, name(description, spec), spec, "ignored", "");
            }
            @Override public void testFinished(Description description) {
                if (failed.contains(description)) put(mine, name(description, spec), spec, "failed", "its failure could not be recorded");
                else if (!filteredEmpty.contains(description)) put(mine, name(description, spec), spec, "passed", "");
            }
        });
        core.run(request);
        if (mine.isEmpty() && !filteredEmpty.isEmpty()) return true;  // every test of the class is excluded
        if (mine.isEmpty()) put(mine, spec, spec, "failed", "no test ran");
        boolean passed = true;
        for (Map.Entry<String, String[]> e : mine.entrySet()) {
            outcomes.putIfAbsent(e.getKey(), e.getValue());
            passed &= "passed".equals(e.getValue()[0]);
        }
        return passed;
    }

    /** The failure and what caused it: an ExceptionInInitializerError says nothing of its own. Never throws: the
     * exception may be the candidate's, whose toString, getMessage, getCause or getStackTrace can throw or recurse
     * (red team round 6: thrown in a listener, JUnit swallowed it and the failed test was recorded as passed). */
    static String describe(Throwable failure) {
        try {
            return described(failure);
        } catch (Throwable t) {  // getClass() and Class.getName() are final: no code of the candidate's runs here
            String what = failure == null ? "failure" : failure.getClass().getName();
            return "a " + what + " that could not be described (" + t.getClass().getName() + ")";
        }
    }

    private static String described(Throwable failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure));
        Throwable cause = failure == null ? null : failure.getCause();
        Throwable innermost = null;
        for (int depth = 0; cause != null && cause != failure && depth < 4; depth++, cause = cause.getCause()) {
            text.append(" (caused by ").append(cause).append(')');
            innermost = cause;
        }
        StackTraceElement[] frames = innermost == null ? new StackTraceElement[0] : innermost.getStackTrace();
        if (frames.length > 0) text.append(" at ").append(frames[0]);
        return text.toString();
    }

    /** The first outcome a test gets stands: testFinished follows testFailure for the same test. */
    private static void put(Map<String, String[]> outcomes, String name, String spec, String outcome, String message) {
        if (!outcomes.containsKey(name)) outcomes.put(name, new String[] {outcome, message, spec});
    }

    private static String name(Description d, String spec) {
        return d.getMethodName() == null ? spec : d.getClassName() + "::" + d.getMethodName();
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || Character.isSurrogate(c)) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static List<String> split(String list) {
        List<String> items = new ArrayList<>();
        for (String item : list.split(",")) if (!item.trim().isEmpty()) items.add(item.trim());
        return items;
    }

}
