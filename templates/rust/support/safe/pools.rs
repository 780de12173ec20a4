//! Safe constructors of the owned memory kinds whose generated constructors are `unsafe`
//! because their property records may hold an address (`CUmemPoolProps::win32SecurityAttributes`,
//! `CUmemAllocationProp::win32HandleMetaData`, read by the driver on Windows): here the
//! properties are built with those pointers null, for pinned memory of one device.
//!
//! Included by the `safe` module root (`crate::safe`).

use super::{AllocationHandle, MemoryPool};
use crate::driver::{
    self, CUdevice, CUmemAllocationGranularity_flags, CUmemAllocationProp, CUmemAllocationType, CUmemLocation,
    CUmemLocationType, CUmemPoolProps, Error,
};

/// Pinned memory of `device`, exported to no handle type, no address anywhere.
fn pinned_on(device: CUdevice) -> (CUmemAllocationType, CUmemLocation) {
    (CUmemAllocationType::PINNED, CUmemLocation { r#type: CUmemLocationType::DEVICE, id: device.0 })
}

impl MemoryPool {
    /// A pool of pinned memory of `device` ([`MemoryPool::create`] with null Windows
    /// security attributes).
    pub fn on_device(device: CUdevice) -> Result<Self, Error> {
        let (alloc_type, location) = pinned_on(device);
        let props = CUmemPoolProps { allocType: alloc_type, location, ..Default::default() };
        // SAFETY: the props hold no address.
        unsafe { Self::create(&props) }
    }
}

impl AllocationHandle {
    /// `size` bytes of pinned physical memory of `device` for the virtual memory calls
    /// ([`AllocationHandle::create`] with null Windows handle metadata); `size` is a multiple of
    /// [`AllocationHandle::granularity`].
    pub fn on_device(size: usize, device: CUdevice) -> Result<Self, Error> {
        let (r#type, location) = pinned_on(device);
        let prop = CUmemAllocationProp { r#type, location, ..Default::default() };
        // SAFETY: the properties hold no address.
        unsafe { Self::create(size, &prop, 0) }
    }

    /// The minimum granularity of [`AllocationHandle::on_device`] allocations of `device`
    /// (`cuMemGetAllocationGranularity`).
    pub fn granularity(device: CUdevice) -> Result<usize, Error> {
        let (r#type, location) = pinned_on(device);
        let prop = CUmemAllocationProp { r#type, location, ..Default::default() };
        // SAFETY: the properties hold no address.
        unsafe { driver::mem_get_allocation_granularity(&prop, CUmemAllocationGranularity_flags::MINIMUM) }
    }
}
