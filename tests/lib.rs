//! Shared helpers of the integration tests: fixture parsing, the seed's SAXPY kernel, NVRTC
//! compilation through the typed API, and the "no driver" check every GPU test starts with.

#[doc = include_str!("compile_rules.md")]
pub mod compile_rules {}

use cudagen::{driver, nvrtc};
use cudagen_generator::annotations::{Annotations, LibraryAnnotations};
use cudagen_generator::ir::{Api, DecidedBy, LibraryKind};
use cudagen_generator::{parse, passes};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the repository").to_path_buf()
}

/// Companions of fixtures, as `cudaGL.h`/`cudaVDPAU.h` are of `cuda.h`: fixture -> companion.
const COMPANIONS: [(&str, parse::Companion); 1] = [(
    "interop",
    parse::Companion {
        header: "interop_gl.h",
        typedefs: "interop_gl_typedefs.h",
        needs: &["GL/gl.h", "vdpau/vdpau.h"],
        guard: "CUDAGEN_INTEROP_GL_H_GUARD",
    },
)];

/// The fixture a header of `tests/fixtures` is, by name (`out_param.h` -> `out_param`); `None`
/// for what joins another fixture: a `*_typedefs.h` or a companion.
pub fn fixture_name(header: &Path) -> Option<String> {
    let file = header.file_name()?.to_str()?;
    let name = file.strip_suffix(".h")?;
    let joins = name.ends_with("_typedefs") || COMPANIONS.iter().any(|(_, c)| c.header == file || c.typedefs == file);
    (!joins).then(|| name.to_string())
}

/// The library a fixture header belongs to: the profile whose status enum it names, else the
/// first (the driver).
pub fn fixture_kind(header: &Path) -> LibraryKind {
    let text = std::fs::read_to_string(header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    let profiles = &cudagen_generator::profile::PROFILES;
    profiles.iter().find(|p| text.contains(p.status_enum)).unwrap_or(&profiles[0]).kind
}

/// Parses `tests/fixtures/<name>.h` (with `<name>_typedefs.h` when present, and its companion)
/// as the library of [`fixture_kind`], and runs every pass, with the annotations of
/// `<name>.toml` when present.
pub fn fixture(name: &str) -> Api {
    let dir = root().join("tests/fixtures");
    let header = dir.join(format!("{name}.h"));
    let typedefs = dir.join(format!("{name}_typedefs.h"));
    let companions: Vec<parse::Companion> = COMPANIONS.iter().filter(|(n, _)| *n == name).map(|(_, c)| *c).collect();
    let kind = fixture_kind(&header);
    let lib = parse::parse_family(kind, &header, typedefs.exists().then_some(typedefs.as_path()), &companions)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut api = Api { cuda_version: "fixture".into(), libraries: vec![lib] };
    let ann = LibraryAnnotations::load_optional(&dir.join(format!("{name}.toml"))).unwrap_or_else(|e| panic!("{e}"));
    let annotations = Annotations { libraries: [(kind, ann)].into() };
    passes::run_all(&mut api, &annotations).unwrap_or_else(|e| panic!("{name}: {e}"));
    api
}

/// Who decided a parameter or resource, as the snapshots abbreviate it.
pub fn by(d: DecidedBy) -> &'static str {
    match d {
        DecidedBy::Annotation => "ann",
        DecidedBy::Doc => "doc",
        DecidedBy::Heuristic => "heur",
        DecidedBy::Type => "type",
        DecidedBy::Naming => "name",
    }
}

/// The IR of the real 12.9 headers, built once per test process, or `None` (skipped) outside CI
/// when they are not fetched.
pub fn real_api_12_9() -> Option<Api> {
    static API: std::sync::OnceLock<Option<Api>> = std::sync::OnceLock::new();
    API.get_or_init(|| {
        let dir = std::env::var_os("CUDAGEN_HEADERS_DIR").map(Into::into).unwrap_or_else(|| root().join(".cache/headers/12.9"));
        if !dir.join("cuda.h").exists() {
            if std::env::var_os("CI").is_some() {
                panic!("no 12.9 headers at {}: run `cargo xtask regen --cuda 12.9` first", dir.display());
            }
            eprintln!("skipped: no 12.9 headers at {} (run `cargo xtask regen --cuda 12.9`)", dir.display());
            return None;
        }
        let ann = Annotations::load_dir(&root().join("headers")).unwrap();
        let headers = cudagen_generator::HeaderSet { cuda_version: "12.9".into(), include_dir: dir };
        Some(cudagen_generator::build_api(&headers, &ann).unwrap())
    })
    .clone()
}

/// Compiles `tests/loader/fake/<source>.c` with gcc into `<tmp>/<source>/libcuda.so.1` (`tmp`:
/// the test's `CARGO_TARGET_TMPDIR`).
pub fn fake_libcuda(source: &str, tmp: &Path) -> PathBuf {
    let src = root().join(format!("tests/loader/fake/{source}.c"));
    let out = tmp.join(source).join("libcuda.so.1");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let st = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(&src)
        .status();
    assert!(st.expect("gcc").success(), "gcc failed for {src:?}");
    out
}

/// The SAXPY kernel of the seed walkthrough.
pub const SAXPY: &CStr = c"extern \"C\" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
 size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
 if (tid < n) {
   out[tid] = a * x[tid] + y[tid];
 }
}
";

/// An empty kernel with the same five arguments, for launch benchmarks.
pub const EMPTY5: &CStr = c"extern \"C\" __global__ void empty5(float a, float *x, float *y, float *out, size_t n) {}";

/// Compiles `source` to PTX through the typed NVRTC API; on failure the error carries the log.
pub fn compile_ptx(source: &CStr, name: &CStr, arch: &str) -> Result<String, String> {
    let mut prog = nvrtc::create_program(source, Some(name), &[], &[]).map_err(|e| e.to_string())?;
    let arch = CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ptx = compiled.map_err(|e| format!("{e}\n{log}")).and_then(|()| nvrtc::get_ptx(prog).map_err(|e| e.to_string()));
    nvrtc::destroy_program(&mut prog).map_err(|e| e.to_string())?;
    ptx
}

/// Initialises the driver, or prints one line saying why the GPU test is skipped.
pub fn gpu_or_skip(test: &str) -> bool {
    match driver::init(0) {
        Ok(()) => match driver::device_get_count() {
            Ok(n) if n > 0 => true,
            other => {
                println!("skipped {test}: no CUDA device ({other:?})");
                false
            }
        },
        Err(e) => {
            println!("skipped {test}: no CUDA driver ({e})");
            false
        }
    }
}

/// Deterministic pseudo-random floats in [0, 1) (xorshift), so the test needs no rand crate.
pub fn random_floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

// NVRTC -dlto -> nvJitLink and NVVM IR -> PTX, shared with the GPU binary tests/gpu/jitnvvm.
#[path = "jit.rs"]
mod jit;
pub use jit::{link_lto_cubin, nvvm_ptx, SCALE_KERNEL, SCALE_NVVM_IR};
