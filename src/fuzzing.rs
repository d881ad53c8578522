//! The properties the fuzz targets check (`fuzz/fuzz_targets/`), kept in the library so the
//! normal tests replay the regression corpus (`tests/corpus/<target>/`) through exactly the same
//! checks. Each returns the broken property; a panic inside is a crash as well.

use crate::report::{self, Surface, escape, gfm};

/// The fuzz targets, by the name of their folder under `tests/corpus/`.
pub const TARGETS: [&str; 7] = [
    "config",
    "judgment_json",
    "stored_report",
    "xml",
    "java",
    "kotlin",
    "markdown",
];

/// Runs target `name`'s property on `data`; an unknown name is an error.
pub fn check(name: &str, data: &[u8]) -> Result<(), String> {
    match name {
        "config" => config(data),
        "judgment_json" => judgment_json(data),
        "stored_report" => stored_report(data),
        "xml" => xml(data),
        "java" => java(data),
        "kotlin" => kotlin(data),
        "markdown" => markdown(data),
        other => Err(format!(
            "no fuzz target {other:?} (known: {})",
            TARGETS.join(", ")
        )),
    }
}

/// Any bytes as `judge-ci.yml` load to a config or to diagnostics.
pub fn config(data: &[u8]) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("no temporary folder: {e}"))?;
    let path = dir.path().join("judge-ci.yml");
    std::fs::write(&path, data).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let _ = crate::config::load_benchmark(&path);
    Ok(())
}

/// A judgment that parses serializes and parses back to itself.
pub fn judgment_json(data: &[u8]) -> Result<(), String> {
    let Ok(j) = serde_json::from_slice::<crate::judgment::Judgment>(data) else {
        return Ok(());
    };
    let text = serde_json::to_string(&j).map_err(|e| format!("does not serialize: {e}"))?;
    let back: crate::judgment::Judgment = serde_json::from_str(&text)
        .map_err(|e| format!("its serialization does not parse: {e}"))?;
    if j != back {
        return Err(format!("the round trip changed it: {j:?} became {back:?}"));
    }
    Ok(())
}

/// Any JSON is interpreted as a stored verdict (0.13–0.17 shapes), and a report that parses
/// renders to every surface, its comment within the budget.
pub fn stored_report(data: &[u8]) -> Result<(), String> {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let i = crate::jury::interpret::interpret(&v);
        let _ = crate::jury::interpret::summary(&i);
    }
    let Some(Ok(r)) = std::str::from_utf8(data).ok().map(report::read::parse) else {
        return Ok(());
    };
    let r = report::Revealed::stored(r, None).map_err(|e| e.to_string())?;
    for s in Surface::ALL {
        let _ = report::render(&r, s, None, 50);
    }
    let md = report::render(&r, Surface::Markdown, None, 50).unwrap_or_default();
    if md.len() > gfm::COMMENT_BUDGET {
        return Err(format!(
            "the comment is {} bytes, over its budget of {}",
            md.len(),
            gfm::COMMENT_BUDGET
        ));
    }
    Ok(())
}

/// JaCoCo reports and POMs: any text parses or is refused.
pub fn xml(data: &[u8]) -> Result<(), String> {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::judges::coverage::parse_jacoco(text);
        let _ = crate::judges::structural::Pom::parse(text);
    }
    Ok(())
}

/// The Java front end: any bytes parse to a model (tree-sitter recovers) and the header
/// scanner answers.
pub fn java(data: &[u8]) -> Result<(), String> {
    let file = crate::lang::java::parse_with(data, true);
    let _ = crate::lang::java::all_types(&file);
    let _ = crate::lang::java::scan_header(data);
    Ok(())
}

/// The Kotlin front end: any bytes parse to a model (tree-sitter recovers), and the header
/// is the model's package and imports.
pub fn kotlin(data: &[u8]) -> Result<(), String> {
    let file = crate::lang::kotlin::parse_with(data, true);
    let _ = crate::lang::model::all_types(&file);
    let header = crate::lang::kotlin::header(data);
    if (header.package, header.imports) != (file.package, file.imports) {
        return Err("the header is not the model's package and imports".into());
    }
    Ok(())
}

/// Escaped text, code spans and code blocks are valid GFM, and a document of them cut to a
/// small budget stays within it and valid.
pub fn markdown(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let line = escape::inline(text);
    gfm::validate(&line).map_err(|e| format!("inline: {e:?}"))?;
    gfm::validate(&escape::code_span(text)).map_err(|e| format!("code span: {e:?}"))?;
    let block = escape::code_block(text, "text");
    gfm::validate(&block).map_err(|e| format!("code block: {e:?}"))?;
    let doc: String = (0..20)
        .map(|i| format!("## {i}\n\n{line}\n\n{block}\n"))
        .collect();
    let cut = gfm::truncate(&doc, 2_000, "the report artifact");
    if cut.len() > 2_000 {
        return Err(format!("{} bytes over a 2000-byte budget", cut.len()));
    }
    gfm::validate(&cut).map_err(|e| format!("cut: {e:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_properties_hold_on_simple_inputs_and_an_unknown_target_is_named() {
        for t in TARGETS {
            check(t, b"").unwrap();
            check(t, b"{}").unwrap();
        }
        assert!(check("nope", b"").unwrap_err().contains("known: config"));
    }
}
