//! Enums -> `#[repr(transparent)]` newtypes with associated consts (unknown values stay
//! representable), `name()` and `Debug` by C name.

use super::docs;
use super::types::{prim, repr_literal};
use crate::ir::{Enum, Library};
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Serialize)]
pub(super) struct EnumView {
    pub name: String,
    pub tag: Option<String>,
    pub repr: String,
    pub doc: Vec<String>,
    pub is_flags: bool,
    pub variants: Vec<VariantView>,
    /// One arm per distinct value (the first C name wins), for `name()`.
    pub arms: Vec<ArmView>,
    /// The library's status enum (gets `description()` in `error.rs`).
    pub is_status: bool,
}

#[derive(Serialize)]
pub(super) struct VariantView {
    pub c_name: String,
    pub name: String,
    pub literal: String,
    pub doc: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct ArmView {
    pub literal: String,
    pub c_name: String,
    /// Plain-text description (the doc's first paragraph) as a Rust string literal.
    pub description: String,
}

pub(super) fn view(lib: &Library, e: &Enum) -> EnumView {
    let variants = e
        .variants
        .iter()
        .zip(const_names(e))
        .map(|(v, name)| VariantView {
            c_name: v.name.clone(),
            name,
            literal: repr_literal(e.repr, v.value),
            doc: docs::lines(&v.doc),
        })
        .collect();
    let mut seen = BTreeSet::new();
    let arms = e
        .variants
        .iter()
        .filter(|v| seen.insert(v.value))
        .map(|v| ArmView {
            literal: repr_literal(e.repr, v.value),
            c_name: v.name.clone(),
            description: docs::str_literal(&description(&v.doc.markdown, &v.doc.brief)),
        })
        .collect();
    EnumView {
        name: e.name.clone(),
        tag: e.tag.clone().filter(|t| t != &e.name),
        repr: prim(e.repr).to_string(),
        doc: docs::lines(&e.doc),
        is_flags: e.is_flags,
        variants,
        arms,
        is_status: lib.status_enum.as_deref() == Some(e.name.as_str()),
    }
}

/// The associated const name of each variant: the naming pass's name, `_`-prefixed when it starts
/// with a digit, the C name when two variants would shorten to the same const.
pub(super) fn const_names(e: &Enum) -> Vec<String> {
    let mut seen = BTreeSet::new();
    e.variants
        .iter()
        .map(|v| {
            let mut name = v.names.rust.clone();
            if name.starts_with(|c: char| c.is_ascii_digit()) {
                name = format!("_{name}");
            }
            if !seen.insert(name.clone()) {
                name = v.name.clone();
                seen.insert(name.clone());
            }
            name
        })
        .collect()
}

/// First paragraph of a doc as one plain line.
fn description(markdown: &str, brief: &str) -> String {
    let para = markdown.split("\n\n").next().unwrap_or("");
    let text = if para.trim().is_empty() { brief } else { para };
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('`', "")
}
