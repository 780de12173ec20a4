//! What a record carries beyond its words that only the calling thread can take, at the call:
//! a hash of a module image loaded from memory ([`image_hash`]) and, with
//! `CUDAGEN_TRACE_ARGS=1`, a launch's kernel argument values ([`copy_params`], [`copy_extra`]),
//! sized by the launched function's parameter info (asked of the driver once per function and
//! kept in a lock-free table, [`with_layout`]).
//!
//! Arguments are recorded as a blob: a `u16` count of entries (`UNKNOWN`: sizes not known;
//! bit 15: cut at [`MAX_BYTES`]), then each entry's `u16` size and bytes.

use super::driver;
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Argument bytes a `kernelParams` blob takes at most (entries' sizes included).
const PARAMS_BYTES: usize = 4096;
/// Bytes of an `extra` argument buffer kept at most.
const EXTRA_BYTES: usize = 1024;
/// Bytes a launch's blobs take in a record at most.
pub(super) const MAX_BYTES: usize = 2 + PARAMS_BYTES + 2 + EXTRA_BYTES + EXTRA_BYTES / 8 * 2 + 2;
/// A blob's count when the sizes are not known (or there were no arguments to read).
pub(super) const UNKNOWN: u16 = u16::MAX;
/// Set in a blob's count when arguments were left out ([`PARAMS_BYTES`]).
pub(super) const CUT: u16 = 1 << 15;
/// Parameters asked of the driver at most.
const MAX_PARAMS: usize = 1024;

#[inline]
unsafe fn put_u16(p: *mut u8, x: u16) {
    p.cast::<[u8; 2]>().write_unaligned(x.to_ne_bytes());
}

/// Copies the values `params` (a launch's `kernelParams`: one pointer per argument) points at,
/// sized by function `f`'s parameter info, to `b`; returns the end.
///
/// # Safety
/// `b` has [`MAX_BYTES`] free; `params` is NULL or as the driver reads it for `f` (the launch
/// succeeded or failed having read it).
pub(super) unsafe fn copy_params(f: u64, params: u64, b: *mut u8) -> *mut u8 {
    let head = b;
    let mut p = b.add(2);
    put_u16(head, UNKNOWN);
    if params == 0 {
        return p;
    }
    let ptrs = params as usize as *const *const u8;
    with_layout(f, |sizes| {
        let Some(sizes) = sizes else { return };
        let mut used = 0;
        let mut n = 0u16;
        for (i, &size) in sizes.iter().enumerate() {
            let src = *ptrs.add(i);
            let size = if src.is_null() { 0 } else { size as usize };
            if used + 2 + size > PARAMS_BYTES {
                n |= CUT;
                break;
            }
            put_u16(p, size as u16);
            core::ptr::copy_nonoverlapping(src, p.add(2), size);
            p = p.add(2 + size);
            used += 2 + size;
            n += 1;
        }
        put_u16(head, n);
    });
    p
}

/// Copies the argument buffer of a launch's `extra` array (`CU_LAUNCH_PARAM_BUFFER_POINTER`,
/// `CU_LAUNCH_PARAM_BUFFER_SIZE`, ..., `CU_LAUNCH_PARAM_END`) as 8-byte entries, at most
/// [`EXTRA_BYTES`]; returns the end.
///
/// # Safety
/// As [`copy_params`], for `extra`.
pub(super) unsafe fn copy_extra(extra: u64, b: *mut u8) -> *mut u8 {
    put_u16(b, UNKNOWN);
    let mut p = b.add(2);
    let items = extra as usize as *const usize;
    let (mut buf, mut size): (*const u8, Option<usize>) = (core::ptr::null(), None);
    let mut i = 0;
    while !items.is_null() && i < 16 {
        match *items.add(i) {
            1 => buf = *items.add(i + 1) as *const u8,
            2 if *items.add(i + 1) != 0 => size = Some(*(*items.add(i + 1) as *const usize)),
            2 => {}
            _ => break,
        }
        i += 2;
    }
    let (false, Some(size)) = (buf.is_null(), size) else { return p };
    let size = size.min(EXTRA_BYTES);
    let mut n = 0u16;
    for at in (0..size).step_by(8) {
        let len = (size - at).min(8);
        put_u16(p, len as u16);
        core::ptr::copy_nonoverlapping(buf.add(at), p.add(2), len);
        p = p.add(2 + len);
        n += 1;
    }
    put_u16(b, n);
    p
}

/// Bytes of the blob at the start of `b` (0 if `b` is too short to hold one).
pub(super) fn blob_len(b: &[u8]) -> usize {
    let Some(&[c0, c1]) = b.get(..2) else { return 0 };
    let count = u16::from_ne_bytes([c0, c1]);
    let n = if count == UNKNOWN { 0 } else { (count & !CUT) as usize };
    let mut at = 2;
    for _ in 0..n {
        let Some(&[s0, s1]) = b.get(at..at + 2) else { return b.len() };
        at += 2 + u16::from_ne_bytes([s0, s1]) as usize;
    }
    at.min(b.len())
}

/// The entries of a blob: each argument's bytes; `None` when the sizes were not known.
pub(super) fn entries(b: &[u8]) -> Option<(Vec<&[u8]>, bool)> {
    let count = u16::from_ne_bytes([*b.first()?, *b.get(1)?]);
    if count == UNKNOWN {
        return None;
    }
    let mut out = Vec::with_capacity((count & !CUT) as usize);
    let mut at = 2;
    for _ in 0..(count & !CUT) {
        let size = u16::from_ne_bytes([*b.get(at)?, *b.get(at + 1)?]) as usize;
        out.push(b.get(at + 2..at + 2 + size)?);
        at += 2 + size;
    }
    Some((out, count & CUT != 0))
}

/// Entries of the layout table (each a function handle and its sizes).
const SLOTS: usize = 4096;
/// Slots looked at for one handle.
const PROBES: usize = 32;

/// A function's parameter sizes as the driver gave them (`None`: it could not say).
struct Layout(Option<Box<[u16]>>);

static KEYS: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];
static LAYOUTS: [AtomicPtr<Layout>; SLOTS] = [const { AtomicPtr::new(core::ptr::null_mut()) }; SLOTS];

fn slot(f: u64, k: usize) -> usize {
    ((f.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize + k) % SLOTS
}

/// Runs `then` with function `f`'s parameter sizes: from the table, else asked of the driver
/// (`cuFuncGetParamInfo`, else `cuKernelGetParamInfo`) and kept there (a layout is never
/// freed: one per function the program launches; when the table is full it is asked again).
fn with_layout<R>(f: u64, then: impl FnOnce(Option<&[u16]>) -> R) -> R {
    for k in 0..PROBES {
        let i = slot(f, k);
        match KEYS[i].load(Ordering::Acquire) {
            0 => break,
            key if key == f => {
                let l = LAYOUTS[i].load(Ordering::Acquire);
                if !l.is_null() {
                    // SAFETY: layouts in the table are leaked boxes, never freed.
                    return then(unsafe { (*l).0.as_deref() });
                }
                break;
            }
            _ => {}
        }
    }
    let layout = Box::new(Layout(query(f)));
    for k in 0..PROBES {
        let i = slot(f, k);
        match KEYS[i].compare_exchange(0, f, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {}
            Err(key) if key == f => {}
            Err(_) => continue,
        }
        let l: &'static Layout = Box::leak(layout);
        LAYOUTS[i].store(l as *const Layout as *mut Layout, Ordering::Release);
        return then(l.0.as_deref());
    }
    then(layout.0.as_deref())
}

/// Asks the driver for `f`'s parameter sizes.
fn query(f: u64) -> Option<Box<[u16]>> {
    [driver::func_get_param_info(), driver::kernel_get_param_info()].into_iter().flatten().find_map(|info| {
        let mut sizes = Vec::new();
        while sizes.len() < MAX_PARAMS {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: valid out pointers; `f` is the handle the program launched.
            if unsafe { info(f as usize as *mut c_void, sizes.len(), &mut offset, &mut size) } != 0 {
                break;
            }
            sizes.push(size.min(u16::MAX as usize) as u16);
        }
        (!sizes.is_empty()).then(|| sizes.into_boxed_slice())
    })
}

/// Bytes hashed at each end of an image.
const HASHED: usize = 4096;

/// A hash of the module image at `p` (its length and its first and last [`HASHED`] bytes), 0
/// for NULL. The length is read from an ELF or fatbin header (a fatbin wrapper is followed);
/// anything else is a NUL-terminated text (PTX).
///
/// # Safety
/// `p` is NULL or an image the driver just loaded.
pub(super) unsafe fn image_hash(p: *const u8) -> u64 {
    if p.is_null() {
        return 0;
    }
    let (p, len) = image_extent(p);
    let head = len.min(HASHED);
    let tail = len.saturating_sub(HASHED).max(head);
    let h = hash(0x243f_6a88_85a3_08d3 ^ len as u64, core::slice::from_raw_parts(p, head));
    let h = hash(h, core::slice::from_raw_parts(p.add(tail), len - tail));
    // splitmix64's finish.
    let h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

fn hash(mut h: u64, b: &[u8]) -> u64 {
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        h = (h ^ u64::from_le_bytes(w.try_into().unwrap_or([0; 8]))).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    for &x in words.remainder() {
        h = (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The image's start and length in bytes (see [`image_hash`]).
unsafe fn image_extent(p: *const u8) -> (*const u8, usize) {
    // Each magic's bytes are non-zero: compared one by one, a shorter text is never read past
    // its NUL.
    let is = |magic: [u8; 4]| (0..4).all(|i| *p.add(i) == magic[i]);
    let u16_at = |o: usize| p.add(o).cast::<u16>().read_unaligned() as usize;
    let u64_at = |o: usize| p.add(o).cast::<u64>().read_unaligned() as usize;
    const MAX: usize = 1 << 30;
    if is(0x466243b1u32.to_le_bytes()) {
        // `__fatBinC_Wrapper_t`: magic, version, the fatbin, a file name.
        let data = p.add(8).cast::<*const u8>().read_unaligned();
        return if data.is_null() || data == p { (p, 16) } else { image_extent(data) };
    }
    if is(0xba55ed50u32.to_le_bytes()) {
        // Fatbin header: magic, u16 version, u16 header size, u64 size of what follows.
        return (p, (u16_at(6) + u64_at(8)).min(MAX));
    }
    if is([0x7f, b'E', b'L', b'F']) {
        if *p.add(4) != 2 {
            return (p, 52);
        }
        let sections = u64_at(0x28).saturating_add(u16_at(0x3c) * u16_at(0x3a));
        let segments = u64_at(0x20).saturating_add(u16_at(0x38) * u16_at(0x36));
        return (p, sections.max(segments).clamp(64, MAX));
    }
    let mut n = 0;
    while n < MAX && *p.add(n) != 0 {
        n += 1;
    }
    (p, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_hash_by_content() {
        let a = c".version 7.0\n.entry k()\n{ ret; }\n";
        let b = std::ffi::CString::new(a.to_bytes()).unwrap();
        let c = c".version 7.0\n.entry j()\n{ ret; }\n";
        // SAFETY: NUL-terminated texts.
        unsafe {
            assert_eq!(image_hash(a.as_ptr().cast()), image_hash(b.as_ptr().cast()));
            assert_ne!(image_hash(a.as_ptr().cast()), image_hash(c.as_ptr().cast()));
            assert_eq!(image_hash(core::ptr::null()), 0);
            assert_eq!(image_extent(c"".as_ptr().cast()).1, 0);
        }
        // A fatbin header says its length: bytes past it do not count.
        let mut fat = vec![0x50u8, 0xed, 0x55, 0xba, 1, 0, 16, 0, 8, 0, 0, 0, 0, 0, 0, 0];
        fat.extend_from_slice(b"12345678");
        let mut longer = fat.clone();
        longer.extend_from_slice(b"tail");
        // SAFETY: each header is followed by the 8 bytes it counts.
        unsafe {
            assert_eq!(image_extent(fat.as_ptr()).1, 24);
            assert_eq!(image_hash(fat.as_ptr()), image_hash(longer.as_ptr()));
        }
    }

    #[test]
    fn blobs_round_trip() {
        let (a, x) = (1.5f32, 0x7000_0000_1000u64);
        let params = [&a as *const f32 as *const u8, &x as *const u64 as *const u8];
        let mut b = vec![0u8; MAX_BYTES];
        // SAFETY: no layout is known for handle 1 here (no driver): the blob says so.
        let end = unsafe { copy_params(1, params.as_ptr() as u64, b.as_mut_ptr()) };
        assert_eq!(end as usize - b.as_ptr() as usize, 2);
        assert!(entries(&b).is_none());
        let size = 12usize;
        let buf = [7u8; 12];
        let extra = [1usize, buf.as_ptr() as usize, 2, &size as *const usize as usize, 0];
        // SAFETY: a well-formed extra array.
        let end = unsafe { copy_extra(extra.as_ptr() as u64, b.as_mut_ptr()) };
        let len = end as usize - b.as_ptr() as usize;
        assert_eq!(blob_len(&b[..len + 5]), len);
        let (e, cut) = entries(&b).unwrap();
        assert_eq!((e.len(), e[0].len(), e[1], cut), (2, 8, &[7u8; 4][..], false));
    }
}
