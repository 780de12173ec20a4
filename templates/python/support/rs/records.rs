//! Record fields that take more than a C value: a kernel's argument pointers
//! (`CUDA_KERNEL_NODE_PARAMS.kernelParams`, a field the IR marks `kernel_params`) are packed as a
//! `kernelParams` argument is (`launch::KernelParams`), into memory that lives as long as the
//! object handed back, which the record keeps (`cudagen._classes`).

use crate::conv::Ctx;
use crate::entry;
use crate::launch::KernelParams;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyString};
use std::sync::Mutex;

const EXPECTED: &str = "None, int, buffer of pointers or (values, types)";

/// At most this many record names get their own error messages (the rest share one).
const NAMES: usize = 64;

static INTERNED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

/// `name` as a `'static` string for [`Ctx`]: each distinct record name is leaked once.
fn interned(name: &str) -> &'static str {
    let mut names = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    if names.len() >= NAMES {
        return "record";
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.push(n);
    n
}

/// `_pack_kernel_params(record, value) -> (address, holder)`: `value` in any form
/// `cuLaunchKernel`'s `kernelParams` takes; `holder` owns the packed memory (None: nothing
/// packed), errors name `record`.
unsafe extern "C" fn pack_kernel_params(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        entry::run(|py| {
            let a = entry::args(py, "_pack_kernel_params", &["record", "value"], 2, args, nargs, kwnames)?;
            let record = entry::arg(py, &a[0]).cast::<PyString>()?.to_cow()?;
            let c = Ctx { func: interned(&record), param: "kernelParams", expected: EXPECTED };
            let kp = KernelParams::new(py, entry::arg(py, &a[1]), &c)?;
            let addr = kp.addr();
            let holder = PyCapsule::new_with_value(py, kp, c"cudagen.kernel_params")?;
            Ok((addr, holder).into_pyobject(py)?.into_any().unbind())
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    entry::add_all(
        m,
        "cudagen._cudagen",
        &[(
            c"_pack_kernel_params",
            pack_kernel_params,
            c"_pack_kernel_params(record, value)\n--\n\nPacks a kernelParams record field's value.",
        )],
    )
}
