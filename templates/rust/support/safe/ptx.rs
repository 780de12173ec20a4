//! Kernel parameter layouts read from PTX text: each `.entry`'s parameter list, laid out by the
//! PTX parameter-space rules (each parameter at the next multiple of its alignment: the
//! `.align` before its type, else its type's size; its size is the type's size times the array
//! length), the layout the driver's `cuFuncGetParamInfo` reports.
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items. Pure: no
//! driver call, no `unsafe`. A module loaded from PTX seeds its kernels' launch caches with these
//! layouts, so their first checked launch asks the driver nothing about parameters (below CUDA
//! 13.2 that question ends with an error the driver reports past the last parameter).
//!
//! The reader is conservative: an entry whose parameter list holds anything it does not know
//! (a type such as `.texref`, an attribute, a missing size, a number out of range) is left out,
//! and so is a name declared twice with different lists; text that is not PTX gives no entry.
//! It never panics. A kernel left out is read from the driver as before.

use std::collections::BTreeMap;

/// A kernel parameter as the driver reports it: byte offset in the parameter buffer and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    pub offset: usize,
    pub size: usize,
}

/// Larger parameters or parameter lists than this are not believed (the driver's limit is
/// 32764 bytes of parameters).
const MAX_BYTES: usize = 1 << 20;

/// The parameter layout of every `.entry` of `ptx` this reader understands, sorted by name.
pub fn ptx_kernel_params(ptx: &[u8]) -> Vec<(String, Box<[ParamInfo]>)> {
    // `None`: a list not understood, or a name declared twice with different lists.
    let mut found: BTreeMap<String, Option<Box<[ParamInfo]>>> = BTreeMap::new();
    let mut tokens = Tokens { s: ptx, i: 0 };
    while let Some(t) = tokens.next() {
        if t != b".entry" {
            continue;
        }
        let Some(name) = tokens.next().filter(|n| is_name(n)) else { continue };
        let params = param_list(&mut tokens);
        // Tokens are ASCII, so a name is always UTF-8.
        let seen = found.entry(String::from_utf8_lossy(name).into_owned()).or_insert_with(|| params.clone());
        if *seen != params {
            *seen = None;
        }
    }
    found.into_iter().filter_map(|(n, p)| Some((n, p?))).collect()
}

/// After an entry's name: `( .param ..., ... )`, or nothing (a kernel without parameters).
fn param_list(tokens: &mut Tokens<'_>) -> Option<Box<[ParamInfo]>> {
    let mut peek = tokens.clone();
    match peek.next()? {
        b"(" => *tokens = peek,
        // No list: the body or a performance directive (`.maxntid`) follows.
        t if t == b"{" || t.starts_with(b".") => return Some(Box::new([])),
        _ => return None,
    }
    let mut params = Vec::new();
    let mut end = 0usize;
    let mut peek = tokens.clone();
    if peek.next() == Some(b")") {
        *tokens = peek;
        return Some(Box::new([]));
    }
    loop {
        let (size, align, closing) = param(tokens)?;
        let offset = end.checked_next_multiple_of(align)?;
        end = offset.checked_add(size).filter(|&e| e <= MAX_BYTES)?;
        params.push(ParamInfo { offset, size });
        if closing == b")" {
            return Some(params.into_boxed_slice());
        }
    }
}

/// One `.param [.align N] .type [.ptr [.space] [.align N]] name[[N]]` and the token after it
/// (`,` or `)`): its size and alignment.
fn param<'a>(tokens: &mut Tokens<'a>) -> Option<(usize, usize, &'a [u8])> {
    if tokens.next()? != b".param" {
        return None;
    }
    let (mut align, mut elem, mut ptr) = (None, None, false);
    loop {
        let t = tokens.next()?;
        match t {
            b".align" => {
                let n = number(tokens.next()?).filter(|n| n.is_power_of_two())?;
                // After `.ptr`, `.align` is the pointee's alignment, not the parameter's.
                if !ptr {
                    if align.is_some() {
                        return None;
                    }
                    align = Some(n);
                }
            }
            b".ptr" if elem.is_some() && !ptr => ptr = true,
            b".global" | b".const" | b".local" | b".shared" if ptr => {}
            _ if type_size(t).is_some() && elem.is_none() => elem = type_size(t),
            _ if is_name(t) && elem.is_some() => break,
            _ => return None,
        }
    }
    let elem = elem?;
    let mut count = 1;
    let mut next = tokens.next()?;
    if next == b"[" {
        count = number(tokens.next()?).filter(|&n| n > 0)?;
        if tokens.next()? != b"]" {
            return None;
        }
        next = tokens.next()?;
    }
    let size = elem.checked_mul(count).filter(|&s| s <= MAX_BYTES)?;
    matches!(next, b"," | b")").then_some((size, align.unwrap_or(elem), next))
}

/// Bytes of a PTX fundamental type a parameter may have.
fn type_size(t: &[u8]) -> Option<usize> {
    Some(match t {
        b".b8" | b".u8" | b".s8" => 1,
        b".b16" | b".u16" | b".s16" | b".f16" | b".bf16" => 2,
        b".b32" | b".u32" | b".s32" | b".f32" | b".f16x2" | b".bf16x2" => 4,
        b".b64" | b".u64" | b".s64" | b".f64" => 8,
        b".b128" => 16,
        _ => return None,
    })
}

/// A decimal or `0x` hexadecimal number.
fn number(t: &[u8]) -> Option<usize> {
    let text = core::str::from_utf8(t).ok()?;
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => usize::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// An identifier (not a directive, a number or punctuation).
fn is_name(t: &[u8]) -> bool {
    t.first().is_some_and(|&c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%'))
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'%')
}

/// PTX tokens: words (directives, names, numbers) and single punctuation bytes; comments and
/// string literals are skipped.
#[derive(Clone)]
struct Tokens<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            let rest = self.s.get(self.i..)?;
            let &c = rest.first()?;
            let skip = match c {
                0 => return None,
                _ if c.is_ascii_whitespace() => 1,
                b'/' if rest.get(1) == Some(&b'/') => rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len()),
                b'/' if rest.get(1) == Some(&b'*') => find(&rest[2..], b"*/").map_or(rest.len(), |p| p + 4),
                b'"' => rest[1..].iter().position(|&b| b == b'"').map_or(rest.len(), |p| p + 2),
                _ => {
                    let n = if is_word(c) { rest.iter().position(|&b| !is_word(b)).unwrap_or(rest.len()) } else { 1 };
                    self.i += n;
                    return Some(&rest[..n]);
                }
            };
            self.i += skip;
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(ptx: &str) -> Vec<(String, Vec<(usize, usize)>)> {
        ptx_kernel_params(ptx.as_bytes()).into_iter().map(|(n, p)| (n, p.iter().map(|p| (p.offset, p.size)).collect())).collect()
    }

    fn one(ptx: &str) -> Option<Vec<(usize, usize)>> {
        let mut all = layout(ptx);
        assert!(all.len() <= 1, "{all:?}");
        all.pop().map(|(_, p)| p)
    }

    #[test]
    fn scalars_are_aligned_to_their_size() {
        let ptx = ".visible .entry k(\n\t.param .u8 k_param_0,\n\t.param .u16 k_param_1,\n\t.param .u32 k_param_2,\n\t\
                   .param .u8 k_param_3,\n\t.param .f64 k_param_4,\n\t.param .b128 k_param_5\n)\n{\n\tret;\n}\n";
        assert_eq!(one(ptx), Some(vec![(0, 1), (2, 2), (4, 4), (8, 1), (16, 8), (32, 16)]));
    }

    #[test]
    fn arrays_take_their_alignment() {
        let ptx = ".entry s(.param .align 4 .b8 s_param_0[12], .param .u8 b, .param .align 8 .b8 w[24], .param .b32 v[3])";
        assert_eq!(one(ptx), Some(vec![(0, 12), (12, 1), (16, 24), (40, 12)]));
        let hex = ".entry h(.param .align 0x10 .b8 p[0x20])";
        assert_eq!(one(hex), Some(vec![(0, 32)]));
    }

    #[test]
    fn pointer_attributes_do_not_change_the_layout() {
        let ptx = ".visible .entry p(\n .param .u32 n,\n .param .u64 .ptr .global .align 16 x,\n .param .u64 .ptr .align 1 y\n)";
        assert_eq!(one(ptx), Some(vec![(0, 4), (8, 8), (16, 8)]));
    }

    #[test]
    fn kernels_without_parameters_functions_and_comments() {
        let ptx = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_90\n.address_size 64\n\
                   .file 1 \"/tmp//x.cu\"\n.func (.param .b32 r) f(.param .b64 a)\n{ ret; }\n\
                   /* .entry fake(.param .u8 a) */\n.visible .entry a()\n{ ret; }\n.entry b\n{ ret; }\n\
                   .weak .entry c(\n// a comment .param\n.param .u64 c_param_0 // trailing\n)\n.maxntid 128, 1, 1\n{ ret; }\n";
        assert_eq!(layout(ptx), vec![("a".to_string(), vec![]), ("b".to_string(), vec![]), ("c".to_string(), vec![(0, 8)])]);
    }

    #[test]
    fn what_is_not_understood_is_left_out() {
        for bad in [
            ".entry k(.param .texref t)",
            ".entry k(.param .u32 a, .param .attribute(.managed) .u64 b)",
            ".entry k(.param .align 3 .b8 a[4])",
            ".entry k(.param .align 4 .b8 a[])",
            ".entry k(.param .align 4 .b8 a[0])",
            ".entry k(.param .u32)",
            ".entry k(.param .u32 a b)",
            ".entry k(.param .u32 a,",
            ".entry k(.param .u32 a",
            ".entry k(.param .align 8 .align 8 .b8 a[8])",
            ".entry k(.param .u32 .u64 a)",
            ".entry k(.param .ptr .u64 a)",
            ".entry k(.param .b8 a[99999999999999999999])",
            ".entry k(.param .align 8 .b8 a[2000000])",
            ".entry k(.reg .u32 a)",
            ".entry k(.param .u32 a; )",
            ".entry k",
            ".entry k ;",
        ] {
            assert_eq!(one(bad), None, "{bad}");
        }
        let twice = ".entry k(.param .u32 a) {} .entry k(.param .u64 a) {}";
        assert_eq!(one(twice), None, "a name declared with two lists");
        let same = ".entry k(.param .u32 a) {} .entry k(.param .u32 b) {}";
        assert_eq!(one(same), Some(vec![(0, 4)]), "declared twice alike");
        let unread = ".entry k(.param .u32 a) {} .entry k(.param .texref a) {}";
        assert_eq!(one(unread), None, "one declaration not understood");
        let other_fine = ".entry bad(.param .texref t) {} .entry good(.param .f32 x) {}";
        assert_eq!(layout(other_fine), vec![("good".to_string(), vec![(0, 4)])]);
    }

    #[test]
    fn malformed_text_never_panics() {
        let samples: [&[u8]; 12] = [
            b"",
            b".entry",
            b".entry (",
            b".entry k(",
            b".entry k( .param",
            b".entry k( .param .align",
            b".entry k( .param .align 8 .b8 a[",
            b"/* unterminated .entry k()",
            b"\"unterminated .entry k()",
            b"\x7fELF\x02\x01\x01\0\0\0",
            b"\xff\xfe.entry \xc3(\xa9 .param .u8 a)",
            b".entry k() \0 .entry after_nul()",
        ];
        for s in samples {
            let _ = ptx_kernel_params(s);
        }
        assert_eq!(ptx_kernel_params(b".entry k() \0 .entry after_nul()").len(), 1, "text ends at a NUL");
        // Every prefix of a real list parses or is left out, never panics.
        let full = b".visible .entry k(.param .u64 .ptr .global .align 4 x, .param .align 8 .b8 s[24], .param .f32 a)";
        for n in 0..=full.len() {
            let _ = ptx_kernel_params(&full[..n]);
        }
        assert_eq!(ptx_kernel_params(full)[0].1.len(), 3);
    }
}
