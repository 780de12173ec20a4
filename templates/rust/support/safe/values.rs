//! One value at a time in device memory: a stream writes an element ([`DeviceBuffer::write_value`],
//! `cuStreamWriteValue32`/`64`), waits for one ([`DeviceBuffer::wait_value`],
//! `cuStreamWaitValue32`/`64`), or sets every element to it ([`DeviceBuffer::fill`],
//! `cuMemsetD8`/`D16`/`D32Async`). Their typed bindings take raw device addresses and are
//! `unsafe`; here the address comes from a borrowed buffer or slice, so it is live and in bounds.
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items. Each call
//! is enqueued on the memory's stream, as everything else the safe layer does with it (the
//! stream rule of [`DeviceBuffer`]), so it is ordered before the buffer's stream-ordered free.

use super::error::Error;
use super::memory::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
use super::repr::DeviceRepr;
use crate::driver::{self, CUdeviceptr, CUstream, CUstreamWaitValue_flags};
use core::mem::size_of;

mod sealed {
    pub trait Stream {}
    pub trait Fill {}
}

/// Elements a stream writes or waits on one at a time: `u32` and `u64`.
pub trait StreamValue: DeviceRepr + sealed::Stream {
    /// # Safety
    /// `addr` is live device memory holding a `Self`, whose other uses are ordered on `stream`.
    #[doc(hidden)]
    unsafe fn write_at(stream: CUstream, addr: CUdeviceptr, value: Self) -> Result<(), Error>;
    /// # Safety
    /// As for [`StreamValue::write_at`].
    #[doc(hidden)]
    unsafe fn wait_at(stream: CUstream, addr: CUdeviceptr, value: Self, condition: CUstreamWaitValue_flags) -> Result<(), Error>;
}

macro_rules! stream_value {
    ($($t:ty => $write:ident, $wait:ident;)*) => {$(
        impl sealed::Stream for $t {}
        impl StreamValue for $t {
            #[inline]
            unsafe fn write_at(stream: CUstream, addr: CUdeviceptr, value: Self) -> Result<(), Error> {
                // SAFETY: the caller's promise (a live element ordered on `stream`).
                Ok(unsafe { driver::$write(stream, addr, value, 0) }?)
            }
            #[inline]
            unsafe fn wait_at(stream: CUstream, addr: CUdeviceptr, value: Self, condition: CUstreamWaitValue_flags) -> Result<(), Error> {
                // SAFETY: as above.
                Ok(unsafe { driver::$wait(stream, addr, value, condition.0) }?)
            }
        }
    )*};
}
stream_value! {
    u32 => stream_write_value32, stream_wait_value32;
    u64 => stream_write_value64, stream_wait_value64;
}

/// Elements one driver memset sets: 1, 2 or 4 bytes (`u8`, `i8`, `u16`, `i16`, `u32`, `i32`, `f32`).
pub trait FillValue: DeviceRepr + sealed::Fill {
    /// # Safety
    /// `addr` is live device memory of `len` elements, whose other uses are ordered on `stream`.
    #[doc(hidden)]
    unsafe fn fill_at(stream: CUstream, addr: CUdeviceptr, value: Self, len: usize) -> Result<(), Error>;
}

macro_rules! fill_value {
    ($($t:ty => $memset:ident($bits:ty, $v:ident => $conv:expr);)*) => {$(
        impl sealed::Fill for $t {}
        impl FillValue for $t {
            #[inline]
            unsafe fn fill_at(stream: CUstream, addr: CUdeviceptr, $v: Self, len: usize) -> Result<(), Error> {
                const { assert!(size_of::<$t>() == size_of::<$bits>()) };
                // SAFETY: the caller's promise (`len` live elements ordered on `stream`).
                Ok(unsafe { driver::$memset(addr, $conv, len, stream) }?)
            }
        }
    )*};
}
fill_value! {
    u8 => memset_d8_async(u8, v => v);
    i8 => memset_d8_async(u8, v => v as u8);
    u16 => memset_d16_async(u16, v => v);
    i16 => memset_d16_async(u16, v => v as u16);
    u32 => memset_d32_async(u32, v => v);
    i32 => memset_d32_async(u32, v => v as u32);
    f32 => memset_d32_async(u32, v => v.to_bits());
}

/// The address of element `index` of `len` elements at `base` (panics when out of bounds, as
/// slice indexing does).
#[track_caller]
fn element<T>(base: CUdeviceptr, len: usize, index: usize) -> CUdeviceptr {
    assert!(index < len, "index {index} out of bounds for device memory of length {len}");
    CUdeviceptr::from(base.0 + (index * size_of::<T>()) as u64)
}

/// `wait_value` for every view that reads.
macro_rules! wait_method {
    ($($ty:ident),*) => {$(
        impl<T: StreamValue> $ty<'_, T> {
            /// Makes the memory's stream wait until element `index` meets `condition` against
            /// `value` (`cuStreamWaitValue32`/`64`: `GEQ`, `EQ`, `AND`, `NOR`); work enqueued
            /// after it runs once it does. Panics when `index` is out of bounds.
            #[track_caller]
            pub fn wait_value(&self, index: usize, value: T, condition: CUstreamWaitValue_flags) -> Result<(), Error> {
                let addr = element::<T>(self.addr(), self.len(), index);
                // SAFETY: a live element of borrowed memory, enqueued on its stream.
                unsafe { T::wait_at(self.home(), addr, value, condition) }
            }
        }
    )*};
}
wait_method!(DeviceBuffer, DeviceSlice, DeviceSliceMut);

/// `write_value` and `fill` for every view that writes.
macro_rules! write_methods {
    ($($ty:ident),*) => {$(
        impl<T: StreamValue> $ty<'_, T> {
            /// Enqueues writing `value` into element `index` on the memory's stream
            /// (`cuStreamWriteValue32`/`64`). Panics when `index` is out of bounds.
            #[track_caller]
            pub fn write_value(&mut self, index: usize, value: T) -> Result<(), Error> {
                let addr = element::<T>(self.addr(), self.len(), index);
                // SAFETY: a live element of exclusively borrowed memory, enqueued on its stream.
                unsafe { T::write_at(self.home(), addr, value) }
            }
        }

        impl<T: FillValue> $ty<'_, T> {
            /// Enqueues setting every element to `value` (`cuMemsetD8`/`D16`/`D32Async`).
            pub fn fill(&mut self, value: T) -> Result<(), Error> {
                if self.is_empty() {
                    return Ok(());
                }
                // SAFETY: `len` live elements of exclusively borrowed memory, enqueued on their stream.
                unsafe { T::fill_at(self.home(), self.addr(), value, self.len()) }
            }
        }
    )*};
}
write_methods!(DeviceBuffer, DeviceSliceMut);
