//! Safe constructors of the owned memory kinds whose generated constructors are `unsafe`
//! because their property records may hold an address (`CUmemPoolProps::win32SecurityAttributes`,
//! `CUmemAllocationProp::win32HandleMetaData`, read by the driver on Windows): here the
//! properties are built with those pointers null, for pinned memory at one location (a
//! `CUmemLocation`: its fields differ between the eras, so the caller makes it).
//!
//! Included by the `safe` module root (`crate::safe`).

use super::{AllocationHandle, MemoryPool};
use crate::driver::{
    self, CUmemAllocationGranularity_flags, CUmemAllocationProp, CUmemAllocationType, CUmemLocation, CUmemPoolProps, Error,
};

/// Properties of pinned memory at `location`, exported to no handle type, no address anywhere.
fn pinned_prop(location: CUmemLocation) -> CUmemAllocationProp {
    CUmemAllocationProp { r#type: CUmemAllocationType::PINNED, location, ..Default::default() }
}

impl MemoryPool {
    /// A pool of pinned memory at `location` (a device: `CU_MEM_LOCATION_TYPE_DEVICE` and its
    /// ordinal): [`MemoryPool::create`] with null Windows security attributes.
    pub fn pinned(location: CUmemLocation) -> Result<Self, Error> {
        let props = CUmemPoolProps { allocType: CUmemAllocationType::PINNED, location, ..Default::default() };
        // SAFETY: the props hold no address.
        unsafe { Self::create(&props) }
    }
}

impl AllocationHandle {
    /// `size` bytes of pinned physical memory at `location` for the virtual memory calls
    /// ([`AllocationHandle::create`] with null Windows handle metadata); `size` is a multiple of
    /// [`AllocationHandle::granularity`].
    pub fn pinned(size: usize, location: CUmemLocation) -> Result<Self, Error> {
        // SAFETY: the properties hold no address.
        unsafe { Self::create(size, &pinned_prop(location), 0) }
    }

    /// The minimum granularity of [`AllocationHandle::pinned`] allocations at `location`
    /// (`cuMemGetAllocationGranularity`).
    pub fn granularity(location: CUmemLocation) -> Result<usize, Error> {
        // SAFETY: the properties hold no address.
        unsafe { driver::mem_get_allocation_granularity(&pinned_prop(location), CUmemAllocationGranularity_flags::MINIMUM) }
    }
}
