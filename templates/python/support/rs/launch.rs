//! `kernelParams` of `cuLaunchKernel` & co: None, an int address of a `void*[]`, a buffer of
//! pointers (numpy uint64/intp array), or a `((values), (ctypes types))` pair packed here into
//! owned memory before the GIL is released. A `None` type means: an object with `getPtr()`
//! (our handles), a `ctypes` object (its own memory), or an enum / int (a C `int`).

use crate::conv::{self, Ctx};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};

// kinds (code = kind * 1_000_000 + size)
const SIGNED: i64 = 1;
const UNSIGNED: i64 = 2;
const FLOAT: i64 = 3;
const BOOL: i64 = 4;
const VOIDP: i64 = 5;
const MEMORY: i64 = 6;

struct Types {
    codes: Py<PyDict>,
    sizeof: Py<PyAny>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let ct = py.import("ctypes")?;
        let d = PyDict::new(py);
        let signed = ["c_byte", "c_short", "c_int", "c_long", "c_longlong", "c_ssize_t", "c_int8", "c_int16", "c_int32", "c_int64"];
        let unsigned = ["c_char", "c_ubyte", "c_ushort", "c_uint", "c_ulong", "c_ulonglong", "c_size_t", "c_uint8", "c_uint16", "c_uint32", "c_uint64"];
        let sizeof = ct.getattr("sizeof")?;
        for (names, kind) in [(&signed[..], SIGNED), (&unsigned[..], UNSIGNED), (&["c_float", "c_double"][..], FLOAT), (&["c_bool"][..], BOOL), (&["c_void_p", "c_char_p"][..], VOIDP)] {
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
}

impl KernelParams {
    pub fn addr(&self) -> usize {
        self.addr
    }

    pub fn new<'py>(py: Python<'py>, o: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Self> {
        let simple = |addr| KernelParams { addr, _data: Vec::new(), _ptrs: Vec::new() };
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
        conv::addr(o, c).map(simple)
    }

    fn pack<'py>(py: Python<'py>, values: &Bound<'py, PyAny>, kinds: &Bound<'py, PyAny>, c: &Ctx) -> PyResult<Self> {
        let n = values.len()?;
        if kinds.len()? != n {
            return Err(c.value_error("values and types have different lengths"));
        }
        let t = types(py)?;
        let codes = t.codes.bind(py);
        let mut data = vec![0u64; n.max(1)];
        let mut ptrs = vec![0usize; n.max(1)];
        for k in 0..n {
            let v = item(values, k)?;
            let ty = item(kinds, k)?;
            let slot = &mut data[k] as *mut u64 as usize;
            if ty.is_none() {
                if v.is_instance_of::<PyInt>() {
                    data[k] = conv::int(&v, 32, true, c).or_else(|_| conv::int(&v, 32, false, c))?;
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
                    data[k] = scalar(&v, kind, size * 8, c)?;
                    ptrs[k] = slot;
                }
                FLOAT => {
                    let plain = v.is_instance_of::<pyo3::types::PyFloat>() || v.is_instance_of::<PyInt>();
                    let x = if plain { v.clone() } else { conv::attr_opt(&v, c"value").unwrap_or_else(|| v.clone()) };
                    data[k] = conv::float(&x, size * 8, c)?;
                    ptrs[k] = slot;
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
        Ok(KernelParams { addr, _data: data, _ptrs: ptrs })
    }
}

/// The bits of an integer, bool or pointer kernel argument: an int (or `__index__` object such as
/// a handle or numpy integer), a ctypes scalar (its `.value`), None (0) or, for pointers, a buffer.
fn scalar(v: &Bound<'_, PyAny>, kind: i64, bits: u32, c: &Ctx) -> PyResult<u64> {
    if v.is_none() {
        return Ok(0);
    }
    if kind == BOOL {
        return Ok(v.is_truthy()? as u64);
    }
    let signed = kind == SIGNED;
    if conv::has_index(v) {
        return if kind == VOIDP { conv::int_either(v, c) } else { conv::int(v, bits, signed, c) };
    }
    if kind == VOIDP {
        return conv::addr(v, c).map(|a| a as u64);
    }
    match conv::attr_opt(v, c"value") {
        Some(x) if x.is_instance_of::<PyInt>() => conv::int(&x, bits, signed, c),
        _ => Err(c.type_error(v)),
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
