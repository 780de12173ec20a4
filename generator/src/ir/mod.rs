//! The generator's own intermediate representation.
//!
//! Nothing here refers to libclang. `parse/` builds a raw [`Library`] from the headers, the
//! `passes/` refine it in place (symbols, versions, parameter roles, names, docs) and `render/`
//! reads it. Every type is serde-serialisable so that snapshots show every decision.

mod resolve;
mod signature;
mod types;

pub use resolve::Resolved;
pub use signature::*;
pub use types::{Prim, Type};

use serde::{Deserialize, Serialize};

/// Everything generated for one CUDA version: one [`Library`] per header family.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Api {
    /// The CUDA version the headers belong to, e.g. `12.9`.
    pub cuda_version: String,
    pub libraries: Vec<Library>,
}

impl Api {
    pub fn library(&self, kind: LibraryKind) -> Option<&Library> {
        self.libraries.iter().find(|l| l.kind == kind)
    }

    /// The CUDA major version of the headers: `CUDA_VERSION`'s, else the fetched version's (`12.9`).
    pub fn cuda_major(&self) -> Option<u32> {
        self.cuda_version_macro().map(|v| v / 1000).or_else(|| self.cuda_version.split('.').next()?.parse().ok())
    }

    /// `CUDA_VERSION` from `cuda.h` (e.g. 12090), if the driver header was parsed.
    pub fn cuda_version_macro(&self) -> Option<u32> {
        self.libraries.iter().flat_map(|l| &l.macros).find(|m| m.name == "CUDA_VERSION").and_then(|m| match m.value {
            MacroValue::Int { value, .. } => u32::try_from(value).ok(),
            _ => None,
        })
    }
}

pub use crate::profile::LibraryKind;

/// One parsed header family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Library {
    pub kind: LibraryKind,
    /// File name and sha256 of each header read, for the `@generated` banner.
    pub headers: Vec<HeaderInfo>,
    /// The status enum returned by this library's functions (`CUresult`, `nvrtcResult`).
    pub status_enum: Option<String>,
    pub functions: Vec<Function>,
    pub enums: Vec<Enum>,
    pub records: Vec<Record>,
    pub typedefs: Vec<Typedef>,
    pub macros: Vec<MacroConst>,
    /// Declarations that were seen but could not be represented, with the reason.
    pub skipped: Vec<Skipped>,
    /// Per-member C types of enums that select a value's type (`CUpointer_attribute`), from the
    /// annotations; read by [`Role::SelectedValue`] parameters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub value_types: Vec<ValueTable>,
    /// Older ABIs the library still exports under historical names that the header no longer
    /// references (`cuMemAlloc`, the v2000 ABI of `cuMemAlloc_v2`); from `cudaTypedefs.h`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legacy_abis: Vec<LegacyAbi>,
    /// The status codes the bindings themselves return (`passes::status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_codes: Option<StatusCodes>,
    /// What else the Python surface takes where a handle goes (`passes::python`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handle_stand_ins: Vec<HandleStandIns>,
    /// Kinds of objects the calls create and end, by name (`passes::ownership`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Resource>,
    /// Calls that look like they end an object's life but pair with no resource, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excused: Vec<Excused>,
    /// What the tracer names, numbers and reads beyond printing values (`passes::trace`).
    #[serde(default, skip_serializing_if = "TraceFacts::is_empty")]
    pub trace: TraceFacts,
    /// Handle typedefs that are another library's handle type (`passes::shared`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_handles: Vec<SharedHandle>,
}

/// A handle typedef of this library whose pointee another library's handle typedef names too
/// (driver_types.h's `typedef struct CUstream_st *cudaStream_t`, cuda.h's `CUstream`): every
/// surface gives it that library's type, so the two APIs' objects pass to each other as they are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedHandle {
    /// The typedef here (`cudaStream_t`).
    pub name: String,
    /// The library that owns the type and its typedef there (`driver`, `CUstream`).
    pub library: LibraryKind,
    pub target: String,
}

/// The tracer's facts (from the annotations' `[trace]` tables, checked by `passes::trace`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFacts {
    /// Handle typedef (the one a type resolves to: `CUfunction`, `CUdeviceptr_v2`) -> the class
    /// the tracer names or numbers its values as.
    pub handles: std::collections::BTreeMap<String, TraceClass>,
}

/// The handle classes of the tracer (`trace::Class`, same variant names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceClass {
    Function,
    Kernel,
    Module,
    Library,
    Stream,
    Event,
    Graph,
    GraphExec,
    GraphNode,
    Context,
    DevicePtr,
}

/// What the tracer does with a parameter beyond printing its value (`[trace.params]`, set on
/// [`Param::trace`] by `passes::trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceUse {
    /// A module image in memory, hashed at the call.
    Image,
    /// A launch's argument pointers, copied at the call when asked for.
    KernelParams,
    /// A launch's `extra` array, copied likewise.
    LaunchExtra,
    /// The function or graph a launch runs (the per-kernel and per-graph summary).
    Launched,
    /// The call may free handles: names still unresolved are resolved before it.
    Frees,
}

impl TraceFacts {
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }
}

/// Objects the Python surface takes where handle typedef `handle` goes, besides its own class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleStandIns {
    /// The handle typedef (IR name, `CUfunction`).
    pub handle: String,
    /// Our handle typedefs (IR names) whose objects the C API takes for it (`CUkernel`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handles: Vec<String>,
    /// Qualified names of NVIDIA's Python classes of the same C type
    /// (`cuda.bindings.runtime.cudaStream_t`), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign: Vec<String>,
}

/// One older ABI: its exported symbol, `cuGetProcAddress` name and version.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LegacyAbi {
    pub symbol: String,
    pub proc_name: String,
    pub version: u32,
    /// A `_ptds`/`_ptsz` export (looked up with the per-thread flag).
    #[serde(default)]
    pub per_thread: bool,
}

/// Values of the status enum that every surface returns on its own account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCodes {
    /// The library could not be loaded (`CUDA_ERROR_STUB_LIBRARY`).
    pub library_missing: i64,
    /// The loaded library lacks the entry point (`CUDA_ERROR_NOT_FOUND`).
    pub symbol_missing: i64,
    /// An argument the bindings refuse before calling (`CUDA_ERROR_INVALID_VALUE`).
    pub invalid_argument: i64,
    /// A panic caught at a C-ABI boundary (`CUDA_ERROR_UNKNOWN`).
    pub internal: i64,
}

impl Library {
    pub fn new(kind: LibraryKind) -> Self {
        Library {
            kind,
            headers: Vec::new(),
            status_enum: None,
            functions: Vec::new(),
            enums: Vec::new(),
            records: Vec::new(),
            typedefs: Vec::new(),
            macros: Vec::new(),
            skipped: Vec::new(),
            value_types: Vec::new(),
            legacy_abis: Vec::new(),
            status_codes: None,
            handle_stand_ins: Vec::new(),
            resources: Vec::new(),
            excused: Vec::new(),
            trace: TraceFacts::default(),
            shared_handles: Vec::new(),
        }
    }
    /// Every fact of the library that is not in its headers: its folder's profile.
    pub fn profile(&self) -> &'static crate::profile::LibraryProfile {
        self.kind.profile()
    }
    /// The other library's handle typedef `name` is (see [`SharedHandle`]).
    pub fn shared_handle(&self, name: &str) -> Option<&SharedHandle> {
        self.shared_handles.iter().find(|s| s.name == name)
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    pub fn enum_named(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }
    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }
    pub fn typedef(&self, name: &str) -> Option<&Typedef> {
        self.typedefs.iter().find(|t| t.name == name)
    }
    /// What the Python surface takes for handle typedef `name` (IR name) besides its class.
    pub fn stand_ins(&self, name: &str) -> Option<&HandleStandIns> {
        self.handle_stand_ins.iter().find(|s| s.handle == name)
    }
    /// The member type table of the enum `name` (by public name).
    pub fn value_table(&self, name: &str) -> Option<&ValueTable> {
        self.value_types.iter().find(|t| t.enum_name == name)
    }
    pub fn resource(&self, name: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.name == name)
    }
}

// ---------------------------------------------------------------------------
// Ownership
// ---------------------------------------------------------------------------

/// A kind of object whose life calls begin and end (`passes::ownership`): the safe Rust layer
/// generates one owned type per resource from this, never from a hand-written list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    /// Name of the owned type (`Stream`, `PrimaryContext`).
    pub name: String,
    /// C type of the handle (`CUstream`; `void *` for host memory).
    pub handle: Type,
    /// The handle is an address (`CUdeviceptr`, `void *`), not an opaque handle: no generic
    /// methods, and the owned type is not `AsRaw` of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub address: bool,
    /// `Drop` calls the ender. False for a handle its parent owns (a graph node): it is ended
    /// only by an explicit `destroy`, or with its parent.
    pub owned: bool,
    /// Resources (by name) this one must not outlive: the owned type borrows its parent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parents: Vec<String>,
    /// Made in the calling thread's current context (its constructors' docs list
    /// `CUDA_ERROR_INVALID_CONTEXT`): the constructors take that context and the owned type
    /// borrows it, so it cannot outlive the context (`Stream<'ctx>`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_context: bool,
    /// Values the ender needs besides the handle, kept from the creating call (the `dev` of
    /// `cuDevicePrimaryCtxRelease`), by the ender's parameter names, in its order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    pub creators: Vec<Creator>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ender: Option<Ender>,
    /// Calls whose first input is the handle, as methods of the owned type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Method>,
    /// The owned type may move to another thread / be shared between threads.
    pub send: bool,
    pub sync: bool,
    /// The rule that decided `send` and `sync`.
    pub threading: String,
    /// Calls that make the handle current on the calling thread and undo it (`cuCtxPushCurrent`,
    /// `cuCtxPopCurrent`): the owned type gets a scoped `bind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binds: Option<Binding>,
    /// Traits of the hand-written safe layer (`templates/rust/support/safe`) the owned type
    /// implements: `as_stream` (`AsStream`), `launchable_function` / `launchable_kernel`
    /// (`Launchable`, for a function or a library kernel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traits: Vec<String>,
    /// Loaded from a code image (a constructor has [`Creator::image_param`]): the owned type
    /// keeps the kernel parameter layouts of a PTX image and seeds the launch cache of each
    /// kernel it hands out ([`Creator::kernel_name`]), so no launch asks the driver for them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kernel_layouts: bool,
    /// Who paired creators and ender (the ender's decision; for a kind without one, its first
    /// creator's).
    pub decided_by: DecidedBy,
}

/// A call that creates a resource's handle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Creator {
    pub function: String,
    /// The parameter giving the handle: an out-value, or an input the call takes over
    /// (`cuMemHostRegister`'s `p`, `cuMemMap`'s `ptr`).
    pub handle_param: String,
    /// The parameter holding the parent the handle borrows from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_param: Option<String>,
    /// For each kept value ([`Resource::kept`]), the parameter of this call that gives it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_from: Vec<String>,
    /// Resources whose method this call is (its first input is their handle; `self_param`);
    /// empty: an associated function of the created type.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_param: Option<String>,
    /// Rust name of the constructor or method (`create`, `get_function`).
    pub name: String,
    /// Other inputs holding a resource's handle by value: the owned types take them as
    /// `&impl AsRaw<Handle>` (an owned type or the raw handle).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handle_args: Vec<String>,
    /// The module image this call loads (the parameter `[trace.params]` marks `image`): the
    /// safe layer reads the kernels' parameter layouts from it when it is PTX text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_param: Option<String>,
    /// The kernel's name, when this call hands out a launchable kernel of a kind that keeps
    /// kernel layouts ([`Resource::kernel_layouts`]): its launch cache is seeded from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_name: Option<String>,
    pub decided_by: DecidedBy,
}

/// The call that ends a resource's life, and where each of its arguments comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ender {
    pub function: String,
    pub args: Vec<EndArg>,
    pub decided_by: DecidedBy,
}

/// One argument of an ender, in the call's parameter order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum EndArg {
    /// The handle, by value.
    Handle { param: String },
    /// A pointer to the handle (`nvrtcDestroyProgram(nvrtcProgram *)`).
    HandleRef { param: String },
    /// A value kept from the creating call ([`Resource::kept`]).
    Kept { param: String },
}

/// A call whose first input is a resource's handle, as a method of its owned type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    pub function: String,
    /// The parameter `self` stands for.
    pub self_param: String,
    /// Rust name of the method (`synchronize` for `cuStreamSynchronize`).
    pub name: String,
    /// Other inputs holding a resource's handle (see [`Creator::handle_args`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handle_args: Vec<String>,
}

/// Calls that bind a handle to the calling thread and unbind it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    pub push: String,
    pub pop: String,
}

/// A call that looks like it ends an object's life (by name or doc) but pairs with no resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excused {
    pub function: String,
    pub reason: String,
    pub decided_by: DecidedBy,
}

/// What a call does to a resource's life (`passes::ownership`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "does")]
pub enum FnOwnership {
    Creates {
        resource: String,
    },
    Ends {
        resource: String,
    },
    /// Looks like an ender, pairs with nothing ([`Excused`]).
    Excused {
        reason: String,
    },
}

/// The C type of a value for each member of a selector enum (`CU_POINTER_ATTRIBUTE_CONTEXT` ->
/// `CUcontext`). Members not listed are refused by the typed surfaces (never passed to the driver
/// with a buffer of a guessed size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueTable {
    /// Public enum name (`CUpointer_attribute`).
    pub enum_name: String,
    pub members: Vec<ValueMember>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueMember {
    /// Enum constant (`CU_POINTER_ATTRIBUTE_CONTEXT`) and its value.
    pub variant: String,
    pub value: i64,
    /// C type of the value; of one element when `count` is not `One`.
    pub ty: Type,
    /// Size in bytes of one element of `ty`.
    pub size: u64,
    /// An integer the surfaces read as a truth value (annotation `bool`).
    pub boolean: bool,
    pub count: ValueCount,
}

/// How many elements of [`ValueMember::ty`] a selected value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "count")]
pub enum ValueCount {
    One,
    /// A fixed array (`char[1024]`); char arrays hold a NUL-terminated string.
    Fixed {
        n: u32,
    },
    /// As many as the value's size parameter allows (`int[]`).
    Sized,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeaderInfo {
    pub file: String,
    pub sha256: String,
    /// Graphics headers this header needs (`GL/gl.h`): the IR's types from them (`GLuint`) are
    /// stand-ins whose location names that header; the C surface includes the real one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<String>,
    /// A companion header's include guard (NVIDIA's: code may test it), from its profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// A header the main header includes whose declarations are the library's (the profile's
    /// `declares`: `driver_types.h`): the C surface renders them in the main header.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub included_by_main: bool,
}

/// A source position, for diagnostics and review.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Documentation of an item, converted from Doxygen.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// First sentence / `\brief`, plain text.
    pub brief: String,
    /// The whole comment as Markdown (brief included), without the `\param` list.
    pub markdown: String,
}

impl Doc {
    pub fn is_empty(&self) -> bool {
        self.markdown.is_empty()
    }
}

/// Names of an item on each surface, computed once by the naming pass.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Names {
    /// Rust identifier (keyword-escaped), e.g. `mem_alloc`, `CUdevice`, `Success`.
    pub rust: String,
    /// Python identifier (keyword-escaped), e.g. `cuMemAlloc`, `CUDA_SUCCESS`.
    pub python: String,
}

// ---------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// The API name users write: `cuMemAlloc`.
    pub name: String,
    /// The ABI symbol it binds: `cuMemAlloc_v2`.
    pub symbol: String,
    /// The name passed to `cuGetProcAddress` (ABI symbol without `_vN`): `cuMemAlloc`.
    pub proc_name: String,
    /// CUDA version that introduced this ABI, from `cudaTypedefs.h` (`PFN_cuMemAlloc_v3020`).
    pub version: Option<u32>,
    /// Other exported symbols of the same function (`_ptds`, `_ptsz`).
    pub variants: Vec<SymbolVariant>,
    /// The exports the loader binds, in order, where the loaded library lacks `symbol`: a header
    /// newer than the library (`__nvJitLinkCreate_12_8` ... `_12_0`, then `nvJitLinkCreate` for
    /// `__nvJitLinkCreate_12_9`), from `parse::forwarders`. Each has `symbol`'s prototype.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    pub ret: Type,
    pub params: Vec<Param>,
    /// `Some(message)` when the header marks the function deprecated.
    pub deprecated: Option<String>,
    pub doc: Doc,
    pub location: Location,
    pub names: Names,
    /// What the function returns, and so what it returns when the call cannot run
    /// (`passes::signature`).
    #[serde(default)]
    pub ret_kind: ReturnKind,
    /// How the C shim exports it (`passes::signature`, from the profile).
    #[serde(default, skip_serializing_if = "Export::is_forward")]
    pub export: Export,
    /// True when a typed binding must be `unsafe`: [`Function::unsafe_because`] is not empty.
    pub needs_unsafe: bool,
    /// Why the typed binding is `unsafe` (`passes::signature`, then `passes::ownership` for
    /// enders), in the order found; see [`Function::mark_unsafe`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsafe_because: Vec<Unsafety>,
    /// The kept callable this call releases (`cuLogsUnregisterCallback`), from `passes::callbacks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub releases: Option<Release>,
    /// Why the Python surface keeps the GIL across this call (every other call releases it),
    /// from the annotations' `[keep_gil]` table, checked by `passes::python`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeps_gil: Option<String>,
    /// The resource this call creates or ends (`passes::ownership`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ownership: Option<FnOwnership>,
}

impl Function {
    /// A function as the parser reads it: its ABI symbol is its name, no decisions yet.
    pub fn new(symbol: impl Into<String>, ret: Type, params: Vec<Param>) -> Self {
        let symbol = symbol.into();
        Function {
            name: symbol.clone(),
            proc_name: symbol.clone(),
            symbol,
            version: None,
            variants: Vec::new(),
            fallbacks: Vec::new(),
            ret,
            params,
            deprecated: None,
            doc: Doc::default(),
            location: Location::default(),
            names: Names::default(),
            ret_kind: ReturnKind::default(),
            export: Export::default(),
            needs_unsafe: false,
            unsafe_because: Vec::new(),
            releases: None,
            keeps_gil: None,
            ownership: None,
        }
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
    /// What the loader binds where the library lacks export `symbol` (the ABI symbol or one of
    /// its variants), in order: the [`Function::fallbacks`] after `symbol`'s own place in them.
    pub fn fallbacks_of(&self, symbol: &str) -> &[String] {
        if symbol == self.symbol {
            return &self.fallbacks;
        }
        match self.fallbacks.iter().position(|f| f == symbol) {
            Some(i) => &self.fallbacks[i + 1..],
            None => &[],
        }
    }
    /// Every symbol the function is exported under (ABI symbol first).
    pub fn all_symbols(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.symbol.as_str()).chain(self.variants.iter().map(|v| v.symbol.as_str()))
    }
}

/// An extra exported symbol of a function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolVariant {
    pub symbol: String,
    pub kind: VariantKind,
    /// ABI version of this variant (`__API_TYPEDEF_PTDS(PFN_x, 3020, 7000)` gives 7000).
    pub version: Option<u32>,
    /// Versioned names that per-thread builds also map to this variant, besides the function's
    /// name (`#define cuStreamGetCaptureInfo_v2 __CUDA_API_PTSZ(cuStreamGetCaptureInfo_v2)`).
    /// Only the C surface spells them; the typed surfaces use the API name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_named: Vec<String>,
    /// For a [`VariantKind::Wrapper`]: the macro whose definition leaves the header's inline
    /// wrapper out (`#ifndef NVJITLINK_NO_INLINE`), so that programs call the wrapper's name as a
    /// function; the C header maps the API name to the versioned symbol only without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantKind {
    /// Per-thread default stream (`_ptds`).
    Ptds,
    /// Per-thread default stream, stream-ordered (`_ptsz`).
    Ptsz,
    /// The name an earlier release of the same major gives the versioned ABI
    /// (`__nvJitLinkCreate_12_4` beside `__nvJitLinkCreate_12_9`): programs built against that
    /// release's header call it; the library exports it with the same prototype.
    Release,
    /// The name of the header's inline wrapper (`nvJitLinkCreate` around `__nvJitLinkCreate_12_9`)
    /// where a macro can leave the wrapper out ([`SymbolVariant::unless`]): programs built so call
    /// it as a function, which the library exports with the same prototype.
    Wrapper,
}

impl VariantKind {
    /// The suffix of a per-thread variant's symbol (`_ptds`, `_ptsz`); none for the others.
    pub fn per_thread_suffix(self) -> Option<&'static str> {
        match self {
            VariantKind::Ptds => Some("_ptds"),
            VariantKind::Ptsz => Some("_ptsz"),
            VariantKind::Release | VariantKind::Wrapper => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub direction: Direction,
    pub role: Role,
    /// NULL is accepted (the typed surfaces use `Option`).
    pub nullable: bool,
    /// Which source of truth decided `direction` and `role`.
    pub decided_by: DecidedBy,
    /// The `\param` text from the header.
    pub doc: String,
    pub names: Names,
    /// For a caller-provided buffer: how many bytes the call reads or writes through it
    /// (computed by the `sizes` pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<SizeLink>,
    /// The callee writes through this pointer (`passes::sizes`: its [`SizeLink::writes`] where
    /// it has one, else a non-`const` pointer the callee fills); a read-only buffer is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub writes: bool,
    /// For a callback parameter: how a callable stands for it (`passes::callbacks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callback: Option<CallbackUse>,
    /// What the tracer does with it beyond printing its value (`passes::trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceUse>,
    /// How the Python surface converts it (`passes::python`; `None` before that pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<PyConv>,
    /// For an out value the library points at an array it owns (`const CUgraphNode **`): the
    /// out value that counts its elements (an annotation's `len`). The Python surface returns
    /// the elements as a list; the others return the pointer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_by: Option<String>,
    /// The Python argument's default when a call may leave it out (`passes::python`): the in/out
    /// capacity of an output array (`numNodes`) is 0 (ask for the count), as in cuda.bindings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub py_default: Option<i64>,
    /// For an out value written through an untyped `void *`: the C type the callee writes there
    /// (an annotation's `writes`); the typed surfaces return a value of it, C keeps `void *`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Type>,
    /// How the typed surfaces take it, with its links (`passes::signature`).
    #[serde(default)]
    pub kind: ParamKind,
}

impl Param {
    /// A parameter as the parser reads it: an input value decided by its type, no links yet.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Param {
            name: name.into(),
            ty,
            direction: Direction::In,
            role: Role::Value,
            nullable: false,
            decided_by: DecidedBy::Type,
            doc: String::new(),
            names: Names::default(),
            size: None,
            callback: None,
            trace: None,
            python: None,
            counted_by: None,
            py_default: None,
            written: None,
            writes: false,
            kind: ParamKind::default(),
        }
    }
}

/// Which trampoline lets a callable stand for a C callback; `raw` takes only C function pointers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallbackKind {
    #[default]
    Raw,
    /// `CUhostFn` (also user-object destructors).
    Host,
    /// `CUstreamCallback`.
    Stream,
    /// `CUlogsCallback`.
    Logs,
    /// `CUasyncCallback`.
    AsyncNotification,
    /// NVRTC's unnamed `int (*)(void*, void*)` of `nvrtcSetFlowCallback`.
    Flow,
    /// `CUoccupancyB2DSize`: called only during the call, no user data.
    Occupancy,
}

impl CallbackKind {
    /// The library may call it any number of times, until a release call (see [`Release`]).
    pub fn repeating(self) -> bool {
        self.life() == CallableLife::Kept
    }
    /// How long a Python callable standing for a callback of this kind lives.
    pub fn life(self) -> CallableLife {
        match self {
            CallbackKind::Raw => CallableLife::NoCallable,
            CallbackKind::Occupancy => CallableLife::DuringCall,
            CallbackKind::Host | CallbackKind::Stream => CallableLife::OneShot,
            CallbackKind::Logs | CallbackKind::AsyncNotification | CallbackKind::Flow => CallableLife::Kept,
        }
    }
}

/// How long a Python callable handed to the library lives (the Python surface keeps it alive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallableLife {
    /// Only C function pointers are taken.
    NoCallable,
    /// Called only during the call: dropped after it.
    DuringCall,
    /// Called once: committed after a successful call, freed by its trampoline.
    OneShot,
    /// Called until a release call: kept under a key (see [`CallbackUse::kept_by`]).
    Kept,
}

/// How a callable stands for one callback parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallbackUse {
    pub kind: CallbackKind,
    /// The user-data parameter that carries the callable to the trampoline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_data: Option<String>,
    /// For a repeating kind: the handle parameter whose value keys the kept callable (the
    /// registration handle the call returns, else the first handle argument).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_by: Option<String>,
}

/// A call after which the library no longer calls a kept callable of kind `callback`; `key` is
/// the parameter holding the handle it was kept under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Release {
    pub callback: CallbackKind,
    pub key: String,
}

/// How the Python surface converts a parameter (the templates switch on this only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PyConv {
    /// By-value integer, or an enum of a module whose enums are C ints
    /// ([`crate::profile::PythonConvention::member_enums`] off).
    Int,
    /// By-value integer typedef with a class of its own (`cuuint64_t`, `EGLint`): what
    /// [`PyConv::Int`] takes, and None as 0 (cuda.bindings' conversion of its typedef classes).
    TypedefInt,
    /// By-value `void *` typedef with a class of its own (`EGLImageKHR`): an object of that class
    /// or any other with `__index__` / only `__int__` stands for the pointer it holds (its
    /// `int()`, as cuda.bindings converts it); an int, None or buffer as [`PyConv::Ptr`].
    TypedefPtr,
    /// By-value enum taking a member or an integer only (`member_enums`): a float, a handle or
    /// an `__int__`-only object is refused, never truncated.
    Enum,
    Float,
    /// By-value handle object or int.
    Handle,
    /// By-value record.
    RecordVal,
    /// Pointer to one record the callee reads (or writes); None is refused.
    RecordRef,
    /// [`PyConv::RecordRef`] that takes None as NULL: a nullable C parameter, or any one of a
    /// module whose oracle passes NULL for None ([`crate::profile::PythonConvention::none_records`]).
    RecordRefOpt,
    /// Any address: int, buffer or None.
    #[default]
    Ptr,
    /// Integer, enum or integer handle the callee reads and updates: an argument and an output.
    InoutScalar,
    /// Pointer to one object handle.
    HandleRef,
    /// Caller buffer checked against the size the IR knows ([`Param::size`]).
    Buffer,
    /// `const char*` input.
    Cstr,
    InArray,
    Callback,
    /// User data carrying a Python callable to its trampoline.
    UserdataPaired,
    /// The kernel argument pointer array of `cuLaunchKernel` and kin.
    KernelParams,
    /// An [`PyConv::InArray`] of data for each element of another array, which NULL (None)
    /// leaves at its defaults (`dependencyData`): None is taken whatever the count.
    InArrayOpt,
    /// An out value the library points at an array it owns ([`Param::counted_by`]): a list.
    OutList,
    /// One value the callee writes (returned).
    Out,
    CstrOut,
    OutArray,
    OutBuffer,
    /// A [`Role::SelectedValue`] the callee reads / writes; [`Role::SelectedValues`].
    SelectedIn,
    SelectedOut,
    SelectedList,
    /// The in/out size of a selected value, set from its member's size (not an argument).
    SelectedSize,
}

impl PyConv {
    /// Part of the returned tuple.
    pub fn is_out(self) -> bool {
        matches!(
            self,
            PyConv::Out
                | PyConv::CstrOut
                | PyConv::OutArray
                | PyConv::OutBuffer
                | PyConv::SelectedOut
                | PyConv::SelectedList
                | PyConv::InoutScalar
                | PyConv::OutList
        )
    }
    /// A Python argument.
    pub fn is_arg(self) -> bool {
        (!self.is_out() || self == PyConv::InoutScalar) && self != PyConv::SelectedSize
    }
}

/// What a value of some C type is to the Python surface (argument, output or element).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    Int,
    Float,
    Enum,
    Handle,
    /// A complete record.
    Record,
    /// `char*`.
    Cstr,
    #[default]
    Ptr,
}

/// How many bytes a caller buffer must hold, and whether the callee writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeLink {
    /// Where the size comes from.
    pub from: SizeFrom,
    /// The callee writes through the buffer (a read-only buffer is refused).
    pub writes: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "name")]
pub enum SizeFrom {
    /// A by-value parameter of the same function holding the size in bytes (`ByteCount`).
    Param(String),
    /// A function taking the same leading arguments that reports the size (`nvrtcGetPTXSize`).
    Function(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    In,
    Out,
    InOut,
}

/// What a parameter is for; emitters switch on this only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "role")]
pub enum Role {
    /// Passed by value (scalar, enum, handle, struct).
    Value,
    /// `const T*` to one value the callee reads (`&T`).
    InRef,
    /// `T*` to one value the callee writes (returned).
    OutValue,
    /// `T*` to one value the callee reads and writes (`&mut T`).
    InOutRef,
    /// `const char*` NUL-terminated input string.
    CStrIn,
    /// `const char**` the callee points at a static string (returned as a string).
    CStrOut,
    /// Array the callee reads; `len` names the count parameter (if any).
    InArray { len: Option<String> },
    /// Array the callee fills; `len` names the count parameter (if any).
    OutArray { len: Option<String> },
    /// Caller-allocated byte/char buffer the callee fills. `len` is its size parameter, if any;
    /// `string` is true when the contents are a NUL-terminated string; `size_from` names a
    /// function that reports the needed size (two-call pattern: `nvrtcGetPTXSize`);
    /// `capacity` is the buffer size the typed surfaces allocate when nothing reports one.
    OutBuffer { len: Option<String>, string: bool, size_from: Option<String>, capacity: Option<u32> },
    /// The count of an array or buffer parameter (named by that parameter's role).
    Length { of: String },
    /// Host memory passed as an address (`void*`/`const void*`); raw on every surface.
    HostPtr,
    /// A C callback (function pointer type).
    Callback,
    /// Opaque user data handed back to a callback.
    UserData,
    /// Any other pointer the generator cannot type safely; raw on every surface.
    Opaque,
    /// `void*` to one value whose C type the enum parameter `selector` chooses (see
    /// [`Library::value_types`]); read by the callee for direction `In`, written for `Out`.
    /// `len` names its byte-size parameter (by value, or an in/out `size_t*`), if any.
    SelectedValue { selector: String, len: Option<String> },
    /// `void**`: one pointer per element of the enum array parameter `selectors`, each to a value
    /// of the type that element selects; `sizes` names the array of their byte sizes, if any.
    SelectedValues { selectors: String, sizes: Option<String> },
}

impl Role {
    /// True when the typed surfaces expose this parameter as a raw pointer.
    pub fn is_raw(&self) -> bool {
        matches!(self, Role::HostPtr | Role::Opaque | Role::UserData)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// `libraries/*/annotations.toml`.
    Annotation,
    /// The header's doc comment (`\param x - Returned ...`, `\param [out] x`).
    Doc,
    /// Type heuristics.
    Heuristic,
    /// The C type alone settles it (a non-pointer).
    Type,
    /// The function's name (`cuStreamCreate` / `cuStreamDestroy`: a create/end verb pair).
    Naming,
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Enum {
    /// Public name (`CUresult`; the typedef when there is one, else the tag).
    pub name: String,
    /// The C tag (`cudaError_enum`), if any (also when it equals `name`).
    pub tag: Option<String>,
    pub variants: Vec<EnumVariant>,
    /// Values are bit flags meant to be OR-ed (`CU_CTX_*` style).
    pub is_flags: bool,
    /// Integer type of the enum's values.
    pub repr: Prim,
    pub doc: Doc,
    pub location: Location,
    pub names: Names,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnumVariant {
    /// C name (`CUDA_SUCCESS`).
    pub name: String,
    pub value: i64,
    pub doc: Doc,
    pub names: Names,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    Struct,
    Union,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Public name (`CUDA_MEMCPY2D`; the typedef when there is one). Anonymous nested records get
    /// `{Parent}_{field}` or `{Parent}_anon{n}`.
    pub name: String,
    /// The C tag (`CUDA_MEMCPY2D_st`), if any (also when it equals `name`). `None` with
    /// `anonymous == false` means a typedef of an unnamed struct: C spells it `name`.
    pub tag: Option<String>,
    pub kind: RecordKind,
    pub fields: Vec<Field>,
    /// False for forward-declared structs (behind opaque handles).
    pub complete: bool,
    /// Size and alignment in bytes, from libclang (0 when incomplete).
    pub size: u64,
    pub align: u64,
    /// Declared inside another record without a name of its own.
    pub anonymous: bool,
    pub doc: Doc,
    pub location: Location,
    pub names: Names,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// Field name; for an anonymous member (C11), `anon{n}`.
    pub name: String,
    pub ty: Type,
    /// Offset from the start of the record, in bits.
    pub offset_bits: u64,
    /// Width for bitfields.
    pub bit_width: Option<u32>,
    /// An anonymous struct/union member whose fields are reached as if they were the parent's.
    pub anonymous: bool,
    pub doc: Doc,
    pub names: Names,
    /// For a pointer to an array of handles or records: the sibling field holding its length
    /// (computed by the `fields` pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<FieldCount>,
    /// For a field that holds records: whether Python hands them out as views or copies, as
    /// cuda.bindings does (computed by the `fields` pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<RecordAccess>,
    /// A `void **` holding a kernel's argument pointers, as the function parameter of the same
    /// role (`passes::python`): Python takes the forms a `kernelParams` argument takes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kernel_params: bool,
    /// In the Python class's C layout only: no property, not printed, not in the stubs
    /// (`passes::naming`: placeholder members from CUDA 13.4 on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub python_private: bool,
    /// Read-only in Python, as in cuda.bindings (`[read_only_fields]`: the library fills it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

/// How Python hands out the records a field holds (`passes::fields`), as cuda.bindings does. A
/// record set into the field is always copied in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordAccess {
    /// A view of the memory it lives in: `p.srcPos.x = 7` changes `p` (a nested record; with
    /// cuda.bindings 12, an element of the array a pointer field points to).
    View,
    /// A copy: after `x = frame.frame.pPitch[0]`, `x.pitch = 5` leaves the frame alone (an
    /// element of a fixed array of records; from cuda.bindings 13 on, of a pointed-to array).
    Copy,
}

/// The sibling field that counts a pointer field's elements (`CUlaunchConfig::numAttrs` for
/// `attrs`), and what decided it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldCount {
    pub field: String,
    pub decided_by: DecidedBy,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Typedef {
    pub name: String,
    /// The type it names (one level; `CUdevice` -> `Named("CUdevice_v1")`).
    pub target: Type,
    pub kind: TypedefKind,
    pub doc: Doc,
    pub location: Location,
    pub names: Names,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TypedefKind {
    /// Pointer to an incomplete struct (`typedef struct CUctx_st *CUcontext`).
    OpaqueHandle { record: String },
    /// An integer that identifies a driver object (`CUdevice`, `CUdeviceptr`, `CUtexObject`).
    ScalarHandle { prim: Prim },
    /// Names an enum (`typedef enum cudaError_enum CUresult`).
    EnumAlias { target: String },
    /// Names a record (`typedef struct CUDA_MEMCPY2D_st CUDA_MEMCPY2D`).
    RecordAlias { target: String },
    /// A function pointer (`CUstreamCallback`).
    Callback { ret: Type, params: Vec<CallbackParam> },
    /// Any other alias (`cuuint32_t`, `CUdevice_v1` chains resolve through `target`).
    Alias,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallbackParam {
    pub name: String,
    pub ty: Type,
}

/// An object-like macro with a constant value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MacroConst {
    pub name: String,
    pub value: MacroValue,
    pub doc: Doc,
    pub location: Location,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MacroValue {
    /// An integer; `unsigned` when written with a `U` suffix.
    Int {
        value: i128,
        unsigned: bool,
    },
    Float {
        value: f64,
    },
    Str {
        value: String,
    },
    /// `((T)value)`: pointer constants (`CU_LAUNCH_PARAM_END`) and handle constants
    /// (`CU_STREAM_LEGACY`, `CU_DEVICE_CPU`).
    Cast {
        ty: Type,
        value: i128,
    },
    /// Another name for an enum constant (`CU_KERNEL_NODE_ATTRIBUTE_PRIORITY`).
    EnumConst {
        enum_name: String,
        variant: String,
        value: i64,
    },
}

/// A declaration that could not be represented.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Skipped {
    pub name: String,
    pub what: String,
    pub reason: String,
    pub location: Location,
}
