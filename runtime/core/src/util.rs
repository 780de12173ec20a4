//! Small non-generic helpers shared by the generated typed layers.

use core::ffi::{c_char, CStr};

/// A C string the library owns, copied (`""` for NULL).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string alive during this call.
pub unsafe fn cstr_to_string(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// A filled byte buffer up to its first NUL, as text.
pub fn buf_to_string(mut buf: Vec<u8>) -> String {
    if let Some(n) = buf.iter().position(|&b| b == 0) {
        buf.truncate(n);
    }
    match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// A static C string the library returned (`""` for NULL).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives (unchanged) for the process.
pub unsafe fn static_cstr(p: *const c_char) -> &'static CStr {
    if p.is_null() {
        return c"";
    }
    CStr::from_ptr(p)
}

/// For tracing: a C string argument, or `None` for NULL.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string alive for `'a`.
pub unsafe fn opt_cstr<'a>(p: *const c_char) -> Option<&'a CStr> {
    if p.is_null() {
        None
    } else {
        Some(CStr::from_ptr(p))
    }
}

/// The common length of some slices (absent ones ignored; none present: 0) converted to the C
/// count type; `None` when lengths differ or do not fit.
#[inline]
pub fn array_len<T: TryFrom<usize>>(lens: &[Option<usize>]) -> Option<T> {
    let mut n = None;
    for l in lens.iter().flatten() {
        match n {
            None => n = Some(*l),
            Some(m) if m != *l => return None,
            _ => {}
        }
    }
    T::try_from(n.unwrap_or(0)).ok()
}

/// Types a C library may write any bytes into: integers, floats, raw pointers, arrays of them and
/// the generated `#[repr(C)]` types built from those. The typed functions whose value type an
/// enum argument selects (`pointer_get_attribute`) take or return one, checked by size.
///
/// # Safety
/// Every bit pattern of `size_of::<Self>()` bytes must be a valid value.
pub unsafe trait Plain: Copy {}

macro_rules! plain {
    ($($t:ty),*) => { $(unsafe impl Plain for $t {})* };
}
plain!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize, f32, f64);
unsafe impl<T> Plain for *mut T {}
unsafe impl<T> Plain for *const T {}
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// The byte size of a selected value of type `T` for selector value `sel`, checked against the
/// member table `(value, bytes, sized)`: `T` must have the member's size (a multiple of it for
/// `sized` members). `None` for an unlisted member or a wrong size.
pub fn selected_size<T: Plain>(sel: i64, table: &[(i64, usize, bool)]) -> Option<usize> {
    let &(_, bytes, sized) = table.iter().find(|m| m.0 == sel)?;
    let n = core::mem::size_of::<T>();
    let ok = if sized { n > 0 && n % bytes == 0 } else { n == bytes };
    ok.then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selected_size_checks_the_member_table() {
        let table = [(1, 8, false), (2, 4, false), (3, 4, true)];
        assert_eq!(selected_size::<u64>(1, &table), Some(8));
        assert_eq!(selected_size::<u32>(1, &table), None, "wrong size");
        assert_eq!(selected_size::<u32>(9, &table), None, "unlisted member");
        assert_eq!(selected_size::<[i32; 3]>(3, &table), Some(12), "sized: any multiple");
        assert_eq!(selected_size::<[u8; 6]>(3, &table), None);
    }

    #[test]
    fn strings_from_c_copy_up_to_the_nul_and_null_is_empty() {
        // SAFETY: NULL and a static NUL-terminated string.
        unsafe {
            assert_eq!(cstr_to_string(core::ptr::null()), "");
            assert_eq!(cstr_to_string(c"ab".as_ptr()), "ab");
            assert_eq!(static_cstr(core::ptr::null()), c"");
            assert_eq!(opt_cstr(c"x".as_ptr()), Some(c"x"));
        }
        assert_eq!(buf_to_string(b"hi\0junk".to_vec()), "hi");
        assert_eq!(array_len::<u32>(&[Some(2), None, Some(2)]), Some(2));
        assert_eq!(array_len::<u32>(&[Some(2), Some(3)]), None, "lengths differ");
    }
}
