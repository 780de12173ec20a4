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
//! Callables of the repeating kinds are kept under a key (the registration handle, or the NVRTC
//! program) and released when the library is told to stop calling them (`cuLogsUnregisterCallback`,
//! `cuDeviceUnregisterAsyncNotification`, `nvrtcDestroyProgram`, or a new flow callback for the
//! same program). Only their small holder outlives that, since a call may already be on its way.

use crate::conv::{self, Ctx};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, MutexGuard};

/// A Python callable and the user object it is called with.
type Objects = Option<(Py<PyAny>, Py<PyAny>)>;

/// The objects a trampoline receives as its user data; empty once released.
struct Holder(Mutex<Objects>);

impl Holder {
    fn slot(&self) -> MutexGuard<'_, Objects> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn into_objects(self: Box<Self>) -> Objects {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// Holders of repeating callables, by (kind, key).
static KEPT: Mutex<BTreeMap<(&'static str, u64), usize>> = Mutex::new(BTreeMap::new());

fn kept() -> MutexGuard<'static, BTreeMap<(&'static str, u64), usize>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Frees the holder unless the call succeeded (then the trampoline owns it).
pub struct Pending(Option<*mut Holder>);

impl Pending {
    /// A one-shot callable: the trampoline frees it after its call.
    pub fn commit(mut self) {
        self.0 = None;
    }

    /// A repeating callable, kept under `key` until [`release`]. Any registration under the same
    /// key (a C function pointer too) releases the one before.
    pub fn keep(mut self, py: Python<'_>, kind: &'static str, key: u64) {
        let Some(h) = self.0.take() else { return release(py, kind, key) };
        let old = kept().insert((kind, key), h as usize);
        if let Some(old) = old {
            empty(py, old);
        }
    }
}

/// The library no longer calls the callable kept under (`kind`, `key`): drops it.
pub fn release(py: Python<'_>, kind: &'static str, key: u64) {
    let h = kept().remove(&(kind, key));
    if let Some(h) = h {
        empty(py, h);
    }
}

/// Drops a kept holder's objects (attached, outside every lock); the holder itself stays.
fn empty(py: Python<'_>, h: usize) {
    // SAFETY: kept holders are never freed.
    let objects = unsafe { &*(h as *const Holder) }.slot().take();
    release_objects(py, objects);
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            // SAFETY: a Pending lives in a binding's body, on an attached thread.
            let py = unsafe { Python::assume_attached() };
            release_objects(py, unsafe { Box::from_raw(p) }.into_objects());
        }
    }
}

/// Drops a holder's objects at once: as `Bound` (a `Py` dropped where PyO3 does not count the
/// thread as attached would only be queued).
fn release_objects(py: Python<'_>, objects: Objects) {
    if let Some((func, user)) = objects {
        drop((func.into_bound(py), user.into_bound(py)));
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
    if crate::handles::any_handle(o).is_some() {
        return Err(c.type_error(o));
    }
    if is_ctypes_fn(o) {
        if let Some((p, len)) = conv::buffer(o, false) {
            if len >= 8 {
                return Ok(unsafe { *(p as *const usize) });
            }
        }
    }
    if let Some(f) = conv::attr_opt(o, c"getPtr").filter(|_| typedef_class(o)) {
        let p = conv::int(&f.call0()?, 64, false, c)? as usize;
        // SAFETY: a typedef object of ours or NVIDIA's: getPtr() is the address of its C value.
        return Ok(if p == 0 { 0 } else { unsafe { *(p as *const usize) } });
    }
    Err(c.type_error(o))
}

/// Whether `o` is a typedef object of ours (`cudagen.*`) or of NVIDIA's package, whose
/// `getPtr()` is the address of the C value it holds. Any other object's `getPtr()` is not read
/// through: it may return any number.
fn typedef_class(o: &Bound<'_, PyAny>) -> bool {
    if crate::handles::foreign_class(o).is_some() {
        return true;
    }
    let module = conv::attr_opt(o.get_type().as_any(), c"__module__");
    module.and_then(|m| m.extract::<String>().ok()).is_some_and(|m| m == "cudagen" || m.starts_with("cudagen."))
}

/// A C function pointer (ctypes function, None or 0 for NULL) rather than a Python callable.
/// Any other int is refused: the library would call whatever it points at.
fn is_c_function(cb: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<bool> {
    if cb.is_instance_of::<PyInt>() {
        return if conv::long_value(cb) == Some(0) { Ok(true) } else { Err(c.type_error(cb)) };
    }
    Ok(cb.is_none() || is_ctypes_fn(cb) || !cb.is_callable())
}

/// A callback argument and its user data: a C function pointer passes through with the user data
/// as an address; a Python callable is kept (with the user object) for `trampoline`, which then
/// receives the keeper as its user data.
pub fn python(
    cb: &Bound<'_, PyAny>,
    user: &Bound<'_, PyAny>,
    c: &Ctx,
    trampoline: *const (),
) -> PyResult<(usize, usize, Pending)> {
    if is_c_function(cb, c)? {
        let f = raw(cb, c)?;
        let ud = conv::addr(user, &Ctx { func: c.func, param: "userData", expected: "int, buffer or None" })?;
        return Ok((f, ud, Pending(None)));
    }
    let h = Box::into_raw(Box::new(Holder(Mutex::new(Some((cb.clone().unbind(), user.clone().unbind()))))));
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
    if is_c_function(cb, c)? {
        return Ok((raw(cb, c)?, Installed(false)));
    }
    OCCUPANCY.with(|s| *s.borrow_mut() = Some(cb.clone().unbind()));
    Ok((occupancy_trampoline as *const () as usize, Installed(true)))
}

/// Runs Python code for a library callback, on whatever thread the library uses: attaches with
/// PyGILState_Ensure (not Python::attach: the thread may be one whose GIL `conv::nogil`
/// released, when the library calls back synchronously); a panic gives `default`. Objects are
/// dropped as `Bound` here (see `release_objects`).
fn from_library<R>(default: R, body: impl FnOnce(Python<'_>) -> R) -> R {
    struct Attached(ffi::PyGILState_STATE);
    impl Drop for Attached {
        fn drop(&mut self) {
            unsafe { ffi::PyGILState_Release(self.0) }
        }
    }
    let _attached = Attached(unsafe { ffi::PyGILState_Ensure() });
    // SAFETY: PyGILState_Ensure above attached this thread.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(unsafe { Python::assume_attached() }))).unwrap_or(default)
}

/// Calls `func(*args)` and turns the result into `R`; an exception is reported and `default`
/// returned.
fn call<R>(
    py: Python<'_>,
    func: &Bound<'_, PyAny>,
    default: R,
    args: PyResult<Vec<Py<PyAny>>>,
    done: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
) -> R {
    let r = args.and_then(|a| pyo3::types::PyTuple::new(py, a)).and_then(|a| func.call1(a)).and_then(|r| done(&r));
    r.unwrap_or_else(|e| {
        e.write_unraisable(py, Some(func));
        default
    })
}

/// A one-shot callback: calls the holder's function, then frees the holder.
fn call_once(ud: *mut c_void, args: impl FnOnce(Python<'_>, Py<PyAny>) -> PyResult<Vec<Py<PyAny>>>) {
    from_library((), |py| {
        if let Some((func, user)) = unsafe { Box::from_raw(ud as *mut Holder) }.into_objects() {
            call(py, &func.into_bound(py), (), args(py, user), |_| Ok(()));
        }
    })
}

/// A repeating callback: calls the holder's function (nothing once it was released).
fn call_kept<R: Copy>(
    ud: *mut c_void,
    default: R,
    args: impl FnOnce(Python<'_>, Py<PyAny>) -> PyResult<Vec<Py<PyAny>>>,
    done: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<R>,
) -> R {
    from_library(default, |py| {
        // SAFETY: the holders of repeating kinds are never freed.
        let h = unsafe { &*(ud as *const Holder) };
        let objects = h.slot().as_ref().map(|(f, u)| (f.bind(py).clone(), u.clone_ref(py)));
        match objects {
            Some((func, user)) => call(py, &func, default, args(py, user), done),
            None => default,
        }
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
            let record = if info.is_null() {
                py.None()
            } else {
                cls.call_method1("from_buffer_copy", (PyBytes::new(py, bytes),))?.unbind()
            };
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
        let Some(f) = OCCUPANCY.with(|s| s.borrow().as_ref().map(|f| f.bind(py).clone())) else {
            return 0;
        };
        let args = block_size.into_pyobject(py).map(|b| vec![b.into_any().unbind()]).map_err(PyErr::from);
        call(py, &f, 0, args, |r| r.extract::<usize>())
    })
}
