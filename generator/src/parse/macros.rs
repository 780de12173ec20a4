//! Object-like macros: API-name aliases (`#define cuMemAlloc cuMemAlloc_v2`, `__CUDA_API_PTDS`)
//! and constants (`CUDA_VERSION`, `CU_LAUNCH_PARAM_END`, `CU_STREAM_LEGACY`).

use super::Files;
use crate::clang::{Cursor, CursorKind, Token, TokenKind};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

pub fn collect(top: &[Cursor<'_>], files: &Files, library: &mut Library) {
    let defs: Vec<(Cursor<'_>, Vec<Token>)> = top
        .iter()
        .filter(|c| c.kind() == CursorKind::MacroDefinition && files.declares(c))
        .filter(|c| !c.is_function_like_macro())
        .map(|c| (*c, c.tokens()))
        .collect();
    // Attribute macros defined empty anywhere (`__device__` in crt/host_defines.h).
    let empty: BTreeSet<String> = top
        .iter()
        .filter(|c| c.kind() == CursorKind::MacroDefinition && !c.is_function_like_macro())
        .filter_map(|c| match c.tokens().as_slice() {
            [name] => Some(name.text.clone()),
            _ => None,
        })
        .collect();
    collect_defs(&defs, &empty, library);
    tidy_also_named(library);
}

fn collect_defs(defs: &[(Cursor<'_>, Vec<Token>)], empty: &BTreeSet<String>, library: &mut Library) {
    for (c, tokens) in defs {
        let Some((name, body)) = tokens.split_first() else { continue };
        let name = &name.text;
        if body.is_empty() || name.starts_with('_') {
            continue;
        }
        if alias(name, body, library) || type_alias(c, name, body, library) {
            continue;
        }
        if let [t] = body {
            if empty.contains(&t.text) {
                continue; // an attribute marker (`#define CUDART_DEVICE __device__`), no value
            }
        }
        let value = Eval { library }.value(body);
        match value {
            Some(value) => library.macros.push(MacroConst {
                name: name.clone(),
                value,
                doc: Doc { brief: String::new(), markdown: c.raw_comment().unwrap_or_default() },
                location: c.location(),
            }),
            None => library.skipped.push(Skipped {
                name: name.clone(),
                what: "macro".into(),
                reason: format!(
                    "not a constant expression: `{}`",
                    body.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ")
                ),
                location: c.location(),
            }),
        }
    }
}

/// Drops the constants of `file` that it `#undef`s after defining them (CUDA 13.1's
/// `RESOURCE_ABI_VERSION` exists only inside cuda.h). `text` is the file's text, `skipped` the
/// line ranges the preprocessor skipped (an `#undef` there does not count).
pub fn drop_undefined(library: &mut Library, file: &str, text: &str, skipped: &[(u32, u32)]) {
    let undefs = undefs(text, skipped);
    library.macros.retain(|m| m.location.file != file || undefs.get(&m.name).is_none_or(|&line| line <= m.location.line));
}

/// Name -> line of its last `#undef` outside the `skipped` line ranges.
fn undefs(text: &str, skipped: &[(u32, u32)]) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        if skipped.iter().any(|&(first, last)| (first..=last).contains(&n)) {
            continue;
        }
        let Some(rest) = line.trim_start().strip_prefix('#') else { continue };
        let rest = rest.trim_start().strip_prefix("undef").filter(|r| r.starts_with([' ', '\t']));
        if let Some(name) = rest.and_then(|r| r.split_whitespace().next()) {
            out.insert(name.to_string(), n);
        }
    }
    out
}

/// `#define api abi` and `#define api __CUDA_API_PTDS(abi)`: records the API name and variant.
/// A define mapping an ABI symbol to itself (`#define cuStreamGetCaptureInfo_v2
/// __CUDA_API_PTSZ(cuStreamGetCaptureInfo_v2)`) only adds the variant: the API name stays the one
/// another define gave (`cuStreamGetCaptureInfo`), so no `_vN` name reaches users through it.
/// A versioned alias of a function the library leaves out (`cuGLCtxCreate_v2`) is consumed too.
fn alias(api: &str, body: &[Token], library: &mut Library) -> bool {
    let texts: Vec<&str> = body.iter().map(|t| t.text.as_str()).collect();
    let (abi, variant) = match texts.as_slice() {
        [abi] => (*abi, None),
        [m, "(", abi, ")"] => match per_thread_macro(m) {
            Some(kind) => (*abi, Some(kind)),
            None => return false,
        },
        _ => return false,
    };
    let Some(f) = library.functions.iter_mut().find(|f| f.symbol == abi) else {
        return variant.is_some() || (abi != api && super::versions::proc_name(abi) == api);
    };
    if api != abi {
        f.name = api.to_string();
    }
    if let Some(kind) = variant {
        let symbol = add_variant(f, kind);
        if api == abi {
            let v = f.variants.iter_mut().find(|v| v.symbol == symbol).expect("added above");
            if !v.also_named.iter().any(|n| n == api) {
                v.also_named.push(api.to_string());
            }
        }
    }
    true
}

/// `#define cudaStreamAttrID cudaLaunchAttributeID`: a type's second name, recorded as a typedef
/// of it (as cuda.h's `typedef CUlaunchAttributeID CUstreamAttrID`).
fn type_alias(c: &Cursor<'_>, name: &str, body: &[Token], library: &mut Library) -> bool {
    let [t] = body else { return false };
    let target = t.text.clone();
    let kind = if library.enum_named(&target).is_some() {
        TypedefKind::EnumAlias { target: target.clone() }
    } else if library.records.iter().any(|r| r.name == target) {
        TypedefKind::RecordAlias { target: target.clone() }
    } else if library.typedef(&target).is_some() {
        TypedefKind::Alias
    } else {
        return false;
    };
    library.typedefs.push(Typedef {
        name: name.to_string(),
        target: Type::Named { name: target },
        kind,
        doc: Doc { brief: String::new(), markdown: c.raw_comment().unwrap_or_default() },
        location: c.location(),
        names: Names::default(),
    });
    true
}

/// Drops `also_named` entries that are the function's own API name (`cuStreamGetCtx_v2`).
fn tidy_also_named(library: &mut Library) {
    for f in &mut library.functions {
        let name = f.name.clone();
        for v in &mut f.variants {
            v.also_named.retain(|n| *n != name);
        }
    }
}

/// The variant a per-thread naming macro adds: the driver's `__CUDA_API_PTDS` /
/// `__CUDA_API_PTSZ`, the runtime's `__CUDART_API_PTDS` / `__CUDART_API_PTSZ`.
fn per_thread_macro(name: &str) -> Option<VariantKind> {
    match name {
        "__CUDA_API_PTDS" | "__CUDART_API_PTDS" => Some(VariantKind::Ptds),
        "__CUDA_API_PTSZ" | "__CUDART_API_PTSZ" => Some(VariantKind::Ptsz),
        _ => None,
    }
}

/// Records the `_ptds`/`_ptsz` export of `f` (once); returns its symbol.
fn add_variant(f: &mut Function, kind: VariantKind) -> String {
    let symbol = format!("{}{}", f.symbol, kind.per_thread_suffix().unwrap_or_default());
    if !f.variants.iter().any(|v| v.symbol == symbol) {
        f.variants.push(SymbolVariant { symbol: symbol.clone(), kind, version: None, also_named: Vec::new(), unless: None });
    }
    symbol
}

/// Per-thread variants mapped only under `#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)`
/// (`#define cuLaunchKernel __CUDA_API_PTSZ(cuLaunchKernel)`): libclang skips that block, since
/// the header is parsed without the define, so its `#define` lines are read from the text. Only
/// the variant is recorded; API names come from the active definitions.
pub fn per_thread_from_text(text: &str, library: &mut Library) {
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define") else { continue };
        let body: String = rest.split_whitespace().skip(1).collect();
        let Some((m, inner)) = body.split_once('(') else { continue };
        let Some(kind) = per_thread_macro(m) else { continue };
        let Some(abi) = inner.strip_suffix(')') else { continue };
        if let Some(f) = library.functions.iter_mut().find(|f| f.symbol == abi) {
            add_variant(f, kind);
        }
    }
}

/// A tiny constant-expression evaluator: literals, casts, unary and binary integer operators,
/// references to earlier macros and enum constants.
struct Eval<'a> {
    library: &'a Library,
}

impl Eval<'_> {
    fn value(&self, toks: &[Token]) -> Option<MacroValue> {
        if let [t] = toks {
            if t.kind == TokenKind::Literal && t.text.starts_with('"') {
                return Some(MacroValue::Str { value: t.text.trim_matches('"').to_string() });
            }
            if t.kind == TokenKind::Ident {
                for e in &self.library.enums {
                    if let Some(v) = e.variants.iter().find(|v| v.name == t.text) {
                        return Some(MacroValue::EnumConst {
                            enum_name: e.name.clone(),
                            variant: v.name.clone(),
                            value: v.value,
                        });
                    }
                }
            }
        }
        let toks = strip_parens(toks);
        // `(T)expr` or `(T*)expr`.
        if let Some((ty, rest)) = self.cast(toks) {
            let (value, _) = self.int(rest)?;
            return Some(MacroValue::Cast { ty, value });
        }
        if let [t] = toks {
            if let Some(f) = float_literal(&t.text) {
                return Some(MacroValue::Float { value: f });
            }
        }
        let (value, unsigned) = self.int(toks)?;
        Some(MacroValue::Int { value, unsigned })
    }

    fn cast<'t>(&self, toks: &'t [Token]) -> Option<(Type, &'t [Token])> {
        if toks.first()?.text != "(" {
            return None;
        }
        let close = toks.iter().position(|t| t.text == ")")?;
        let inner = &toks[1..close];
        let (base, stars) = match inner {
            [b, rest @ ..] if rest.iter().all(|t| t.text == "*") => (b, rest.len()),
            _ => return None,
        };
        let mut ty = match base.text.as_str() {
            "void" => Type::prim(Prim::Void),
            "int" => Type::prim(Prim::Int),
            "unsigned" => Type::prim(Prim::UInt),
            n if base.kind == TokenKind::Ident && self.is_type(n) => Type::named(n),
            _ => return None,
        };
        for _ in 0..stars {
            ty = Type::ptr(ty, false);
        }
        (close + 1 < toks.len()).then(|| (ty, &toks[close + 1..]))
    }

    fn is_type(&self, n: &str) -> bool {
        self.library.typedef(n).is_some() || self.library.enum_named(n).is_some() || self.library.record(n).is_some()
    }

    /// Integer expression with precedence climbing over `| ^ & << >> + - * / %`.
    fn int(&self, toks: &[Token]) -> Option<(i128, bool)> {
        let mut pos = 0;
        let v = self.binary(toks, &mut pos, 0)?;
        (pos == toks.len()).then_some((v.value, v.unsigned))
    }

    fn binary(&self, toks: &[Token], pos: &mut usize, min_prec: u8) -> Option<CInt> {
        let mut lhs = self.unary(toks, pos)?;
        while let Some(op) = toks.get(*pos).map(|t| t.text.as_str()) {
            let prec = match op {
                "|" => 1,
                "^" => 2,
                "&" => 3,
                "<<" | ">>" => 4,
                "+" | "-" => 5,
                "*" | "/" | "%" => 6,
                _ => break,
            };
            if prec < min_prec {
                break;
            }
            *pos += 1;
            let rhs = self.binary(toks, pos, prec + 1)?;
            let (a, b) = (lhs.value, rhs.value);
            let v = match op {
                "|" => a | b,
                "^" => a ^ b,
                "&" => a & b,
                "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
                ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
                "+" => a.checked_add(b)?,
                "-" => a.checked_sub(b)?,
                "*" => a.checked_mul(b)?,
                "/" => a.checked_div(b)?,
                _ => a.checked_rem(b)?,
            };
            // A shift has its left operand's type; the others the usual arithmetic conversions'.
            let ty = if matches!(op, "<<" | ">>") { lhs } else { lhs.common(rhs) };
            lhs = ty.with(v);
        }
        Some(lhs)
    }

    fn unary(&self, toks: &[Token], pos: &mut usize) -> Option<CInt> {
        let t = toks.get(*pos)?;
        *pos += 1;
        match t.text.as_str() {
            "-" => self.unary(toks, pos).map(|v| v.with(-v.value)),
            "+" => self.unary(toks, pos),
            "~" => self.unary(toks, pos).map(|v| v.with(!v.value)),
            "(" => {
                let v = self.binary(toks, pos, 0)?;
                (toks.get(*pos)?.text == ")").then(|| *pos += 1)?;
                Some(v)
            }
            _ if t.kind == TokenKind::Literal => CInt::parse(&t.text),
            _ if t.kind == TokenKind::Ident => self.reference(&t.text),
            _ => None,
        }
    }

    /// An earlier integer macro or an enum constant.
    fn reference(&self, name: &str) -> Option<CInt> {
        if let Some(m) = self.library.macros.iter().find(|m| m.name == name) {
            return match &m.value {
                MacroValue::Int { value, unsigned } => Some(CInt::literal(*value, *unsigned)),
                MacroValue::EnumConst { value, .. } => Some(CInt::literal(*value as i128, false)),
                _ => None,
            };
        }
        let v = self.library.enums.iter().flat_map(|e| &e.variants).find(|v| v.name == name)?;
        Some(CInt::literal(v.value as i128, false))
    }
}

/// An integer constant with its C type (LP64): `int`/`unsigned int`, or 64-bit `long`.
/// Results wrap to their type's width, as C computes them: `~0u` is `0xffffffff`, not -1.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CInt {
    value: i128,
    unsigned: bool,
    wide: bool,
}

impl CInt {
    /// A literal with the type C gives it: the first of int, unsigned int (with a `u` suffix
    /// or written in hex/octal), long, unsigned long that holds the value.
    fn parse(text: &str) -> Option<CInt> {
        let (value, unsigned) = int_literal(text)?;
        let lower = text.to_ascii_lowercase();
        let decimal = !lower.starts_with('0') || lower.trim_end_matches(['u', 'l']) == "0";
        let long = lower.trim_start_matches(|c: char| c != 'l').starts_with('l');
        let fits = |wide: bool, unsigned: bool| match (wide, unsigned) {
            (false, false) => i32::try_from(value).is_ok(),
            (false, true) => u32::try_from(value).is_ok(),
            (true, false) => i64::try_from(value).is_ok(),
            (true, true) => u64::try_from(value).is_ok(),
        };
        [(false, false), (false, true), (true, false), (true, true)]
            .into_iter()
            .filter(|&(wide, u)| (wide || !long) && (u || !unsigned) && (!u || unsigned || !decimal || wide))
            .find(|&(wide, u)| fits(wide, u))
            .map(|(wide, unsigned)| CInt { value, unsigned, wide })
    }

    /// A value of another constant: `int`, or `unsigned`/64-bit as its value needs.
    fn literal(value: i128, unsigned: bool) -> CInt {
        let wide = if unsigned { u32::try_from(value).is_err() } else { i32::try_from(value).is_err() };
        CInt { value, unsigned, wide }
    }

    /// The usual arithmetic conversions of two operands (a 64-bit long holds every `unsigned int`).
    fn common(self, other: CInt) -> CInt {
        let wide = self.wide || other.wide;
        let unsigned = match (self.wide, other.wide) {
            (a, b) if a == b => self.unsigned || other.unsigned,
            (true, false) => self.unsigned,
            _ => other.unsigned,
        };
        CInt { value: 0, unsigned, wide }
    }

    /// `value` wrapped to this type's width.
    fn with(self, value: i128) -> CInt {
        let bits = if self.wide { 64 } else { 32 };
        let low = value & ((1i128 << bits) - 1);
        let value = if self.unsigned || low < (1i128 << (bits - 1)) { low } else { low - (1i128 << bits) };
        CInt { value, ..self }
    }
}

fn strip_parens(mut toks: &[Token]) -> &[Token] {
    while toks.len() >= 2 && toks[0].text == "(" && toks[toks.len() - 1].text == ")" && balanced(&toks[1..toks.len() - 1]) {
        toks = &toks[1..toks.len() - 1];
    }
    toks
}

fn balanced(toks: &[Token]) -> bool {
    let mut depth = 0i32;
    for t in toks {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// `0x10u`, `12090`, `1ULL`: value and whether it is unsigned.
fn int_literal(text: &str) -> Option<(i128, bool)> {
    let lower = text.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    let unsigned = lower[digits.len()..].contains('u');
    let value = if let Some(hex) = digits.strip_prefix("0x") {
        i128::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i128::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some((value, unsigned))
}

fn float_literal(text: &str) -> Option<f64> {
    if !text.contains('.') && !text.contains(['e', 'E']) || text.starts_with("0x") {
        return None;
    }
    text.trim_end_matches(['f', 'F', 'l', 'L']).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Option<(i128, bool)> {
        let toks: Vec<Token> = text
            .split(' ')
            .map(|t| Token {
                kind: if t.chars().next().is_some_and(|c| c.is_ascii_digit()) { TokenKind::Literal } else { TokenKind::Punct },
                text: t.to_string(),
            })
            .collect();
        Eval { library: &Library::new(crate::profile::kind("driver")) }.int(&toks)
    }

    #[test]
    fn undefs_are_found_with_their_last_line() {
        let text = "#define A 1\n#undef A\n  #  undef B // x\n#undefine C\n#undef A\n#if 0\n#undef D\n#endif\n";
        let u = undefs(text, &[(6, 8)]);
        assert_eq!(u.into_iter().collect::<Vec<_>>(), [("A".to_string(), 5), ("B".to_string(), 3)]);
        let mut lib = Library::new(crate::profile::kind("driver"));
        for (name, file, line) in [("A", "cuda.h", 1), ("A", "cuda.h", 6), ("B", "other.h", 1), ("D", "cuda.h", 1)] {
            let location = Location { file: file.into(), line };
            lib.macros.push(MacroConst {
                name: name.into(),
                value: MacroValue::Int { value: 1, unsigned: false },
                doc: Doc::default(),
                location,
            });
        }
        drop_undefined(&mut lib, "cuda.h", text, &[(6, 8)]);
        let kept: Vec<(&str, u32)> = lib.macros.iter().map(|m| (m.name.as_str(), m.location.line)).collect();
        assert_eq!(kept, [("A", 6), ("B", 1), ("D", 1)]);
    }

    #[test]
    fn integer_results_wrap_to_their_c_type() {
        assert_eq!(eval("~ 0u"), Some((0xffff_ffff, true)));
        assert_eq!(eval("~ 0"), Some((-1, false)));
        assert_eq!(eval("- 1"), Some((-1, false)));
        assert_eq!(eval("- 1u"), Some((0xffff_ffff, true)));
        assert_eq!(eval("~ 0ull"), Some((u64::MAX as i128, true)));
        assert_eq!(eval("1ull << 63"), Some((1i128 << 63, true)));
        assert_eq!(eval("0x80000000"), Some((0x8000_0000, true)));
        assert_eq!(eval("2147483648"), Some((0x8000_0000, false)));
        assert_eq!(eval("- 2147483648"), Some((-0x8000_0000, false)));
        assert_eq!(eval("0 - 0x80000000"), Some((0x8000_0000, true)));
        assert_eq!(eval("1 << 31"), Some((i32::MIN as i128, false)));
        assert_eq!(eval("( 1 << 4 ) | 0x1u"), Some((0x11, true)));
    }
}
