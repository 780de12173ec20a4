//! Host callbacks: a ctypes function pointer (or int address) is passed through; a plain Python
//! callable gets a trampoline that takes the GIL, calls it once with
//! `(userData)` (`CUhostFn`) or `(hStream, status, userData)` (`CUstreamCallback`), reports an
//! exception with `sys.unraisablehook`, and frees the kept references.

use crate::conv::{self, Ctx};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyInt;
use std::ffi::c_void;

struct Holder {
    func: Py<PyAny>,
    user: Py<PyAny>,
}

/// Frees the holder unless the call succeeded (then the trampoline owns it).
pub struct Pending(Option<*mut Holder>);

impl Pending {
    pub fn commit(mut self) {
        self.0 = None;
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

fn is_ctypes_fn(o: &Bound<'_, PyAny>) -> bool {
    use pyo3::types::PyTypeMethods;
    o.get_type().mro().iter().any(|t| {
        t.cast::<pyo3::types::PyType>()
            .ok()
            .and_then(|t| t.name().ok())
            .map(|n| n.to_string() == "_CFuncPtr" || n.to_string() == "CFuncPtr")
            .unwrap_or(false)
    })
}

/// A C function pointer: ctypes CFUNCTYPE object, int address or None.
pub fn raw(o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<usize> {
    if o.is_none() {
        return Ok(0);
    }
    if o.is_instance_of::<PyInt>() {
        return conv::addr(o, c);
    }
    if is_ctypes_fn(o) {
        if let Some((p, len)) = conv::buffer(o, false) {
            if len >= 8 {
                return Ok(unsafe { *(p as *const usize) });
            }
        }
    }
    if let Ok(f) = o.getattr("getPtr") {
        let p = conv::int(&f.call0()?, 64, false, c)? as usize;
        return Ok(if p == 0 { 0 } else { unsafe { *(p as *const usize) } });
    }
    Err(c.type_error(o))
}

fn prepare(
    py: Python<'_>,
    cb: &Bound<'_, PyAny>,
    user: &Bound<'_, PyAny>,
    c: &Ctx,
    tramp: usize,
) -> PyResult<(usize, usize, Pending)> {
    if cb.is_none() || cb.is_instance_of::<PyInt>() || is_ctypes_fn(cb) || !cb.is_callable() {
        let f = raw(cb, c)?;
        let ud = conv::addr(user, &Ctx { func: c.func, param: "userData", expected: "int, buffer or None" })?;
        return Ok((f, ud, Pending(None)));
    }
    let h = Box::into_raw(Box::new(Holder { func: cb.clone().unbind(), user: user.clone().unbind() }));
    let _ = py;
    Ok((tramp, h as usize, Pending(Some(h))))
}

pub fn host(py: Python<'_>, cb: &Bound<'_, PyAny>, user: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<(usize, usize, Pending)> {
    prepare(py, cb, user, c, host_trampoline as *const () as usize)
}

pub fn stream(py: Python<'_>, cb: &Bound<'_, PyAny>, user: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<(usize, usize, Pending)> {
    prepare(py, cb, user, c, stream_trampoline as *const () as usize)
}

fn call_once(ud: *mut c_void, args: impl FnOnce(Python<'_>, Py<PyAny>) -> PyResult<Vec<Py<PyAny>>>) {
    // Attach with PyGILState_Ensure rather than Python::attach: the calling thread may be one
    // whose GIL `conv::nogil` released (a library that calls back synchronously).
    struct Attached(ffi::PyGILState_STATE);
    impl Drop for Attached {
        fn drop(&mut self) {
            unsafe { ffi::PyGILState_Release(self.0) }
        }
    }
    let _attached = Attached(unsafe { ffi::PyGILState_Ensure() });
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: PyGILState_Ensure above attached this thread.
        let py = unsafe { Python::assume_attached() };
        let h = unsafe { Box::from_raw(ud as *mut Holder) };
        let r = args(py, h.user.clone_ref(py))
            .and_then(|a| pyo3::types::PyTuple::new(py, a))
            .and_then(|a| h.func.call1(py, a));
        if let Err(e) = r {
            e.write_unraisable(py, Some(h.func.bind(py)));
        }
        drop(h);
    }));
}

unsafe extern "C" fn host_trampoline(ud: *mut c_void) {
    call_once(ud, |_, user| Ok(vec![user]));
}

unsafe extern "C" fn stream_trampoline(stream: *mut c_void, status: u32, ud: *mut c_void) {
    call_once(ud, |py, user| {
        let m = py.import("cudagen.driver")?;
        let s = m.getattr("CUstream")?.call1((stream as usize,))?.unbind();
        let st = m.getattr("CUresult")?.call1((status,))?.unbind();
        Ok(vec![s, st, user])
    });
}
