//! Cached Python objects looked up by name in the `cudagen.<module>` package modules: enum
//! members (so returning a status allocates nothing) and record classes.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::collections::HashMap;

/// Values from `min` below `min + DENSE_SPAN` are looked up by index; the few beyond (the
/// runtime's `cudaErrorApiFailureBase = 10000` beside codes up to 999) in `sparse`, so one far
/// value does not send every status of its enum to the slow path.
const DENSE_SPAN: i64 = 4096;

struct EnumTable {
    cls: Py<PyAny>,
    min: i64,
    dense: Vec<Option<Py<PyAny>>>,
    sparse: HashMap<i64, Py<PyAny>>,
}

impl EnumTable {
    /// The index of `v` in `dense` when it falls in the dense span.
    fn index(min: i64, v: i64) -> Option<usize> {
        v.checked_sub(min).filter(|i| *i < DENSE_SPAN).and_then(|i| usize::try_from(i).ok())
    }

    /// The member of value `v`: the first declared one of that value.
    fn lookup(&self, v: i64) -> Option<&Py<PyAny>> {
        match Self::index(self.min, v).and_then(|i| self.dense.get(i)) {
            Some(slot) => slot.as_ref(),
            None => self.sparse.get(&v),
        }
    }
}

/// Members of one enum class, by value.
pub struct EnumCache {
    module: &'static str,
    name: &'static str,
    cell: PyOnceLock<EnumTable>,
}

impl EnumCache {
    pub const fn new(module: &'static str, name: &'static str) -> Self {
        EnumCache { module, name, cell: PyOnceLock::new() }
    }

    fn build(&self, py: Python<'_>) -> PyResult<EnumTable> {
        let cls = py.import(self.module)?.getattr(self.name)?;
        let mut members = Vec::new();
        for m in cls.getattr("__members__")?.call_method0("values")?.try_iter()? {
            let m = m?;
            let v: i64 = m.extract()?;
            members.push((v, m.unbind()));
        }
        let min = members.iter().map(|m| m.0).min().unwrap_or(0);
        let dense_len = members.iter().filter_map(|m| EnumTable::index(min, m.0)).max().map_or(0, |i| i + 1);
        let mut t = EnumTable { cls: cls.unbind(), min, dense: (0..dense_len).map(|_| None).collect(), sparse: HashMap::new() };
        for (v, m) in members {
            match EnumTable::index(min, v) {
                Some(i) => {
                    if t.dense[i].is_none() {
                        t.dense[i] = Some(m);
                    }
                }
                None => {
                    t.sparse.entry(v).or_insert(m);
                }
            }
        }
        Ok(t)
    }

    /// The member for `v`; an unknown value (newer driver) becomes a pseudo-member. A known
    /// value of a built dense table is inlined at each call site; the rest is [`Self::get_slow`].
    #[inline(always)]
    pub fn get(&self, py: Python<'_>, v: i64) -> PyResult<Py<PyAny>> {
        if let Some(t) = self.cell.get(py) {
            let hit = v.checked_sub(t.min).and_then(|i| usize::try_from(i).ok()).and_then(|i| t.dense.get(i));
            if let Some(Some(m)) = hit {
                return Ok(m.clone_ref(py));
            }
        }
        self.get_slow(py, v)
    }

    #[cold]
    #[inline(never)]
    fn get_slow(&self, py: Python<'_>, v: i64) -> PyResult<Py<PyAny>> {
        let t = self.cell.get_or_try_init(py, || self.build(py))?;
        match t.lookup(v) {
            Some(m) => Ok(m.clone_ref(py)),
            None => Ok(t.cls.call1(py, (v,))?),
        }
    }
}

/// A record class (`ctypes.Structure` subclass built by `cudagen._classes`) or typedef class.
pub struct ClassCache {
    module: &'static str,
    name: &'static str,
    cell: PyOnceLock<Py<PyAny>>,
}

impl ClassCache {
    pub const fn new(module: &'static str, name: &'static str) -> Self {
        ClassCache { module, name, cell: PyOnceLock::new() }
    }

    pub fn class<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        Ok(self.cell.get_or_try_init(py, || py.import(self.module)?.getattr(self.name).map(Bound::unbind))?.bind(py))
    }

    /// A new instance of a typedef class (`cuuint64_t`) holding `v`.
    pub fn from_int(&self, py: Python<'_>, v: u64) -> PyResult<Py<PyAny>> {
        Ok(self.class(py)?.call1((v,))?.unbind())
    }

    /// A new instance of a record class holding a copy of `size` bytes at `ptr`.
    pub fn from_ptr(&self, py: Python<'_>, ptr: usize, size: u64) -> PyResult<Py<PyAny>> {
        let obj = new_record(self.class(py)?)?;
        match crate::conv::buffer(&obj, true) {
            Some((dst, len)) if len as u64 >= size => {
                unsafe { std::ptr::copy_nonoverlapping(ptr as *const u8, dst as *mut u8, size as usize) };
                Ok(obj.unbind())
            }
            _ => Err(pyo3::exceptions::PyRuntimeError::new_err(format!("{}: record buffer too small", self.name))),
        }
    }
}

/// A new, zeroed instance of record class `cls`, made by its ctypes base's constructor (the
/// class's own `__new__`, `records::record_new`, reads `_ptr=`; a call's result needs neither it
/// nor ctypes' `__init__`).
pub(crate) fn new_record<'py>(cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::ffi;
    let py = cls.py();
    let ty = cls.cast::<pyo3::types::PyType>()?.as_type_ptr();
    // SAFETY: `ty` is a live type object; its base is ctypes' Structure or Union, whose `tp_new`
    // takes (subtype, args, kwargs) and allocates zeroed memory of the subtype's size.
    unsafe {
        let base = ffi::PyType_GetSlot(ty, ffi::Py_tp_base) as *mut ffi::PyTypeObject;
        let new = if base.is_null() { std::ptr::null_mut() } else { ffi::PyType_GetSlot(base, ffi::Py_tp_new) };
        if new.is_null() {
            return cls.call0();
        }
        let new: ffi::newfunc = std::mem::transmute(new);
        let args = pyo3::types::PyTuple::empty(py);
        Bound::from_owned_ptr_or_err(py, new(ty, args.as_ptr(), std::ptr::null_mut()))
    }
}
