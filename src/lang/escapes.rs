//! Java input as javac reads it (JLS §3.3 and §3.4): unicode escapes (`\u0061`, `\uuu0061`)
//! are translated before anything else looks at the source, and every position of the
//! translated text maps back to the line of the original file (line terminators are LF, CR
//! and CRLF, as javac counts them).
//!
//! Why: javac decodes `\u000a` inside a `//` comment to a line end, so
//! `// \u000a implements \u006aavax.servlet.Filter` is code to the compiler. A judge that reads
//! the raw bytes sees a comment and can be fooled; every Java scan and parse goes through
//! [`decode`] first.
//!
//! [`Decoded::suspicious`] lists the escapes honest code does not need: those that are not
//! inside a string, char or text-block literal, nor harmlessly inside a comment (a comment
//! character that does not end the comment); and inside a literal, those whose character
//! changes where a token ends or what a text match sees (attack FI7, FI8): a backslash (it
//! escapes the next character, so `"\u005c"; x++; //"` is one string to javac), a quote, a
//! line end, and an ASCII letter or digit (`"\u006aavax.servlet.Filter"` hides `javax` from
//! a grep; honest code writes those characters as themselves).

/// One translated unicode escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Escape {
    /// Where the escape starts in the original bytes.
    pub original: usize,
    /// Its length in the original bytes (`\u0061` is 6, `\uu0061` is 7).
    pub original_len: usize,
    /// Where its character starts in the decoded bytes.
    pub decoded: usize,
    /// The UTF-16 code unit it spells.
    pub unit: u16,
}

/// Source after unicode-escape translation, with the map back to the original.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// The translated bytes (the original ones where there is no escape).
    pub text: Vec<u8>,
    /// The escapes, in order (empty for most files: then `text` equals the original).
    pub escapes: Vec<Escape>,
    /// Byte offsets in the original where a line starts (the first is 0).
    line_starts: Vec<usize>,
    /// Escapes inside string, char and text-block literals left as written in `text` (see
    /// [`decode`]), with their original offsets: still weighed by [`Decoded::suspicious`].
    kept: Vec<Escape>,
}

fn hex(b: u8) -> Option<u16> {
    (b as char).to_digit(16).map(|d| d as u16)
}

/// Translates the unicode escapes of `src` the way javac does: a `\` begins an escape only when
/// an even number of raw backslashes precede it (a `\` that an escape produced counts for
/// nothing), any number of `u` may follow, then exactly four hex digits. A `\u` without four
/// hex digits is left as it is (javac rejects the file; the parse will show an error).
/// Surrogate pairs spelled as two escapes become one character; a lone surrogate becomes
/// U+FFFD (it cannot be UTF-8). A lone CR becomes LF (see the body).
pub fn decode(src: &[u8]) -> Decoded {
    let full = translate(src, &[]);
    // An escape inside a literal that is not a backslash and is not escaped by one (an odd run
    // of backslashes before it) changes nothing javac lexes; it is left as written, which tree-sitter reads as the literal's own escape
    // (a decoded NUL would end tree-sitter's input).
    let regions = regions(&full.text);
    let keep: Vec<usize> = full
        .escapes
        .iter()
        .filter(|e| {
            e.unit != u16::from(b'\\')
                && inside(&regions, e.decoded)
                && full.text[..e.decoded]
                    .iter()
                    .rev()
                    .take_while(|b| **b == b'\\')
                    .count()
                    .is_multiple_of(2)
        })
        .map(|e| e.original)
        .collect();
    let mut d = if keep.is_empty() {
        full
    } else {
        // Those inside literals (not comments), weighed by `suspicious`.
        let kept = full
            .escapes
            .iter()
            .filter(|e| {
                keep.binary_search(&e.original).is_ok()
                    && region_of(&regions, e.decoded).is_some_and(|r| r.literal)
            })
            .copied()
            .collect();
        Decoded {
            kept,
            ..translate(src, &keep)
        }
    };
    // A lone CR ends a line for javac (and so a `//` comment); tree-sitter-java ends line
    // comments at LF only. Same length, so offsets are unchanged.
    for i in 0..d.text.len() {
        if d.text[i] == b'\r' && d.text.get(i + 1) != Some(&b'\n') {
            d.text[i] = b'\n';
        }
    }
    d
}

/// Translates every eligible escape but those starting at the original offsets of `keep`
/// (sorted), which are copied as written.
fn translate(src: &[u8], keep: &[usize]) -> Decoded {
    let line_starts = line_starts(src);
    if !src.windows(2).any(|w| w == b"\\u") {
        return Decoded {
            text: src.to_vec(),
            escapes: Vec::new(),
            line_starts,
            kept: Vec::new(),
        };
    }
    let mut text = Vec::with_capacity(src.len());
    let mut escapes = Vec::new();
    // Raw backslashes immediately before the current position.
    let mut raw_backslashes = 0usize;
    let mut i = 0;
    // A high surrogate waiting for its low half: (escape, position in `text`).
    let mut pending_high: Option<(Escape, usize)> = None;
    while i < src.len() {
        let b = src[i];
        if b == b'\\' && raw_backslashes.is_multiple_of(2) {
            let mut j = i + 1;
            while src.get(j) == Some(&b'u') {
                j += 1;
            }
            let digits = src.get(j..j + 4);
            if j > i + 1
                && let Some(d) = digits
                && let [Some(a), Some(b2), Some(c), Some(e)] =
                    [hex(d[0]), hex(d[1]), hex(d[2]), hex(d[3])]
            {
                if keep.binary_search(&i).is_ok() {
                    text.extend_from_slice(&src[i..j + 4]);
                    i = j + 4;
                    raw_backslashes = 0;
                    pending_high = None;
                    continue;
                }
                let unit = (a << 12) | (b2 << 8) | (c << 4) | e;
                let esc = Escape {
                    original: i,
                    original_len: j + 4 - i,
                    decoded: text.len(),
                    unit,
                };
                escapes.push(esc);
                i = j + 4;
                raw_backslashes = 0;
                match unit {
                    0xD800..=0xDBFF => {
                        pending_high = Some((esc, text.len()));
                        // Placeholder bytes, replaced when the low half arrives.
                        text.extend_from_slice("\u{FFFD}".as_bytes());
                    }
                    0xDC00..=0xDFFF => match pending_high.take() {
                        Some((high, at)) if at + 3 == text.len() => {
                            let cp = 0x10000
                                + ((u32::from(high.unit) - 0xD800) << 10)
                                + (u32::from(unit) - 0xDC00);
                            text.truncate(at);
                            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                            let mut buf = [0u8; 4];
                            text.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            if let Some(last) = escapes.last_mut() {
                                last.decoded = at;
                            }
                        }
                        _ => text.extend_from_slice("\u{FFFD}".as_bytes()),
                    },
                    _ => {
                        pending_high = None;
                        let ch = char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}');
                        let mut buf = [0u8; 4];
                        text.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                }
                continue;
            }
        }
        pending_high = None;
        raw_backslashes = if b == b'\\' { raw_backslashes + 1 } else { 0 };
        text.push(b);
        i += 1;
    }
    Decoded {
        text,
        escapes,
        line_starts,
        kept: Vec::new(),
    }
}

fn line_starts(src: &[u8]) -> Vec<usize> {
    let mut out = vec![0];
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            b'\n' => out.push(i + 1),
            b'\r' if src.get(i + 1) == Some(&b'\n') => {
                out.push(i + 2);
                i += 1;
            }
            b'\r' => out.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    out
}

impl Decoded {
    /// The original byte offset of decoded offset `at`: inside an escape's character, the
    /// escape's start.
    pub fn original_offset(&self, at: usize) -> usize {
        // The last escape that starts at or before `at`.
        let k = self.escapes.partition_point(|e| e.decoded <= at);
        match k.checked_sub(1).map(|k| &self.escapes[k]) {
            None => at,
            Some(e) => {
                let width = char_width(&self.text, e.decoded);
                if at < e.decoded + width {
                    e.original
                } else {
                    e.original + e.original_len + (at - e.decoded - width)
                }
            }
        }
    }

    /// The line (from 1) of the original file holding decoded offset `at`.
    pub fn line(&self, at: usize) -> u32 {
        self.original_line(self.original_offset(at))
    }

    /// The line (from 1) of original offset `at`.
    pub fn original_line(&self, at: usize) -> u32 {
        u32::try_from(self.line_starts.partition_point(|s| *s <= at)).unwrap_or(u32::MAX)
    }

    /// Escapes that change what the compiler reads outside literals: each with its original
    /// line and the character it spells. See the module documentation.
    pub fn suspicious(&self) -> Vec<(u32, char)> {
        if self.escapes.is_empty() && self.kept.is_empty() {
            return Vec::new();
        }
        let regions = regions(&self.text);
        let mut found: Vec<&Escape> = self
            .escapes
            .iter()
            .filter(|e| match region_of(&regions, e.decoded) {
                None => true,
                Some(r) => r.literal && changes_a_literal(e.unit),
            })
            // Left as written, so inside a literal: only what hides text matters.
            .chain(self.kept.iter().filter(|e| changes_a_literal(e.unit)))
            .collect();
        found.sort_by_key(|e| e.original);
        found
            .into_iter()
            .map(|e| {
                (
                    self.original_line(e.original),
                    char::from_u32(u32::from(e.unit)).unwrap_or('\u{FFFD}'),
                )
            })
            .collect()
    }
}

/// Whether decoded offset `at` lies in one of `regions` (sorted, disjoint).
fn inside(regions: &[Region], at: usize) -> bool {
    region_of(regions, at).is_some()
}

/// The region of `regions` (sorted, disjoint) holding decoded offset `at`.
fn region_of(regions: &[Region], at: usize) -> Option<&Region> {
    let k = regions.partition_point(|r| r.start <= at);
    k.checked_sub(1).map(|k| &regions[k]).filter(|r| at < r.end)
}

/// Whether an escaped character inside a literal makes javac read the text differently from
/// how it reads to a person or a text match: a backslash, a quote or a line end (they end or
/// extend the literal), an ASCII letter or digit (written as itself by honest code, escaped
/// only to hide a name from a search).
fn changes_a_literal(unit: u16) -> bool {
    matches!(u8::try_from(unit), Ok(b'\\' | b'"' | b'\'' | b'\n' | b'\r'))
        || u8::try_from(unit).is_ok_and(|b| b.is_ascii_alphanumeric())
}

fn char_width(text: &[u8], at: usize) -> usize {
    match text.get(at) {
        Some(b) if *b < 0x80 => 1,
        Some(b) if *b >= 0xF0 => 4,
        Some(b) if *b >= 0xE0 => 3,
        Some(_) => 2,
        None => 0,
    }
}

/// A half-open range of decoded bytes where an escaped character is harmless: the content of
/// a literal or of a comment (its delimiters and terminating line end excluded).
#[derive(Debug)]
struct Region {
    start: usize,
    end: usize,
    /// A string, char or text-block literal (else a comment).
    literal: bool,
}

/// The content ranges of literals and comments of decoded Java text (a lexer just precise
/// enough for that: strings, chars, text blocks, `//` and `/* */` comments).
fn regions(t: &[u8]) -> Vec<Region> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        match t[i] {
            b'/' if t.get(i + 1) == Some(&b'/') => {
                let start = i + 2;
                let mut j = start;
                while j < t.len() && t[j] != b'\n' && t[j] != b'\r' {
                    j += 1;
                }
                out.push(Region {
                    start,
                    end: j,
                    literal: false,
                });
                i = j;
            }
            b'/' if t.get(i + 1) == Some(&b'*') => {
                let start = i + 2;
                let end = t[start..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(t.len(), |p| start + p);
                out.push(Region {
                    start,
                    end,
                    literal: false,
                });
                i = end + 2;
            }
            b'"' if t.get(i + 1..i + 3) == Some(b"\"\"") => {
                let start = i + 3;
                let mut j = start;
                while j < t.len() && t.get(j..j + 3) != Some(b"\"\"\"") {
                    j += if t[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(t.len());
                out.push(Region {
                    start,
                    end,
                    literal: true,
                });
                i = end + 3;
            }
            q @ (b'"' | b'\'') => {
                let start = i + 1;
                let mut j = start;
                while j < t.len() && t[j] != q && t[j] != b'\n' && t[j] != b'\r' {
                    j += if t[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(t.len());
                out.push(Region {
                    start,
                    end,
                    literal: true,
                });
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        String::from_utf8(decode(s.as_bytes()).text).unwrap()
    }

    #[test]
    fn escapes_are_translated_as_javac_does() {
        assert_eq!(text(r"\u0061\uuuu0062"), "ab");
        assert_eq!(text(r"\\u0061"), r"\\u0061", "an escaped backslash");
        assert_eq!(text(r"\\\u0061"), r"\\a", "the third backslash is eligible");
        assert_eq!(
            text(r"\u005c\u0061"),
            r"\a",
            "a produced backslash counts for nothing"
        );
        assert_eq!(
            text(r"\u005cu0061"),
            r"\u0061",
            "nor does it begin an escape"
        );
        assert_eq!(text(r"\u00"), r"\u00");
        assert_eq!(text(r"\uD83D\uDE00!"), "\u{1F600}!");
        assert_eq!(text(r"\uD83Dx"), "\u{FFFD}x");
        assert_eq!(text("no escapes"), "no escapes");
        // Inside literals escapes stay as written unless a backslash is involved.
        assert_eq!(
            text(r#"c = '\u0000'; s = "\u0041\u005c\u0022";"#),
            r#"c = '\u0000'; s = "\u0041\"";"#
        );
        assert_eq!(
            text(r#""\u0000\\\u0000""#),
            r#""\u0000\\\u0000""#,
            "IBM964.java"
        );
    }

    #[test]
    fn positions_map_back_to_original_lines() {
        let src = "a\n// \\u000a implements X\nb\r\nc\rd";
        let d = decode(src.as_bytes());
        let t = String::from_utf8(d.text.clone()).unwrap();
        assert_eq!(t, "a\n// \n implements X\nb\r\nc\nd");
        let at = |s: &str| t.find(s).unwrap();
        assert_eq!(
            d.line(at("implements")),
            2,
            "the decoded line end is not a line"
        );
        assert_eq!(d.line(at("b")), 3);
        assert_eq!(d.line(at("c")), 4);
        assert_eq!(d.line(at("d")), 5, "a lone CR ends a line for javac");
    }

    #[test]
    fn only_escapes_outside_literals_are_suspicious() {
        let d = decode(
            br#"String s = "\u00e9"; char c = '\u00e8'; // \u0043 fine
/* \u0044 fine */ String t = """
  \u00ea """;
// \u000a int \u0078;
"#,
        );
        assert_eq!(d.suspicious(), [(4, '\n'), (4, 'x')]);
        let ends = decode(br#"String s = "\u0022 + x + \u0022"; /* a *\u002f"#);
        assert_eq!(ends.suspicious(), [(1, '"'), (1, '"'), (1, '/')]);
    }

    /// Attack FI7 and FI8: inside a literal, an escaped backslash escapes the closing quote
    /// (javac reads `requests++;` as string text), in a string and in a text block; an
    /// escaped ASCII letter hides a name from a text match (`\u006aavax`). Each is
    /// suspicious; a non-ASCII letter or a control character in a literal is not.
    #[test]
    fn escapes_that_change_how_a_literal_reads_are_suspicious() {
        let quote = decode(br#"String trace = "\u005c"; requests++; //";"#);
        assert_eq!(quote.suspicious(), [(1, '\\')]);
        let block = decode(b"String t = \"\"\"\n  counted\\u005c\"\"\"; requests++; //\n\"\"\";");
        assert_eq!(block.suspicious(), [(2, '\\')]);
        let grep = decode(br#"Class.forName("\u006aavax.servlet.Filter");"#);
        assert_eq!(grep.suspicious(), [(1, 'j')]);
        let honest = decode(br#"String s = "caf\u00e9\u0000"; char c = '\u2603';"#);
        assert!(honest.suspicious().is_empty(), "{:?}", honest.suspicious());
    }
}
