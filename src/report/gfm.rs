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
    // `<details>` left open, counted in HTML blocks only (as `validate` does): the same text
    // inside a code block or escaped in a paragraph opens nothing.
    let mut open = 0usize;
    for (start, end, html) in blocks(root, md) {
        if end > limit {
            break;
        }
        cut = end.max(start);
        if html {
            let block = &md[start..end];
            open = (open + block.matches("<details").count())
                .saturating_sub(block.matches("</details>").count());
        }
    }
    let kept = &md[..cut];
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
    let body = pies_as_svg(&comrak::markdown_to_html(md, &options()));
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

/// Text from inside a rendered code block, entities decoded.
fn unescape(html: &str) -> String {
    html.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Text made safe for SVG text and attributes.
fn svg_text(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Colours of pie slices, in order.
const PIE_COLOURS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

/// Draws a mermaid `pie` block (`"Label" : N` lines) as an inline SVG with a legend; any
/// other mermaid block stays as code. The page needs no script, so it works offline.
fn pie_svg(source: &str) -> Option<String> {
    let decoded = unescape(source);
    let mut lines = decoded.lines();
    let head = lines.next()?.trim();
    if !head.starts_with("pie") {
        return None;
    }
    let title = head
        .split_once("title")
        .map(|(_, t)| t.trim().to_string())
        .unwrap_or_default();
    let slices: Vec<(String, f64)> = lines
        .filter_map(|l| {
            let (label, n) = l.rsplit_once(':')?;
            let label = label.trim().trim_matches('"').to_string();
            let n: f64 = n.trim().parse().ok()?;
            (n > 0.0).then_some((label, n))
        })
        .collect();
    let total: f64 = slices.iter().map(|s| s.1).sum();
    if slices.is_empty() || total <= 0.0 {
        return None;
    }
    let (cx, cy, r) = (90.0_f64, 90.0_f64, 80.0_f64);
    let height = (slices.len() as f64 * 22.0 + 20.0).max(190.0);
    let mut svg = format!(
        "<figure class=\"pie\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"440\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        svg_text(&title)
    );
    let mut angle = -std::f64::consts::FRAC_PI_2;
    for (i, (label, n)) in slices.iter().enumerate() {
        let colour = PIE_COLOURS[i % PIE_COLOURS.len()];
        let sweep = n / total * std::f64::consts::TAU;
        if slices.len() == 1 {
            svg.push_str(&format!(
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{colour}\"/>"
            ));
        } else {
            let (x1, y1) = (cx + r * angle.cos(), cy + r * angle.sin());
            let end = angle + sweep;
            let (x2, y2) = (cx + r * end.cos(), cy + r * end.sin());
            let large = i32::from(sweep > std::f64::consts::PI);
            svg.push_str(&format!(
                "<path d=\"M{cx},{cy} L{x1:.2},{y1:.2} A{r},{r} 0 {large} 1 {x2:.2},{y2:.2} Z\" fill=\"{colour}\"/>"
            ));
        }
        angle += sweep;
        let y = 20.0 + i as f64 * 22.0;
        svg.push_str(&format!(
            "<rect x=\"195\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{colour}\"/><text x=\"215\" y=\"{y}\" font-size=\"13\">{} ({n}, {:.0}%)</text>",
            y - 11.0,
            svg_text(label),
            n / total * 100.0
        ));
    }
    svg.push_str("</svg>");
    if !title.is_empty() {
        svg.push_str(&format!("<figcaption>{}</figcaption>", svg_text(&title)));
    }
    svg.push_str("</figure>");
    Some(svg)
}

/// Draws a mermaid `xychart-beta` block's `bar [...]` series over its `x-axis [...]` as an
/// inline SVG of grouped bars (series in order, coloured as the pie slices).
fn bars_svg(source: &str) -> Option<String> {
    let decoded = unescape(source);
    let mut lines = decoded.lines().map(str::trim);
    if lines.next()? != "xychart-beta" {
        return None;
    }
    let list = |s: &str| -> Vec<String> {
        s.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|x| x.trim().trim_matches('"').to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    let (mut title, mut labels, mut series) = (String::new(), Vec::new(), Vec::new());
    for l in lines {
        if let Some(t) = l.strip_prefix("title") {
            title = t.trim().trim_matches('"').to_string();
        } else if let Some(x) = l.strip_prefix("x-axis") {
            labels = list(x);
        } else if let Some(b) = l.strip_prefix("bar") {
            series.push(
                list(b)
                    .iter()
                    .map(|v| v.parse::<f64>().unwrap_or(0.0))
                    .collect::<Vec<_>>(),
            );
        }
    }
    if labels.is_empty() || series.is_empty() {
        return None;
    }
    let max = series
        .iter()
        .flatten()
        .cloned()
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let group = 90.0;
    let bar = (group - 20.0) / series.len() as f64;
    let (h, top) = (160.0, 20.0);
    let width = 40.0 + group * labels.len() as f64;
    let mut svg = format!(
        "<figure class=\"bars\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" role=\"img\" aria-label=\"{}\">",
        h + top + 40.0,
        svg_text(&title)
    );
    svg.push_str(&format!(
        "<line x1=\"30\" y1=\"{}\" x2=\"{width}\" y2=\"{}\" stroke=\"#888\"/>",
        top + h,
        top + h
    ));
    for (i, name) in labels.iter().enumerate() {
        let x0 = 40.0 + group * i as f64;
        for (k, values) in series.iter().enumerate() {
            let v = values.get(i).copied().unwrap_or(0.0);
            let bh = v / max * h;
            let colour = PIE_COLOURS[k % PIE_COLOURS.len()];
            svg.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{v}</text>",
                x0 + bar * k as f64,
                top + h - bh,
                bar - 2.0,
                x0 + bar * k as f64 + bar / 2.0,
                top + h - bh - 3.0
            ));
        }
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            x0 + (group - 20.0) / 2.0,
            top + h + 16.0,
            svg_text(name)
        ));
    }
    svg.push_str("</svg>");
    if !title.is_empty() {
        svg.push_str(&format!("<figcaption>{}</figcaption>", svg_text(&title)));
    }
    svg.push_str("</figure>");
    Some(svg)
}

/// Replaces each rendered mermaid pie block of `html` with its SVG.
fn pies_as_svg(html: &str) -> String {
    const OPEN: &str = "<pre><code class=\"language-mermaid\">";
    const CLOSE: &str = "</code></pre>";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find(OPEN) {
        let after = &rest[i + OPEN.len()..];
        let Some(j) = after.find(CLOSE) else {
            break;
        };
        out.push_str(&rest[..i]);
        match pie_svg(&after[..j]).or_else(|| bars_svg(&after[..j])) {
            Some(svg) => out.push_str(&svg),
            None => out.push_str(&rest[i..i + OPEN.len() + j + CLOSE.len()]),
        }
        rest = &after[j + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

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
    fn details_inside_code_are_not_closed_by_a_cut() {
        // Found by fuzzing (tests/corpus/markdown/crash-ffae…): `<details>` quoted in a code
        // block was counted as open, and the cut appended a stray `</details>`.
        let mut md = String::from("```text\n<details><summary>x</summary>\n```\n\n");
        for i in 0..500 {
            md.push_str(&format!("Paragraph {i} with some words in it.\n\n"));
        }
        let cut = truncate(&md, 2000, "the report artifact");
        assert!(!cut.contains("</details>"), "{cut}");
        validate(&cut).unwrap();
    }

    #[test]
    fn validation_finds_broken_markdown() {
        assert!(validate("## ok\n\n| a |\n|---|\n| b |\n").is_ok());
        assert_eq!(
            validate("text\n\n```\nnever closed\n"),
            Err(vec!["line 3: a code fence is never closed".to_string()])
        );
        assert_eq!(
            validate("para\n| stray | row |\n"),
            Err(vec!["line 2: a table row outside any table".to_string()])
        );
        assert_eq!(
            validate("<details>\n\nx\n"),
            Err(vec!["1 <details> but 0 </details>".to_string()])
        );
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

    #[test]
    fn mermaid_pies_become_svg_and_other_diagrams_stay_code() {
        let md = "```mermaid\npie showData title Gaps\n    \"Knowledge\" : 2\n    \"Execution\" : 6\n```\n\n```mermaid\ngraph TD; A-->B\n```\n";
        let html = html_page(md, "t");
        assert!(
            html.contains("<svg")
                && html.contains("Knowledge (2, 25%)")
                && html.contains("Execution (6, 75%)"),
            "{html}"
        );
        assert_eq!(html.matches("<path ").count(), 2);
        assert!(
            html.contains("language-mermaid") && html.contains("graph TD"),
            "other diagrams stay code"
        );
        assert!(!html.contains("pie showData"));
    }
}
