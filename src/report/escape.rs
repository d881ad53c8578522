//! Escaping untrusted text (PR content, build output, judge reasoning) for markdown.

/// Inline text: no raw HTML, no markdown syntax, no pinging @-mentions, no auto-linked
/// `#123`, no control characters; newlines become spaces.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '@' => out.push_str("@\u{200B}"),
            '#' => out.push_str("#\u{200B}"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A fenced code block whose fence is longer than any backtick run inside.
pub fn code_block(text: &str, lang: &str) -> String {
    // Measured after control characters are dropped: "`\u{4}``" becomes a run of three.
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect();
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n", clean.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_stays_literal() {
        let s = inline("</details><img src=x onerror=alert(1)> | @org/team #12 `x` \u{1b}[31m\0");
        assert!(!s.contains('<') && !s.contains('|'));
        assert!(s.contains("@\u{200B}org"));
        assert!(!s.contains('\u{1b}') && !s.contains('\0'));
        let b = code_block("a ``` b ```` c", "");
        assert!(b.starts_with("`````\n"), "{b}");
        // Found by fuzzing: a control character splitting a backtick run.
        let b = code_block("`\u{4}``", "text");
        assert!(b.starts_with("````text\n```\n````"), "{b:?}");
    }
}

/// An inline code span whose backtick fence is longer than any run inside; newlines and
/// control characters become spaces.
pub fn code_span(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let longest = clean.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if clean.starts_with('`') || clean.ends_with('`') || clean.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

#[cfg(test)]
mod span_tests {
    use super::*;

    #[test]
    fn code_spans_are_never_broken() {
        assert_eq!(code_span("a_b"), "`a_b`");
        assert_eq!(code_span("x `y` z"), "``x `y` z``");
        assert_eq!(code_span("`"), "`` ` ``");
        assert_eq!(code_span("a\nb"), "`a b`");
    }
}
