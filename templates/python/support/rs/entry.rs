//! How Python enters a generated function: CPython's vectorcall convention
//! (`METH_FASTCALL | METH_KEYWORDS`) called directly, without a per-call trampoline. Arguments
//! arrive as a pointer array and are matched by position, then by keyword; the body's result or
//! error (or a panic, as `RuntimeError`) is handed back as CPython expects.
//!
//! PyO3 does not count the thread as attached here (that bookkeeping costs about 250
//! instructions per call), so a `Py` or `PyErr` dropped in a body is queued rather than
//! released: bodies drop objects as `Bound` and clear failed lookups at the C level
//! (`conv::attr_opt`), and a failed call releases whatever was queued.

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use std::ffi::CStr;
use std::ptr::null_mut;

/// The C signature of a fastcall-with-keywords function.
pub type Fastcall = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

/// Runs a binding body: its object, or NULL with the Python error set.
///
/// # Safety
/// Called only by the interpreter, with this thread attached.
#[inline(always)]
pub unsafe fn run(body: impl FnOnce(Python<'_>) -> PyResult<Py<PyAny>>) -> *mut ffi::PyObject {
    unsafe { guarded(null_mut(), |py| body(py).map(Py::into_ptr)) }
}

/// Runs the body of a function the interpreter calls (a binding or a type slot): its result, or
/// `err` with the Python error set (a panic becomes `RuntimeError`).
///
/// # Safety
/// Called only by the interpreter, with this thread attached.
#[inline(always)]
pub unsafe fn guarded<R>(err: R, body: impl FnOnce(Python<'_>) -> PyResult<R>) -> R {
    let py = unsafe { Python::assume_attached() };
    let e = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(py))) {
        Ok(Ok(r)) => return r,
        Ok(Err(e)) => e,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            PyRuntimeError::new_err(format!("internal error in cudagen: {msg}"))
        }
    };
    // A failed call may have dropped a `Py` or `PyErr` on its way, which PyO3 only queued (this
    // entry keeps out of its attach bookkeeping, for speed): attaching through PyO3 once, on
    // this cold path, releases the queue.
    Python::attach(|_| ());
    e.restore(py);
    err
}

/// The `N` arguments of a call, in parameter order (positional first, then keywords); the first
/// `required` must be given, the others default to 0 (as cuda.bindings' `numNodes=0`). All `N`
/// given by position (the common call) is inlined at each call site; keywords, defaults and
/// errors go to [`args_slow`].
///
/// # Safety
/// `args`, `nargs` and `kwnames` are what the interpreter passed to a fastcall function.
#[inline(always)]
pub unsafe fn args<const N: usize>(
    py: Python<'_>,
    func: &str,
    names: &[&str; N],
    required: usize,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<[*mut ffi::PyObject; N]> {
    if kwnames.is_null() && nargs as usize == N {
        // SAFETY: the interpreter passed N positional arguments.
        return Ok(std::array::from_fn(|k| unsafe { *args.add(k) }));
    }
    unsafe { args_slow(py, func, names, required, args, nargs, kwnames) }
}

/// [`args`] with keywords, or a wrong count.
///
/// # Safety
/// As [`args`].
#[cold]
#[inline(never)]
unsafe fn args_slow<const N: usize>(
    py: Python<'_>,
    func: &str,
    names: &[&str; N],
    required: usize,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> PyResult<[*mut ffi::PyObject; N]> {
    let n = nargs as usize;
    let mut out = [null_mut(); N];
    if n > N {
        return Err(PyTypeError::new_err(format!("{func}() takes {N} positional arguments but {n} were given")));
    }
    for (k, slot) in out.iter_mut().enumerate().take(n) {
        *slot = unsafe { *args.add(k) };
    }
    if !kwnames.is_null() {
        // SAFETY: kwnames is a tuple of str; the values follow the positional arguments.
        let kw = unsafe { Bound::ref_from_ptr(py, &kwnames) }.cast::<PyTuple>()?;
        for (j, name) in kw.iter().enumerate() {
            let name = name.cast::<PyString>()?.to_cow()?;
            match names.iter().position(|p| name == *p) {
                Some(k) if out[k].is_null() => out[k] = unsafe { *args.add(n + j) },
                Some(_) => return Err(PyTypeError::new_err(format!("{func}() got multiple values for argument '{name}'"))),
                None => return Err(PyTypeError::new_err(format!("{func}() got an unexpected keyword argument '{name}'"))),
            }
        }
    }
    for slot in out.iter_mut().skip(required).filter(|p| p.is_null()) {
        *slot = zero(py);
    }
    if let Some(k) = out.iter().position(|p| p.is_null()) {
        return Err(PyTypeError::new_err(format!("{func}() missing required argument '{}' (pos {})", names[k], k + 1)));
    }
    Ok(out)
}

/// The int 0 that stands for a left-out argument: one reference kept for the process.
fn zero(py: Python<'_>) -> *mut ffi::PyObject {
    static ZERO: std::sync::OnceLock<Py<PyAny>> = std::sync::OnceLock::new();
    ZERO.get_or_init(|| {
        let Ok(v) = 0i64.into_pyobject(py);
        v.into_any().unbind()
    })
    .as_ptr()
}

/// One argument as a borrowed `&Bound` (no reference count traffic).
///
/// # Safety
/// `p` comes from [`args`] of the running call.
#[inline(always)]
pub unsafe fn arg<'a, 'py>(py: Python<'py>, p: &'a *mut ffi::PyObject) -> &'a Bound<'py, PyAny> {
    unsafe { Bound::ref_from_ptr(py, p) }
}

/// Adds fastcall functions to `m` (their definitions live for the process).
pub fn add_all(m: &Bound<'_, PyModule>, module: &str, defs: &[(&'static CStr, Fastcall, &'static CStr)]) -> PyResult<()> {
    let py = m.py();
    let module_name = PyString::new(py, module);
    let table: &'static mut [ffi::PyMethodDef] = Box::leak(
        defs.iter()
            .map(|(name, f, doc)| ffi::PyMethodDef {
                ml_name: name.as_ptr(),
                ml_meth: ffi::PyMethodDefPointer { PyCFunctionFastWithKeywords: *f },
                ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
                ml_doc: doc.as_ptr(),
            })
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    );
    for (def, (name, _, _)) in table.iter_mut().zip(defs) {
        // SAFETY: attached; `def` is 'static; NULL comes back with a Python error.
        let f = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyCFunction_NewEx(def, null_mut(), module_name.as_ptr()))? };
        m.add(name.to_str().unwrap_or("?"), f)?;
    }
    Ok(())
}
