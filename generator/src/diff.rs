//! What changed between the IR of two CUDA releases, as a Markdown report for reviewing a
//! header update (`cargo xtask diff 12.9 13.0`): functions added and removed, the ABI symbol
//! behind each name, parameters (name, position, type, direction, role), enum members, record
//! layouts (each field's type, offset and size; anonymous members flattened), typedefs and macros.

use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The Markdown report of `old` -> `new`.
pub fn report(old: &Api, new: &Api) -> String {
    let mut s = format!("# CUDA {} -> {}\n", old.cuda_version, new.cuda_version);
    let kinds: BTreeSet<LibraryKind> = old.libraries.iter().chain(&new.libraries).map(|l| l.kind).collect();
    let mut sections = String::new();
    s.push_str(
        "\n| library | functions | added | removed | ABI changed | parameters changed |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for kind in kinds {
        let (Some(a), Some(b)) = (old.library(kind), new.library(kind)) else {
            let _ = writeln!(
                s,
                "| {} | only in CUDA {} | | | | |",
                kind.module(),
                if old.library(kind).is_some() { &old.cuda_version } else { &new.cuda_version }
            );
            continue;
        };
        let d = LibraryDiff { old: a, new: b, old_v: &old.cuda_version, new_v: &new.cuda_version };
        let f = d.functions();
        let _ = writeln!(
            s,
            "| {} | {} -> {} | {} | {} | {} | {} |",
            kind.module(),
            a.functions.len(),
            b.functions.len(),
            f.added.len(),
            f.removed.len(),
            f.abi.len(),
            f.params.len()
        );
        let body = [f.markdown(&d), d.enums(), d.records(), d.typedefs(), d.macros()].concat();
        let _ = write!(sections, "\n## {}\n{}", kind.module(), if body.is_empty() { "\nNo changes.\n" } else { &body });
    }
    s + &sections
}

struct LibraryDiff<'a> {
    old: &'a Library,
    new: &'a Library,
    old_v: &'a str,
    new_v: &'a str,
}

/// Function changes of one library, each list sorted by name.
struct FunctionChanges<'a> {
    added: Vec<&'a Function>,
    removed: Vec<&'a Function>,
    /// Same name, another ABI symbol or version.
    abi: Vec<(&'a Function, &'a Function)>,
    /// Name -> one line per changed parameter.
    params: Vec<(&'a str, Vec<String>)>,
}

impl<'a> LibraryDiff<'a> {
    fn functions(&self) -> FunctionChanges<'a> {
        let old = by_name(&self.old.functions, |f| &f.name);
        let new = by_name(&self.new.functions, |f| &f.name);
        let mut c = FunctionChanges { added: Vec::new(), removed: Vec::new(), abi: Vec::new(), params: Vec::new() };
        c.added = new.iter().filter(|(n, _)| !old.contains_key(*n)).map(|(_, f)| *f).collect();
        c.removed = old.iter().filter(|(n, _)| !new.contains_key(*n)).map(|(_, f)| *f).collect();
        for (name, a) in &old {
            let Some(b) = new.get(name) else { continue };
            if abi(a) != abi(b) {
                c.abi.push((a, b));
            }
            let lines = params(a, b);
            if !lines.is_empty() {
                c.params.push((name, lines));
            }
        }
        c
    }

    fn enums(&self) -> String {
        let old = by_name(&self.old.enums, |e| &e.name);
        let new = by_name(&self.new.enums, |e| &e.name);
        let mut lines =
            added_removed(&old, &new, |e| format!("{} member{}", e.variants.len(), if e.variants.len() == 1 { "" } else { "s" }));
        for (name, a) in &old {
            let Some(b) = new.get(name) else { continue };
            let av: BTreeMap<&str, i64> = a.variants.iter().map(|v| (v.name.as_str(), v.value)).collect();
            let bv: BTreeMap<&str, i64> = b.variants.iter().map(|v| (v.name.as_str(), v.value)).collect();
            let mut parts = Vec::new();
            let added: Vec<String> =
                bv.iter().filter(|(n, _)| !av.contains_key(*n)).map(|(n, v)| format!("`{n}` = {v}")).collect();
            let removed: Vec<String> =
                av.iter().filter(|(n, _)| !bv.contains_key(*n)).map(|(n, v)| format!("`{n}` = {v}")).collect();
            let renumbered: Vec<String> =
                av.iter().filter_map(|(n, v)| bv.get(n).filter(|w| *w != v).map(|w| format!("`{n}` {v} -> {w}"))).collect();
            for (what, list) in [("added", added), ("removed", removed), ("renumbered", renumbered)] {
                if !list.is_empty() {
                    parts.push(format!("{what} {}", list.join(", ")));
                }
            }
            if !parts.is_empty() {
                lines.push(format!("- `{name}`: {}", parts.join("; ")));
            }
        }
        section("Enums", lines)
    }

    fn records(&self) -> String {
        let old = records(self.old);
        let new = records(self.new);
        let mut lines = added_removed(&old, &new, describe_record);
        for (name, a) in &old {
            let Some(b) = new.get(name) else { continue };
            let af = fields(self.old, a);
            let bf = fields(self.new, b);
            let mut rows = Vec::new();
            for field in af.keys().chain(bf.keys()).collect::<BTreeSet<_>>() {
                let (x, y) = (af.get(field), bf.get(field));
                if x != y {
                    let cell = |f: Option<&String>| f.map_or("—".to_string(), |t| t.clone());
                    rows.push(format!("  | `{field}` | {} | {} |", cell(x), cell(y)));
                }
            }
            if describe_record(a) != describe_record(b) {
                lines.push(format!("- `{name}`: {} -> {}", describe_record(a), describe_record(b)));
            } else if !rows.is_empty() {
                lines.push(format!("- `{name}` ({})", describe_record(b)));
            }
            if !rows.is_empty() {
                lines.push(format!("\n  | field | {} | {} |\n  |---|---|---|", self.old_v, self.new_v));
                lines.extend(rows);
                lines.push(String::new());
            }
        }
        section("Records", lines)
    }

    fn typedefs(&self) -> String {
        let old = by_name(&self.old.typedefs, |t| &t.name);
        let new = by_name(&self.new.typedefs, |t| &t.name);
        let mut lines = added_removed(&old, &new, |t| format!("`{}`", t.target.c_decl("")));
        for (name, a) in &old {
            let Some(b) = new.get(name) else { continue };
            if a.target != b.target {
                lines.push(format!("- `{name}`: `{}` -> `{}`", a.target.c_decl(""), b.target.c_decl("")));
            }
        }
        section("Typedefs", lines)
    }

    fn macros(&self) -> String {
        let old = by_name(&self.old.macros, |m| &m.name);
        let new = by_name(&self.new.macros, |m| &m.name);
        let mut lines = added_removed(&old, &new, |m| macro_value(&m.value));
        for (name, a) in &old {
            let Some(b) = new.get(name) else { continue };
            if macro_value(&a.value) != macro_value(&b.value) {
                lines.push(format!("- `{name}`: {} -> {}", macro_value(&a.value), macro_value(&b.value)));
            }
        }
        section("Macros", lines)
    }
}

impl FunctionChanges<'_> {
    fn markdown(&self, d: &LibraryDiff<'_>) -> String {
        let mut s = String::new();
        let added = self
            .added
            .iter()
            .map(|f| match d.old.functions.iter().find(|g| g.symbol == f.symbol) {
                Some(g) => format!("{}; CUDA {} called it `{}`", entry(f), d.old_v, g.name),
                None => entry(f),
            })
            .collect();
        s.push_str(&section("Functions added", added));
        let removed = self
            .removed
            .iter()
            .map(|f| match d.new.functions.iter().find(|g| g.symbol == f.symbol) {
                Some(g) => format!("- `{}`: its ABI `{}` is now behind `{}`", f.name, f.symbol, g.name),
                None => entry(f),
            })
            .collect();
        s.push_str(&section("Functions removed", removed));
        let mut abi: Vec<String> = Vec::new();
        if !self.abi.is_empty() {
            abi.push(format!("| function | {} | {} |\n|---|---|---|", d.old_v, d.new_v));
            abi.extend(self.abi.iter().map(|(a, b)| format!("| `{}` | {} | {} |", a.name, symbol(a), symbol(b))));
        }
        s.push_str(&section("ABI behind a name", abi));
        let params = self
            .params
            .iter()
            .flat_map(|(name, lines)| std::iter::once(format!("- `{name}`")).chain(lines.iter().map(|l| format!("  - {l}"))))
            .collect();
        s.push_str(&section("Parameters changed", params));
        s
    }
}

/// `### Title (n)` and its lines, or nothing when there are none.
fn section(title: &str, lines: Vec<String>) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let n = lines.iter().filter(|l| l.starts_with("- ") || l.starts_with("| `")).count();
    format!("\n### {title} ({n})\n\n{}\n", lines.join("\n").trim_end())
}

fn by_name<T>(items: &[T], name: impl Fn(&T) -> &String) -> BTreeMap<&str, &T> {
    items.iter().map(|i| (name(i).as_str(), i)).collect()
}

fn added_removed<T>(old: &BTreeMap<&str, &T>, new: &BTreeMap<&str, &T>, what: impl Fn(&T) -> String) -> Vec<String> {
    let added = new.iter().filter(|(n, _)| !old.contains_key(*n)).map(|(n, x)| format!("- added `{n}`: {}", what(x)));
    let removed = old.iter().filter(|(n, _)| !new.contains_key(*n)).map(|(n, x)| format!("- removed `{n}`: {}", what(x)));
    added.chain(removed).collect()
}

/// `12050` -> `12.5`.
fn version(v: Option<u32>) -> String {
    v.map_or("?".into(), |v| format!("{}.{}", v / 1000, v % 1000 / 10))
}

/// Every exported symbol with its ABI version.
fn abi(f: &Function) -> Vec<(&str, Option<u32>)> {
    std::iter::once((f.symbol.as_str(), f.version)).chain(f.variants.iter().map(|v| (v.symbol.as_str(), v.version))).collect()
}

/// `` `cuCtxCreate_v4` (12.5) `` (the version when known) plus its `_ptds`/`_ptsz` variants.
fn symbol(f: &Function) -> String {
    let variants: Vec<String> = f.variants.iter().map(|v| format!(" +`{}`", v.symbol)).collect();
    let v = if f.version.is_some() { format!(" ({})", version(f.version)) } else { String::new() };
    format!("`{}`{v}{}", f.symbol, variants.concat())
}

/// A list item naming a function and, when it differs from the name, its ABI symbol.
fn entry(f: &Function) -> String {
    if f.name == f.symbol {
        format!("- {}", symbol(f))
    } else {
        format!("- `{}`: {}", f.name, symbol(f))
    }
}

/// One line per parameter change; parameters pair by name, then an unpaired old and new one at
/// the same position count as a rename.
fn params(a: &Function, b: &Function) -> Vec<String> {
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let mut new_used = vec![false; b.params.len()];
    let mut old_left = Vec::new();
    for (i, p) in a.params.iter().enumerate() {
        match b.params.iter().position(|q| q.name == p.name) {
            Some(j) => {
                new_used[j] = true;
                pairs.push((Some(i), Some(j)));
            }
            None => old_left.push(i),
        }
    }
    for i in old_left {
        if b.params.get(i).is_some() && !new_used[i] {
            new_used[i] = true;
            pairs.push((Some(i), Some(i)));
        } else {
            pairs.push((Some(i), None));
        }
    }
    pairs.extend(new_used.iter().enumerate().filter(|(_, used)| !**used).map(|(j, _)| (None, Some(j))));
    pairs.sort_by_key(|&(i, j)| (j.unwrap_or(usize::MAX), i));
    let mut lines = Vec::new();
    if a.ret != b.ret {
        lines.push(format!("return type `{}` -> `{}`", a.ret.c_decl(""), b.ret.c_decl("")));
    }
    for (i, j) in pairs {
        match (i.map(|i| &a.params[i]), j.map(|j| &b.params[j])) {
            (Some(p), Some(q)) => {
                let mut changes = Vec::new();
                if p.name != q.name {
                    changes.push(format!("renamed from `{}`", p.name));
                }
                if i != j {
                    changes.push(format!("position {} -> {}", i.unwrap_or(0) + 1, j.unwrap_or(0) + 1));
                }
                if p.ty != q.ty {
                    changes.push(format!("type `{}` -> `{}`", p.ty.c_decl(""), q.ty.c_decl("")));
                }
                if p.direction != q.direction {
                    changes.push(format!("direction {} -> {}", direction(p.direction), direction(q.direction)));
                }
                if p.role != q.role || p.nullable != q.nullable {
                    changes.push(format!("role {} -> {}", role(p), role(q)));
                }
                if !changes.is_empty() {
                    lines.push(format!("`{}`: {}", q.name, changes.join("; ")));
                }
            }
            (Some(p), None) => lines.push(format!("`{}`: removed (was {}: {})", p.name, i.unwrap_or(0) + 1, describe_param(p))),
            (None, Some(q)) => lines.push(format!("`{}`: added at {}: {}", q.name, j.unwrap_or(0) + 1, describe_param(q))),
            (None, None) => {}
        }
    }
    lines
}

fn describe_param(p: &Param) -> String {
    format!("`{}`, {}, {}", p.ty.c_decl(""), direction(p.direction), role(p))
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::In => "in",
        Direction::Out => "out",
        Direction::InOut => "in/out",
    }
}

/// `out_array[len=numEdges]?` (`?`: NULL accepted): the role's serde name and its set fields,
/// so a new role variant needs nothing here.
fn role(p: &Param) -> String {
    let value = serde_json::to_value(&p.role).unwrap_or_default();
    let mut name = value.get("role").and_then(|r| r.as_str()).unwrap_or("?").to_string();
    let fields: Vec<String> = value
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| k.as_str() != "role" && !v.is_null())
        .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
        .collect();
    if !fields.is_empty() {
        name = format!("{name}[{}]", fields.join(", "));
    }
    if p.nullable {
        name.push('?');
    }
    name
}

/// Named records, without those only reached as anonymous members (flattened into their parent).
fn records(lib: &Library) -> BTreeMap<&str, &Record> {
    let inlined: BTreeSet<&str> = lib
        .records
        .iter()
        .flat_map(|r| &r.fields)
        .filter(|f| f.anonymous)
        .filter_map(|f| match &f.ty {
            Type::Named { name } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    lib.records.iter().filter(|r| !inlined.contains(r.name.as_str())).map(|r| (r.name.as_str(), r)).collect()
}

fn describe_record(r: &Record) -> String {
    let kind = match r.kind {
        RecordKind::Struct => "struct",
        RecordKind::Union => "union",
    };
    if r.complete {
        format!("{kind}, {} bytes, align {}", r.size, r.align)
    } else {
        format!("{kind}, opaque")
    }
}

/// Field name -> `` `type` @offset, size `` with anonymous members' fields reached through them.
fn fields(lib: &Library, r: &Record) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    flatten(lib, r, 0, "", &mut out, 0);
    out
}

fn flatten(lib: &Library, r: &Record, base_bits: u64, within: &str, out: &mut BTreeMap<String, String>, depth: u32) {
    for f in &r.fields {
        let at = base_bits + f.offset_bits;
        let inner = match &f.ty {
            Type::Named { name } if f.anonymous && depth < 8 => lib.record(name),
            _ => None,
        };
        if let Some(inner) = inner {
            let what = match inner.kind {
                RecordKind::Struct => "in anonymous struct",
                RecordKind::Union => "in anonymous union",
            };
            flatten(lib, inner, at, what, out, depth + 1);
            continue;
        }
        let place = match f.bit_width {
            Some(w) => format!("bit {at}, {w} bits"),
            None => format!("@{}, {}", at / 8, size_of(lib, &f.ty).map_or("? bytes".into(), |n| format!("{n} bytes"))),
        };
        let within = if within.is_empty() { String::new() } else { format!(", {within}") };
        out.insert(f.name.clone(), format!("`{}` {place}{within}", f.ty.c_decl("")));
    }
}

/// Size in bytes of a type (LP64), `None` when a name is unknown.
fn size_of(lib: &Library, ty: &Type) -> Option<u64> {
    size_in(lib, ty, 0)
}

fn size_in(lib: &Library, ty: &Type, depth: u32) -> Option<u64> {
    if depth > 32 {
        return None;
    }
    Some(match lib.resolve(ty) {
        Resolved::Prim(p) => p.size(),
        Resolved::Enum(e) => e.repr.size(),
        Resolved::Record(r) => r.size,
        Resolved::ScalarHandle(_, p) => p.size(),
        Resolved::OpaqueHandle(_) | Resolved::Callback(_) | Resolved::Pointer { .. } | Resolved::FnPtr => 8,
        Resolved::Array { elem, len } => size_in(lib, elem, depth + 1)? * len,
        Resolved::Unknown => return None,
    })
}

fn macro_value(v: &MacroValue) -> String {
    match v {
        MacroValue::Int { value, unsigned } => format!("`{value}{}`", if *unsigned { "u" } else { "" }),
        MacroValue::Float { value } => format!("`{value:?}`"),
        MacroValue::Str { value } => format!("`\"{value}\"`"),
        MacroValue::Cast { ty, value } => format!("`(({}){value})`", ty.c_decl("")),
        MacroValue::EnumConst { variant, value, .. } => format!("`{variant}` ({value})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, ty: Type) -> Param {
        crate::passes::build::param(name, ty, Role::Value)
    }

    fn function(name: &str, symbol: &str, version: u32, params: Vec<Param>) -> Function {
        Function { symbol: symbol.into(), version: Some(version), ..crate::passes::build::function(name, params) }
    }

    fn api(version: &str, functions: Vec<Function>, records: Vec<Record>, macros: Vec<MacroConst>) -> Api {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.functions = functions;
        lib.records = records;
        lib.macros = macros;
        Api { cuda_version: version.into(), libraries: vec![lib] }
    }

    use crate::passes::build::field;

    fn record(name: &str, kind: RecordKind, fields: Vec<Field>, size: u64) -> Record {
        Record { size, align: 4, ..crate::passes::build::record(name, kind, fields) }
    }

    #[test]
    fn abi_moves_renames_and_added_functions_are_reported() {
        let int = || Type::prim(Prim::Int);
        let old = api(
            "1.0",
            vec![
                function("cuA", "cuA_v2", 3020, vec![param("pctx", int()), param("flags", int()), param("dev", int())]),
                function("cuA_v4", "cuA_v4", 12050, vec![]),
                function("cuB", "cuB", 8000, vec![param("device", int())]),
            ],
            vec![],
            vec![],
        );
        let new = api(
            "2.0",
            vec![
                function(
                    "cuA",
                    "cuA_v4",
                    12050,
                    vec![param("pctx", int()), param("params", Type::named("P")), param("flags", int())],
                ),
                function("cuB", "cuB", 8000, vec![param("location", Type::named("CUmemLocation"))]),
                function("cuC", "cuC", 13000, vec![]),
            ],
            vec![],
            vec![],
        );
        let r = report(&old, &new);
        assert!(r.contains("| driver | 3 -> 3 | 1 | 1 | 1 | 2 |"), "{r}");
        assert!(r.contains("- `cuC` (13.0)\n"), "{r}");
        assert!(r.contains("- `cuA_v4`: its ABI `cuA_v4` is now behind `cuA`"), "{r}");
        assert!(r.contains("| `cuA` | `cuA_v2` (3.2) | `cuA_v4` (12.5) |"), "{r}");
        assert!(r.contains("  - `params`: added at 2: `P`, in, value"), "{r}");
        assert!(r.contains("  - `flags`: position 2 -> 3"), "{r}");
        assert!(r.contains("  - `dev`: removed (was 3: `int`, in, value)"), "{r}");
        assert!(r.contains("  - `location`: renamed from `device`; type `int` -> `CUmemLocation`"), "{r}");
        assert_eq!(report(&new, &new), "# CUDA 2.0 -> 2.0\n\n| library | functions | added | removed | ABI changed | parameters changed |\n|---|---:|---:|---:|---:|---:|\n| driver | 3 -> 3 | 0 | 0 | 0 | 0 |\n\n## driver\n\nNo changes.\n");
    }

    #[test]
    fn a_field_moved_into_an_anonymous_union_keeps_its_name() {
        let int = || Type::prim(Prim::Int);
        let old = api(
            "1.0",
            vec![],
            vec![record("Loc", RecordKind::Struct, vec![field("type", int(), 0, false), field("id", int(), 32, false)], 8)],
            vec![],
        );
        let mut anon =
            record("Loc_anon0", RecordKind::Union, vec![field("id", int(), 0, false), field("numa", int(), 0, false)], 4);
        anon.anonymous = true;
        let new_loc = record(
            "Loc",
            RecordKind::Struct,
            vec![field("type", int(), 0, false), field("anon0", Type::named("Loc_anon0"), 32, true)],
            8,
        );
        let macros = |v: i128| {
            vec![MacroConst {
                name: "M".into(),
                value: MacroValue::Int { value: v, unsigned: true },
                doc: Doc::default(),
                location: Location::default(),
            }]
        };
        let old = Api { libraries: vec![Library { macros: macros(1), ..old.libraries[0].clone() }], ..old };
        let new = api("2.0", vec![], vec![anon, new_loc], macros(2));
        let r = report(&old, &new);
        assert!(!r.contains("Loc_anon0"), "{r}");
        assert!(r.contains("| `id` | `int` @4, 4 bytes | `int` @4, 4 bytes, in anonymous union |"), "{r}");
        assert!(r.contains("| `numa` | — | `int` @4, 4 bytes, in anonymous union |"), "{r}");
        assert!(!r.contains("| `type`"), "{r}");
        assert!(r.contains("- `M`: `1u` -> `2u`"), "{r}");
    }
}
