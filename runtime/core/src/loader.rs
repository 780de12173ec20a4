//! Lazy, shared loader for the CUDA driver (`libcuda.so.1`) and NVRTC (`libnvrtc.so.<major>`).
//!
//! Generated code declares one `static` [`Table`] per library, listing every entry point once,
//! and calls [`Table::get`] before each call. The hot path is one `Acquire` load and a branch;
//! the library is opened on first use, each slot is resolved on its first use, and a missing
//! library or symbol is cached and reported as a [`LoadError`] value (never a panic or abort).
//!
//! Driver entries resolve through `cuGetProcAddress_v2(proc_name, version, flags)`, so every
//! entry gets exactly the ABI its `version` names; NVRTC entries resolve through `dlsym`.
//! Where each library is searched for and how its entries resolve is its [`Profile`], which the
//! generated crate renders from the generator's library profiles with one [`LibraryKind`]
//! constant per library (no per-library fact is written in the loader itself).
//! `cuInit` is never called implicitly. Library handles stay open for the process lifetime.

mod error;
mod kind;
mod library;
mod rebound;
mod search;

pub use error::{last_error_message, LoadError};
pub use kind::{LibraryKind, Profile, Resolve, MAX_LIBRARIES};
pub use library::{driver_version_of, linked_in};
pub use rebound::{rebound, Rebound};

use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};

/// One entry point of a [`Table`].
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// ABI symbol, e.g. `cuMemAlloc_v2` or `cuMemcpyHtoD_v2_ptds`; used in messages and by `dlsym`.
    pub symbol: &'static str,
    /// Name passed to `cuGetProcAddress`, e.g. `cuMemAlloc` (NVRTC: same as `symbol`).
    pub proc_name: &'static str,
    /// CUDA version that introduced this ABI (`3020` = 3.2); `0` = unknown / not applicable.
    pub version: u32,
    /// Resolve the per-thread-default-stream variant (`CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`).
    pub per_thread: bool,
    /// Exports with the same prototype bound, in order, where the library lacks `symbol` (`dlsym`
    /// libraries): a library older than the header (`__nvJitLinkCreate_12_4`, then
    /// `nvJitLinkCreate`, for `__nvJitLinkCreate_12_9`). See [`rebound`].
    pub fallbacks: &'static [&'static str],
}

impl Entry {
    /// An entry with no other exports to fall back on.
    pub const fn new(symbol: &'static str, proc_name: &'static str, version: u32, per_thread: bool) -> Self {
        Self { symbol, proc_name, version, per_thread, fallbacks: &[] }
    }

    /// This entry, bound as the first of `fallbacks` the library exports where it lacks `symbol`.
    pub const fn or(self, fallbacks: &'static [&'static str]) -> Self {
        Self { fallbacks, ..self }
    }
}

/// How much of one library a [`Table::bind_all`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub library: LibraryKind,
    /// Where the library was opened from; `None` when it was not found.
    pub path: Option<String>,
    /// Entries the library has.
    pub bound: usize,
    /// Entries the table lists.
    pub entries: usize,
}

/// An entry point of a static archive linked into the crate, by its address only (the caller
/// casts it to the declared prototype, as with a resolved one).
pub type Linked = unsafe extern "C" fn();

/// Slot values `1..=SENTINEL_MAX` mean "looked up, not available" and encode why
/// (see `LoadError::sentinel`), so a cached failure is re-reported without touching the library.
const SENTINEL_MAX: usize = 3;
#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: AtomicPtr<c_void> = AtomicPtr::new(ptr::null_mut());

/// A lazily filled table of `N` entry points of one library.
///
/// The library is process-wide per [`LibraryKind`]: the first table of a kind to be used opens
/// it with its sonames. Racing fills of one slot are harmless (both store the same value).
pub struct Table<const N: usize> {
    kind: LibraryKind,
    sonames: &'static [&'static str],
    entries: &'static [Entry; N],
    /// The entries of the library's static archive when it is linked in (see [`Table::linked`]).
    linked: Option<&'static [Linked; N]>,
    slots: [AtomicPtr<c_void>; N],
}

impl<const N: usize> Table<N> {
    /// A table using the default sonames of `kind`.
    pub const fn new(kind: LibraryKind, entries: &'static [Entry; N]) -> Self {
        Self::with_sonames(kind, entries, kind.default_sonames())
    }

    /// A table whose library is searched under these sonames, in order
    /// (generated code passes e.g. `&["libnvrtc.so.13"]` for the CUDA major it was built from).
    pub const fn with_sonames(kind: LibraryKind, entries: &'static [Entry; N], sonames: &'static [&'static str]) -> Self {
        Self { kind, sonames, entries, linked: None, slots: [EMPTY; N] }
    }

    /// This table with the library's static archive linked in: `linked[i]` is entry `i`. It is
    /// used unless the library's override variable names a shared library to load instead
    /// ([`linked_in`]).
    pub const fn linked(self, linked: &'static [Linked; N]) -> Self {
        Self { linked: Some(linked), ..self }
    }

    /// The address of entry `index`, resolving it on first use.
    ///
    /// # Errors
    /// The library or the entry is missing (cached: later calls fail fast with the same error).
    #[inline(always)]
    pub fn get(&self, index: usize) -> Result<*const c_void, LoadError> {
        if let Some(slot) = self.slots.get(index) {
            let p = slot.load(Ordering::Acquire);
            if p as usize > SENTINEL_MAX {
                return Ok(p as *const c_void);
            }
        }
        self.get_slow(index)
    }

    /// The entry's pointer if it is already resolved; never resolves (the raw layer's fast path).
    #[inline(always)]
    pub fn peek(&self, index: usize) -> Option<*const c_void> {
        let p = self.slots.get(index)?.load(Ordering::Acquire);
        (p as usize > SENTINEL_MAX).then_some(p as *const c_void)
    }

    /// Whether entry `index` is available (resolves it if needed).
    pub fn available(&self, index: usize) -> bool {
        self.get(index).is_ok()
    }

    /// The entries of this table.
    pub fn entries(&self) -> &'static [Entry; N] {
        self.entries
    }

    /// Resolves every entry now (where the library is found), and counts those it has.
    pub fn bind_all(&self) -> Binding {
        let bound = (0..N).filter(|&i| self.available(i)).count();
        let path = match self.linked.filter(|_| linked_in(self.kind)) {
            Some(_) => Some("(linked into this binary)".to_owned()),
            None => library::info(self.kind, self.sonames).opened.clone(),
        };
        Binding { library: self.kind, path, bound, entries: N }
    }

    #[cold]
    #[inline(never)]
    fn get_slow(&self, index: usize) -> Result<*const c_void, LoadError> {
        let resolve = || match self.linked.filter(|_| linked_in(self.kind)).and_then(|l| l.get(index)) {
            Some(f) => Ok(store(&self.slots[index], *f as *const c_void)),
            None => resolve_slot(self.kind, self.sonames, self.entries, &self.slots, index),
        };
        // Belt and braces: nothing below should panic, but this is called from `extern "C"`.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(resolve))
            .unwrap_or_else(|_| Err(LoadError::bad_index(self.kind, index)))
    }
}

/// Caches a resolved entry in its slot and returns it.
fn store(slot: &AtomicPtr<c_void>, p: *const c_void) -> *const c_void {
    slot.store(p as *mut c_void, Ordering::Release);
    p
}

/// Resolves one driver entry point outside the generated tables (the tracer's own queries, made
/// untraced); `None` when no driver was opened yet (see [`driver_version_of`]) or the entry (at
/// `entry.version`) is missing. Not cached.
pub(crate) fn driver_entry(entry: &Entry) -> Option<*const c_void> {
    let driver = library::driver()?;
    library::resolve(driver, driver.default_sonames(), entry).ok()
}

/// Non-generic cold path shared by all tables: resolve (or re-report) one slot.
fn resolve_slot(
    kind: LibraryKind,
    sonames: &'static [&'static str],
    entries: &'static [Entry],
    slots: &[AtomicPtr<c_void>],
    index: usize,
) -> Result<*const c_void, LoadError> {
    let result = match (entries.get(index), slots.get(index)) {
        (Some(entry), Some(slot)) => {
            let cached = slot.load(Ordering::Acquire) as usize;
            if cached != 0 && cached <= SENTINEL_MAX {
                Err(LoadError::from_sentinel(library::info(kind, sonames), entry, cached))
            } else {
                let r = library::resolve(kind, sonames, entry);
                let value = match &r {
                    Ok(p) => Some(*p as usize),
                    Err(e) => e.sentinel(), // None: transient, retry next time
                };
                if let Some(v) = value {
                    slot.store(v as *mut c_void, Ordering::Release);
                }
                r
            }
        }
        _ => Err(LoadError::bad_index(kind, index)),
    };
    if let Err(e) = &result {
        error::set_last(e);
    }
    result
}
