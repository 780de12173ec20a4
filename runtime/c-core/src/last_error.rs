//! `cudagenLastLoaderError()`: the loader's last failure message as a C string.

use crate::guard::guard;
use core::ffi::{c_char, CStr};
use core::ptr::null;
use std::ffi::CString;
use std::sync::Mutex;

/// Every distinct message handed out, leaked so that its pointer stays valid for the life of
/// the process. Messages name a library (and an entry point), so there are few of them.
static MESSAGES: Mutex<Vec<&'static CStr>> = Mutex::new(Vec::new());

fn intern(message: String) -> *const c_char {
    let Ok(c) = CString::new(message.replace('\0', " ")) else { return null() };
    let mut all = MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = all.iter().find(|s| ***s == *c) {
        return s.as_ptr();
    }
    let s: &'static CStr = Box::leak(c.into_boxed_c_str());
    all.push(s);
    s.as_ptr()
}

/// `const char *cudagenLastLoaderError(void)`: this thread's last load failure, else the
/// process's, else NULL.
#[no_mangle]
pub extern "C" fn cudagenLastLoaderError() -> *const c_char {
    guard(|| cudagen_rs::loader::last_error_message().map_or(null(), intern), null())
}
