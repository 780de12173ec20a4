//! NVRTC `-dlto` LTO-IR linked by nvJitLink, and NVVM IR compiled by NVVM: no GPU needed. A
//! module of `cudagen_tests` and of the GPU binary `tests/gpu/jitnvvm` (`#[path]`).

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
    nvrtc::destroy_program(&mut prog).map_err(|e| e.to_string())?;
    let ltoir = ltoir?;
    let arch = CString::new(format!("-arch=sm_{sm}")).unwrap();
    let mut link = nvjitlink::create(&[arch.as_c_str(), c"-lto"]).map_err(|e| e.to_string())?;
    let added = nvjitlink::add_data(link, nvjitlink::nvJitLinkInputType::LTOIR, &ltoir, Some(name));
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
    let added = nvvm::add_module_to_program(prog, ir.as_bytes(), Some(c"scale.ll"));
    let ptx = added
        .and_then(|()| nvvm::compile_program(prog, &[arch.as_c_str()]))
        .and_then(|()| nvvm::get_compiled_result(prog))
        .map_err(|e| format!("{e}\n{}", nvvm::get_program_log(prog).unwrap_or_default()));
    nvvm::destroy_program(&mut prog).map_err(|e| e.to_string())?;
    ptx
}
