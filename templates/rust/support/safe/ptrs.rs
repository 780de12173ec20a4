//! Device pointer arrays built from borrowed memory: [`DevicePtrArray`], the safe form of a
//! `T **` kernel argument (a batch of matrices, a list of inputs).
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! The array is device memory holding the addresses of the views it was made from, bound to one
//! stream like any buffer (every view must be bound to it too). It keeps each view's borrow for
//! its own lifetime `'a`: a buffer in the array cannot be dropped, freed, moved or written from
//! the host while the array, a launch argument list or a graph that holds the array lives
//! (`tests/compile_fail/ptr_arrays/`). Views made with [`DevicePtrArray::from_mut`] hold exclusive
//! borrows, so the kernel may write through them; shared views are what a kernel reads (as a
//! shared buffer argument, the kernel's code is trusted not to write them).

use super::error::Error;
use super::launch::KernelArg;
use super::memory::{stream_of, AsStream, DeviceBuffer, DeviceSlice, DeviceSliceMut};
use super::repr::DeviceRepr;
use crate::driver::{CUdeviceptr, CUstream};
use core::marker::PhantomData;

/// An array of device addresses in device memory, made from views it keeps borrowed for `'a`;
/// passed to a kernel (`&arr`) as the array's address, a `T **` there. Freed on drop, on its
/// stream, after the work that used it.
pub struct DevicePtrArray<'a, T: DeviceRepr> {
    table: DeviceBuffer<'a, u64>,
    _views: PhantomData<&'a [T]>,
}

impl<'a, T: DeviceRepr> DevicePtrArray<'a, T> {
    /// The addresses of `views` (buffers `&buf`, slices), each bound to `stream`
    /// ([`Error::WrongStream`] otherwise), copied into device memory on `stream`.
    pub fn new<S, V>(stream: &'a S, views: impl IntoIterator<Item = V>) -> Result<Self, Error>
    where
        S: AsStream + ?Sized,
        V: Into<DeviceSlice<'a, T>>,
    {
        let home = stream_of(stream);
        let addrs = views.into_iter().map(|v| {
            let v = v.into();
            address(v.addr(), v.home(), home)
        });
        Self::with_addresses(stream, addrs.collect::<Result<Vec<u64>, Error>>()?)
    }

    /// As [`new`](Self::new), from exclusive views (`buf.as_mut_slice()`, `split_at_mut`): the
    /// kernel may write through every address.
    pub fn from_mut<S: AsStream + ?Sized>(
        stream: &'a S,
        views: impl IntoIterator<Item = DeviceSliceMut<'a, T>>,
    ) -> Result<Self, Error> {
        let home = stream_of(stream);
        let addrs = views.into_iter().map(|v| address(v.addr(), v.home(), home));
        Self::with_addresses(stream, addrs.collect::<Result<Vec<u64>, Error>>()?)
    }

    fn with_addresses<S: AsStream + ?Sized>(stream: &'a S, addrs: Vec<u64>) -> Result<Self, Error> {
        Ok(DevicePtrArray { table: DeviceBuffer::from_host(stream, &addrs)?, _views: PhantomData })
    }

    /// Number of addresses.
    #[inline]
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether it holds no address.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The array's own memory (the addresses, to read back).
    #[inline]
    pub fn table(&self) -> DeviceSlice<'_, u64> {
        self.table.as_slice()
    }

    /// The stream the array and its views are bound to.
    ///
    /// # Safety
    ///
    /// The handle is used only while the array lives.
    #[inline]
    pub unsafe fn stream(&self) -> CUstream {
        self.table.home()
    }
}

/// A view's address, when it is bound to `home`.
fn address(ptr: CUdeviceptr, stream: CUstream, home: CUstream) -> Result<u64, Error> {
    if stream == home {
        Ok(ptr.0)
    } else {
        Err(Error::WrongStream { what: "device pointer array" })
    }
}

impl<T: DeviceRepr> core::fmt::Debug for DevicePtrArray<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DevicePtrArray").field("table", &self.table.addr()).field("len", &self.len()).finish()
    }
}

// SAFETY: the address of live device memory (the table) bound to its stream; the addresses in
// it are of live views bound to the same stream, borrowed for as long as the array is.
unsafe impl<T: DeviceRepr> KernelArg for &DevicePtrArray<'_, T> {
    type Param = CUdeviceptr;
    #[inline(always)]
    unsafe fn param(&self) -> CUdeviceptr {
        self.table.addr()
    }
    #[inline(always)]
    unsafe fn stream(&self) -> Option<CUstream> {
        Some(self.table.home())
    }
}

impl<'a, T: DeviceRepr> From<&'a mut DeviceBuffer<'_, T>> for DeviceSliceMut<'a, T> {
    fn from(b: &'a mut DeviceBuffer<'_, T>) -> Self {
        b.as_mut_slice()
    }
}

impl<'a, T: DeviceRepr> From<&DeviceSlice<'a, T>> for DeviceSlice<'a, T> {
    fn from(s: &DeviceSlice<'a, T>) -> Self {
        *s
    }
}
