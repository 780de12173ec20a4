//! Doc text -> lines for C block comments.

/// The lines of a `/** ... */` comment for `text` (without the ` * ` prefix); `*/` inside the
/// text is broken up so it cannot end the comment early. Empty for empty text.
pub(super) fn comment(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text.trim().lines().map(|l| l.trim_end().replace("*/", "* /")).collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::comment;

    #[test]
    fn comment_lines() {
        assert!(comment("  ").is_empty());
        assert_eq!(comment("a */ b\n\n  c  \n\n"), vec!["a * / b", "", "  c"]);
    }
}
