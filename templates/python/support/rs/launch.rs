//! `kernelParams` of `cuLaunchKernel` & co: None, an int address of a `void*[]`, a 1-D buffer of
//! pointer-sized items (numpy uint64/intp array), or a `((values), (ctypes types))` pair packed
//! here into owned memory before the GIL is released. Every ctypes scalar type is accepted
//! (`c_char` from a 1-byte bytes, `c_wchar` from a 1-character str, `c_wchar_p` from a str copied
//! here, `c_longdouble` through ctypes itself). A `None` type means: an object with `getPtr()`
//! (our handles), a `ctypes` object (its own memory), or an enum / int (a C `int`).

use crate::conv::{self, Ctx};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

// kinds (code = kind * 1_000_000 + size)
const SIGNED: i64 = 1;
const UNSIGNED: i64 = 2;
const FLOAT: i64 = 3;
const BOOL: i64 = 4;
const VOIDP: i64 = 5;
const MEMORY: i64 = 6;
const CHAR: i64 = 7;
const WCHAR: i64 = 8;
/// Packed by ctypes itself (`ty(value)`), up to `SLOT` bytes (`c_longdouble`).
const CTYPES: i64 = 9;
const WSTR: i64 = 10;

/// Bytes of storage per packed argument (a `long double` is 16).
const SLOT: usize = 16;

struct Types {
    codes: Py<PyDict>,
    sizeof: Py<PyAny>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let ct = py.import("ctypes")?;
        let d = PyDict::new(py);
        let signed =
            ["c_byte", "c_short", "c_int", "c_long", "c_longlong", "c_ssize_t", "c_int8", "c_int16", "c_int32", "c_int64"];
        let unsigned = [
            "c_ubyte",
            "c_ushort",
            "c_uint",
            "c_ulong",
            "c_ulonglong",
            "c_size_t",
            "c_uint8",
            "c_uint16",
            "c_uint32",
            "c_uint64",
        ];
        let sizeof = ct.getattr("sizeof")?;
        for (names, kind) in [
            (&signed[..], SIGNED),
            (&unsigned[..], UNSIGNED),
            (&["c_float", "c_double"][..], FLOAT),
            (&["c_bool"][..], BOOL),
            (&["c_void_p", "c_char_p"][..], VOIDP),
            (&["c_char"][..], CHAR),
            (&["c_wchar"][..], WCHAR),
            (&["c_longdouble"][..], CTYPES),
            (&["c_wchar_p"][..], WSTR),
        ] {
            for n in names {
                if let Ok(t) = ct.getattr(*n) {
                    let size: i64 = sizeof.call1((&t,))?.extract()?;
                    d.set_item(t, kind * 1_000_000 + size)?;
                }
            }
        }
        Ok::<_, PyErr>(Types { codes: d.unbind(), sizeof: sizeof.unbind() })
    })
}

pub struct KernelParams {
    addr: usize,
    _data: Vec<u64>,
    _ptrs: Vec<usize>,
    /// NUL-terminated copies of `c_wchar_p` strings.
    _wide: Vec<Vec<u32>>,
}

impl KernelParams {
    pub fn addr(&self) -> usize {
        self.addr
    }

    pub fn new<'py>(py: Python<'py>, o: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Self> {
        let simple = |addr| KernelParams { addr, _data: Vec::new(), _ptrs: Vec::new(), _wide: Vec::new() };
        if o.is_none() {
            return Ok(simple(0));
        }
        if o.is_instance_of::<PyInt>() {
            return conv::addr(o, c).map(simple);
        }
        if (o.is_instance_of::<PyTuple>() || o.is_instance_of::<PyList>()) && o.len()? == 2 {
            let values = o.get_item(0)?;
            let kinds = o.get_item(1)?;
            let seq = |x: &Bound<'py, PyAny>| x.is_instance_of::<PyTuple>() || x.is_instance_of::<PyList>();
            if seq(&values) && seq(&kinds) {
                return Self::pack(py, &values, &kinds, c);
            }
        }
        if let Some(p) = pointer_array(o, c)? {
            return Ok(simple(p));
        }
        conv::addr(o, c).map(simple)
    }

    fn pack<'py>(py: Python<'py>, values: &Bound<'py, PyAny>, kinds: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Self> {
        let n = values.len()?;
        if kinds.len()? != n {
            return Err(c.value_error("values and types have different lengths"));
        }
        let t = types(py)?;
        let codes = t.codes.bind(py);
        const WORDS: usize = SLOT / 8;
        let mut data = vec![0u64; WORDS * n.max(1)];
        let mut ptrs = vec![0usize; n.max(1)];
        let mut wide = Vec::new();
        for k in 0..n {
            let v = item(values, k)?;
            let ty = item(kinds, k)?;
            let slot = &mut data[WORDS * k] as *mut u64 as usize;
            if ty.is_none() {
                if v.is_instance_of::<PyInt>() {
                    data[WORDS * k] = conv::int(&v, 32, true, c).or_else(|_| conv::int(&v, 32, false, c))?;
                    ptrs[k] = slot;
                } else if let Some(p) = crate::handles::value_addr(&v) {
                    ptrs[k] = p;
                } else if let Some(f) = conv::attr_opt(&v, c"getPtr") {
                    ptrs[k] = conv::int(&f.call0()?, 64, false, c)? as usize;
                } else if let Some((p, _)) = conv::buffer(&v, false) {
                    ptrs[k] = p;
                } else {
                    return Err(c.type_error(&v));
                }
                continue;
            }
            let code: i64 = match codes.get_item(&ty)? {
                Some(code) => code.extract()?,
                None => {
                    let size: i64 = t.sizeof.bind(py).call1((&ty,)).map_err(|_| c.type_error(&ty))?.extract()?;
                    let code = MEMORY * 1_000_000 + size;
                    codes.set_item(&ty, code)?;
                    code
                }
            };
            let (kind, size) = (code / 1_000_000, (code % 1_000_000) as u32);
            match kind {
                SIGNED | UNSIGNED | BOOL | VOIDP => {
                    data[WORDS * k] = scalar(&v, kind, size * 8, c)?;
                    ptrs[k] = slot;
                }
                FLOAT => {
                    let plain = v.is_instance_of::<pyo3::types::PyFloat>() || v.is_instance_of::<PyInt>();
                    let x = if plain { v.clone() } else { conv::attr_opt(&v, c"value").unwrap_or_else(|| v.clone()) };
                    data[WORDS * k] = conv::float(&x, size * 8, c)?;
                    ptrs[k] = slot;
                }
                CHAR | WCHAR => {
                    data[WORDS * k] = character(&v, kind, size * 8, c)?;
                    ptrs[k] = slot;
                }
                WSTR => {
                    let x = if v.is_instance_of::<PyString>() {
                        v.clone()
                    } else {
                        conv::attr_opt(&v, c"value").unwrap_or_else(|| v.clone())
                    };
                    data[WORDS * k] = match x.cast::<PyString>() {
                        Ok(text) => {
                            let mut w: Vec<u32> = text.to_str()?.chars().map(|ch| ch as u32).collect();
                            w.push(0);
                            let p = w.as_ptr() as u64;
                            wide.push(w);
                            p
                        }
                        Err(_) => scalar(&x, VOIDP, 64, c)?,
                    };
                    ptrs[k] = slot;
                }
                CTYPES => {
                    // ctypes packs it (`c_longdouble(1.5)`); its bytes are copied into the slot
                    let obj = if v.is_instance(&ty)? { v.clone() } else { ty.call1((&v,)).map_err(|_| c.type_error(&v))? };
                    match conv::buffer(&obj, false) {
                        Some((p, len)) if len <= SLOT => {
                            // SAFETY: `p` is `len` readable bytes of `obj`, alive here; the slot has SLOT bytes.
                            unsafe { std::ptr::copy_nonoverlapping(p as *const u8, slot as *mut u8, len) };
                            ptrs[k] = slot;
                        }
                        _ => return Err(c.type_error(&v)),
                    }
                }
                _ => {
                    // a ctypes.Structure / array instance: its own memory
                    match conv::buffer(&v, false) {
                        Some((p, len)) if len as u32 >= size => ptrs[k] = p,
                        _ => return Err(c.type_error(&v)),
                    }
                }
            }
        }
        let addr = if n == 0 { 0 } else { ptrs.as_ptr() as usize };
        Ok(KernelParams { addr, _data: data, _ptrs: ptrs, _wide: wide })
    }
}

/// A buffer given as the `void*[]` itself: its address when it is a contiguous 1-D buffer of
/// pointer-sized items, an error for any other buffer, None for objects without one. (Asking for
/// the item format would cost numpy ~130 instructions a call to build its format string.)
fn pointer_array(o: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<Option<usize>> {
    if o.is_instance_of::<PyBytes>() || o.is_instance_of::<PyString>() {
        return Err(c.type_error(o));
    }
    // SAFETY: attached; the view is released before returning and only read in between.
    let (buf, ndim, itemsize) = unsafe {
        let mut view = std::mem::MaybeUninit::<ffi::Py_buffer>::zeroed();
        if ffi::PyObject_GetBuffer(o.as_ptr(), view.as_mut_ptr(), ffi::PyBUF_ND) != 0 {
            ffi::PyErr_Clear();
            return Ok(None);
        }
        let v = view.assume_init_mut();
        // without PyBUF_FORMAT, `itemsize` is still the size of the exporter's items
        let r = (v.buf as usize, v.ndim, v.itemsize as usize);
        ffi::PyBuffer_Release(v);
        r
    };
    if ndim != 1 {
        return Err(c.value_error(&format!("a buffer of kernel parameters must be 1-D (an array of void*), got {ndim}-D")));
    }
    if itemsize != std::mem::size_of::<usize>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{}: a buffer of kernel parameters must hold pointer-sized items (void*), got {itemsize}-byte items",
            c.place()
        )));
    }
    Ok(Some(buf))
}

/// A `c_char` (a 1-byte bytes or an int 0..255) or `c_wchar` (a 1-character str or an int)
/// argument, also from the ctypes object's `.value`.
fn character(v: &Bound<'_, PyAny>, kind: i64, bits: u32, c: &Ctx) -> PyResult<u64> {
    let x = if v.is_instance_of::<PyBytes>() || v.is_instance_of::<PyString>() || conv::has_index(v) {
        v.clone()
    } else {
        conv::attr_opt(v, c"value").ok_or_else(|| c.type_error(v))?
    };
    if kind == CHAR {
        if let Ok(b) = x.cast::<PyBytes>() {
            return match b.as_bytes() {
                [one] => Ok(*one as u64),
                _ => Err(c.value_error("a c_char value must be 1 byte")),
            };
        }
    } else if let Ok(text) = x.cast::<PyString>() {
        let mut chars = text.to_str()?.chars();
        return match (chars.next(), chars.next()) {
            (Some(ch), None) => Ok(ch as u64),
            _ => Err(c.value_error("a c_wchar value must be 1 character")),
        };
    }
    if conv::has_index(&x) {
        return conv::int(&x, bits, false, c);
    }
    Err(c.type_error(v))
}

/// The bits of an integer, bool or pointer kernel argument: an int (or `__index__` object such as
/// a numpy integer), a ctypes scalar (its `.value`), None (0) or, for pointers, see [`pointer`].
fn scalar(v: &Bound<'_, PyAny>, kind: i64, bits: u32, c: &Ctx) -> PyResult<u64> {
    if v.is_none() {
        return Ok(0);
    }
    if kind == BOOL {
        return Ok(v.is_truthy()? as u64);
    }
    if kind == VOIDP {
        return pointer(v, c);
    }
    let signed = kind == SIGNED;
    if conv::has_index(v) {
        return conv::int(v, bits, signed, c);
    }
    match conv::attr_opt(v, c"value") {
        Some(x) if x.is_instance_of::<PyInt>() => conv::int(&x, bits, signed, c),
        _ => Err(c.type_error(v)),
    }
}

/// A `c_void_p` argument, as cuda.bindings packs one: an int is the pointer; an object with
/// `getPtr()` (a handle, a typedef or record object, ours or NVIDIA's) the address of its C value
/// (`cudaSurfaceObject_t(_ptr=p)` gives `p`, where the kernel writes), except an address handle
/// (`CUdeviceptr`), which stands for the address it holds (as wherever a `void *` goes); a ctypes
/// pointer scalar (`c_void_p(0xDEADBEEF)`) its value; a numpy integer its value; any other
/// object its buffer's address.
fn pointer(v: &Bound<'_, PyAny>, c: &Ctx) -> PyResult<u64> {
    if v.is_instance_of::<PyInt>() {
        return conv::int_either(v, c);
    }
    if let Some(a) = crate::handles::address_value(v, c) {
        return a;
    }
    if let Some(p) = crate::handles::value_addr(v) {
        return Ok(p as u64);
    }
    if let Some(f) = conv::attr_opt(v, c"getPtr") {
        return conv::int_either(&f.call0()?, c);
    }
    if conv::has_index(v) {
        return conv::int_either(v, c);
    }
    match conv::attr_opt(v, c"value") {
        Some(x) if x.is_none() => Ok(0),
        Some(x) if x.is_instance_of::<PyInt>() => conv::int_either(&x, c),
        _ => conv::addr(v, c).map(|a| a as u64),
    }
}

/// Item `k` of a tuple (directly) or of another sequence.
#[inline]
fn item<'py>(seq: &Bound<'py, PyAny>, k: usize) -> PyResult<Bound<'py, PyAny>> {
    match seq.cast::<PyTuple>() {
        Ok(t) => t.get_item(k),
        Err(_) => seq.get_item(k),
    }
}
