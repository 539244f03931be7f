import java.io.File;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;

/**
 * Which test classes load given classes when they run: Defects4J's relevant tests (benchsmith/runners/java/class_loading.py).
 * Each test class runs on JUnit 4 in a class loader of its own over the project's class folders (the libraries and
 * JUnit are on the system class path, shared), and after its run that loader is asked which of the wanted classes it
 * loaded: a fresh loader per test class, so a class one test class loaded does not hide that the next loads it too.
 *
 * <p>Arguments: the project's class path (entries separated by the path separator), the wanted classes (binary names,
 * comma-separated), then the test classes. For each test class, once it has run, one line on standard output:
 * {@code BENCHSMITH-LOADS <test class>\t<the wanted classes it loaded, comma-separated>}; the tests' own output goes to
 * standard error.
 */
public final class LoadingProbe {
    private LoadingProbe() {}

    static final class Loader extends URLClassLoader {
        Loader(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        boolean loaded(String name) {
            return findLoadedClass(name) != null;
        }
    }

    public static void main(String[] args) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : args[0].split(File.pathSeparator)) if (!entry.isEmpty()) urls.add(new File(entry).toURI().toURL());
        String[] wanted = args[1].split(",");
        PrintStream out = System.out;
        System.setOut(System.err);
        for (int i = 2; i < args.length; i++) {
            Loader loader = new Loader(urls.toArray(new URL[0]), LoadingProbe.class.getClassLoader());
            Thread.currentThread().setContextClassLoader(loader);
            try {
                new JUnitCore().run(Request.aClass(Class.forName(args[i], false, loader)));
            } catch (Throwable t) {  // a class that does not load or start: what it loaded until then still counts
                System.err.println("benchsmith: " + args[i] + ": " + t);
            }
            StringBuilder hits = new StringBuilder();
            for (String name : wanted) if (!name.isEmpty() && loader.loaded(name)) hits.append(hits.length() > 0 ? "," : "").append(name);
            out.println("BENCHSMITH-LOADS " + args[i] + "\t" + hits);
            out.flush();
        }
        Runtime.getRuntime().halt(0);  // no thread a test left behind keeps the JVM alive
    }
}
