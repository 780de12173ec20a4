//! Working alongside [cudarc](https://docs.rs/cudarc) (feature `cudarc`, off by default).
//!
//! Both crates describe the same C objects, so moving between them costs nothing:
//! - every driver handle type converts to cudarc's with `From`
//!   (`cudarc::driver::sys::CUstream::from(ours)`) and back with `unsafe` `from_cudarc` (a raw
//!   pointer of cudarc's may be anything; the safe way is [`AsHandle`] on cudarc's objects);
//!   integer handles (`CUdeviceptr`, `CUdevice`, ...) already convert from and to the integer
//!   cudarc uses. Sizes and alignments are checked at compile time.
//! - cudarc's safe objects hand out our handle types through [`AsHandle`] (`stream.handle()`),
//!   and device buffers through [`device_ptr`] / [`device_ptr_mut`], which keep cudarc's
//!   stream-ordering bookkeeping.
//! - status codes: cudarc's `DriverError` and `CUresult` convert into ours.
//!
//! ```no_run
//! use cudagen::cudarc::{device_ptr, AsHandle};
//! use cudagen::driver;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = cudarc::driver::CudaContext::new(0)?;
//! let stream = ctx.default_stream();
//! let buf = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
//! let (free, total) = driver::mem_get_info()?; // a call cudarc has no safe wrapper for
//! let mut host = [0.0f32; 3];
//! let (src, _read) = device_ptr(&buf, &stream);
//! unsafe { driver::memcpy_dtoh_async(host.as_mut_ptr().cast(), src, 12, stream.handle())? };
//! driver::stream_synchronize(stream.handle())?;
//! # let _ = (free, total);
//! # Ok(())
//! # }
//! ```

use crate::driver::{CUcontext, CUdeviceptr, CUevent, CUfunction, CUresult, CUstream, Error};
use ::cudarc::driver::{safe, sys as rc};

/// `From` ours into cudarc's `sys` pointer type of the same C name, `unsafe fn from_cudarc` back,
/// with a compile-time check that the two have one layout. Invoked by the
/// generated `driver::types` for every opaque handle of the headers.
macro_rules! handles {
    ($($name:ident),* $(,)?) => {$(
        impl $name {
            /// cudarc's handle of the same C type as ours.
            ///
            /// # Safety
            ///
            /// As for `from_raw`: `h` is null or a live handle (cudarc's `sys` types are raw
            /// pointers, which safe code can make from any integer).
            #[inline(always)]
            pub unsafe fn from_cudarc(h: ::cudarc::driver::sys::$name) -> Self {
                Self(h.cast())
            }
        }

        impl From<$name> for ::cudarc::driver::sys::$name {
            #[inline(always)]
            fn from(h: $name) -> Self {
                h.0.cast()
            }
        }

        const _: () = assert!(
            ::core::mem::size_of::<$name>() == ::core::mem::size_of::<::cudarc::driver::sys::$name>()
                && ::core::mem::align_of::<$name>() == ::core::mem::align_of::<::cudarc::driver::sys::$name>()
        );
    )*};
}
pub(crate) use handles;

/// A cudarc safe object that wraps one driver handle: the handle as our type, to pass to any
/// typed or `sys` function. The object keeps ownership; the handle is valid while it lives.
pub trait AsHandle {
    type Handle: Copy;
    fn handle(&self) -> Self::Handle;
}

/// `AsHandle` for cudarc objects: object => our handle type, cudarc's accessor.
macro_rules! as_handle {
    ($($object:ident => $handle:ident, $get:ident;)*) => {$(
        impl AsHandle for safe::$object {
            type Handle = $handle;
            #[inline(always)]
            fn handle(&self) -> $handle {
                // SAFETY: the handle of a live cudarc object.
                unsafe { $handle::from_cudarc(self.$get()) }
            }
        }
    )*};
}

as_handle! {
    CudaContext => CUcontext, cu_ctx;
    CudaStream => CUstream, cu_stream;
    CudaEvent => CUevent, cu_event;
    CudaFunction => CUfunction, cu_function;
}

/// The device address of a cudarc buffer (`CudaSlice`, `CudaView`) for work on `stream` that
/// reads it. Keep the guard until that work is enqueued: dropping it records the read for
/// cudarc's stream ordering, exactly as cudarc's own calls do.
#[inline]
pub fn device_ptr<'a, T>(buf: &'a impl safe::DevicePtr<T>, stream: &'a safe::CudaStream) -> (CUdeviceptr, safe::SyncOnDrop<'a>) {
    let (ptr, guard) = buf.device_ptr(stream);
    (ptr.into(), guard)
}

/// As [`device_ptr`], for work on `stream` that writes the buffer.
#[inline]
pub fn device_ptr_mut<'a, T>(
    buf: &'a mut impl safe::DevicePtrMut<T>,
    stream: &'a safe::CudaStream,
) -> (CUdeviceptr, safe::SyncOnDrop<'a>) {
    let (ptr, guard) = buf.device_ptr_mut(stream);
    (ptr.into(), guard)
}

impl From<rc::CUresult> for CUresult {
    #[inline(always)]
    fn from(r: rc::CUresult) -> Self {
        CUresult(r as u32)
    }
}

impl From<::cudarc::driver::DriverError> for Error {
    #[inline]
    fn from(e: ::cudarc::driver::DriverError) -> Self {
        Error::Driver(e.0.into())
    }
}
