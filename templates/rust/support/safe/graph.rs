//! Graphs that keep alive what they use: [`Capture`] (stream capture), [`GraphBuilder`]
//! (explicit nodes), [`SafeGraph`] and [`SafeGraphExec`].
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! # The borrow rule
//!
//! A graph replays its work long after the calls that recorded it returned, so everything that
//! work touches must outlive the graph and every executable made from it. Each of these types
//! carries one lifetime `'a`, and every method that records work takes what it uses as `&'a`:
//! the kernel, its buffer arguments (any [`KernelArgs`] `+ 'a`), the buffers of copies and
//! memsets, events, child graphs, and the home stream. `end()` / `build()` give
//! [`SafeGraph`], `instantiate` gives [`SafeGraphExec`]: while either lives, the borrow
//! checker refuses to drop, free or move any of them (`tests/compile_fail/graph_*.rs`). The
//! borrows are lifetimes only: a replay is one `cuGraphLaunch`, nothing counted or checked.
//!
//! Pass buffers a graph reads *and* writes as `&buf`: the host may still read them between
//! replays (`to_vec` synchronizes the stream); `&mut buf` keeps them exclusive for the graph's
//! whole life.
//!
//! # The home stream
//!
//! A graph has the stream it was made for (its *home*), and every buffer it uses must be bound
//! to that stream ([`Error::ArgStream`], [`Error::GraphMemory`] otherwise). An executable graph
//! launches only on its home stream, so a replay is ordered with every other use of its buffers
//! and with their stream-ordered frees (the stream rule of `DeviceBuffer`).
//!
//! # Capture on a private stream
//!
//! [`StreamCapture::capture`] does not capture the home stream itself: it begins capture on a
//! private non-blocking stream of the same context, which only the [`Capture`] can reach. Work
//! enqueued on the home stream meanwhile (a buffer's drop, a copy, another launch) runs as
//! usual and never enters the graph. A capture records no event, and no other stream can
//! record one on the private stream, so no other stream can join the capture (a stream that
//! waits for an event recorded under capture becomes part of it): nothing outside the borrows
//! gets in. Event nodes are the explicit builder's ([`GraphBuilder::record`]).
//!
//! # Graph memory
//!
//! [`Capture::alloc`] allocates on the capture stream, which records a graph memory node: a
//! [`GraphMem<T>`] valid only while the graph runs. `end()` frees every such allocation at the
//! end of the graph, after all captured work. [`GraphBuilder::alloc`] adds the node explicitly
//! (`cuGraphAddMemAllocNode`); every later node that takes graph memory depends on the
//! builder's allocation nodes (added to the dependencies given), and `build()` adds one free
//! node per allocation after every other node (`cuGraphAddMemFreeNode`), so each use comes
//! after its allocation and before its free, whatever dependencies were given. A `GraphMem` is
//! a kernel argument, a copy or memset target only in its own graph: anywhere else the launch
//! or node is refused ([`Error::ArgGraph`], [`Error::GraphMemory`]) before anything is enqueued.
//! The driver keeps the physical memory behind graph allocations cached for the next replay;
//! `Device::trim_pools` returns it.

use super::error::Error;
use super::launch::{checked, Binding, KernelArgs, LaunchConfig, Launchable, Outcome};
use super::memory::{stream_of, AsStream, DeviceBuffer, DeviceSlice, DeviceSliceMut};
use super::repr::DeviceRepr;
use super::{lend, AsRaw};
use crate::driver::{self, sys, CUdeviceptr, CUevent, CUgraph, CUgraphNode, CUresult, CUstream, CUstreamCaptureMode};
use core::marker::PhantomData;
use core::mem::size_of;
use std::sync::atomic::{AtomicU64, Ordering};

type Result<T, E = Error> = core::result::Result<T, E>;

/// A fresh id for a graph being made (never 0, never reused in the process).
fn next_graph_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn status(r: CUresult) -> Result<()> {
    if r == CUresult::SUCCESS {
        Ok(())
    } else {
        Err(driver::Error::Driver(r).into())
    }
}

/// What a graph operation knows of a memory operand: address, length, where it belongs.
#[derive(Clone, Copy)]
#[doc(hidden)]
pub struct View {
    ptr: CUdeviceptr,
    bytes: usize,
    len: usize,
    /// The stream of a buffer, or `None` for a graph allocation.
    stream: Option<CUstream>,
    graph: u64,
}

impl View {
    /// Refuses memory that does not belong to `bind` (another stream, another graph).
    fn belongs(self, bind: Binding, what: &'static str) -> Result<Self> {
        let ok = match self.stream {
            Some(s) => s == bind.stream,
            None => self.graph == bind.graph,
        };
        if ok {
            Ok(self)
        } else {
            Err(Error::GraphMemory { what })
        }
    }
}

/// Device memory of `T` a graph operation may take: buffers, their views (by reference or
/// value) and graph allocations.
///
/// # Safety
/// `view` describes live memory of `len` elements that the value keeps borrowed (or that its
/// graph owns), bound to the stream it names.
pub unsafe trait GraphOperand<T: DeviceRepr> {
    #[doc(hidden)]
    fn view(&self) -> View;
}

macro_rules! buffer_operand {
    ($($ty:ty),*) => {$(
        // SAFETY: a live buffer or view, with its stream.
        unsafe impl<T: DeviceRepr> GraphOperand<T> for $ty {
            #[inline]
            fn view(&self) -> View {
                View { ptr: self.addr(), bytes: self.len() * size_of::<T>(), len: self.len(), stream: Some(self.home()), graph: 0 }
            }
        }
    )*};
}
buffer_operand!(
    &DeviceBuffer<'_, T>,
    &mut DeviceBuffer<'_, T>,
    DeviceSlice<'_, T>,
    &DeviceSlice<'_, T>,
    DeviceSliceMut<'_, T>,
    &mut DeviceSliceMut<'_, T>
);

/// Memory allocated inside a graph ([`Capture::alloc`]): valid only while the graph runs, so
/// it is an argument only of its own graph's work. Copy; it ends with the graph.
#[derive(Clone, Copy, Debug)]
pub struct GraphMem<T: DeviceRepr> {
    ptr: CUdeviceptr,
    len: usize,
    graph: u64,
    _t: PhantomData<fn() -> T>,
}

impl<T: DeviceRepr> GraphMem<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

// SAFETY: the graph's own memory; `graph` names the graph.
unsafe impl<T: DeviceRepr> GraphOperand<T> for GraphMem<T> {
    #[inline]
    fn view(&self) -> View {
        View { ptr: self.ptr, bytes: self.len * size_of::<T>(), len: self.len, stream: None, graph: self.graph }
    }
}

// SAFETY: a device address valid only inside graph `graph`, which `graph()` names.
unsafe impl<T: DeviceRepr> super::launch::KernelArg for GraphMem<T> {
    type Param = CUdeviceptr;
    #[inline(always)]
    unsafe fn param(&self) -> CUdeviceptr {
        self.ptr
    }
    #[inline(always)]
    fn graph(&self) -> u64 {
        self.graph
    }
}

fn same_len(dst: View, src: View) -> Result<()> {
    if dst.len == src.len {
        Ok(())
    } else {
        Err(Error::Length { expected: dst.len, given: src.len })
    }
}

/// The current context, which must be the stream's (graphs and their private streams are made
/// in it).
fn stream_context(stream: CUstream) -> Result<driver::CUcontext> {
    let current = driver::ctx_get_current()?;
    if current.0.is_null() || driver::stream_get_ctx(stream)?.0 != current.0 {
        return Err(Error::NotCurrent { current: !current.0.is_null() });
    }
    Ok(current)
}

/// Capturing into a graph that borrows what it uses: `stream.capture(mode)?`.
///
/// Implemented for every [`AsStream`]; the stream is the graph's home (see the module docs).
pub trait StreamCapture: AsStream {
    /// Begins capturing on a private stream for a graph whose home is `self`; the stream's
    /// context must be current.
    fn capture<'a>(&'a self, mode: CUstreamCaptureMode) -> Result<Capture<'a>> {
        Capture::begin(stream_of(self), mode)
    }
}

impl<S: AsStream + ?Sized> StreamCapture for S {}

/// A capture in progress (see the module docs): launches, copies and memsets recorded here
/// borrow what they use for `'a`; [`end`](Self::end) gives the graph. Dropped without `end`,
/// the capture is ended and its graph destroyed. Not `Send`: a capture belongs to its thread.
pub struct Capture<'a> {
    bind: Binding,
    /// The private capture stream (owned: destroyed with the capture).
    stream: CUstream,
    allocs: Vec<CUdeviceptr>,
    _borrows: PhantomData<(&'a (), *const ())>,
}

impl<'a> Capture<'a> {
    fn begin(home: CUstream, mode: CUstreamCaptureMode) -> Result<Self> {
        stream_context(home)?;
        let stream = driver::stream_create(driver::CUstream_flags::NON_BLOCKING.0)?;
        let cap =
            Capture { bind: Binding { stream: home, graph: next_graph_id() }, stream, allocs: Vec::new(), _borrows: PhantomData };
        driver::stream_begin_capture(stream, mode)?;
        Ok(cap)
    }

    /// Records a checked launch of `kernel` (checked as [`StreamLaunch::launch`](super::StreamLaunch::launch)
    /// checks; buffers bound to the home stream, or this capture's [`GraphMem`]).
    pub fn launch<K: Launchable + ?Sized, A: KernelArgs + 'a>(
        &mut self,
        kernel: &'a K,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<()> {
        let stream = self.stream;
        // SAFETY: `checked` calls this with parameters that match the kernel.
        checked(kernel, self.bind, cfg, args, |f, cfg, params| unsafe { launch_on(f, cfg, stream, params) })
    }

    /// Records a copy between two operands of the same length.
    pub fn copy<T: DeviceRepr>(&mut self, dst: impl GraphOperand<T> + 'a, src: impl GraphOperand<T> + 'a) -> Result<()> {
        let (d, s) = (dst.view().belongs(self.bind, "graph copy")?, src.view().belongs(self.bind, "graph copy")?);
        same_len(d, s)?;
        if d.bytes > 0 {
            // SAFETY: both ends are live device memory of `bytes` bytes the graph borrows.
            status(unsafe { sys::cuMemcpyDtoDAsync_v2(d.ptr, s.ptr, d.bytes, self.stream) })?;
        }
        Ok(())
    }

    /// Records setting every byte of `dst` to `byte`.
    pub fn memset<T: DeviceRepr>(&mut self, dst: impl GraphOperand<T> + 'a, byte: u8) -> Result<()> {
        let d = dst.view().belongs(self.bind, "graph memset")?;
        if d.bytes > 0 {
            // SAFETY: live device memory of `bytes` bytes the graph borrows.
            status(unsafe { sys::cuMemsetD8Async(d.ptr, byte, d.bytes, self.stream) })?;
        }
        Ok(())
    }

    /// Allocates `len` elements inside the graph (a graph memory node), freed at the graph's
    /// end; not initialized: write it before reading it.
    pub fn alloc<T: DeviceRepr>(&mut self, len: usize) -> Result<GraphMem<T>> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(Error::TooLarge { len, elem_bytes: size_of::<T>() })?;
        let ptr = if bytes == 0 { CUdeviceptr::from(0) } else { driver::mem_alloc_async(bytes, self.stream)? };
        if bytes != 0 {
            self.allocs.push(ptr);
        }
        Ok(GraphMem { ptr, len, graph: self.bind.graph, _t: PhantomData })
    }

    /// Ends the capture: frees the graph's allocations after all recorded work and gives the
    /// graph, which borrows what the capture did.
    pub fn end(mut self) -> Result<SafeGraph<'a>> {
        let stream = self.stream;
        // SAFETY: each is a graph allocation of this capture, freed once, after its uses.
        let frees: Result<()> = self.allocs.drain(..).try_for_each(|p| status(unsafe { sys::cuMemFreeAsync(p, stream) }));
        let graph = self.finish()?;
        frees?;
        Ok(graph)
    }

    /// Ends capture mode (whatever happened) and wraps the graph.
    fn finish(&mut self) -> Result<SafeGraph<'a>> {
        // SAFETY: everything the captured work uses is borrowed for 'a by this capture, and
        // the graph (`SafeGraph<'a>`) keeps those borrows.
        let raw = unsafe { driver::stream_end_capture(self.stream) }?;
        // SAFETY: the graph was just made by cuStreamEndCapture and is owned by nobody else.
        let graph = unsafe { super::Graph::from_raw(raw) };
        Ok(SafeGraph { graph, home: self.bind.stream, _borrows: PhantomData })
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if driver::stream_is_capturing(self.stream).map_or(false, |s| s != driver::CUstreamCaptureStatus::NONE) {
            if let Err(e) = self.finish().map(drop) {
                super::record_drop_error("Capture", e);
            }
        }
        // SAFETY: the private stream is owned by the capture and ended once.
        if let Err(e) = status(unsafe { sys::cuStreamDestroy_v2(self.stream) }) {
            super::record_drop_error("Capture", e);
        }
    }
}

/// `cuLaunchKernel` on the capture stream.
///
/// # Safety
/// `params` matches the kernel's parameters.
unsafe fn launch_on(
    f: driver::CUfunction,
    cfg: &LaunchConfig,
    stream: CUstream,
    params: &mut [*mut core::ffi::c_void],
) -> Result<(), Outcome> {
    let ((gx, gy, gz), (bx, by, bz)) = (cfg.grid, cfg.block);
    let p = if params.is_empty() { core::ptr::null_mut() } else { params.as_mut_ptr() };
    // SAFETY: as the caller promised.
    match unsafe { sys::cuLaunchKernel(f, gx, gy, gz, bx, by, bz, cfg.shared_mem_bytes, stream, p, core::ptr::null_mut()) } {
        CUresult::SUCCESS => Ok(()),
        r => Err(r.into()),
    }
}

/// The location of `device`'s memory. `CUmemLocation` is `{ int type; int id; }` in every
/// release (from 13.0 `id` shares its place with another member, so the field is spelled
/// differently), so the id is written at its offset.
fn device_location(device: driver::CUdevice) -> driver::CUmemLocation {
    const _: () = assert!(size_of::<driver::CUmemLocation>() == 2 * size_of::<core::ffi::c_int>());
    let mut location = driver::CUmemLocation { r#type: driver::CUmemLocationType::DEVICE, ..Default::default() };
    // SAFETY: the second `int` of the 8-byte record is the location's id.
    unsafe { core::ptr::addr_of_mut!(location).cast::<core::ffi::c_int>().add(1).write(device.0) };
    location
}

/// A node of a [`GraphBuilder`], for dependencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    graph: u64,
    raw: CUgraphNode,
}

/// Builds a graph node by node; every node borrows what it uses for `'a` (see the module docs).
/// Dependencies are [`Node`]s of this builder. Send, not Sync (graph objects are not
/// thread-safe).
pub struct GraphBuilder<'a> {
    graph: super::Graph,
    bind: Binding,
    ctx: driver::CUcontext,
    /// The graph's allocations and their nodes (each freed by a node `build` adds).
    allocs: Vec<(CUdeviceptr, CUgraphNode)>,
    /// The nodes nothing depends on yet: every node is one or comes before one.
    leaves: Vec<CUgraphNode>,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: the graph is used by one thread at a time (`&mut self`); the handles are values.
unsafe impl Send for GraphBuilder<'_> {}

impl<'a> GraphBuilder<'a> {
    /// An empty graph whose home is `home` (its context must be current).
    pub fn new<S: AsStream + ?Sized>(home: &'a S) -> Result<Self> {
        let ctx = stream_context(stream_of(home))?;
        let raw = driver::graph_create(0)?;
        // SAFETY: just made by cuGraphCreate, owned by nobody else.
        let graph = unsafe { super::Graph::from_raw(raw) };
        Ok(GraphBuilder {
            graph,
            bind: Binding { stream: stream_of(home), graph: next_graph_id() },
            ctx,
            allocs: Vec::new(),
            leaves: Vec::new(),
            _borrows: PhantomData,
        })
    }

    /// The raw dependencies: `deps` (nodes of this builder), and every allocation node when the
    /// new node takes graph memory (`in_graph`).
    fn deps(&self, deps: &[Node], in_graph: bool) -> Result<Vec<CUgraphNode>> {
        let mut raw: Vec<CUgraphNode> = deps
            .iter()
            .map(|n| if n.graph == self.bind.graph { Ok(n.raw) } else { Err(Error::ForeignNode) })
            .collect::<Result<_>>()?;
        if in_graph {
            raw.extend(self.allocs.iter().map(|&(_, node)| node).filter(|n| !deps.iter().any(|d| d.raw == *n)));
        }
        Ok(raw)
    }

    /// Records a node added after `deps`: they are no longer leaves, it is one.
    fn added(&mut self, raw: CUgraphNode, deps: &[CUgraphNode]) -> Node {
        self.leaves.retain(|l| !deps.contains(l));
        self.leaves.push(raw);
        Node { graph: self.bind.graph, raw }
    }

    /// Adds a node with `add(out, graph, deps, count)` (a `cuGraphAdd*Node` call).
    fn add(
        &mut self,
        deps: &[Node],
        in_graph: bool,
        add: impl FnOnce(*mut CUgraphNode, CUgraph, *const CUgraphNode, usize) -> CUresult,
    ) -> Result<Node> {
        let deps = self.deps(deps, in_graph)?;
        let mut raw = CUgraphNode(core::ptr::null_mut());
        status(add(&mut raw, lend(&self.graph), deps.as_ptr(), deps.len()))?;
        Ok(self.added(raw, &deps))
    }

    /// An allocation node of `len` elements of `T` on the home stream's device
    /// (`cuGraphAddMemAllocNode`): memory valid only while the graph runs, freed at its end
    /// (see the module docs). Not initialized: write it before reading it.
    pub fn alloc<T: DeviceRepr>(&mut self, deps: &[Node], len: usize) -> Result<(Node, GraphMem<T>)> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(Error::TooLarge { len, elem_bytes: size_of::<T>() })?;
        if bytes == 0 {
            let node = self.empty(deps)?;
            return Ok((node, GraphMem { ptr: CUdeviceptr::from(0), len, graph: self.bind.graph, _t: PhantomData }));
        }
        let location = device_location(driver::ctx_get_device()?);
        let pool_props =
            driver::CUmemPoolProps { allocType: driver::CUmemAllocationType::PINNED, location, ..Default::default() };
        let mut p = driver::CUDA_MEM_ALLOC_NODE_PARAMS { poolProps: pool_props, bytesize: bytes, ..Default::default() };
        let deps = self.deps(deps, false)?;
        let mut raw = CUgraphNode(core::ptr::null_mut());
        // SAFETY: the properties hold no address and no access descriptors; the driver writes
        // the node and `p.dptr`.
        status(unsafe { sys::cuGraphAddMemAllocNode(&mut raw, lend(&self.graph), deps.as_ptr(), deps.len(), &mut p) })?;
        self.allocs.push((p.dptr, raw));
        let node = self.added(raw, &deps);
        Ok((node, GraphMem { ptr: p.dptr, len, graph: self.bind.graph, _t: PhantomData }))
    }

    /// A kernel node, checked as [`StreamLaunch::launch`](super::StreamLaunch::launch) checks
    /// (buffers bound to the home stream).
    pub fn kernel<K: Launchable + ?Sized, A: KernelArgs + 'a>(
        &mut self,
        deps: &[Node],
        kernel: &'a K,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<Node> {
        let (deps, graph, ctx) = (self.deps(deps, args.in_graph())?, lend(&self.graph), self.ctx);
        let mut raw = CUgraphNode(core::ptr::null_mut());
        checked(kernel, self.bind, cfg, args, |f, cfg, params| {
            let p = driver::CUDA_KERNEL_NODE_PARAMS {
                func: f,
                gridDimX: cfg.grid.0,
                gridDimY: cfg.grid.1,
                gridDimZ: cfg.grid.2,
                blockDimX: cfg.block.0,
                blockDimY: cfg.block.1,
                blockDimZ: cfg.block.2,
                sharedMemBytes: cfg.shared_mem_bytes,
                kernelParams: if params.is_empty() { core::ptr::null_mut() } else { params.as_mut_ptr() },
                ctx,
                ..Default::default()
            };
            // SAFETY: the parameters match the kernel (checked); the driver copies them now.
            match unsafe { sys::cuGraphAddKernelNode_v2(&mut raw, graph, deps.as_ptr(), deps.len(), &p) } {
                CUresult::SUCCESS => Ok(()),
                r => Err(r.into()),
            }
        })?;
        Ok(self.added(raw, &deps))
    }

    /// A copy node between two buffers of the same length bound to the home stream (an empty
    /// node when they hold nothing).
    pub fn copy<T: DeviceRepr>(
        &mut self,
        deps: &[Node],
        dst: impl GraphOperand<T> + 'a,
        src: impl GraphOperand<T> + 'a,
    ) -> Result<Node> {
        let (d, s) = (dst.view().belongs(self.bind, "graph copy")?, src.view().belongs(self.bind, "graph copy")?);
        same_len(d, s)?;
        if d.bytes == 0 {
            return self.empty(deps);
        }
        let p = driver::CUDA_MEMCPY3D {
            srcMemoryType: driver::CUmemorytype::DEVICE,
            srcDevice: s.ptr,
            srcPitch: d.bytes,
            srcHeight: 1,
            dstMemoryType: driver::CUmemorytype::DEVICE,
            dstDevice: d.ptr,
            dstPitch: d.bytes,
            dstHeight: 1,
            WidthInBytes: d.bytes,
            Height: 1,
            Depth: 1,
            ..Default::default()
        };
        let ctx = self.ctx;
        let in_graph = d.stream.is_none() || s.stream.is_none();
        // SAFETY: both ends are live device memory of `bytes` bytes the graph borrows.
        self.add(deps, in_graph, |out, g, deps, n| unsafe { sys::cuGraphAddMemcpyNode(out, g, deps, n, &p, ctx) })
    }

    /// A memset node setting every byte of `dst` (bound to the home stream) to `byte` (an empty
    /// node when it holds nothing).
    pub fn memset<T: DeviceRepr>(&mut self, deps: &[Node], dst: impl GraphOperand<T> + 'a, byte: u8) -> Result<Node> {
        let d = dst.view().belongs(self.bind, "graph memset")?;
        if d.bytes == 0 {
            return self.empty(deps);
        }
        let p = driver::CUDA_MEMSET_NODE_PARAMS {
            dst: d.ptr,
            pitch: d.bytes,
            value: byte as u32,
            elementSize: 1,
            width: d.bytes,
            height: 1,
        };
        let ctx = self.ctx;
        // SAFETY: `dst` is live device memory of `bytes` bytes the graph borrows.
        self.add(deps, d.stream.is_none(), |out, g, deps, n| unsafe { sys::cuGraphAddMemsetNode(out, g, deps, n, &p, ctx) })
    }

    /// A node running a copy of `child` (same home stream; the copy keeps its borrows).
    pub fn child(&mut self, deps: &[Node], child: &SafeGraph<'a>) -> Result<Node> {
        if child.home != self.bind.stream {
            return Err(Error::GraphMemory { what: "child graph" });
        }
        let c = lend(&child.graph);
        // SAFETY: a live graph; the driver clones it now.
        self.add(deps, false, |out, g, deps, n| unsafe { sys::cuGraphAddChildGraphNode(out, g, deps, n, c) })
    }

    /// A node that does nothing (to join dependencies).
    pub fn empty(&mut self, deps: &[Node]) -> Result<Node> {
        // SAFETY: a node without parameters.
        self.add(deps, false, |out, g, deps, n| unsafe { sys::cuGraphAddEmptyNode(out, g, deps, n) })
    }

    /// A node recording `event` (borrowed by the graph).
    pub fn record<E: AsRaw<CUevent>>(&mut self, deps: &[Node], event: &'a E) -> Result<Node> {
        let e = lend(event);
        // SAFETY: a live event the graph borrows.
        self.add(deps, false, |out, g, deps, n| unsafe { sys::cuGraphAddEventRecordNode(out, g, deps, n, e) })
    }

    /// A node waiting for `event` (borrowed by the graph).
    pub fn wait<E: AsRaw<CUevent>>(&mut self, deps: &[Node], event: &'a E) -> Result<Node> {
        let e = lend(event);
        // SAFETY: a live event the graph borrows.
        self.add(deps, false, |out, g, deps, n| unsafe { sys::cuGraphAddEventWaitNode(out, g, deps, n, e) })
    }

    /// The graph, with a free node for each allocation after every other node.
    pub fn build(mut self) -> Result<SafeGraph<'a>> {
        let (graph, leaves) = (lend(&self.graph), core::mem::take(&mut self.leaves));
        for (ptr, _) in core::mem::take(&mut self.allocs) {
            let mut raw = CUgraphNode(core::ptr::null_mut());
            // SAFETY: an allocation of this graph, freed once, after every node that may use it.
            status(unsafe { sys::cuGraphAddMemFreeNode(&mut raw, graph, leaves.as_ptr(), leaves.len(), ptr) })?;
        }
        Ok(SafeGraph { graph: self.graph, home: self.bind.stream, _borrows: PhantomData })
    }
}

/// A graph that borrows everything its work uses for `'a` (see the module docs). There is no
/// `as_raw`: a raw handle would let an executable outlive the borrows. Send, not Sync.
pub struct SafeGraph<'a> {
    graph: super::Graph,
    home: CUstream,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: the graph is used by one thread at a time (`&self` methods only read it, and the
// type is not Sync); the stream handle is a value.
unsafe impl Send for SafeGraph<'_> {}

impl<'a> SafeGraph<'a> {
    /// An executable graph with the same borrows, launched on the home stream.
    pub fn instantiate(&self) -> Result<SafeGraphExec<'a>> {
        let raw = driver::graph_instantiate(lend(&self.graph), 0)?;
        // SAFETY: just made by cuGraphInstantiate, owned by nobody else.
        let exec = unsafe { super::GraphExec::from_raw(raw) };
        Ok(SafeGraphExec { exec, home: self.home, _borrows: PhantomData })
    }

    /// The number of nodes.
    pub fn node_count(&self) -> Result<usize> {
        let mut n = 0usize;
        // SAFETY: a live graph; a null array asks for the count only.
        status(unsafe { sys::cuGraphGetNodes(lend(&self.graph), core::ptr::null_mut(), &mut n) })?;
        Ok(n)
    }
}

/// An executable graph that borrows everything its work uses for `'a`; launches on its home
/// stream only. Dropping it while a launch runs is allowed (the driver frees it once done);
/// what it borrowed is freed on the home stream after that launch. Send, not Sync.
pub struct SafeGraphExec<'a> {
    exec: super::GraphExec,
    home: CUstream,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: as for `SafeGraph`.
unsafe impl Send for SafeGraphExec<'_> {}

impl SafeGraphExec<'_> {
    /// Enqueues one replay on the home stream: one `cuGraphLaunch`.
    #[inline]
    pub fn launch(&self) -> Result<()> {
        // SAFETY: a live executable graph and its home stream, both kept alive by the borrows.
        status(unsafe { sys::cuGraphLaunch(lend(&self.exec), self.home) })
    }

    /// Uploads the graph to the device ahead of its first launch, on the home stream.
    pub fn upload(&self) -> Result<()> {
        // SAFETY: as for `launch`.
        status(unsafe { sys::cuGraphUpload(lend(&self.exec), self.home) })
    }
}
