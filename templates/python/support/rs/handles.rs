//! Handle classes (`CUdevice`, `CUcontext`, `nvrtcProgram`, ...): one small, final heap type per
//! handle typedef, holding the C value in place so `getPtr()` is the address of the C object.
//!
//! They are written against the stable C API rather than `#[pyclass]` because a handle is
//! created and freed on nearly every call: here that is one `PyType_GenericAlloc` and one
//! `PyObject_Free`, with no per-object bookkeeping.

use crate::conv::{self, Ctx};
use crate::entry::guarded;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};
use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// The instance layout: the object header, the C value, and the class it belongs to.
#[repr(C)]
struct HandleObject {
    ob_base: ffi::PyObject,
    value: u64,
    class: *const HandleType,
}

/// One handle class: its C shape and, once registered, its type object.
pub struct HandleType {
    module: &'static str,
    name: &'static str,
    pub bits: u32,
    pub signed: bool,
    pub pointer: bool,
    ty: AtomicPtr<ffi::PyTypeObject>,
}

impl HandleType {
    pub const fn new(module: &'static str, name: &'static str, bits: u32, signed: bool, pointer: bool) -> Self {
        HandleType { module, name, bits, signed, pointer, ty: AtomicPtr::new(std::ptr::null_mut()) }
    }

    /// The value of `o` if it is an instance of this class.
    #[inline(always)]
    pub fn raw_of(&self, o: &Bound<'_, PyAny>) -> Option<u64> {
        let p = o.as_ptr();
        // SAFETY: every object has a type; a match means `o` has our layout.
        (unsafe { ffi::Py_TYPE(p) } == self.ty.load(Ordering::Relaxed)).then(|| value_of(p))
    }

    /// A new instance holding `v`.
    #[inline(always)]
    pub fn wrap(&'static self, py: Python<'_>, v: u64) -> PyResult<Py<PyAny>> {
        let ty = self.registered()?;
        // SAFETY: attached; `ty` is this class's type object.
        unsafe { new_object(py, ty, v, self).map(|o| Bound::from_owned_ptr(py, o).unbind()) }
    }

    /// The type object (registered).
    pub fn type_object<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let ty = self.registered()?;
        // SAFETY: a live type object we keep a reference to for the life of the process.
        Ok(unsafe { Bound::from_borrowed_ptr(py, ty as *mut ffi::PyObject) })
    }

    #[inline(always)]
    fn registered(&self) -> PyResult<*mut ffi::PyTypeObject> {
        let ty = self.ty.load(Ordering::Relaxed);
        if ty.is_null() {
            return Err(PyRuntimeError::new_err(format!("handle class {} is not registered", self.name)));
        }
        Ok(ty)
    }

    /// Creates the type (once per process) and adds it to `m`.
    pub fn register(&'static self, m: &Bound<'_, PyModule>) -> PyResult<()> {
        if self.ty.load(Ordering::Acquire).is_null() {
            let ty = self.create(m.py())?;
            self.ty.store(ty, Ordering::Release);
        }
        m.add(self.name, self.type_object(m.py())?)
    }

    /// Signed view of the value (for ints, repr, hash and comparisons).
    fn value(&self, v: u64) -> i128 {
        if self.signed { conv::sext(v, self.bits, true) as i128 } else { v as i128 }
    }

    fn create(&'static self, py: Python<'_>) -> PyResult<*mut ffi::PyTypeObject> {
        let leak = |s: String| CString::new(s).map(|c| c.into_raw() as *const std::ffi::c_char);
        let name = leak(format!("{}.{}", self.module, self.name))?;
        let kind = if self.pointer { "a C pointer".to_string() } else { format!("a {}-bit integer", self.bits) };
        let doc = leak(format!(
            "{n}(init_value=None)\n--\n\nHandle `{n}` ({kind}): built from an int, another `{n}` or None (0).",
            n = self.name
        ))?;
        let methods: &'static mut [ffi::PyMethodDef] = Box::leak(Box::new([
            ffi::PyMethodDef {
                ml_name: c"getPtr".as_ptr(),
                ml_meth: ffi::PyMethodDefPointer { PyCFunction: get_ptr },
                ml_flags: ffi::METH_NOARGS,
                ml_doc: c"getPtr($self, /)\n--\n\nAddress of the C value this object holds.".as_ptr(),
            },
            ffi::PyMethodDef::zeroed(),
        ]));
        let slot = |slot: c_int, pfunc: *mut c_void| ffi::PyType_Slot { slot, pfunc };
        let slots: &'static mut [ffi::PyType_Slot] = Box::leak(Box::new([
            slot(ffi::Py_tp_new, tp_new as *mut c_void),
            slot(ffi::Py_tp_dealloc, tp_dealloc as *mut c_void),
            slot(ffi::Py_tp_repr, tp_repr as *mut c_void),
            slot(ffi::Py_tp_hash, tp_hash as *mut c_void),
            slot(ffi::Py_tp_richcompare, tp_richcompare as *mut c_void),
            slot(ffi::Py_nb_int, nb_index as *mut c_void),
            slot(ffi::Py_nb_index, nb_index as *mut c_void),
            slot(ffi::Py_tp_methods, methods.as_mut_ptr() as *mut c_void),
            slot(ffi::Py_tp_doc, doc as *mut c_void),
            slot(0, std::ptr::null_mut()),
        ]));
        let spec: &'static mut ffi::PyType_Spec = Box::leak(Box::new(ffi::PyType_Spec {
            name,
            basicsize: std::mem::size_of::<HandleObject>() as c_int,
            itemsize: 0,
            // final (no BASETYPE) and immutable, like the classes of cuda.bindings
            flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_IMMUTABLETYPE) as _,
            slots: slots.as_mut_ptr(),
        }));
        // SAFETY: attached; the spec and everything it points to live for the process.
        let ty = unsafe { ffi::PyType_FromSpec(spec) };
        if ty.is_null() {
            return Err(PyErr::fetch(py));
        }
        REGISTRY.lock().map_err(|_| PyRuntimeError::new_err("handle registry poisoned"))?.push((ty as usize, self));
        Ok(ty as *mut ffi::PyTypeObject)
    }
}

/// The C value of any handle object (of any handle class) and its integer meaning, without
/// going through `__index__`.
#[inline]
pub fn any_handle(o: &Bound<'_, PyAny>) -> Option<(u64, i128)> {
    // SAFETY: PyType_GetSlot reads a slot of a live type; a match means `o` has our layout.
    unsafe {
        let slot = ffi::PyType_GetSlot(ffi::Py_TYPE(o.as_ptr()), ffi::Py_tp_dealloc);
        if slot != tp_dealloc as *mut c_void {
            return None;
        }
        let v = value_of(o.as_ptr());
        Some((v, class_of(o.as_ptr()).value(v)))
    }
}

/// Address of the C value a handle object holds (what `getPtr()` returns).
#[inline]
pub fn value_addr(o: &Bound<'_, PyAny>) -> Option<usize> {
    any_handle(o).map(|_| value_addr_of(o.as_ptr()))
}

/// Registered classes by type object, for `tp_new` (a handful per module).
static REGISTRY: Mutex<Vec<(usize, &'static HandleType)>> = Mutex::new(Vec::new());

fn class_of_type(ty: *mut ffi::PyTypeObject) -> Option<&'static HandleType> {
    REGISTRY.lock().ok()?.iter().find(|(t, _)| *t == ty as usize).map(|(_, h)| *h)
}

/// The class of a handle object.
fn class_of(o: *mut ffi::PyObject) -> &'static HandleType {
    // SAFETY: only called on instances of our handle types, whose class is set at creation.
    unsafe { &*(*(o as *mut HandleObject)).class }
}

/// A new instance of `ty` holding `value`.
///
/// # Safety
/// Attached; `ty` is the type object of `class`.
#[inline(always)]
unsafe fn new_object(
    py: Python<'_>,
    ty: *mut ffi::PyTypeObject,
    value: u64,
    class: &'static HandleType,
) -> PyResult<*mut ffi::PyObject> {
    // GenericAlloc returns a zeroed object of our basicsize, or NULL with an error set.
    let o = unsafe { ffi::PyType_GenericAlloc(ty, 0) };
    if o.is_null() {
        return Err(PyErr::fetch(py));
    }
    let h = o as *mut HandleObject;
    unsafe {
        (*h).value = value;
        (*h).class = class;
    }
    Ok(o)
}

fn value_of(o: *mut ffi::PyObject) -> u64 {
    // SAFETY: only called on instances of our handle types.
    unsafe { (*(o as *mut HandleObject)).value }
}

fn value_addr_of(o: *mut ffi::PyObject) -> usize {
    // SAFETY: only called on instances of our handle types.
    unsafe { std::ptr::addr_of_mut!((*(o as *mut HandleObject)).value) as usize }
}

unsafe extern "C" fn tp_new(subtype: *mut ffi::PyTypeObject, args: *mut ffi::PyObject, kwargs: *mut ffi::PyObject) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        let h = class_of_type(subtype).ok_or_else(|| PyRuntimeError::new_err("unknown handle class"))?;
        let args = unsafe { Bound::from_borrowed_ptr(py, args) }.cast_into::<PyTuple>()?;
        let kwargs = unsafe { Bound::from_borrowed_ptr_or_opt(py, kwargs) };
        let c = Ctx { func: h.name, param: "init_value", expected: "a handle of this class, int or None" };
        let mut given = if args.len() > 1 {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!("{}() takes at most 1 argument", h.name)));
        } else {
            args.iter().next()
        };
        if let Some(kw) = kwargs {
            let kw = kw.cast_into::<PyDict>()?;
            for (k, v) in kw.iter() {
                if k.extract::<&str>().ok() != Some("init_value") || given.is_some() {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "{}() got an unexpected keyword argument {}",
                        h.name,
                        k.repr()?
                    )));
                }
                given = Some(v);
            }
        }
        let v = match given {
            None => 0,
            Some(o) => conv::handle(h, &o, &c)?,
        };
        // SAFETY: `subtype` is the type object of `h` (handle classes are final).
        unsafe { new_object(py, subtype, v, h) }
    })
}

unsafe extern "C" fn tp_dealloc(o: *mut ffi::PyObject) {
    // SAFETY: the interpreter hands over the last reference; heap-type instances own a
    // reference to their type (taken by PyType_GenericAlloc).
    unsafe {
        let ty = ffi::Py_TYPE(o);
        ffi::PyObject_Free(o as *mut c_void);
        ffi::Py_DecRef(ty as *mut ffi::PyObject);
    }
}

unsafe extern "C" fn tp_repr(o: *mut ffi::PyObject) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        let h = class_of(o);
        let v = value_of(o);
        let s = if h.pointer { format!("<{} 0x{:x}>", h.name, v) } else { format!("<{} {}>", h.name, h.value(v)) };
        Ok(s.into_pyobject(py)?.into_ptr())
    })
}

unsafe extern "C" fn tp_hash(o: *mut ffi::PyObject) -> ffi::Py_hash_t {
    guarded(-1, |_| {
        let h = class_of(o);
        let v = h.value(value_of(o)) as i64 as ffi::Py_hash_t;
        Ok(if v == -1 { -2 } else { v }) // -1 means "error" to the interpreter
    })
}

unsafe extern "C" fn tp_richcompare(o: *mut ffi::PyObject, other: *mut ffi::PyObject, op: c_int) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        let h = class_of(o);
        if op != ffi::Py_EQ && op != ffi::Py_NE {
            return Ok(py.NotImplemented().into_ptr());
        }
        let other = unsafe { Bound::from_borrowed_ptr(py, other) };
        let mine = h.value(value_of(o));
        let equal = if let Some(v) = h.raw_of(&other) {
            h.value(v) == mine
        } else if other.is_instance_of::<PyInt>() {
            conv::long_value(&other) == Some(mine)
        } else {
            false
        };
        Ok(pyo3::types::PyBool::new(py, equal == (op == ffi::Py_EQ)).to_owned().into_any().into_ptr())
    })
}

unsafe extern "C" fn nb_index(o: *mut ffi::PyObject) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        let h = class_of(o);
        Ok(h.value(value_of(o)).into_pyobject(py)?.into_ptr())
    })
}

unsafe extern "C" fn get_ptr(o: *mut ffi::PyObject, _: *mut ffi::PyObject) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        Ok(value_addr_of(o).into_pyobject(py)?.into_ptr())
    })
}
