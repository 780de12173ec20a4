//! Shared helpers of the integration tests: fixture parsing, the seed's SAXPY kernel, NVRTC
//! compilation through the typed API, and the "no driver" check every GPU test starts with.

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

/// Companions of fixtures, as `cudaGL.h`/`cudaVDPAU.h` are of `cuda.h`: fixture -> companion
/// (header, typedefs header, the graphics headers it needs, guard).
const COMPANIONS: [(&str, [&str; 5]); 1] =
    [("interop", ["interop_gl.h", "interop_gl_typedefs.h", "GL/gl.h", "vdpau/vdpau.h", "CUDAGEN_INTEROP_GL_H_GUARD"])];

fn companion([header, typedefs, needs @ .., guard]: &[&str; 5]) -> parse::Companion {
    parse::Companion {
        header: header.to_string(),
        typedefs: Some(typedefs.to_string()),
        needs: needs.iter().map(|n| n.to_string()).collect(),
        guard: guard.to_string(),
        wheel: None,
    }
}

/// The fixture a header of `tests/fixtures` is, by name (`out_param.h` -> `out_param`); `None`
/// for what joins another fixture: a `*_typedefs.h` or a companion.
pub fn fixture_name(header: &Path) -> Option<String> {
    let file = header.file_name()?.to_str()?;
    let name = file.strip_suffix(".h")?;
    let joins = name.ends_with("_typedefs") || COMPANIONS.iter().any(|(_, c)| c[0] == file || c[1] == file);
    (!joins).then(|| name.to_string())
}

/// The library a fixture header belongs to: the profile whose status enum it names, else the
/// first (the driver).
pub fn fixture_kind(header: &Path) -> LibraryKind {
    let text = std::fs::read_to_string(header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    let kinds: Vec<LibraryKind> = LibraryKind::all().collect();
    *kinds.iter().find(|k| text.contains(&k.profile().status_enum)).unwrap_or(&kinds[0])
}

/// Parses `tests/fixtures/<name>.h` (with `<name>_typedefs.h` when present, and its companion)
/// as the library of [`fixture_kind`], and runs every pass, with the annotations of
/// `<name>.toml` when present.
pub fn fixture(name: &str) -> Api {
    let dir = root().join("tests/fixtures");
    let header = dir.join(format!("{name}.h"));
    let typedefs = dir.join(format!("{name}_typedefs.h"));
    let companions: Vec<parse::Companion> = COMPANIONS.iter().filter(|(n, _)| *n == name).map(|(_, c)| companion(c)).collect();
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
        let ann = Annotations::load(LibraryKind::all()).unwrap();
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

/// The kernels of `safe_gpu` (and of the NVRTC parameter-layout oracle in `nvrtc`): 25 entries,
/// scalars of every width, `bool`, structs of odd alignment, pointers, 16 parameters.
pub const SAFE_KERNELS: &str = r#"
struct Params { float scale; float offset[2]; };
struct Wide { double scale; float offset[2]; };
struct Ptrs { const float *x; unsigned n; };

__device__ unsigned int launches;
__device__ double sink[32];

__device__ void count_launch() {
    if (threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z == 0) atomicAdd(&launches, 1u);
}

extern "C" __global__ void read_state(unsigned int *n, double *s) {
    if (threadIdx.x == 0) *n = launches;
    if (threadIdx.x < 32) s[threadIdx.x] = sink[threadIdx.x];
}

extern "C" __global__ void s_none() { count_launch(); sink[0] = 1.0; }
extern "C" __global__ void s_i32(int a) { count_launch(); sink[1] = a; }
extern "C" __global__ void s_u8(unsigned char a) { count_launch(); sink[2] = a; }
extern "C" __global__ void s_i16(short a) { count_launch(); sink[3] = a; }
extern "C" __global__ void s_i64(long long a) { count_launch(); sink[4] = (double)a; }
extern "C" __global__ void s_f32(float a) { count_launch(); sink[5] = a; }
extern "C" __global__ void s_f64(double a) { count_launch(); sink[6] = a; }
extern "C" __global__ void s_bool(bool b, int a) { count_launch(); sink[7] = b ? a : -a; }
extern "C" __global__ void s_mixed(char c, short s, int i, long long l, float f, double d) {
    count_launch(); sink[8] = c + s + i + (double)l + f + d;
}
extern "C" __global__ void s_struct(Params p) { count_launch(); sink[9] = p.scale * 100 + p.offset[0] * 10 + p.offset[1]; }
extern "C" __global__ void s_wide(Wide w) { count_launch(); sink[10] = w.scale * 100 + w.offset[0] * 10 + w.offset[1]; }
extern "C" __global__ void s_sum(const float *x, int n) {
    count_launch();
    if (threadIdx.x == 0 && blockIdx.x == 0) { double t = 0; for (int i = 0; i < n; i++) t += x[i]; sink[11] = t; }
}
extern "C" __global__ void s_saxpy(float a, const float *x, float *y, size_t n) {
    count_launch();
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void s_copy(const int *src, int *dst, unsigned n) {
    count_launch();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
extern "C" __global__ void s_fill2d(int *out, int w, int h) {
    count_launch();
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = x + 1000 * y;
}
extern "C" __global__ void s_fill3d(int *out, int nx, int ny, int nz) {
    count_launch();
    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
    if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 10 * y + 100 * z;
}
extern "C" __global__ void s_reverse(float *v, int n) {
    extern __shared__ float tmp[];
    count_launch();
    int i = threadIdx.x;
    if (i < n) tmp[i] = v[i];
    __syncthreads();
    if (i < n) v[i] = tmp[n - 1 - i];
}
extern "C" __global__ void s_many(char a0, unsigned char a1, short a2, unsigned short a3, int a4, unsigned a5,
                                  long long a6, unsigned long long a7, float a8, double a9, bool a10, short a11,
                                  int a12, long long a13, double a14, char a15) {
    count_launch();
    sink[12] = a0 + a1 + a2 + a3 + a4 + a5 + (double)a6 + (double)a7 + a8 + a9 + (a10 ? 1 : 0) + a11 + a12 + (double)a13 + a14 + a15;
}
extern "C" __global__ void s_mul(const double *a, const double *b, double *c, unsigned long long n) {
    count_launch();
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}
extern "C" __global__ void s_ptrs(Ptrs p) {
    count_launch();
    if (threadIdx.x == 0) { double t = 0; for (unsigned i = 0; i < p.n; i++) t += p.x[i]; sink[13] = t; }
}
extern "C" __global__ void s_add_u64(unsigned long long *v, unsigned long long add, int n) {
    count_launch();
    int i = threadIdx.x;
    if (i < n) v[i] += add;
}
extern "C" __global__ void __launch_bounds__(128) s_bounded(float *x, int n) {
    count_launch();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
extern "C" __global__ void spin_fill(float *a, float value, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float t = 0.0f;
    for (int k = 0; k < 200; k++) t += __sinf(i + k) * 1e-30f;
    a[i] = value + t;
}
extern "C" __global__ void accumulate(float *acc, const float *a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += a[i];
}
"#;

/// An empty kernel with the same five arguments, for launch benchmarks.
pub const EMPTY5: &CStr = c"extern \"C\" __global__ void empty5(float a, float *x, float *y, float *out, size_t n) {}";

/// Compiles `source` to PTX through the typed NVRTC API; on failure the error carries the log.
pub fn compile_ptx(source: &CStr, name: &CStr, arch: &str) -> Result<String, String> {
    let mut prog = nvrtc::create_program(source, Some(name), &[], &[]).map_err(|e| e.to_string())?;
    let arch = CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ptx = compiled.map_err(|e| format!("{e}\n{log}")).and_then(|()| nvrtc::get_ptx(prog).map_err(|e| e.to_string()));
    // SAFETY: `prog` was made above, is used no more and is ended once.
    unsafe { nvrtc::destroy_program(&mut prog) }.map_err(|e| e.to_string())?;
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

/// The library of id `id` in `libraries/`.
pub fn kind(id: &str) -> LibraryKind {
    cudagen_generator::profile::Registry::get(id).unwrap_or_else(|| panic!("no libraries/{id}"))
}
