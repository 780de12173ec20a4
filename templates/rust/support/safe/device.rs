//! Devices and the queries users reach for: [`Device`] (count, name, attributes, total
//! memory), [`mem_get_info`], `Context::synchronize`, and returning pooled memory
//! ([`Device::trim_pools`]).
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! # What keeps device memory after objects are dropped
//!
//! Dropping every stream, event and buffer frees them, but [`mem_get_info`] need not climb
//! back to where it was:
//! - stream-ordered frees (`DeviceBuffer`'s default, `cuMemFreeAsync`) return memory to the
//!   device's current pool, which keeps it for the next allocation as long as it holds at most
//!   its release threshold (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`, 0 by default: the excess is
//!   released at the next synchronize of a stream, event or context). Memory that was in use
//!   when that synchronize ran stays reserved until the next one, or until
//!   `cuMemPoolTrimTo`;
//! - graph allocations stay cached by the driver for the next replay until
//!   `cuDeviceGraphMemTrim`;
//! - the context's own state (created on first use: per-stream and per-event driver
//!   structures, the printf FIFO, local memory sized for the largest kernel launched) stays
//!   with the context until it is destroyed.
//!
//! [`Device::trim_pools`] synchronizes the current context and trims the device's default and
//! current pools to nothing, then the graph memory cache: after it, the memory left is the
//! context's own state, which `tests/safe_leaks.rs` bounds.

use super::error::Error;
use super::AsRaw;
use crate::driver::{self, CUdevice, CUdevice_attribute, CUmemoryPool};

type Result<T, E = Error> = core::result::Result<T, E>;

/// A device ordinal's handle, with its queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Device(CUdevice);

impl Device {
    /// The number of devices the driver sees (initialize the driver first).
    pub fn count() -> Result<usize> {
        Ok(usize::try_from(driver::device_get_count()?).unwrap_or(0))
    }

    /// Device `ordinal` (0-based).
    pub fn get(ordinal: usize) -> Result<Self> {
        let ordinal = i32::try_from(ordinal).map_err(|_| driver::Error::Driver(driver::CUresult::ERROR_INVALID_DEVICE))?;
        Ok(Device(driver::device_get(ordinal)?))
    }

    /// Every device, in ordinal order.
    pub fn all() -> Result<Vec<Self>> {
        (0..Self::count()?).map(Self::get).collect()
    }

    /// The raw handle.
    pub fn as_raw(&self) -> CUdevice {
        self.0
    }

    /// The device's name (`cuDeviceGetName`).
    pub fn name(&self) -> Result<String> {
        Ok(driver::device_get_name(self.0)?)
    }

    /// One attribute (`cuDeviceGetAttribute`).
    pub fn attribute(&self, attrib: CUdevice_attribute) -> Result<i32> {
        Ok(driver::device_get_attribute(attrib, self.0)?)
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> Result<(i32, i32)> {
        Ok((
            self.attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR)?,
            self.attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    /// Total memory in bytes (`cuDeviceTotalMem`).
    pub fn total_memory(&self) -> Result<usize> {
        Ok(driver::device_total_mem(self.0)?)
    }

    /// The device's default memory pool (`cuDeviceGetDefaultMemPool`; owned by the device).
    pub fn default_pool(&self) -> Result<CUmemoryPool> {
        Ok(driver::device_get_default_mem_pool(self.0)?)
    }

    /// Returns cached memory to the device (see the module docs): synchronizes the current
    /// context (which must be this device's), trims the default and the current pool to 0
    /// bytes kept, and the graph memory cache.
    pub fn trim_pools(&self) -> Result<()> {
        driver::ctx_synchronize()?;
        let default = self.default_pool()?;
        driver::mem_pool_trim_to(default, 0)?;
        let current = driver::device_get_mem_pool(self.0)?;
        if current != default {
            driver::mem_pool_trim_to(current, 0)?;
        }
        driver::device_graph_mem_trim(self.0)?;
        Ok(())
    }
}

impl AsRaw<CUdevice> for Device {
    unsafe fn raw_handle(&self) -> CUdevice {
        self.0
    }
}

/// Free and total memory of the current context's device, in bytes (`cuMemGetInfo`).
pub fn mem_get_info() -> Result<(usize, usize)> {
    Ok(driver::mem_get_info()?)
}

macro_rules! synchronize {
    ($($ty:ident),*) => {$(
        impl super::$ty {
            /// Waits for all work of this context (`cuCtxSynchronize`); it must be the calling
            /// thread's current context ([`Error::NotCurrent`] otherwise).
            pub fn synchronize(&self) -> Result<()> {
                super::check_current(self)?;
                Ok(driver::ctx_synchronize()?)
            }

            /// The context's device.
            pub fn device(&self) -> Result<Device> {
                super::check_current(self)?;
                Ok(Device(driver::ctx_get_device()?))
            }
        }
    )*};
}
synchronize!(Context, PrimaryContext);
