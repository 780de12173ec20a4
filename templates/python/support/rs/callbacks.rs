//! Callbacks: a ctypes function pointer (or int address) is passed through; a plain Python
//! callable gets a trampoline that attaches to the interpreter, calls it, and reports an exception
//! with `sys.unraisablehook` (never letting it reach the library). The callable sees the C
//! arguments, with the user-data pointer replaced by the object given for it:
//!
//! - `CUhostFn` (`cuLaunchHostFunc`, `cuUserObjectCreate`): `f(userData)`, once; then released;
//! - `CUstreamCallback`: `f(hStream, status, userData)`, once; then released;
//! - `CUlogsCallback`: `f(userData, logLevel, message: bytes)`, each time the driver logs;
//! - `CUasyncCallback`: `f(info: CUasyncNotificationInfo, userData, callback)`, each notification;
//! - NVRTC's flow callback: `f(payload) -> bool` (true cancels), during compilation;
//! - `CUoccupancyB2DSize`: `f(blockSize) -> int`, while the occupancy call runs.
//!
//! Callables of the repeating kinds stay alive for the life of the process (the library may call
//! them until it is told otherwise, and its unregister calls do not name the callable).

use crate::conv::{self, Ctx};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void};

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

/// A C function pointer (ctypes function, int address, None) rather than a Python callable.
fn is_c_function(cb: &Bound<'_, PyAny>) -> bool {
    cb.is_none() || cb.is_instance_of::<PyInt>() || is_ctypes_fn(cb) || !cb.is_callable()
}

/// A callback argument and its user data: a C function pointer passes through with the user data
/// as an address; a Python callable is kept (with the user object) for `trampoline`, which then
/// receives the keeper as its user data.
pub fn python(cb: &Bound<'_, PyAny>, user: &Bound<'_, PyAny>, c: &Ctx, trampoline: *const ()) -> PyResult<(usize, usize, Pending)> {
    if is_c_function(cb) {
        let f = raw(cb, c)?;
        let ud = conv::addr(user, &Ctx { func: c.func, param: "userData", expected: "int, buffer or None" })?;
        return Ok((f, ud, Pending(None)));
    }
    let h = Box::into_raw(Box::new(Holder { func: cb.clone().unbind(), user: user.clone().unbind() }));
    Ok((trampoline as usize, h as usize, Pending(Some(h))))
}

thread_local! {
    /// The callable of the occupancy call running on this thread (the driver calls it back
    /// synchronously, on the calling thread).
    static OCCUPANCY: RefCell<Option<Py<PyAny>>> = const { RefCell::new(None) };
}

/// Keeps an occupancy callable installed while the call runs.
pub struct Installed(bool);

impl Drop for Installed {
    fn drop(&mut self) {
        if self.0 {
            drop(OCCUPANCY.with(|s| s.borrow_mut().take()));
        }
    }
}

/// `CUoccupancyB2DSize`: a C function pointer, or a callable installed for this thread.
pub fn occupancy(cb: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<(usize, Installed)> {
    if is_c_function(cb) {
        return Ok((raw(cb, c)?, Installed(false)));
    }
    OCCUPANCY.with(|s| *s.borrow_mut() = Some(cb.clone().unbind()));
    Ok((occupancy_trampoline as *const () as usize, Installed(true)))
}

/// Runs Python code for a library callback, on whatever thread the library uses: attaches with
/// PyGILState_Ensure (not Python::attach: the thread may be one whose GIL `conv::nogil`
/// released, when the library calls back synchronously); a panic gives `default`.
fn from_library<R>(default: R, body: impl FnOnce(Python<'_>) -> R) -> R {
    struct Attached(ffi::PyGILState_STATE);
    impl Drop for Attached {
        fn drop(&mut self) {
            unsafe { ffi::PyGILState_Release(self.0) }
        }
    }
    let _attached = Attached(unsafe { ffi::PyGILState_Ensure() });
    // SAFETY: PyGILState_Ensure above attached this thread.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(unsafe { Python::assume_attached() })))
        .unwrap_or(default)
}

/// Calls `func(*args)` and turns the result into `R`; an exception is reported and `default`
/// returned.
fn call<R>(
    py: Python<'_>,
    func: &Py<PyAny>,
    default: R,
    args: PyResult<Vec<Py<PyAny>>>,
    done: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
) -> R {
    let r = args
        .and_then(|a| pyo3::types::PyTuple::new(py, a))
        .and_then(|a| func.bind(py).call1(a))
        .and_then(|r| done(&r));
    r.unwrap_or_else(|e| {
        e.write_unraisable(py, Some(func.bind(py)));
        default
    })
}

/// A one-shot callback: calls the holder's function, then frees the holder.
fn call_once(ud: *mut c_void, args: impl FnOnce(Python<'_>, Py<PyAny>) -> PyResult<Vec<Py<PyAny>>>) {
    from_library((), |py| {
        let h = unsafe { Box::from_raw(ud as *mut Holder) };
        call(py, &h.func, (), args(py, h.user.clone_ref(py)), |_| Ok(()));
    })
}

/// A repeating callback: calls the holder's function, which stays registered.
fn call_kept<R: Copy>(
    ud: *mut c_void,
    default: R,
    args: impl FnOnce(Python<'_>, Py<PyAny>) -> PyResult<Vec<Py<PyAny>>>,
    done: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
) -> R {
    from_library(default, |py| {
        // SAFETY: a committed holder is never freed for the repeating kinds.
        let h = unsafe { &*(ud as *const Holder) };
        call(py, &h.func, default, args(py, h.user.clone_ref(py)), done)
    })
}

fn driver_attr<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("cudagen.driver")?.getattr(name)
}

pub unsafe extern "C" fn host_trampoline(ud: *mut c_void) {
    call_once(ud, |_, user| Ok(vec![user]));
}

pub unsafe extern "C" fn stream_trampoline(stream: *mut c_void, status: u32, ud: *mut c_void) {
    call_once(ud, |py, user| {
        let s = driver_attr(py, "CUstream")?.call1((stream as usize,))?.unbind();
        let st = driver_attr(py, "CUresult")?.call1((status,))?.unbind();
        Ok(vec![s, st, user])
    });
}

pub unsafe extern "C" fn logs_trampoline(ud: *mut c_void, level: c_int, message: *const c_char, length: usize) {
    call_kept(
        ud,
        (),
        |py, user| {
            let lv = driver_attr(py, "CUlogLevel")?.call1((level,))?.unbind();
            let text: &[u8] = if message.is_null() {
                &[]
            } else {
                let all = unsafe { std::slice::from_raw_parts(message as *const u8, length) };
                all.split(|&b| b == 0).next().unwrap_or(all)
            };
            Ok(vec![user, lv, PyBytes::new(py, text).into_any().unbind()])
        },
        |_| Ok(()),
    );
}

pub unsafe extern "C" fn async_notification_trampoline(info: *const c_void, ud: *mut c_void, handle: *mut c_void) {
    call_kept(
        ud,
        (),
        |py, user| {
            let cls = driver_attr(py, "CUasyncNotificationInfo")?;
            let size: usize = py.import("ctypes")?.getattr("sizeof")?.call1((&cls,))?.extract()?;
            let bytes: &[u8] = if info.is_null() { &[] } else { unsafe { std::slice::from_raw_parts(info as *const u8, size) } };
            let record = if info.is_null() { py.None() } else { cls.call_method1("from_buffer_copy", (PyBytes::new(py, bytes),))?.unbind() };
            let h = driver_attr(py, "CUasyncCallbackHandle")?.call1((handle as usize,))?.unbind();
            Ok(vec![record, user, h])
        },
        |_| Ok(()),
    );
}

pub unsafe extern "C" fn flow_trampoline(ud: *mut c_void, _reserved: *mut c_void) -> c_int {
    call_kept(ud, 0, |_, user| Ok(vec![user]), |r| Ok(r.is_truthy()? as c_int))
}

pub unsafe extern "C" fn occupancy_trampoline(block_size: c_int) -> usize {
    from_library(0, |py| {
        let Some(f) = OCCUPANCY.with(|s| s.borrow().as_ref().map(|f| f.clone_ref(py))) else {
            return 0;
        };
        let args = block_size.into_pyobject(py).map(|b| vec![b.into_any().unbind()]).map_err(PyErr::from);
        call(py, &f, 0, args, |r| r.extract::<usize>())
    })
}
