//! [`LibraryKind`]: which library a table resolves from, with the facts of its
//! [`Profile`]. The generated crate renders one constant per library from the generator's
//! profiles (`cudagen::loader::DRIVER`, `NVRTC`, ...); the loader itself holds no per-library fact.

use core::fmt;

/// The most libraries one process may know (the loader keeps one state per slot).
pub const MAX_LIBRARIES: usize = 32;

/// How a library's entries are resolved once it is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolve {
    /// `cuGetProcAddress_v2` (else `cuGetProcAddress`, else `dlsym`); the library is the driver.
    GetProcAddress,
    /// `dlsym` of the ABI symbol.
    Dlsym,
}

/// Where one library is looked for and how its entries are resolved.
#[derive(Debug)]
pub struct Profile {
    /// Default sonames, in order.
    pub sonames: &'static [&'static str],
    /// Variable naming the library's exact path (it then is the only candidate).
    pub override_var: &'static str,
    /// `:`-separated folder lists searched first.
    pub path_vars: &'static [&'static str],
    /// Toolkit roots whose `home_lib` folder is searched next.
    pub home_vars: &'static [&'static str],
    /// The folder under each toolkit root (`lib64`, `nvvm/lib64`).
    pub home_lib: &'static str,
    /// Fixed folders searched next.
    pub dirs: &'static [&'static str],
    /// Folders under each Python site folder searched last.
    pub wheel_dirs: &'static [&'static str],
    pub resolve: Resolve,
    /// Skip a candidate that is the cudagen C shim.
    pub skip_shim: bool,
    /// File-name prefixes of libraries it `dlopen`s by bare name, opened first from its folder.
    pub companions: &'static [&'static str],
    /// NVIDIA's pip distribution carrying the library for these headers (empty: none).
    pub pip: &'static str,
}

/// One library the loader knows: its slot (the process keeps one opened library per slot), its
/// name in messages and `Debug` (`Nvrtc`) and its profile. Equal when the slots are.
#[derive(Clone, Copy)]
pub struct LibraryKind {
    slot: usize,
    name: &'static str,
    profile: &'static Profile,
}

impl LibraryKind {
    /// The library in `slot` (below [`MAX_LIBRARIES`]; a larger one fails to compile in a const).
    pub const fn new(slot: usize, name: &'static str, profile: &'static Profile) -> Self {
        assert!(slot < MAX_LIBRARIES, "cudagen: library slot out of range");
        Self { slot, name, profile }
    }

    /// Sonames used by [`Table::new`](super::Table::new); override per table with
    /// [`Table::with_sonames`](super::Table::with_sonames).
    pub const fn default_sonames(self) -> &'static [&'static str] {
        self.profile.sonames
    }

    /// Where the library is looked for and how its entries resolve.
    pub const fn profile(self) -> &'static Profile {
        self.profile
    }

    /// The name messages use (`Driver`, `Nvrtc`).
    pub const fn name(self) -> &'static str {
        self.name
    }

    pub(crate) const fn slot(self) -> usize {
        self.slot
    }
}

impl PartialEq for LibraryKind {
    fn eq(&self, other: &Self) -> bool {
        self.slot == other.slot
    }
}

impl Eq for LibraryKind {}

impl fmt::Debug for LibraryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A driver-like and an NVRTC-like profile for the loader's unit tests.
    pub(crate) const DRIVER: LibraryKind = LibraryKind::new(
        0,
        "Driver",
        &Profile {
            sonames: &["libcuda.so.1"],
            override_var: "CUDAGEN_LIBCUDA",
            path_vars: &["LD_LIBRARY_PATH"],
            home_vars: &[],
            home_lib: "lib64",
            dirs: &["/usr/lib/x86_64-linux-gnu", "/usr/lib64"],
            wheel_dirs: &[],
            resolve: Resolve::GetProcAddress,
            skip_shim: true,
            companions: &[],
            pip: "",
        },
    );
    pub(crate) const NVRTC: LibraryKind = LibraryKind::new(
        1,
        "Nvrtc",
        &Profile {
            sonames: &["libnvrtc.so.12"],
            override_var: "CUDAGEN_NVRTC_PATH",
            path_vars: &[],
            home_vars: &["CUDA_HOME"],
            home_lib: "lib64",
            dirs: &["/usr/local/cuda/lib64"],
            wheel_dirs: &["nvidia/cuda_nvrtc/lib"],
            resolve: Resolve::Dlsym,
            skip_shim: false,
            companions: &["libnvrtc-builtins.so."],
            pip: "nvidia-cuda-nvrtc-cu12",
        },
    );

    #[test]
    fn kinds_are_equal_by_slot_and_show_their_name() {
        assert_eq!(DRIVER, DRIVER);
        assert_ne!(DRIVER, NVRTC);
        assert_eq!(format!("{NVRTC:?}"), "Nvrtc");
        assert_eq!(DRIVER.default_sonames(), ["libcuda.so.1"]);
    }
}
