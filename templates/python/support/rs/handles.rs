//! Handle classes (`CUdevice`, `CUcontext`, `nvrtcProgram`, ...): one small, final heap type per
//! handle typedef, holding the C value in place so `getPtr()` is the address of the C object.
//!
//! They are written against the stable C API rather than `#[pyclass]` because a handle is
//! created and freed on nearly every call: here that is one `PyType_GenericAlloc` and one
//! `PyObject_Free`, with no per-object bookkeeping.
//!
//! A class also takes the objects the IR lets stand for it (`HandleType::stand_ins`: our
//! `CUkernel` where a `CUfunction` goes) and NVIDIA's handle objects of the same C type
//! (`HandleType::foreign`: `cuda.bindings.runtime.cudaStream_t` for `CUstream`), found by their
//! qualified class name, so NVIDIA's package is never imported here.

use crate::conv::{self, Ctx};
use crate::entry::guarded;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};
use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// The instance layout: the object header, the C value, the class it belongs to, and the
/// address of the C value when the object views memory it was given (`_ptr=`; null when the
/// value is `value`).
#[repr(C)]
struct HandleObject {
    ob_base: ffi::PyObject,
    value: u64,
    class: *const HandleType,
    at: *mut u8,
}

/// One handle class: its C shape, what else it takes, and, once registered, its type object.
pub struct HandleType {
    module: &'static str,
    pub name: &'static str,
    pub bits: u32,
    pub signed: bool,
    pub pointer: bool,
    /// The value is an address of memory (`CUdeviceptr`): a `void *` parameter takes the value
    /// itself, as cuda.bindings takes a `driver.CUdeviceptr` there ([`address_value`]).
    pub address: bool,
    /// Our other classes whose objects stand for this one (`CUkernel` for `CUfunction`).
    stand_ins: &'static [&'static HandleType],
    /// Qualified names of NVIDIA's classes of the same C type (`cuda.bindings.driver.CUstream`).
    foreign: &'static [&'static str],
    ty: AtomicPtr<ffi::PyTypeObject>,
}

impl HandleType {
    pub const fn new(
        module: &'static str,
        name: &'static str,
        bits: u32,
        signed: bool,
        pointer: bool,
        address: bool,
        stand_ins: &'static [&'static HandleType],
        foreign: &'static [&'static str],
    ) -> Self {
        HandleType { module, name, bits, signed, pointer, address, stand_ins, foreign, ty: AtomicPtr::new(std::ptr::null_mut()) }
    }

    /// The C value of `o` when it is not an object of this class but stands for one: an object
    /// of a stand-in class, or NVIDIA's object of the same C type (read through its `__int__`).
    /// `None` for anything else; a handle object of another C type is a `TypeError` naming both.
    #[cold]
    pub fn stand_in(&self, o: &Bound<'_, PyAny>, c: &Ctx) -> Option<PyResult<u64>> {
        if let Some((raw, _)) = any_handle(o) {
            let theirs = class_of(o.as_ptr());
            return Some(if self.stand_ins.iter().any(|h| std::ptr::eq(*h, theirs)) {
                Ok(raw & self.mask())
            } else {
                Err(self.other_type(theirs.name, c))
            });
        }
        let name = foreign_class(o)?;
        if !self.foreign.contains(&name) {
            return Some(Err(self.other_type(name, c)));
        }
        Some(self.foreign_value(o, c))
    }

    /// The value of NVIDIA's handle object `o` (its `int()`), in this class's range.
    fn foreign_value(&self, o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
        // SAFETY: attached; a NULL result carries a Python error.
        let v = unsafe { Bound::from_owned_ptr_or_err(o.py(), ffi::PyNumber_Long(o.as_ptr()))? };
        self.from_int(&v, c)
    }

    /// The C value the int `v` stands for: any 64-bit pattern for a pointer handle (two's
    /// complement for negatives), a C `intptr_t` for a signed one (a module whose addresses are
    /// `intptr_t`), else an integer of the class's width and sign.
    #[inline(always)]
    pub fn from_int(&self, v: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
        if self.pointer && !self.signed {
            conv::int_either(v, c)
        } else {
            conv::int(v, self.bits, self.signed, c)
        }
    }

    fn mask(&self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    #[cold]
    fn other_type(&self, theirs: &str, c: &Ctx) -> PyErr {
        PyTypeError::new_err(format!(
            "{} must be {}, not {}: a handle of another C type than {}",
            c.place(),
            c.expected,
            theirs,
            self.name
        ))
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
        if self.signed {
            conv::sext(v, self.bits, true) as i128
        } else {
            v as i128
        }
    }

    fn create(&'static self, py: Python<'_>) -> PyResult<*mut ffi::PyTypeObject> {
        let leak = |s: String| CString::new(s).map(|c| c.into_raw() as *const std::ffi::c_char);
        let name = leak(format!("{}.{}", self.module, self.name))?;
        let kind = if self.pointer { "a C pointer".to_string() } else { format!("a {}-bit integer", self.bits) };
        let doc = leak(format!(
            "{n}(init_value=None, _ptr=0)\n--\n\nHandle `{n}` ({kind}): built from an int, another `{n}` (or an object of the same C type) or None (0). With `_ptr`, the address of a C `{n}`, the object views that value (`getPtr()` is `_ptr`).",
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

/// The address an address handle stands for where a `void *` goes: the value of our handle of
/// an address class, or of NVIDIA's object of the same C type (its `int()`); `None` for
/// anything else (which then goes by `getPtr()`, a buffer or `__index__`).
pub fn address_value(o: &Bound<'_, PyAny>, c: &Ctx) -> Option<PyResult<u64>> {
    if let Some((raw, _)) = any_handle(o) {
        return class_of(o.as_ptr()).address.then_some(Ok(raw));
    }
    let name = foreign_class(o)?;
    let class = REGISTRY.lock().ok()?.iter().map(|(_, h)| *h).find(|h| h.address && h.foreign.contains(&name))?;
    Some(class.foreign_value(o, c))
}

/// Address of the C value a handle object holds (what `getPtr()` returns).
#[inline]
pub fn value_addr(o: &Bound<'_, PyAny>) -> Option<usize> {
    any_handle(o).map(|_| value_addr_of(o.as_ptr()))
}

/// NVIDIA's handle classes met so far, by type object (each kept alive): their qualified names.
static FOREIGN: Mutex<Vec<(usize, &'static str)>> = Mutex::new(Vec::new());

/// The qualified name (`cuda.bindings.runtime.cudaStream_t`) of `o`'s class when it is a class
/// of NVIDIA's package with `getPtr()` (a handle or value class), else None. Looked up once per
/// class; nothing is imported.
pub fn foreign_class(o: &Bound<'_, PyAny>) -> Option<&'static str> {
    let ty = o.get_type();
    let key = ty.as_ptr() as usize;
    if let Some((_, n)) = FOREIGN.lock().ok()?.iter().find(|(t, _)| *t == key) {
        return Some(n);
    }
    let module = conv::attr_opt(ty.as_any(), c"__module__")?;
    let module = module.cast::<pyo3::types::PyString>().ok()?.to_str().ok()?.to_owned();
    if !module.starts_with("cuda.bindings.") || conv::attr_opt(ty.as_any(), c"getPtr").is_none() {
        return None;
    }
    let qualname = conv::attr_opt(ty.as_any(), c"__qualname__")?;
    let name: &'static str =
        Box::leak(format!("{module}.{}", qualname.cast::<pyo3::types::PyString>().ok()?.to_str().ok()?).into_boxed_str());
    // SAFETY: attached; the reference taken keeps the type (the cache key) alive for the process.
    unsafe { ffi::Py_IncRef(ty.as_ptr()) };
    FOREIGN.lock().ok()?.push((key, name));
    Some(name)
}

/// Registered classes by type object, for `tp_new` (a handful per module).
static REGISTRY: Mutex<Vec<(usize, &'static HandleType)>> = Mutex::new(Vec::new());

fn class_of_type(ty: *mut ffi::PyTypeObject) -> Option<&'static HandleType> {
    REGISTRY.lock().ok()?.iter().find(|(t, _)| *t == ty as usize).map(|(_, h)| *h)
}

/// The handle class whose type object is `cls`, if it is one.
pub fn handle_type(cls: &Bound<'_, PyAny>) -> Option<&'static HandleType> {
    class_of_type(cls.as_ptr() as *mut ffi::PyTypeObject)
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

#[inline(always)]
fn value_of(o: *mut ffi::PyObject) -> u64 {
    // SAFETY: only called on instances of our handle types.
    let h = unsafe { &*(o as *mut HandleObject) };
    if h.at.is_null() {
        return h.value;
    }
    // SAFETY: `at` is the address the object was built to view (`_ptr=`), the caller's promise.
    unsafe { read_at(h.at, (*h.class).bits) }
}

/// The C value of `bits` bits at `p`.
///
/// # Safety
/// `p` points at a readable C value of that width.
#[cold]
unsafe fn read_at(p: *const u8, bits: u32) -> u64 {
    unsafe {
        match bits {
            8 => *p as u64,
            16 => std::ptr::read_unaligned(p as *const u16) as u64,
            32 => std::ptr::read_unaligned(p as *const u32) as u64,
            _ => std::ptr::read_unaligned(p as *const u64),
        }
    }
}

/// Stores the C value `v` of `bits` bits at `p`.
///
/// # Safety
/// `p` points at a writable C value of that width.
unsafe fn write_at(p: *mut u8, bits: u32, v: u64) {
    unsafe {
        match bits {
            8 => *p = v as u8,
            16 => std::ptr::write_unaligned(p as *mut u16, v as u16),
            32 => std::ptr::write_unaligned(p as *mut u32, v as u32),
            _ => std::ptr::write_unaligned(p as *mut u64, v),
        }
    }
}

fn value_addr_of(o: *mut ffi::PyObject) -> usize {
    // SAFETY: only called on instances of our handle types.
    unsafe {
        let h = o as *mut HandleObject;
        if (*h).at.is_null() {
            std::ptr::addr_of_mut!((*h).value) as usize
        } else {
            (*h).at as usize
        }
    }
}

unsafe extern "C" fn tp_new(
    subtype: *mut ffi::PyTypeObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    guarded(std::ptr::null_mut(), |py| {
        let h = class_of_type(subtype).ok_or_else(|| PyRuntimeError::new_err("unknown handle class"))?;
        let args = unsafe { Bound::from_borrowed_ptr(py, args) }.cast_into::<PyTuple>()?;
        let kwargs = unsafe { Bound::from_borrowed_ptr_or_opt(py, kwargs) };
        let [init, at] = new_args(h, &args, kwargs)?;
        let c = Ctx { func: h.name, param: "init_value", expected: "a handle of this class, int or None" };
        let v = match &init {
            None => 0,
            Some(o) => conv::handle(h, o, &c)?,
        };
        let at = match &at {
            None => 0,
            Some(o) => conv::int(o, 64, false, &Ctx { func: h.name, param: "_ptr", expected: "int" })? as usize,
        };
        // SAFETY: `subtype` is the type object of `h` (handle classes are final).
        let o = unsafe { new_object(py, subtype, v, h)? };
        if at != 0 {
            // SAFETY: `o` is ours, just made. `_ptr` is the caller's address of a C value of this
            // type, as in cuda.bindings: the object views it; a non-zero integer value given with
            // it is stored there (pointer handles leave it as it is, as cuda.bindings does).
            unsafe {
                (*(o as *mut HandleObject)).at = at as *mut u8;
                if v != 0 && !h.pointer {
                    write_at(at as *mut u8, h.bits, v);
                }
            }
        }
        Ok(o)
    })
}

/// `(init_value=None, _ptr=0)` of a constructor call, by position or keyword.
fn new_args<'py>(
    h: &HandleType,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<Bound<'py, PyAny>>,
) -> PyResult<[Option<Bound<'py, PyAny>>; 2]> {
    const NAMES: [&str; 2] = ["init_value", "_ptr"];
    if args.len() > 2 {
        return Err(PyTypeError::new_err(format!("{}() takes at most 2 arguments ({} given)", h.name, args.len())));
    }
    let mut out: [Option<Bound<'py, PyAny>>; 2] = [None, None];
    for (slot, a) in out.iter_mut().zip(args.iter()) {
        *slot = Some(a);
    }
    if let Some(kw) = kwargs {
        for (k, v) in kw.cast_into::<PyDict>()?.iter() {
            let key = k.cast::<pyo3::types::PyString>().ok().and_then(|k| k.to_str().ok().map(str::to_owned));
            let slot = key.and_then(|k| NAMES.iter().position(|n| *n == k));
            match slot {
                Some(i) if out[i].is_none() => out[i] = Some(v),
                Some(i) => {
                    return Err(PyTypeError::new_err(format!("{}() got multiple values for argument '{}'", h.name, NAMES[i])))
                }
                None => {
                    return Err(PyTypeError::new_err(format!("{}() got an unexpected keyword argument {}", h.name, k.repr()?)))
                }
            }
        }
    }
    Ok(out)
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
    guarded(std::ptr::null_mut(), |py| Ok(value_addr_of(o).into_pyobject(py)?.into_ptr()))
}
