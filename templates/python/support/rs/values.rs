//! Storage of values whose C type an enum argument selects (`cuPointerGetAttribute`): words of
//! zeroed `u64` sized from the member type table, read and written here.

use crate::conv::Ctx;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes};

/// The bytes of the storage.
pub fn bytes(w: &[u64]) -> &[u8] {
    // SAFETY: any `u64` is 8 initialised bytes; the slice covers exactly `w`.
    unsafe { core::slice::from_raw_parts(w.as_ptr().cast::<u8>(), w.len() * 8) }
}

fn bytes_mut(w: &mut [u64]) -> &mut [u8] {
    // SAFETY: as in `bytes`, uniquely borrowed.
    unsafe { core::slice::from_raw_parts_mut(w.as_mut_ptr().cast::<u8>(), w.len() * 8) }
}

/// A C truth value (any non-zero integer) as a Python `bool`.
pub fn py_bool(py: Python<'_>, v: u64) -> Py<PyAny> {
    PyBool::new(py, v != 0).to_owned().into_any().unbind()
}

/// Copies `bytes` (NUL added) into the storage; too long is a `ValueError`.
pub fn put_bytes(w: &mut [u64], o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<()> {
    let b = o.cast::<PyBytes>().map_err(|_| c.type_error(o))?.as_bytes();
    let dst = bytes_mut(w);
    if b.len() >= dst.len() || b.contains(&0) {
        return Err(c.value_error(&format!("at most {} bytes without NUL", dst.len() - 1)));
    }
    dst[..b.len()].copy_from_slice(b);
    dst[b.len()] = 0;
    Ok(())
}

/// Copies `size` bytes of the record at `addr` (from `conv::record`) into the storage.
#[allow(dead_code)] // for setters whose member is a record (none in the 12.x tables)
pub fn put_record(w: &mut [u64], addr: usize, size: u64) {
    let dst = bytes_mut(w);
    let n = (size as usize).min(dst.len());
    // SAFETY: `conv::record` returned the address of a live record of `size` bytes.
    let src = unsafe { core::slice::from_raw_parts(addr as *const u8, n) };
    dst[..n].copy_from_slice(src);
}

/// The integers of a list or tuple (enum members included); None is no element, as for every
/// array argument (cuda.bindings: `attributes = [] if attributes is None else attributes`).
pub fn ints(o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<Vec<i64>> {
    if o.is_none() {
        return Ok(Vec::new());
    }
    if !(o.is_instance_of::<pyo3::types::PyList>() || o.is_instance_of::<pyo3::types::PyTuple>()) {
        return Err(c.type_error(o));
    }
    o.try_iter()?.map(|it| it?.extract::<i64>().map_err(|_| c.type_error(o))).collect()
}
