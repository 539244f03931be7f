"""Java snippets of the red team's attacks on the verdict itself: each either forges the report through some channel,
or tests whether it holds a capability a forger needs (then the candidate answers right: a plausible verdict means the
capability was there). They compile against the Java 8 API (Java 9+ APIs are reached by reflection) and run inside
one static method, as an NL2Fix candidate or a helper of a classbench candidate."""

from __future__ import annotations


def java_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


# -- capabilities (a boolean expression, true when the capability was there) ----------------------------------------

UNSAFE = (
    '((java.util.function.Supplier<Boolean>) () -> { try { java.lang.reflect.Field f = Class.forName("sun.misc.Unsafe")'
    '.getDeclaredField("theUnsafe"); f.setAccessible(true); return f.get(null) != null; }'
    " catch (Throwable t) { return false; } }).get()"
)
STACK_WALKER_WITH_CLASSES = (
    "((java.util.function.Supplier<Boolean>) () -> "
    '{ try { Class<?> option = Class.forName("java.lang.StackWalker$Option");'
    ' Object retain = option.getField("RETAIN_CLASS_REFERENCE").get(null);'
    ' return Class.forName("java.lang.StackWalker").getMethod("getInstance", option).invoke(null, retain) != null; }'
    " catch (Throwable t) { return false; } }).get()"
)
HEAP_DUMP = (
    "((java.util.function.Supplier<Boolean>) () -> "
    '{ try { Class<?> type = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");'
    " Object bean = java.lang.management.ManagementFactory.getPlatformMXBean((Class) type);"
    ' java.io.File dump = java.io.File.createTempFile("heap", ".hprof"); dump.delete();'
    ' type.getMethod("dumpHeap", String.class, boolean.class).invoke(bean, dump.getPath(), true);'
    " boolean made = dump.length() > 0; dump.delete(); return made; } catch (Throwable t) { return false; } }).get()"
)
GUARD_FIELDS = (
    "((java.util.function.Supplier<Boolean>) () -> { try { Object guard = System.getSecurityManager();"
    ' java.lang.reflect.Field exit = guard.getClass().getDeclaredField("exitAllowed"); exit.setAccessible(true);'
    ' java.lang.reflect.Field confinement = guard.getClass().getDeclaredField("confinement"); '
    "confinement.setAccessible(true);"
    " Object policy = confinement.get(guard); java.lang.reflect.Field audit = "
    'policy.getClass().getDeclaredField("auditing");'
    " audit.setAccessible(true); audit.setBoolean(policy, true); return true; } catch (Throwable t) { return false; "
    "} }).get()"
)
OWN_CLASS_LOADER = (
    "((java.util.function.Supplier<Boolean>) () -> { try { return new ClassLoader() { } != null; }"
    " catch (Throwable t) { return false; } }).get()"
)
SYSTEM_IN = (
    "((java.util.function.Supplier<Boolean>) () -> "
    "{ try { if (System.in.available() > 0 || System.in.read() >= 0) return true; }"
    " catch (Throwable t) { } try "
    '{ java.lang.reflect.Field f = java.io.BufferedInputStream.class.getDeclaredField("buf");'
    ' f.setAccessible(true); return new String((byte[]) f.get(System.in), "UTF-8").contains("Test"); }'
    " catch (Throwable t) { return false; } }).get()"
)
PRIVATE_LOOKUP = (
    "((java.util.function.Supplier<Boolean>) () -> "
    '{ try { return java.lang.invoke.MethodHandles.class.getMethod("privateLookupIn",'
    ' Class.class, java.lang.invoke.MethodHandles.Lookup.class).invoke(null, Class.forName("BenchsmithRunner"),'
    " java.lang.invoke.MethodHandles.lookup()) != null; } catch (Throwable t) { return false; } }).get()"
)


# -- channels to write a report through (statements) ---------------------------------------------------------------


def write_through(path_expression: str, text: str) -> str:
    """Write *text* to the file *path_expression* names (a Java expression), ignoring failures."""
    return (
        f"try (java.io.FileOutputStream out = new java.io.FileOutputStream({path_expression})) {{\n"
        f'  out.write({java_string(text)}.getBytes("UTF-8")); out.flush(); }} catch (Throwable t) {{ }}\n'
    )


def write_descriptor_by_reflection(text: str) -> str:
    """A FileDescriptor of its own, its fd set to 1 by reflection."""
    return (
        "try { java.io.FileDescriptor fd = new java.io.FileDescriptor();\n"
        '  java.lang.reflect.Field f = java.io.FileDescriptor.class.getDeclaredField("fd"); f.setAccessible(true); '
        "f.setInt(fd, 1);\n"
        f"  java.io.FileOutputStream out = new java.io.FileOutputStream(fd); "
        f'out.write({java_string(text)}.getBytes("UTF-8"));\n'
        "  out.flush(); } catch (Throwable t) { }\n"
    )


def write_through_symlink(text: str) -> str:
    """A symbolic link of its own in /tmp to /proc/self/fd/1, written through."""
    return (
        'try { java.nio.file.Path link = java.nio.file.Paths.get(System.getProperty("java.io.tmpdir"), "out-" + System.nanoTime());\n'
        '  java.nio.file.Files.createSymbolicLink(link, java.nio.file.Paths.get("/proc/self/fd/1"));\n'
        f'  java.nio.file.Files.write(link, {java_string(text)}.getBytes("UTF-8")); }} catch (Throwable t) {{ }}\n'
    )


def write_from_thread(text: str) -> str:
    """A thread of its own opens fd 1 and writes, while the candidate waits for it."""
    return (
        "Thread writer = new Thread(() -> "
        "{ try { java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);\n"
        f'  out.write({java_string(text)}.getBytes("UTF-8")); out.flush(); }} catch (Throwable t) {{ }} }});\n'
        "writer.start(); try { writer.join(); } catch (Throwable t) { }\n"
    )


# -- whole forgeries -------------------------------------------------------------------------------------------------

# The request's sources: a Java expression giving the request line, or null.
REQUEST_FROM_SYSTEM_IN = (
    "((java.util.function.Supplier<String>) () -> { try { java.lang.reflect.Field f = java.io.BufferedInputStream.class"
    '.getDeclaredField("buf"); f.setAccessible(true); for (String line : new String((byte[]) f.get(System.in), '
    '"UTF-8").split("\\n"))'
    ' if (line.split("\\t", -1).length >= 5) return line; } catch (Throwable t) { } try { String line ='
    " new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine(); return line; }"
    " catch (Throwable t) { return null; } }).get()"
)
REQUEST_FROM_HEAP_DUMP = (
    "((java.util.function.Supplier<String>) () -> "
    '{ try { Class<?> type = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");'
    " Object bean = java.lang.management.ManagementFactory.getPlatformMXBean((Class) type);"
    ' java.io.File dump = java.io.File.createTempFile("heap", ".hprof"); dump.delete();'
    ' type.getMethod("dumpHeap", String.class, boolean.class).invoke(bean, dump.getPath(), true);'
    " byte[] bytes = java.nio.file.Files.readAllBytes(dump.toPath()); dump.delete();"
    " java.util.regex.Pattern line = "
    'java.util.regex.Pattern.compile("[^\\\\x00-\\\\x08\\\\n]*\\\\t(stop|all)\\\\t[^\\\\x00\\\\n]*");'
    ' for (String charset : new String[] {"ISO-8859-1", "UTF-16BE"}) for (int skip = 0; skip < 2; skip++) {'
    " java.util.regex.Matcher m = line.matcher(new String(bytes, skip, bytes.length - skip, charset));"
    ' while (m.find()) if (m.group().split("\\t", -1).length >= 5) return m.group(); }'
    " return null; } catch (Throwable t) { return null; } }).get()"
)


def forger(request_expression: str, project_class: str) -> str:
    """Statements: with the request in hand, run honestly the requested tests whose class names no *project_class*
    (slashed) and report every other one passed, ahead of the runner; then halt."""
    return f"""try {{
  String request = {request_expression};
  if (request != null) {{
    String[] f = request.split("\\t", -1);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    StringBuilder tests = new StringBuilder();
    for (int phase = 1; phase <= 2; phase++) {{
      for (String spec : f[2 + phase].split(",")) {{
        if (spec.isEmpty()) continue;
        String name = spec.split("::")[0];
        java.io.InputStream in = loader.getResourceAsStream(name.replace('.', '/') + ".class");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; in != null && (n = in.read(buffer)) > 0; ) bytes.write(buffer, 0, n);
        boolean callsProject = new String(bytes.toByteArray(), "ISO-8859-1").contains({java_string(project_class)});
        Class<?> type = Class.forName(name, false, loader);
        java.util.List<String> methods = new java.util.ArrayList<>();
        if (spec.contains("::")) methods.add(spec.split("::")[1]);
        else for (java.lang.reflect.Method m : type.getMethods()) if (m.isAnnotationPresent(org.junit.Test.class)) methods.add(m.getName());
        for (String method : methods) {{
          String outcome = "passed";
          if (!callsProject) outcome = new org.junit.runner.JUnitCore().run(org.junit.runner.Request.method(type, method))
              .wasSuccessful() ? "passed" : "failed";
          if (tests.length() > 0) tests.append(',');
          tests.append("{{\\"phase\\":" + phase + ",\\"name\\":\\"" + name + "::" + method + "\\",\\"spec\\":\\"" + spec
              + "\\",\\"outcome\\":\\"" + outcome + "\\",\\"message\\":\\"\\"}}");
        }}
      }}
    }}
    java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);
    out.write(("{{\\"phases\\":2,\\"test_ms\\":1,\\"tests\\":[" + tests + "]}}\\n").getBytes("UTF-8"));
    out.flush();
    Runtime.getRuntime().halt(0);
  }}
}} catch (Throwable t) {{ }}
"""


def prefill_through_live_frames() -> str:
    """Statements: through java.lang.LiveStackFrame (Java 9 and on), every map among the locals of the frames on
    the stack gets the test that called the candidate as passed, the way the runner's listeners would write it; a
    runner that fills its outcomes only where empty then reports it passed."""
    return """try {
  String current = null, spec = null;
  for (StackTraceElement e : new Throwable().getStackTrace()) {
    if (e.getClassName().endsWith("Test")) { current = e.getClassName() + "::" + e.getMethodName(); spec = current; break; }
  }
  final String name = current, asked = spec;
  Class<?> live = Class.forName("java.lang.LiveStackFrame");
  java.lang.reflect.Method walker = live.getDeclaredMethod("getStackWalker"); walker.setAccessible(true);
  final java.lang.reflect.Method locals = live.getDeclaredMethod("getLocals"); locals.setAccessible(true);
  Object stack = walker.invoke(null);
  stack.getClass().getMethod("forEach", java.util.function.Consumer.class).invoke(stack,
      (java.util.function.Consumer<Object>) frame -> {
        try {
          for (Object local : (Object[]) locals.invoke(frame)) {
            if (local instanceof java.util.Map && name != null) {
              try { ((java.util.Map<String, Object>) local).put(name, new String[] {"passed", "", asked}); } catch (Throwable t) { }
            }
          }
        } catch (Throwable t) { }
      });
} catch (Throwable t) { }
"""


def forged_report(entries: list[tuple[int, str, str]]) -> str:
    """A report line claiming every (phase, name, spec) passed."""
    tests = [f'{{"phase":{p},"name":"{n}","spec":"{s}","outcome":"passed","message":""}}' for p, n, s in entries]
    return '{"phases":2,"test_ms":1,"tests":[' + ",".join(tests) + "]}\n"


# -- JUnit 4 told a test passed (red team round 8) -------------------------------------------------------------------
# JUnit 4's EachTestNotifier reports a test that threw a MultipleFailureException as one failure per exception it
# lists: none listed, none reported, and the test is "passed" by JUnit itself, with no report forged and every right
# of the confinement withheld. The candidate throws it as an unchecked exception (a generic method of an anonymous
# class rethrows it as its type parameter).


def sneaky_throw(throwable: str) -> str:
    """A statement that throws *throwable* (a Throwable expression) from a method that declares nothing."""
    return (
        'new Object() { @SuppressWarnings("unchecked") <E extends Throwable> void raise(Throwable t) throws E '
        f"{{ throw (E) t; }} }}.<RuntimeException>raise({throwable});\n"
    )


MFE = "org.junit.runners.model.MultipleFailureException"
# JUnit 4.13's constructor refuses an empty list: an override of getFailures() lists none afterwards
EMPTY_MFE = (
    f"new {MFE}(java.util.Collections.<Throwable>singletonList(new AssertionError())) "
    "{ @Override public java.util.List<Throwable> getFailures() { return java.util.Collections.emptyList(); } }"
)
# no subclass: a list that tells the constructor it is not empty, and has nothing to copy
MFE_FROM_A_LYING_LIST = (
    f"new {MFE}(new java.util.AbstractList<Throwable>() {{ public Throwable get(int i) {{ throw new "
    "IndexOutOfBoundsException(); } public int size() { return 0; } public boolean isEmpty() { return false; } })"
)
# getFailures() throws: JUnit's test-finished event came first, and a Class::method spec recorded it passed
MFE_THAT_CANNOT_LIST = (
    f"new {MFE}(java.util.Collections.<Throwable>singletonList(new AssertionError())) "
    "{ @Override public java.util.List<Throwable> getFailures() { throw new IllegalStateException(); } }"
)
# an MFE that lists itself: JUnit recursed until the stack overflowed, after the finished event
MFE_IN_A_CYCLE = (
    f"new {MFE}(java.util.Collections.<Throwable>singletonList(new AssertionError())) "
    "{ @Override public java.util.List<Throwable> getFailures() "
    "{ return java.util.Collections.<Throwable>singletonList(this); } }"
)

# A boolean expression: whether a class on the stack (below JUnit's frames) is a control twin that must fail. The
# twins' last check is ``assertEquals(<n>, "<filler>".length())`` (benchsmith.runners.java.sentinels.twin_class),
# compiled to ldc2_w n; ldc "filler"; invokevirtual length; i2l; invokestatic: the class file read through the class
# loader (file reads are no right withheld), the pair told apart by whether n is the filler's length.
FAILING_TWIN_ON_THE_STACK = """((java.util.function.Supplier<Boolean>) () -> { try {
  ClassLoader loader = Thread.currentThread().getContextClassLoader();
  for (StackTraceElement frame : new Throwable().getStackTrace()) {
    String name = frame.getClassName();
    if (name.startsWith("org.junit.") || name.startsWith("sun.") || name.startsWith("java.") || name.startsWith("jdk."))
      break;
    java.io.InputStream in = loader.getResourceAsStream(name.replace('.', '/') + ".class");
    if (in == null) continue;
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int k; (k = in.read(buffer)) > 0; ) bytes.write(buffer, 0, k);
    in.close();
    byte[] b = bytes.toByteArray();
    int n = ((b[8] & 255) << 8) | (b[9] & 255), p = 10;
    String[] utf = new String[n]; int[] str = new int[n]; long[] longs = new long[n]; boolean[] isLong = new boolean[n];
    for (int i = 1; i < n; i++) {
      int tag = b[p] & 255;
      if (tag == 1) { int len = ((b[p + 1] & 255) << 8) | (b[p + 2] & 255); utf[i] = new String(b, p + 3, len, "UTF-8"); p += 3 + len; }
      else if (tag == 3 || tag == 4) p += 5;
      else if (tag == 5 || tag == 6) { long v = 0; for (int j = 1; j <= 8; j++) v = (v << 8) | (b[p + j] & 255); longs[i] = v; isLong[i] = tag == 5; p += 9; i++; }
      else if (tag == 7 || tag == 16 || tag == 19 || tag == 20) p += 3;
      else if (tag == 8) { str[i] = ((b[p + 1] & 255) << 8) | (b[p + 2] & 255); p += 3; }
      else if (tag == 15) p += 4;
      else p += 5;
    }
    for (int q = p; q + 8 < b.length; q++) {
      if ((b[q] & 255) != 0x14) continue;
      int l = ((b[q + 1] & 255) << 8) | (b[q + 2] & 255), s, at;
      if ((b[q + 3] & 255) == 0x12) { s = b[q + 4] & 255; at = q + 5; }
      else if ((b[q + 3] & 255) == 0x13) { s = ((b[q + 4] & 255) << 8) | (b[q + 5] & 255); at = q + 6; }
      else continue;
      if (l <= 0 || l >= n || !isLong[l] || s <= 0 || s >= n || str[s] == 0 || (b[at] & 255) != 0xb6) continue;
      if ((b[at + 3] & 255) != 0x85 || (b[at + 4] & 255) != 0xb8) continue;
      if (utf[str[s]] != null && longs[l] != utf[str[s]].length()) return true;
    }
  }
  return false; } catch (Throwable t) { return false; } }).get()"""
