//! `headers/versions.toml`: CUDA version -> NVIDIA wheels and header hashes.

use crate::paths;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Table {
    pub cuda: Vec<Entry>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct Entry {
    pub minor: String,
    /// pip requirement (`name==version`) of each wheel the libraries' `fetch` tables name, by
    /// key (a library's id, or `profiler` for the wheel its companions share). A library whose
    /// wheel a release lacks is not fetched for it.
    pub wheels: BTreeMap<String, String>,
    /// Header file name -> sha256.
    #[serde(default)]
    pub sha256: BTreeMap<String, String>,
}

impl Entry {
    /// The requirement of the wheel `key`, if the release has it.
    pub fn wheel(&self, key: &str) -> Option<&str> {
        self.wheels.get(key).map(String::as_str)
    }
    /// The version of each wheel (`12.9.79`).
    fn versions(&self) -> impl Iterator<Item = &str> {
        self.wheels.values().map(|w| w.split("==").nth(1).unwrap_or(""))
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

    /// Resolves `12.9` (a minor) or `12.9.79` (the full version of one of its wheels).
    pub fn resolve(&self, version: &str) -> Result<&Entry> {
        if let Some(e) = self.cuda.iter().find(|e| e.minor == version) {
            return Ok(e);
        }
        if let Some(e) = self.cuda.iter().find(|e| e.versions().any(|v| v == version)) {
            return Ok(e);
        }
        let minor: String = version.split('.').take(2).collect::<Vec<_>>().join(".");
        if minor == "12.7" {
            bail!("CUDA 12.7 was never released (NVIDIA went from 12.6 to 12.8); pick 12.6 or 12.8");
        }
        let known: Vec<&str> = self.cuda.iter().map(|e| e.minor.as_str()).collect();
        bail!("CUDA {version} is not a release this cudagen knows; known: {}", known.join(", "))
    }

    /// The file's text, with the explanatory header.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "# CUDA version -> NVIDIA pip wheels holding its headers, and the sha256 of each header.\n\
             # `cargo xtask regen --cuda 12.9` resolves a minor here (a full version of one of its wheels also works).\n\
             # Refresh hashes after editing wheel versions: `cargo xtask versions --update`.\n\
             # CUDA 12.7 was never released.\n",
        );
        for e in &self.cuda {
            let _ = write!(s, "\n[[cuda]]\nminor = \"{}\"\n[cuda.wheels]\n", e.minor);
            for (key, value) in &e.wheels {
                let _ = writeln!(s, "{key} = \"{value}\"");
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

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "[[cuda]]\nminor = \"12.9\"\n[cuda.wheels]\nruntime = \"nvidia-cuda-runtime-cu12==12.9.79\"\nnvrtc = \"nvidia-cuda-nvrtc-cu12==12.9.86\"\nprofiler = \"nvidia-cuda-profiler-api-cu12==12.9.79\"\n[cuda.sha256]\n\"cuda.h\" = \"ab\"\n";

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
            let required = crate::wheels::required_headers(&crate::libraries().unwrap());
            assert!(required.iter().all(|h| e.sha256.contains_key(h)), "{m} lacks header hashes");
            // 13.x wheels dropped the `-cu12` suffix.
            let suffix = if m.starts_with("12.") { "-cu12==" } else { "==" };
            for (key, wheel) in [("runtime", "nvidia-cuda-runtime"), ("nvrtc", "nvidia-cuda-nvrtc")] {
                let w = e.wheel(key).unwrap_or_default();
                assert!(w.starts_with(&format!("{wheel}{suffix}{m}.")), "{m}: {w}");
            }
        }
        let listed: Vec<&str> = t.cuda.iter().map(|e| e.minor.as_str()).collect();
        assert!(listed.starts_with(&minors), "oldest first, no gaps: {listed:?}");
    }
}
