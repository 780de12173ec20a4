//! Hermetic stand-ins for the few libc headers NVIDIA's headers include, and for the OpenGL, EGL
//! and VDPAU headers the interop headers (`cudaGL.h`, `cudaEGL.h`, `cudaVDPAU.h`,
//! `cuda_gl_interop.h`, ...) include, and for nvcc's `crt/host_defines.h` the runtime's headers
//! include, and for `cuda_runtime.h` / `cudart_platform.h`, which `cuda_egl_interop.h` includes.
//!
//! The parse never sees the machine's libc or graphics headers, so output cannot depend on them.
//! The interop stand-ins (`interop/`) declare only the types NVIDIA's headers use, with the C
//! types the real headers give them; `tests/c/run.sh` hands the same folder to gcc. The stubs are
//! written once per process to a private temporary folder.

use crate::diag::{Error, Result};
use std::path::PathBuf;
use std::sync::OnceLock;

const STDDEF: &str =
    "#pragma once\ntypedef unsigned long size_t;\ntypedef long ptrdiff_t;\ntypedef int wchar_t;\n#define NULL ((void*)0)\n";
const STDINT: &str = "#pragma once\ntypedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef long int64_t;\ntypedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\ntypedef unsigned long uint64_t;\ntypedef long intptr_t;\ntypedef unsigned long uintptr_t;\n";
const STDLIB: &str = "#pragma once\n#include <stddef.h>\n";

const FILES: [(&str, &str); 12] = [
    ("stddef.h", STDDEF),
    ("stdint.h", STDINT),
    ("stdlib.h", STDLIB),
    ("limits.h", "#pragma once\n"),
    ("string.h", "#pragma once\n#include <stddef.h>\n"),
    ("GL/gl.h", include_str!("interop/GL/gl.h")),
    ("EGL/egl.h", include_str!("interop/EGL/egl.h")),
    ("EGL/eglext.h", include_str!("interop/EGL/eglext.h")),
    ("vdpau/vdpau.h", include_str!("interop/vdpau/vdpau.h")),
    ("crt/host_defines.h", include_str!("interop/crt/host_defines.h")),
    ("cuda_runtime.h", include_str!("interop/cuda_runtime.h")),
    ("cudart_platform.h", include_str!("interop/cudart_platform.h")),
];

/// Writes the stubs (once) and returns their folder.
pub fn materialise() -> Result<PathBuf> {
    static DIR: OnceLock<std::result::Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("cudagen-stdinc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, text) in FILES {
            let path = dir.join(name);
            let parent = path.parent().unwrap_or(&dir);
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(dir)
    })
    .clone()
    .map_err(Error::new)
}
