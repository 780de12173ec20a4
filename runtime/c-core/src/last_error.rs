//! The strings behind `cudagenLastLoaderError()`: the loader's failure messages as C strings
//! that stay valid for the life of the process.

use core::ffi::{c_char, CStr};
use core::ptr::null;
use std::ffi::CString;
use std::sync::Mutex;

/// Every distinct message handed out, leaked so that its pointer stays valid for the life of
/// the process. Messages name a library (and an entry point), so there are few of them.
static MESSAGES: Mutex<Vec<&'static CStr>> = Mutex::new(Vec::new());

/// `message` as a NUL-terminated string owned by the process (NUL bytes inside become spaces);
/// the same text gives the same pointer. `None` gives NULL.
pub fn intern(message: Option<String>) -> *const c_char {
    let Some(message) = message else { return null() };
    let Ok(c) = CString::new(message.replace('\0', " ")) else { return null() };
    let mut all = MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = all.iter().find(|s| ***s == *c) {
        return s.as_ptr();
    }
    let s: &'static CStr = Box::leak(c.into_boxed_c_str());
    all.push(s);
    s.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::intern;
    use core::ffi::CStr;

    #[test]
    fn one_text_one_pointer_and_nul_bytes_become_spaces() {
        assert!(intern(None).is_null());
        let a = intern(Some("libcuda.so.1 not found".into()));
        assert_eq!(a, intern(Some("libcuda.so.1 not found".into())));
        assert_ne!(a, intern(Some("libnvrtc.so.12 not found".into())));
        // SAFETY: `intern` returns NUL-terminated strings that are never freed.
        let s = unsafe { CStr::from_ptr(intern(Some("a\0b".into()))) };
        assert_eq!(s.to_bytes(), b"a b");
    }
}
