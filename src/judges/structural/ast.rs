//! `ast-diff`: per type, what a reviewer would call a structural difference — a missing type
//! or member, a changed supertype, annotation, signature or field type; bodies on request.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::config::checks::{AstAspect, FileSet};
use crate::lang::Language;
use crate::lang::cache::Kind;
use crate::lang::model::{self, Annotation, Field, Method, SourceFile, TypeDecl};

use super::super::Outcome;
use super::{Comparisons, Finding, compare_files, list, verdict};
use crate::judgment::FindingKind;

/// Where findings of one file go, and which aspects are compared.
struct Sink<'a> {
    rel: &'a str,
    aspects: &'a [AstAspect],
    out: Vec<Finding>,
}

/// `owner.name`, or `name` for a top-level member of a file without a package.
fn qualified(owner: &str, name: &str) -> String {
    if owner.is_empty() {
        name.to_string()
    } else {
        format!("{owner}.{name}")
    }
}

fn annotations(a: &[Annotation]) -> Vec<String> {
    let mut v: Vec<String> = a.iter().map(Annotation::text).collect();
    v.sort();
    v
}

/// Annotation differences of one element, as findings at `line`.
fn annotation_diff(
    rel: &str,
    what: &str,
    line: u32,
    expected: &[Annotation],
    actual: &[Annotation],
    out: &mut Vec<Finding>,
) {
    let (e, a) = (annotations(expected), annotations(actual));
    for x in e.iter().filter(|x| !a.contains(x)) {
        out.push(
            Finding::new(rel, FindingKind::AnnotationMissing)
                .at(line)
                .expected(format!("{x} on {what}")),
        );
    }
    for x in a.iter().filter(|x| !e.contains(x)) {
        out.push(
            Finding::new(rel, FindingKind::AnnotationUnexpected)
                .at(line)
                .actual(format!("{x} on {what}")),
        );
    }
}

fn methods(
    sink: &mut Sink,
    owner: &str,
    (missing, unexpected): (FindingKind, FindingKind),
    exp: &[Method],
    act: &[Method],
    type_line: u32,
) {
    let (rel, aspects) = (sink.rel, sink.aspects);
    let out = &mut sink.out;
    let has = |a: AstAspect| aspects.contains(&a);
    // Each signature once (a type may have hundreds of methods); the first of a signature
    // answers, as a search from the start would.
    let act_sigs: Vec<String> = act.iter().map(Method::signature).collect();
    let exp_sigs: Vec<String> = exp.iter().map(Method::signature).collect();
    let mut by_sig: HashMap<&str, &Method> = HashMap::new();
    for (s, m) in act_sigs.iter().zip(act) {
        by_sig.entry(s.as_str()).or_insert(m);
    }
    for (m, msig) in exp.iter().zip(&exp_sigs) {
        let sig = qualified(owner, msig);
        match by_sig.get(msig.as_str()).copied() {
            None => {
                if has(AstAspect::Signatures) {
                    out.push(Finding::new(rel, missing).at(type_line).expected(sig));
                }
            }
            Some(w) => {
                if has(AstAspect::Signatures) {
                    if m.returns != w.returns {
                        out.push(
                            Finding::new(rel, FindingKind::ReturnTypeChanged)
                                .at(w.line)
                                .expected(format!("{sig}: {}", m.returns.as_deref().unwrap_or("")))
                                .actual(format!("{sig}: {}", w.returns.as_deref().unwrap_or(""))),
                        );
                    }
                    if m.throws != w.throws {
                        out.push(
                            Finding::new(rel, FindingKind::ThrowsChanged)
                                .at(w.line)
                                .expected(format!("{sig} throws {}", m.throws.join(", ")))
                                .actual(format!("{sig} throws {}", w.throws.join(", "))),
                        );
                    }
                    if m.modifiers != w.modifiers {
                        out.push(
                            Finding::new(rel, FindingKind::ModifiersChanged)
                                .at(w.line)
                                .expected(format!("{} {sig}", m.modifiers.join(" ")))
                                .actual(format!("{} {sig}", w.modifiers.join(" "))),
                        );
                    }
                }
                if has(AstAspect::Annotations) {
                    annotation_diff(rel, &sig, w.line, &m.annotations, &w.annotations, out);
                }
                if has(AstAspect::Bodies) && m.body_hash != w.body_hash {
                    out.push(
                        Finding::new(rel, FindingKind::BodyChanged)
                            .at(w.line)
                            .expected(sig.clone())
                            .actual(sig),
                    );
                }
            }
        }
    }
    if has(AstAspect::Signatures) {
        let expected: HashSet<&str> = exp_sigs.iter().map(String::as_str).collect();
        for (w, wsig) in act
            .iter()
            .zip(&act_sigs)
            .filter(|(_, s)| !expected.contains(s.as_str()))
        {
            out.push(
                Finding::new(rel, unexpected)
                    .at(w.line)
                    .actual(qualified(owner, wsig)),
            );
        }
    }
}

fn fields(
    rel: &str,
    owner: &str,
    exp: &[Field],
    act: &[Field],
    aspects: &[AstAspect],
    out: &mut Vec<Finding>,
    type_line: u32,
) {
    let has = |a: AstAspect| aspects.contains(&a);
    for f in exp {
        let name = qualified(owner, &f.name);
        match act.iter().find(|x| x.name == f.name) {
            None if has(AstAspect::Fields) => out.push(
                Finding::new(rel, FindingKind::FieldMissing)
                    .at(type_line)
                    .expected(format!("{} {name}", f.ty)),
            ),
            None => {}
            Some(w) => {
                if has(AstAspect::Fields) && (f.ty != w.ty || f.modifiers != w.modifiers) {
                    out.push(
                        Finding::new(rel, FindingKind::FieldChanged)
                            .at(w.line)
                            .expected(
                                format!("{} {} {name}", f.modifiers.join(" "), f.ty)
                                    .trim()
                                    .to_string(),
                            )
                            .actual(
                                format!("{} {} {name}", w.modifiers.join(" "), w.ty)
                                    .trim()
                                    .to_string(),
                            ),
                    );
                }
                if has(AstAspect::Annotations) {
                    annotation_diff(rel, &name, w.line, &f.annotations, &w.annotations, out);
                }
                // An initialiser is code: compared with the bodies.
                if has(AstAspect::Bodies) && f.init_hash != w.init_hash {
                    out.push(
                        Finding::new(rel, FindingKind::BodyChanged)
                            .at(w.line)
                            .expected(format!("{name} = …"))
                            .actual(format!("{name} = … (its initialiser differs)")),
                    );
                }
            }
        }
    }
    if has(AstAspect::Fields) {
        for w in act.iter().filter(|w| !exp.iter().any(|f| f.name == w.name)) {
            out.push(
                Finding::new(rel, FindingKind::FieldUnexpected)
                    .at(w.line)
                    .actual(format!("{} {}", w.ty, qualified(owner, &w.name))),
            );
        }
    }
}

fn type_diff(
    rel: &str,
    path: &str,
    e: &TypeDecl,
    a: &TypeDecl,
    aspects: &[AstAspect],
    out: &mut Vec<Finding>,
) {
    let has = |x: AstAspect| aspects.contains(&x);
    if has(AstAspect::Types) {
        if e.kind != a.kind {
            out.push(
                Finding::new(rel, FindingKind::TypeKindChanged)
                    .at(a.line)
                    .expected(format!("{} {path}", e.kind.word()))
                    .actual(format!("{} {path}", a.kind.word())),
            );
        }
        if e.supertypes != a.supertypes {
            out.push(
                Finding::new(rel, FindingKind::SupertypeChanged)
                    .at(a.line)
                    .expected(format!("{path} : {}", e.supertypes.join(", ")))
                    .actual(format!("{path} : {}", a.supertypes.join(", "))),
            );
        }
        if e.modifiers != a.modifiers || e.type_params != a.type_params {
            out.push(
                Finding::new(rel, FindingKind::TypeDeclarationChanged)
                    .at(a.line)
                    .expected(
                        format!(
                            "{} {path}{}",
                            e.modifiers.join(" "),
                            e.type_params.as_deref().unwrap_or("")
                        )
                        .trim()
                        .to_string(),
                    )
                    .actual(
                        format!(
                            "{} {path}{}",
                            a.modifiers.join(" "),
                            a.type_params.as_deref().unwrap_or("")
                        )
                        .trim()
                        .to_string(),
                    ),
            );
        }
    }
    if has(AstAspect::Annotations) {
        annotation_diff(rel, path, a.line, &e.annotations, &a.annotations, out);
    }
    fields(rel, path, &e.fields, &a.fields, aspects, out, a.line);
    let mut sink = Sink {
        rel,
        aspects,
        out: std::mem::take(out),
    };
    methods(
        &mut sink,
        path,
        (FindingKind::MethodMissing, FindingKind::MethodUnexpected),
        &e.methods,
        &a.methods,
        a.line,
    );
    methods(
        &mut sink,
        path,
        (
            FindingKind::ConstructorMissing,
            FindingKind::ConstructorUnexpected,
        ),
        &e.constructors,
        &a.constructors,
        a.line,
    );
    *out = sink.out;
}

/// `unicode-escape` findings: one per workspace line holding a suspicious escape (outside a
/// literal, or one that changes how a literal reads: [`crate::lang::escapes`]),
/// unless the reference file has the same escapes (then the workspace did not add them).
pub(super) fn escape_findings(
    rel: &str,
    expected: &[(u32, char)],
    actual: &[(u32, char)],
) -> Vec<Finding> {
    let chars = |v: &[(u32, char)]| v.iter().map(|(_, c)| *c).collect::<Vec<char>>();
    if actual.is_empty() || chars(expected) == chars(actual) {
        return Vec::new();
    }
    let mut lines: Vec<u32> = actual.iter().map(|(l, _)| *l).collect();
    lines.dedup();
    lines
        .into_iter()
        .map(|l| {
            let spelled: Vec<String> = actual
                .iter()
                .filter(|(x, _)| *x == l)
                .map(|(_, c)| format!("\\u{:04x} ({})", u32::from(*c), c.escape_debug()))
                .collect();
            Finding::new(rel, FindingKind::UnicodeEscape)
                .at(l)
                .actual(format!(
                    "unicode escape javac reads differently from the text (outside a literal, or a backslash, quote, line end, ASCII letter or digit inside one): {}",
                    spelled.join(", ")
                ))
        })
        .collect()
}

/// Compares two parsed files (of one language).
pub fn diff_files(
    rel: &str,
    expected: &SourceFile,
    actual: &SourceFile,
    aspects: &[AstAspect],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let exp = model::all_types(expected);
    let act = model::all_types(actual);
    for (path, e) in &exp {
        match act.iter().find(|(p, _)| p == path) {
            Some((_, a)) => type_diff(rel, path, e, a, aspects, &mut out),
            None => out.push(
                Finding::new(rel, FindingKind::TypeMissing)
                    .expected(format!("{} {path}", e.kind.word())),
            ),
        }
    }
    for (path, a) in act.iter().filter(|(p, _)| !exp.iter().any(|(q, _)| q == p)) {
        out.push(
            Finding::new(rel, FindingKind::TypeUnexpected)
                .at(a.line)
                .actual(format!("{} {path}", a.kind.word())),
        );
    }
    top_level(rel, expected, actual, aspects, &mut out);
    out.extend(escape_findings(
        rel,
        &expected.unicode_escapes,
        &actual.unicode_escapes,
    ));
    if let Some(l) = actual.too_deep
        && expected.too_deep.is_none()
    {
        out.push(
            Finding::new(rel, FindingKind::NestingTooDeep)
                .at(l)
                .actual(format!(
                    "types nested more than {} deep, not compared",
                    model::MAX_NESTING
                )),
        );
    }
    if !actual.error_lines.is_empty() && expected.error_lines.is_empty() {
        out.push(
            Finding::new(rel, FindingKind::SyntaxError)
                .at(actual.error_lines[0])
                .actual(format!("{} line(s) do not parse", actual.error_lines.len())),
        );
    }
    // What the model does not represent never compares equal when every aspect is compared
    // (file-comparison always): the token streams after the imports (comments and layout
    // ignored) decide last. With fewer aspects, what is left out is the config's choice.
    if out.is_empty()
        && <AstAspect as strum::IntoEnumIterator>::iter().all(|a| aspects.contains(&a))
        && expected.tokens_hash.is_some()
        && expected.tokens_hash != actual.tokens_hash
    {
        out.push(
            Finding::new(rel, FindingKind::BodyChanged)
                .actual("the code differs outside the declarations ast-diff models")
                .message(format!(
                    "{rel}: the declarations and bodies ast-diff models are the same, but the code differs elsewhere (comments and layout ignored)"
                )),
        );
    }
    out
}

/// The top-level properties and functions of two files (Kotlin's; Java has none), owned by
/// the package (by nothing without one), at line 1 when missing.
fn top_level(
    rel: &str,
    expected: &SourceFile,
    actual: &SourceFile,
    aspects: &[AstAspect],
    out: &mut Vec<Finding>,
) {
    let owner = actual.package.as_deref().unwrap_or("");
    fields(
        rel,
        owner,
        &expected.fields,
        &actual.fields,
        aspects,
        out,
        1,
    );
    let mut sink = Sink {
        rel,
        aspects,
        out: std::mem::take(out),
    };
    methods(
        &mut sink,
        owner,
        (FindingKind::MethodMissing, FindingKind::MethodUnexpected),
        &expected.methods,
        &actual.methods,
        1,
    );
    *out = sink.out;
}

/// Runs the judge over both trees: each selected file is read in the language its extension
/// names, else in the first of `languages`.
pub fn ast_diff(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    files: &FileSet,
    languages: &[Language],
    aspects: &[AstAspect],
) -> Outcome {
    let listing = match list(comparisons, workspace, reference, files) {
        Ok(l) => l,
        Err(e) => return super::super::instrument(e.to_string()),
    };
    if let Some(na) = super::nothing_examined("ast-diff", &listing, files, false) {
        return na;
    }
    let bodies = aspects.contains(&AstAspect::Bodies);
    let fallback = languages.first().copied().unwrap_or(Language::Java);
    let (findings, matched, total) =
        compare_files(comparisons, &listing, workspace, |rel, w, r| {
            let language = Language::of_path(rel).unwrap_or(fallback);
            let kind = Kind::model(language, bodies);
            match super::content::models(rel, w, r, kind, |b| language.parse(b, bodies)) {
                Ok((actual, expected)) => diff_files(rel, &expected, &actual, aspects),
                Err(unreadable) => unreadable,
            }
        });
    verdict(
        "ast-diff",
        findings,
        matched,
        total,
        vec![listing.git_metadata()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attack pass F11: an added `static { Runtime.getRuntime().halt(0); }`, an instance
    /// initializer running a shell, and a field initialiser changed from `"Hello"` to
    /// `"Evil"` compared equal to the reference under every aspect (and in
    /// file-comparison). Initializer blocks are members with bodies now, field initialisers
    /// are compared with the bodies, and with every aspect the token streams decide last.
    #[test]
    fn initializers_and_what_the_model_leaves_out_never_compare_equal() {
        let reference = b"package p;\nclass G {\n  private final String s = \"Hello\";\n  enum E { A(1) }\n  @interface N { int x() default 5; }\n  String g() { return s; }\n}\n";
        let r = crate::lang::java::parse(reference);
        let all: Vec<AstAspect> = <AstAspect as strum::IntoEnumIterator>::iter().collect();
        let variant = |from: &str, to: &str| {
            let text = String::from_utf8_lossy(reference).replace(from, to);
            assert_ne!(text.as_bytes(), reference, "{to}");
            let w = crate::lang::java::parse(text.as_bytes());
            let kinds = |aspects: &[AstAspect]| -> Vec<String> {
                diff_files("G.java", &r, &w, aspects)
                    .iter()
                    .map(|f| format!("{} {}", f.kind.token(), f.actual.as_deref().unwrap_or("")))
                    .collect()
            };
            (
                kinds(&all),
                kinds(&[AstAspect::Bodies]),
                kinds(&[AstAspect::Signatures]),
            )
        };
        let (all_s, bodies, sigs) = variant(
            "  String g()",
            "  static { Runtime.getRuntime().halt(0); }\n  String g()",
        );
        assert!(
            all_s.iter().any(|k| k.starts_with("method-unexpected")),
            "{all_s:?}"
        );
        assert!(
            sigs.iter().any(|k| k.contains("G.static {}#1()")),
            "{sigs:?}"
        );
        assert!(
            bodies.is_empty(),
            "a new member is a signature matter: {bodies:?}"
        );
        let (all_i, _, _) = variant(
            "  String g()",
            "  { new ProcessBuilder(\"sh\").start(); }\n  String g()",
        );
        assert!(all_i.iter().any(|k| k.contains("G.{}#1()")), "{all_i:?}");
        // The same block, another statement: a body change.
        let with = |stmt: &str| {
            crate::lang::java::parse(
                String::from_utf8_lossy(reference)
                    .replace(
                        "  String g()",
                        &format!("  static {{ {stmt} }}\n  String g()"),
                    )
                    .as_bytes(),
            )
        };
        let f = diff_files(
            "G.java",
            &with("int a = 1;"),
            &with("Runtime.getRuntime().halt(0);"),
            &[AstAspect::Bodies],
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].kind, FindingKind::BodyChanged);
        let (_, bodies, sigs) = variant("\"Hello\"", "\"Evil\"");
        assert!(
            bodies.iter().any(|k| k.starts_with("body-changed G.s")),
            "{bodies:?}"
        );
        assert!(sigs.is_empty(), "{sigs:?}");
        let (_, bodies, _) = variant("A(1)", "A(2)");
        assert!(
            bodies.iter().any(|k| k.starts_with("body-changed G.E.A")),
            "{bodies:?}"
        );
        // Not modelled at all: an annotation element's default. Every aspect still sees it.
        let (all_d, bodies, _) = variant("default 5", "default 6");
        assert!(
            all_d.iter().any(|k| k.contains("outside the declarations")),
            "{all_d:?}"
        );
        assert!(bodies.is_empty(), "{bodies:?}");
        // Comments and layout are not code.
        let (same, _, _) = variant("  String g()", "  // a note\n  String  g()");
        assert!(same.is_empty(), "{same:?}");
    }

    #[test]
    fn reviewer_level_differences() {
        let r = crate::lang::java::parse(b"package p;\n@Entity\npublic class A extends B implements C {\n  @Id private Long id;\n  public A() {}\n  A(int x) {}\n  @Override public String m(int a) throws X { return \"\"; }\n  void gone() {}\n}\n");
        let w = crate::lang::java::parse(b"package p;\npublic class A extends D implements C {\n  private Integer id;\n  public A() {}\n  public String m(int a) { return \"x\"; }\n  void extra() {}\n}\n");
        let all = [
            AstAspect::Types,
            AstAspect::Annotations,
            AstAspect::Signatures,
            AstAspect::Fields,
            AstAspect::Bodies,
        ];
        let f = diff_files("A.java", &r, &w, &all);
        let kinds: Vec<&str> = f.iter().map(|x| x.kind.token()).collect();
        for k in [
            "supertype-changed",
            "annotation-missing",
            "field-changed",
            "constructor-missing",
            "throws-changed",
            "method-missing",
            "method-unexpected",
            "body-changed",
        ] {
            assert!(kinds.contains(&k), "{k} not in {kinds:?}");
        }
        let ann: Vec<&Finding> = f
            .iter()
            .filter(|x| x.kind.token() == "annotation-missing")
            .collect();
        assert!(
            ann.iter().any(
                |x| x.expected.as_deref() == Some("@Override on A.m(int)") && x.line == Some(5)
            ),
            "{ann:?}"
        );
        assert!(
            ann.iter()
                .any(|x| x.expected.as_deref() == Some("@Entity on A"))
        );
        let none = diff_files("A.java", &r, &r, &all);
        assert!(none.is_empty(), "{none:?}");
        let no_bodies = diff_files("A.java", &r, &w, &[AstAspect::Types]);
        assert!(
            no_bodies
                .iter()
                .all(|x| x.kind.token() == "supertype-changed"),
            "{no_bodies:?}"
        );
    }
}
