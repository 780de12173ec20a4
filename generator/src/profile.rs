//! Every fact that differs between the libraries cudagen binds, one [`LibraryProfile`] each.
//!
//! Parsing, passes, renderers and the runtime loader read these instead of matching on
//! [`LibraryKind`]; the loader gets them through `rust/src/libraries.rs`, rendered from
//! [`PROFILES`]. Adding a library is one entry here, its `LibraryKind` variant and its
//! annotation file under `headers/`.

use crate::ir::LibraryKind;
use serde::Serialize;

/// Everything the generator and the runtime loader know about one library.
#[derive(Debug)]
pub struct LibraryProfile {
    pub kind: LibraryKind,
    /// `LibraryKind` variant of the runtime loader and `Error` variant of the Rust crate.
    pub variant: &'static str,
    /// Surface module name (`cudagen::driver`, `cudagen.driver`, `c/src/driver.rs`).
    pub module: &'static str,
    /// Prefix stripped from function names for the typed surfaces.
    pub prefix: &'static str,
    /// Main header; the library is parsed when it is present.
    pub header: &'static str,
    /// The main header's `PFN_*` typedefs header, which gives ABI versions.
    pub typedefs: Option<&'static str>,
    /// Headers that join the main header, each parsed when present beside it.
    pub companions: &'static [Companion],
    /// Headers the main header includes whose declarations are the library's too
    /// (`driver_types.h` for the runtime); the others' are left out.
    pub declares: &'static [&'static str],
    /// Annotation file under `headers/`.
    pub annotations: &'static str,
    /// The status enum every function returns.
    pub status_enum: &'static str,
    /// The status codes the bindings use themselves, by enum member name.
    pub status: StatusNames,
    /// C surface: root template, include guard and marker macro of the main header, and the
    /// calling-convention macro written before every function name (with its space).
    pub c_template: &'static str,
    pub c_guard: &'static str,
    pub c_marker: &'static str,
    pub callconv: &'static str,
    /// Records NVIDIA's runtime headers define too, by tag, and the guard macro they share
    /// (`CUuuid_st`, `CU_UUID_HAS_BEEN_DEFINED`), so a program may include the C surface's header
    /// together with `cuda_runtime.h`.
    pub c_record_guards: &'static [(&'static str, &'static str)],
    /// The library's own entry resolver, if it has one (`cuGetProcAddress`).
    pub resolver: Option<ResolverProfile>,
    /// Whether the crate's `cudarc` interop module covers this library (cudarc binds its main
    /// header).
    pub cudarc: bool,
    /// How the Python module answers: cuda.bindings' convention for this module.
    pub python: PythonConvention,
    /// A hand-written module of `templates/python/support/py/cudagen/` (no `.py`) whose public
    /// names the Python module re-exports: helpers cuda.bindings' module of the same name has
    /// beside the C API (the runtime's `make_cudaExtent`, `getLocalRuntimeVersion`, ...).
    pub python_helpers: Option<&'static str>,
    /// How the runtime loader finds and resolves the library.
    pub loader: LoaderProfile,
}

/// The convention of cuda.bindings' module of the same name, which the Python module follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
    Exceptions { error_class: &'static str },
}

impl PythonConvention {
    /// An enum argument is a member or an integer, never a number truncated to one: cuda.bindings
    /// 12.x reads the member's `.value` (a float, a handle or an object with only `__int__`
    /// raises AttributeError there), so the module takes a member of any enum (cuda.bindings
    /// takes those too), an int or an `__index__` object, and refuses a float, a handle or an
    /// `__int__`-only object (TypeError), where the C-int convention truncates `2.5` to 2.
    pub fn member_enums(self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// None for a pointer to one record (`cudaMemcpy3D(p)`, node parameters, descriptors) passes
    /// NULL, whether or not the C API allows NULL there: cuda.bindings declares these arguments
    /// `Optional[record]` and passes `p._pvt_ptr if p is not None else NULL`, and the library
    /// answers with its own status (`cudaErrorInvalidValue`).
    pub fn none_records(self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// The module has cuda.bindings' `sizeof(objType)`: the size in bytes of the C type of one of
    /// its record, handle or typedef classes (cuda.bindings' driver, runtime and nvrtc have it,
    /// and NVIDIA's tests call `runtime.sizeof(runtime.cudaDeviceProp)`).
    pub fn sizeof_helper(self) -> bool {
        matches!(self, PythonConvention::Tuple)
    }

    /// An enum argument is a C `int` whatever the enum's own repr: cuda.bindings' cybind modules
    /// declare `int input_type`, so -1 passes on and 2**31 is an OverflowError there (the tuple
    /// modules take members, [`PythonConvention::member_enums`]).
    pub fn c_int_enums(self) -> bool {
        !self.member_enums()
    }

    /// How an int given for an address (a pointer handle, a caller buffer) converts.
    pub fn address_ints(self) -> AddressInts {
        match self {
            PythonConvention::Tuple => AddressInts::Word,
            PythonConvention::Exceptions { .. } => AddressInts::IntPtr,
        }
    }

    /// An exact `bytes` object is taken as an output buffer and written in place: cuda.bindings'
    /// `nvrtc` documents `nvrtcGetPTX(prog, b" " * size)`, while its cybind modules (`nvjitlink`,
    /// `nvvm`) ask for a writable buffer (`PyBUF_WRITABLE`) and raise ValueError for `bytes`.
    pub fn read_only_output(self) -> bool {
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
#[derive(Clone, Copy, Debug)]
pub struct Companion {
    pub header: &'static str,
    /// Its `PFN_*` typedefs header, if the library has them (the runtime's have none).
    pub typedefs: Option<&'static str>,
    /// Graphics headers it needs first, by include spelling. The parse reads stand-ins for them
    /// (`clang/interop/`) whose types join the library; the C surface includes the real ones.
    pub needs: &'static [&'static str],
    /// NVIDIA's include guard of the header (the C surface keeps it: code may test it).
    pub guard: &'static str,
}

/// A library's own entry resolver: the loader resolves entries through it (`loader.resolve`),
/// and the C shim answers it itself so that the entries it hands out are the shim's.
#[derive(Debug)]
pub struct ResolverProfile {
    /// API name of the resolver function.
    pub function: &'static str,
    /// Older ABIs of it the shim exports by hand (`templates/c/support/getproc.rs`): version and
    /// Rust path.
    pub hand_abis: &'static [(u32, &'static str)],
    /// The ABI symbol NVIDIA's header wraps in an inline `_ptsz` function for per-thread builds,
    /// and the enum the wrapper needs.
    pub ptsz_wrapper: (&'static str, &'static str),
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
#[derive(Debug)]
pub struct StatusNames {
    pub success: (&'static str, i64),
    pub library_missing: (&'static str, i64),
    pub symbol_missing: (&'static str, i64),
    pub invalid_argument: (&'static str, i64),
    pub internal: (&'static str, i64),
}

/// How entry points are resolved once the library is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Serialize)]
pub struct LoaderProfile {
    /// Sonames in search order; `{major}` and `{next}` stand for the headers' CUDA major version
    /// and the one after it ([`LoaderProfile::sonames_for`]).
    pub sonames: &'static [&'static str],
    pub override_var: &'static str,
    pub path_vars: &'static [&'static str],
    pub home_vars: &'static [&'static str],
    /// The folder under each of `home_vars` searched (`lib64`, NVVM's `nvvm/lib64`).
    pub home_lib: &'static str,
    pub dirs: &'static [&'static str],
    pub wheel_dirs: &'static [&'static str],
    pub resolve: Resolve,
    /// A candidate exporting `cudagen_shim_marker` is the cudagen C shim and is skipped.
    pub skip_shim: bool,
    /// NVIDIA's static archive of the library, which a build may link in instead.
    pub static_link: Option<StaticLink>,
}

/// A static archive of a library that the generated crates link when their cargo feature is on
/// (as cuda.bindings links cudart), in place of loading the shared library at run time. The
/// override variable of [`LoaderProfile`] still loads a shared library instead when set.
#[derive(Debug, Serialize)]
pub struct StaticLink {
    /// Cargo feature of the Rust crate (and of the Python crate, which forwards it).
    pub feature: &'static str,
    /// Archive name as `-l static=` takes it (`cudart_static` for `libcudart_static.a`).
    pub archive: &'static str,
    /// Variable naming the archive, or a folder holding it.
    pub path_var: &'static str,
    /// System libraries the archive needs.
    pub system_libs: &'static [&'static str],
    /// Header in `../include` beside the archive's folder, and its version macro
    /// (`CUDART_VERSION`, `12090` for 12.9).
    pub version_header: &'static str,
    pub version_macro: &'static str,
    /// NVIDIA's pip distribution carrying the archive, by CUDA major: a build requirement of the
    /// Python package, so that building it from its sdist finds the archive (`build.rs` looks in
    /// the loader's wheel folders on the building Python's path).
    pub wheels: &'static [(u32, &'static str)],
}

/// One entry per [`LibraryKind`] variant, in variant order.
pub const PROFILES: [LibraryProfile; 5] = [
    LibraryProfile {
        kind: LibraryKind::Driver,
        variant: "Driver",
        module: "driver",
        prefix: "cu",
        header: "cuda.h",
        typedefs: Some("cudaTypedefs.h"),
        companions: &[
            Companion { header: "cudaGL.h", typedefs: Some("cudaGLTypedefs.h"), needs: &["GL/gl.h"], guard: "CUDAGL_H" },
            Companion {
                header: "cudaEGL.h",
                typedefs: Some("cudaEGLTypedefs.h"),
                needs: &["EGL/egl.h", "EGL/eglext.h"],
                guard: "CUDAEGL_H",
            },
            Companion {
                header: "cudaVDPAU.h",
                typedefs: Some("cudaVDPAUTypedefs.h"),
                needs: &["vdpau/vdpau.h"],
                guard: "CUDAVDPAU_H",
            },
            Companion {
                header: "cudaProfiler.h",
                typedefs: Some("cudaProfilerTypedefs.h"),
                needs: &[],
                guard: "cuda_profiler_H",
            },
        ],
        declares: &[],
        annotations: "cuda.toml",
        status_enum: "CUresult",
        status: StatusNames {
            success: ("CUDA_SUCCESS", 0),
            library_missing: ("CUDA_ERROR_STUB_LIBRARY", 34),
            symbol_missing: ("CUDA_ERROR_NOT_FOUND", 500),
            invalid_argument: ("CUDA_ERROR_INVALID_VALUE", 1),
            internal: ("CUDA_ERROR_UNKNOWN", 999),
        },
        c_template: "c/cuda.h.tera",
        c_guard: "__cuda_cuda_h__",
        c_marker: "CUDAGEN_CUDA_H",
        callconv: "CUDAAPI ",
        c_record_guards: &[("CUuuid_st", "CU_UUID_HAS_BEEN_DEFINED")],
        resolver: Some(ResolverProfile {
            function: "cuGetProcAddress",
            // The 11.3 ABI (no `symbolStatus`).
            hand_abis: &[(11030, "crate::getproc::cuGetProcAddress")],
            ptsz_wrapper: ("cuGetProcAddress_v2", "CUdriverProcAddressQueryResult"),
        }),
        cudarc: true,
        python: PythonConvention::Tuple,
        python_helpers: None,
        loader: LoaderProfile {
            sonames: &["libcuda.so.1"],
            override_var: "CUDAGEN_LIBCUDA",
            path_vars: &["LD_LIBRARY_PATH"],
            home_vars: &[],
            home_lib: "lib64",
            dirs: &[
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu",
                "/usr/lib64",
                "/usr/local/nvidia/lib64",
                "/usr/lib/wsl/lib",
                "/usr/local/cuda/compat",
            ],
            wheel_dirs: &[],
            resolve: Resolve::GetProcAddress,
            skip_shim: true,
            static_link: None,
        },
    },
    LibraryProfile {
        kind: LibraryKind::Nvrtc,
        variant: "Nvrtc",
        module: "nvrtc",
        prefix: "nvrtc",
        header: "nvrtc.h",
        typedefs: None,
        companions: &[],
        declares: &[],
        annotations: "nvrtc.toml",
        status_enum: "nvrtcResult",
        // NVRTC has no "not found" or "unknown": its internal error stands in.
        status: StatusNames {
            success: ("NVRTC_SUCCESS", 0),
            library_missing: ("NVRTC_ERROR_INTERNAL_ERROR", 11),
            symbol_missing: ("NVRTC_ERROR_INTERNAL_ERROR", 11),
            invalid_argument: ("NVRTC_ERROR_INVALID_INPUT", 3),
            internal: ("NVRTC_ERROR_INTERNAL_ERROR", 11),
        },
        c_template: "c/nvrtc.h.tera",
        c_guard: "__NVRTC_H__",
        c_marker: "CUDAGEN_NVRTC_H",
        callconv: "",
        c_record_guards: &[],
        resolver: None,
        cudarc: false,
        python: PythonConvention::Tuple,
        python_helpers: None,
        loader: LoaderProfile {
            // The headers' major first (a 13.x build must not bind NVRTC 12's library); the next
            // major is the fallback where only a newer toolkit is installed: it keeps the C API
            // of the functions it still has, and the ones it dropped answer "not found".
            sonames: &["libnvrtc.so.{major}", "libnvrtc.so.{next}"],
            override_var: "CUDAGEN_NVRTC_PATH",
            path_vars: &[],
            home_vars: &["CUDA_HOME", "CUDA_PATH"],
            home_lib: "lib64",
            dirs: &["/usr/local/cuda/lib64"],
            wheel_dirs: &["nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib"],
            resolve: Resolve::Dlsym,
            skip_shim: false,
            static_link: None,
        },
    },
    LibraryProfile {
        kind: LibraryKind::NvJitLink,
        variant: "NvJitLink",
        module: "nvjitlink",
        prefix: "nvJitLink",
        header: "nvJitLink.h",
        typedefs: None,
        companions: &[],
        declares: &[],
        annotations: "nvjitlink.toml",
        status_enum: "nvJitLinkResult",
        // nvJitLink has no "not found": its internal error stands in.
        status: StatusNames {
            success: ("NVJITLINK_SUCCESS", 0),
            library_missing: ("NVJITLINK_ERROR_INTERNAL", 6),
            symbol_missing: ("NVJITLINK_ERROR_INTERNAL", 6),
            invalid_argument: ("NVJITLINK_ERROR_INVALID_INPUT", 3),
            internal: ("NVJITLINK_ERROR_INTERNAL", 6),
        },
        c_template: "c/library.h.tera",
        c_guard: "nvJitLink_INCLUDED",
        c_marker: "CUDAGEN_NVJITLINK_H",
        callconv: "",
        c_record_guards: &[],
        resolver: None,
        cudarc: false,
        python: PythonConvention::Exceptions { error_class: "nvJitLinkError" },
        python_helpers: None,
        loader: LoaderProfile {
            // As NVRTC: the headers' major first, the next one as fallback. The entries are the
            // versioned ABI symbols the header's inline wrappers call (`__nvJitLinkCreate_12_9`),
            // which newer libraries keep exporting.
            sonames: &["libnvJitLink.so.{major}", "libnvJitLink.so.{next}"],
            override_var: "CUDAGEN_NVJITLINK_PATH",
            path_vars: &[],
            home_vars: &["CUDA_HOME", "CUDA_PATH"],
            home_lib: "lib64",
            dirs: &["/usr/local/cuda/lib64"],
            wheel_dirs: &["nvidia/nvjitlink/lib", "nvidia/cu13/lib"],
            resolve: Resolve::Dlsym,
            skip_shim: true,
            static_link: None,
        },
    },
    LibraryProfile {
        kind: LibraryKind::Nvvm,
        variant: "Nvvm",
        module: "nvvm",
        prefix: "nvvm",
        header: "nvvm.h",
        typedefs: None,
        companions: &[],
        declares: &[],
        annotations: "nvvm.toml",
        status_enum: "nvvmResult",
        // NVVM has no "not found" or "internal": invalid input stands in for the loader's
        // failures, which it is closest to (the call never ran).
        status: StatusNames {
            success: ("NVVM_SUCCESS", 0),
            library_missing: ("NVVM_ERROR_INVALID_INPUT", 4),
            symbol_missing: ("NVVM_ERROR_INVALID_INPUT", 4),
            invalid_argument: ("NVVM_ERROR_INVALID_INPUT", 4),
            internal: ("NVVM_ERROR_INVALID_INPUT", 4),
        },
        c_template: "c/library.h.tera",
        c_guard: "NVVM_H",
        c_marker: "CUDAGEN_NVVM_H",
        callconv: "",
        c_record_guards: &[],
        resolver: None,
        cudarc: false,
        python: PythonConvention::Exceptions { error_class: "nvvmError" },
        python_helpers: None,
        loader: LoaderProfile {
            // libnvvm's soname has been `.4` since CUDA 11.x; the toolkit and the 12.x wheel also
            // carry the bare development name.
            sonames: &["libnvvm.so.4", "libnvvm.so"],
            override_var: "CUDAGEN_NVVM_PATH",
            path_vars: &[],
            home_vars: &["CUDA_HOME", "CUDA_PATH"],
            home_lib: "nvvm/lib64",
            dirs: &["/usr/local/cuda/nvvm/lib64"],
            wheel_dirs: &["nvidia/cuda_nvcc/nvvm/lib64", "nvidia/cu13/lib"],
            resolve: Resolve::Dlsym,
            skip_shim: true,
            static_link: None,
        },
    },
    LibraryProfile {
        kind: LibraryKind::Runtime,
        variant: "Runtime",
        module: "runtime",
        prefix: "cuda",
        header: "cuda_runtime_api.h",
        typedefs: None,
        // The runtime's interop and profiler headers (runtime and profiler wheels); their
        // deprecated functions (`cudaGLSetGLDevice`, the buffer-object API) are left out, as
        // cuda.bindings.runtime leaves them out.
        companions: &[
            Companion { header: "cuda_gl_interop.h", typedefs: None, needs: &["GL/gl.h"], guard: "__CUDA_GL_INTEROP_H__" },
            Companion {
                header: "cuda_egl_interop.h",
                typedefs: None,
                needs: &["EGL/egl.h", "EGL/eglext.h"],
                guard: "__CUDA_EGL_INTEROP_H__",
            },
            Companion {
                header: "cuda_vdpau_interop.h",
                typedefs: None,
                needs: &["vdpau/vdpau.h"],
                guard: "__CUDA_VDPAU_INTEROP_H__",
            },
            Companion { header: "cuda_profiler_api.h", typedefs: None, needs: &[], guard: "__CUDA_PROFILER_API_H__" },
            // Types only (`cudaDataType`, `libraryPropertyType`): `cuda_runtime.h` includes it.
            Companion { header: "library_types.h", typedefs: None, needs: &[], guard: "__LIBRARY_TYPES_H__" },
        ],
        declares: &[
            "driver_types.h",
            "vector_types.h",
            "surface_types.h",
            "texture_types.h",
            "device_types.h",
            "cuda_device_runtime_api.h",
        ],
        annotations: "cudart.toml",
        status_enum: "cudaError_t",
        status: StatusNames {
            success: ("cudaSuccess", 0),
            library_missing: ("cudaErrorStubLibrary", 34),
            symbol_missing: ("cudaErrorSymbolNotFound", 500),
            invalid_argument: ("cudaErrorInvalidValue", 1),
            internal: ("cudaErrorUnknown", 999),
        },
        c_template: "c/cuda_runtime_api.h.tera",
        c_guard: "__CUDA_RUNTIME_API_H__",
        c_marker: "CUDAGEN_CUDA_RUNTIME_API_H",
        callconv: "CUDARTAPI ",
        c_record_guards: &[("CUuuid_st", "CU_UUID_HAS_BEEN_DEFINED")],
        resolver: None,
        cudarc: false,
        python: PythonConvention::Tuple,
        python_helpers: Some("_runtime_helpers"),
        loader: LoaderProfile {
            // The headers' major only: record layouts (`cudaDeviceProp`) change between majors.
            sonames: &["libcudart.so.{major}"],
            override_var: "CUDAGEN_CUDART_PATH",
            path_vars: &[],
            home_vars: &["CUDA_HOME", "CUDA_PATH"],
            home_lib: "lib64",
            dirs: &["/usr/local/cuda/lib64"],
            wheel_dirs: &["nvidia/cuda_runtime/lib", "nvidia/cu13/lib"],
            resolve: Resolve::Dlsym,
            skip_shim: true,
            static_link: Some(StaticLink {
                feature: "static-cudart",
                archive: "cudart_static",
                path_var: "CUDAGEN_CUDART_STATIC",
                system_libs: &["dl", "rt", "pthread"],
                version_header: "cuda_runtime_api.h",
                version_macro: "CUDART_VERSION",
                wheels: &[(12, "nvidia-cuda-runtime-cu12"), (13, "nvidia-cuda-runtime")],
            }),
        },
    },
];

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
        for s in self.sonames {
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
}

impl LibraryProfile {
    /// The Python module holding the extension's tuple-convention functions: the public module
    /// itself (`driver`), or `_<module>` behind a public module of wrappers (`_nvjitlink`).
    pub fn python_tuple_module(&self) -> String {
        match self.python {
            PythonConvention::Tuple => self.module.to_string(),
            PythonConvention::Exceptions { .. } => format!("_{}", self.module),
        }
    }
}

impl LibraryKind {
    /// This library's profile.
    pub fn profile(self) -> &'static LibraryProfile {
        &PROFILES[self as usize]
    }
    /// Surface module name (`driver`, `nvrtc`).
    pub fn module(self) -> &'static str {
        self.profile().module
    }
    /// Prefix stripped from function names for the typed surfaces.
    pub fn prefix(self) -> &'static str {
        self.profile().prefix
    }
    /// Every library, in profile order.
    pub fn all() -> impl Iterator<Item = LibraryKind> {
        PROFILES.iter().map(|p| p.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_in_variant_order_and_distinct() {
        for (i, p) in PROFILES.iter().enumerate() {
            assert_eq!(p.kind as usize, i, "{}", p.module);
            assert_eq!(format!("{:?}", p.kind), p.variant);
            assert!(p.callconv.is_empty() || p.callconv.ends_with(' '), "{}", p.module);
        }
        let distinct = |f: fn(&LibraryProfile) -> &str| {
            PROFILES.iter().map(f).collect::<std::collections::BTreeSet<_>>().len() == PROFILES.len()
        };
        assert!(distinct(|p| p.module) && distinct(|p| p.header) && distinct(|p| p.annotations));
        assert!(distinct(|p| p.loader.override_var) && distinct(|p| p.c_marker));
        for p in &PROFILES {
            // The shim answers the resolver the loader resolves entries through.
            assert_eq!(p.resolver.is_some(), p.loader.resolve == Resolve::GetProcAddress, "{}", p.module);
        }
    }

    #[test]
    fn nvrtc_sonames_follow_the_headers_major() {
        let nvrtc = LibraryKind::Nvrtc.profile();
        assert_eq!(nvrtc.loader.sonames_for(Some(12)), ["libnvrtc.so.12", "libnvrtc.so.13"]);
        assert_eq!(nvrtc.loader.sonames_for(Some(13)), ["libnvrtc.so.13", "libnvrtc.so.14"]);
        assert_eq!(nvrtc.loader.sonames_for(None), ["libnvrtc.so"]);
        assert_eq!(LibraryKind::Driver.profile().loader.sonames_for(Some(13)), ["libcuda.so.1"]);
        let jitlink = LibraryKind::NvJitLink.profile();
        assert_eq!(jitlink.loader.sonames_for(Some(12)), ["libnvJitLink.so.12", "libnvJitLink.so.13"]);
        assert_eq!(LibraryKind::Nvvm.profile().loader.sonames_for(Some(13)), ["libnvvm.so.4", "libnvvm.so"]);
    }

    #[test]
    fn raising_modules_keep_their_tuple_functions_private() {
        assert_eq!(LibraryKind::Driver.profile().python_tuple_module(), "driver");
        assert_eq!(LibraryKind::NvJitLink.profile().python_tuple_module(), "_nvjitlink");
        assert_eq!(LibraryKind::Nvvm.profile().loader.home_lib, "nvvm/lib64");
    }
}
