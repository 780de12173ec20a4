//! What may cross to the device: [`DeviceRepr`] and the [`device_repr!`](crate::device_repr)
//! macro that implements it for a user's `#[repr(C)]` struct without `unsafe` at the call site.
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.

/// Types copied byte for byte between host and device: device buffer elements, kernel
/// arguments passed by value, memset and zeroed buffers.
///
/// One trait serves all three uses because its contract covers the strictest: every bit
/// pattern of `size_of::<Self>()` bytes is a valid value. A kernel may write any bytes into a
/// buffer, so reading one back as `Vec<T>` is sound only for such types; it follows that the
/// all-zero pattern (`zeroed`, `memset`) is valid too. `bool` and `char` are therefore not
/// `DeviceRepr`: use `u8`/`u32` in buffers (a `bool` kernel argument is still accepted by
/// value, see [`KernelArg`](super::KernelArg)).
///
/// Implemented for the integers, `f32`, `f64` and arrays of them. For a struct, use
/// [`device_repr!`](crate::device_repr), which adds `#[repr(C)]` and checks every field's type.
///
/// A [`CUdeviceptr`](crate::driver::CUdeviceptr) is not `DeviceRepr`: a device address is valid only while the memory it
/// points to lives, which its bits do not say, so a kernel given one (alone or in a struct) could
/// read or write freed memory from safe code. A typed buffer or slice is the safe kernel
/// argument (the launch checks its stream, the borrow keeps it alive); a raw address goes in
/// only through `unsafe` ([`RawKernelArg`]).
///
/// # Safety
/// Every bit pattern of `size_of::<Self>()` bytes is a valid `Self`; `Self` holds no
/// references, host pointers, device addresses or resources (its bytes are its whole value) and
/// has a defined layout (`#[repr(C)]` or `#[repr(transparent)]` for structs) matching the
/// device code's.
pub unsafe trait DeviceRepr: Copy + Send + Sync + 'static {}

macro_rules! device_repr_prim {
    ($($t:ty),*) => { $(unsafe impl DeviceRepr for $t {})* };
}
device_repr_prim!(i8, u8, i16, u16, i32, u32, i64, u64, i128, u128, isize, usize, f32, f64);
// SAFETY: an array of valid-for-every-bit-pattern elements has no padding of its own.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}

/// A kernel argument passed by value whose validity the caller vouches for: a raw
/// [`CUdeviceptr`](crate::driver::CUdeviceptr), or a `#[repr(C)]` struct holding device addresses. The launch copies its
/// bytes and checks its size only; nothing ties the memory it names to the launch's stream or
/// keeps it alive.
///
/// ```no_run
/// # use cudagen::safe::RawKernelArg;
/// # let (ptr, n) = (cudagen::driver::CUdeviceptr::default(), 4u32);
/// // SAFETY: `ptr` is live device memory of `n` floats until the kernel finishes.
/// let arg = unsafe { RawKernelArg::new(ptr) };
/// # let _ = (arg, n);
/// ```
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct RawKernelArg<T: Copy>(T);

impl<T: Copy> RawKernelArg<T> {
    /// # Safety
    /// Every address in `value` points to memory that stays live until the kernel launched with
    /// it has finished, and the kernel's accesses through it race with no other use (the safe
    /// layer orders its own work on each buffer's stream, not on this argument's).
    #[inline(always)]
    pub unsafe fn new(value: T) -> Self {
        RawKernelArg(value)
    }
}

// SAFETY: no memory the safe layer tracks: `new`'s caller answers for what the value addresses.
unsafe impl<T: Copy> super::KernelArg for RawKernelArg<T> {
    type Param = T;
    #[inline(always)]
    unsafe fn param(&self) -> T {
        self.0
    }
}

/// Declares a `#[repr(C)]`, `Copy` struct whose fields are all [`DeviceRepr`] and implements
/// [`DeviceRepr`] for it, so it can be a buffer element or a kernel argument by value. The
/// macro adds `#[repr(C)]` and `#[derive(Clone, Copy)]`; write other attributes as usual.
///
/// ```
/// cudagen::device_repr! {
///     #[derive(Debug, PartialEq)]
///     pub struct Particle { pub pos: [f32; 3], pub id: u32 }
/// }
/// let p = Particle { pos: [0.0; 3], id: 7 };
/// # let _ = p;
/// ```
///
/// A field whose type is not `DeviceRepr` (a reference, a `bool`, a `Vec`, a `CUdeviceptr`)
/// fails to compile.
#[macro_export]
macro_rules! device_repr {
    ($(
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy)]
        $vis struct $name {
            $($(#[$fmeta])* $fvis $field: $ty),*
        }

        // Every field's type must be `DeviceRepr` (type-checked, never called).
        const _: fn() = || {
            fn check<T: $crate::safe::DeviceRepr>() {}
            $(check::<$ty>();)*
        };

        // SAFETY: `#[repr(C)]` with only `DeviceRepr` fields (checked above): every bit
        // pattern of each field is valid, and padding bytes may hold anything.
        unsafe impl $crate::safe::DeviceRepr for $name {}
    )*};
}

#[cfg(test)]
mod tests {
    use super::DeviceRepr;

    crate::device_repr! {
        #[derive(Debug, PartialEq)]
        struct Pair { a: f32, b: [u16; 3] }
    }

    fn size_of_repr<T: DeviceRepr>() -> usize {
        core::mem::size_of::<T>()
    }

    #[test]
    fn the_macro_gives_a_c_layout() {
        assert_eq!(size_of_repr::<Pair>(), 12, "4 + 6 bytes, padded to the f32 alignment");
        assert_eq!(core::mem::offset_of!(Pair, b), 4);
        assert_eq!(size_of_repr::<[u64; 2]>(), 16);
    }
}
