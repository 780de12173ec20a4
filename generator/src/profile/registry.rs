//! The libraries this process knows: every `<root>/<id>/library.toml` of the roots loaded, each
//! kept for the life of the process. Unless a root is loaded first, the first question loads the
//! repository's `libraries/`.

use super::{LibraryProfile, Resolve};
use crate::diag::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// A library cudagen binds, by its profile. Equal by id, ordered by the profiles' `order`.
#[derive(Clone, Copy)]
pub struct LibraryKind(&'static LibraryProfile);

static LOADED: RwLock<Vec<&'static LibraryProfile>> = RwLock::new(Vec::new());

/// The folder of library folders in this repository.
pub(super) fn default_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../libraries")
}

/// Loading and listing the library folders.
pub struct Registry;

impl Registry {
    /// Loads every library folder under `root` (a folder holding `library.toml`), in `order`;
    /// a folder already loaded is not read again. Two folders of one id, or two libraries of
    /// one module, variant or marker, are an error.
    pub fn load_root(root: &Path) -> Result<Vec<LibraryKind>> {
        let mut found = Vec::new();
        let entries = std::fs::read_dir(root).map_err(|e| Error::new(format!("{}: {e}", root.display())))?;
        for entry in entries {
            let dir = entry.map_err(|e| Error::new(format!("{}: {e}", root.display())))?.path();
            if dir.join("library.toml").is_file() {
                found.push(dir.canonicalize().map_err(|e| Error::new(format!("{}: {e}", dir.display())))?);
            }
        }
        let mut loaded = LOADED.write().unwrap_or_else(|e| e.into_inner());
        let mut kinds = Vec::new();
        for dir in found {
            if let Some(p) = loaded.iter().find(|p| p.dir == dir) {
                kinds.push(LibraryKind(p));
                continue;
            }
            let profile = read(&dir)?;
            check(&profile, &loaded)?;
            let profile: &'static LibraryProfile = Box::leak(Box::new(profile));
            loaded.push(profile);
            kinds.push(LibraryKind(profile));
        }
        loaded.sort_by_key(|p| LibraryKind(p));
        kinds.sort();
        Ok(kinds)
    }

    /// Every library loaded, in order (the repository's `libraries/` if none was).
    pub fn all() -> Vec<LibraryKind> {
        if LOADED.read().unwrap_or_else(|e| e.into_inner()).is_empty() {
            let root = default_root();
            Registry::load_root(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
        }
        LOADED.read().unwrap_or_else(|e| e.into_inner()).iter().map(|p| LibraryKind(p)).collect()
    }

    /// The library of id `id`.
    pub fn get(id: &str) -> Option<LibraryKind> {
        Registry::all().into_iter().find(|k| k.id() == id)
    }
}

/// The profile in `dir/library.toml`, its id the folder's name.
fn read(dir: &Path) -> Result<LibraryProfile> {
    let path = dir.join("library.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    let mut p: LibraryProfile = toml::from_str(&text).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    p.id = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    p.dir = dir.to_path_buf();
    let problem = if !(p.callconv.is_empty() || p.callconv.ends_with(' ')) {
        Some("`callconv` must be empty or end with a space")
    } else if p.resolver.is_some() != (p.loader.resolve == Resolve::GetProcAddress) {
        Some("a `resolver` goes with `loader.resolve = \"get_proc_address\"` and only with it")
    } else {
        None
    };
    match problem {
        Some(why) => Err(Error::new(format!("{}: {why}", path.display()))),
        None => Ok(p),
    }
}

/// `p` shares no id, module, variant, override variable or marker with a loaded library.
fn check(p: &LibraryProfile, loaded: &[&'static LibraryProfile]) -> Result<()> {
    let same = |q: &LibraryProfile| {
        [
            ("id", p.id == q.id),
            ("module", p.module == q.module),
            ("variant", p.variant == q.variant),
            ("loader.override_var", p.loader.override_var == q.loader.override_var),
            ("c_marker", p.c_marker == q.c_marker),
        ]
        .into_iter()
        .find(|(_, same)| *same)
        .map(|(what, _)| what)
    };
    match loaded.iter().find_map(|q| Some((q, same(q)?))) {
        Some((q, what)) => {
            Err(Error::new(format!("{} has the {what} of {}: every library's must be its own", p.dir.display(), q.dir.display())))
        }
        None => Ok(()),
    }
}

impl LibraryKind {
    /// This library's profile.
    pub fn profile(self) -> &'static LibraryProfile {
        self.0
    }
    /// The library's id, its folder's name (`driver`, `nvjitlink`).
    pub fn id(self) -> &'static str {
        &self.0.id
    }
    /// Surface module name (`driver`, `nvrtc`).
    pub fn module(self) -> &'static str {
        &self.0.module
    }
    /// Prefix stripped from function names for the typed surfaces.
    pub fn prefix(self) -> &'static str {
        &self.0.prefix
    }
    /// Every library, in order ([`Registry::all`]).
    pub fn all() -> impl Iterator<Item = LibraryKind> {
        Registry::all().into_iter()
    }
}

impl LibraryProfile {
    /// The library this profile describes (a profile the registry holds).
    pub fn kind(&'static self) -> LibraryKind {
        LibraryKind(self)
    }
}

impl PartialEq for LibraryKind {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}
impl Eq for LibraryKind {}

impl Ord for LibraryKind {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.0.order, self.id()).cmp(&(other.0.order, other.id()))
    }
}
impl PartialOrd for LibraryKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for LibraryKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id().hash(state)
    }
}

impl std::fmt::Debug for LibraryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for LibraryKind {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for LibraryKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Registry::get(&id).ok_or_else(|| serde::de::Error::custom(format!("no library `{id}` is loaded")))
    }
}

/// The loaded library `id`, for tests.
#[cfg(test)]
pub(crate) fn kind(id: &str) -> LibraryKind {
    Registry::get(id).unwrap_or_else(|| panic!("no library `{id}` in libraries/"))
}
