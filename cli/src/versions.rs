//! `headers/versions.toml`: CUDA version -> NVIDIA wheels and header hashes.

use crate::paths;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The headers the generator needs.
pub const HEADERS: [&str; 3] = ["cuda.h", "cudaTypedefs.h", "nvrtc.h"];

/// The headers in the runtime wheel that join a main header, read when present: the driver's
/// interop headers (with their `*Typedefs.h`), the runtime API's, and `library_types.h` (the
/// runtime's `cudaDataType`, `libraryPropertyType`; `cuda_runtime.h` includes it).
pub const RUNTIME_COMPANIONS: [&str; 11] = [
    "cudaGL.h",
    "cudaGLTypedefs.h",
    "cudaEGL.h",
    "cudaEGLTypedefs.h",
    "cudaVDPAU.h",
    "cudaVDPAUTypedefs.h",
    "cudaProfilerTypedefs.h",
    "cuda_gl_interop.h",
    "cuda_egl_interop.h",
    "cuda_vdpau_interop.h",
    "library_types.h",
];

/// The runtime API's headers in the runtime wheel (`cuda_runtime_api.h` and what it includes),
/// read when present.
pub const RUNTIME_API: [&str; 8] = [
    "cuda_runtime_api.h",
    "builtin_types.h",
    "driver_types.h",
    "vector_types.h",
    "surface_types.h",
    "texture_types.h",
    "device_types.h",
    "cuda_device_runtime_api.h",
];

/// The headers of the profiler wheel (`Entry::profiler`): the driver's and the runtime's.
pub const PROFILER_HEADERS: [&str; 2] = ["cudaProfiler.h", "cuda_profiler_api.h"];

/// Libraries of their own wheels, read when the release's entry names the wheel: the header, and
/// the library's file name start (the libraries go to `.cache/<cache>/<minor>/` for the tests).
pub struct LibraryWheel {
    pub header: &'static str,
    pub lib_prefix: &'static str,
    pub cache: &'static str,
    pub wheel: fn(&Entry) -> Option<&String>,
}

/// nvJitLink (`nvidia-nvjitlink[-cu12]`, from 12.0) and NVVM (12.x: inside `nvidia-cuda-nvcc-cu12`,
/// 13.x: `nvidia-nvvm`).
pub const LIBRARY_WHEELS: [LibraryWheel; 2] = [
    LibraryWheel { header: "nvJitLink.h", lib_prefix: "libnvJitLink.so", cache: "nvjitlink", wheel: |e| e.nvjitlink.as_ref() },
    LibraryWheel { header: "nvvm.h", lib_prefix: "libnvvm.so", cache: "nvvm", wheel: |e| e.nvvm.as_ref() },
];

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Table {
    pub cuda: Vec<Entry>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Entry {
    pub minor: String,
    /// pip requirement of the wheel holding cuda.h and cudaTypedefs.h (`name==version`).
    pub runtime: String,
    /// pip requirement of the wheel holding nvrtc.h and libnvrtc.
    pub nvrtc: String,
    /// pip requirement of the wheel holding cudaProfiler.h (without it, no profiler functions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler: Option<String>,
    /// pip requirement of the wheel holding nvJitLink.h and libnvJitLink.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvjitlink: Option<String>,
    /// pip requirement of the wheel holding nvvm.h and libnvvm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvvm: Option<String>,
    /// Header file name -> sha256.
    #[serde(default)]
    pub sha256: BTreeMap<String, String>,
}

impl Entry {
    /// Full runtime version (`12.9.79`).
    pub fn runtime_version(&self) -> &str {
        self.runtime.split("==").nth(1).unwrap_or("")
    }
    pub fn nvrtc_version(&self) -> &str {
        self.nvrtc.split("==").nth(1).unwrap_or("")
    }
}

impl Table {
    pub fn load() -> Result<Table> {
        let path = paths().headers.join("versions.toml");
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Table::parse(&text).with_context(|| format!("parsing {}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Table> {
        Ok(toml::from_str(text)?)
    }

    /// Resolves `12.9` (a minor) or `12.9.79` (a full runtime or NVRTC version).
    pub fn resolve(&self, version: &str) -> Result<&Entry> {
        if let Some(e) = self.cuda.iter().find(|e| e.minor == version) {
            return Ok(e);
        }
        if let Some(e) = self.cuda.iter().find(|e| e.runtime_version() == version || e.nvrtc_version() == version) {
            return Ok(e);
        }
        let minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
        if minor == "12.7" {
            bail!("CUDA 12.7 was never released (NVIDIA went from 12.6 to 12.8); pick 12.6 or 12.8");
        }
        let known: Vec<&str> = self.cuda.iter().map(|e| e.minor.as_str()).collect();
        bail!("CUDA {version} is not in headers/versions.toml; known: {}", known.join(", "))
    }

    /// The file's text, with the explanatory header.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "# CUDA version -> NVIDIA pip wheels holding its headers, and the sha256 of each header.\n\
             # `cargo xtask regen --cuda 12.9` resolves a minor here (a full runtime version also works).\n\
             # Refresh hashes after editing wheel versions: `cargo xtask versions --update`.\n\
             # CUDA 12.7 was never released.\n",
        );
        for e in &self.cuda {
            let _ = write!(s, "\n[[cuda]]\nminor = \"{}\"\nruntime = \"{}\"\nnvrtc = \"{}\"\n", e.minor, e.runtime, e.nvrtc);
            for (key, value) in [("profiler", &e.profiler), ("nvjitlink", &e.nvjitlink), ("nvvm", &e.nvvm)] {
                if let Some(v) = value {
                    let _ = writeln!(s, "{key} = \"{v}\"");
                }
            }
            if !e.sha256.is_empty() {
                s.push_str("[cuda.sha256]\n");
                for (k, v) in &e.sha256 {
                    let _ = writeln!(s, "\"{k}\" = \"{v}\"");
                }
            }
        }
        s
    }
}

/// `cargo xtask versions [--update]`.
pub fn command(update: bool) -> Result<()> {
    let mut table = Table::load()?;
    if update {
        for e in &mut table.cuda {
            let fetched = crate::fetch::fetch_entry(e, false)?;
            e.sha256 = fetched.sha256;
            println!("{}: {}", e.minor, e.sha256.values().map(|h| &h[..12]).collect::<Vec<_>>().join(" "));
        }
        std::fs::write(paths().headers.join("versions.toml"), table.render())?;
        println!("headers/versions.toml updated");
    } else {
        for e in &table.cuda {
            println!("{:5} {} {}", e.minor, e.runtime, e.nvrtc);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "[[cuda]]\nminor = \"12.9\"\nruntime = \"nvidia-cuda-runtime-cu12==12.9.79\"\nnvrtc = \"nvidia-cuda-nvrtc-cu12==12.9.86\"\nprofiler = \"nvidia-cuda-profiler-api-cu12==12.9.79\"\n[cuda.sha256]\n\"cuda.h\" = \"ab\"\n";

    #[test]
    fn resolves_minor_and_full_versions() {
        let t = Table::parse(SAMPLE).unwrap();
        assert_eq!(t.resolve("12.9").unwrap().minor, "12.9");
        assert_eq!(t.resolve("12.9.79").unwrap().minor, "12.9");
        assert_eq!(t.resolve("12.9.86").unwrap().minor, "12.9");
    }

    #[test]
    fn explains_12_7_and_unknown_versions() {
        let t = Table::parse(SAMPLE).unwrap();
        assert!(t.resolve("12.7").unwrap_err().to_string().contains("never released"));
        let e = t.resolve("11.8").unwrap_err().to_string();
        assert!(e.contains("11.8") && e.contains("known: 12.9"), "{e}");
    }

    #[test]
    fn renders_what_it_parses() {
        let t = Table::parse(SAMPLE).unwrap();
        assert_eq!(Table::parse(&t.render()).unwrap().cuda, t.cuda);
    }

    #[test]
    fn the_committed_table_lists_every_release_from_12_0_to_13_5_in_order() {
        let t = Table::load().unwrap();
        let minors = [
            "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9", "13.0", "13.1", "13.2", "13.3", "13.4",
            "13.5",
        ];
        for m in minors {
            let e = t.resolve(m).unwrap();
            assert!(HEADERS.iter().all(|h| e.sha256.contains_key(*h)), "{m} lacks header hashes");
            // 13.x wheels dropped the `-cu12` suffix.
            let suffix = if m.starts_with("12.") { "-cu12==" } else { "==" };
            assert!(e.runtime.starts_with(&format!("nvidia-cuda-runtime{suffix}{m}.")), "{m}: {}", e.runtime);
            assert!(e.nvrtc.starts_with(&format!("nvidia-cuda-nvrtc{suffix}{m}.")), "{m}: {}", e.nvrtc);
        }
        let listed: Vec<&str> = t.cuda.iter().map(|e| e.minor.as_str()).collect();
        assert!(listed.starts_with(&minors), "oldest first, no gaps: {listed:?}");
    }
}
