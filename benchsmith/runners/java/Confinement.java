import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FilePermission;
import java.io.InputStream;
import java.lang.reflect.ReflectPermission;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.LinkPermission;
import java.security.AccessController;
import java.security.AllPermission;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.Permission;
import java.security.Permissions;
import java.security.Policy;
import java.security.PrivilegedExceptionAction;
import java.security.ProtectionDomain;
import java.security.SecurityPermission;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the code a test JVM loads for its request may do: the security policy of BenchsmithRunner and PlatformRunner.
 *
 * <p>Three kinds of code. The JDK, the runner and JUnit (the JVM's own class path) hold every right. The project's
 * classes, its tests and its libraries (loaded by a {@link Loader}) hold every right but those that reach the report or
 * the JVM itself: file descriptors, {@code /proc} and {@code /dev}, heap dumps and VM options, the security policy,
 * native code (process control is the Guard's, for everyone). The candidate's classes (the top-level types of the
 * file under repair, their nested classes and lambdas, in a protection domain of their own) hold none of those, nor
 * reflection past access checks, the JDK's internal packages ({@code sun.misc.Unsafe}), class loaders of their own,
 * stack walkers with class references or live stack frames, management beans, symbolic links, or the standard
 * streams, unless the ground truth's own run needed one of these (then the harness grants it, by name, for that
 * instance). Java checks every frame on the stack: code of the candidate's on it, directly, in a lambda, a thread it
 * started or a method it overrides, means the right is withheld, whatever library it went through.
 *
 * <p>The report goes out through a stream the runner opened before any of that code ran, held only in its own
 * frames; without those rights nothing else reaches fd 1.
 */
final class Confinement extends Policy {
    /** Rights no confined code gets. */
    static final String DESCRIPTORS = "file descriptors", PROC_DEV = "/proc and /dev", MANAGEMENT_CONTROL = "heap dumps and VM options",
            SECURITY = "the security policy", NATIVE = "native code";
    /** Rights the candidate's classes do not get, unless granted. */
    static final String REFLECTION = "reflection past access checks", INTERNALS = "internal JDK packages",
            LOADERS = "class loaders", STACK = "stack walking with classes or live frames", MANAGEMENT = "management beans",
            LINKS = "symbolic links", STREAMS = "replacing the standard streams";
    static final Set<String> NEVER = new HashSet<>(Arrays.asList(DESCRIPTORS, PROC_DEV, MANAGEMENT_CONTROL, SECURITY, NATIVE));
    static final Set<String> GRANTABLE = new HashSet<>(Arrays.asList(REFLECTION, INTERNALS, LOADERS, STACK, MANAGEMENT, LINKS, STREAMS));
    private static final Set<String> HARMLESS_DEVICES = new HashSet<>(Arrays.asList("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"));

    private volatile Set<String> granted = Collections.emptySet();
    private volatile boolean auditing;  // the ground truth's run: every grantable right allowed, and its use noted
    private volatile boolean off;  // "off": no right withheld (the layer a JVM without a security manager lacks)
    private final Set<String> used = Collections.synchronizedSet(new TreeSet<String>());
    private final String workingDirectory = new File("").getAbsolutePath();

    /** The rights the candidate's classes get, "audit" for the ground truth's run, "off" for none withheld. */
    void grant(String rights) {
        auditing = "audit".equals(rights);
        off = "off".equals(rights);
        Set<String> chosen = new HashSet<>();
        for (String right : rights.split(",")) if (GRANTABLE.contains(right.trim())) chosen.add(right.trim());
        granted = chosen;
    }

    /** The grantable rights the candidate's classes used (audit), or were granted. */
    Set<String> used() {
        synchronized (used) {
            return auditing ? new TreeSet<>(used) : new TreeSet<>(granted);
        }
    }

    boolean auditing() { return auditing; }

    /** Where the candidate's classes lie (code source locations): a loader a test makes there (Mockito's
     * ClassLoaders.withCodeSourceUrlOf) defines them with the candidate's rights too. */
    private static final Set<String> CANDIDATE_LOCATIONS = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The loaders of the JDK, the runner and JUnit. */
    private static final Set<ClassLoader> TRUSTED = trustedLoaders();

    private static Set<ClassLoader> trustedLoaders() {
        Set<ClassLoader> loaders = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<ClassLoader, Boolean>());
        for (ClassLoader l = Confinement.class.getClassLoader(); l != null; l = l.getParent()) loaders.add(l);
        return loaders;
    }

    @Override public boolean implies(ProtectionDomain domain, Permission permission) {
        if (off || domain == null) return true;
        ClassLoader loader = domain.getClassLoader();
        boolean candidate;
        if (loader instanceof Loader) {
            candidate = domain instanceof CandidateDomain;
        } else {
            CodeSource source = domain.getCodeSource();
            URL location = source == null ? null : source.getLocation();
            candidate = location != null && CANDIDATE_LOCATIONS.contains(location.toString());
            // the JDK, the runner, JUnit, and classes the JDK generates (reflection's accessors: no location)
            if (!candidate && (loader == null || location == null || TRUSTED.contains(loader))) return true;
        }
        String right = withheld(permission);
        if (right == null || (!NEVER.contains(right) && !candidate)) return true;
        if (NEVER.contains(right)) return false;
        if (granted.contains(right)) return true;
        if (auditing) {
            used.add(right);
            return true;
        }
        return false;
    }

    @Override public java.security.PermissionCollection getPermissions(ProtectionDomain domain) { return new Permissions(); }

    @Override public java.security.PermissionCollection getPermissions(CodeSource source) { return new Permissions(); }

    /** The right *permission* falls under, when confined code may lack it; null when any code has it. Fast: every
     * permission check of the JVM comes here. */
    String withheld(Permission permission) {
        String name = permission.getName();
        if (permission instanceof FilePermission) return file(name);
        if (permission instanceof RuntimePermission) {
            if (name.startsWith("accessClassInPackage.")) return INTERNALS;
            switch (name) {
                case "writeFileDescriptor": case "readFileDescriptor": return DESCRIPTORS;
                case "createClassLoader": return LOADERS;
                case "getStackWalkerWithClassReference": case "liveStackFrames": return STACK;
                case "setIO": return STREAMS;
                case "setSecurityManager": return SECURITY;
                case "inheritedChannel": return DESCRIPTORS;
                default: return name.startsWith("loadLibrary.") ? NATIVE : null;
            }
        }
        if (permission instanceof ReflectPermission) return "suppressAccessChecks".equals(name) ? REFLECTION : null;
        if (permission instanceof AllPermission) return SECURITY;
        if (permission instanceof SecurityPermission) {
            return name.equals("setPolicy") || name.equals("getPolicy") || name.startsWith("createPolicy.")
                    || name.startsWith("setProperty.") ? SECURITY : null;
        }
        if (permission instanceof LinkPermission) return "symbolic".equals(name) ? LINKS : null;
        String kind = permission.getClass().getName();
        if (kind.equals("java.lang.management.ManagementPermission")) return "control".equals(name) ? MANAGEMENT_CONTROL : MANAGEMENT;
        if (kind.startsWith("javax.management.")) return MANAGEMENT;  // MBeanPermission, MBeanServerPermission, ...
        return null;
    }

    private String file(String path) {
        if (path.equals("<<ALL FILES>>")) return PROC_DEV;
        if (!path.contains("proc") && !path.contains("dev") && !path.contains("..") && !path.contains("//")) return null;
        String absolute = path.startsWith("/") ? path : workingDirectory + "/" + path;
        String normal = java.nio.file.Paths.get(absolute).normalize().toString();
        if (normal.equals("/proc") || normal.startsWith("/proc/")) return PROC_DEV;
        if ((normal.equals("/dev") || normal.startsWith("/dev/")) && !HARMLESS_DEVICES.contains(normal)) return PROC_DEV;
        return null;
    }

    /** The project's and the candidate's classes, over the runner's class path. The candidate's (named at the
     * request) are defined in a protection domain of their own, with the same code source as the folder they are in. */
    static final class Loader extends URLClassLoader {
        private volatile Set<String> candidate = Collections.emptySet();

        Loader(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        /** The top-level binary names of the candidate's types: they and every class nested in them. */
        void candidate(Set<String> names) {
            candidate = new HashSet<>(names);
            for (String name : names) {
                String path = name.replace('.', '/') + ".class";
                URL url = findResource(path);
                if (url != null) CANDIDATE_LOCATIONS.add(base(url, path).toString());
            }
        }

        private static URL base(URL url, String path) {
            String text = url.toString();
            try {
                return new URL(text.substring(0, text.length() - path.length()));
            } catch (java.net.MalformedURLException e) {
                return url;
            }
        }

        boolean isCandidate(String name) {
            int nested = name.indexOf('$');
            return candidate.contains(nested < 0 ? name : name.substring(0, nested));
        }

        @Override protected Class<?> findClass(final String name) throws ClassNotFoundException {
            if (!isCandidate(name)) return super.findClass(name);
            final String path = name.replace('.', '/') + ".class";
            final URL url = findResource(path);
            if (url == null) throw new ClassNotFoundException(name);
            byte[] bytes;
            URL base;
            try {
                bytes = AccessController.doPrivileged((PrivilegedExceptionAction<byte[]>) () -> read(url));
                base = base(url, path);
            } catch (Exception e) {
                throw new ClassNotFoundException(name, e);
            }
            int dot = name.lastIndexOf('.');
            if (dot > 0) {
                String pkg = name.substring(0, dot);
                if (getPackage(pkg) == null) {
                    try {
                        definePackage(pkg, null, null, null, null, null, null, null);
                    } catch (IllegalArgumentException defined) {  // by another thread meanwhile
                    }
                }
            }
            ProtectionDomain domain = new CandidateDomain(new CodeSource(base, (CodeSigner[]) null), this);
            return defineClass(name, bytes, 0, bytes.length, domain);
        }

        private static byte[] read(URL url) throws java.io.IOException {
            try (InputStream in = url.openStream()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buffer = new byte[1 << 14];
                for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
                return out.toByteArray();
            }
        }
    }

    /** The candidate's classes' protection domain: no rights of its own, the policy's only. */
    static final class CandidateDomain extends ProtectionDomain {
        CandidateDomain(CodeSource source, ClassLoader loader) {
            super(source, new Permissions(), loader, null);
        }
    }
}
