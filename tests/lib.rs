//! Shared helpers of the integration tests: fixture parsing, the seed's SAXPY kernel, NVRTC
//! compilation through the typed API, and the "no driver" check every GPU test starts with.

use cudagen::{driver, nvrtc};
use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Api, LibraryKind};
use cudagen_generator::{parse, passes};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ lives in the repository").to_path_buf()
}

/// The companion of the `interop` fixture, as `cudaGL.h`/`cudaVDPAU.h` are of `cuda.h`.
const INTEROP_COMPANION: parse::Companion = parse::Companion {
    header: "interop_gl.h",
    typedefs: "interop_gl_typedefs.h",
    needs: &["GL/gl.h", "vdpau/vdpau.h"],
    guard: "CUDAGEN_INTEROP_GL_H_GUARD",
};

/// Parses `tests/fixtures/<name>.h` (with `<name>_typedefs.h` when present, and the companion
/// `interop_gl.h` for `interop`) and runs every pass.
pub fn fixture(name: &str, kind: LibraryKind) -> Api {
    let dir = root().join("tests/fixtures");
    let header = dir.join(format!("{name}.h"));
    let typedefs = dir.join(format!("{name}_typedefs.h"));
    let companions: &[parse::Companion] = if name == "interop" { &[INTEROP_COMPANION] } else { &[] };
    let lib = parse::parse_family(kind, &header, typedefs.exists().then_some(typedefs.as_path()), companions)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut api = Api { cuda_version: "fixture".into(), libraries: vec![lib] };
    passes::run_all(&mut api, &Annotations::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    api
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

/// NVRTC compiles `source` to LTO-IR for `sm` (`-dlto`), nvJitLink links it (`-lto`) into a cubin
/// for that arch: no GPU needed. Errors carry the NVRTC or nvJitLink log.
pub fn link_lto_cubin(source: &CStr, name: &CStr, sm: u32) -> Result<Vec<u8>, String> {
    use cudagen::nvjitlink;
    let mut prog = nvrtc::create_program(source, Some(name), &[], &[]).map_err(|e| e.to_string())?;
    let arch = CString::new(format!("--gpu-architecture=sm_{sm}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"-dlto", c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ltoir = compiled.map_err(|e| format!("{e}\n{log}")).and_then(|()| nvrtc::get_ltoir(prog).map_err(|e| e.to_string()));
    nvrtc::destroy_program(&mut prog).map_err(|e| e.to_string())?;
    let ltoir = ltoir?;
    let arch = CString::new(format!("-arch=sm_{sm}")).unwrap();
    let mut link = nvjitlink::create(&[arch.as_c_str(), c"-lto"]).map_err(|e| e.to_string())?;
    // SAFETY: `ltoir` holds `ltoir.len()` bytes and outlives the call (nvJitLink copies it).
    let added = unsafe {
        nvjitlink::add_data(link, nvjitlink::nvJitLinkInputType::LTOIR, ltoir.as_ptr().cast(), ltoir.len(), Some(name))
    };
    let cubin = added
        .and_then(|()| nvjitlink::complete(link))
        .and_then(|()| nvjitlink::get_linked_cubin(link))
        .map_err(|e| format!("{e}\n{}", nvjitlink::get_error_log(link).unwrap_or_default()));
    nvjitlink::destroy(&mut link).map_err(|e| e.to_string())?;
    cubin
}

/// A hand-written NVVM IR kernel (`scale`: `x[i] *= a` for `i < n`), text form, typed pointers
/// (the IR dialect of libnvvm 12.x and 13.x, `nvvmir.version` 2.0).
pub const SCALE_NVVM_IR: &str = r#"target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @scale(float* %x, float %a, i32 %n) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %idx = sext i32 %i to i64
  %p = getelementptr float, float* %x, i64 %idx
  %v = load float, float* %p
  %r = fmul float %v, %a
  store float %r, float* %p
  br label %done
done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{void (float*, float, i32)* @scale, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
"#;

/// NVVM compiles the IR module `ir` to PTX for `compute_<sm>`. Errors carry the program log.
pub fn nvvm_ptx(ir: &str, sm: u32) -> Result<String, String> {
    use cudagen::nvvm;
    let mut prog = nvvm::create_program().map_err(|e| e.to_string())?;
    let arch = CString::new(format!("-arch=compute_{sm}")).unwrap();
    // SAFETY: `ir` holds `ir.len()` bytes and outlives the call (NVVM copies the module).
    let added = unsafe { nvvm::add_module_to_program(prog, ir.as_ptr().cast(), ir.len(), Some(c"scale.ll")) };
    let ptx = added
        .and_then(|()| nvvm::compile_program(prog, &[arch.as_c_str()]))
        .and_then(|()| nvvm::get_compiled_result(prog))
        .map_err(|e| format!("{e}\n{}", nvvm::get_program_log(prog).unwrap_or_default()));
    nvvm::destroy_program(&mut prog).map_err(|e| e.to_string())?;
    ptx
}
