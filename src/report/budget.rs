//! Markdown through comrak's AST: cutting a report to a budget at block boundaries, checking
//! that what judge-ci emits is well-formed GFM, and the HTML preview.

use comrak::nodes::{AstNode, NodeValue};
use comrak::{Arena, Options, parse_document};

/// PR comment limit (characters; bytes here, which is never more lenient).
pub const COMMENT_BUDGET: usize = 65_536;
/// Check-run `output.summary` / `output.text` limit in bytes.
pub const CHECK_RUN_BUDGET: usize = 65_535;
/// Job summary limit.
pub const JOB_SUMMARY_BUDGET: usize = 1024 * 1024;

fn options() -> Options<'static> {
    let mut o = Options::default();
    o.extension.table = true;
    o.extension.strikethrough = true;
    o.extension.autolink = true;
    o.extension.tasklist = true;
    o.extension.alerts = true;
    o.render.r#unsafe = true;
    o
}

/// Byte offset of the start of each line (1-based line n starts at `starts[n - 1]`).
fn line_starts(md: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(md.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Top-level blocks as (start byte, end byte) ranges.
fn blocks<'a>(root: &'a AstNode<'a>, md: &str) -> Vec<(usize, usize, bool)> {
    let starts = line_starts(md);
    let at = |line: usize| {
        starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(md.len())
    };
    root.children()
        .map(|n| {
            let d = n.data.borrow();
            let start = at(d.sourcepos.start.line);
            let end = at(d.sourcepos.end.line + 1).min(md.len());
            let html = matches!(d.value, NodeValue::HtmlBlock(_));
            (start, end, html)
        })
        .collect()
}

/// Cuts `md` to at most `budget` bytes at a top-level block boundary, closes any `<details>`
/// left open, and ends with a note saying how much was cut and where the whole report is.
pub fn truncate(md: &str, budget: usize, whole_report: &str) -> String {
    if md.len() <= budget {
        return md.to_string();
    }
    let arena = Arena::new();
    let root = parse_document(&arena, md, &options());
    let note = |kept: usize| {
        format!(
            "\n> [!NOTE]\n> This report was cut to fit here: {kept} of {} bytes are shown. The whole report is in {whole_report}.\n",
            md.len()
        )
    };
    let reserve = note(md.len()).len() + 12 * "</details>\n".len();
    let limit = budget.saturating_sub(reserve);
    let mut cut = 0;
    for (start, end, _) in blocks(root, md) {
        if end > limit {
            break;
        }
        cut = end.max(start);
    }
    let kept = &md[..cut];
    let open = kept
        .matches("<details")
        .count()
        .saturating_sub(kept.matches("</details>").count());
    let mut out = kept.trim_end().to_string();
    out.push('\n');
    for _ in 0..open.min(12) {
        out.push_str("\n</details>\n");
    }
    out.push_str(&note(cut));
    out
}

/// Problems that would make GitHub show something other than what judge-ci meant: code
/// fences left open, table rows outside a table, unbalanced `<details>`.
pub fn validate(md: &str) -> Result<(), Vec<String>> {
    let arena = Arena::new();
    let root = parse_document(&arena, md, &options());
    let mut problems = Vec::new();
    let mut covered: Vec<(usize, usize)> = Vec::new();
    for n in root.descendants() {
        let d = n.data.borrow();
        match &d.value {
            NodeValue::CodeBlock(cb) => {
                if cb.fenced && !cb.closed {
                    problems.push(format!(
                        "line {}: a code fence is never closed",
                        d.sourcepos.start.line
                    ));
                }
                covered.push((d.sourcepos.start.line, d.sourcepos.end.line));
            }
            NodeValue::Table(_) | NodeValue::HtmlBlock(_) => {
                covered.push((d.sourcepos.start.line, d.sourcepos.end.line))
            }
            _ => {}
        }
    }
    for (i, line) in md.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with('|')
            && !covered.iter().any(|(a, b)| (*a..=*b).contains(&n))
        {
            problems.push(format!("line {n}: a table row outside any table"));
        }
    }
    let html: String = root
        .children()
        .filter_map(|n| match &n.data.borrow().value {
            NodeValue::HtmlBlock(h) => Some(h.literal.clone()),
            _ => None,
        })
        .collect();
    let (open, close) = (
        html.matches("<details").count(),
        html.matches("</details>").count(),
    );
    if open != close {
        problems.push(format!("{open} <details> but {close} </details>"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// A self-contained HTML page with GitHub-like styling.
pub fn html_page(md: &str, title: &str) -> String {
    let body = comrak::markdown_to_html(md, &options());
    let title = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{title}</title><style>{CSS}</style></head>\n<body><main class=\"markdown-body\">\n{body}</main></body></html>\n"
    )
}

const CSS: &str = "body{margin:0;background:#fff;color:#1f2328;font:14px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif}\
.markdown-body{max-width:980px;margin:0 auto;padding:32px}\
h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}\
table{border-collapse:collapse;margin:16px 0}th,td{border:1px solid #d1d9e0;padding:6px 13px}tr:nth-child(2n){background:#f6f8fa}\
code{background:rgba(129,139,152,.12);border-radius:6px;padding:.2em .4em;font:85% ui-monospace,SFMono-Regular,Menlo,monospace}\
pre{background:#f6f8fa;border-radius:6px;padding:16px;overflow:auto}pre code{background:none;padding:0}\
details{margin:8px 0}summary{cursor:pointer;font-weight:600}\
blockquote,.markdown-alert{border-left:.25em solid #d1d9e0;color:#59636e;margin:0;padding:0 1em}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_cuts_at_blocks_and_closes_details() {
        let mut md = String::from(
            "## Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<details><summary>Big</summary>\n\n",
        );
        for i in 0..2000 {
            md.push_str(&format!("Paragraph {i} with some words in it.\n\n"));
        }
        md.push_str("</details>\n");
        let cut = truncate(&md, 4000, "the job summary");
        assert!(cut.len() <= 4000, "{}", cut.len());
        assert!(cut.contains("| 1 | 2 |") && cut.contains("the job summary"));
        assert_eq!(
            cut.matches("<details").count(),
            cut.matches("</details>").count()
        );
        validate(&cut).unwrap();
        assert_eq!(truncate("short", 100, "x"), "short");
    }

    #[test]
    fn validation_finds_broken_markdown() {
        assert!(validate("## ok\n\n| a |\n|---|\n| b |\n").is_ok());
        assert!(validate("text\n\n```\nnever closed\n").is_err());
        assert!(validate("para\n| stray | row |\n").is_err());
        assert!(validate("<details>\n\nx\n").is_err());
    }

    #[test]
    fn html_is_a_whole_page() {
        let page = html_page("## Hi\n\n| a |\n|---|\n| b |\n", "t<x>");
        assert!(
            page.starts_with("<!DOCTYPE html>")
                && page.contains("<table>")
                && page.contains("t&lt;x&gt;")
        );
    }
}
