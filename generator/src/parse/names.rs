//! Public names of records and enums: the first typedef that names a tag wins
//! (`typedef enum cudaError_enum {..} CUresult` -> `CUresult`), else the tag.

use super::Files;
use crate::clang::{Cursor, CursorKind, TyKind};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone)]
pub struct PublicNames {
    /// Declaration USR -> public name.
    by_usr: BTreeMap<String, String>,
    /// Typedef names absorbed as the public name of their record/enum.
    absorbed: BTreeSet<String>,
}

impl PublicNames {
    pub fn collect(top: &[Cursor<'_>], files: &Files) -> Self {
        let mut by_usr = BTreeMap::new();
        let mut absorbed = BTreeSet::new();
        for c in top.iter().filter(|c| files.declares(c)) {
            if c.kind() != CursorKind::Typedef {
                continue;
            }
            let mut under = c.typedef_underlying();
            if under.kind() == TyKind::Elaborated {
                under = under.named();
            }
            if !matches!(under.kind(), TyKind::Record | TyKind::Enum) {
                continue;
            }
            let decl = under.declaration();
            let usr = decl.usr();
            if let std::collections::btree_map::Entry::Vacant(e) = by_usr.entry(usr) {
                e.insert(c.spelling());
                absorbed.insert(c.spelling());
            }
        }
        PublicNames { by_usr, absorbed }
    }

    /// Public name of a record/enum declaration (tag when no typedef names it).
    pub fn of(&self, decl: &Cursor<'_>) -> Option<String> {
        if let Some(n) = self.by_usr.get(&decl.usr()) {
            return Some(n.clone());
        }
        let tag = decl.spelling();
        (!tag.is_empty() && !decl.is_anonymous() && !tag.contains(' ')).then_some(tag)
    }

    /// Records a synthesized name for an anonymous nested record.
    pub fn insert(&mut self, decl: &Cursor<'_>, name: String) {
        self.by_usr.insert(decl.usr(), name);
    }

    /// True for a typedef that only gives a record/enum its public name.
    pub fn is_absorbed(&self, typedef: &str) -> bool {
        self.absorbed.contains(typedef)
    }
}
