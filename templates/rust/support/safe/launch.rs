//! Checked kernel launches: [`LaunchConfig`], typed arguments ([`KernelArg`], tuples of up to
//! 16 as [`KernelArgs`]) and [`StreamLaunch::launch`].
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! The first launch of a kernel takes its parameters from the PTX of its module where the
//! module (or library) was loaded from PTX text ([`KernelLayouts`], read by
//! [`ptx_kernel_params`] at the load and handed to each kernel `get_function` / `get_kernel`
//! gives out), else asks the driver (`cuFuncGetParamInfo` / `cuKernelGetParamInfo`, CUDA 12.4:
//! up to `cu*GetParamCount` where the driver has it, CUDA 13.2; before, index by index until
//! the driver answers `CUDA_ERROR_INVALID_VALUE`, which tools such as compute-sanitizer list
//! as an API error, one per kernel of a cubin, fatbin or file-loaded module), and its limits (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK`,
//! `..._MAX_DYNAMIC_SHARED_SIZE_BYTES`), and keeps them in the kernel object's
//! [`LaunchCache`]. Every launch then compares the arguments' count and byte sizes and the
//! configuration with the cached facts (a few loads and compares; no lock, no allocation) and
//! refuses a mismatch with an [`Error`] naming the kernel (`cu*GetName`), the parameter, the
//! expected and the given size; nothing is launched then. A driver without parameter info makes
//! the checked launch refuse with [`Error::NoParamInfo`]; [`StreamLaunch::launch_unchecked`]
//! (unsafe) launches without asking.
//!
//! What the check proves: the driver reads exactly the bytes each argument provides, buffers
//! are passed as device addresses of live memory bound to the launch stream (so the launch is
//! ordered with every other use of them and with their free), and the configuration fits the
//! kernel. What it cannot: a parameter's type beyond its size (an `f32` where the kernel takes
//! an `int`), or what the kernel does with the memory it is given; the kernel's code is trusted
//! as any foreign code is.

use super::error::Error;
use super::memory::{stream_of, AsStream, DeviceBuffer, DeviceSlice, DeviceSliceMut};
use super::ptx::{ptx_kernel_params, ParamInfo};
use super::repr::DeviceRepr;
use crate::driver::{self, CUdeviceptr, CUfunction, CUfunction_attribute, CUkernel, CUresult, CUstream};
use crate::loader::{Entry, Table, DRIVER};
use core::ffi::{c_char, c_void, CStr};
use core::marker::PhantomData;
use core::mem::size_of;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Grid and block dimensions and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A one-dimensional launch of `grid` blocks of `block` threads, no dynamic shared memory.
    pub const fn linear(grid: u32, block: u32) -> Self {
        LaunchConfig { grid: (grid, 1, 1), block: (block, 1, 1), shared_mem_bytes: 0 }
    }

    /// Enough blocks of `block` threads to give each of `n` elements a thread.
    pub const fn for_elements(n: u32, block: u32) -> Self {
        let grid = if block == 0 { 0 } else { n.div_ceil(block) };
        Self::linear(grid, block)
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub const fn with_shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }
}

/// What a checked launch knows about one kernel, read from the driver at its first launch.
#[derive(Debug)]
struct KernelInfo {
    params: Box<[ParamInfo]>,
    /// The address of the last `KernelArgs::SIZES` that matched `params` (0: none yet).
    accepted: AtomicUsize,
    max_threads: u32,
    /// Re-read when a launch asks for more (a `cuFuncSetAttribute` may have raised it).
    max_dynamic_shared: AtomicU32,
}

/// The per-kernel cache of a checked launch; kernel objects hold one (see [`Launchable`]).
#[derive(Debug, Default)]
pub struct LaunchCache {
    info: OnceLock<KernelInfo>,
    /// The parameters read from the PTX of the kernel's module (see [`KernelLayouts`]): the
    /// first launch takes them instead of asking the driver.
    seeded: OnceLock<Box<[ParamInfo]>>,
}

impl LaunchCache {
    /// An empty cache, filled at the first checked launch.
    pub const fn new() -> Self {
        LaunchCache { info: OnceLock::new(), seeded: OnceLock::new() }
    }

    /// Whether the parameters came from the module's PTX (no driver query reads them).
    pub fn from_ptx(&self) -> bool {
        self.seeded.get().is_some()
    }

    /// The parameters, once a checked launch (or [`kernel_params`]) has read them.
    pub fn params(&self) -> Option<&[ParamInfo]> {
        self.info.get().map(|i| &*i.params)
    }
}

/// The kernel parameter layouts of a module (or library) loaded from PTX text, read from the
/// image at the load ([`ptx_kernel_params`]); the object hands each kernel it gives out by name
/// its layout, so the kernel's first checked launch asks the driver nothing about parameters.
/// Empty for other images (cubin, fatbin): those kernels' parameters are read from the driver.
#[derive(Debug, Default)]
pub struct KernelLayouts {
    kernels: Vec<(String, Box<[ParamInfo]>)>,
}

impl KernelLayouts {
    /// No layouts.
    pub const fn new() -> Self {
        KernelLayouts { kernels: Vec::new() }
    }

    /// The layouts of every kernel of PTX text this reader understands.
    pub fn from_ptx(ptx: &[u8]) -> Self {
        KernelLayouts { kernels: ptx_kernel_params(ptx) }
    }

    /// The layouts of `image` when it is PTX text; none for a cubin (ELF), a fatbin, its
    /// wrapper or anything else (whose first bytes are not ASCII text).
    ///
    /// # Safety
    /// `image` is null or a module image as `cuModuleLoadData` takes it: a NUL-terminated PTX
    /// string, or a binary image at least 4 bytes long.
    pub unsafe fn from_image(image: *const c_void) -> Self {
        if image.is_null() {
            return Self::new();
        }
        let p = image.cast::<u8>();
        // Up to 4 bytes, stopping at a NUL: within a PTX string or a binary header either way.
        for i in 0..4 {
            // SAFETY: the bytes before a NUL of a string, or the first 4 of a binary image.
            let b = unsafe { *p.add(i) };
            if b == 0 {
                break;
            }
            if !(b.is_ascii_graphic() || b.is_ascii_whitespace()) {
                return Self::new();
            }
        }
        // SAFETY: text, so (by the caller's promise) a NUL-terminated string.
        Self::from_ptx(unsafe { CStr::from_ptr(p.cast()) }.to_bytes())
    }

    /// The parameters of kernel `name`, if its layout was read.
    pub fn params(&self, name: &CStr) -> Option<&[ParamInfo]> {
        let name = name.to_bytes();
        let i = self.kernels.binary_search_by(|(n, _)| n.as_bytes().cmp(name)).ok()?;
        Some(&self.kernels[i].1)
    }

    /// Hands `kernel` the layout of `name`, if read.
    ///
    /// # Safety
    /// `kernel` is the kernel `name` of the module these layouts were read from (a wrong
    /// layout would let a checked launch pass the driver other bytes than the kernel reads).
    pub unsafe fn seed<K: Launchable>(&self, name: &CStr, kernel: K) -> K {
        if let Some(p) = self.params(name) {
            let _ = kernel.launch_cache().seeded.set(p.into());
        }
        kernel
    }
}

/// A kernel the safe layer can launch: a function handle and the cache of its launch facts.
///
/// Implemented by the owned function and kernel types and by [`FunctionHandle`].
///
/// # Safety
/// `raw_function` stays a valid, launchable handle while `self` is alive, and is the same
/// kernel every time; `launch_cache` is used for this kernel only (a cache shared between two
/// kernels would let one's arguments pass the other's check); `raw_kernel`, when `Some`, is
/// the library kernel behind `raw_function`.
pub unsafe trait Launchable {
    /// The handle `cuLaunchKernel` takes (a `CUkernel` cast to `CUfunction` is accepted too).
    ///
    /// # Safety
    ///
    /// The copy is used only while `self` is borrowed.
    unsafe fn raw_function(&self) -> CUfunction;
    /// This kernel's cache.
    fn launch_cache(&self) -> &LaunchCache;
    /// The library kernel, if this is one: parameters are then read with `cuKernelGetParamInfo`.
    ///
    /// # Safety
    ///
    /// As for `raw_function`.
    unsafe fn raw_kernel(&self) -> Option<CUkernel> {
        None
    }
}

/// `k`'s function handle, for a call made while `k` is borrowed.
#[inline(always)]
pub(crate) fn function_of(k: &(impl Launchable + ?Sized)) -> CUfunction {
    // SAFETY: the caller uses the handle during the borrow of `k`.
    unsafe { k.raw_function() }
}

/// `k`'s library kernel, if it is one, for a call made while `k` is borrowed.
#[inline(always)]
pub(crate) fn kernel_of(k: &(impl Launchable + ?Sized)) -> Option<CUkernel> {
    // SAFETY: as for `function_of`.
    unsafe { k.raw_kernel() }
}

/// A raw function (or library kernel) handle with its own [`LaunchCache`], for handles made
/// elsewhere (the typed layer, cudarc).
#[derive(Debug)]
pub struct FunctionHandle<'m> {
    func: CUfunction,
    kernel: Option<CUkernel>,
    cache: LaunchCache,
    _module: PhantomData<&'m ()>,
}

impl FunctionHandle<'_> {
    /// # Safety
    /// `func` is a function of a loaded module that stays loaded for the chosen lifetime.
    pub unsafe fn from_raw(func: CUfunction) -> Self {
        FunctionHandle { func, kernel: None, cache: LaunchCache::new(), _module: PhantomData }
    }

    /// # Safety
    /// `kernel` is a kernel of a loaded library that stays loaded for the chosen lifetime.
    pub unsafe fn from_raw_kernel(kernel: CUkernel) -> Self {
        FunctionHandle { func: CUfunction(kernel.0), kernel: Some(kernel), cache: LaunchCache::new(), _module: PhantomData }
    }
}

// SAFETY: the constructors' callers promised the handle's lifetime; one cache per handle.
unsafe impl Launchable for FunctionHandle<'_> {
    #[inline(always)]
    unsafe fn raw_function(&self) -> CUfunction {
        self.func
    }
    #[inline(always)]
    fn launch_cache(&self) -> &LaunchCache {
        &self.cache
    }
    unsafe fn raw_kernel(&self) -> Option<CUkernel> {
        self.kernel
    }
}

// SAFETY: function handles may be launched from any thread; the cache is thread-safe.
unsafe impl Send for FunctionHandle<'_> {}
unsafe impl Sync for FunctionHandle<'_> {}

/// One kernel argument: what the kernel receives (`Param`, copied into the parameter buffer)
/// and, for device memory, the stream it is bound to.
///
/// Implemented for [`DeviceRepr`] values (passed by value, user structs included), `bool`, and
/// device buffers and slices (passed as their device address: `&buf`, `&mut buf`, views).
///
/// # Safety
/// `stream` returns the stream of the memory `param` points into, when `param` is a device
/// address of memory the safe layer frees stream-ordered; `graph` returns the graph whose
/// allocation `param` points into, when it is one (a [`GraphMem`](super::GraphMem): valid only
/// inside that graph), else 0.
pub unsafe trait KernelArg {
    type Param: Copy;
    /// What the kernel receives (a buffer's address: `unsafe`, the copy outlives no borrow).
    ///
    /// # Safety
    ///
    /// The value is used only while `self` lives.
    unsafe fn param(&self) -> Self::Param;
    /// The stream of the memory `param` points into.
    ///
    /// # Safety
    ///
    /// As for `param`.
    #[inline(always)]
    unsafe fn stream(&self) -> Option<CUstream> {
        None
    }
    #[inline(always)]
    fn graph(&self) -> u64 {
        0
    }
}

// SAFETY: a value, no memory.
unsafe impl<T: DeviceRepr> KernelArg for T {
    type Param = T;
    #[inline(always)]
    unsafe fn param(&self) -> T {
        *self
    }
}

// SAFETY: a value (one byte, as C++'s `bool`), no memory.
unsafe impl KernelArg for bool {
    type Param = bool;
    #[inline(always)]
    unsafe fn param(&self) -> bool {
        *self
    }
}

macro_rules! device_memory_arg {
    ($($ty:ty),*) => {$(
        // SAFETY: the address of live device memory, with its stream.
        unsafe impl<T: DeviceRepr> KernelArg for $ty {
            type Param = CUdeviceptr;
            #[inline(always)]
            unsafe fn param(&self) -> CUdeviceptr {
                self.addr()
            }
            #[inline(always)]
            unsafe fn stream(&self) -> Option<CUstream> {
                Some(self.memory_stream())
            }
        }
    )*};
}

/// The memory's `stream()` under a name `KernelArg::stream` does not shadow (inside the impls
/// above, `self.stream()` would call `KernelArg::stream` itself for `&DeviceBuffer`).
trait MemoryStream {
    fn memory_stream(&self) -> CUstream;
}
macro_rules! memory_stream {
    ($($ty:ident),*) => {$(
        impl<T: DeviceRepr> MemoryStream for $ty<'_, T> {
            #[inline(always)]
            fn memory_stream(&self) -> CUstream {
                self.home()
            }
        }
    )*};
}
memory_stream!(DeviceBuffer, DeviceSlice, DeviceSliceMut);

device_memory_arg!(
    &DeviceBuffer<'_, T>,
    &mut DeviceBuffer<'_, T>,
    DeviceSlice<'_, T>,
    &DeviceSlice<'_, T>,
    DeviceSliceMut<'_, T>,
    &mut DeviceSliceMut<'_, T>
);

mod sealed {
    pub trait Sealed {}
}

/// Where a launch's memory arguments must belong: the stream their buffers are bound to, and
/// the graph being built (0 outside a graph), whose own allocations it may also take.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub stream: CUstream,
    pub graph: u64,
}

/// Set in a [`KernelArgs::pack`] error index when the argument is another graph's allocation.
#[doc(hidden)]
pub const OTHER_GRAPH: usize = 1 << (usize::BITS - 1);

/// The arguments of one launch: a tuple of up to 16 [`KernelArg`]s (`()` for none).
pub trait KernelArgs: sealed::Sealed {
    /// Each argument's byte size, one `'static` array per argument types (the checked launch
    /// remembers the last array a kernel accepted, see `KernelInfo::check`).
    #[doc(hidden)]
    const SIZES: &'static [usize];
    /// Builds the parameter array on the stack and calls `f` with the argument addresses;
    /// `Err(i)` when argument `i` is memory bound to another stream than `bind.stream`
    /// (`i | OTHER_GRAPH`: an allocation of another graph than `bind.graph`).
    #[doc(hidden)]
    fn pack<R>(self, bind: Binding, f: impl FnOnce(&mut [*mut c_void]) -> R) -> Result<R, usize>;
    /// Whether an argument is a graph's own allocation (its node must depend on the allocation).
    #[doc(hidden)]
    fn in_graph(&self) -> bool;
}

impl sealed::Sealed for () {}
impl KernelArgs for () {
    const SIZES: &'static [usize] = &[];
    #[inline(always)]
    fn pack<R>(self, _bind: Binding, f: impl FnOnce(&mut [*mut c_void]) -> R) -> Result<R, usize> {
        Ok(f(&mut []))
    }
    fn in_graph(&self) -> bool {
        false
    }
}

macro_rules! kernel_args {
    ($n:literal: $($a:ident $i:tt),+) => {
        impl<$($a: KernelArg),+> sealed::Sealed for ($($a,)+) {}
        impl<$($a: KernelArg),+> KernelArgs for ($($a,)+) {
            const SIZES: &'static [usize] = &[$(size_of::<<$a as KernelArg>::Param>()),+];
            #[inline(always)]
            fn pack<R>(self, bind: Binding, f: impl FnOnce(&mut [*mut c_void]) -> R) -> Result<R, usize> {
                $(
                    // SAFETY: compared during the borrow of the arguments.
                    if let Some(s) = unsafe { self.$i.stream() } {
                        if s != bind.stream {
                            return Err($i);
                        }
                    }
                    let g = self.$i.graph();
                    if g != 0 && g != bind.graph {
                        return Err($i | OTHER_GRAPH);
                    }
                )+
                // SAFETY: the values go to `f`, which runs while the arguments are borrowed.
                let mut values = unsafe { ($(self.$i.param(),)+) };
                let mut ptrs: [*mut c_void; $n] = [$(core::ptr::addr_of_mut!(values.$i).cast()),+];
                Ok(f(&mut ptrs))
            }
            fn in_graph(&self) -> bool {
                false $(|| self.$i.graph() != 0)+
            }
        }
    };
}

kernel_args!(1: A0 0);
kernel_args!(2: A0 0, A1 1);
kernel_args!(3: A0 0, A1 1, A2 2);
kernel_args!(4: A0 0, A1 1, A2 2, A3 3);
kernel_args!(5: A0 0, A1 1, A2 2, A3 3, A4 4);
kernel_args!(6: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5);
kernel_args!(7: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6);
kernel_args!(8: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7);
kernel_args!(9: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8);
kernel_args!(10: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9);
kernel_args!(11: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10);
kernel_args!(12: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11);
kernel_args!(13: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12);
kernel_args!(14: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13);
kernel_args!(15: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13, A14 14);
kernel_args!(16: A0 0, A1 1, A2 2, A3 3, A4 4, A5 5, A6 6, A7 7, A8 8, A9 9, A10 10, A11 11, A12 12, A13 13, A14 14, A15 15);

impl<'c> super::Module<'c> {
    /// Loads a module from PTX text (`&str`, `String`, `&CStr`, bytes: what NVRTC's `get_ptx`
    /// returns, with or without its trailing NUL) into `context`, which must be the calling
    /// thread's current one: the safe form of [`Module::load_data`](super::Module::load_data).
    /// Text with a NUL before its end is refused ([`Error::BadImage`]). The kernels' parameter
    /// layouts are read from the text ([`KernelLayouts`]), so their checked launches ask the
    /// driver nothing about parameters.
    pub fn from_ptx(context: &'c (impl super::CurrentContext + ?Sized), ptx: impl super::PtxText) -> Result<Self, Error> {
        let text = super::image::ptx_text(ptx.ptx_bytes())?;
        // SAFETY: a NUL-terminated PTX image, read by the driver during the call only.
        unsafe { Self::load_data(context, text.as_ptr().cast()) }
    }

    /// Loads a cubin (an ELF image, as NVRTC's `get_cubin` or nvJitLink return it) from bytes;
    /// an image whose headers reach past the bytes is refused ([`Error::BadImage`]).
    pub fn from_cubin(context: &'c (impl super::CurrentContext + ?Sized), cubin: &[u8]) -> Result<Self, Error> {
        super::image::check_elf(cubin)?;
        // SAFETY: a whole ELF image within `cubin`, read by the driver during the call only.
        unsafe { Self::load_data(context, cubin.as_ptr().cast()) }
    }

    /// Loads a fatbin (`nvcc -fatbin`) from bytes; an image whose header reaches past the bytes
    /// is refused ([`Error::BadImage`]).
    pub fn from_fatbin(context: &'c (impl super::CurrentContext + ?Sized), fatbin: &[u8]) -> Result<Self, Error> {
        super::image::check_fatbin(fatbin)?;
        // SAFETY: a whole fatbin within `fatbin`, read by the driver during the call only.
        unsafe { Self::load_fat_binary(context, fatbin.as_ptr().cast()) }
    }
}

/// The attributes of a kernel (`cuFuncGetAttribute`), for every [`Launchable`].
pub trait KernelAttributes: Launchable {
    /// One attribute.
    fn attribute(&self, attrib: CUfunction_attribute) -> Result<i32, Error> {
        let f = match kernel_of(self) {
            Some(k) => driver::kernel_get_function(k)?,
            None => function_of(self),
        };
        Ok(driver::func_get_attribute(attrib, f)?)
    }
    /// The most threads a block of this kernel may have.
    fn max_threads_per_block(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::MAX_THREADS_PER_BLOCK)
    }
    /// Registers per thread.
    fn num_regs(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::NUM_REGS)
    }
    /// Static shared memory per block, in bytes.
    fn shared_size_bytes(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::SHARED_SIZE_BYTES)
    }
    /// Local memory per thread, in bytes.
    fn local_size_bytes(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::LOCAL_SIZE_BYTES)
    }
    /// Constant memory, in bytes.
    fn const_size_bytes(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::CONST_SIZE_BYTES)
    }
    /// The most dynamic shared memory a launch may ask for, in bytes.
    fn max_dynamic_shared_size_bytes(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES)
    }
    /// The PTX virtual architecture it was compiled for (major * 10 + minor).
    fn ptx_version(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::PTX_VERSION)
    }
    /// The binary architecture it was compiled for (major * 10 + minor).
    fn binary_version(&self) -> Result<i32, Error> {
        self.attribute(CUfunction_attribute::BINARY_VERSION)
    }
}

impl<K: Launchable + ?Sized> KernelAttributes for K {}

/// Launching on a stream: `stream.launch(&kernel, cfg, (&x, &mut y, n, a))?`.
///
/// Implemented for every [`AsStream`] (the owned stream, [`StreamRef`](super::StreamRef)).
pub trait StreamLaunch: AsStream {
    /// Launches `kernel` with `args` after checking them and `cfg` against the kernel (see the
    /// module documentation); a mismatch is an error and nothing is launched.
    #[inline]
    fn launch<K: Launchable + ?Sized, A: KernelArgs>(&self, kernel: &K, cfg: LaunchConfig, args: A) -> Result<(), Error> {
        let stream = stream_of(self);
        // SAFETY: `checked` calls this with parameters that match the kernel.
        checked(kernel, Binding { stream, graph: 0 }, cfg, args, |f, cfg, params| unsafe {
            launch_status(f, cfg, stream, params)
        })
    }

    /// Launches `kernel` without reading or checking its parameters or limits (for drivers
    /// older than CUDA 12.4). Buffers are still checked to be bound to this stream.
    ///
    /// # Safety
    /// `args` match the kernel's parameters in number and in each one's size and meaning.
    #[inline]
    unsafe fn launch_unchecked<K: Launchable + ?Sized, A: KernelArgs>(
        &self,
        kernel: &K,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<(), Error> {
        let f = function_of(kernel);
        let stream = stream_of(self);
        // SAFETY: the caller promised the arguments match.
        match args.pack(Binding { stream, graph: 0 }, |params| unsafe { launch_status(f, &cfg, stream, params) }) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(outcome)) => Err(failed(kernel, outcome)),
            Err(index) => Err(failed(kernel, misbound(index))),
        }
    }
}

impl<S: AsStream + ?Sized> StreamLaunch for S {}

/// Why a launch was refused, before the kernel's name is looked up (cold path).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    Count { expected: usize, given: usize },
    Size { index: usize, expected: usize, given: usize },
    ZeroDim(&'static str),
    Block { block: (u32, u32, u32), max: u32 },
    Shared { requested: u32, max: u32 },
    Stream(usize),
    Graph(usize),
}

/// What the hot path hands back on failure, small so the success path stays in registers; the
/// error (with the kernel's name) is built on the cold path.
pub(crate) enum Outcome {
    Refused(Refusal),
    Failed(CUresult),
    Error(Box<Error>),
}

impl From<CUresult> for Outcome {
    #[cold]
    fn from(r: CUresult) -> Self {
        Outcome::Failed(r)
    }
}

/// The refusal for a [`KernelArgs::pack`] error index.
#[cold]
fn misbound(index: usize) -> Outcome {
    Outcome::Refused(if index & OTHER_GRAPH != 0 { Refusal::Graph(index & !OTHER_GRAPH) } else { Refusal::Stream(index) })
}

/// A checked launch of `kernel` by `run` (`cuLaunchKernel` on a stream, or a graph's kernel
/// node): `run` gets the function and the parameter array only once the arguments and `cfg`
/// match the kernel and every memory argument belongs to `bind`.
#[inline(always)]
pub(crate) fn checked<K, A, L>(kernel: &K, bind: Binding, cfg: LaunchConfig, args: A, run: L) -> Result<(), Error>
where
    K: Launchable + ?Sized,
    A: KernelArgs,
    L: FnOnce(CUfunction, &LaunchConfig, &mut [*mut c_void]) -> Result<(), Outcome>,
{
    let info = match kernel.launch_cache().info.get() {
        Some(info) => info,
        None => first_use(kernel)?,
    };
    let f = function_of(kernel);
    let r = args.pack(bind, |params| match info.check(A::SIZES, &cfg) {
        Ok(()) => run(f, &cfg, params),
        Err(r) => retry_or_refuse(kernel, info, r, A::SIZES, &cfg, || run(f, &cfg, params)),
    });
    match r {
        Ok(Ok(())) => Ok(()),
        Ok(Err(outcome)) => Err(failed(kernel, outcome)),
        Err(index) => Err(failed(kernel, misbound(index))),
    }
}

/// `cuLaunchKernel` through the raw layer (its status, no error value built on success).
///
/// # Safety
/// `params` holds one address per kernel parameter, each of the parameter's size.
#[inline(always)]
unsafe fn launch_status(f: CUfunction, cfg: &LaunchConfig, stream: CUstream, params: &mut [*mut c_void]) -> Result<(), Outcome> {
    let ((gx, gy, gz), (bx, by, bz)) = (cfg.grid, cfg.block);
    let p = if params.is_empty() { core::ptr::null_mut() } else { params.as_mut_ptr() };
    match driver::sys::cuLaunchKernel(f, gx, gy, gz, bx, by, bz, cfg.shared_mem_bytes, stream, p, core::ptr::null_mut()) {
        CUresult::SUCCESS => Ok(()),
        status => Err(Outcome::Failed(status)),
    }
}

#[cold]
#[inline(never)]
fn failed<K: Launchable + ?Sized>(kernel: &K, outcome: Outcome) -> Error {
    match outcome {
        Outcome::Refused(r) => refused(kernel, r),
        Outcome::Failed(status) => Error::Driver(driver::Error::Driver(status)),
        Outcome::Error(e) => *e,
    }
}

impl KernelInfo {
    /// The hot-path check: count, sizes, dimensions, threads, shared memory. `sizes` is a
    /// `KernelArgs::SIZES`: once one has passed, the same array (same address and length: the
    /// same immutable `'static` bytes) passes on one compare.
    #[inline(always)]
    fn check(&self, sizes: &'static [usize], cfg: &LaunchConfig) -> Result<(), Refusal> {
        if sizes.len() != self.params.len() {
            return Err(Refusal::Count { expected: self.params.len(), given: sizes.len() });
        }
        if self.accepted.load(Ordering::Relaxed) != sizes.as_ptr() as usize {
            self.check_sizes(sizes)?;
        }
        let ((gx, gy, gz), (bx, by, bz)) = (cfg.grid, cfg.block);
        // One compare each: a product of 0 means a zero dimension (no u64 product overflows).
        let threads = bx as u64 * by as u64 * bz as u64;
        if gx as u64 * gy as u64 * gz as u64 == 0 || threads.wrapping_sub(1) >= self.max_threads as u64 {
            return Err(if threads == 0 || gx == 0 || gy == 0 || gz == 0 {
                Refusal::ZeroDim(zero_dim(cfg))
            } else {
                Refusal::Block { block: cfg.block, max: self.max_threads }
            });
        }
        if cfg.shared_mem_bytes != 0 {
            let max = self.max_dynamic_shared.load(Ordering::Relaxed);
            if cfg.shared_mem_bytes > max {
                return Err(Refusal::Shared { requested: cfg.shared_mem_bytes, max });
            }
        }
        Ok(())
    }

    /// Compares each size, and remembers `sizes` once they all match.
    #[cold]
    #[inline(never)]
    fn check_sizes(&self, sizes: &'static [usize]) -> Result<(), Refusal> {
        for (index, (p, &given)) in self.params.iter().zip(sizes).enumerate() {
            if p.size != given {
                return Err(Refusal::Size { index, expected: p.size, given });
            }
        }
        self.accepted.store(sizes.as_ptr() as usize, Ordering::Relaxed);
        Ok(())
    }
}

fn zero_dim(cfg: &LaunchConfig) -> &'static str {
    let ((gx, gy, gz), (bx, by, _)) = (cfg.grid, cfg.block);
    match () {
        _ if gx == 0 => "grid.x",
        _ if gy == 0 => "grid.y",
        _ if gz == 0 => "grid.z",
        _ if bx == 0 => "block.x",
        _ if by == 0 => "block.y",
        _ => "block.z",
    }
}

/// A refused shared-memory size is re-read once (the attribute may have been raised since it
/// was cached); every other refusal stands.
#[cold]
#[inline(never)]
fn retry_or_refuse<K: Launchable + ?Sized>(
    kernel: &K,
    info: &KernelInfo,
    r: Refusal,
    sizes: &'static [usize],
    cfg: &LaunchConfig,
    launch: impl FnOnce() -> Result<(), Outcome>,
) -> Result<(), Outcome> {
    if let Refusal::Shared { .. } = r {
        let now =
            attribute(kernel, CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES).map_err(|e| Outcome::Error(Box::new(e)))?;
        info.max_dynamic_shared.store(now, Ordering::Relaxed);
        if cfg.shared_mem_bytes <= now {
            info.check(sizes, cfg).map_err(Outcome::Refused)?;
            return launch();
        }
    }
    Err(Outcome::Refused(r))
}

#[cold]
#[inline(never)]
fn refused<K: Launchable + ?Sized>(kernel: &K, r: Refusal) -> Error {
    let kernel_name = name(kernel);
    match r {
        Refusal::Count { expected, given } => Error::ParamCount { kernel: kernel_name, expected, given },
        Refusal::Size { index, expected, given } => Error::ParamSize { kernel: kernel_name, index, expected, given },
        Refusal::ZeroDim(which) => Error::ZeroDim { kernel: kernel_name, which },
        Refusal::Block { block, max } => Error::BlockTooLarge { kernel: kernel_name, block, max },
        Refusal::Shared { requested, max } => Error::SharedMemory { kernel: kernel_name, requested, max },
        Refusal::Stream(index) => Error::ArgStream { kernel: kernel_name, index },
        Refusal::Graph(index) => Error::ArgGraph { kernel: kernel_name, index },
    }
}

/// The kernel's parameters, read from the driver at the first call and cached (the checked
/// launch reads them the same way).
pub fn kernel_params<K: Launchable + ?Sized>(kernel: &K) -> Result<&[ParamInfo], Error> {
    let info = match kernel.launch_cache().info.get() {
        Some(info) => info,
        None => first_use(kernel)?,
    };
    Ok(&info.params)
}

/// Reads the kernel's parameters and limits and caches them (racing threads each read; the
/// first to finish fills the cache).
#[cold]
#[inline(never)]
fn first_use<K: Launchable + ?Sized>(kernel: &K) -> Result<&KernelInfo, Error> {
    let params = match kernel.launch_cache().seeded.get() {
        Some(p) => p.clone(),
        None => read_params(kernel).map_err(|cause| Error::NoParamInfo { kernel: name(kernel), cause: Box::new(cause) })?,
    };
    let info = KernelInfo {
        params,
        accepted: AtomicUsize::new(0),
        max_threads: attribute(kernel, CUfunction_attribute::MAX_THREADS_PER_BLOCK)?,
        max_dynamic_shared: AtomicU32::new(attribute(kernel, CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES)?),
    };
    let cache = &kernel.launch_cache().info;
    let _ = cache.set(info);
    cache.get().ok_or(Error::Driver(driver::Error::Driver(CUresult::ERROR_UNKNOWN)))
}

fn attribute<K: Launchable + ?Sized>(kernel: &K, attrib: CUfunction_attribute) -> Result<u32, Error> {
    Ok(u32::try_from(KernelAttributes::attribute(kernel, attrib)?).unwrap_or(0))
}

/// Entry points newer than some supported headers, resolved here so this file builds against
/// every release's generated crate (12.0 has none of them).
static QUERY_ENTRIES: [Entry; 6] = [
    Entry { symbol: "cuFuncGetParamInfo", proc_name: "cuFuncGetParamInfo", version: 12040, per_thread: false, fallbacks: &[] },
    Entry { symbol: "cuFuncGetParamCount", proc_name: "cuFuncGetParamCount", version: 13020, per_thread: false, fallbacks: &[] },
    Entry { symbol: "cuFuncGetName", proc_name: "cuFuncGetName", version: 12030, per_thread: false, fallbacks: &[] },
    Entry {
        symbol: "cuKernelGetParamInfo",
        proc_name: "cuKernelGetParamInfo",
        version: 12040,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuKernelGetParamCount",
        proc_name: "cuKernelGetParamCount",
        version: 13020,
        per_thread: false,
        fallbacks: &[],
    },
    Entry { symbol: "cuKernelGetName", proc_name: "cuKernelGetName", version: 12030, per_thread: false, fallbacks: &[] },
];
static QUERIES: Table<6> = Table::new(DRIVER, &QUERY_ENTRIES);

/// `cu{Func,Kernel}GetParamInfo(handle, index, *offset, *size)`.
type ParamInfoFn = unsafe extern "C" fn(*mut c_void, usize, *mut usize, *mut usize) -> CUresult;
/// `cu{Func,Kernel}GetParamCount(handle, *count)`.
type ParamCountFn = unsafe extern "C" fn(*mut c_void, *mut usize) -> CUresult;
/// `cu{Func,Kernel}GetName(*name, handle)`.
type NameFn = unsafe extern "C" fn(*mut *const c_char, *mut c_void) -> CUresult;

/// More parameters than fit the largest parameter buffer (32764 bytes) means a driver fault.
const MAX_PARAMS: usize = 32768;

/// The handle and the offset of its entries in `QUERY_ENTRIES` (function: 0, kernel: 3).
fn query_handle<K: Launchable + ?Sized>(kernel: &K) -> (*mut c_void, usize) {
    match kernel_of(kernel) {
        Some(k) => (k.0, 3),
        None => (function_of(kernel).0, 0),
    }
}

fn read_params<K: Launchable + ?Sized>(kernel: &K) -> Result<Box<[ParamInfo]>, Error> {
    let (h, base) = query_handle(kernel);
    // SAFETY: the entries have the prototypes of `ParamInfoFn` / `ParamCountFn` in cuda.h.
    let info: ParamInfoFn = unsafe { core::mem::transmute::<*const c_void, ParamInfoFn>(QUERIES.get(base)?) };
    let count = QUERIES.get(base + 1).ok().and_then(|p| {
        // SAFETY: as above.
        let f: ParamCountFn = unsafe { core::mem::transmute::<*const c_void, ParamCountFn>(p) };
        let mut n = 0usize;
        // SAFETY: a live handle and a valid out pointer.
        (unsafe { f(h, &mut n) } == CUresult::SUCCESS).then_some(n)
    });
    let mut params = Vec::with_capacity(count.unwrap_or(8).min(MAX_PARAMS));
    for index in 0..MAX_PARAMS {
        if count == Some(index) {
            return Ok(params.into_boxed_slice());
        }
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: a live handle and valid out pointers.
        match unsafe { info(h, index, &mut offset, &mut size) } {
            CUresult::SUCCESS => params.push(ParamInfo { offset, size }),
            CUresult::ERROR_INVALID_VALUE if count.is_none() => return Ok(params.into_boxed_slice()),
            r => return Err(driver::Error::Driver(r).into()),
        }
    }
    Err(driver::Error::Driver(CUresult::ERROR_INVALID_VALUE).into())
}

/// The kernel's name for messages (`cu{Func,Kernel}GetName`), else its handle in hex.
#[cold]
fn name<K: Launchable + ?Sized>(kernel: &K) -> String {
    let (h, base) = query_handle(kernel);
    if let Ok(p) = QUERIES.get(base + 2) {
        // SAFETY: the entry has the prototype of `NameFn` in cuda.h.
        let f: NameFn = unsafe { core::mem::transmute::<*const c_void, NameFn>(p) };
        let mut s: *const c_char = core::ptr::null();
        // SAFETY: a live handle and a valid out pointer; the driver owns the string.
        if unsafe { f(&mut s, h) } == CUresult::SUCCESS && !s.is_null() {
            // SAFETY: the driver's NUL-terminated string, alive as long as the handle.
            return unsafe { crate::util::cstr_to_string(s) };
        }
    }
    format!("{h:p}")
}
