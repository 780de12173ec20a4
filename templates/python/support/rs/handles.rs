//! Handle classes (`CUdevice`, `CUcontext`, `nvrtcProgram`, ...): one frozen PyO3 class per
//! handle typedef, holding the C value in place so `getPtr()` is the address of the C object.

/// Implemented by every handle class.
pub trait HandleClass: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync {
    const BITS: u32;
    const SIGNED: bool;
    const POINTER: bool;
    fn raw(&self) -> u64;
}

#[macro_export]
macro_rules! handle_class {
    ($name:ident, $module:literal, $py:literal, $bits:literal, $signed:literal, $pointer:literal) => {
        #[pyo3::pyclass(module = $module, name = $py, frozen)]
        pub struct $name {
            v: ::core::sync::atomic::AtomicU64,
        }

        impl $crate::handles::HandleClass for $name {
            const BITS: u32 = $bits;
            const SIGNED: bool = $signed;
            const POINTER: bool = $pointer;
            #[inline(always)]
            fn raw(&self) -> u64 {
                self.v.load(::core::sync::atomic::Ordering::Relaxed)
            }
        }

        impl $name {
            #[inline]
            pub fn wrap(py: pyo3::Python<'_>, v: u64) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                Ok(pyo3::Py::new(py, $name { v: ::core::sync::atomic::AtomicU64::new(v) })?.into_any())
            }
            fn value(&self) -> i128 {
                let v = <Self as $crate::handles::HandleClass>::raw(self);
                if $signed { $crate::conv::sext(v, $bits, true) as i128 } else { v as i128 }
            }
        }

        #[pyo3::pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = (init_value = None))]
            fn __new__(init_value: Option<&pyo3::Bound<'_, pyo3::PyAny>>) -> pyo3::PyResult<Self> {
                let c = $crate::conv::Ctx { func: $py, param: "init_value", expected: concat!($py, " or int") };
                let v = match init_value {
                    None => 0,
                    Some(o) => $crate::conv::handle::<$name>(o, &c)?,
                };
                Ok($name { v: ::core::sync::atomic::AtomicU64::new(v) })
            }
            fn __int__(&self) -> i128 {
                self.value()
            }
            fn __index__(&self) -> i128 {
                self.value()
            }
            /// Address of the C value this object holds.
            fn getPtr(&self) -> usize {
                self.v.as_ptr() as usize
            }
            fn __repr__(&self) -> String {
                if $pointer {
                    format!("<{} 0x{:x}>", $py, <Self as $crate::handles::HandleClass>::raw(self))
                } else {
                    format!("<{} {}>", $py, self.value())
                }
            }
            fn __eq__(&self, other: &pyo3::Bound<'_, pyo3::PyAny>) -> bool {
                use pyo3::types::PyAnyMethods;
                if let Ok(o) = other.cast::<$name>() {
                    return <$name as $crate::handles::HandleClass>::raw(o.get()) == <Self as $crate::handles::HandleClass>::raw(self);
                }
                match other.extract::<i128>() {
                    Ok(i) if other.is_instance_of::<pyo3::types::PyInt>() => i == self.value(),
                    _ => false,
                }
            }
            fn __hash__(&self) -> isize {
                self.value() as i64 as isize
            }
        }
    };
}
