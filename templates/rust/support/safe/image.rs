//! Module images given as bytes: checks that the driver, which takes an image by its address
//! alone, finds all of it within the bytes (`Module::from_ptx`, `from_cubin`, `from_fatbin`).
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items. Pure: no
//! driver call, no `unsafe`.
//!
//! - PTX text is a NUL-terminated string: borrowed when the bytes end with their only NUL,
//!   copied with one added when they have none, refused with a NUL before the end.
//! - A cubin is a 64-bit ELF image: its program and section header tables, and every section
//!   and segment with bytes in the file, lie within the bytes.
//! - A fatbin starts with its header (magic `0xBA55ED50`, header size, payload size): header and
//!   payload lie within the bytes. A fatbin *wrapper* (which holds a pointer) is refused.

use super::error::Error;
use std::borrow::Cow;
use std::ffi::{CStr, CString};

type Result<T, E = Error> = core::result::Result<T, E>;

/// PTX text in any of the forms it comes in: `&str`, `String`, `&CStr`, `CString`, bytes
/// (with or without the trailing NUL NVRTC's `get_ptx` leaves).
pub trait PtxText {
    /// The text's bytes, as given.
    fn ptx_bytes(&self) -> &[u8];
}

impl PtxText for str {
    fn ptx_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}
impl PtxText for String {
    fn ptx_bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}
impl PtxText for CStr {
    fn ptx_bytes(&self) -> &[u8] {
        self.to_bytes_with_nul()
    }
}
impl PtxText for CString {
    fn ptx_bytes(&self) -> &[u8] {
        self.as_bytes_with_nul()
    }
}
impl PtxText for [u8] {
    fn ptx_bytes(&self) -> &[u8] {
        self
    }
}
impl PtxText for Vec<u8> {
    fn ptx_bytes(&self) -> &[u8] {
        self
    }
}
impl<T: PtxText + ?Sized> PtxText for &T {
    fn ptx_bytes(&self) -> &[u8] {
        (**self).ptx_bytes()
    }
}

fn bad(kind: &'static str, why: &'static str) -> Error {
    Error::BadImage { kind, why }
}

/// The PTX text as a C string (see the module docs).
pub fn ptx_text(bytes: &[u8]) -> Result<Cow<'_, CStr>> {
    match bytes.iter().position(|&b| b == 0) {
        None => Ok(Cow::Owned(CString::new(bytes).map_err(|_| bad("PTX", "a NUL inside the text"))?)),
        Some(i) if i + 1 == bytes.len() => {
            Ok(Cow::Borrowed(CStr::from_bytes_with_nul(bytes).map_err(|_| bad("PTX", "a NUL inside the text"))?))
        }
        Some(_) => Err(bad("PTX", "a NUL inside the text")),
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as u64)
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as u64)
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// `offset + count * size <= len`, without overflow.
fn within(len: usize, offset: u64, count: u64, size: u64) -> bool {
    count.checked_mul(size).and_then(|n| n.checked_add(offset)).is_some_and(|end| end <= len as u64)
}

/// Checks a 64-bit little-endian ELF image (see the module docs).
pub fn check_elf(b: &[u8]) -> Result<()> {
    const K: &str = "cubin (ELF)";
    if b.len() < 64 || &b[..4] != b"\x7fELF" {
        return Err(bad(K, "no ELF header"));
    }
    if b[4] != 2 || b[5] != 1 {
        return Err(bad(K, "not a 64-bit little-endian ELF"));
    }
    // The header is 64 bytes long, so these fields are all there.
    let (ph_off, sh_off) = (u64_at(b, 0x20).unwrap_or(u64::MAX), u64_at(b, 0x28).unwrap_or(u64::MAX));
    let (ph_size, ph_num) = (u16_at(b, 0x36).unwrap_or(0), u16_at(b, 0x38).unwrap_or(0));
    let (sh_size, sh_num) = (u16_at(b, 0x3A).unwrap_or(0), u16_at(b, 0x3C).unwrap_or(0));
    if (ph_num > 0 && (ph_size < 0x38 || !within(b.len(), ph_off, ph_num, ph_size)))
        || (sh_num > 0 && (sh_size < 0x40 || !within(b.len(), sh_off, sh_num, sh_size)))
    {
        return Err(bad(K, "a header table past the end"));
    }
    for i in 0..ph_num {
        let h = (ph_off + i * ph_size) as usize;
        if !within(b.len(), u64_at(b, h + 8).unwrap_or(u64::MAX), 1, u64_at(b, h + 0x20).unwrap_or(u64::MAX)) {
            return Err(bad(K, "a segment past the end"));
        }
    }
    for i in 0..sh_num {
        let h = (sh_off + i * sh_size) as usize;
        const NOBITS: u64 = 8;
        if u32_at(b, h + 4) == Some(NOBITS) {
            continue;
        }
        if !within(b.len(), u64_at(b, h + 0x18).unwrap_or(u64::MAX), 1, u64_at(b, h + 0x20).unwrap_or(u64::MAX)) {
            return Err(bad(K, "a section past the end"));
        }
    }
    Ok(())
}

/// Checks a fatbin's header and extent (see the module docs).
pub fn check_fatbin(b: &[u8]) -> Result<()> {
    const K: &str = "fatbin";
    match u32_at(b, 0) {
        Some(0xBA55_ED50) => {}
        Some(0x4662_43B1) => return Err(bad(K, "a fatbin wrapper (it holds a pointer): pass the fatbin it points to")),
        _ => return Err(bad(K, "no fatbin header")),
    }
    let (header, payload) = (u16_at(b, 6).unwrap_or(u64::MAX), u64_at(b, 8).unwrap_or(u64::MAX));
    if header < 16 || !within(b.len(), header, 1, payload) {
        return Err(bad(K, "the header or payload past the end"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_text_is_borrowed_copied_or_refused() {
        assert!(matches!(ptx_text(b".entry k()\0"), Ok(Cow::Borrowed(_))));
        assert_eq!(ptx_text(b".entry k()").unwrap().to_bytes(), b".entry k()");
        assert!(ptx_text(b".entry\0 k()\0").is_err());
        assert!(ptx_text(b"a\0b").is_err());
    }

    /// An ELF64 header with one section of `size` bytes at `offset`.
    fn elf(offset: u64, size: u64) -> Vec<u8> {
        let mut b = vec![0u8; 64 + 64];
        b[..6].copy_from_slice(b"\x7fELF\x02\x01");
        b[0x28..0x30].copy_from_slice(&64u64.to_le_bytes());
        b[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
        b[0x3C..0x3E].copy_from_slice(&1u16.to_le_bytes());
        b[64 + 4..64 + 8].copy_from_slice(&1u32.to_le_bytes());
        b[64 + 0x18..64 + 0x20].copy_from_slice(&offset.to_le_bytes());
        b[64 + 0x20..64 + 0x28].copy_from_slice(&size.to_le_bytes());
        b
    }

    #[test]
    fn elf_extents_are_checked() {
        assert!(check_elf(&elf(0, 128)).is_ok());
        assert!(check_elf(&elf(0, 129)).is_err(), "a section one byte past the end");
        assert!(check_elf(&elf(u64::MAX, 2)).is_err(), "an overflowing offset");
        assert!(check_elf(&elf(0, 128)[..100]).is_err(), "the section table cut");
        assert!(check_elf(b"\x7fELF").is_err());
        let mut e32 = elf(0, 1);
        e32[4] = 1;
        assert!(check_elf(&e32).is_err(), "32-bit");
    }

    #[test]
    fn fatbin_extents_are_checked() {
        let mut f = vec![0u8; 32];
        f[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
        f[6..8].copy_from_slice(&16u16.to_le_bytes());
        f[8..16].copy_from_slice(&16u64.to_le_bytes());
        assert!(check_fatbin(&f).is_ok());
        assert!(check_fatbin(&f[..31]).is_err());
        f[..4].copy_from_slice(&0x4662_43B1u32.to_le_bytes());
        assert!(check_fatbin(&f).is_err(), "a wrapper");
    }
}
