//! Object-like macros: API-name aliases (`#define cuMemAlloc cuMemAlloc_v2`, `__CUDA_API_PTDS`)
//! and constants (`CUDA_VERSION`, `CU_LAUNCH_PARAM_END`, `CU_STREAM_LEGACY`).

use crate::clang::{Cursor, CursorKind, Token, TokenKind};
use crate::ir::*;

pub fn collect(top: &[Cursor<'_>], main_file: &str, library: &mut Library) {
    let defs: Vec<(Cursor<'_>, Vec<Token>)> = top
        .iter()
        .filter(|c| c.kind() == CursorKind::MacroDefinition && c.location().file == main_file)
        .filter(|c| !c.is_function_like_macro())
        .map(|c| (*c, c.tokens()))
        .collect();
    for (c, tokens) in &defs {
        let Some((name, body)) = tokens.split_first() else { continue };
        let name = &name.text;
        if body.is_empty() || name.starts_with('_') {
            continue;
        }
        if alias(name, body, library) {
            continue;
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

/// `#define api abi` and `#define api __CUDA_API_PTDS(abi)`: records the API name and variant.
fn alias(api: &str, body: &[Token], library: &mut Library) -> bool {
    let texts: Vec<&str> = body.iter().map(|t| t.text.as_str()).collect();
    let (abi, variant) = match texts.as_slice() {
        [abi] => (*abi, None),
        ["__CUDA_API_PTDS", "(", abi, ")"] => (*abi, Some(VariantKind::Ptds)),
        ["__CUDA_API_PTSZ", "(", abi, ")"] => (*abi, Some(VariantKind::Ptsz)),
        _ => return false,
    };
    let Some(f) = library.functions.iter_mut().find(|f| f.symbol == abi) else {
        return variant.is_some();
    };
    f.name = api.to_string();
    if let Some(kind) = variant {
        add_variant(f, kind);
    }
    true
}

fn add_variant(f: &mut Function, kind: VariantKind) {
    let suffix = match kind {
        VariantKind::Ptds => "_ptds",
        VariantKind::Ptsz => "_ptsz",
    };
    let symbol = format!("{}{suffix}", f.symbol);
    if !f.variants.iter().any(|v| v.symbol == symbol) {
        f.variants.push(SymbolVariant { symbol, kind, version: None });
    }
}

/// Per-thread variants mapped only under `#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)`
/// (`#define cuLaunchKernel __CUDA_API_PTSZ(cuLaunchKernel)`): libclang skips that block, since
/// the header is parsed without the define, so its `#define` lines are read from the text. Only
/// the variant is recorded; API names come from the active definitions.
pub fn per_thread_from_text(text: &str, library: &mut Library) {
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define") else { continue };
        let body: String = rest.split_whitespace().skip(1).collect();
        let (kind, inner) = if let Some(b) = body.strip_prefix("__CUDA_API_PTDS(") {
            (VariantKind::Ptds, b)
        } else if let Some(b) = body.strip_prefix("__CUDA_API_PTSZ(") {
            (VariantKind::Ptsz, b)
        } else {
            continue;
        };
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
                        return Some(MacroValue::EnumConst { enum_name: e.name.clone(), variant: v.name.clone(), value: v.value });
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
        (pos == toks.len()).then_some(v)
    }

    fn binary(&self, toks: &[Token], pos: &mut usize, min_prec: u8) -> Option<(i128, bool)> {
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
            let v = match op {
                "|" => lhs.0 | rhs.0,
                "^" => lhs.0 ^ rhs.0,
                "&" => lhs.0 & rhs.0,
                "<<" => lhs.0.checked_shl(rhs.0 as u32)?,
                ">>" => lhs.0.checked_shr(rhs.0 as u32)?,
                "+" => lhs.0.checked_add(rhs.0)?,
                "-" => lhs.0.checked_sub(rhs.0)?,
                "*" => lhs.0.checked_mul(rhs.0)?,
                "/" => lhs.0.checked_div(rhs.0)?,
                _ => lhs.0.checked_rem(rhs.0)?,
            };
            lhs = (v, lhs.1 || rhs.1);
        }
        Some(lhs)
    }

    fn unary(&self, toks: &[Token], pos: &mut usize) -> Option<(i128, bool)> {
        let t = toks.get(*pos)?;
        *pos += 1;
        match t.text.as_str() {
            "-" => self.unary(toks, pos).map(|(v, u)| (-v, u)),
            "+" => self.unary(toks, pos),
            "~" => self.unary(toks, pos).map(|(v, u)| (!v, u)),
            "(" => {
                let v = self.binary(toks, pos, 0)?;
                (toks.get(*pos)?.text == ")").then(|| *pos += 1)?;
                Some(v)
            }
            _ if t.kind == TokenKind::Literal => int_literal(&t.text),
            _ if t.kind == TokenKind::Ident => self.reference(&t.text),
            _ => None,
        }
    }

    /// An earlier integer macro or an enum constant.
    fn reference(&self, name: &str) -> Option<(i128, bool)> {
        if let Some(m) = self.library.macros.iter().find(|m| m.name == name) {
            return match &m.value {
                MacroValue::Int { value, unsigned } => Some((*value, *unsigned)),
                MacroValue::EnumConst { value, .. } => Some((*value as i128, false)),
                _ => None,
            };
        }
        self.library.enums.iter().flat_map(|e| &e.variants).find(|v| v.name == name).map(|v| (v.value as i128, false))
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
