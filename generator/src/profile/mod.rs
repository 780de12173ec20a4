//! Every fact that differs between the libraries cudagen binds, one [`LibraryProfile`] each,
//! read from `libraries/<id>/library.toml` (the folder also holds the library's annotations,
//! `annotations.toml`).
//!
//! Parsing, passes, renderers and the runtime loader read these instead of naming a library;
//! the loader gets them through `rust/src/libraries.rs`, rendered from the profiles. Adding a
//! library is adding its folder ([`Registry::load_root`]).

mod registry;

#[cfg(test)]
pub(crate) use registry::kind;
pub use registry::{LibraryKind, Registry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Everything the generator and the runtime loader know about one library: its folder's
/// `library.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryProfile {
    /// The library's id: its folder's name (`driver`, `nvjitlink`).
    #[serde(skip)]
    pub id: String,
    /// The folder holding `library.toml` and `annotations.toml`.
    #[serde(skip)]
    pub dir: PathBuf,
    /// Position among the libraries: every list of them (modules, loader kinds) is in this order.
    pub order: u32,
    /// `LibraryKind` variant of the runtime loader and `Error` variant of the Rust crate.
    pub variant: String,
    /// Surface module name (`cudagen::driver`, `cudagen.driver`, `c/src/driver.rs`).
    pub module: String,
    /// Prefix stripped from function names for the typed surfaces.
    pub prefix: String,
    /// Main header; the library is parsed when it is present.
    pub header: String,
    /// The main header's `PFN_*` typedefs header, which gives ABI versions.
    #[serde(default)]
    pub typedefs: Option<String>,
    /// Headers that join the main header, each parsed when present beside it.
    #[serde(default)]
    pub companions: Vec<Companion>,
    /// Headers the main header includes whose declarations are the library's too
    /// (`driver_types.h` for the runtime); the others' are left out.
    #[serde(default)]
    pub declares: Vec<String>,
    /// The status enum every function returns.
    pub status_enum: String,
    /// The status codes the bindings use themselves, by enum member name.
    pub status: StatusNames,
    /// C surface: include guard and marker macro of the main header, and the calling-convention
    /// macro written before every function name (with its space).
    pub c_guard: String,
    pub c_marker: String,
    #[serde(default)]
    pub callconv: String,
    /// The main header's comment (`{file}` and `{cuda_version}` filled in), else the generic one,
    /// and the C lines after its prelude (NVIDIA's per-thread macros, ...).
    #[serde(default)]
    pub c_about: Option<String>,
    #[serde(default)]
    pub c_preamble: String,
    /// Records NVIDIA's runtime headers define too, by tag, and the guard macro they share
    /// (`CUuuid_st`, `CU_UUID_HAS_BEEN_DEFINED`), so a program may include the C surface's header
    /// together with `cuda_runtime.h`.
    #[serde(default)]
    pub c_record_guards: Vec<(String, String)>,
    /// The library's own entry resolver, if it has one (`cuGetProcAddress`).
    #[serde(default)]
    pub resolver: Option<ResolverProfile>,
    /// Whether the crate's `cudarc` interop module covers this library (cudarc binds its main
    /// header).
    #[serde(default)]
    pub cudarc: bool,
    /// How the Python module answers: cuda.bindings' convention for this module.
    pub python: PythonConvention,
    /// A hand-written module of `templates/python/support/py/cudagen/` (no `.py`) whose public
    /// names the Python module re-exports: helpers cuda.bindings' module of the same name has
    /// beside the C API (the runtime's `make_cudaExtent`, `getLocalRuntimeVersion`, ...).
    #[serde(default)]
    pub python_helpers: Option<String>,
    /// Integer typedefs named with this prefix and then a lowercase letter (`CUdevice`,
    /// `CUdeviceptr_v2`) identify objects: scalar handles (`passes::handles`).
    #[serde(default)]
    pub scalar_handle_prefix: Option<String>,
    /// What the library's objects may do across threads and what the safe layer knows of them.
    #[serde(default)]
    pub ownership: OwnershipFacts,
    /// Where its headers and its shared library come from (`cudagen fetch`).
    #[serde(default)]
    pub fetch: FetchProfile,
    /// How the runtime loader finds and resolves the library.
    pub loader: LoaderProfile,
}

/// Ownership and thread facts of one library's handle types (`passes::ownership`), by the
/// handle typedef's name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnershipFacts {
    /// Handle types whose objects must not be used from two threads at once (the owned type is
    /// `Send`, not `Sync`), each with the reason.
    #[serde(default)]
    pub not_sync: BTreeMap<String, String>,
    /// Integer handles that are addresses: their owned types get no generic methods.
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Calls that make a handle current on the calling thread and undo it.
    #[serde(default)]
    pub binds: Vec<BindFacts>,
    /// Traits of the hand-written safe layer (`templates/rust/support/safe`) a handle type's
    /// owned type implements.
    #[serde(default)]
    pub support_traits: BTreeMap<String, Vec<String>>,
    /// The status a call's doc lists when it works in the calling thread's current context: a
    /// kind whose constructors list it borrows that context.
    #[serde(default)]
    pub context_status: Option<String>,
    /// The handle types a checked launch runs (the safe layer's `Launchable`), where the library
    /// has launches.
    #[serde(default)]
    pub launch: Option<LaunchFacts>,
}

/// The function handle type a launch takes and the library kernel handle type it may come from
/// (a one-field newtype of the same pointer).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchFacts {
    pub function: String,
    pub kernel: String,
}

/// A handle type made current by one call and undone by another (`cuCtxPushCurrent`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindFacts {
    pub handle: String,
    pub push: String,
    pub pop: String,
}

/// Where a library's headers and shared library come from: NVIDIA's wheels, by their key in
/// `versions.toml`'s `[cuda.wheels]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchProfile {
    /// The wheel holding the main header, its typedefs header and its `declares`.
    #[serde(default)]
    pub wheel: Option<String>,
    /// Every release has the main header and typedefs header (else they are read when present).
    #[serde(default)]
    pub required: bool,
    /// Headers the main header includes that are fetched too but declare nothing of the library.
    #[serde(default)]
    pub includes: Vec<String>,
    /// Starts of the file names of the shared library in the wheel and of what it loads: each
    /// file starting with one is extracted to `.cache/<id>/<minor>/` for the tests, and the
    /// first start names the library itself (`libnvrtc.so.`, then `libnvrtc` for its builtins).
    #[serde(default)]
    pub libs: Vec<String>,
}

/// The convention of cuda.bindings' module of the same name, which the Python module follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "convention", rename_all = "snake_case")]
pub enum PythonConvention {
    /// `driver`, `nvrtc`, `runtime`: C names, every call returns `(status, outputs...)`, handle
    /// classes. cuda.bindings' functions there take an enum argument by its member's `.value`
    /// and None for a pointer to one record as NULL (`Optional[record]`): see
    /// [`PythonConvention::member_enums`] and [`PythonConvention::none_records`].
    Tuple,
    /// `nvjitlink`, `nvvm`: snake_case names without the prefix, enums without it (`Result`,
    /// `InputType`, members without their common prefix), a failed status raises
    /// `error_class(status)`, handles are ints, outputs returned alone or as a tuple. Enum
    /// arguments are C ints there (`int input_type`): Cython converts floats and `__int__`.
    Exceptions { error_class: String },
}

impl PythonConvention {
    /// An enum argument is a member or an integer, never a number truncated to one: cuda.bindings
    /// 12.x reads the member's `.value` (a float, a handle or an object with only `__int__`
    /// raises AttributeError there), so the module takes a member of any enum (cuda.bindings
    /// takes those too), an int or an `__index__` object, and refuses a float, a handle or an
    /// `__int__`-only object (TypeError), where the C-int convention truncates `2.5` to 2.
    pub fn member_enums(&self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// None for a pointer to one record (`cudaMemcpy3D(p)`, node parameters, descriptors) passes
    /// NULL, whether or not the C API allows NULL there: cuda.bindings declares these arguments
    /// `Optional[record]` and passes `p._pvt_ptr if p is not None else NULL`, and the library
    /// answers with its own status (`cudaErrorInvalidValue`).
    pub fn none_records(&self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// The module has cuda.bindings' `sizeof(objType)`: the size in bytes of the C type of one of
    /// its record, handle or typedef classes (cuda.bindings' driver, runtime and nvrtc have it,
    /// and NVIDIA's tests call `runtime.sizeof(runtime.cudaDeviceProp)`).
    pub fn sizeof_helper(&self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// An enum argument is a C `int` whatever the enum's own repr: cuda.bindings' cybind modules
    /// declare `int input_type`, so -1 passes on and 2**31 is an OverflowError there (the tuple
    /// modules take members, [`PythonConvention::member_enums`]).
    pub fn c_int_enums(&self) -> bool {
        !self.member_enums()
    }

    /// How an int given for an address (a pointer handle, a caller buffer) converts.
    pub fn address_ints(&self) -> AddressInts {
        match self {
            PythonConvention::Tuple => AddressInts::Word,
            PythonConvention::Exceptions { .. } => AddressInts::IntPtr,
        }
    }

    /// An exact `bytes` object is taken as an output buffer and written in place: cuda.bindings'
    /// `nvrtc` documents `nvrtcGetPTX(prog, b" " * size)`, while its cybind modules (`nvjitlink`,
    /// `nvvm`) ask for a writable buffer (`PyBUF_WRITABLE`) and raise ValueError for `bytes`.
    pub fn read_only_output(&self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }
}

/// What an int stands for where an address goes ([`PythonConvention::address_ints`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AddressInts {
    /// `driver`, `nvrtc`, `runtime`: any 64-bit pattern (a negative int is its two's complement),
    /// as cuda.bindings' handle classes take it; a caller buffer that a size function checks takes
    /// no int there (cuda.bindings takes `bytes` for those).
    Word,
    /// `nvjitlink`, `nvvm`: a C `intptr_t`, as cuda.bindings declares handles and addresses there
    /// (OverflowError outside `-2**63 .. 2**63-1`), and an int address for every caller buffer
    /// ("a Python int representing the pointer address").
    IntPtr,
}

/// A header that joins a library's main header (NVIDIA's interop and profiler headers join
/// `cuda.h`): its declarations become the library's, its `PFN_*` typedefs give their ABI
/// versions, and its deprecated functions (the legacy pre-graphics-resource OpenGL API,
/// `cuProfilerInitialize`) are left out, as cuda.bindings leaves them out.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Companion {
    pub header: String,
    /// Its `PFN_*` typedefs header, if the library has them (the runtime's have none).
    #[serde(default)]
    pub typedefs: Option<String>,
    /// Graphics headers it needs first, by include spelling. The parse reads stand-ins for them
    /// (`clang/interop/`) whose types join the library; the C surface includes the real ones.
    #[serde(default)]
    pub needs: Vec<String>,
    /// NVIDIA's include guard of the header (the C surface keeps it: code may test it).
    pub guard: String,
    /// The wheel holding it, when not the library's (`profiler`); its typedefs header is in the
    /// library's.
    #[serde(default)]
    pub wheel: Option<String>,
}

/// A library's own entry resolver: the loader resolves entries through it (`loader.resolve`),
/// and the C shim answers it itself so that the entries it hands out are the shim's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolverProfile {
    /// API name of the resolver function.
    pub function: String,
    /// Older ABIs of it the shim exports itself (`templates/c/getproc.rs.tera`): version and
    /// Rust path.
    #[serde(default)]
    pub hand_abis: Vec<(u32, String)>,
    /// The ABI symbol NVIDIA's header wraps in an inline `_ptsz` function for per-thread builds,
    /// and the enum the wrapper needs.
    pub ptsz_wrapper: (String, String),
}

/// The cudarc release the generated crate's `cudarc` feature pins, and the CUDA versions
/// (`CUDA_VERSION`) it binds as features (`cuda-12090`); headers of any other version get no
/// `cudarc` feature.
pub struct CudarcProfile {
    pub version: &'static str,
    pub cuda_versions: &'static [u32],
}

pub const CUDARC: CudarcProfile = CudarcProfile {
    version: "0.19.10",
    cuda_versions: &[12000, 12010, 12020, 12030, 12040, 12050, 12060, 12080, 12090, 13000, 13010, 13020, 13030, 13040],
};

impl CudarcProfile {
    /// cudarc's feature for headers of `CUDA_VERSION` `cuda_version`, if it binds them.
    pub fn feature(&self, cuda_version: Option<u32>) -> Option<String> {
        cuda_version.filter(|v| self.cuda_versions.contains(v)).map(|v| format!("cuda-{v:05}"))
    }
}

/// Status enum member (and its value, checked against the headers where they name it) the
/// bindings return when the library is missing, an entry point is missing, an argument is
/// refused, or a panic is caught.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusNames {
    pub success: (String, i64),
    pub library_missing: (String, i64),
    pub symbol_missing: (String, i64),
    pub invalid_argument: (String, i64),
    pub internal: (String, i64),
}

/// How entry points are resolved once the library is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all(deserialize = "snake_case"))]
pub enum Resolve {
    /// `cuGetProcAddress_v2(name, version, flags)` (else `cuGetProcAddress`, else `dlsym`): each
    /// entry gets the ABI its version names. The C shim intercepts the library's own
    /// `cuGetProcAddress` so resolved entries are traced too.
    GetProcAddress,
    /// `dlsym` of the ABI symbol.
    Dlsym,
}

/// Where the runtime loader looks for the library, in this order: the override variable alone
/// when set; else each soname bare, then in each folder of `path_vars`, `<home_vars>/<home_lib>`,
/// `dirs`, and `wheel_dirs` under each Python site folder.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoaderProfile {
    /// Sonames in search order; `{major}` and `{next}` stand for the headers' CUDA major version
    /// and the one after it ([`LoaderProfile::sonames_for`]).
    #[serde(default)]
    pub sonames: Vec<String>,
    pub override_var: String,
    #[serde(default)]
    pub path_vars: Vec<String>,
    #[serde(default)]
    pub home_vars: Vec<String>,
    /// The folder under each of `home_vars` searched (`lib64`, NVVM's `nvvm/lib64`).
    pub home_lib: String,
    #[serde(default)]
    pub dirs: Vec<String>,
    #[serde(default)]
    pub wheel_dirs: Vec<String>,
    pub resolve: Resolve,
    /// A candidate exporting `cudagen_shim_marker` is the cudagen C shim and is skipped.
    #[serde(default)]
    pub skip_shim: bool,
    /// File-name prefixes of the libraries the library `dlopen`s by bare name
    /// (`libnvrtc-builtins.so.`): opened first from the folder it was found in, so one whose run
    /// path lacks `$ORIGIN` (NVRTC of the 13.0 wheel) finds them there.
    #[serde(default)]
    pub companions: Vec<String>,
    /// NVIDIA's static archive of the library, which a build may link in instead.
    #[serde(default)]
    pub static_link: Option<StaticLink>,
    /// NVIDIA's pip distribution carrying the shared library, by CUDA major: named by the
    /// loader's not-found hint and an extra of the Python package (`cudagen[nvrtc]`).
    #[serde(default)]
    pub pip: Vec<(u32, String)>,
}

/// A static archive of a library that the generated crates link when their cargo feature is on
/// (as cuda.bindings links cudart), in place of loading the shared library at run time. The
/// override variable of [`LoaderProfile`] still loads a shared library instead when set.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticLink {
    /// Cargo feature of the Rust crate (and of the Python crate, which forwards it).
    pub feature: String,
    /// Archive name as `-l static=` takes it (`cudart_static` for `libcudart_static.a`).
    pub archive: String,
    /// Variable naming the archive, or a folder holding it.
    pub path_var: String,
    /// System libraries the archive needs.
    #[serde(default)]
    pub system_libs: Vec<String>,
    /// Header in `../include` beside the archive's folder, and its version macro
    /// (`CUDART_VERSION`, `12090` for 12.9).
    pub version_header: String,
    pub version_macro: String,
    /// NVIDIA's pip distribution carrying the archive, by CUDA major: a build requirement of the
    /// Python package, so that building it from its sdist finds the archive (`build.rs` looks in
    /// the loader's wheel folders on the building Python's path).
    #[serde(default)]
    pub wheels: Vec<(u32, String)>,
}

impl StaticLink {
    /// The archive's file name (`libcudart_static.a`).
    pub fn file(&self) -> String {
        format!("lib{}.a", self.archive)
    }
}

impl LoaderProfile {
    /// The sonames for headers of CUDA major version `major` (`libnvrtc.so.12`, ...). Headers of
    /// no known version (the test fixtures) get the unversioned development name.
    pub fn sonames_for(&self, major: Option<u32>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.sonames {
            let name = match major {
                Some(m) => s.replace("{major}", &m.to_string()).replace("{next}", &(m + 1).to_string()),
                None => s.replace(".{major}", "").replace(".{next}", ""),
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// The pip distribution of [`LoaderProfile::pip`] for headers of CUDA major `major`.
    pub fn pip_for(&self, major: Option<u32>) -> Option<&str> {
        self.pip.iter().find(|(m, _)| Some(*m) == major).map(|(_, name)| name.as_str())
    }
}

impl LibraryProfile {
    /// The library's annotation file, `annotations.toml` in its folder.
    pub fn annotations_file(&self) -> PathBuf {
        self.dir.join("annotations.toml")
    }

    /// The Python module holding the extension's tuple-convention functions: the public module
    /// itself (`driver`), or `_<module>` behind a public module of wrappers (`_nvjitlink`).
    pub fn python_tuple_module(&self) -> String {
        match &self.python {
            PythonConvention::Tuple => self.module.to_string(),
            PythonConvention::Exceptions { .. } => format!("_{}", self.module),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_folders_load_in_order() {
        let ids: Vec<&str> = LibraryKind::all().map(|k| k.id()).collect();
        assert_eq!(ids, ["driver", "nvrtc", "nvjitlink", "nvvm", "runtime"]);
        for k in LibraryKind::all() {
            assert!(k.profile().annotations_file().is_file(), "{}: no annotations.toml", k.id());
        }
        assert_eq!(Registry::load_root(&registry::default_root()).unwrap(), LibraryKind::all().collect::<Vec<_>>());
    }

    #[test]
    fn nvrtc_sonames_follow_the_headers_major() {
        let nvrtc = kind("nvrtc").profile();
        assert_eq!(nvrtc.loader.sonames_for(Some(12)), ["libnvrtc.so.12", "libnvrtc.so.13"]);
        assert_eq!(nvrtc.loader.sonames_for(Some(13)), ["libnvrtc.so.13", "libnvrtc.so.14"]);
        assert_eq!(nvrtc.loader.sonames_for(None), ["libnvrtc.so"]);
        assert_eq!(kind("driver").profile().loader.sonames_for(Some(13)), ["libcuda.so.1"]);
        let jitlink = kind("nvjitlink").profile();
        assert_eq!(jitlink.loader.sonames_for(Some(12)), ["libnvJitLink.so.12", "libnvJitLink.so.13"]);
        assert_eq!(kind("nvvm").profile().loader.sonames_for(Some(13)), ["libnvvm.so.4", "libnvvm.so"]);
        assert_eq!(nvrtc.loader.pip_for(Some(12)), Some("nvidia-cuda-nvrtc-cu12"));
        assert_eq!(nvrtc.loader.pip_for(Some(13)), Some("nvidia-cuda-nvrtc"));
        assert_eq!((nvrtc.loader.pip_for(None), kind("driver").profile().loader.pip_for(Some(12))), (None, None));
    }

    #[test]
    fn raising_modules_keep_their_tuple_functions_private() {
        assert_eq!(kind("driver").profile().python_tuple_module(), "driver");
        assert_eq!(kind("nvjitlink").profile().python_tuple_module(), "_nvjitlink");
        assert_eq!(kind("nvvm").profile().loader.home_lib, "nvvm/lib64");
    }

    #[test]
    fn a_second_folder_of_a_loaded_id_is_refused() {
        let root = std::env::temp_dir().join(format!("cudagen-registry-{}", std::process::id()));
        let dir = root.join("driver");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(kind("driver").profile().dir.join("library.toml"), dir.join("library.toml")).unwrap();
        let e = Registry::load_root(&root).unwrap_err().to_string();
        std::fs::remove_dir_all(&root).unwrap();
        assert!(e.contains("has the id of") && e.contains("libraries/driver"), "{e}");
    }
}
