// Test helper for tests/it/javac_differential.rs (never shipped): reads Java files with javac's own
// parser (the com.sun.source tree API of the JDK on the machine) and prints, one JSON line per
// file, the model judge-ci's Java front end builds: package, imports, types with their kind,
// modifiers, annotations, type parameters, supertypes, fields, methods and constructors, and
// lines. Only the parser runs (no attribution), so the files need no classpath.
//
// Usage: java --add-exports ... ModelDump [RELEASE, default 17] < list-of-paths   (one per line)

import com.sun.source.tree.*;
import com.sun.source.util.JavacTask;
import com.sun.tools.javac.code.Flags;
import com.sun.tools.javac.tree.JCTree;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import javax.lang.model.element.Modifier;
import javax.tools.*;

public class ModelDump {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<String> paths = new ArrayList<>();
        for (String path; (path = in.readLine()) != null; ) {
            if (!path.isEmpty()) paths.add(path);
        }
        String release = args.length > 0 ? args[0] : "17";
        // One parser task per batch: a task per file costs more than the parse.
        for (int from = 0; from < paths.size(); from += 500) {
            dump(javac, paths.subList(from, Math.min(paths.size(), from + 500)), release);
        }
    }

    static void dump(JavaCompiler javac, List<String> paths, String release) throws Exception {
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8);
        Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromStrings(paths);
        JavacTask task = (JavacTask) javac.getTask(null, fm, diags, List.of("-proc:none", "--release", release), null, units);
        List<CompilationUnitTree> parsed = new ArrayList<>();
        task.parse().forEach(parsed::add);
        Set<URI> rejected = new HashSet<>();
        for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) rejected.add(d.getSource().toUri());
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < parsed.size(); i++) {
            out.setLength(0);
            CompilationUnitTree cu = parsed.get(i);
            unit(cu, paths.get(i), rejected.contains(cu.getSourceFile().toUri()), out);
            System.out.println(out);
        }
        fm.close();
    }

    static void unit(CompilationUnitTree cu, String path, boolean errors, StringBuilder out) {
        LineMap lines = cu.getLineMap();
        out.append("{\"file\":").append(str(path)).append(",\"errors\":").append(errors);
        out.append(",\"package\":").append(cu.getPackageName() == null ? "null" : str(cu.getPackageName().toString()));
        out.append(",\"imports\":[");
        boolean first = true;
        for (ImportTree i : cu.getImports()) {
            if (!first) out.append(',');
            first = false;
            out.append(str((i.isStatic() ? "static " : "") + i.getQualifiedIdentifier().toString()
                    + ":" + line(lines, i)));
        }
        out.append("],\"types\":[");
        List<String> types = new ArrayList<>();
        for (Tree t : cu.getTypeDecls()) {
            if (t instanceof ClassTree c) type(c, c.getSimpleName().toString(), lines, types);
        }
        out.append(String.join(",", types)).append("]}");
    }

    static long line(LineMap lines, Tree t) {
        return lines.getLineNumber(((JCTree) t).pos);
    }

    static void type(ClassTree c, String path, LineMap lines, List<String> out) {
        StringBuilder b = new StringBuilder();
        String kind = switch (c.getKind()) {
            case CLASS -> "class";
            case INTERFACE -> "interface";
            case ENUM -> "enum";
            case RECORD -> "record";
            case ANNOTATION_TYPE -> "@interface";
            default -> c.getKind().toString();
        };
        b.append("{\"path\":").append(str(path)).append(",\"kind\":").append(str(kind));
        b.append(",\"line\":").append(line(lines, c));
        b.append(",\"modifiers\":").append(modifiers(c.getModifiers(), false));
        b.append(",\"annotations\":").append(annotations(c.getModifiers()));
        List<String> tps = new ArrayList<>();
        for (TypeParameterTree tp : c.getTypeParameters()) tps.add(typeParam(tp));
        b.append(",\"typeParams\":").append(tps.isEmpty() ? "null" : str("<" + String.join(",", tps) + ">"));
        List<String> sup = new ArrayList<>();
        if (c.getExtendsClause() != null) sup.add(type(c.getExtendsClause()));
        for (Tree i : c.getImplementsClause()) sup.add(type(i));
        b.append(",\"supertypes\":").append(strs(sup));
        List<String> fields = new ArrayList<>(), methods = new ArrayList<>(), ctors = new ArrayList<>();
        List<ClassTree> nested = new ArrayList<>();
        for (Tree m : c.getMembers()) {
            if (m instanceof VariableTree v) {
                long flags = ((JCTree.JCVariableDecl) v).mods.flags;
                // Enum constants and record components carry flags the parser implies; the
                // source has none (their annotations are kept).
                boolean implied = (flags & (Flags.ENUM | Flags.RECORD)) != 0;
                fields.add("{\"name\":" + str(v.getName().toString()) + ",\"type\":"
                        + str((flags & Flags.ENUM) != 0 ? c.getSimpleName().toString() : type(v.getType()))
                        + ",\"modifiers\":" + modifiers(v.getModifiers(), implied)
                        + ",\"annotations\":" + annotations(v.getModifiers())
                        + ",\"line\":" + line(lines, v) + "}");
            } else if (m instanceof MethodTree mt) {
                boolean ctor = mt.getName().contentEquals("<init>");
                List<String> params = new ArrayList<>();
                for (VariableTree p : mt.getParameters()) {
                    long flags = ((JCTree.JCVariableDecl) p).mods.flags;
                    String t = type(p.getType());
                    if ((flags & Flags.VARARGS) != 0 && t.endsWith("[]")) t = t.substring(0, t.length() - 2) + "...";
                    params.add(t);
                }
                List<String> th = new ArrayList<>();
                for (ExpressionTree e : mt.getThrows()) th.add(type(e));
                String s = "{\"name\":" + str(ctor ? c.getSimpleName().toString() : mt.getName().toString())
                        + ",\"params\":" + strs(params)
                        + ",\"returns\":" + (ctor ? "null" : str(type(mt.getReturnType())))
                        + ",\"modifiers\":" + modifiers(mt.getModifiers(), false)
                        + ",\"annotations\":" + annotations(mt.getModifiers())
                        + ",\"throws\":" + strs(th)
                        + ",\"line\":" + line(lines, mt) + "}";
                (ctor ? ctors : methods).add(s);
            } else if (m instanceof ClassTree n) {
                nested.add(n);
            }
        }
        b.append(",\"fields\":[").append(String.join(",", fields)).append(']');
        b.append(",\"methods\":[").append(String.join(",", methods)).append(']');
        b.append(",\"constructors\":[").append(String.join(",", ctors)).append("]}");
        out.add(b.toString());
        for (ClassTree n : nested) type(n, path + "." + n.getSimpleName(), lines, out);
    }

    static String typeParam(TypeParameterTree tp) {
        List<String> bounds = new ArrayList<>();
        for (Tree t : tp.getBounds()) bounds.add(type(t));
        return tp.getName() + (bounds.isEmpty() ? "" : " extends " + String.join(" & ", bounds));
    }

    /** A type as written, without type annotations (compared separately, by name). */
    static String type(Tree t) {
        if (t == null) return "";
        return switch (t.getKind()) {
            case IDENTIFIER -> ((IdentifierTree) t).getName().toString();
            case MEMBER_SELECT -> type(((MemberSelectTree) t).getExpression()) + "." + ((MemberSelectTree) t).getIdentifier();
            case PARAMETERIZED_TYPE -> {
                ParameterizedTypeTree p = (ParameterizedTypeTree) t;
                List<String> args = new ArrayList<>();
                for (Tree a : p.getTypeArguments()) args.add(type(a));
                yield type(p.getType()) + "<" + String.join(", ", args) + ">";
            }
            case ARRAY_TYPE -> type(((ArrayTypeTree) t).getType()) + "[]";
            case PRIMITIVE_TYPE -> t.toString();
            case UNBOUNDED_WILDCARD -> "?";
            case EXTENDS_WILDCARD -> "? extends " + type(((WildcardTree) t).getBound());
            case SUPER_WILDCARD -> "? super " + type(((WildcardTree) t).getBound());
            case ANNOTATED_TYPE -> type(((AnnotatedTypeTree) t).getUnderlyingType());
            case INTERSECTION_TYPE -> {
                List<String> b = new ArrayList<>();
                for (Tree x : ((IntersectionTypeTree) t).getBounds()) b.add(type(x));
                yield String.join(" & ", b);
            }
            default -> t.toString();
        };
    }

    static String modifiers(ModifiersTree m, boolean implied) {
        TreeSet<String> words = new TreeSet<>();
        if (!implied) for (Modifier x : m.getFlags()) words.add(x.toString());
        return strs(new ArrayList<>(words));
    }

    static String annotations(ModifiersTree m) {
        List<String> names = new ArrayList<>();
        for (AnnotationTree a : m.getAnnotations()) names.add(type(a.getAnnotationType()));
        return strs(names);
    }

    static String strs(List<String> xs) {
        List<String> q = new ArrayList<>();
        for (String x : xs) q.add(str(x));
        return "[" + String.join(",", q) + "]";
    }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                    else b.append(ch);
                }
            }
        }
        return b.append('"').toString();
    }
}
