//! Outputs and results shared by every generated function (hand-written, copied verbatim):
//! storage the library writes outputs to, the Python objects made from them, and the returned
//! tuple (or the failure). Nothing here panics.

use crate::conv::{sext, Ctx, EnumCache, LoaderError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::ffi::CStr;

/// Storage for one output value, aligned for any CUDA record.
#[repr(C, align(16))]
pub struct Out<const W: usize>([u64; W]);

impl<const W: usize> Out<W> {
    #[inline(always)]
    pub fn new() -> Self {
        Out([0; W])
    }
    #[inline(always)]
    pub fn addr(&mut self) -> usize {
        self.0.as_mut_ptr() as usize
    }
    #[inline(always)]
    pub fn u64(&self) -> u64 {
        // the callee wrote through a raw pointer: read without assuming the old value
        unsafe { std::ptr::read_volatile(self.0.as_ptr()) }
    }
    #[inline(always)]
    pub fn ptr(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

/// A count argument (`bits` wide, `signed` or not) used to size an output of `elem` bytes per
/// element: negative or more than 1 GiB in all is an error.
pub fn count(v: u64, bits: u32, signed: bool, elem: u64, c: &Ctx) -> PyResult<usize> {
    let v = sext(v, bits, signed);
    if v < 0 {
        return Err(c.value_error(&format!("the count given for it, {v}, is negative")));
    }
    if (v as u64).saturating_mul(elem.max(1)) > (1 << 30) {
        return Err(c.value_error(&format!("the count given for it, {v}, is too large")));
    }
    Ok(v as usize)
}

pub fn zeroed_words(n: usize, size: u64) -> Vec<u64> {
    vec![0u64; ((n as u64 * size).div_ceil(8)).max(1) as usize]
}

/// Output array without a length: filled with all-ones, read up to the first untouched slot.
pub fn sentinel_words(n: usize, size: u64) -> Vec<u64> {
    vec![u64::MAX; ((n as u64 * size).div_ceil(8)).max(1) as usize]
}

pub fn mask(size: u64) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (size * 8)) - 1
    }
}

pub fn elem(w: &[u64], k: usize, size: u64) -> u64 {
    if size > 8 {
        return 0;
    }
    let mut v = [0u8; 8];
    unsafe { std::ptr::copy_nonoverlapping((w.as_ptr() as *const u8).add(k * size as usize), v.as_mut_ptr(), size as usize) };
    u64::from_le_bytes(v) & mask(size)
}

pub fn elem_addr(w: &[u64], k: usize, size: u64) -> usize {
    w.as_ptr() as usize + k * size as usize
}

/// How many elements of an output array to return.
pub fn used(w: &[u64], n: usize, size: u64, sentinel: bool) -> usize {
    if !sentinel {
        return n;
    }
    (0..n).find(|&k| elem(w, k, size) == mask(size)).unwrap_or(n)
}

#[inline]
pub fn py_int(py: Python<'_>, v: u64, bits: u32, signed: bool) -> PyResult<Py<PyAny>> {
    Ok(if signed {
        sext(v, bits, true).into_pyobject(py)?.into_any().unbind()
    } else {
        (v & if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }).into_pyobject(py)?.into_any().unbind()
    })
}

pub fn py_float(py: Python<'_>, v: u64, bits: u32) -> PyResult<Py<PyAny>> {
    let f = if bits == 32 { f32::from_bits(v as u32) as f64 } else { f64::from_bits(v) };
    Ok(f.into_pyobject(py)?.into_any().unbind())
}

/// A C string the library owns (copied), or None for NULL.
pub fn py_cstr(py: Python<'_>, p: usize) -> PyResult<Py<PyAny>> {
    if p == 0 {
        return Ok(py.None());
    }
    let s = unsafe { std::ffi::CStr::from_ptr(p as *const std::ffi::c_char) };
    Ok(PyBytes::new(py, s.to_bytes()).into_any().unbind())
}

pub fn py_buffer(py: Python<'_>, b: &[u8], string: bool) -> Py<PyAny> {
    let b = if string { b.split(|&c| c == 0).next().unwrap_or(b) } else { b };
    PyBytes::new(py, b).into_any().unbind()
}

pub fn list(py: Python<'_>, n: usize, f: impl Fn(usize) -> PyResult<Py<PyAny>>) -> PyResult<Py<PyAny>> {
    let items = (0..n).map(f).collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any().unbind())
}

/// The `n` elements of `size` bytes of an array the library owns at `p` (`cuStreamGetCaptureInfo`'s
/// dependencies), each made by `f(value, address)`: a list, empty for NULL or a count below 1.
pub fn owned_list(
    py: Python<'_>,
    p: usize,
    n: i128,
    size: u64,
    f: impl Fn(u64, usize) -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let n = if p == 0 { 0 } else { n.clamp(0, 1 << 24) as usize };
    list(py, n, |k| {
        let at = p + k * size as usize;
        let mut v = [0u8; 8];
        // SAFETY: the library wrote `n` elements of `size` bytes at `p` (its own array, valid
        // until its next call on the stream); a record's bytes are read by `f` from `at`.
        unsafe { std::ptr::copy_nonoverlapping(at as *const u8, v.as_mut_ptr(), (size as usize).min(8)) };
        f(u64::from_le_bytes(v), at)
    })
}

/// A tuple of `N` items. The array stays where the caller built it and each slot is read once,
/// by its own 8-byte load: moving it through an iterator copied it with 16-byte loads over
/// 8-byte stores, which the CPU cannot forward (a stall of ~12 cycles each, seen in no
/// instruction count).
#[inline(always)]
pub fn tuple<const N: usize>(py: Python<'_>, items: [Py<PyAny>; N]) -> PyResult<Py<PyAny>> {
    // SAFETY: attached (we hold `py`).
    let t = unsafe { ffi::PyTuple_New(N as ffi::Py_ssize_t) };
    if t.is_null() {
        drop(items);
        return Err(PyErr::fetch(py));
    }
    let items = std::mem::ManuallyDrop::new(items);
    for (k, item) in items.iter().enumerate() {
        // SAFETY: `t` is a fresh tuple of N slots; the slot steals the reference `items` owned
        // (it is never dropped).
        unsafe { set_item(t, k, item.as_ptr()) };
    }
    // SAFETY: `t` is a new reference.
    Ok(unsafe { Bound::from_owned_ptr(py, t) }.unbind())
}

/// Stores `item` (a reference it steals) in slot `k` of the fresh tuple `t`.
///
/// # Safety
/// `t` is a tuple just made with more than `k` empty slots; `item` is an owned reference.
#[inline(always)]
unsafe fn set_item(t: *mut ffi::PyObject, k: usize, item: *mut ffi::PyObject) {
    #[cfg(not(feature = "abi3"))]
    unsafe {
        ffi::PyTuple_SET_ITEM(t, k as ffi::Py_ssize_t, item)
    };
    #[cfg(feature = "abi3")]
    unsafe {
        ffi::PyTuple_SetItem(t, k as ffi::Py_ssize_t, item)
    };
}

/// A tuple of the `n` items `items` yields.
#[inline(always)]
fn tuple_of(py: Python<'_>, n: usize, items: impl Iterator<Item = Py<PyAny>>) -> PyResult<Py<PyAny>> {
    // SAFETY: attached (we hold `py`); a NULL result carries a Python error.
    let t = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyTuple_New(n as ffi::Py_ssize_t))? };
    for (k, item) in items.enumerate().take(n) {
        // SAFETY: `t` is a fresh tuple of n slots; the slot steals the reference.
        unsafe { set_item(t.as_ptr(), k, item.into_ptr()) };
    }
    Ok(t.unbind())
}

/// The result of a function returning a C string; the loader's placeholder for a missing library
/// raises LoaderError, as a status-returning function does.
pub fn cstr_result(py: Python<'_>, p: usize) -> PyResult<Py<PyAny>> {
    if p != 0 {
        // SAFETY: the library returns a NUL-terminated static string (or the loader's placeholder).
        let s = unsafe { CStr::from_ptr(p as *const std::ffi::c_char) };
        if s.to_bytes() == b"(library not loaded)" {
            if let Some(msg) = cudagen::loader::last_error_message() {
                return Err(LoaderError::new_err(msg));
            }
        }
    }
    py_cstr(py, p)
}

/// A failed call: `(status, None, ...)`, or LoaderError when the library could not be loaded.
#[cold]
pub fn fail(py: Python<'_>, status: &EnumCache, code: i64, library_missing: i64, outs: usize) -> PyResult<Py<PyAny>> {
    if code == library_missing {
        if let Some(msg) = cudagen::loader::last_error_message() {
            return Err(LoaderError::new_err(msg));
        }
    }
    let items = std::iter::once(status.get(py, code)?).chain((0..outs).map(|_| py.None()));
    tuple_of(py, outs + 1, items)
}
