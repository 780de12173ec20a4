//! Per-library annotation files (`libraries/driver/annotations.toml`, ...).
//!
//! Annotations are keyed by function and parameter NAME, never by position. They override the
//! header's doc comments and the type heuristics. An annotation that names nothing in the header
//! is an error (checked by `passes::params`), unless its `[since]`/`[until]` range says the
//! header's CUDA version lacks that function (or `function.parameter`, for a parameter NVIDIA
//! renamed); a range that says so of a name the header declares is an error too, so the ranges
//! stay true for every release.
//!
//! ```toml
//! [functions.cuDeviceGetName]
//! name = { role = "out_buffer", len = "len", string = true, capacity = 256 }
//!
//! [handles]
//! scalar = ["CUdevice"]        # integer typedefs that are handles
//! not_scalar = ["cuuint32_t"]  # integer typedefs that are plain numbers
//! ```

use crate::diag::{Error, Result};
use crate::ir::{CallbackKind, Direction, Library, LibraryKind, Location, TraceClass, TraceUse};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Annotations of every library, each from its profile's annotation file.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    pub libraries: BTreeMap<LibraryKind, LibraryAnnotations>,
}

impl Annotations {
    /// Loads the annotation file of each library of `kinds` (its folder's `annotations.toml`,
    /// optional).
    pub fn load(kinds: impl IntoIterator<Item = LibraryKind>) -> Result<Self> {
        let mut libraries = BTreeMap::new();
        for k in kinds {
            libraries.insert(k, LibraryAnnotations::load_optional(&k.profile().annotations_file())?);
        }
        Ok(Annotations { libraries })
    }

    /// The annotations of `kind` (empty when its file is absent).
    pub fn of(&self, kind: LibraryKind) -> &LibraryAnnotations {
        static EMPTY: std::sync::OnceLock<LibraryAnnotations> = std::sync::OnceLock::new();
        self.libraries.get(&kind).unwrap_or_else(|| EMPTY.get_or_init(LibraryAnnotations::default))
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryAnnotations {
    /// Function name -> parameter name -> annotation.
    #[serde(default)]
    pub functions: BTreeMap<String, BTreeMap<String, ParamAnnotation>>,
    #[serde(default)]
    pub handles: HandleAnnotations,
    #[serde(default)]
    pub foreign_handles: ForeignHandles,
    /// Selector enum -> member -> C type of the value it selects (`"CUcontext"`, `"bool"`,
    /// `"unsigned long long"`, `"int[]"`, `"char[1024]"`); read by `selected_value` parameters.
    #[serde(default)]
    pub value_types: BTreeMap<String, BTreeMap<String, String>>,
    /// Function name -> CUDA version (`"12.4"`) that introduced it: annotations of a function
    /// absent from older headers are not errors there.
    #[serde(default)]
    pub since: BTreeMap<String, String>,
    /// Function name -> CUDA version that removed it: not an error in newer headers.
    #[serde(default)]
    pub until: BTreeMap<String, String>,
    /// Function name -> why the Python surface may keep the GIL across the call: it only reads
    /// constants of the library (no lock, no wait, no callback), so releasing and retaking the
    /// GIL would be its whole cost. Every other call releases it.
    #[serde(default)]
    pub keep_gil: BTreeMap<String, String>,
    /// Function name -> what it does to an object's life (`passes::ownership`).
    #[serde(default)]
    pub ownership: BTreeMap<String, OwnershipAnnotation>,
    /// What the tracer names, numbers and reads beyond the values it prints (`passes::trace`).
    #[serde(default)]
    pub trace: TraceAnnotations,
    /// Where a kernel's argument pointer array is (`passes::python`).
    #[serde(default)]
    pub kernel_params: KernelParamsAnnotations,
    /// `"record.field"` -> why it is read-only in Python: cuda.bindings gives the field no setter
    /// (the library fills it: `CUuuid.bytes`), so setting it raises AttributeError there
    /// (`passes::python`).
    #[serde(default)]
    pub read_only_fields: BTreeMap<String, String>,
    /// Which trampoline stands for each C callback and which calls release a kept callable
    /// (`passes::callbacks`).
    #[serde(default)]
    pub callbacks: CallbackAnnotations,
    /// The file these came from and its text, for error locations.
    #[serde(skip)]
    pub file: String,
    #[serde(skip)]
    text: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandleAnnotations {
    #[serde(default)]
    pub scalar: Vec<String>,
    #[serde(default)]
    pub not_scalar: Vec<String>,
    /// Handle typedef -> the handle typedefs the C API takes in its place (`CUfunction` ->
    /// `["CUkernel"]`).
    #[serde(default)]
    pub stand_ins: BTreeMap<String, Vec<String>>,
}

/// `[kernel_params]`: the `void **` parameters (`"function.parameter"`) and record fields
/// (`"record.field"`) holding a kernel's argument pointers; Python takes a buffer of pointers or
/// (values, types) there. Each must exist (unless its `[since]`/`[until]` range says otherwise).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelParamsAnnotations {
    #[serde(default)]
    pub params: Vec<String>,
    #[serde(default)]
    pub fields: Vec<String>,
}

/// `[trace.handles]`: handle typedef -> the class the tracer shows it as (`CUfunction` ->
/// `"function"`); `[trace.params]`: `"function.parameter"` -> what the tracer does with it
/// (`"image"`, `"kernel_params"`, `"launch_extra"`, `"launched"`, `"frees"`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceAnnotations {
    #[serde(default)]
    pub handles: BTreeMap<String, TraceClass>,
    #[serde(default)]
    pub params: BTreeMap<String, TraceUse>,
}

/// `[callbacks.typedefs]`: callback typedef -> the trampoline a callable stands behind
/// (`CUhostFn = "host"`); `[callbacks.functions]`: the same by function, for a callback declared
/// without a typedef; `[callbacks.releases]`: calls after which the library no longer calls a
/// kept callable.
///
/// ```toml
/// [callbacks.releases]
/// cuLogsUnregisterCallback = { callback = "logs", key = "callback" }
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallbackAnnotations {
    #[serde(default)]
    pub typedefs: BTreeMap<String, CallbackKind>,
    #[serde(default)]
    pub functions: BTreeMap<String, CallbackKind>,
    #[serde(default)]
    pub releases: BTreeMap<String, ReleaseAnnotation>,
}

/// One `[callbacks.releases]` entry: the kind of callable released and the parameter holding the
/// key it was kept under.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseAnnotation {
    pub callback: CallbackKind,
    pub key: String,
}

/// NVIDIA's Python classes that hold the C type of one of our handles (`[foreign_handles]`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForeignHandles {
    /// Modules whose classes named like our handles hold their C type (`cuda.bindings.driver`).
    #[serde(default)]
    pub same_names: Vec<String>,
    /// Qualified class name -> our handle typedef of the same C type.
    #[serde(default)]
    pub classes: BTreeMap<String, String>,
}

/// What `[ownership]` says of one function: exactly one of `ends`, `creates`, `excused`.
///
/// ```toml
/// cuStreamDestroy = { ends = "CUstream" }
/// cuDevicePrimaryCtxRelease = { ends = "CUcontext", name = "PrimaryContext" }
/// cuModuleGetFunction = { creates = "CUfunction", parent = "CUmodule" }
/// cuCtxResetPersistingL2Cache = { excused = "resets a cache; ends no object" }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnershipAnnotation {
    /// The call ends the life of a handle of this C type (`"CUstream"`, `"void*"`).
    pub ends: Option<String>,
    /// The call creates a handle of this C type.
    pub creates: Option<String>,
    /// Why the call, though it looks like an ender, pairs with nothing.
    pub excused: Option<String>,
    /// With `excused`: the call ends and invalidates nothing (a query, a trim of cached memory),
    /// so its typed binding need not be `unsafe` as an ender's is.
    pub harmless: Option<bool>,
    /// With `creates`: the handle it creates holds work captured from a stream, which replays on
    /// memory and modules the handle does not keep alive, so its typed binding is `unsafe`.
    pub captured: Option<bool>,
    /// Name of the owned type, where several resources share a handle type.
    pub name: Option<String>,
    /// Handle type of a resource this one must not outlive (the owned type borrows it).
    pub parent: Option<String>,
    /// With `ends`: false when the parent owns the handle, so `Drop` does not end it.
    pub owned: Option<bool>,
    /// With `ends`: ender parameter -> the creators' parameter that gives it, where names differ.
    #[serde(default)]
    pub keep: BTreeMap<String, String>,
}

/// What an annotation says of one parameter; unset fields keep the generator's decision.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamAnnotation {
    pub direction: Option<Direction>,
    /// One of the [`crate::ir::Role`] names in snake_case (`out_value`, `in_array`, ...).
    pub role: Option<String>,
    /// The count/size parameter of an array or buffer.
    pub len: Option<String>,
    pub nullable: Option<bool>,
    /// For `out_buffer`: contents are a NUL-terminated string.
    pub string: Option<bool>,
    /// For `out_buffer`: function that reports the size to allocate.
    pub size_from: Option<String>,
    /// For `out_buffer`: size the typed surfaces allocate.
    pub capacity: Option<u32>,
    /// For `selected_value`: the enum parameter that chooses the value's type; for
    /// `selected_values`: the enum array parameter.
    pub selector: Option<String>,
    /// For `selected_values`: the array of byte sizes.
    pub sizes: Option<String>,
    /// For `out_value` of an untyped `void *`: the C type the callee writes there (`"void*"`,
    /// `"CUdeviceptr"`, `"unsigned int"`), which the typed surfaces return.
    pub writes: Option<String>,
}

impl LibraryAnnotations {
    pub fn load_optional(path: &Path) -> Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&path.display().to_string(), &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(Error::new(format!("{}: {e}", path.display()))),
        }
    }

    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let mut a: LibraryAnnotations = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
            Error::at(Location { file: file.to_string(), line }, e.message().to_string())
        })?;
        a.file = file.to_string();
        a.text = text.to_string();
        for (table, map) in [("since", &a.since), ("until", &a.until)] {
            for (function, v) in map {
                if parse_version(v).is_none() {
                    return Err(Error::at(
                        a.range_location(table, function),
                        format!("[{table}] {function}: `{v}` is not a CUDA version like \"12.4\""),
                    ));
                }
            }
        }
        Ok(a)
    }

    /// True when `function` may be absent from headers of `cuda_version` (e.g. 12000): older than
    /// its `[since]` version or at least its `[until]` version.
    pub fn may_be_absent(&self, function: &str, cuda_version: Option<u32>) -> bool {
        let Some(have) = cuda_version else { return false };
        let since = self.since.get(function).and_then(|v| parse_version(v));
        let until = self.until.get(function).and_then(|v| parse_version(v));
        since.is_some_and(|s| have < s) || until.is_some_and(|u| have >= u)
    }

    /// The `[since]`/`[until]` entries that the header of `cuda_version` contradicts: a name it
    /// declares although its range says it is absent (see [`declares`]).
    pub fn range_errors(&self, cuda_version: Option<u32>, lib: &Library) -> Vec<Error> {
        let Some(have) = cuda_version else { return Vec::new() };
        let mut errors = Vec::new();
        for (table, map) in [("since", &self.since), ("until", &self.until)] {
            for (function, v) in map {
                let Some(edge) = parse_version(v) else { continue };
                let (absent, says) =
                    if table == "since" { (have < edge, "arrived in") } else { (have >= edge, "was removed in") };
                if absent && declares(lib, function) {
                    errors.push(Error::at(
                        self.range_location(table, function),
                        format!("[{table}] says `{function}` {says} CUDA {v}, but the {} header declares it", version_text(have)),
                    ));
                }
            }
        }
        errors
    }

    /// The line of `name = ...` (or `"name" = ...`) inside the `[table]` section.
    pub fn range_location(&self, table: &str, name: &str) -> Location {
        let start = self.text.find(&format!("[{table}]")).unwrap_or(0);
        let line = [format!("\n{name} ="), format!("\n\"{name}\" =")]
            .iter()
            .find_map(|key| self.text[start..].find(key.as_str()))
            .map(|off| line_of(&self.text, start + off + 1))
            .unwrap_or(0);
        Location { file: self.file.clone(), line }
    }

    /// The line of the list item `"item"` inside the `[table]` section.
    pub fn item_location(&self, table: &str, item: &str) -> Location {
        let start = self.text.find(&format!("[{table}]")).unwrap_or(0);
        let line = self.text[start..].find(&format!("\"{item}\"")).map_or(0, |off| line_of(&self.text, start + off));
        Location { file: self.file.clone(), line }
    }

    /// Best location for an annotation of `function` (the line of its table header).
    pub fn location_of(&self, function: &str) -> Location {
        let line = ["[functions.", "functions.", "[value_types."]
            .iter()
            .find_map(|p| self.text.find(&format!("{p}{function}")))
            .map(|off| line_of(&self.text, off))
            .unwrap_or(0);
        Location { file: self.file.clone(), line }
    }
}

fn line_of(text: &str, offset: usize) -> u32 {
    text[..offset.min(text.len())].bytes().filter(|&b| b == b'\n').count() as u32 + 1
}

/// Whether `lib` declares what a `[since]`/`[until]` key names: a function (API name or ABI
/// symbol), `function.parameter`, an enum, `enum.member`, `record.field` or a typedef.
pub fn declares(lib: &Library, name: &str) -> bool {
    let function = |n: &str| lib.functions.iter().find(|f| f.name == n || f.symbol == n);
    match name.split_once('.') {
        None => function(name).is_some() || lib.enum_named(name).is_some() || lib.typedef(name).is_some(),
        Some((outer, inner)) => {
            function(outer).is_some_and(|f| f.param(inner).is_some())
                || lib.enum_named(outer).is_some_and(|e| e.variants.iter().any(|v| v.name == inner))
                || lib.records.iter().any(|r| r.name == outer && r.fields.iter().any(|f| f.name == inner))
        }
    }
}

/// 12040 -> `"12.4"`.
fn version_text(v: u32) -> String {
    format!("{}.{}", v / 1000, v % 1000 / 10)
}

/// `"12.4"` -> 12040 (the `CUDA_VERSION` encoding).
pub fn parse_version(v: &str) -> Option<u32> {
    let mut it = v.split('.');
    let major: u32 = it.next()?.parse().ok()?;
    let minor: u32 = it.next().unwrap_or("0").parse().ok()?;
    Some(major * 1000 + minor * 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[functions.f]\nx = { nullable = true }\n\n[since]\nf = \"12.8\"\n\n[until]\ng = \"13.0\"\n";

    #[test]
    fn ranges_say_when_a_function_may_be_absent() {
        let a = LibraryAnnotations::parse("a.toml", TEXT).unwrap();
        assert!(a.may_be_absent("f", Some(12060)));
        assert!(!a.may_be_absent("f", Some(12080)));
        assert!(a.may_be_absent("g", Some(13020)));
        assert!(!a.may_be_absent("g", Some(12090)));
        assert!(!a.may_be_absent("h", Some(12000)));
    }

    /// A library declaring the functions `names` (`f(x)` gives `f` a parameter `x`).
    fn lib(names: &[&str]) -> Library {
        use crate::ir::*;
        let mut lib = Library::new(crate::profile::kind("driver"));
        for n in names {
            let (name, param) = n.split_once('(').map_or((*n, None), |(a, b)| (a, Some(b.trim_end_matches(')'))));
            let params = param.into_iter().map(|p| crate::passes::build::param(p, Type::prim(Prim::Int), Role::Value)).collect();
            lib.functions.push(crate::passes::build::function(name, params));
        }
        lib
    }

    #[test]
    fn a_range_the_header_contradicts_is_an_error() {
        let a = LibraryAnnotations::parse("a.toml", TEXT).unwrap();
        assert!(a.range_errors(Some(12060), &lib(&[])).is_empty());
        assert!(a.range_errors(Some(12090), &lib(&["f", "g"])).is_empty());
        let e = a.range_errors(Some(12060), &lib(&["f"]));
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].to_string(), "a.toml:5: [since] says `f` arrived in CUDA 12.8, but the 12.6 header declares it");
        let e = a.range_errors(Some(13000), &lib(&["g"]));
        assert_eq!(e[0].location.as_ref().unwrap().line, 8, "{}", e[0]);
    }

    #[test]
    fn a_renamed_parameter_has_a_range_of_its_own() {
        let a = LibraryAnnotations::parse("a.toml", "[since]\n\"s.remainder\" = \"13.1\"\n[until]\n\"s.remaining\" = \"13.1\"\n")
            .unwrap();
        assert!(a.may_be_absent("s.remainder", Some(12090)) && a.may_be_absent("s.remaining", Some(13010)));
        assert!(a.range_errors(Some(12090), &lib(&["s(remaining)"])).is_empty());
        assert!(a.range_errors(Some(13010), &lib(&["s(remainder)"])).is_empty());
        let e = a.range_errors(Some(13010), &lib(&["s(remaining)"]));
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(
            e[0].to_string(),
            "a.toml:4: [until] says `s.remaining` was removed in CUDA 13.1, but the 13.1 header declares it"
        );
    }

    #[test]
    fn a_range_must_name_a_version() {
        let e = LibraryAnnotations::parse("a.toml", "[since]\nf = \"soon\"\n").unwrap_err();
        assert!(e.to_string().starts_with("a.toml:2: [since] f: `soon` is not a CUDA version"), "{e}");
    }
}
