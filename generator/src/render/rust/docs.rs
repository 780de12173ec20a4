//! Markdown (from the docs pass) -> lines safe for `///` comments and rustdoc.
//!
//! rustdoc would otherwise read `[x]` as intra-doc links, bare fenced blocks and indented blocks
//! as Rust doctests, and `<T>` as unclosed HTML.

use crate::ir::Doc;

/// The doc comment lines (without `///`) for `doc`; empty when there is no doc.
pub(super) fn lines(doc: &Doc) -> Vec<String> {
    markdown_lines(&doc.markdown)
}

pub(super) fn markdown_lines(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for raw in md.trim().lines() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if fence {
                fence = false;
                out.push("```".to_string());
            } else {
                fence = true;
                let lang = trimmed.trim_start_matches('`').trim();
                // Only ever non-Rust code in NVIDIA's docs: never a doctest.
                let lang = if lang.is_empty() || lang == "rust" { "text" } else { lang };
                out.push(format!("```{lang}"));
            }
            continue;
        }
        if fence {
            out.push(line.to_string());
            continue;
        }
        // Four spaces would open an indented code block (a doctest): clamp the indent.
        let indent = (line.len() - trimmed.len()).min(2);
        out.push(format!("{}{}", " ".repeat(indent), escape_inline(trimmed)));
    }
    if fence {
        out.push("```".to_string());
    }
    // No trailing blank lines.
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Escapes `[`, `]` and stray `<`/`>` outside code spans; keeps simple HTML tags (`<b>`, `<br>`).
fn escape_inline(line: &str) -> String {
    let mut s = String::with_capacity(line.len());
    let mut in_code = false;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '`' => {
                in_code = !in_code;
                s.push(c);
            }
            '[' | ']' if !in_code => {
                s.push('\\');
                s.push(c);
            }
            '\\' if !in_code => {
                // A lone backslash (Doxygen leftover) would escape the next character.
                s.push_str("\\\\");
            }
            'h' if !in_code && (starts(&chars[i..], "http://") || starts(&chars[i..], "https://")) => {
                // A bare URL: make it an autolink.
                let end = chars[i..].iter().position(|c| c.is_whitespace()).map_or(chars.len(), |n| i + n);
                let mut url: String = chars[i..end].iter().collect();
                let trail = url.len() - url.trim_end_matches(['.', ',', ')', ';']).len();
                let tail = url.split_off(url.len() - trail);
                s.push('<');
                s.push_str(&url);
                s.push('>');
                s.push_str(&tail);
                i = end;
                continue;
            }
            '<' if !in_code => {
                let rest: String = chars[i..].iter().take(8).collect();
                if let Some((tag, md)) =
                    [("<b>", "**"), ("</b>", "**"), ("<i>", "*"), ("</i>", "*")].iter().find(|(t, _)| rest.starts_with(t))
                {
                    // Emphasis as Markdown: an unbalanced one stays text instead of an unclosed tag.
                    s.push_str(md);
                    i += tag.len();
                    continue;
                }
                if is_known_tag(&rest) {
                    s.push(c);
                } else {
                    s.push_str("&lt;");
                }
            }
            '>' if !in_code => {
                // `>` closing a known tag was pushed as part of it below; a stray one is harmless
                // except at line start (blockquote).
                if s.trim().is_empty() {
                    s.push_str("&gt;");
                } else {
                    s.push(c);
                }
            }
            _ => s.push(c),
        }
        i += 1;
    }
    if in_code {
        // An unbalanced backtick would swallow the next lines: escape the text as is instead.
        return line.replace('`', "\\`").replace('[', "\\[").replace(']', "\\]");
    }
    s
}

fn starts(chars: &[char], prefix: &str) -> bool {
    chars.len() >= prefix.len() && chars.iter().zip(prefix.chars()).all(|(a, b)| *a == b)
}

fn is_known_tag(s: &str) -> bool {
    const TAGS: &[&str] = &[
        "<br>", "<br/>", "<br />", "<em>", "</em>", "<tt>", "</tt>", "<p>", "</p>", "<sup>", "</sup>", "<sub>", "</sub>",
        "<code>", "</code>",
    ];
    TAGS.iter().any(|t| s.starts_with(t))
}

/// A Rust string literal (for `#[deprecated(note = ...)]`, `&str` consts).
pub(super) fn str_literal(s: &str) -> String {
    format!("{s:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_get_a_language_and_brackets_are_escaped() {
        let md = "Range [0, n]\n\n```\nint x[3];\n```\n    indented `a[1]`\n<b>bold</b> a < b";
        assert_eq!(
            markdown_lines(md),
            vec!["Range \\[0, n\\]", "", "```text", "int x[3];", "```", "  indented `a[1]`", "**bold** a &lt; b"]
        );
    }

    #[test]
    fn bare_urls_become_autolinks() {
        assert_eq!(markdown_lines("See https://nvidia.com/x."), vec!["See <https://nvidia.com/x>."]);
    }

    #[test]
    fn unbalanced_backticks_do_not_swallow_lines() {
        assert_eq!(markdown_lines("a `b [c]"), vec!["a \\`b \\[c\\]"]);
    }
}
