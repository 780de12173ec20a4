//! Functions a header defines as calls of others: nvJitLink's
//! `static inline nvJitLinkResult nvJitLinkCreate(..) { return __nvJitLinkCreate_12_9(..); }`.
//!
//! The parse skips function bodies, so the body is read from the header's text at the
//! definition's line. The wrapper's name becomes the API name of the function it calls (whose ABI
//! symbol stays the versioned one, as `#define cuMemAlloc cuMemAlloc_v2` does for the driver), with
//! the wrapper's doc; the wrapper itself leaves the IR.
//!
//! A callee named `__<wrapper>_<major>_<minor>` is versioned by release: each earlier release of
//! the same major calls `__<wrapper>_<major>_<k>` (k = 0 .. minor-1), which the library keeps
//! exporting with the same prototype (libnvJitLink.so.12 of 12.9 exports `_12_0` ... `_12_9`), so
//! those names become [`VariantKind::Release`] exports of the function.
//!
//! A library older than the header lacks the versioned callee: the loader then binds the newest
//! earlier release's name the library has, else the wrapper's own (unversioned) name, which
//! libraries export too ([`Function::fallbacks`](crate::ir::Function::fallbacks)).
//!
//! A wrapper the header leaves out when a macro is defined (`#ifndef NVJITLINK_NO_INLINE` right
//! above the definition) is a function programs built with that macro call by the wrapper's own
//! name, which the library exports too: that name becomes a [`VariantKind::Wrapper`] export.

use crate::ir::{Library, SymbolVariant, VariantKind};

/// Folds every forwarding definition of `file` (whose text is `text`) into its callee.
pub fn fold(text: &str, file: &str, library: &mut Library) {
    let lines: Vec<&str> = text.lines().collect();
    // Where each line starts in `text`: a definition's text is a slice, not a copy of the rest.
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).take(lines.len()).collect();
    let mut folded = Vec::new();
    for (i, f) in library.functions.iter().enumerate() {
        if f.location.file != file || f.name != f.symbol {
            continue;
        }
        let from = (f.location.line as usize).saturating_sub(1);
        let Some(callee) = starts.get(from).and_then(|&at| callee(&text[at..])) else { continue };
        if let Some(target) =
            library.functions.iter().position(|g| g.symbol == callee && g.name == g.symbol && g.symbol != f.symbol)
        {
            folded.push((i, target));
        }
    }
    for &(wrapper, target) in &folded {
        let w = &library.functions[wrapper];
        let name = w.name.clone();
        let mut doc = w.doc.clone();
        if doc.markdown.is_empty() {
            doc.markdown = doc_above(&lines, w.location.line as usize).unwrap_or_default();
        }
        let unless = switch_above(&lines, w.location.line as usize);
        let t = &mut library.functions[target];
        let variant = |symbol, kind, unless| SymbolVariant { symbol, kind, version: None, also_named: Vec::new(), unless };
        let releases = release_names(&name, &t.symbol);
        t.fallbacks = releases.iter().rev().cloned().chain([name.clone()]).collect();
        t.variants.extend(releases.into_iter().map(|symbol| variant(symbol, VariantKind::Release, None)));
        if let Some(unless) = unless {
            t.variants.push(variant(name.clone(), VariantKind::Wrapper, Some(unless)));
        }
        t.name = name;
        if !doc.markdown.is_empty() {
            t.doc = doc;
        }
    }
    let gone: Vec<usize> = folded.iter().map(|&(w, _)| w).collect();
    let mut i = 0;
    library.functions.retain(|_| {
        i += 1;
        !gone.contains(&(i - 1))
    });
}

/// The release `__<name>_<major>_<minor>` names (`12020` for `__f_12_2`).
fn release_version(name: &str, symbol: &str) -> Option<u32> {
    let (major, minor) = symbol.strip_prefix(&format!("__{name}_"))?.split_once('_')?;
    Some(major.parse::<u32>().ok()? * 1000 + minor.parse::<u32>().ok()? * 10)
}

/// The names earlier releases of the same major give `symbol` when it is `__<name>_<major>_<minor>`
/// (`__nvJitLinkCreate_12_0` ... `_12_8` for `__nvJitLinkCreate_12_9`), oldest first.
fn release_names(name: &str, symbol: &str) -> Vec<String> {
    let Some(version) = release_version(name, symbol) else { return Vec::new() };
    let (major, minor) = (version / 1000, version % 1000 / 10);
    (0..minor).map(|k| format!("__{name}_{major}_{k}")).collect()
}

/// The macro of an `#ifndef X` / `#if !defined(X)` on the last non-blank line above 1-based line
/// `line`: the switch that leaves the definition there out.
fn switch_above(lines: &[&str], line: usize) -> Option<String> {
    let above = lines.get(..line.checked_sub(1)?)?.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty())?;
    let rest = above.strip_prefix('#')?.trim_start();
    let name = match rest.strip_prefix("ifndef") {
        Some(name) => name,
        None => rest.strip_prefix("if")?.trim_start().strip_prefix('!')?.trim_start().strip_prefix("defined")?,
    };
    let name: String = name
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The `/** .. */` block ending right above 1-based line `line`, across blank and preprocessor
/// lines (libclang does not attach a doc comment across `#ifndef NVJITLINK_NO_INLINE`).
fn doc_above(lines: &[&str], line: usize) -> Option<String> {
    let mut end = line.checked_sub(1)?;
    while end > 0 && (lines[end - 1].trim().is_empty() || lines[end - 1].trim_start().starts_with('#')) {
        end -= 1;
    }
    if end == 0 || !lines[end - 1].trim_end().ends_with("*/") {
        return None;
    }
    let start = (0..end).rev().find(|&i| lines[i].trim_start().starts_with("/**"))?;
    Some(lines[start..end].join("\n"))
}

/// The function a definition starting at the head of `text` returns a call of: the identifier
/// after `return` when the body (`{`) comes before any `;` (else it is a prototype).
fn callee(text: &str) -> Option<String> {
    let body = text.find('{')?;
    if text.find(';').is_some_and(|semi| semi < body) {
        return None;
    }
    let after = text[body..].split_once("return")?.1.trim_start();
    let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::{callee, doc_above, release_names, release_version, switch_above};

    #[test]
    fn the_switch_leaving_a_definition_out_is_the_macro_of_the_line_above() {
        let text = ["#ifndef NO_INLINE", "static inline int f(void)", "", "#if !defined( OFF )", " ", "int g(void)", "#ifdef ON"];
        assert_eq!(switch_above(&text, 2).as_deref(), Some("NO_INLINE"));
        assert_eq!(switch_above(&text, 6).as_deref(), Some("OFF"));
        assert_eq!(switch_above(&text, 8), None, "#ifdef puts it in, not out");
        assert_eq!(switch_above(&text, 3), None, "a definition, not a switch, is above");
        assert_eq!(switch_above(&text, 1), None);
    }

    #[test]
    fn a_release_versioned_symbol_has_the_names_of_the_earlier_releases_of_its_major() {
        assert_eq!(
            release_names("nvJitLinkCreate", "__nvJitLinkCreate_12_3"),
            ["__nvJitLinkCreate_12_0", "__nvJitLinkCreate_12_1", "__nvJitLinkCreate_12_2"]
        );
        assert!(release_names("nvJitLinkCreate", "__nvJitLinkCreate_13_0").is_empty());
        assert!(release_names("f", "__f_v2").is_empty());
        assert!(release_names("f", "__g_12_3").is_empty());
        assert_eq!(release_version("f", "__f_12_0"), Some(12000));
        assert_eq!(release_version("f", "__f_13_5"), Some(13050));
        assert_eq!(release_version("f", "__f_v2"), None);
    }

    #[test]
    fn the_doc_block_above_a_definition_crosses_preprocessor_lines() {
        let text = ["extern int g(void);", "/**", " * \\brief B", " */", "#ifndef X", "static inline int f(void)"];
        assert_eq!(doc_above(&text, 6).as_deref(), Some("/**\n * \\brief B\n */"));
        assert_eq!(doc_above(&text, 2), None);
    }

    #[test]
    fn reads_the_called_function_of_a_definition_only() {
        let def = "static inline int f(int *h, // note\n  int n)\n{\n  return __f_12_9 (h, n);\n}\n";
        assert_eq!(callee(def).as_deref(), Some("__f_12_9"));
        assert_eq!(callee("extern int g(int a);\nstatic inline int f() { return g(1); }"), None);
        assert_eq!(callee("static inline void f(void) { }"), None);
    }
}
