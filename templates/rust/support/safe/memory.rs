//! Typed device memory: [`DeviceBuffer`], its views [`DeviceSlice`] / [`DeviceSliceMut`], and
//! page-locked host memory [`PinnedHostBuffer`].
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! # The stream rule
//!
//! A device buffer is bound to one stream, the one it was allocated on. Everything the safe
//! layer does with it is enqueued on that stream: copies, memsets, kernel launches that take it
//! (a launch on another stream is refused, naming the argument), and its free on drop
//! (`cuMemFreeAsync` on that stream). Work on one stream runs in issue order, so two uses of a
//! buffer never overlap and the free comes after every use, whatever the host does meanwhile.
//! Moving a buffer to another stream is explicit: [`DeviceBuffer::move_to`] records an event on
//! the old stream and makes the new one wait for it (once per move), and the buffer is bound to
//! the new stream from then on. The cost of the rule on every use is one compare of two stream
//! handles per buffer; no event per use (cudarc records and waits on events for every read and
//! write of a buffer once a context has several streams).
//!
//! Host memory a copy reads or writes is handled by its kind and direction:
//! - a copy from pageable memory (both ends of the slice unknown to CUDA, asked with
//!   `cuPointerGetAttributes`: a `Vec`, the stack, any ordinary allocation) does not wait, on
//!   machines where no device reads pageable memory itself
//!   (`CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS` 0 on every device, asked once): there the
//!   driver must stage the bytes into its own pinned memory, which it does before the call
//!   returns (CUDA's "API synchronization behavior": "The function will return once the pageable
//!   buffer has been copied to the staging memory"), so the slice is free again at return;
//! - a copy from memory CUDA knows (pinned, registered, managed, or a failed query), or on a
//!   machine whose GPUs read pageable memory (HMM, ATS: the driver need not stage), synchronizes
//!   the buffer's stream before returning;
//! - a copy to host memory always synchronizes before returning (`to_vec` sets the length only
//!   after): the current documentation no longer promises that a copy to pageable memory has
//!   completed when the asynchronous call returns, and a read-back is waited for anyway;
//! - a [`PinnedHostBuffer`]: the copy stays asynchronous; the pinned buffer records an event
//!   after it, and any host access to it (or its drop) waits for that event first.
//!
//! Registering a slice's memory while a copy of it runs takes `unsafe` code, whose caller
//! answers for it. A copy with host memory (to or from a slice) on a stream being captured is
//! refused before anything is enqueued ([`Error::Capturing`], asked with `cuStreamIsCapturing`),
//! so the capture stays valid: the driver captures pageable copies too, the graph would touch
//! the slice at every replay, and a copy that synchronizes would invalidate the capture
//! (`tests/safe_gpu.rs` checks each capture mode in both directions).
//!
//! A buffer borrows its stream (`DeviceBuffer<'s, T>`), so the stream outlives it; the stream's
//! context must outlive both (an owned `Stream<'c>` borrows it; a [`StreamRef`]'s maker vouches).
//! Stream-ordered allocations (`cuMemAllocAsync`, from the device's current pool or a given
//! pool) are freed with `cuMemFreeAsync` on the buffer's stream, without waiting; a buffer from
//! `cuMemAlloc` ([`Alloc::Sync`]) synchronizes its stream, then calls `cuMemFree`. An error in `Drop` goes to [`take_drop_errors`](super::take_drop_errors);
//! [`DeviceBuffer::free`] returns it instead.
//!
//! Calls that need a current context (`cuMemAlloc`, `cuMemHostAlloc`, `cuEventCreate`) use the
//! calling thread's: the stream's context must be current.

use super::error::{record_drop_error, Error};
use super::repr::DeviceRepr;
use super::AsRaw;
use crate::driver::{self, CUdeviceptr, CUevent, CUmemoryPool, CUpointer_attribute, CUstream};
use core::ffi::c_uint;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::mem::size_of;
use core::ops::{Bound, RangeBounds};
use std::sync::atomic::{AtomicBool, Ordering};

type Result<T, E = Error> = core::result::Result<T, E>;

/// A live stream the safe layer may enqueue work on.
///
/// Implemented by the owned stream type; [`StreamRef`] wraps a raw handle.
///
/// # Safety
/// `raw_stream` returns the same handle every time, and that stream is not destroyed while
/// `self` is alive (buffers bound to it are freed on it after `self`'s borrow ends).
pub unsafe trait AsStream {
    /// The raw stream handle.
    ///
    /// # Safety
    ///
    /// The copy is used only while `self` is borrowed (the owner's drop destroys the stream).
    unsafe fn raw_stream(&self) -> CUstream;
}

/// `s`'s stream handle, for work enqueued while `s` is borrowed.
#[inline(always)]
pub(crate) fn stream_of(s: &(impl AsStream + ?Sized)) -> CUstream {
    // SAFETY: the caller uses the handle during the borrow of `s` (or for memory bound to it,
    // which borrows `s` itself).
    unsafe { s.raw_stream() }
}

/// A borrowed raw stream handle, for streams created elsewhere (the typed layer, cudarc).
#[derive(Clone, Copy, Debug)]
pub struct StreamRef<'a> {
    raw: CUstream,
    _life: PhantomData<&'a ()>,
}

impl StreamRef<'_> {
    /// # Safety
    /// `raw` is a live stream (or a default stream of a live context) and stays so for the
    /// lifetime chosen for the result, including the frees of buffers bound to it.
    pub unsafe fn from_raw(raw: CUstream) -> Self {
        StreamRef { raw, _life: PhantomData }
    }
}

// SAFETY: the constructor's caller promised the handle stays valid for the lifetime.
unsafe impl AsStream for StreamRef<'_> {
    #[inline(always)]
    unsafe fn raw_stream(&self) -> CUstream {
        self.raw
    }
}

// SAFETY: a stream handle may be used from any thread.
unsafe impl Send for StreamRef<'_> {}
unsafe impl Sync for StreamRef<'_> {}

/// Where a [`DeviceBuffer`]'s memory comes from.
#[derive(Clone, Copy, Default)]
pub enum Alloc<'p> {
    /// `cuMemAllocAsync` on the buffer's stream, from its device's current pool; freed with
    /// `cuMemFreeAsync` on the buffer's stream (no wait).
    #[default]
    Async,
    /// `cuMemAllocFromPoolAsync` from this pool (an owned `MemoryPool`, or a raw handle); freed
    /// as `Async`. The pool may be destroyed before the buffer: the driver releases it once its
    /// allocations are freed.
    Pool(&'p dyn AsRaw<CUmemoryPool>),
    /// `cuMemAlloc` (the current context's); the drop synchronizes the buffer's stream, then
    /// calls `cuMemFree`.
    Sync,
}

impl Alloc<'_> {
    fn is_sync(self) -> bool {
        matches!(self, Alloc::Sync)
    }
}

impl core::fmt::Debug for Alloc<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Alloc::Async => f.write_str("Async"),
            Alloc::Pool(pool) => f.debug_tuple("Pool").field(&super::lend(*pool)).finish(),
            Alloc::Sync => f.write_str("Sync"),
        }
    }
}

/// Device memory for `len` values of `T`, bound to one stream (see the stream rule in the
/// module documentation); freed on drop.
pub struct DeviceBuffer<'s, T: DeviceRepr> {
    span: Span<T>,
    sync_alloc: bool,
    _stream: PhantomData<&'s ()>,
}

/// A shared view of part of a device buffer (`buf.slice(2..10)`), on the buffer's stream.
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceRepr> {
    span: Span<T>,
    _buf: PhantomData<&'a T>,
}

/// An exclusive view of part of a device buffer (`buf.slice_mut(..4)`), on the buffer's stream.
pub struct DeviceSliceMut<'a, T: DeviceRepr> {
    span: Span<T>,
    _buf: PhantomData<&'a mut T>,
}

/// Address, length and stream of a buffer or view: what every operation needs.
struct Span<T> {
    ptr: CUdeviceptr,
    len: usize,
    stream: CUstream,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Span<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Span<T> {}

// SAFETY: the handles are plain values; every operation is a driver call on the stream, which
// the driver allows from any thread. `T: DeviceRepr` is `Send + Sync`.
unsafe impl<T: DeviceRepr> Send for DeviceBuffer<'_, T> {}
unsafe impl<T: DeviceRepr> Sync for DeviceBuffer<'_, T> {}
unsafe impl<T: DeviceRepr> Send for DeviceSlice<'_, T> {}
unsafe impl<T: DeviceRepr> Sync for DeviceSlice<'_, T> {}
unsafe impl<T: DeviceRepr> Send for DeviceSliceMut<'_, T> {}
unsafe impl<T: DeviceRepr> Sync for DeviceSliceMut<'_, T> {}

fn byte_len<T>(len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>()).ok_or(Error::TooLarge { len, elem_bytes: size_of::<T>() })
}

/// The address of element `index` (within the allocation, so it cannot overflow).
fn offset<T>(base: CUdeviceptr, index: usize) -> CUdeviceptr {
    CUdeviceptr::from(base.0 + (index * size_of::<T>()) as u64)
}

/// A copy with pageable host memory on a stream being captured is refused before anything is
/// enqueued, so the capture stays valid: captured, the copy would read or write the borrowed
/// slice at every replay of the graph (the driver captures pageable copies too), and a copy
/// that synchronizes would fail there and invalidate the capture.
fn refuse_capture(stream: CUstream) -> Result<()> {
    if driver::stream_is_capturing(stream)? != driver::CUstreamCaptureStatus::NONE {
        return Err(Error::Capturing);
    }
    Ok(())
}

fn same_len(expected: usize, given: usize) -> Result<()> {
    if expected == given {
        Ok(())
    } else {
        Err(Error::Length { expected, given })
    }
}

impl<T: DeviceRepr> Span<T> {
    fn bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The sub-span `range` (panics like slice indexing when out of bounds).
    fn sub(&self, range: impl RangeBounds<usize>) -> Self {
        let (start, end) = bounds(range, self.len);
        Span { ptr: offset::<T>(self.ptr, start), len: end - start, ..*self }
    }

    fn get(&self, range: impl RangeBounds<usize>) -> Option<Self> {
        let (start, end) = try_bounds(range, self.len)?;
        Some(Span { ptr: offset::<T>(self.ptr, start), len: end - start, ..*self })
    }

    fn copy_from_host(&self, src: &[T]) -> Result<()> {
        same_len(self.len, src.len())?;
        if self.bytes() == 0 {
            return Ok(());
        }
        refuse_capture(self.stream)?;
        let staged = is_staged(src.as_ptr().cast(), self.bytes());
        // SAFETY: `src` is `bytes` long and borrowed until the copy has read it: staged memory
        // is copied before the call returns, other memory before the synchronize below returns.
        unsafe { driver::memcpy_htod_async(self.ptr, src.as_ptr().cast(), self.bytes(), self.stream) }?;
        if !staged {
            driver::stream_synchronize(self.stream)?;
        }
        Ok(())
    }

    fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        same_len(self.len, dst.len())?;
        if self.bytes() == 0 {
            return Ok(());
        }
        refuse_capture(self.stream)?;
        // SAFETY: `dst` is `bytes` long, initialized, exclusively borrowed until the copy has
        // completed (the synchronize below); any bytes are a valid `T` (`DeviceRepr`).
        unsafe { driver::memcpy_dtoh_async(dst.as_mut_ptr().cast(), self.ptr, self.bytes(), self.stream) }?;
        driver::stream_synchronize(self.stream)?;
        Ok(())
    }

    fn to_vec(&self) -> Result<Vec<T>> {
        let mut v: Vec<T> = Vec::with_capacity(self.len);
        if self.bytes() == 0 {
            return Ok(v);
        }
        refuse_capture(self.stream)?;
        // SAFETY: the spare capacity holds `len` elements; the driver writes all of it.
        let r = unsafe { driver::memcpy_dtoh_async(v.as_mut_ptr().cast(), self.ptr, self.bytes(), self.stream) };
        r?;
        if let Err(e) = driver::stream_synchronize(self.stream) {
            // The copy may still be in flight: never free or reuse its destination.
            core::mem::forget(v);
            return Err(e.into());
        }
        // SAFETY: the copy completed and wrote `len` elements; every bit pattern is a valid `T`.
        unsafe { v.set_len(self.len) };
        Ok(v)
    }

    fn memset(&self, byte: u8) -> Result<()> {
        if self.bytes() == 0 {
            return Ok(());
        }
        // SAFETY: the span is live device memory of `bytes` bytes (its buffer is borrowed), bound to
        // `stream`, where every other use of it is ordered.
        unsafe { driver::memset_d8_async(self.ptr, byte, self.bytes(), self.stream) }?;
        Ok(())
    }

    fn copy_from_device(&self, src: Span<T>) -> Result<()> {
        same_len(self.len, src.len)?;
        if src.stream != self.stream {
            return Err(Error::WrongStream { what: "device-to-device copy" });
        }
        if self.bytes() == 0 {
            return Ok(());
        }
        // SAFETY: both spans are live device memory of `bytes` bytes (their buffers are borrowed,
        // `self` exclusively), bound to the one stream the copy is ordered on.
        unsafe { driver::memcpy_dtod_async(self.ptr, src.ptr, self.bytes(), self.stream) }?;
        Ok(())
    }

    fn copy_from_pinned(&self, src: &mut PinnedHostBuffer<'_, T>) -> Result<()> {
        same_len(self.len, src.len)?;
        if self.bytes() == 0 {
            return Ok(());
        }
        src.before_async_use(self.stream)?;
        // SAFETY: the pinned buffer is alive until its event (recorded below) completes: its
        // drop and every host access wait for that event.
        unsafe { driver::memcpy_htod_async(self.ptr, src.ptr.cast(), self.bytes(), self.stream) }?;
        src.after_async_use(self.stream)
    }

    fn copy_to_pinned(&self, dst: &mut PinnedHostBuffer<'_, T>) -> Result<()> {
        same_len(self.len, dst.len)?;
        if self.bytes() == 0 {
            return Ok(());
        }
        dst.before_async_use(self.stream)?;
        // SAFETY: as in `copy_from_pinned`; any bytes are a valid `T`.
        unsafe { driver::memcpy_dtoh_async(dst.ptr.cast(), self.ptr, self.bytes(), self.stream) }?;
        dst.after_async_use(self.stream)
    }
}

/// Whether a copy from the host memory `ptr..ptr + bytes` (`bytes > 0`) is staged by the driver
/// before the call returns: CUDA knows neither its first nor its last byte (pageable memory) and
/// no device reads pageable memory itself (see the module documentation). Pinned, registered or
/// managed memory, a failed query, or a device with pageable memory access answer `false` (the
/// caller then synchronizes).
fn is_staged(ptr: *const c_void, bytes: usize) -> bool {
    let first = ptr as usize;
    let last = first + (bytes - 1);
    !pageable_access() && memory_type(first) == Some(0) && (last == first || memory_type(last) == Some(0))
}

/// Whether some device may read pageable host memory directly
/// (`CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS`), asked once; a failed query answers `true`.
fn pageable_access() -> bool {
    static ANY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ANY.get_or_init(|| {
        let Ok(n) = driver::device_get_count() else { return true };
        (0..n).any(|i| {
            driver::device_get(i)
                .and_then(|d| driver::device_get_attribute(driver::CUdevice_attribute::PAGEABLE_MEMORY_ACCESS, d))
                .map_or(true, |v| v != 0)
        })
    })
}

/// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE` of `addr`: 0 for memory CUDA does not know. The plural
/// `cuPointerGetAttributes` answers that with success (the singular call fails, an API error
/// for compute-sanitizer).
fn memory_type(addr: usize) -> Option<c_uint> {
    let mut ty: c_uint = 0;
    let mut data = [(&mut ty as *mut c_uint).cast::<c_void>()];
    let attrs = [CUpointer_attribute::MEMORY_TYPE];
    // SAFETY: one attribute, written to `ty` (a `CUmemorytype`, an unsigned int) during the call.
    let r = unsafe { driver::pointer_get_attributes(&attrs, data.as_mut_ptr(), CUdeviceptr::from(addr as u64)) };
    r.ok().map(|()| ty)
}

fn try_bounds(range: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
}

#[track_caller]
fn bounds(range: impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let shown = (range.start_bound().cloned(), range.end_bound().cloned());
    match try_bounds(range, len) {
        Some(b) => b,
        None => panic!("range {shown:?} out of bounds for a device slice of length {len}"),
    }
}

/// Methods of every view that reads: buffers, shared and exclusive slices.
macro_rules! read_methods {
    () => {
        /// Number of elements.
        #[inline]
        pub fn len(&self) -> usize {
            self.span.len
        }

        /// Whether it has no elements.
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.span.len == 0
        }

        /// The device address (for the typed layer and other libraries; the safe layer never
        /// needs it).
        ///
        /// # Safety
        ///
        /// The address is used only while this view lives: the buffer's drop frees the memory.
        #[inline]
        pub unsafe fn as_raw(&self) -> CUdeviceptr {
            self.span.ptr
        }

        /// The stream this memory is bound to.
        ///
        /// # Safety
        ///
        /// The handle is used only while this view lives (the stream's owner may destroy it
        /// once the buffer's borrow ends).
        #[inline]
        pub unsafe fn stream(&self) -> CUstream {
            self.span.stream
        }

        /// The device address, for the safe layer's own calls during a borrow.
        #[inline(always)]
        pub(crate) fn addr(&self) -> CUdeviceptr {
            self.span.ptr
        }

        /// The bound stream, for the safe layer's own calls during a borrow.
        #[inline(always)]
        pub(crate) fn home(&self) -> CUstream {
            self.span.stream
        }

        /// A shared view of `range` (panics when out of bounds, as slice indexing does).
        #[track_caller]
        pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceSlice<'_, T> {
            DeviceSlice { span: self.span.sub(range), _buf: PhantomData }
        }

        /// A shared view of `range`, or `None` when out of bounds.
        pub fn get(&self, range: impl RangeBounds<usize>) -> Option<DeviceSlice<'_, T>> {
            Some(DeviceSlice { span: self.span.get(range)?, _buf: PhantomData })
        }

        /// Copies the contents to a new `Vec`, returning once the copy has completed (the
        /// buffer's stream is synchronized).
        pub fn to_vec(&self) -> Result<Vec<T>> {
            self.span.to_vec()
        }

        /// Copies the contents into `dst` of the same length, returning once the copy has
        /// completed (the buffer's stream is synchronized).
        pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
            self.span.copy_to_host(dst)
        }

        /// Enqueues a copy of the contents into a pinned host buffer of the same length, without
        /// waiting; the pinned buffer waits for it before the host touches it.
        pub fn copy_to_pinned(&self, dst: &mut PinnedHostBuffer<'_, T>) -> Result<()> {
            self.span.copy_to_pinned(dst)
        }
    };
}

/// Methods of every view that writes: buffers and exclusive slices.
macro_rules! write_methods {
    () => {
        /// An exclusive view of `range` (panics when out of bounds).
        #[track_caller]
        pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceSliceMut<'_, T> {
            DeviceSliceMut { span: self.span.sub(range), _buf: PhantomData }
        }

        /// Copies `src` (same length) in, returning once `src` has been read (pageable `src`
        /// where no device reads pageable memory: staged by the call; else the stream is
        /// synchronized).
        pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
            self.span.copy_from_host(src)
        }

        /// Enqueues a copy from device memory of the same length bound to the same stream.
        pub fn copy_from_device(&mut self, src: &DeviceSlice<'_, T>) -> Result<()> {
            self.span.copy_from_device(src.span)
        }

        /// Enqueues a copy from a pinned host buffer of the same length, without waiting.
        pub fn copy_from_pinned(&mut self, src: &mut PinnedHostBuffer<'_, T>) -> Result<()> {
            self.span.copy_from_pinned(src)
        }

        /// Enqueues setting every byte to `byte`.
        pub fn memset(&mut self, byte: u8) -> Result<()> {
            self.span.memset(byte)
        }

        /// Enqueues setting every element to zero bits.
        pub fn zero(&mut self) -> Result<()> {
            self.span.memset(0)
        }
    };
}

impl<'s, T: DeviceRepr> DeviceBuffer<'s, T> {
    /// `len` zeroed elements, allocated stream-ordered on `stream` from its device's current pool.
    pub fn zeroed<S: AsStream + ?Sized>(stream: &'s S, len: usize) -> Result<Self> {
        Self::zeroed_with(stream, len, Alloc::Async)
    }

    /// `len` zeroed elements from `alloc`.
    pub fn zeroed_with<S: AsStream + ?Sized>(stream: &'s S, len: usize, alloc: Alloc) -> Result<Self> {
        let mut buf = Self::alloc(stream_of(stream), len, alloc)?;
        buf.zero()?;
        Ok(buf)
    }

    /// A copy of `data`, allocated stream-ordered on `stream` from its device's current pool
    /// (returns once the copy has read `data`).
    pub fn from_host<S: AsStream + ?Sized>(stream: &'s S, data: &[T]) -> Result<Self> {
        Self::from_host_with(stream, data, Alloc::Async)
    }

    /// A copy of `data` in memory from `alloc`.
    pub fn from_host_with<S: AsStream + ?Sized>(stream: &'s S, data: &[T], alloc: Alloc) -> Result<Self> {
        let mut buf = Self::alloc(stream_of(stream), data.len(), alloc)?;
        buf.copy_from_host(data)?;
        Ok(buf)
    }

    /// Memory whose contents are not initialized yet; every constructor fills it before
    /// returning it.
    fn alloc(stream: CUstream, len: usize, alloc: Alloc) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        let ptr = match (bytes, alloc) {
            (0, _) => CUdeviceptr::from(0),
            (_, Alloc::Async) => driver::mem_alloc_async(bytes, stream)?,
            (_, Alloc::Pool(pool)) => driver::mem_alloc_from_pool_async(bytes, super::lend(pool), stream)?,
            (_, Alloc::Sync) => driver::mem_alloc(bytes)?,
        };
        let span = Span { ptr, len, stream, _t: PhantomData };
        Ok(DeviceBuffer { span, sync_alloc: alloc.is_sync(), _stream: PhantomData })
    }

    read_methods!();
    write_methods!();

    /// A shared view of the whole buffer.
    #[inline]
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { span: self.span, _buf: PhantomData }
    }

    /// An exclusive view of the whole buffer.
    #[inline]
    pub fn as_mut_slice(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut { span: self.span, _buf: PhantomData }
    }

    /// Binds the buffer to `to`: work already enqueued on its stream happens before anything
    /// enqueued on `to` afterwards (an event recorded on the old stream, waited for by `to`).
    /// On an error the buffer is freed on its old stream.
    pub fn move_to<'t, S: AsStream + ?Sized>(self, to: &'t S) -> Result<DeviceBuffer<'t, T>> {
        let to = stream_of(to);
        if to != self.span.stream {
            join(self.span.stream, to)?;
        }
        let moved = DeviceBuffer { span: Span { stream: to, ..self.span }, sync_alloc: self.sync_alloc, _stream: PhantomData };
        core::mem::forget(self);
        Ok(moved)
    }

    /// Frees the memory now (stream-ordered, as `Drop` does), returning the error `Drop` would
    /// record.
    pub fn free(self) -> Result<()> {
        let (span, sync_alloc) = (self.span, self.sync_alloc);
        core::mem::forget(self);
        free_span(span, sync_alloc)
    }
}

fn free_span<T>(span: Span<T>, sync_alloc: bool) -> Result<()> {
    if span.ptr.0 == 0 {
        return Ok(());
    }
    if sync_alloc {
        // cuMemFree is not ordered on the stream: wait for the buffer's work first.
        driver::stream_synchronize(span.stream)?;
        // SAFETY: the buffer owned this `cuMemAlloc` memory and is gone; its work has completed.
        unsafe { driver::mem_free(span.ptr) }?;
    } else {
        // SAFETY: the buffer owned this stream-ordered memory and is gone; the free is ordered
        // after its work on its stream.
        unsafe { driver::mem_free_async(span.ptr, span.stream) }?;
    }
    Ok(())
}

impl<T: DeviceRepr> Drop for DeviceBuffer<'_, T> {
    fn drop(&mut self) {
        if let Err(e) = free_span(self.span, self.sync_alloc) {
            record_drop_error("DeviceBuffer", e);
        }
    }
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceBuffer<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceBuffer").field("ptr", &self.span.ptr).field("len", &self.span.len).finish()
    }
}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    read_methods!();
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    read_methods!();
    write_methods!();

    /// A shared view of the whole slice.
    #[inline]
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { span: self.span, _buf: PhantomData }
    }
}

impl<'a, T: DeviceRepr> From<&'a DeviceBuffer<'_, T>> for DeviceSlice<'a, T> {
    fn from(b: &'a DeviceBuffer<'_, T>) -> Self {
        b.as_slice()
    }
}

/// Makes `to` wait for the work enqueued on `from` so far.
fn join(from: CUstream, to: CUstream) -> Result<()> {
    let event = OwnedEvent::new()?;
    driver::event_record(event.0, from)?;
    driver::stream_wait_event(to, event.0, 0)?;
    Ok(())
}

/// An event without timing, destroyed on drop (destroying one that streams still wait for is
/// allowed: the driver releases it when they are done).
struct OwnedEvent(CUevent);

impl OwnedEvent {
    fn new() -> Result<Self> {
        Ok(OwnedEvent(driver::event_create(driver::CUevent_flags::DISABLE_TIMING.0)?))
    }
}

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        // SAFETY: the event is owned by `self` and destroyed once.
        if let Err(e) = unsafe { driver::event_destroy(self.0) } {
            record_drop_error("event", e.into());
        }
    }
}

/// Page-locked host memory for `len` values of `T` (`cuMemHostAlloc`, portable), so copies to
/// and from device buffers run asynchronously. Zeroed or copied on creation.
///
/// Each asynchronous copy records an event on the copy's stream (after making that stream wait
/// for the previous copy's event, when it ran on another stream); [`as_slice`](Self::as_slice),
/// [`as_mut_slice`](Self::as_mut_slice), [`to_vec`](Self::to_vec) and the drop wait for that
/// event first, so the host never touches the memory while a copy may. The buffer borrows a
/// stream as a stand-in for the stream's context, whose pinned allocations end with it: that
/// context (current when the buffer is made) must outlive the buffer.
pub struct PinnedHostBuffer<'c, T: DeviceRepr> {
    ptr: *mut T,
    len: usize,
    /// Recorded after the last asynchronous copy (created at the first one).
    event: Option<OwnedEvent>,
    /// The stream of the last asynchronous copy.
    last_stream: CUstream,
    /// A copy may be in flight: host access must wait for `event`.
    pending: AtomicBool,
    _ctx: PhantomData<&'c ()>,
}

// SAFETY: owns its memory like a `Vec<T>`; host access is gated by `pending` + `event`.
unsafe impl<T: DeviceRepr> Send for PinnedHostBuffer<'_, T> {}
unsafe impl<T: DeviceRepr> Sync for PinnedHostBuffer<'_, T> {}

impl<'c, T: DeviceRepr> PinnedHostBuffer<'c, T> {
    /// `len` zeroed elements of page-locked memory in the context of `stream`.
    pub fn zeroed<S: AsStream + ?Sized>(stream: &'c S, len: usize) -> Result<Self> {
        let buf = Self::alloc(stream, len)?;
        if len > 0 {
            // SAFETY: `ptr` holds `len` elements; all-zero bytes are a valid `T` (`DeviceRepr`).
            unsafe { core::ptr::write_bytes(buf.ptr, 0, len) };
        }
        Ok(buf)
    }

    /// A page-locked copy of `data`.
    pub fn from_slice<S: AsStream + ?Sized>(stream: &'c S, data: &[T]) -> Result<Self> {
        let buf = Self::alloc(stream, data.len())?;
        if !data.is_empty() {
            // SAFETY: `ptr` holds `len` elements and does not overlap `data`.
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), buf.ptr, data.len()) };
        }
        Ok(buf)
    }

    /// Memory not yet initialized: the constructors fill it before returning it.
    fn alloc<S: AsStream + ?Sized>(stream: &'c S, len: usize) -> Result<Self> {
        let bytes = byte_len::<T>(len)?;
        let ptr = if bytes == 0 {
            core::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            driver::mem_host_alloc(bytes, driver::CU_MEMHOSTALLOC_PORTABLE as u32)?.cast::<T>()
        };
        Ok(PinnedHostBuffer {
            ptr,
            len,
            event: None,
            last_stream: stream_of(stream),
            pending: AtomicBool::new(false),
            _ctx: PhantomData,
        })
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The contents, after waiting for asynchronous copies that involve them.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait()?;
        // SAFETY: initialized on creation; no copy is in flight; shared borrow of `self`.
        Ok(unsafe { core::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents, writable, after waiting for asynchronous copies that involve them.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as `as_slice`, with an exclusive borrow.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// A copy of the contents, after waiting for asynchronous copies.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Waits for the last asynchronous copy, if one may be in flight.
    fn wait(&self) -> Result<()> {
        if self.pending.load(Ordering::Acquire) {
            if let Some(e) = &self.event {
                driver::event_synchronize(e.0)?;
            }
            self.pending.store(false, Ordering::Release);
        }
        Ok(())
    }

    /// Before enqueueing a copy on `stream`: a copy still pending on another stream must come
    /// first, so the event recorded next covers both.
    fn before_async_use(&mut self, stream: CUstream) -> Result<()> {
        if *self.pending.get_mut() && stream != self.last_stream {
            if let Some(e) = &self.event {
                driver::stream_wait_event(stream, e.0, 0)?;
            }
        }
        Ok(())
    }

    /// After enqueueing a copy on `stream`: record the event host access waits for.
    fn after_async_use(&mut self, stream: CUstream) -> Result<()> {
        *self.pending.get_mut() = true;
        self.last_stream = stream;
        if self.event.is_none() {
            self.event = Some(OwnedEvent::new()?);
        }
        let e = self.event.as_ref().map(|e| e.0).unwrap_or(CUevent::null());
        driver::event_record(e, stream)?;
        Ok(())
    }

    /// Frees the memory now (after waiting for pending copies), returning the error `Drop`
    /// would record.
    pub fn free(mut self) -> Result<()> {
        let r = self.release();
        core::mem::forget(self);
        r
    }

    fn release(&mut self) -> Result<()> {
        if let Err(e) = self.wait() {
            // A copy may still use the memory: leak it rather than free it under the copy.
            self.len = 0;
            self.ptr = core::ptr::NonNull::dangling().as_ptr();
            return Err(e);
        }
        self.event = None;
        if byte_len::<T>(self.len).unwrap_or(0) != 0 {
            let p = core::mem::replace(&mut self.ptr, core::ptr::NonNull::dangling().as_ptr());
            // SAFETY: allocated by cuMemHostAlloc; no copy is in flight.
            unsafe { driver::mem_free_host(p.cast::<c_void>()) }?;
        }
        Ok(())
    }
}

impl<T: DeviceRepr> Drop for PinnedHostBuffer<'_, T> {
    fn drop(&mut self) {
        if let Err(e) = self.release() {
            record_drop_error("PinnedHostBuffer", e);
        }
    }
}

/// Disjoint exclusive views (`split_at_mut`), usable together in one launch.
impl<T: DeviceRepr> DeviceBuffer<'_, T> {
    /// Exclusive views of `[..mid]` and `[mid..]` (panics when `mid > len`, as slices do).
    #[track_caller]
    pub fn split_at_mut(&mut self, mid: usize) -> (DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>) {
        split_span(self.span, mid)
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// Exclusive views of `[..mid]` and `[mid..]` of this view (panics when `mid > len`).
    #[track_caller]
    pub fn split_at_mut(&mut self, mid: usize) -> (DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>) {
        split_span(self.span, mid)
    }

    /// Splits this view into `[..mid]` and `[mid..]`, each borrowing the buffer for `'a`.
    #[track_caller]
    pub fn split_at(self, mid: usize) -> (DeviceSliceMut<'a, T>, DeviceSliceMut<'a, T>) {
        split_span(self.span, mid)
    }
}

#[track_caller]
fn split_span<'b, T: DeviceRepr>(span: Span<T>, mid: usize) -> (DeviceSliceMut<'b, T>, DeviceSliceMut<'b, T>) {
    assert!(mid <= span.len, "split point {mid} is past the length {}", span.len);
    (DeviceSliceMut { span: span.sub(..mid), _buf: PhantomData }, DeviceSliceMut { span: span.sub(mid..), _buf: PhantomData })
}
