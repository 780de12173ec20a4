//! Record fields that take more than a C value, converted here as the function arguments of
//! their C type are (`conv`), for the setters of `cudagen._classes`:
//!
//! - an integer, enum or handle field takes what an argument of its type takes (`_field_int`,
//!   `_field_enum`, `_field_handle`): an int-like number (a float truncated, an `__int__` object),
//!   None for a handle (NULL), a handle's stand-ins and NVIDIA's class of the same C type;
//! - a kernel's argument pointers (`CUDA_KERNEL_NODE_PARAMS.kernelParams`, a field the IR marks
//!   `kernel_params`) are packed as a `kernelParams` argument is (`launch::KernelParams`), into
//!   memory that lives as long as the object handed back, which the record keeps.
//!
//! Errors name the field (`dim3.x must be int, not str`). `_handle_bits` gives `sizeof` a handle
//! class's width.

use crate::conv::{self, Ctx};
use crate::entry;
use crate::handles;
use crate::launch::KernelParams;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyString};
use std::borrow::Cow;

const EXPECTED: &str = "None, int, buffer of pointers or (values, types)";

/// The call's `N` arguments (names `names`, all required), for a body given them.
///
/// # Safety
/// As [`entry::args`].
unsafe fn with_args<const N: usize>(
    func: &str,
    names: &[&str; N],
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
    body: impl FnOnce(Python<'_>, [&Bound<'_, PyAny>; N]) -> PyResult<Py<PyAny>>,
) -> *mut ffi::PyObject {
    unsafe {
        entry::run(|py| {
            let a = entry::args(py, func, names, N, args, nargs, kwnames)?;
            body(py, std::array::from_fn(|i| entry::arg(py, &a[i])))
        })
    }
}

/// A str argument's text.
fn text<'a>(o: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, str>> {
    o.cast::<PyString>()?.to_cow()
}

/// The `(bits, signed)` of an integer field's C type, checked (1..=64 bits).
fn width(bits: &Bound<'_, PyAny>, signed: &Bound<'_, PyAny>) -> PyResult<(u32, bool)> {
    let bits: u32 = bits.extract()?;
    if !(1..=64).contains(&bits) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("a field of {bits} bits")));
    }
    Ok((bits, signed.is_truthy()?))
}

/// The field context for errors: `func` is the field (`dim3.x`), no parameter.
fn field<'a>(name: &'a str, expected: &'a str) -> Ctx<'a> {
    Ctx { func: name, param: "", expected }
}

/// `_field_int(field, value, bits, signed) -> int`: an integer field's value, as an integer
/// argument converts it (`conv::int`).
unsafe extern "C" fn field_int(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe { scalar_field("_field_int", "int", conv::int, args, nargs, kwnames) }
}

/// `_field_enum(field, value, bits, signed) -> int`: an enum field's value, as an enum argument
/// of a module whose oracle reads the member's `.value` converts it (`conv::enum_value`).
unsafe extern "C" fn field_enum(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe { scalar_field("_field_enum", "an enum member or int", conv::enum_value, args, nargs, kwnames) }
}

/// The body of `_field_int` / `_field_enum`: `(field, value, bits, signed)` converted by `convert`
/// (the conversion of an argument of that C type), as the field's C value.
///
/// # Safety
/// As [`entry::args`].
unsafe fn scalar_field(
    func: &str,
    expected: &str,
    convert: fn(&Bound<'_, PyAny>, u32, bool, &Ctx) -> PyResult<u64>,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        with_args(func, &["field", "value", "bits", "signed"], args, nargs, kwnames, |py, [f, v, b, s]| {
            let (bits, signed) = width(b, s)?;
            let name = text(f)?;
            let raw = convert(v, bits, signed, &field(&name, expected))?;
            Ok(conv::wide(raw, bits, signed).into_pyobject(py)?.into_any().unbind())
        })
    }
}

/// `_field_handle(field, value, cls) -> int`: a handle field's C value, as an argument of handle
/// class `cls` converts it (`conv::handle`: None is NULL).
unsafe extern "C" fn field_handle(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        with_args("_field_handle", &["field", "value", "cls"], args, nargs, kwnames, |py, [f, v, cls]| {
            let h = handles::handle_type(cls).ok_or_else(|| PyTypeError::new_err("_field_handle: cls is no handle class"))?;
            let name = text(f)?;
            let expected = format!("{}, int or None", h.name);
            let c = field(&name, &expected);
            let raw = conv::handle(h, v, &c)?;
            Ok(conv::wide(raw, h.bits, h.signed).into_pyobject(py)?.into_any().unbind())
        })
    }
}

/// `_handle_bits(cls) -> int | None`: the width of handle class `cls`'s C type (None for any
/// other object), for `sizeof`.
unsafe extern "C" fn handle_bits(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        with_args("_handle_bits", &["cls"], args, nargs, kwnames, |py, [cls]| {
            Ok(handles::handle_type(cls).map(|h| h.bits).into_pyobject(py)?.into_any().unbind())
        })
    }
}

/// `_pack_kernel_params(field, value) -> (address, holder)`: `value` in any form
/// `cuLaunchKernel`'s `kernelParams` takes; `holder` owns the packed memory (None: nothing
/// packed), errors name `field`.
unsafe extern "C" fn pack_kernel_params(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        with_args("_pack_kernel_params", &["field", "value"], args, nargs, kwnames, |py, [f, v]| {
            let name = text(f)?;
            let c = field(&name, EXPECTED);
            let kp = KernelParams::new(py, v, &c)?;
            let addr = kp.addr();
            let holder = PyCapsule::new_with_value(py, kp, c"cudagen.kernel_params")?;
            Ok((addr, holder).into_pyobject(py)?.into_any().unbind())
        })
    }
}

/// `_record_new(cls, *args, _ptr=0, **kw)`: the `__new__` of every record class
/// (`cudagen._classes`): a record of its own zeroed memory, or, for a non-zero `_ptr`, a view of
/// the record at that address (`cls.from_address`), as cuda.bindings makes it (nothing copied or
/// kept alive). The other arguments are for ctypes' `__init__`. In Rust, so a record costs no
/// Python call more to build.
unsafe extern "C" fn record_new(
    _m: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    unsafe {
        entry::run(|py| {
            let n = nargs;
            if n < 1 {
                return Err(PyTypeError::new_err("_record_new(cls, ...) needs the class"));
            }
            let cls = entry::arg(py, &*args);
            let names = if kwnames.is_null() { None } else { Some(entry::arg(py, &kwnames).cast::<pyo3::types::PyTuple>()?) };
            let ptr = names.and_then(|t| t.iter().position(|k| k.eq("_ptr").unwrap_or(false)));
            let at = match ptr {
                Some(i) => {
                    let name = format!("{}() _ptr", cls.getattr("__name__")?);
                    conv::int(entry::arg(py, &*args.offset(n + i as isize)), 64, false, &field(&name, "int"))?
                }
                None => 0,
            };
            if at != 0 {
                return Ok(cls.call_method1("from_address", (at,))?.unbind());
            }
            Ok(crate::enums::new_record(cls)?.unbind())
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    entry::add_all(
        m,
        "cudagen._cudagen",
        &[
            (
                c"_pack_kernel_params",
                pack_kernel_params,
                c"_pack_kernel_params(field, value)\n--\n\nPacks a kernelParams record field's value.",
            ),
            (
                c"_field_int",
                field_int,
                c"_field_int(field, value, bits, signed)\n--\n\nAn integer field's value, converted as an integer argument.",
            ),
            (
                c"_field_enum",
                field_enum,
                c"_field_enum(field, value, bits, signed)\n--\n\nAn enum field's value, converted as an enum argument.",
            ),
            (c"_record_new", record_new, c"_record_new(cls, *args, _ptr=0, **kw)\n--\n\nThe __new__ of record classes: own memory, or a view of _ptr."),
            (c"_handle_bits", handle_bits, c"_handle_bits(cls)\n--\n\nThe width of a handle class's C type, else None."),
            (
                c"_field_handle",
                field_handle,
                c"_field_handle(field, value, cls)\n--\n\nA handle field's C value, converted as an argument of handle class cls.",
            ),
        ],
    )
}
