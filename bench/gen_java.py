#!/usr/bin/env python3
"""Writes a synthetic Java tree for bench/structural.sh: N files of ~5 KB, deterministic.

usage: gen_java.py DIR N [--variant K]   (variant > 0 changes an import, an annotation and a
method body in every file whose index is a multiple of K; K=1 changes every file)"""
import os
import random
import sys

def java(i, changed):
    r = random.Random(i)
    pkg = f"com.example.m{i % 50}"
    imports = ["java.util.List", "java.util.Map", "java.util.ArrayList", "java.io.IOException",
               "javax.annotation.Nullable", "org.slf4j.Logger", "org.slf4j.LoggerFactory", "java.util.Objects"]
    if changed:
        imports[4] = "jakarta.annotation.Nullable"
    lines = [f"package {pkg};", ""] + [f"import {x};" for x in imports] + [""]
    lines.append("/** Generated class number %d. */" % i)
    lines.append(("@Deprecated\n" if changed else "") + f"public class C{i} extends Base{i % 7} implements Comparable<C{i}> {{")
    for f in range(6):
        lines.append(f"    private final Map<String, List<Integer>> field{f} = new java.util.HashMap<>();")
    for m in range(7):
        body = []
        for k in range(r.randint(2, 4)):
            body.append(f"        for (int j{k} = 0; j{k} < n; j{k}++) {{")
            body.append(f"            if (j{k} % {k + 2} == 0) {{")
            body.append(f"                total += j{k} * {m};")
            body.append("            } else {")
            body.append(f"                total -= name.length() + {k};")
            body.append("            }")
            body.append("        }")
        if changed and m == 3:
            body.append("        total = Objects.hash(total, n);")
        lines.append(f"    @Nullable\n    public long method{m}(int n, String name) throws IOException {{")
        lines.append("        long total = 0; // running sum")
        lines.extend(body)
        lines.append("        return total;")
        lines.append("    }")
    lines.append(f"    @Override public int compareTo(C{i} o) {{ return Integer.compare(hashCode(), o.hashCode()); }}")
    lines.append("}")
    return "\n".join(lines) + "\n"

def main():
    out, n = sys.argv[1], int(sys.argv[2])
    every = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--variant" else 0
    for i in range(n):
        d = os.path.join(out, "src", "main", "java", "com", "example", f"m{i % 50}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"C{i}.java"), "w") as f:
            f.write(java(i, every > 0 and i % every == 0))
    with open(os.path.join(out, "pom.xml"), "w") as f:
        f.write("<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>"
                "<properties><maven.compiler.release>17</maven.compiler.release></properties></project>\n")

main()
