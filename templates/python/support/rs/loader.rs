//! What the loader bound, for `python -m cudagen`: each module's `_bind_all()` and
//! `_cudagen._rebound()` (the entries bound under another export than their header's symbol).

use crate::entry;
use cudagen::loader::{self, Binding};
use pyo3::ffi;
use pyo3::prelude::*;

/// `(library, path or None, entries bound, entries)` of one [`Binding`].
pub fn binding(py: Python<'_>, b: Binding) -> PyResult<Py<PyAny>> {
    let library = format!("{:?}", b.library);
    Ok((library, b.path, b.bound, b.entries).into_pyobject(py)?.into_any().unbind())
}

/// `_rebound()`: `[(library, path, symbol, bound), ...]` in the order bound.
unsafe extern "C" fn rebound(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        entry::run(|py| {
            entry::args(py, "_rebound", &[], 0, args, nargs, kwnames)?;
            let all = loader::rebound().into_iter().map(|r| (format!("{:?}", r.library), r.path, r.symbol, r.bound));
            Ok(all.collect::<Vec<_>>().into_pyobject(py)?.into_any().unbind())
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let doc = c"_rebound()\n--\n\nEntries bound under another export than their symbol: (library, path, symbol, bound).";
    entry::add_all(m, "cudagen._cudagen", &[(c"_rebound", rebound, doc)])
}
