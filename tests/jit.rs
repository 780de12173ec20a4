//! NVRTC `-dlto` LTO-IR linked by nvJitLink, and NVVM IR compiled by NVVM: no GPU needed. A
//! module of `cudagen_tests` and of the GPU binary `tests/gpu/jitnvvm` (`#[path]`). The kernel
//! sources are files under `tests/kernels/`, shared with the Python tests.

use cudagen::nvrtc;
use std::ffi::{CStr, CString};

/// NVRTC compiles `source` to LTO-IR for `sm` (`-dlto`), nvJitLink links it (`-lto`) into a cubin
/// for that arch: no GPU needed. Errors carry the NVRTC or nvJitLink log.
pub fn link_lto_cubin(source: &CStr, name: &CStr, sm: u32) -> Result<Vec<u8>, String> {
    use cudagen::nvjitlink;
    let mut prog = nvrtc::create_program(source, Some(name), &[], &[]).map_err(|e| e.to_string())?;
    let arch = CString::new(format!("--gpu-architecture=sm_{sm}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"-dlto", c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ltoir = compiled.map_err(|e| format!("{e}\n{log}")).and_then(|()| nvrtc::get_ltoir(prog).map_err(|e| e.to_string()));
    // SAFETY: `prog` was made above, is used no more and is ended once.
    unsafe { nvrtc::destroy_program(&mut prog) }.map_err(|e| e.to_string())?;
    let ltoir = ltoir?;
    let arch = CString::new(format!("-arch=sm_{sm}")).unwrap();
    let mut link = nvjitlink::create(&[arch.as_c_str(), c"-lto"]).map_err(|e| e.to_string())?;
    let added = nvjitlink::add_data(link, nvjitlink::nvJitLinkInputType::LTOIR, &ltoir, Some(name));
    let cubin = added
        .and_then(|()| nvjitlink::complete(link))
        .and_then(|()| nvjitlink::get_linked_cubin(link))
        .map_err(|e| format!("{e}\n{}", nvjitlink::get_error_log(link).unwrap_or_default()));
    // SAFETY: `link` was made above, is used no more and is ended once.
    unsafe { nvjitlink::destroy(&mut link) }.map_err(|e| e.to_string())?;
    cubin
}

/// The `scale` kernel (`x[i] *= a` for `i < n`) as CUDA C++ source: `tests/kernels/scale.cu`,
/// which the Python tests read too (`tests/python/jit_sources.py`).
pub const SCALE_KERNEL: &CStr = match CStr::from_bytes_with_nul(concat!(include_str!("kernels/scale.cu"), "\0").as_bytes()) {
    Ok(source) => source,
    Err(_) => panic!("tests/kernels/scale.cu holds a NUL byte"),
};

/// The same kernel as hand-written NVVM IR, text form, typed pointers (the IR dialect of libnvvm
/// 12.x and 13.x, `nvvmir.version` 2.0): `tests/kernels/scale.ll`.
pub const SCALE_NVVM_IR: &str = include_str!("kernels/scale.ll");

/// NVVM compiles the IR module `ir` to PTX for `compute_<sm>`. Errors carry the program log.
pub fn nvvm_ptx(ir: &str, sm: u32) -> Result<String, String> {
    use cudagen::nvvm;
    let mut prog = nvvm::create_program().map_err(|e| e.to_string())?;
    let arch = CString::new(format!("-arch=compute_{sm}")).unwrap();
    let added = nvvm::add_module_to_program(prog, ir.as_bytes(), Some(c"scale.ll"));
    let ptx = added
        .and_then(|()| nvvm::compile_program(prog, &[arch.as_c_str()]))
        .and_then(|()| nvvm::get_compiled_result(prog))
        .map_err(|e| format!("{e}\n{}", nvvm::get_program_log(prog).unwrap_or_default()));
    // SAFETY: `prog` was made above, is used no more and is ended once.
    unsafe { nvvm::destroy_program(&mut prog) }.map_err(|e| e.to_string())?;
    ptx
}
