//! Doxygen -> Markdown. Splits `\param` lines off into each parameter's `doc`, keeps the
//! nvrtc direction tag (`[out] ...`) at the front of that text for the parameter pass, and turns
//! `\deprecated` into the function's deprecation message.

use crate::ir::{Doc, Function, Library};
use std::collections::BTreeMap;

pub fn run(lib: &mut Library) {
    for f in &mut lib.functions {
        function(f);
    }
    for e in &mut lib.enums {
        markdown(&mut e.doc);
        e.variants.iter_mut().for_each(|v| markdown(&mut v.doc));
    }
    for r in &mut lib.records {
        markdown(&mut r.doc);
        r.fields.iter_mut().for_each(|f| markdown(&mut f.doc));
    }
    lib.typedefs.iter_mut().for_each(|t| markdown(&mut t.doc));
    lib.macros.iter_mut().for_each(|m| markdown(&mut m.doc));
}

/// Converts a declaration's Doxygen text in place.
fn markdown(doc: &mut Doc) {
    *doc = convert(&doc.markdown).doc;
}

fn function(f: &mut Function) {
    let converted = convert(&f.doc.markdown);
    let mut list = String::new();
    for p in &mut f.params {
        if let Some(text) = converted.params.get(&p.name) {
            p.doc = text.clone();
            list.push_str(&format!("\n- `{}`: {}", p.name, text));
        }
    }
    if let Some(msg) = converted.deprecated {
        f.deprecated = Some(msg);
    }
    f.doc = converted.doc;
    if !list.is_empty() {
        // The parameter list goes right after the description, before Returns/See also.
        let md = &f.doc.markdown;
        let at = md.find("\n\n**Returns:**").unwrap_or(md.len());
        f.doc.markdown = format!("{}\n\n**Parameters:**\n{}{}", &md[..at], list.trim_start_matches('\n'), &md[at..]);
    }
}

/// The result of converting one comment.
#[derive(Debug, Default, PartialEq)]
pub struct Converted {
    pub doc: Doc,
    /// Parameter name -> its text (`[out] ` kept in front when the header tags it).
    pub params: BTreeMap<String, String>,
    pub deprecated: Option<String>,
}

/// Converts a raw Doxygen comment.
pub fn convert(raw: &str) -> Converted {
    let lines = strip_markers(raw);
    let mut out = Converted::default();
    let mut body: Vec<String> = Vec::new();
    let mut current_param: Option<String> = None;
    let mut in_code = false;
    let mut in_deprecated = false;
    for line in lines {
        let t = line.trim();
        if in_code {
            if t.starts_with("\\endcode") {
                in_code = false;
                body.push("```".into());
            } else {
                body.push(line.clone());
            }
            continue;
        }
        if t.starts_with("\\code") {
            in_code = true;
            current_param = None;
            body.push("```c".into());
            continue;
        }
        if let Some(rest) = t.strip_prefix("\\param") {
            in_deprecated = false;
            let (name, text) = split_param(rest);
            out.params.insert(name.clone(), text);
            current_param = Some(name);
            continue;
        }
        if t.is_empty() {
            current_param = None;
            in_deprecated = false;
            body.push(String::new());
            continue;
        }
        if let Some(p) = &current_param {
            if !t.starts_with('\\') {
                let e = out.params.entry(p.clone()).or_default();
                e.push(' ');
                e.push_str(&inline(t));
                continue;
            }
            current_param = None;
        }
        if is_grouping(t) {
            continue;
        }
        if let Some(rest) = t.strip_prefix("\\deprecated") {
            in_deprecated = true;
            out.deprecated = Some(inline(rest.trim()));
            body.push(format!("**Deprecated:** {}", inline(rest.trim())).trim_end().to_string());
            continue;
        }
        if in_deprecated {
            if let Some(d) = &mut out.deprecated {
                if !d.is_empty() {
                    d.push(' ');
                }
                d.push_str(&inline(t));
            }
        }
        body.push(block(t));
    }
    if in_code {
        body.push("```".into());
    }
    let markdown = tidy(&body);
    out.doc = Doc { brief: brief(&markdown), markdown };
    for v in out.params.values_mut() {
        *v = v.trim().to_string();
    }
    out
}

/// Comment text without `/**`, `*/`, leading `*` and `/**<`.
fn strip_markers(raw: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in raw.lines() {
        let mut l = line.trim_start();
        for p in ["/**<", "///<", "/*!<", "/**", "/*!", "/*", "///", "//"] {
            if let Some(rest) = l.strip_prefix(p) {
                l = rest;
                break;
            }
        }
        let l = l.strip_suffix("*/").unwrap_or(l);
        let l = match l.trim_start().strip_prefix('*') {
            Some(rest) if !rest.starts_with('/') => rest,
            _ => l,
        };
        lines.push(l.strip_prefix(' ').unwrap_or(l).trim_end().to_string());
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// `\param [out] name - text` -> (`name`, `[out] text`).
fn split_param(rest: &str) -> (String, String) {
    let mut rest = rest.trim();
    let mut tag = String::new();
    if rest.starts_with('[') {
        if let Some(end) = rest.find(']') {
            tag = rest[..=end].replace(' ', "");
            rest = rest[end + 1..].trim();
        }
    }
    let (name, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let text = text.trim().trim_start_matches('-').trim();
    let text = inline(text);
    let text = if tag.is_empty() { text } else { format!("{tag} {text}") };
    (name.to_string(), text)
}

/// Doxygen grouping metadata (`\ingroup query`): no text of the item, so it is dropped.
fn is_grouping(t: &str) -> bool {
    ["\\ingroup", "\\defgroup", "\\addtogroup", "\\weakgroup"]
        .iter()
        .any(|cmd| t.strip_prefix(cmd).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace)))
}

/// Block-level commands at the start of a line.
fn block(t: &str) -> String {
    let map = [
        ("\\brief", ""),
        ("\\return", "**Returns:**"),
        ("\\returns", "**Returns:**"),
        ("\\retval", "**Returns:**"),
        ("\\note", "**Note:**"),
        ("\\sa", "**See also:**"),
        ("\\see", "**See also:**"),
        ("\\details", ""),
    ];
    for (cmd, md) in map {
        if let Some(rest) = t.strip_prefix(cmd) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return format!("{md} {}", inline(rest.trim())).trim().to_string();
            }
        }
    }
    // Custom aliases NVIDIA expands in its docs build (`\notefnerr`, `\note_null_stream`).
    if let Some(rest) = t.strip_prefix('\\') {
        let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if word.starts_with("note") && rest.len() == word.len() {
            return format!("*{}*", note_alias(&word));
        }
    }
    if let Some(rest) = t.strip_prefix("- ") {
        return format!("- {}", inline(rest));
    }
    inline(t)
}

fn note_alias(word: &str) -> &'static str {
    match word {
        "notefnerr" => "Note that this function may also return error codes from previous, asynchronous launches.",
        "note_null_stream" => "This function uses standard default stream semantics.",
        "note_async" => "This function exhibits asynchronous behavior for most use cases.",
        "note_sync" => "This function exhibits synchronous behavior for most use cases.",
        "note_memcpy" => "Memcpy semantics apply (see the CUDA programming guide).",
        "note_memset" => "Memset semantics apply (see the CUDA programming guide).",
        "note_graph_thread_safety" => "Graph objects are not thread-safe.",
        "note_destroy_ub" => "Using the object after destroying it is undefined behavior.",
        "note_version_mixing" => "Mixing CUDA versions has caveats (see the CUDA programming guide).",
        _ => "See the CUDA documentation for notes on this function.",
    }
}

/// Inline commands: `\p x`, `\e x`, `\b x`, `\c x`, `::cuFoo`, `\ref x`, `\n`.
fn inline(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut words = t.split(' ').peekable();
    let mut first = true;
    while let Some(w) = words.next() {
        if !first {
            out.push(' ');
        }
        first = false;
        let styled = match w {
            "\\p" | "\\c" | "\\a" => words.next().map(code),
            "\\e" | "\\em" => words.next().map(|n| format!("*{n}*")),
            "\\b" => words.next().map(|n| format!("**{n}**")),
            "\\ref" | "\\link" => words.next().map(|n| code(n.trim_start_matches("::"))),
            "\\endlink" => Some(String::new()),
            "\\n" => Some("\n".to_string()),
            _ => None,
        };
        match styled {
            Some(s) => out.push_str(&s),
            None if w.starts_with("::") && w.len() > 2 => out.push_str(&code(&w[2..])),
            None => out.push_str(w),
        }
    }
    out
}

/// `` `name` `` keeping trailing punctuation outside.
fn code(word: &str) -> String {
    let mut end = word.trim_end_matches([',', '.', ';', ':', ')']).len();
    if word[..end].ends_with('(') && word[end..].starts_with(')') {
        end += 1; // a call, `cuFoo()`: the parenthesis belongs to the name
    }
    let (w, punct) = word.split_at(end);
    if w.is_empty() {
        return word.to_string();
    }
    format!("`{w}`{punct}")
}

/// Collapses runs of blank lines and trims.
fn tidy(lines: &[String]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for l in lines {
        if l.trim().is_empty() && out.last().is_none_or(|p| p.trim().is_empty()) {
            continue;
        }
        out.push(l);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// First sentence of the first paragraph.
fn brief(markdown: &str) -> String {
    let para: Vec<&str> = markdown.lines().take_while(|l| !l.trim().is_empty()).collect();
    let text = para.join(" ");
    match text.find(". ") {
        Some(i) => text[..=i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_style_params_and_markup() {
        let c = convert(
            "/**\n * \\brief Allocates device memory\n *\n * Allocates \\p bytesize bytes, see ::cuMemFree.\n *\n * \\param dptr     - Returned device pointer\n * \\param bytesize - Requested allocation size\n *                   in bytes\n *\n * \\return\n * ::CUDA_SUCCESS\n * \\notefnerr\n */",
        );
        assert_eq!(c.params["dptr"], "Returned device pointer");
        assert_eq!(c.params["bytesize"], "Requested allocation size in bytes");
        assert!(c.doc.markdown.starts_with("Allocates device memory\n\nAllocates `bytesize` bytes, see `cuMemFree`."));
        assert_eq!(c.doc.brief, "Allocates device memory");
        assert!(c.doc.markdown.contains("**Returns:**"));
        assert!(!c.doc.markdown.contains("\\param"));
        assert_eq!(
            inline("If 0, ::cuMemAlloc() returns ::CUDA_ERROR_INVALID_VALUE."),
            "If 0, `cuMemAlloc()` returns `CUDA_ERROR_INVALID_VALUE`."
        );
        assert_eq!(inline("(see ::cuMemFree)."), "(see `cuMemFree`).");
    }

    #[test]
    fn grouping_commands_are_not_text() {
        let c = convert("/**\n * \\ingroup query\n * \\brief   nvrtcVersion sets the output parameters.\n */");
        assert_eq!(c.doc.brief, "nvrtcVersion sets the output parameters.");
        assert!(!c.doc.markdown.contains("query"));
    }

    #[test]
    fn nvrtc_tags_are_kept_for_the_param_pass() {
        let c = convert("/**\n * \\param   [out] major CUDA Runtime Compilation major version number.\n */");
        assert_eq!(c.params["major"], "[out] CUDA Runtime Compilation major version number.");
    }

    #[test]
    fn deprecated_message() {
        let c = convert("/**\n * \\deprecated This function is deprecated as of CUDA 5.0\n * and replaced.\n */");
        assert_eq!(c.deprecated.as_deref(), Some("This function is deprecated as of CUDA 5.0 and replaced."));
    }

    #[test]
    fn trailing_member_comment() {
        let c = convert("/**< Device pointer */");
        assert_eq!(c.doc.markdown, "Device pointer");
    }
}
