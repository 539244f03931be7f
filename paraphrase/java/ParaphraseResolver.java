import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeParameterTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Resolves, with javac's own attribution, every declaration of the given top-level classes and every
 * occurrence in the repository's sources that refers to one of them (paraphrase/java/resolve.py reads
 * the result). Names are resolved to symbols, never matched by spelling: a call {@code x.foo()} is an
 * occurrence of the class's {@code foo} only when javac binds it there.
 *
 * <p>Usage: {@code java ParaphraseResolver OUT TARGETS SOURCES_LIST [javac options...]}, run in the
 * repository root with source paths relative to it. OUT receives tab-separated lines:
 * <pre>
 * TARGET fqn file | MISSING fqn
 * ELEM id kind name where rule detail    (rule "-" when renaming is safe)
 * OCC id file offset mode                (mode "at": the name starts there; "after": first such identifier)
 * UNRES name where                       (a reference javac could not bind, spelled like a declared name)
 * STR where value                        (every string literal)
 * READSNAME where                        (a call of Class.getName/getSimpleName/...)
 * ERR where message                      (compile errors)
 * </pre>
 * Offsets are javac's char positions (UTF-16 units of the decoded file).
 */
public final class ParaphraseResolver {
    private static final Set<String> SERIALIZATION_FIELDS = Set.of("serialVersionUID", "serialPersistentFields");
    private static final Set<String> SERIALIZATION_METHODS =
            Set.of("writeObject", "readObject", "readObjectNoData", "writeReplace", "readResolve");
    private static final Set<String> NAME_READERS = Set.of("getName", "getSimpleName", "getCanonicalName", "getTypeName");
    // Annotations that only inform the compiler or readers: a member carrying one is not looked up by name.
    private static final Set<String> INERT_ANNOTATIONS = Set.of("java.lang.Override", "java.lang.Deprecated",
            "java.lang.SuppressWarnings", "java.lang.SafeVarargs", "java.lang.FunctionalInterface");

    private final Trees trees;
    private final Elements elements;
    private final Types types;
    private final List<CompilationUnitTree> units;
    private final PrintWriter out;
    private final Set<TypeElement> repoTypes = new LinkedHashSet<>();
    private final Map<ExecutableElement, ExecutableElement> parent = new IdentityHashMap<>();
    private final Map<ExecutableElement, String> externalOverride = new IdentityHashMap<>();
    private final Map<Element, String> ids = new IdentityHashMap<>(); // declared element (or family root) -> id
    private final Set<String> declaredNames = new HashSet<>();

    private ParaphraseResolver(JavacTask task, List<CompilationUnitTree> units, PrintWriter out) {
        this.trees = Trees.instance(task);
        this.elements = task.getElements();
        this.types = task.getTypes();
        this.units = units;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: ParaphraseResolver OUT TARGETS SOURCES_LIST [javac options...]");
            System.exit(2);
        }
        Set<String> targets = new LinkedHashSet<>(Arrays.asList(args[1].split(",")));
        targets.remove("");
        List<String> sources = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) sources.add(line);
        }
        List<String> options = new ArrayList<>(Arrays.asList(args).subList(3, args.length));
        // Without should-stop.ifError=FLOW, javac stops attributing the remaining classes after the first error
        // anywhere (a test that needs a library not on the class path): their occurrences would stay unbound.
        options.addAll(List.of("-proc:none", "-Xmaxerrs", "100000", "-nowarn", "-encoding", "UTF-8",
                "-XDshould-stop.ifError=FLOW"));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8);
        JavacTask task = (JavacTask) compiler.getTask(null, files, diagnostics, options, null,
                files.getJavaFileObjectsFromStrings(sources));
        List<CompilationUnitTree> units = new ArrayList<>();
        for (CompilationUnitTree unit : task.parse()) units.add(unit);
        task.analyze();
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8))) {
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    String file = d.getSource() == null ? "?" : d.getSource().getName();
                    out.println("ERR\t" + clean(file + ":" + d.getLineNumber()) + "\t" + clean(d.getMessage(null)));
                }
            }
            new ParaphraseResolver(task, units, out).run(targets);
            if (out.checkError()) {
                System.err.println(args[0] + ": could not write the resolution (PrintWriter reported an error)");
                System.exit(1);
            }
        }
    }

    private void run(Set<String> targets) {
        Map<TypeElement, TreePath> targetTrees = new HashMap<>();
        for (CompilationUnitTree unit : units) {
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitClass(ClassTree node, Void unused) {
                    Element element = trees.getElement(getCurrentPath());
                    if (element instanceof TypeElement) {
                        TypeElement type = (TypeElement) element;
                        repoTypes.add(type);
                        if (getCurrentPath().getParentPath().getLeaf() instanceof CompilationUnitTree
                                && targets.contains(type.getQualifiedName().toString())) {
                            targetTrees.put(type, getCurrentPath());
                        }
                    }
                    return super.visitClass(node, unused);
                }
            }.scan(unit, null);
        }
        for (String target : targets) {
            TypeElement found = targetTrees.keySet().stream()
                    .filter(t -> t.getQualifiedName().contentEquals(target)).findFirst().orElse(null);
            if (found == null) {
                out.println("MISSING\t" + target);
            } else {
                out.println("TARGET\t" + target + "\t" + targetTrees.get(found).getCompilationUnit().getSourceFile().getName());
            }
        }
        buildOverrideFamilies();
        for (TreePath path : targetTrees.values()) declareElements(path);
        for (CompilationUnitTree unit : units) new Occurrences(unit).scan(unit, null);
    }

    // -- override families: a method and every repository method it overrides or is overridden by ----------
    private ExecutableElement find(ExecutableElement m) {
        ExecutableElement p = parent.getOrDefault(m, m);
        if (p == m) return m;
        ExecutableElement root = find(p);
        parent.put(m, root);
        return root;
    }

    private void union(ExecutableElement a, ExecutableElement b) {
        ExecutableElement ra = find(a), rb = find(b);
        if (ra != rb) parent.put(ra, rb);
        String external = externalOverride.get(ra);
        if (external != null) externalOverride.putIfAbsent(rb, external);
    }

    private void supertypes(TypeMirror type, Set<TypeElement> seen) {
        for (TypeMirror s : types.directSupertypes(type)) {
            Element e = types.asElement(s);
            if (e instanceof TypeElement && seen.add((TypeElement) e)) supertypes(s, seen);
        }
    }

    private void buildOverrideFamilies() {
        List<ExecutableElement[]> externals = new ArrayList<>();
        for (TypeElement type : repoTypes) {
            Set<TypeElement> closure = new LinkedHashSet<>();
            closure.add(type);
            supertypes(type.asType(), closure);
            Map<String, List<ExecutableElement>> byName = new HashMap<>();
            for (TypeElement s : closure) {
                for (Element e : s.getEnclosedElements()) {
                    if (e.getKind() == ElementKind.METHOD && !e.getModifiers().contains(Modifier.STATIC)
                            && !e.getModifiers().contains(Modifier.PRIVATE)) {
                        byName.computeIfAbsent(e.getSimpleName().toString(), k -> new ArrayList<>()).add((ExecutableElement) e);
                    }
                }
            }
            for (List<ExecutableElement> group : byName.values()) {
                for (ExecutableElement m : group) {
                    if (!repoTypes.contains((TypeElement) m.getEnclosingElement())) continue;
                    for (ExecutableElement n : group) {
                        if (n == m || !elements.overrides(m, n, type)) continue;
                        if (repoTypes.contains((TypeElement) n.getEnclosingElement())) {
                            union(m, n);
                        } else {
                            externals.add(new ExecutableElement[] {m, n});
                        }
                    }
                }
            }
        }
        for (ExecutableElement[] pair : externals) {
            TypeElement owner = (TypeElement) pair[1].getEnclosingElement();
            externalOverride.putIfAbsent(find(pair[0]), owner.getQualifiedName() + "." + pair[1].getSimpleName());
        }
    }

    // -- declarations of the target classes -----------------------------------------------------------------
    private void declareElements(TreePath classPath) {
        new TreePathScanner<Void, Void>() {
            @Override
            public Void visitClass(ClassTree node, Void unused) {
                if (!node.getSimpleName().toString().isEmpty()) declare(getCurrentPath());
                return super.visitClass(node, unused);
            }

            @Override
            public Void visitMethod(MethodTree node, Void unused) {
                if (!node.getName().contentEquals("<init>")) declare(getCurrentPath());
                return super.visitMethod(node, unused);
            }

            @Override
            public Void visitVariable(VariableTree node, Void unused) {
                declare(getCurrentPath());
                return super.visitVariable(node, unused);
            }

            @Override
            public Void visitTypeParameter(TypeParameterTree node, Void unused) {
                declare(getCurrentPath());
                return super.visitTypeParameter(node, unused);
            }
        }.scan(classPath, null);
    }

    private void declare(TreePath path) {
        Element element = trees.getElement(path);
        if (element == null || element.getSimpleName().length() == 0) return;
        Element key = element instanceof ExecutableElement ? find((ExecutableElement) element) : element;
        if (ids.containsKey(key)) return;
        String id = "e" + ids.size();
        ids.put(key, id);
        String name = element.getSimpleName().toString();
        declaredNames.add(name);
        String[] rule = exclusion(element);
        out.println("ELEM\t" + id + "\t" + element.getKind() + "\t" + name + "\t" + where(path.getCompilationUnit(), path.getLeaf())
                + "\t" + rule[0] + "\t" + clean(rule[1]));
    }

    private String[] exclusion(Element element) {
        String name = element.getSimpleName().toString();
        Set<Modifier> modifiers = element.getModifiers();
        switch (element.getKind()) {
            case ENUM_CONSTANT:
                return new String[] {"enum-constant", "constant of " + element.getEnclosingElement()};
            case FIELD:
                if (SERIALIZATION_FIELDS.contains(name)) return new String[] {"serialization", "field of " + element.getEnclosingElement()};
                // A Serializable class's instance fields are its serial form, spelled in every stream it was written
                // to (Csv keeps a CSVRecord serialized by 1.6 among its test resources).
                if (!modifiers.contains(Modifier.STATIC) && !modifiers.contains(Modifier.TRANSIENT)
                        && isSerializable(element.getEnclosingElement())) {
                    return new String[] {"serialization", "serial-form field of " + element.getEnclosingElement()};
                }
                break;
            case METHOD: {
                ExecutableElement method = (ExecutableElement) element;
                String external = externalOverride.get(find(method));
                if (external != null) return new String[] {"library-override", "overrides " + external};
                if (name.equals("main") && modifiers.contains(Modifier.STATIC) && method.getParameters().size() == 1
                        && isStringArray(method.getParameters().get(0).asType())) {
                    return new String[] {"entry-point", "main method of " + element.getEnclosingElement()};
                }
                if (SERIALIZATION_METHODS.contains(name)) return new String[] {"serialization", "method of " + element.getEnclosingElement()};
                if (modifiers.contains(Modifier.NATIVE)) return new String[] {"native", "native method of " + element.getEnclosingElement()};
                break;
            }
            default:
                break;
        }
        if (element.getKind().isField() || element.getKind() == ElementKind.METHOD || element.getKind().isClass()
                || element.getKind().isInterface()) {
            for (AnnotationMirror annotation : element.getAnnotationMirrors()) {
                TypeElement type = (TypeElement) annotation.getAnnotationType().asElement();
                String qualified = type.getQualifiedName().toString();
                if (!INERT_ANNOTATIONS.contains(qualified) && !repoTypes.contains(type)) {
                    return new String[] {"external-annotation", "annotated @" + qualified};
                }
            }
        }
        return new String[] {"-", ""};
    }

    private boolean isSerializable(Element type) {
        TypeElement serializable = elements.getTypeElement("java.io.Serializable");
        return serializable != null && type instanceof TypeElement
                && types.isSubtype(types.erasure(type.asType()), types.erasure(serializable.asType()));
    }

    private boolean isStringArray(TypeMirror type) {
        return type.getKind() == TypeKind.ARRAY
                && types.isSameType(((ArrayType) type).getComponentType(), elements.getTypeElement("java.lang.String").asType());
    }

    private String idOf(Element element) {
        if (element == null) return null;
        if (element instanceof ExecutableElement) {
            if (element.getKind() == ElementKind.CONSTRUCTOR) return ids.get(element.getEnclosingElement());
            return ids.get(find((ExecutableElement) element));
        }
        return ids.get(element);
    }

    // -- every occurrence in every file ---------------------------------------------------------------------
    private final class Occurrences extends TreePathScanner<Void, Void> {
        private final CompilationUnitTree unit;
        private final SourcePositions positions;
        private final String file;

        Occurrences(CompilationUnitTree unit) {
            this.unit = unit;
            this.positions = trees.getSourcePositions();
            this.file = unit.getSourceFile().getName();
        }

        private long start(Tree tree) {
            return tree == null ? -1 : positions.getStartPosition(unit, tree);
        }

        private long end(Tree tree) {
            return tree == null ? -1 : positions.getEndPosition(unit, tree);
        }

        private void emit(String id, long offset, String mode) {
            if (id != null && offset >= 0) out.println("OCC\t" + id + "\t" + file + "\t" + offset + "\t" + mode);
        }

        private void reference(Element element, String name, long nameStart, Tree tree) {
            if (element == null || erroneous(element)) {
                if (declaredNames.contains(name)) out.println("UNRES\t" + name + "\t" + where(unit, tree));
                return;
            }
            if (!element.getSimpleName().contentEquals(name) && element.getKind() != ElementKind.CONSTRUCTOR) return;
            emit(idOf(element), nameStart, "at");
        }

        @Override
        public Void visitIdentifier(IdentifierTree node, Void unused) {
            String name = node.getName().toString();
            if (!name.equals("this") && !name.equals("super")) {
                reference(trees.getElement(getCurrentPath()), name, start(node), node);
            }
            return super.visitIdentifier(node, unused);
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree node, Void unused) {
            String name = node.getIdentifier().toString();
            if (!name.equals("class") && !name.equals("this") && !name.equals("super")) {
                reference(trees.getElement(getCurrentPath()), name, end(node) - name.length(), node);
            }
            return super.visitMemberSelect(node, unused);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void unused) {
            String name = node.getName().toString();
            if (!name.equals("<init>")) reference(trees.getElement(getCurrentPath()), name, end(node) - name.length(), node);
            return super.visitMemberReference(node, unused);
        }

        @Override
        public Void visitImport(ImportTree node, Void unused) {
            if (!node.isStatic() || !(node.getQualifiedIdentifier() instanceof MemberSelectTree)) {
                return super.visitImport(node, unused);
            }
            // import static a.B.name: javac binds no single symbol to "name" (it may be several overloads)
            MemberSelectTree select = (MemberSelectTree) node.getQualifiedIdentifier();
            String name = select.getIdentifier().toString();
            TreePath qualifier = new TreePath(new TreePath(getCurrentPath(), select), select.getExpression());
            Element owner = trees.getElement(qualifier);
            if (!name.equals("*") && owner instanceof TypeElement) {
                for (Element member : elements.getAllMembers((TypeElement) owner)) {
                    String id = member.getSimpleName().contentEquals(name) ? idOf(member) : null;
                    if (id != null) {
                        emit(id, end(select) - name.length(), "at");
                        break;
                    }
                }
            }
            scan(qualifier, null);
            return null;
        }

        @Override
        public Void visitClass(ClassTree node, Void unused) {
            String id = idOf(trees.getElement(getCurrentPath()));
            if (id != null) emit(id, Math.max(end(node.getModifiers()), start(node)), "after");
            return super.visitClass(node, unused);
        }

        @Override
        public Void visitMethod(MethodTree node, Void unused) {
            String id = idOf(trees.getElement(getCurrentPath()));
            if (id != null) {
                long from = Math.max(end(node.getModifiers()), start(node));
                for (Tree parameter : node.getTypeParameters()) from = Math.max(from, end(parameter));
                from = Math.max(from, end(node.getReturnType()));
                emit(id, from, "after");
            }
            return super.visitMethod(node, unused);
        }

        @Override
        public Void visitVariable(VariableTree node, Void unused) {
            Element element = trees.getElement(getCurrentPath());
            String id = idOf(element);
            if (element != null && element.getKind() == ElementKind.ENUM_CONSTANT) {
                // "ROUND" stands for "public static final Kind ROUND = new Kind()": javac's synthetic type and
                // constructor call sit at the constant's position; only the arguments and body are source.
                emit(id, Math.max(end(node.getModifiers()), start(node)), "after");
                scan(node.getModifiers(), null);
                if (node.getInitializer() instanceof NewClassTree) {
                    NewClassTree creation = (NewClassTree) node.getInitializer();
                    TreePath creationPath = new TreePath(getCurrentPath(), creation);
                    for (Tree argument : creation.getArguments()) scan(new TreePath(creationPath, argument), null);
                    if (creation.getClassBody() != null) scan(new TreePath(creationPath, creation.getClassBody()), null);
                }
                return null;
            }
            if (id != null) {
                long from = Math.max(end(node.getModifiers()), start(node));
                long typeEnd = end(node.getType());
                if (typeEnd > 0 && start(node.getType()) >= from) from = typeEnd;  // an implicit lambda type has none
                emit(id, from, "after");
            }
            return super.visitVariable(node, unused);
        }

        @Override
        public Void visitTypeParameter(TypeParameterTree node, Void unused) {
            String id = idOf(trees.getElement(getCurrentPath()));
            if (id != null) emit(id, start(node), "after");
            return super.visitTypeParameter(node, unused);
        }

        @Override
        public Void visitLiteral(LiteralTree node, Void unused) {
            if (node.getValue() instanceof String) out.println("STR\t" + where(unit, node) + "\t" + clean((String) node.getValue()));
            return super.visitLiteral(node, unused);
        }

        @Override
        public Void visitMethodInvocation(MethodInvocationTree node, Void unused) {
            Element called = trees.getElement(getCurrentPath());
            if (called != null && NAME_READERS.contains(called.getSimpleName().toString())
                    && called.getEnclosingElement() instanceof TypeElement
                    && ((TypeElement) called.getEnclosingElement()).getQualifiedName().contentEquals("java.lang.Class")) {
                out.println("READSNAME\t" + where(unit, node));
            }
            return super.visitMethodInvocation(node, unused);
        }
    }

    /** What javac's error recovery binds a name to when its receiver or owner could not be found. */
    private static boolean erroneous(Element element) {
        if (element.getKind() == ElementKind.OTHER || element.asType().getKind() == TypeKind.ERROR) return true;
        Element owner = element.getEnclosingElement();
        return owner != null && owner.asType() != null && owner.asType().getKind() == TypeKind.ERROR;
    }

    private String where(CompilationUnitTree unit, Tree tree) {
        long start = trees.getSourcePositions().getStartPosition(unit, tree);
        long line = start < 0 ? 0 : unit.getLineMap().getLineNumber(start);
        return unit.getSourceFile().getName() + ":" + line;
    }

    /** One line, one field: backslash, tab and line breaks escaped. */
    /** One field of a line: tab, line breaks (Python's too), other controls and lone surrogates escaped: a lone
     *  surrogate (Compress tests encoding half an emoji) would stop the UTF-8 writer, and PrintWriter says nothing. */
    private static String clean(String text) {
        if (text == null) return "";
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            if (paired) {
                out.append(c).append(text.charAt(++i));
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c < 0x20 || c == 0x7f || c == 0x85 || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
