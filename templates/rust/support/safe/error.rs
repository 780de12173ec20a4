//! The safe layer's error: a driver status, or a refusal made before anything was enqueued
//! (a length, a stream, a kernel argument or launch configuration that does not fit).
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.

use crate::driver;
use crate::loader::LoadError;
use std::fmt;
use std::sync::Mutex;

/// An error of the safe layer. Every variant but [`Error::Driver`] is a refusal: nothing was
/// enqueued or launched.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Error {
    /// A driver call failed (or the driver / entry point is missing).
    Driver(driver::Error),
    /// An NVRTC call failed (an owned `Program`'s end, kept by its `Drop`).
    Nvrtc(crate::nvrtc::Error),
    /// An nvJitLink call failed (an owned linker's end, kept by its `Drop`).
    NvJitLink(crate::nvjitlink::Error),
    /// An NVVM call failed (an owned `NvvmProgram`'s end, kept by its `Drop`).
    Nvvm(crate::nvvm::Error),
    /// A runtime API call failed (an owned runtime object's end, kept by its `Drop`).
    Runtime(crate::runtime::Error),
    /// A copy between a buffer and host memory, or between two buffers, of different lengths.
    Length { expected: usize, given: usize },
    /// `len * size_of::<T>()` does not fit a `usize`.
    TooLarge { len: usize, elem_bytes: usize },
    /// Two buffers bound to different streams met in one operation (see the stream rule on
    /// `crate::safe::DeviceBuffer`).
    WrongStream { what: &'static str },
    /// Kernel argument `index` is memory bound to a stream other than the launch's.
    ArgStream { kernel: String, index: usize },
    /// Kernel argument `index` is a graph's own allocation ([`GraphMem`](super::GraphMem)),
    /// used outside that graph.
    ArgGraph { kernel: String, index: usize },
    /// A graph operation was given memory of another stream than the graph's, or of another
    /// graph (`what` names the operation).
    GraphMemory { what: &'static str },
    /// A node of another graph was given as a dependency.
    ForeignNode,
    /// A module image given as bytes is not a whole image of its kind (`why`): the driver
    /// would read past the bytes.
    BadImage { kind: &'static str, why: &'static str },
    /// The kernel takes `expected` parameters, `given` arguments were passed.
    ParamCount { kernel: String, expected: usize, given: usize },
    /// Argument `index` has `given` bytes; the kernel's parameter `index` has `expected`.
    ParamSize { kernel: String, index: usize, expected: usize, given: usize },
    /// A grid or block dimension is 0 (`which`: `"grid.x"` ... `"block.z"`).
    ZeroDim { kernel: String, which: &'static str },
    /// The block has more threads than the kernel allows (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
    BlockTooLarge { kernel: String, block: (u32, u32, u32), max: u32 },
    /// More dynamic shared memory than the kernel allows
    /// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
    SharedMemory { kernel: String, requested: u32, max: u32 },
    /// The driver cannot describe the kernel's parameters (`cuFuncGetParamInfo` /
    /// `cuKernelGetParamInfo` need CUDA 12.4): the checked launch refuses; the `unsafe`
    /// `launch_unchecked` launches without the check.
    NoParamInfo { kernel: String, cause: Box<Error> },
    /// A constructor was given a context that is not the calling thread's current one
    /// (`current`: whether another one is current; false: none is).
    NotCurrent { current: bool },
    /// A copy to or from host memory was asked of a stream being captured into a graph: the
    /// graph would touch the host memory at each replay, after the slice's borrow has ended.
    /// Nothing was enqueued and the capture stays valid; use a `PinnedHostBuffer` the graph may
    /// keep, or copy before or after the capture.
    Capturing,
}

impl Error {
    /// The driver status behind this error, if it came from a driver call.
    pub fn driver_error(&self) -> Option<&driver::Error> {
        match self {
            Error::Driver(e) => Some(e),
            Error::NoParamInfo { cause, .. } => cause.driver_error(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NONE: &str = "nothing launched";
        match self {
            Error::Driver(e) => fmt::Display::fmt(e, f),
            Error::Nvrtc(e) => fmt::Display::fmt(e, f),
            Error::NvJitLink(e) => fmt::Display::fmt(e, f),
            Error::Nvvm(e) => fmt::Display::fmt(e, f),
            Error::Runtime(e) => fmt::Display::fmt(e, f),
            Error::Length { expected, given } => {
                write!(f, "length mismatch: the buffer holds {expected} elements, the other side {given}")
            }
            Error::TooLarge { len, elem_bytes } => {
                write!(f, "{len} elements of {elem_bytes} bytes do not fit in memory")
            }
            Error::WrongStream { what } => {
                write!(f, "{what}: the buffers are bound to different streams (move one with `move_to` first)")
            }
            Error::ArgStream { kernel, index } => write!(
                f,
                "kernel `{kernel}`: argument {index} is memory bound to another stream than the launch's \
                 (move it with `move_to` first); {NONE}"
            ),
            Error::ArgGraph { kernel, index } => {
                write!(f, "kernel `{kernel}`: argument {index} is memory a graph allocated, valid only inside that graph; {NONE}")
            }
            Error::GraphMemory { what } => write!(
                f,
                "{what}: the memory is bound to another stream than the graph's, or belongs to another graph; nothing added"
            ),
            Error::ForeignNode => f.write_str("a dependency is a node of another graph; nothing added"),
            Error::BadImage { kind, why } => write!(f, "not a whole {kind} image: {why}; nothing loaded"),
            Error::ParamCount { kernel, expected, given } => {
                let (p, a) = (plural(*expected, "parameter"), plural(*given, "argument"));
                write!(f, "kernel `{kernel}` takes {p}, {a} given; {NONE}")
            }
            Error::ParamSize { kernel, index, expected, given } => {
                write!(f, "kernel `{kernel}` parameter {index} is {expected} bytes, argument {index} is {given} bytes; {NONE}")
            }
            Error::ZeroDim { kernel, which } => write!(f, "kernel `{kernel}`: {which} is 0; {NONE}"),
            Error::BlockTooLarge { kernel, block: (x, y, z), max } => write!(
                f,
                "kernel `{kernel}`: block {x}x{y}x{z} = {} threads, the kernel allows at most {max}; {NONE}",
                *x as u64 * *y as u64 * *z as u64
            ),
            Error::SharedMemory { kernel, requested, max } => write!(
                f,
                "kernel `{kernel}`: {requested} bytes of dynamic shared memory requested, the kernel allows at most {max}; {NONE}"
            ),
            Error::NoParamInfo { kernel, cause } => write!(
                f,
                "kernel `{kernel}`: the driver cannot describe its parameters ({cause}); a checked launch needs CUDA 12.4, \
                 `launch_unchecked` (unsafe) launches without the check; {NONE}"
            ),
            Error::NotCurrent { current: false } => {
                f.write_str("no context is current on the calling thread: bind the context first (`let _bound = ctx.bind()?`)")
            }
            Error::NotCurrent { current: true } => f.write_str(
                "the context given is not the calling thread's current context: bind it first (`let _bound = ctx.bind()?`)",
            ),
            Error::Capturing => f.write_str(
                "a copy with host memory on a stream being captured: the graph would touch the memory after its borrow \
                 ends; nothing enqueued, the capture stays valid",
            ),
        }
    }
}

/// `1 parameter`, `2 parameters`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver(e) => Some(e),
            Error::Nvrtc(e) => Some(e),
            Error::NvJitLink(e) => Some(e),
            Error::Nvvm(e) => Some(e),
            Error::Runtime(e) => Some(e),
            Error::NoParamInfo { cause, .. } => Some(cause.as_ref()),
            _ => None,
        }
    }
}

impl From<driver::Error> for Error {
    #[cold]
    fn from(e: driver::Error) -> Self {
        Error::Driver(e)
    }
}

impl From<crate::nvrtc::Error> for Error {
    #[cold]
    fn from(e: crate::nvrtc::Error) -> Self {
        Error::Nvrtc(e)
    }
}

impl From<crate::nvjitlink::Error> for Error {
    #[cold]
    fn from(e: crate::nvjitlink::Error) -> Self {
        Error::NvJitLink(e)
    }
}

impl From<crate::nvvm::Error> for Error {
    #[cold]
    fn from(e: crate::nvvm::Error) -> Self {
        Error::Nvvm(e)
    }
}

impl From<crate::runtime::Error> for Error {
    #[cold]
    fn from(e: crate::runtime::Error) -> Self {
        Error::Runtime(e)
    }
}

impl From<LoadError> for Error {
    #[cold]
    fn from(e: LoadError) -> Self {
        Error::Driver(driver::Error::Load(e))
    }
}

/// Errors of `Drop` impls that could not return them, oldest first (at most [`DROP_ERRORS_KEPT`]).
static DROP_ERRORS: Mutex<Vec<(&'static str, Error)>> = Mutex::new(Vec::new());

/// How many `Drop` errors are kept until [`take_drop_errors`] drains them (older ones are dropped).
pub const DROP_ERRORS_KEPT: usize = 64;

/// Records an error a `Drop` impl could not return.
#[cold]
pub(crate) fn record_drop_error(what: &'static str, e: Error) {
    let mut v = DROP_ERRORS.lock().unwrap_or_else(|p| p.into_inner());
    if v.len() == DROP_ERRORS_KEPT {
        v.remove(0);
    }
    v.push((what, e));
}

/// The errors `Drop` impls of the safe layer met since the last call (what was being dropped,
/// and the error), oldest first. Use the explicit `free()`/`close()` methods to get them as
/// values instead.
pub fn take_drop_errors() -> Vec<(&'static str, Error)> {
    std::mem::take(&mut *DROP_ERRORS.lock().unwrap_or_else(|p| p.into_inner()))
}
