//! bindgen as an independent second parse of the same NVIDIA headers, with the same libclang
//! arguments (hermetic libc stubs, `cudagen_generator::clang_args`). Its output, read with
//! `syn`, must agree with our IR and with the generated raw layer on every function prototype
//! (each parameter and the return type after typedefs), every record's size, alignment, field
//! offsets and field types, every enum constant and every `#define` both expose. Any difference
//! fails the test naming the item.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Api, Function, Library, MacroValue, Prim, Record, SymbolVariant, Type, TypedefKind, VariantKind};
use cudagen_generator::HeaderSet;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use syn::{Expr, Item, Lit};

fn headers_dir(root: &Path) -> PathBuf {
    std::env::var_os("CUDAGEN_HEADERS_DIR").map(Into::into).unwrap_or_else(|| root.join(".cache/headers/12.9"))
}

/// A C type after typedefs, spelled the same whichever side it comes from: base C types as the
/// stubs define them (`uint64_t` is `unsigned long`), `*const T`, `[T; n]`, `fn(..) -> R`,
/// `enum TAG`, `rec TAG` (`rec <anon>` for records without a C name).
type Canon = String;

fn prim_canon(p: Prim) -> &'static str {
    match p {
        Prim::Void => "void",
        Prim::Bool => "_Bool",
        Prim::Char => "char",
        Prim::SChar | Prim::I8 => "signed char",
        Prim::UChar | Prim::U8 => "unsigned char",
        Prim::Short | Prim::I16 => "short",
        Prim::UShort | Prim::U16 => "unsigned short",
        Prim::Int | Prim::I32 => "int",
        Prim::UInt | Prim::U32 => "unsigned int",
        Prim::Long | Prim::I64 | Prim::IntPtr => "long",
        Prim::ULong | Prim::U64 | Prim::SizeT | Prim::UIntPtr => "unsigned long",
        Prim::LongLong => "long long",
        Prim::ULongLong => "unsigned long long",
        Prim::Float => "float",
        Prim::Double => "double",
    }
}

/// Rust spellings of C's base types, in bindgen's output and ours.
fn rust_prim(ident: &str) -> Option<&'static str> {
    Some(match ident {
        "c_void" => "void",
        "bool" => "_Bool",
        "c_char" => "char",
        "c_schar" | "i8" => "signed char",
        "c_uchar" | "u8" => "unsigned char",
        "c_short" | "i16" => "short",
        "c_ushort" | "u16" => "unsigned short",
        "c_int" | "i32" => "int",
        "c_uint" | "u32" => "unsigned int",
        "c_long" | "i64" | "isize" => "long",
        "c_ulong" | "u64" | "usize" => "unsigned long",
        "c_longlong" => "long long",
        "c_ulonglong" => "unsigned long long",
        "c_float" | "f32" => "float",
        "c_double" | "f64" => "double",
        _ => return None,
    })
}

fn fn_canon(params: impl Iterator<Item = Canon>, ret: Canon) -> Canon {
    format!("fn({}) -> {ret}", params.collect::<Vec<_>>().join(", "))
}

/// The C name bindgen gives a record or enum: its tag, or the typedef of an unnamed one.
fn c_name(tag: &Option<String>, name: &str) -> String {
    tag.clone().unwrap_or_else(|| name.to_string())
}

fn ir_canon(lib: &Library, ty: &Type) -> Canon {
    match ty {
        Type::Prim { prim } => prim_canon(*prim).into(),
        Type::Pointer { pointee, is_const } => {
            format!("*{} {}", if *is_const { "const" } else { "mut" }, ir_canon(lib, pointee))
        }
        Type::Array { elem, len } => format!("[{}; {len}]", ir_canon(lib, elem)),
        Type::FnPtr { ret, params } => fn_canon(params.iter().map(|p| ir_canon(lib, p)), ir_canon(lib, ret)),
        Type::Named { name } => {
            if let Some(e) = lib.enum_named(name) {
                return format!("enum {}", c_name(&e.tag, &e.name));
            }
            if let Some(t) = lib.typedef(name) {
                return match &t.kind {
                    TypedefKind::Callback { ret, params } => {
                        fn_canon(params.iter().map(|p| ir_canon(lib, &p.ty)), ir_canon(lib, ret))
                    }
                    _ => ir_canon(lib, &t.target),
                };
            }
            match lib.record(name) {
                Some(r) if r.anonymous => "rec <anon>".into(),
                Some(r) => format!("rec {}", c_name(&r.tag, &r.name)),
                None => format!("rec {name}"),
            }
        }
    }
}

fn int_of(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => int_of(&u.expr).map(|v| -v),
        Expr::Paren(p) => int_of(&p.expr),
        Expr::Group(g) => int_of(&g.expr),
        _ => None,
    }
}

#[derive(Debug, PartialEq)]
enum ConstVal {
    Int(i128),
    Float(f64),
    Str(String),
}

fn const_of(e: &Expr) -> Option<ConstVal> {
    if let Some(i) = int_of(e) {
        return Some(ConstVal::Int(i));
    }
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Float(f) => f.base10_parse().ok().map(ConstVal::Float),
            Lit::ByteStr(b) => {
                let v = b.value();
                Some(ConstVal::Str(String::from_utf8_lossy(v.strip_suffix(b"\0").unwrap_or(&v)).into_owned()))
            }
            Lit::CStr(c) => Some(ConstVal::Str(c.value().to_string_lossy().into_owned())),
            Lit::Str(s) => Some(ConstVal::Str(s.value())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match const_of(&u.expr)? {
            ConstVal::Float(f) => Some(ConstVal::Float(-f)),
            _ => None,
        },
        _ => None,
    }
}

/// `T` of `Option<T>` (nullable function pointers).
fn option_arg(path: &syn::Path) -> Option<&syn::Type> {
    let last = path.segments.last()?;
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if last.ident == "Option" => match a.args.first()? {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn last_ident(path: &syn::Path) -> String {
    path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

/// What bindgen said, read from its Rust output.
#[derive(Default)]
struct Bindgen {
    /// `pub type X = T;` and `pub use self::a::Type as X;`
    aliases: HashMap<String, syn::Type>,
    /// Struct and union fields, in order (`_unused` alone for incomplete ones).
    records: HashMap<String, Vec<(String, syn::Type)>>,
    enum_modules: BTreeSet<String>,
    /// Enum constant -> (enum, value).
    enum_consts: BTreeMap<String, (String, i128)>,
    /// Symbol -> (parameter types, return type).
    fns: BTreeMap<String, (Vec<syn::Type>, Option<syn::Type>)>,
    /// Top-level constants: bindgen's macros.
    consts: BTreeMap<String, ConstVal>,
    /// `size X`, `align X`, `offset X.f` from bindgen's layout tests.
    layout: BTreeMap<String, u64>,
    /// bindgen's name of a tagged record declared inside another (`Parent_Tag`) -> its C tag.
    nested: HashMap<String, String>,
}

impl Bindgen {
    fn run(header: &Path, args: &[String]) -> String {
        bindgen::Builder::default()
            .header(header.to_string_lossy())
            .clang_args(args)
            .default_enum_style(bindgen::EnumVariation::ModuleConsts)
            .layout_tests(true)
            .generate_comments(false)
            .generate()
            .unwrap_or_else(|e| panic!("bindgen failed on {}: {e}", header.display()))
            .to_string()
    }

    fn read(&mut self, text: &str) {
        let file = syn::parse_file(text).expect("bindgen's output parses");
        for item in file.items {
            self.item(item);
        }
    }

    fn item(&mut self, item: Item) {
        match item {
            Item::Type(t) => {
                self.aliases.insert(t.ident.to_string(), *t.ty);
            }
            Item::Use(u) => {
                if let syn::UseTree::Path(p) = &u.tree {
                    self.use_tree(&mut vec![p.ident.to_string()], &p.tree);
                }
            }
            Item::Struct(s) => {
                let fields = s.fields.iter().map(|f| (f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(), f.ty.clone()));
                self.records.insert(s.ident.to_string(), fields.collect());
            }
            Item::Union(u) => {
                let fields =
                    u.fields.named.iter().map(|f| (f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(), f.ty.clone()));
                self.records.insert(u.ident.to_string(), fields.collect());
            }
            Item::Mod(m) => {
                let name = m.ident.to_string();
                for inner in m.content.map(|c| c.1).unwrap_or_default() {
                    if let Item::Const(c) = inner {
                        let v = int_of(&c.expr).unwrap_or_else(|| panic!("enum {name}: constant {} is not an integer", c.ident));
                        self.enum_consts.insert(c.ident.to_string(), (name.clone(), v));
                    }
                }
                self.enum_modules.insert(name);
            }
            Item::ForeignMod(f) => {
                for fi in f.items {
                    if let syn::ForeignItem::Fn(func) = fi {
                        let params = func
                            .sig
                            .inputs
                            .iter()
                            .map(|a| match a {
                                syn::FnArg::Typed(p) => (*p.ty).clone(),
                                syn::FnArg::Receiver(_) => panic!("receiver in an extern block"),
                            })
                            .collect();
                        let ret = match func.sig.output {
                            syn::ReturnType::Default => None,
                            syn::ReturnType::Type(_, t) => Some(*t),
                        };
                        self.fns.insert(func.sig.ident.to_string(), (params, ret));
                    }
                }
            }
            Item::Const(c) if c.ident == "_" => self.layout_tests(&c.expr),
            Item::Const(c) => {
                if let Some(v) = const_of(&c.expr) {
                    self.consts.insert(c.ident.to_string(), v);
                }
            }
            _ => {}
        }
    }

    /// C gives a tagged struct declared inside another record file scope under its own tag;
    /// bindgen names it `Parent_Tag`. Files those under the C tag.
    fn adopt_nested(&mut self, c_names: impl Iterator<Item = String>) {
        for c_name in c_names {
            if self.records.contains_key(&c_name) {
                continue;
            }
            let suffix = format!("_{c_name}");
            let found: Vec<String> = self.records.keys().filter(|k| k.ends_with(&suffix)).cloned().collect();
            let [bg_name] = found.as_slice() else { continue };
            let fields = self.records[bg_name].clone();
            self.records.insert(c_name.clone(), fields);
            let moved: Vec<(String, u64)> = self
                .layout
                .iter()
                .filter_map(|(k, v)| {
                    let (kind, rest) = k.split_once(' ')?;
                    let rest = rest.strip_prefix(bg_name.as_str())?;
                    (rest.is_empty() || rest.starts_with('.')).then(|| (format!("{kind} {c_name}{rest}"), *v))
                })
                .collect();
            self.layout.extend(moved);
            self.nested.insert(bg_name.clone(), c_name);
        }
    }

    fn use_tree(&mut self, path: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                path.push(p.ident.to_string());
                self.use_tree(path, &p.tree);
            }
            syn::UseTree::Rename(r) => {
                path.push(r.ident.to_string());
                let full: Vec<&str> = path.iter().map(String::as_str).filter(|s| *s != "self").collect();
                let ty: syn::Type = syn::parse_str(&full.join("::")).expect("a use path is a type path");
                self.aliases.insert(r.rename.to_string(), ty);
            }
            _ => {}
        }
    }

    /// `const _: () = { ["Size of X"][size_of::<X>() - 24usize]; ... };`
    fn layout_tests(&mut self, e: &Expr) {
        let Expr::Block(b) = e else { return };
        for stmt in &b.block.stmts {
            let syn::Stmt::Expr(Expr::Index(ix), _) = stmt else { continue };
            let Expr::Array(a) = &*ix.expr else { continue };
            let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) = a.elems.first() else { continue };
            let Expr::Binary(bin) = &*ix.index else { continue };
            let Some(value) = int_of(&bin.right) else { continue };
            let label = s.value();
            let key = if let Some(r) = label.strip_prefix("Size of ") {
                format!("size {r}")
            } else if let Some(r) = label.strip_prefix("Alignment of ") {
                format!("align {r}")
            } else if let Some(r) = label.strip_prefix("Offset of field: ") {
                format!("offset {}", r.replacen("::", ".", 1))
            } else {
                continue;
            };
            self.layout.insert(key, value as u64);
        }
    }

    fn canon(&self, ty: &syn::Type) -> Canon {
        match ty {
            syn::Type::Ptr(p) => {
                let m = if matches!(p.mutability, syn::PointerMutability::Const(_)) { "const" } else { "mut" };
                format!("*{m} {}", self.canon(&p.elem))
            }
            syn::Type::Array(a) => format!("[{}; {}]", self.canon(&a.elem), int_of(&a.len).expect("array length")),
            syn::Type::Paren(p) => self.canon(&p.elem),
            syn::Type::Group(g) => self.canon(&g.elem),
            syn::Type::FnPtr(f) => fn_canon(
                f.inputs.iter().map(|a| self.canon(&a.ty)),
                match &f.output {
                    syn::ReturnType::Default => "void".into(),
                    syn::ReturnType::Type(_, t) => self.canon(t),
                },
            ),
            syn::Type::Path(p) => {
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let last = segs.last().cloned().unwrap_or_default();
                if let Some(inner) = option_arg(&p.path) {
                    return self.canon(inner);
                }
                if let Some(c_name) = self.nested.get(&last) {
                    return format!("rec {c_name}");
                }
                if last == "Type" && segs.len() >= 2 && self.enum_modules.contains(&segs[segs.len() - 2]) {
                    return format!("enum {}", segs[segs.len() - 2]);
                }
                if let Some(p) = rust_prim(&last) {
                    return p.into();
                }
                if let Some(t) = self.aliases.get(&last) {
                    return self.canon(t);
                }
                if self.records.contains_key(&last) {
                    return if last.contains("__bindgen_ty_") { "rec <anon>".into() } else { format!("rec {last}") };
                }
                format!("?{}", segs.join("::"))
            }
            other => format!("?{}", quote_type(other)),
        }
    }
}

fn quote_type(t: &syn::Type) -> String {
    use quote::ToTokens;
    t.to_token_stream().to_string()
}

/// bindgen's spelling of a C field name (`type` -> `type_`).
fn rust_field(name: &str) -> String {
    if syn::parse_str::<syn::Ident>(name).is_ok() {
        name.to_string()
    } else {
        format!("{name}_")
    }
}

/// Differences found, and how many facts were compared.
#[derive(Default)]
struct Report {
    diffs: Vec<String>,
    compared: BTreeMap<&'static str, usize>,
}

impl Report {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, what: &'static str, item: &str, ours: T, bindgen: T) {
        *self.compared.entry(what).or_default() += 1;
        if ours != bindgen {
            self.diffs.push(format!("{what} {item}: ours {ours:?}, bindgen {bindgen:?}"));
        }
    }
    fn missing(&mut self, what: &str, item: &str, side: &str) {
        self.diffs.push(format!("{what} {item}: missing in {side}"));
    }
}

/// Each exported symbol of `f` with the symbol whose prototype the header declares for it: the
/// names of earlier releases and of the inline wrapper (`VariantKind::Release` / `Wrapper`) are
/// exported with the ABI symbol's prototype and declared nowhere, so they are compared with it.
fn declared_symbols(f: &Function) -> impl Iterator<Item = (&str, &str)> {
    let own = |v: &SymbolVariant| !matches!(v.kind, VariantKind::Release | VariantKind::Wrapper);
    std::iter::once((f.symbol.as_str(), f.symbol.as_str()))
        .chain(f.variants.iter().map(move |v| (v.symbol.as_str(), if own(v) { v.symbol.as_str() } else { f.symbol.as_str() })))
}

fn compare_functions(lib: &Library, bg: &Bindgen, rep: &mut Report) {
    for f in &lib.functions {
        let ours_params: Vec<Canon> = f.params.iter().map(|p| ir_canon(lib, &p.ty)).collect();
        let ours_ret = ir_canon(lib, &f.ret);
        for (sym, declared) in declared_symbols(f) {
            let Some((params, ret)) = bg.fns.get(declared) else {
                rep.missing("function", sym, "bindgen");
                continue;
            };
            let theirs: Vec<Canon> = params.iter().map(|t| bg.canon(t)).collect();
            rep.check("parameter lists", sym, ours_params.len(), theirs.len());
            for (i, (o, t)) in ours_params.iter().zip(&theirs).enumerate() {
                rep.check("parameter types", &format!("{sym}#{i} ({})", f.params[i].name), o, t);
            }
            let theirs_ret = ret.as_ref().map_or_else(|| "void".to_string(), |t| bg.canon(t));
            rep.check("return types", sym, &ours_ret, &theirs_ret);
        }
    }
}

/// Size, alignment, offsets and field types of `r` (bindgen's `bg_name`); anonymous nested
/// records are matched through the parent's field and compared the same way.
fn compare_record(lib: &Library, r: &Record, bg_name: &str, bg: &Bindgen, rep: &mut Report) {
    let Some(fields) = bg.records.get(bg_name) else {
        rep.missing("record", &format!("{} ({bg_name})", r.name), "bindgen");
        return;
    };
    rep.check("record sizes", &r.name, Some(r.size), bg.layout.get(&format!("size {bg_name}")).copied());
    rep.check("record alignments", &r.name, Some(r.align), bg.layout.get(&format!("align {bg_name}")).copied());
    let mut anon = 0;
    for f in &r.fields {
        assert!(f.bit_width.is_none(), "{}.{}: bitfields are not compared; extend the oracle", r.name, f.name);
        let bg_field = if f.anonymous {
            anon += 1;
            format!("__bindgen_anon_{anon}")
        } else {
            rust_field(&f.name)
        };
        let item = format!("{}.{}", r.name, f.name);
        let Some((_, bg_ty)) = fields.iter().find(|(n, _)| *n == bg_field) else {
            rep.missing("field", &item, "bindgen");
            continue;
        };
        // bindgen writes no offset test for an anonymous member; its fields' offsets are
        // compared inside it (gcc checks them from the parent in layout_oracle.rs).
        if !f.anonymous {
            let theirs = bg.layout.get(&format!("offset {bg_name}.{bg_field}")).copied();
            rep.check("field offsets", &item, Some(f.offset_bits / 8), theirs);
        }
        rep.check("field types", &item, ir_canon(lib, &f.ty), bg.canon(bg_ty));
        // Follow anonymous records (and arrays of them) into bindgen's `__bindgen_ty_N`.
        let (mut ours, mut theirs) = (&f.ty, bg_ty);
        while let (Type::Array { elem, .. }, syn::Type::Array(a)) = (ours, theirs) {
            (ours, theirs) = (elem, &a.elem);
        }
        if let (Type::Named { name }, syn::Type::Path(p)) = (ours, theirs) {
            if let Some(inner) = lib.record(name).filter(|i| i.anonymous) {
                compare_record(lib, inner, &last_ident(&p.path), bg, rep);
            }
        }
    }
    let ours_count = r.fields.len();
    rep.check("field counts", &r.name, ours_count, fields.len());
}

fn compare_library(lib: &Library, bg: &Bindgen, rep: &mut Report) {
    compare_functions(lib, bg, rep);
    for r in lib.records.iter().filter(|r| r.complete && !r.anonymous) {
        compare_record(lib, r, &c_name(&r.tag, &r.name), bg, rep);
    }
    let mut ours_consts = BTreeSet::new();
    for e in &lib.enums {
        let module = c_name(&e.tag, &e.name);
        if !bg.enum_modules.contains(&module) {
            rep.missing("enum", &module, "bindgen");
        }
        for v in &e.variants {
            ours_consts.insert(v.name.clone());
            match bg.enum_consts.get(&v.name) {
                Some((m, value)) => {
                    rep.check("enum constants", &v.name, (module.as_str(), v.value as i128), (m.as_str(), *value))
                }
                None => rep.missing("enum constant", &v.name, "bindgen"),
            }
        }
    }
    for (name, (m, _)) in &bg.enum_consts {
        let ours_enum = lib.enums.iter().any(|e| c_name(&e.tag, &e.name) == *m);
        if ours_enum && !ours_consts.contains(name) {
            rep.missing("enum constant", name, "our IR");
        }
    }
    for m in &lib.macros {
        let ours = match &m.value {
            MacroValue::Int { value, .. } => ConstVal::Int(*value),
            MacroValue::Float { value } => ConstVal::Float(*value),
            MacroValue::Str { value } => ConstVal::Str(value.clone()),
            // bindgen drops casts and names of enum constants; both are checked by gcc
            // (layout_oracle.rs) and the C shim's ABI probe.
            MacroValue::Cast { .. } | MacroValue::EnumConst { .. } => continue,
        };
        match bg.consts.get(&m.name) {
            Some(theirs) => rep.check("macros", &m.name, &ours, theirs),
            None => rep.missing("macro", &m.name, "bindgen"),
        }
    }
    let only_bindgen: Vec<&String> = bg.consts.keys().filter(|k| !lib.macros.iter().any(|m| &m.name == *k)).collect();
    if !only_bindgen.is_empty() {
        println!("bindgen oracle: {} constants only bindgen has: {only_bindgen:?}", only_bindgen.len());
    }
}

/// Our raw layer (`generated/rust/src/cuda12/<module>/`) against bindgen: every `sys` prototype, every
/// integer `#define` constant, every enum constant the typed enums name.
/// The signature of a public raw entry point: a `pub fn` item, or the head of a `raw_fn!`
/// invocation (`#[attrs] fn name(params) -> ret = index; ...`).
fn raw_signature(item: &Item) -> Option<syn::Signature> {
    match item {
        Item::Fn(f) if matches!(f.vis, syn::Visibility::Public(_)) => Some(f.sig.clone()),
        Item::Macro(m) if m.mac.path.is_ident("raw_fn") => {
            let head = |input: syn::parse::ParseStream| {
                input.call(syn::Attribute::parse_outer)?;
                let sig: syn::Signature = input.parse()?;
                // The rest (`= index; helpers ...; trace ...`) is not part of the prototype.
                input.step(|cursor| {
                    let mut rest = *cursor;
                    while let Some((_, next)) = rest.token_tree() {
                        rest = next;
                    }
                    Ok(((), rest))
                })?;
                Ok(sig)
            };
            Some(m.mac.parse_body_with(head).unwrap_or_else(|e| panic!("raw_fn! invocation: {e}")))
        }
        _ => None,
    }
}

fn compare_raw_layer(root: &Path, lib: &Library, bg: &Bindgen, rep: &mut Report) {
    let dir = root.join("generated/rust/src/cuda12").join(lib.kind.module());
    let parse = |rel: &str| -> Option<syn::File> {
        let text = std::fs::read_to_string(dir.join(rel)).ok()?;
        Some(syn::parse_file(&text).unwrap_or_else(|e| panic!("{rel}: {e}")))
    };
    // Rust names of the generated types -> the IR type they print.
    let mut by_rust: HashMap<String, Type> = HashMap::new();
    for t in &lib.typedefs {
        by_rust.insert(t.names.rust.clone(), Type::named(&t.name));
        by_rust.insert(t.name.clone(), Type::named(&t.name));
    }
    for e in &lib.enums {
        by_rust.insert(e.names.rust.clone(), Type::named(&e.name));
    }
    for r in &lib.records {
        by_rust.insert(r.names.rust.clone(), Type::named(&r.name));
    }
    let ours_canon = |ty: &syn::Type| -> Canon {
        // Our own spelling: the same shapes as bindgen's, names resolved through the IR.
        fn go(ty: &syn::Type, by_rust: &HashMap<String, Type>, lib: &Library) -> Canon {
            match ty {
                syn::Type::Ptr(p) => {
                    let m = if matches!(p.mutability, syn::PointerMutability::Const(_)) { "const" } else { "mut" };
                    format!("*{m} {}", go(&p.elem, by_rust, lib))
                }
                syn::Type::Array(a) => format!("[{}; {}]", go(&a.elem, by_rust, lib), int_of(&a.len).expect("array length")),
                syn::Type::FnPtr(f) => fn_canon(
                    f.inputs.iter().map(|a| go(&a.ty, by_rust, lib)),
                    match &f.output {
                        syn::ReturnType::Default => "void".into(),
                        syn::ReturnType::Type(_, t) => go(t, by_rust, lib),
                    },
                ),
                syn::Type::Path(p) => {
                    let last = last_ident(&p.path);
                    if let Some(inner) = option_arg(&p.path) {
                        return go(inner, by_rust, lib);
                    }
                    if let Some(prim) = rust_prim(&last) {
                        return prim.into();
                    }
                    by_rust.get(&last).map_or_else(|| format!("?{last}"), |t| ir_canon(lib, t))
                }
                syn::Type::Paren(p) => go(&p.elem, by_rust, lib),
                other => format!("?{}", quote_type(other)),
            }
        }
        go(ty, &by_rust, lib)
    };

    let symbols: BTreeMap<&str, &str> = lib.functions.iter().flat_map(declared_symbols).collect();
    let sys = parse("sys.rs").expect("sys.rs exists");
    let mut seen = BTreeSet::new();
    for item in &sys.items {
        let Some(sig) = raw_signature(item) else { continue };
        let name = sig.ident.to_string();
        let Some(declared) = symbols.get(name.as_str()) else { continue };
        seen.insert(name.clone());
        let Some((params, ret)) = bg.fns.get(*declared) else {
            rep.missing("sys function", &name, "bindgen");
            continue;
        };
        let ours: Vec<Canon> = sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(p) => ours_canon(&p.ty),
                syn::FnArg::Receiver(_) => "?self".into(),
            })
            .collect();
        let theirs: Vec<Canon> = params.iter().map(|t| bg.canon(t)).collect();
        rep.check("sys prototypes", &name, &ours, &theirs);
        let ours_ret = match &sig.output {
            syn::ReturnType::Default => "void".to_string(),
            syn::ReturnType::Type(_, t) if matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty()) => "void".to_string(),
            syn::ReturnType::Type(_, t) => ours_canon(t),
        };
        let theirs_ret = ret.as_ref().map_or_else(|| "void".to_string(), |t| bg.canon(t));
        rep.check("sys return types", &name, ours_ret, theirs_ret);
    }
    for s in symbols.keys() {
        if !seen.contains(*s) {
            rep.missing("sys function", s, "generated sys.rs");
        }
    }

    // `pub const NAME: c_int = 12090;`
    if let Some(consts) = parse("types/consts.rs") {
        for item in &consts.items {
            let Item::Const(c) = item else { continue };
            let (Some(v), Some(theirs)) = (const_of(&c.expr), bg.consts.get(&c.ident.to_string())) else { continue };
            rep.check("sys macro constants", &c.ident.to_string(), &v, theirs);
        }
    }
    // `impl X { pub const fn name(self) -> Option<&str> { match self.0 { 1 => Some("C_NAME"), .. } } }`
    if let Some(enums) = parse("types/enums.rs") {
        for item in &enums.items {
            let Item::Impl(imp) = item else { continue };
            for ii in &imp.items {
                let syn::ImplItem::Fn(f) = ii else { continue };
                if f.sig.ident != "name" {
                    continue;
                }
                for stmt in &f.block.stmts {
                    let syn::Stmt::Expr(Expr::Match(m), _) = stmt else { continue };
                    for arm in &m.arms {
                        let syn::Pat::Lit(pl) = &arm.pat else { continue };
                        let Some(value) = int_of(&Expr::Lit(pl.clone())) else { continue };
                        let Expr::Call(call) = &*arm.body else { continue };
                        let Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) = call.args.first() else { continue };
                        let c_name = s.value();
                        match bg.enum_consts.get(&c_name) {
                            Some((_, theirs)) => rep.check("sys enum constants", &c_name, value, *theirs),
                            None => rep.missing("sys enum constant", &c_name, "bindgen"),
                        }
                    }
                }
            }
        }
    }
}

/// A header including every header the library was read from (`cuda.h`, `cudaTypedefs.h`, the
/// interop and profiler headers, each after the graphics headers it needs), so bindgen sees what
/// our parser saw.
fn umbrella(lib: &cudagen_generator::ir::Library) -> PathBuf {
    let path = std::env::temp_dir().join(format!("cudagen-bindgen-{}-{:?}.h", std::process::id(), lib.kind));
    let text: String = lib
        .headers
        .iter()
        .flat_map(|h| h.includes.iter().chain(std::iter::once(&h.file)))
        .map(|f| format!("#include <{f}>\n"))
        .collect();
    std::fs::write(&path, text).expect("write the umbrella header");
    path
}

#[test]
fn bindgen_agrees_with_the_ir_and_the_raw_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let dir = headers_dir(&root);
    if !dir.join("cuda.h").exists() || std::env::var_os("LIBCLANG_PATH").is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI must have the 12.9 headers and LIBCLANG_PATH");
        println!("skipped: no 12.9 headers at {} or no LIBCLANG_PATH (run `cargo xtask test`)", dir.display());
        return;
    }
    let ann = Annotations::load(cudagen_generator::ir::LibraryKind::all()).unwrap();
    let api: Api =
        cudagen_generator::build_api(&HeaderSet { cuda_version: "12.9".into(), include_dir: dir.clone() }, &ann).unwrap();
    let args = cudagen_generator::clang_args(&dir).unwrap();

    let mut rep = Report::default();
    for lib in &api.libraries {
        let mut bg = Bindgen::default();
        let main = umbrella(lib);
        bg.read(&Bindgen::run(&main, &args));
        if lib.functions.iter().any(|f| !f.variants.is_empty()) {
            // The per-thread-stream symbols (`_ptds`, `_ptsz`): the header's own switch.
            let mut ptds = Bindgen::default();
            let mut args = args.clone();
            args.push("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1".into());
            ptds.read(&Bindgen::run(&main, &args));
            for (sym, proto) in ptds.fns {
                bg.fns.entry(sym).or_insert(proto);
            }
        }
        bg.adopt_nested(lib.records.iter().filter(|r| r.complete && !r.anonymous).map(|r| c_name(&r.tag, &r.name)));
        compare_library(lib, &bg, &mut rep);
        compare_raw_layer(&root, lib, &bg, &mut rep);
    }

    let total: usize = rep.compared.values().sum();
    for (what, n) in &rep.compared {
        println!("bindgen oracle: {n:>6} {what}");
    }
    println!("bindgen oracle: {total} items compared, {} differences", rep.diffs.len());
    assert!(rep.diffs.is_empty(), "{} differences between bindgen and cudagen:\n{}", rep.diffs.len(), rep.diffs.join("\n"));
}
