//! `cargo xtask install --prefix P`: the C shim as a C library, installed.
//!
//! ```text
//! P/lib/libcudagen.so.M (soname; M = the CUDA major), P/lib/libcudagen.so -> it, P/lib/libcudagen.a
//! P/include/cudagen/{cuda.h, nvrtc.h, cudagen.h, ...}   (beside, not over, a toolkit's cuda.h)
//! P/lib/pkgconfig/cudagen.pc                            (pkg-config cudagen)
//! P/lib/cmake/cudagen/cudagenConfig{,Version}.cmake     (find_package(cudagen))
//! ```
//! Built from `generated/c` (the CUDA 12.9 API), or from `--from DIR/c`, a tree `cudagen regen`
//! wrote for another release.

use crate::{root, run};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn install(prefix: &Path, from: Option<&Path>) -> Result<()> {
    let crate_dir = from.map(|d| d.join("c")).unwrap_or_else(|| root().join("generated/c"));
    let manifest = crate_dir.join("Cargo.toml");
    if !manifest.exists() {
        bail!("{} missing: --from names a folder `cudagen regen --out` wrote (with c/ and rust/)", manifest.display());
    }
    let pc = std::fs::read_to_string(crate_dir.join("cudagen.pc"))?;
    let soname = format!("libcudagen.so.{}", major_of(&pc)?);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // `cargo rustc`: the soname reaches the shim's link only (its dependencies stay as built).
    run::status(Command::new(&cargo).args(["rustc", "--release", "--lib", "--manifest-path"]).arg(&manifest).args([
        "--",
        "-C",
        &format!("link-arg=-Wl,-soname,{soname}"),
    ]))?;
    let release = target_dir(&cargo, &manifest)?.join("release");
    let (lib, include, pkgconfig, cmake) =
        (prefix.join("lib"), prefix.join("include/cudagen"), prefix.join("lib/pkgconfig"), prefix.join("lib/cmake/cudagen"));
    for d in [&lib, &include, &pkgconfig, &cmake] {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    copy(&release.join("libcudagen.so"), &lib.join(&soname))?;
    copy(&release.join("libcudagen.a"), &lib.join("libcudagen.a"))?;
    let link = lib.join("libcudagen.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&soname, &link).with_context(|| format!("linking {}", link.display()))?;
    for entry in std::fs::read_dir(crate_dir.join("include"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "h") {
            copy(&path, &include.join(path.file_name().context("header name")?))?;
        }
    }
    std::fs::write(pkgconfig.join("cudagen.pc"), installed_pc(&pc)?)?;
    for file in ["cudagenConfig.cmake", "cudagenConfigVersion.cmake"] {
        copy(&crate_dir.join("cmake").join(file), &cmake.join(file))?;
    }
    println!("installed libcudagen into {} (pkg-config: {}; CMake: {})", prefix.display(), pkgconfig.display(), cmake.display());
    Ok(())
}

/// The CUDA major of the pkg-config file's `Version: 12.9`.
fn major_of(pc: &str) -> Result<u32> {
    let version = pc.lines().find_map(|l| l.strip_prefix("Version:")).context("cudagen.pc has no Version line")?;
    let major = version.trim().split('.').next().unwrap_or("");
    major.parse().with_context(|| format!("cudagen.pc: Version `{}` does not start with a major", version.trim()))
}

/// cargo's target folder for `manifest` (honours CARGO_TARGET_DIR and workspaces).
fn target_dir(cargo: &str, manifest: &Path) -> Result<PathBuf> {
    let text = run::output(
        Command::new(cargo).args(["metadata", "--format-version", "1", "--no-deps", "--manifest-path"]).arg(manifest),
    )?;
    let meta: serde_json::Value = serde_json::from_str(&text)?;
    meta["target_directory"].as_str().map(PathBuf::from).context("cargo metadata gave no target_directory")
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to).with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}

/// The in-tree pkg-config file with its paths made those of the installed tree (relative to the
/// file, so the tree can move): `prefix`, `includedir`, `libdir` replaced, the rest kept.
fn installed_pc(pc: &str) -> Result<String> {
    let mut seen = 0;
    let lines: Vec<String> = pc
        .lines()
        .map(|l| {
            let mut set = |v: &str| {
                seen += 1;
                v.to_string()
            };
            match l.split_once('=').map(|(k, _)| k) {
                Some("prefix") => set("prefix=${pcfiledir}/../.."),
                Some("includedir") => set("includedir=${prefix}/include/cudagen"),
                Some("libdir") => set("libdir=${prefix}/lib"),
                _ => l.to_string(),
            }
        })
        .filter(|l| !l.starts_with('#'))
        .collect();
    if seen != 3 {
        bail!("cudagen.pc: expected prefix, includedir and libdir lines, found {seen}");
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_installed_pc_points_inside_its_prefix() {
        let pc = "# pkg-config file of libcudagen. Paths are relative\n#   PKG_CONFIG_PATH=x\nprefix=${pcfiledir}\nincludedir=${prefix}/include\nlibdir=${prefix}/../../target/release\n\nName: cudagen\nLibs: -L${libdir} -lcudagen\n";
        let out = super::installed_pc(pc).unwrap();
        assert!(out.contains("prefix=${pcfiledir}/../..\n") && out.contains("includedir=${prefix}/include/cudagen\n"), "{out}");
        assert!(out.contains("libdir=${prefix}/lib\n") && out.contains("Libs: -L${libdir} -lcudagen"), "{out}");
        assert!(!out.contains("target/release") && !out.contains("PKG_CONFIG_PATH"), "{out}");
        assert!(super::installed_pc("Name: x\n").is_err());
        assert!(!out.contains('#'), "the in-tree comments stay in the tree: {out}");
        assert_eq!(super::major_of("Name: x\nVersion: 12.9\n").unwrap(), 12);
        assert!(super::major_of("Name: x\n").is_err());
    }
}
