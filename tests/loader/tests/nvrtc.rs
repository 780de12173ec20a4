//! NVRTC loading from the real NVIDIA wheel (`nvidia-cuda-nvrtc-cu12==12.9.86`).
//! The wheel is taken from `$CUDAGEN_TEST_NVRTC_WHEEL`, `/tmp/nv/` or `/tmp/w/`, else
//! downloaded with `python3 -m pip download` into `/tmp/nv/`.

use cudagen_loader_tests::{is_child, loader::*, run_child};
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

static ENTRIES: [Entry; 6] = [
    Entry {
        symbol: "nvrtcVersion",
        proc_name: "nvrtcVersion",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "nvrtcCreateProgram",
        proc_name: "nvrtcCreateProgram",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "nvrtcCompileProgram",
        proc_name: "nvrtcCompileProgram",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "nvrtcGetPTXSize",
        proc_name: "nvrtcGetPTXSize",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "nvrtcGetErrorString",
        proc_name: "nvrtcGetErrorString",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "nvrtcNoSuchThing",
        proc_name: "nvrtcNoSuchThing",
        version: 0,
        per_thread: false,
        fallbacks: &[],
    },
];
static TABLE: Table<6> = Table::new(NVRTC, &ENTRIES);

/// Root of the unpacked wheel (holds `nvidia/cuda_nvrtc/lib/libnvrtc.so.12`).
fn wheel_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new(); // tests run in parallel: unpack once
    ROOT.get_or_init(unpack_wheel).clone()
}

fn unpack_wheel() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvrtc_wheel");
    if root.join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12").exists() {
        return root;
    }
    let find = || -> Option<PathBuf> {
        if let Some(w) = std::env::var_os("CUDAGEN_TEST_NVRTC_WHEEL") {
            return Some(w.into());
        }
        ["/tmp/nv", "/tmp/w"]
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten())
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("nvidia_cuda_nvrtc_cu12-12.9.86")
            })
    };
    let wheel = find()
        .or_else(|| {
            Command::new("python3")
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "nvidia-cuda-nvrtc-cu12==12.9.86",
                    "-d",
                    "/tmp/nv",
                ])
                .status()
                .ok()?;
            find()
        })
        .expect("no nvidia-cuda-nvrtc-cu12 12.9.86 wheel; set CUDAGEN_TEST_NVRTC_WHEEL");
    let st = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&wheel)
        .arg(&root)
        .status()
        .unwrap();
    assert!(st.success());
    root
}

fn check_version_and_compile() {
    type Version = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
    type Create = unsafe extern "C" fn(
        *mut *mut c_void,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int;
    type Compile = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
    type PtxSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
    unsafe {
        let version: Version = std::mem::transmute(TABLE.get(0).unwrap());
        let (mut major, mut minor) = (0, 0);
        assert_eq!(version(&mut major, &mut minor), 0);
        println!("RESULT nvrtcVersion = {major}.{minor}");
        assert_eq!((major, minor), (12, 9));
        let create: Create = std::mem::transmute(TABLE.get(1).unwrap());
        let compile: Compile = std::mem::transmute(TABLE.get(2).unwrap());
        let ptx_size: PtxSize = std::mem::transmute(TABLE.get(3).unwrap());
        let src = c"extern \"C\" __global__ void saxpy(float a, float *x, float *y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n";
        let mut prog = std::ptr::null_mut();
        assert_eq!(
            create(
                &mut prog,
                src.as_ptr(),
                c"saxpy.cu".as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null()
            ),
            0
        );
        let opts = [c"--gpu-architecture=compute_80".as_ptr()];
        assert_eq!(
            compile(prog, 1, opts.as_ptr()),
            0,
            "nvrtcCompileProgram failed (builtins not found?)"
        );
        let mut n = 0usize;
        assert_eq!(ptx_size(prog, &mut n), 0);
        println!("RESULT saxpy PTX: {n} bytes");
        assert!(n > 100);
    }
    let e = TABLE.get(5).unwrap_err();
    println!("message: {e}");
    assert!(!e.library_missing());
    assert!(
        e.to_string().starts_with("nvrtcNoSuchThing not found in "),
        "{e}"
    );
}

#[test]
fn nvrtc_explicit_path() {
    if !is_child() {
        let lib = wheel_root().join("nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
        println!(
            "{}",
            run_child(
                "nvrtc_explicit_path",
                &[("CUDAGEN_NVRTC_PATH", lib.to_str().unwrap())]
            )
        );
        return;
    }
    check_version_and_compile();
}

#[test]
fn nvrtc_python_site() {
    if !is_child() {
        let site = format!("/nonexistent/site:{}", wheel_root().display());
        println!(
            "{}",
            run_child("nvrtc_python_site", &[("CUDAGEN_PYTHON_SITE", &site)])
        );
        return;
    }
    check_version_and_compile();
    let e = TABLE.get(5).unwrap_err();
    assert!(e
        .library_path()
        .unwrap()
        .ends_with("nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
    assert!(e
        .looked_in()
        .iter()
        .any(|l| l == "/nonexistent/site/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 (absent)"));
}

#[test]
fn nvrtc_virtualenv() {
    if !is_child() {
        let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fakevenv");
        let site = venv.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        let link = site.join("nvidia");
        if !link.exists() {
            std::os::unix::fs::symlink(wheel_root().join("nvidia"), &link).unwrap();
        }
        println!(
            "{}",
            run_child(
                "nvrtc_virtualenv",
                &[("VIRTUAL_ENV", venv.to_str().unwrap())]
            )
        );
        return;
    }
    check_version_and_compile();
}

#[test]
fn nvrtc_missing_and_sonames() {
    if !is_child() {
        let root = wheel_root(); // holds only libnvrtc.so.12: a .so.13 table must not find it
        println!(
            "{}",
            run_child(
                "nvrtc_missing_and_sonames",
                &[
                    ("CUDAGEN_PYTHON_SITE", root.to_str().unwrap()),
                    ("CUDA_HOME", "/opt/cuda-x")
                ]
            )
        );
        return;
    }
    static T13: Table<6> = Table::with_sonames(NVRTC, &ENTRIES, &["libnvrtc.so.13"]);
    let e = T13.get(0).unwrap_err();
    let msg = e.to_string();
    println!("message: {msg}");
    assert!(e.library_missing() && msg.starts_with("libnvrtc.so.13 not found (needed for nvrtcVersion); looked in: libnvrtc.so.13 (not found), /opt/cuda-x/lib64/libnvrtc.so.13 (absent), /usr/local/cuda/lib64/libnvrtc.so.13"), "{msg}");
    assert!(msg.contains(&format!(
        "{}/nvidia/cu13/lib/libnvrtc.so.13 (absent)",
        std::env::var("CUDAGEN_PYTHON_SITE").unwrap()
    )));
    assert!(msg.ends_with("set CUDAGEN_NVRTC_PATH to the library's path"));
    assert_eq!(e.kind(), NVRTC);
    assert!(Path::new(&std::env::var("CUDAGEN_PYTHON_SITE").unwrap()).exists());
}
