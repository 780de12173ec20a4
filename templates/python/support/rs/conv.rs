//! Argument conversions shared by every generated function (hand-written, copied verbatim), and
//! the call itself: arguments become plain integers, passed to the library with the GIL released.
//! Outputs and results are `results` (re-exported here). Nothing here panics.
//!
//! Entry points run without PyO3's attach bookkeeping (see `entry`), so a `Py` or `PyErr`
//! dropped on their way is queued, not released: fallbacks here clear a failed lookup at the C
//! level ([`attr_opt`], [`iter_opt`]) instead of making a `PyErr` to drop.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::ffi::CStr;
use std::mem::{size_of, MaybeUninit};

pub use crate::enums::{ClassCache, EnumCache};
pub use crate::results::*;

pyo3::create_exception!(
    cudagen,
    LoaderError,
    pyo3::exceptions::PyRuntimeError,
    "A CUDA library (libcuda / libnvrtc) or one of its entry points could not be loaded."
);

/// Where a conversion happens, for error messages (no allocation unless an error is raised): an
/// argument `param` of function `func`, or, with `param` empty, the record field `func`
/// (`dim3.x`).
pub struct Ctx<'a> {
    pub func: &'a str,
    pub param: &'a str,
    pub expected: &'a str,
}

impl Ctx<'_> {
    /// `f() argument 'p'`, or the field's `R.f`.
    pub fn place(&self) -> String {
        if self.param.is_empty() {
            self.func.to_string()
        } else {
            format!("{}() argument '{}'", self.func, self.param)
        }
    }
    pub fn type_error(&self, o: &Bound<'_, PyAny>) -> PyErr {
        let tn = o.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("{} must be {}, not {}", self.place(), self.expected, tn))
    }
    pub fn overflow(&self, bits: u32, signed: bool) -> PyErr {
        PyOverflowError::new_err(format!(
            "{} does not fit a {}-bit {} integer",
            self.place(),
            bits,
            if signed { "signed" } else { "unsigned" }
        ))
    }
    pub fn value_error(&self, what: &str) -> PyErr {
        PyValueError::new_err(format!("{}: {}", self.place(), what))
    }
}

fn index<'py>(o: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
    if o.is_instance_of::<PyFloat>() || o.is_instance_of::<PyString>() || o.is_instance_of::<PyBytes>() {
        return None;
    }
    unsafe {
        let r = ffi::PyNumber_Index(o.as_ptr());
        if r.is_null() {
            ffi::PyErr_Clear();
            None
        } else {
            Some(Bound::from_owned_ptr(o.py(), r))
        }
    }
}

#[inline(always)]
fn check_range(v: i128, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    let (lo, hi): (i128, i128) =
        if signed { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) };
    if v < lo || v > hi {
        return Err(c.overflow(bits, signed));
    }
    Ok(v as i64 as u64 & if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 })
}

/// `o.<name>`, or None when `o` has no such attribute (the error cleared, no `PyErr` made).
pub fn attr_opt<'py>(o: &Bound<'py, PyAny>, name: &CStr) -> Option<Bound<'py, PyAny>> {
    // SAFETY: attached; a NULL result's error is cleared here.
    unsafe {
        let r = ffi::PyObject_GetAttrString(o.as_ptr(), name.as_ptr());
        if r.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(Bound::from_owned_ptr(o.py(), r))
    }
}

/// `iter(o)`, or None when `o` is not iterable (the error cleared, no `PyErr` made).
pub fn iter_opt<'py>(o: &Bound<'py, PyAny>) -> Option<Bound<'py, pyo3::types::PyIterator>> {
    // SAFETY: attached; a NULL result's error is cleared here; non-NULL is an iterator.
    unsafe {
        let r = ffi::PyObject_GetIter(o.as_ptr());
        if r.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(Bound::from_owned_ptr(o.py(), r).cast_into_unchecked())
    }
}

/// The value of an int (or int subclass) when it fits in 64 bits of either sign; one C call on
/// the common path, no exception raised and cleared.
#[inline(always)]
pub fn long_value(o: &Bound<'_, PyAny>) -> Option<i128> {
    let mut overflow = 0;
    // SAFETY: attached, `o` is an int: this reads it and sets no error for an int that fits.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(o.as_ptr(), &mut overflow) };
    if overflow == 0 && v != -1 {
        return Some(v as i128);
    }
    long_value_rare(o, v, overflow)
}

/// [`long_value`] for -1 (which may flag an error) and for ints beyond i64.
#[cold]
fn long_value_rare(o: &Bound<'_, PyAny>, v: i64, overflow: i32) -> Option<i128> {
    // SAFETY: attached; an error set here is cleared before returning.
    unsafe {
        if overflow == 0 && ffi::PyErr_Occurred().is_null() {
            return Some(v as i128);
        }
        if overflow > 0 {
            let u = ffi::PyLong_AsUnsignedLongLong(o.as_ptr());
            if !(u == u64::MAX && !ffi::PyErr_Occurred().is_null()) {
                return Some(u as i128);
            }
        }
        ffi::PyErr_Clear();
    }
    None
}

/// An integer argument (int, IntEnum, numpy integer, our handles via `__index__`). Inlined so
/// that the range check folds to constants at each call site.
#[inline(always)]
pub fn int(o: &Bound<'_, PyAny>, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    if o.is_instance_of::<PyInt>() {
        return match long_value(o) {
            Some(v) => check_range(v, bits, signed, c),
            None => Err(c.overflow(bits, signed)),
        };
    }
    int_other(o, bits, signed, c)
}

/// [`int`] for anything but an int: a handle, an object with `__index__`, or one with
/// `__int__` (a float or numpy float, truncated toward zero, as Cython converts them).
fn int_other(o: &Bound<'_, PyAny>, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    if let Some((_, v)) = crate::handles::any_handle(o) {
        return check_range(v, bits, signed, c);
    }
    match index(o) {
        Some(i) => int(&i, bits, signed, c),
        None => match number_int(o, c)? {
            Some(i) => int(&i, bits, signed, c),
            None => Err(c.type_error(o)),
        },
    }
}

/// An integer typedef argument with a class of its own (`cuuint64_t`, `EGLint`): what [`int`]
/// takes, and None as 0, as cuda.bindings converts its typedef classes.
#[inline(always)]
pub fn typedef_int(o: &Bound<'_, PyAny>, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    if o.is_none() {
        return Ok(0);
    }
    int(o, bits, signed, c)
}

/// An enum argument of a module whose oracle reads the member's `.value` (`PyConv::Enum`): a
/// member of any enum or another int (bool included), or an `__index__` object (a numpy
/// integer), checked against the C type's range. A float, a numpy float, a handle (ours or
/// NVIDIA's, though their pointer handles have `__index__`) or an object with only `__int__` is
/// refused with a TypeError naming the enum: no value is truncated into a member.
#[inline(always)]
pub fn enum_value(o: &Bound<'_, PyAny>, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    if o.is_instance_of::<PyInt>() {
        return int(o, bits, signed, c);
    }
    enum_other(o, bits, signed, c)
}

/// [`enum_value`] for anything but an int: an object with only `__int__` says which integer it
/// is (cuda.bindings 13 `int()`s it; 12.x refuses it, so taking it changes no program).
#[cold]
fn enum_other(o: &Bound<'_, PyAny>, bits: u32, signed: bool, c: &Ctx) -> PyResult<u64> {
    if crate::handles::any_handle(o).is_some() || crate::handles::foreign_class(o).is_some() {
        return Err(c.type_error(o));
    }
    match index(o) {
        Some(i) => int(&i, bits, signed, c),
        None if integer_only(o) => match number_int(o, c)? {
            Some(i) => int(&i, bits, signed, c),
            None => Err(c.type_error(o)),
        },
        None => Err(c.type_error(o)),
    }
}

/// `int(o)` through its type's `__int__` slot, as Cython converts an integer argument: a float
/// truncates toward zero, NaN is a `ValueError`, an infinity an `OverflowError`. None when the
/// type has no such slot (str and bytes have none, so no text is parsed).
#[cold]
pub fn number_int<'py>(o: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Option<Bound<'py, PyAny>>> {
    // SAFETY: attached; PyType_GetSlot reads a slot of a live type (static types too, 3.10+).
    let slot = unsafe { ffi::PyType_GetSlot(ffi::Py_TYPE(o.as_ptr()), ffi::Py_nb_int) };
    if slot.is_null() || o.is_instance_of::<PyString>() || o.is_instance_of::<PyBytes>() {
        return Ok(None);
    }
    // SAFETY: attached; with `nb_int` present, PyNumber_Long calls it (it parses no text).
    let r = unsafe { ffi::PyNumber_Long(o.as_ptr()) };
    if r.is_null() {
        let e = PyErr::fetch(o.py());
        let why = e.value(o.py()).to_string();
        return Err(if e.is_instance_of::<PyOverflowError>(o.py()) {
            PyOverflowError::new_err(format!("{}: {why}", c.place()))
        } else if e.is_instance_of::<PyValueError>(o.py()) {
            c.value_error(&why)
        } else if e.is_instance_of::<PyTypeError>(o.py()) {
            c.type_error(o) // a numpy array of more than one element, say
        } else {
            e
        });
    }
    // SAFETY: a new reference to an int.
    Ok(Some(unsafe { Bound::from_owned_ptr(o.py(), r) }))
}

/// A 64-bit pattern from an integer of either sign (negatives as two's complement): addresses
/// and pointer handles.
#[inline]
pub fn int_either(o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
    if o.is_instance_of::<PyInt>() {
        return match long_value(o) {
            Some(v) => Ok(v as u64),
            None => Err(c.overflow(64, false)),
        };
    }
    if let Some((raw, _)) = crate::handles::any_handle(o) {
        return Ok(raw);
    }
    match index(o) {
        Some(i) => int_either(&i, c),
        None => Err(c.type_error(o)),
    }
}

/// How a module takes caller memory: the convention of its library's cuda.bindings module
/// (`PythonConvention`), one constant per generated module.
#[derive(Clone, Copy, Default)]
pub struct Memory {
    /// An int address is a C `intptr_t` (OverflowError outside it); else any 64-bit pattern.
    pub intptr: bool,
    /// An exact `bytes` is taken as an output buffer and written in place (cuda.bindings'
    /// `nvrtcGetPTX(prog, b" " * size)`); else a read-only buffer is refused for writing.
    pub bytes_out: bool,
}

impl Memory {
    /// The address an int argument stands for.
    #[inline]
    pub fn address(&self, o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<usize> {
        let v = if self.intptr { int(o, 64, true, c)? } else { int_either(o, c)? };
        Ok(v as usize)
    }
}

/// Whether `o` converts through `__index__` (int, IntEnum, numpy integer, our handles), checked
/// without raising.
#[inline]
pub fn has_index(o: &Bound<'_, PyAny>) -> bool {
    // SAFETY: attached; PyIndex_Check only reads the type's slots.
    unsafe { ffi::PyIndex_Check(o.as_ptr()) != 0 }
}

/// A float argument: the bits of an f32 or f64.
pub fn float(o: &Bound<'_, PyAny>, bits: u32, c: &Ctx) -> PyResult<u64> {
    if o.is_instance_of::<PyString>() || o.is_instance_of::<PyBytes>() {
        return Err(c.type_error(o));
    }
    let v: f64 = o.extract().map_err(|_| c.type_error(o))?;
    Ok(if bits == 32 { (v as f32).to_bits() as u64 } else { v.to_bits() })
}

/// A handle argument: an instance of the handle class, an int, or None (NULL). A handle of
/// another class or a buffer is refused. Every handle also takes int subclasses and
/// `__index__` objects (numpy integers); pointer handles (`CUcontext`, `nvrtcProgram`) take no
/// enum member or bool: those are ints by type, never an address.
#[inline]
pub fn handle(h: &crate::handles::HandleType, o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
    if let Some(v) = h.raw_of(o) {
        return Ok(v);
    }
    if o.is_none() {
        return Ok(0);
    }
    // SAFETY: attached; the check reads the type only.
    if unsafe { ffi::PyLong_CheckExact(o.as_ptr()) } != 0 {
        return handle_int(h, o, c);
    }
    handle_other(h, o, c)
}

#[inline(always)]
fn handle_int(h: &crate::handles::HandleType, o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
    h.from_int(o, c)
}

/// [`handle`] for anything but an exact int or an instance of the class: an object that stands
/// for one (a stand-in class, NVIDIA's class of the same C type), an int subclass or `__index__`
/// object (a numpy integer), or for an integer handle (`CUdevice`) what an integer parameter
/// takes (floats truncated). A pointer handle takes no float, enum member
/// or bool: an address has no such form; an object with only `__int__` gives its int(), as
/// cuda.bindings' conversion does.
#[cold]
fn handle_other(h: &crate::handles::HandleType, o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
    if let Some(r) = h.stand_in(o, c) {
        return r;
    }
    if h.pointer && is_enum_or_bool(o) {
        return Err(c.type_error(o));
    }
    if o.is_instance_of::<PyInt>() || (!o.is_instance_of::<PyFloat>() && has_index(o)) {
        return match index(o) {
            Some(i) => handle_int(h, &i, c),
            None => Err(c.type_error(o)),
        };
    }
    if !h.pointer || integer_only(o) {
        if let Some(i) = number_int(o, c)? {
            return handle_int(h, &i, c);
        }
    }
    Err(c.type_error(o))
}

/// Whether `o` converts to an integer only through `__int__` (its type has `nb_int` and no
/// `nb_float`): an object that says which integer it is, as cuda.bindings' `int()` reads it. A
/// float or numpy float (which have both) is not one: no float is a handle or an address.
pub fn integer_only(o: &Bound<'_, PyAny>) -> bool {
    // SAFETY: attached; PyType_GetSlot reads slots of a live type (static types too, 3.10+).
    let (int_slot, float_slot) = unsafe {
        let t = ffi::Py_TYPE(o.as_ptr());
        (ffi::PyType_GetSlot(t, ffi::Py_nb_int), ffi::PyType_GetSlot(t, ffi::Py_nb_float))
    };
    !int_slot.is_null() && float_slot.is_null() && !o.is_instance_of::<PyFloat>()
}

/// A float or an object that converts like one (`__float__` without `__index__`: a numpy float).
fn is_float(o: &Bound<'_, PyAny>) -> bool {
    // SAFETY: attached; PyType_GetSlot reads a slot of a live type (static types too, 3.10+).
    let float_slot = unsafe { ffi::PyType_GetSlot(ffi::Py_TYPE(o.as_ptr()), ffi::Py_nb_float) };
    o.is_instance_of::<PyFloat>() || (!float_slot.is_null() && !has_index(o))
}

/// An enum member (`IntEnum`, `IntFlag`) or a bool: ints by type, never a handle or address.
/// A plain int answers at once (the enum test is an attribute lookup that fails for it, and
/// costs ~5,000 instructions: `extra=0` of every launch paid it).
#[inline]
pub fn is_enum_or_bool(o: &Bound<'_, PyAny>) -> bool {
    if o.is_exact_instance_of::<PyInt>() {
        return false;
    }
    if o.is_instance_of::<pyo3::types::PyBool>() {
        return true;
    }
    attr_opt(&o.get_type().into_any(), c"_member_map_").is_some()
}

/// A pointer to one handle: the address of a handle object's value (the callee may update it in
/// place), NULL for None, else `tmp` holding the handle an int stands for.
pub fn handle_ref(h: &crate::handles::HandleType, o: &Bound<'_, PyAny>, tmp: &mut u64, c: &Ctx) -> PyResult<usize> {
    if h.raw_of(o).is_some() {
        return Ok(crate::handles::value_addr(o).unwrap_or(0));
    }
    if o.is_none() {
        return Ok(0);
    }
    if crate::handles::foreign_class(o).is_some() && h.stand_in(o, c).transpose()?.is_some() {
        // NVIDIA's object of this C type: its own C value, which the callee may update.
        let p = o.call_method0("getPtr")?;
        return int_either(&p, c).map(|v| v as usize);
    }
    *tmp = handle(h, o, c)?;
    Ok(tmp as *mut u64 as usize)
}

/// Pointer and length of an object's buffer (PyBUF_SIMPLE), or None.
pub fn buffer(o: &Bound<'_, PyAny>, writable: bool) -> Option<(usize, usize)> {
    unsafe {
        let mut view = MaybeUninit::<ffi::Py_buffer>::zeroed();
        let flags = if writable { ffi::PyBUF_WRITABLE } else { ffi::PyBUF_SIMPLE };
        if ffi::PyObject_GetBuffer(o.as_ptr(), view.as_mut_ptr(), flags) == 0 {
            let v = view.assume_init_mut();
            let r = (v.buf as usize, v.len as usize);
            ffi::PyBuffer_Release(v);
            Some(r)
        } else {
            ffi::PyErr_Clear();
            None
        }
    }
}

/// An address argument: int, None, a buffer-protocol object (bytes, bytearray, numpy array,
/// ctypes object), an object with `getPtr()` (our handles and structs), `__index__`, or only
/// `__int__` ([`integer_only`]: its int(), as cuda.bindings reads it).
pub fn addr(o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<usize> {
    if o.is_instance_of::<PyInt>() {
        return int_either(o, c).map(|v| v as usize);
    }
    if o.is_none() {
        return Ok(0);
    }
    if let Some(p) = crate::handles::value_addr(o) {
        return Ok(p);
    }
    if let Some((p, _)) = buffer(o, false) {
        return Ok(p);
    }
    if let Some(f) = attr_opt(o, c"getPtr") {
        let r = f.call0()?;
        return int(&r, 64, false, c).map(|v| v as usize);
    }
    match index(o) {
        Some(i) => int(&i, 64, false, c).map(|v| v as usize),
        None if integer_only(o) => match number_int(o, c)? {
            Some(i) => int_either(&i, c).map(|v| v as usize),
            None => Err(c.type_error(o)),
        },
        None => Err(c.type_error(o)),
    }
}

/// An argument's memory, exported through the buffer protocol and held until the call has
/// returned (a `bytearray` cannot be resized or freed under the library), or a raw address.
pub struct Held {
    addr: usize,
    /// Bytes available at `addr`; `None` for a raw address (the caller's promise, unchecked).
    len: Option<usize>,
    writes: bool,
    view: Option<Box<ffi::Py_buffer>>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(v) = self.view.as_mut() {
            // SAFETY: bodies drop their arguments attached; the view was filled by GetBuffer.
            unsafe { ffi::PyBuffer_Release(&mut **v) };
        }
    }
}

impl Held {
    /// An int address: unchecked, the caller's promise (as in cuda.bindings).
    fn raw(addr: usize, writes: bool) -> Self {
        Held { addr, len: None, writes, view: None }
    }

    fn none(writes: bool) -> Self {
        Held { addr: 0, len: Some(0), writes, view: None }
    }

    /// Exports `o`'s memory (writable when `writes`; exact `bytes` are taken for writing too
    /// where the module's convention does, [`Memory::bytes_out`]), or None when `o` has no
    /// buffer. A read-only export given for writing is an error.
    fn export(o: &Bound<'_, PyAny>, writes: bool, mem: &Memory, c: &Ctx) -> PyResult<Option<Self>> {
        let bytes = mem.bytes_out && o.is_exact_instance_of::<PyBytes>();
        let flags = if writes && !bytes { ffi::PyBUF_WRITABLE } else { ffi::PyBUF_SIMPLE };
        let mut view: Box<ffi::Py_buffer> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: attached; on success the view is released by Drop.
        if unsafe { ffi::PyObject_GetBuffer(o.as_ptr(), &mut *view, flags) } == 0 {
            let (addr, len) = (view.buf as usize, view.len.max(0) as usize);
            return Ok(Some(Held { addr, len: Some(len), writes, view: Some(view) }));
        }
        unsafe { ffi::PyErr_Clear() };
        if writes && buffer(o, false).is_some() {
            return Err(PyTypeError::new_err(format!(
                "{} must be a writable buffer, not a read-only {}",
                c.place(),
                o.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            )));
        }
        Ok(None)
    }

    /// The address to pass.
    #[inline(always)]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// A record argument: the memory of a struct instance (ctypes) or any buffer of at least
    /// `size` bytes, or None when `nullable`. Never a bare int address or a handle.
    pub fn record(o: &Bound<'_, PyAny>, size: u64, nullable: bool, writes: bool, mem: &Memory, c: &Ctx) -> PyResult<Self> {
        if o.is_none() {
            return if nullable { Ok(Self::none(writes)) } else { Err(c.type_error(o)) };
        }
        if o.is_instance_of::<PyInt>() || crate::handles::any_handle(o).is_some() {
            return Err(c.type_error(o));
        }
        match Self::export(o, writes, mem, c)? {
            Some(h) if h.len.unwrap_or(0) as u64 >= size => Ok(h),
            Some(h) => {
                Err(c.value_error(&format!("a buffer of {} bytes is smaller than the {size}-byte struct", h.len.unwrap_or(0))))
            }
            None => Err(c.type_error(o)),
        }
    }

    /// A host address of unknown extent: int, None, an address handle's value (`CUdeviceptr`), a
    /// buffer (held; writable when the callee writes), a handle or struct (`getPtr()`), or
    /// `__index__`.
    pub fn addr_of(o: &Bound<'_, PyAny>, writes: bool, mem: &Memory, c: &Ctx) -> PyResult<Self> {
        if o.is_instance_of::<PyInt>() && !is_enum_or_bool(o) {
            return mem.address(o, c).map(|a| Self::raw(a, writes));
        }
        if o.is_none() {
            return Ok(Self::none(writes));
        }
        if let Some(v) = crate::handles::address_value(o, c) {
            return v.map(|a| Self::raw(a as usize, writes));
        }
        if let Some(p) = crate::handles::value_addr(o) {
            return Ok(Self::raw(p, writes));
        }
        if let Some(h) = Self::export(o, writes, mem, c)? {
            return Ok(h);
        }
        if let Some(f) = attr_opt(o, c"getPtr") {
            let r = f.call0()?;
            return int(&r, 64, false, c).map(|v| Self::raw(v as usize, writes));
        }
        match index(o) {
            Some(i) if !is_enum_or_bool(o) => int(&i, 64, false, c).map(|v| Self::raw(v as usize, writes)),
            Some(_) => Err(c.type_error(o)),
            None => Self::int_only(o, writes, c),
        }
    }

    /// An object with only `__int__` (no buffer, no `getPtr()`): the address its `int()` gives,
    /// as cuda.bindings converts it; anything else is refused.
    fn int_only(o: &Bound<'_, PyAny>, writes: bool, c: &Ctx) -> PyResult<Self> {
        if !integer_only(o) {
            return Err(c.type_error(o));
        }
        match number_int(o, c)? {
            Some(i) => int_either(&i, c).map(|v| Self::raw(v as usize, writes)),
            None => Err(c.type_error(o)),
        }
    }

    /// A `void *` typedef with a class of its own (`EGLImageKHR`, `typedef_ptr` of the
    /// IR): an object of that class, ours or NVIDIA's, or any other with `__index__` or only
    /// `__int__`, stands for the pointer it holds (its `int()`, as cuda.bindings converts it); a
    /// handle of ours (another C type) or a float (numpy's too: no float is an address) is
    /// refused; an int, None or buffer as [`Held::addr_of`].
    pub fn pointer_value(o: &Bound<'_, PyAny>, writes: bool, mem: &Memory, c: &Ctx) -> PyResult<Self> {
        if o.is_instance_of::<PyInt>() || o.is_none() {
            return Self::addr_of(o, writes, mem, c);
        }
        if crate::handles::any_handle(o).is_some() || is_float(o) {
            return Err(c.type_error(o));
        }
        if let Some(i) = index(o) {
            return int_either(&i, c).map(|v| Self::raw(v as usize, writes));
        }
        if integer_only(o) {
            return Self::int_only(o, writes, c);
        }
        Self::addr_of(o, writes, mem, c)
    }

    /// A caller buffer whose size the call implies (checked by [`Held::holds`]): a buffer
    /// (held), None, or, when `int_ok`, an int address or an `__int__`-only object's (unchecked,
    /// as in cuda.bindings). An
    /// address handle (`CUdeviceptr`) is refused: its device address is no host buffer (the
    /// boundary fuzz crashed nvJitLink with `CUdeviceptr(0)` as `add_data`'s data).
    pub fn buffer(o: &Bound<'_, PyAny>, writes: bool, int_ok: bool, mem: &Memory, c: &Ctx) -> PyResult<Self> {
        if o.is_none() {
            // cuda.bindings' cybind modules (`intptr` addresses) ask for a buffer or an int there
            return if mem.intptr {
                Err(c.value_error("None is not a buffer (give a buffer or an int address)"))
            } else {
                Ok(Self::none(writes))
            };
        }
        if o.is_instance_of::<PyInt>() {
            return if int_ok && !is_enum_or_bool(o) {
                mem.address(o, c).map(|a| Self::raw(a, writes))
            } else {
                Err(c.type_error(o))
            };
        }
        if o.is_instance_of::<PyString>() || crate::handles::any_handle(o).is_some() {
            return Err(c.type_error(o));
        }
        match Self::export(o, writes, mem, c)? {
            Some(h) => Ok(h),
            None if int_ok => Self::int_only(o, writes, c),
            None => Err(c.type_error(o)),
        }
    }

    /// Checks that the buffer holds the `need` bytes the call reads or writes, as `size` (the
    /// size argument's name, or the function reporting it) says.
    pub fn holds(&self, need: i128, size: &str, c: &Ctx) -> PyResult<()> {
        if need < 0 {
            return Err(c.value_error(&format!("{size} ({need}) is negative")));
        }
        match self.len {
            Some(0) if need > 0 && self.view.is_none() => {
                Err(c.value_error(&format!("None with {size} ({need}): the call {} {need} bytes", self.verb())))
            }
            Some(len) if (len as i128) < need => Err(c.value_error(&format!(
                "{size} ({need}) exceeds {} ({len} bytes): the call {} {need} bytes",
                c.param,
                self.verb()
            ))),
            _ => Ok(()),
        }
    }

    fn verb(&self) -> &'static str {
        if self.writes {
            "writes"
        } else {
            "reads"
        }
    }
}

/// A `const char*` argument: bytes (used in place; CPython keeps them NUL-terminated), str
/// (UTF-8), other buffers (copied), or None when `nullable`.
pub fn cstr<'py>(o: &Bound<'py, PyAny>, nullable: bool, c: &Ctx) -> PyResult<(usize, Option<Bound<'py, PyAny>>)> {
    if o.is_none() {
        return if nullable { Ok((0, None)) } else { Err(c.type_error(o)) };
    }
    let b: Bound<'py, PyBytes> = if let Ok(b) = o.cast::<PyBytes>() {
        b.clone()
    } else if let Ok(s) = o.cast::<PyString>() {
        PyBytes::new(o.py(), s.to_str().map_err(|_| c.value_error("a str that UTF-8 cannot encode"))?.as_bytes())
    } else if let Some((p, len)) = buffer(o, false) {
        PyBytes::new(o.py(), unsafe { std::slice::from_raw_parts(p as *const u8, len) })
    } else {
        return Err(c.type_error(o));
    };
    let bytes = b.as_bytes();
    if bytes.contains(&0) {
        return Err(c.value_error("embedded NUL byte"));
    }
    Ok((bytes.as_ptr() as usize, Some(b.into_any())))
}

/// An input array packed into owned memory, or the held memory of a buffer of scalars.
pub struct InArray<'py> {
    words: Vec<u64>,
    held: Option<Held>,
    /// Elements available.
    len: usize,
    _keep: Vec<Bound<'py, PyAny>>,
}

impl<'py> InArray<'py> {
    fn items(o: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        if o.is_instance_of::<PyList>() || o.is_instance_of::<PyTuple>() {
            return Ok(Some(o.try_iter()?.collect::<PyResult<Vec<_>>>()?));
        }
        if o.is_instance_of::<PyString>() || o.is_instance_of::<PyBytes>() || o.is_instance_of::<PyInt>() {
            return Err(c.type_error(o));
        }
        if o.is_none() {
            return Ok(Some(Vec::new()));
        }
        if let Some(it) = iter_opt(o) {
            if buffer(o, false).is_none() {
                return Ok(Some(it.collect::<PyResult<Vec<_>>>()?));
            }
        }
        Ok(None)
    }

    /// A buffer of packed scalars (a numpy array), held for the call.
    fn held(o: &Bound<'py, PyAny>, size: u64, c: &Ctx) -> PyResult<Self> {
        // read, never an int: no field of the convention applies
        let h = Held::buffer(o, false, false, &Memory::default(), c)?;
        let len = h.len.unwrap_or(0) / size.max(1) as usize;
        Ok(InArray { words: Vec::new(), held: Some(h), len, _keep: Vec::new() })
    }

    fn pack(n: usize, size: u64) -> Vec<u64> {
        vec![0u64; ((n as u64 * size).div_ceil(8)).max(1) as usize]
    }

    fn put(words: &mut [u64], k: usize, size: u64, src: *const u8) {
        unsafe {
            let dst = (words.as_mut_ptr() as *mut u8).add(k * size as usize);
            std::ptr::copy_nonoverlapping(src, dst, size as usize);
        }
    }

    /// Elements converted by `f` to the bits of a scalar of `size` bytes (or a buffer of them).
    pub fn scalars(o: &Bound<'py, PyAny>, size: u64, c: &Ctx, f: impl Fn(&Bound<'py, PyAny>) -> PyResult<u64>) -> PyResult<Self> {
        let Some(items) = Self::items(o, c)? else { return Self::held(o, size, c) };
        let mut words = Self::pack(items.len(), size);
        for (k, it) in items.iter().enumerate() {
            let v = f(it)?.to_le_bytes();
            Self::put(&mut words, k, size.min(8), v.as_ptr());
        }
        Ok(InArray { words, held: None, len: items.len(), _keep: Vec::new() })
    }

    /// Records copied by value (each a struct instance or buffer, never an int address).
    pub fn records(o: &Bound<'py, PyAny>, size: u64, c: &Ctx) -> PyResult<Self> {
        let Some(items) = Self::items(o, c)? else { return Err(c.type_error(o)) };
        let mut words = Self::pack(items.len(), size);
        for (k, it) in items.iter().enumerate() {
            let h = Held::record(it, size, false, false, &Memory::default(), c)?;
            Self::put(&mut words, k, size, h.addr() as *const u8);
        }
        Ok(InArray { words, held: None, len: items.len(), _keep: Vec::new() })
    }

    /// `const char*` elements (bytes/str), kept alive until after the call.
    pub fn cstrs(o: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Self> {
        let Some(items) = Self::items(o, c)? else { return Err(c.type_error(o)) };
        let mut words = Self::pack(items.len(), 8);
        let mut keep = Vec::with_capacity(items.len());
        for (k, it) in items.iter().enumerate() {
            let (p, h) = cstr(it, false, c)?;
            words[k] = p as u64;
            keep.extend(h);
        }
        Ok(InArray { words, held: None, len: items.len(), _keep: keep })
    }

    pub fn addr(&self) -> usize {
        match &self.held {
            Some(h) => h.addr(),
            None if self.len == 0 => 0,
            None => self.words.as_ptr() as usize,
        }
    }

    /// Checks the count argument against the elements given ("List is too small").
    pub fn holds(&self, count: i128, c: &Ctx) -> PyResult<()> {
        if count < 0 {
            return Err(c.value_error(&format!("count {count} is negative")));
        }
        if count > self.len as i128 {
            return Err(c.value_error(&format!("List is too small: {} < {count}", self.len)));
        }
        Ok(())
    }
}

/// The bits of a scalar reinterpreted as the C type the sys function expects.
#[inline(always)]
pub unsafe fn bits<T: Copy>(v: u64) -> T {
    let mut out = MaybeUninit::<T>::zeroed();
    let n = size_of::<T>().min(8);
    std::ptr::copy_nonoverlapping(&v as *const u64 as *const u8, out.as_mut_ptr() as *mut u8, n);
    out.assume_init()
}

/// A record passed by value, read from the caller's memory.
#[inline(always)]
pub unsafe fn read<T: Copy>(addr: usize) -> T {
    std::ptr::read_unaligned(addr as *const T)
}

/// The integer an argument's bits stand for, of either sign.
#[inline]
pub fn wide(v: u64, bits: u32, signed: bool) -> i128 {
    if signed {
        sext(v, bits, true) as i128
    } else if bits >= 64 {
        v as i128
    } else {
        (v & ((1u64 << bits) - 1)) as i128
    }
}

pub fn sext(v: u64, bits: u32, signed: bool) -> i64 {
    if bits >= 64 {
        return v as i64;
    }
    let v = v & ((1u64 << bits) - 1);
    if signed && v >> (bits - 1) & 1 == 1 {
        (v | !((1u64 << bits) - 1)) as i64
    } else {
        v as i64
    }
}

/// Runs a library call on plain integers with the GIL released (the thread state is restored
/// even if `f` unwinds).
///
/// # Safety
/// `f` must not touch Python objects. This is PyO3's `detach` without its bookkeeping, so code in
/// `f` that re-enters Python on this thread must attach with `PyGILState_Ensure` (as the callback
/// trampolines do), not `Python::attach`.
#[inline(always)]
pub unsafe fn nogil<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(*mut ffi::PyThreadState);
    impl Drop for Restore {
        #[inline(always)]
        fn drop(&mut self) {
            unsafe { ffi::PyEval_RestoreThread(self.0) }
        }
    }
    let _restore = Restore(unsafe { ffi::PyEval_SaveThread() });
    f()
}

/// Runs a library call that the IR lets keep the GIL (`[keep_gil]`: it only reads the library's
/// constants). The first call (`warm` false) still releases it: that one may open the library.
///
/// # Safety
/// As [`nogil`].
#[inline(always)]
pub unsafe fn with_gil<R>(warm: &std::sync::atomic::AtomicBool, f: impl FnOnce() -> R) -> R {
    use std::sync::atomic::Ordering::Relaxed;
    if warm.load(Relaxed) {
        return f();
    }
    let r = unsafe { nogil(f) };
    warm.store(true, Relaxed);
    r
}
