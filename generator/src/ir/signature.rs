//! The signature of a function as the typed surfaces see it: one [`ParamKind`] per parameter and
//! one [`ReturnKind`] per function, decided once by `passes::signature` from the roles, the C
//! types and the links the earlier passes made. Renderers match on these kinds; they never look
//! at C type text or names to decide.

use super::{CallbackUse, SizeLink, Type};
use serde::{Deserialize, Serialize};

/// How the typed surfaces take one parameter, with every link a renderer needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ParamKind {
    /// By value (integer, enum, handle, record): passed as is.
    #[default]
    Value,
    /// A C callback: passed as is in Rust; a callable stands for it where `callback` says how.
    Callback { callback: CallbackUse },
    /// Opaque user data handed back to a callback; `carries` names the callback parameter whose
    /// callable it carries to the trampoline, if any.
    UserData { carries: Option<String> },
    /// An address the typed surfaces pass through (host memory, anything opaque): raw in Rust;
    /// `size` is what the IR knows of the bytes behind it.
    Address { size: Option<SizeLink> },
    /// The role cannot be typed for the C type: passed through as is (see [`Unfit`]).
    Unfit { why: Unfit },
    /// One value the callee reads (`&T`, `Option<&T>` when nullable).
    InRef { pointee: Pointee, nullable: bool },
    /// One value the callee reads and updates (`&mut T`).
    InOutRef { pointee: Pointee, nullable: bool },
    /// One value the callee writes: returned. `untyped`: the C pointer is `void *` and `pointee`
    /// the type written through it (`Param::written`), so the typed surfaces cast their pointer.
    OutValue {
        pointee: Pointee,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        untyped: bool,
    },
    /// A NUL-terminated string the callee reads; `is_const` is the C pointer's `const`.
    CstrIn { nullable: bool, is_const: bool },
    /// A `const char **` the callee points at a static string: returned as a string.
    CstrOut,
    /// An array the callee reads.
    InArray { elem: Pointee, nullable: bool, count: Count },
    /// Bytes the callee reads (a `const void *` or `const char *` input counted by a computed byte
    /// size: nvJitLink's data, NVVM IR): `&[u8]`.
    InBytes { nullable: bool, count: Count },
    /// An array of NUL-terminated strings the callee reads.
    CstrArray { nullable: bool, is_const: bool, count: Count },
    /// An array the callee fills; `reads` when it also reads what the caller put there.
    OutArray { elem: Pointee, nullable: bool, count: Count, reads: bool },
    /// Caller-allocated bytes the callee fills (`string`: a NUL-terminated string), returned;
    /// `alloc` bytes are allocated where no size query says how many.
    OutBuffer { string: bool, alloc: u32, size: BufferSize },
    /// A count computed from what it counts (the slices and buffers in `counts`, in order).
    Length { counts: Vec<Counted> },
    /// `void *` to one value whose C type the enum parameter `selector` chooses from the member
    /// table of enum `table` (`Library::value_table`); read by the callee.
    SelectedIn { selector: String, table: String, is_const: bool },
    /// As [`ParamKind::SelectedIn`], written by the callee (returned).
    SelectedOut { selector: String, table: String, is_const: bool },
    /// The byte size of the selected value `of`, set from the member's size: passed by value, or
    /// (`by_pointer`) an in/out `size_t *`.
    SelectedLen { of: String, by_pointer: bool },
    /// `void **`: one value per element of the enum array `selectors` (member table of `table`),
    /// each of the type its element selects; `sizes` names the array of their byte sizes. Raw in
    /// Rust (the element types differ).
    SelectedList { selectors: String, table: String, sizes: Option<String> },
}

/// The C type a typed pointer points to, and whether the C pointer is `const`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pointee {
    pub ty: Type,
    pub is_const: bool,
}

/// Why a parameter's role cannot be typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unfit {
    /// The role does not fit the C type (a `void` pointee for a typed reference, ...): a raw
    /// pointer, the caller's promise.
    RoleType,
    /// A count of nothing the typed surfaces take as a slice: the caller passes it.
    NothingCounted,
}

/// The count parameter of an array or buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by")]
pub enum Count {
    /// No count parameter: the callee's documentation bounds the array.
    #[default]
    None,
    /// A by-value count the typed surfaces compute ([`ParamKind::Length`]).
    Computed { param: String },
    /// A count the caller passes (an in/out `size_t *`, ...): not checked against the array.
    Passed { param: String },
}

impl Count {
    /// The count parameter, if any.
    pub fn param(&self) -> Option<&str> {
        match self {
            Count::None => None,
            Count::Computed { param } | Count::Passed { param } => Some(param),
        }
    }
}

/// One thing a [`ParamKind::Length`] counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "param")]
pub enum Counted {
    /// A slice argument.
    Slice(String),
    /// A slice argument that may be absent (nullable).
    OptionalSlice(String),
    /// A buffer the typed surface allocates ([`ParamKind::OutBuffer`]).
    Buffer(String),
}

/// How many bytes an output buffer gets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum BufferSize {
    /// As many as a size query reports (two-call pattern: `nvrtcGetPTXSize` for `nvrtcGetPTX`).
    Query { query: SizeQuery },
    /// The size function `function` (ABI symbol `symbol`; its name when the library lacks it)
    /// cannot be called for it (`why`): `alloc` bytes instead.
    BadQuery { function: String, symbol: String, why: String },
    /// Its count parameter.
    Count { count: Count },
    /// A fixed capacity (annotation).
    Capacity,
    /// Nothing bounds what the callee writes: the caller's promise.
    Unbounded,
}

impl BufferSize {
    /// The ABI symbol of the size function, callable or not (`None`: sized otherwise).
    pub fn query_symbol(&self) -> Option<&str> {
        match self {
            BufferSize::Query { query } => Some(&query.symbol),
            BufferSize::BadQuery { symbol, .. } => Some(symbol),
            BufferSize::Count { .. } | BufferSize::Capacity | BufferSize::Unbounded => None,
        }
    }
}

/// The call of a size query: the function, its ABI symbol, the C type of the size it writes, and
/// its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeQuery {
    pub function: String,
    pub symbol: String,
    pub size_ty: Type,
    pub args: Vec<QueryArg>,
}

/// One argument of a size query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "arg", content = "param")]
pub enum QueryArg {
    /// Where the size is written.
    Size,
    /// The same-named by-value parameter of the function.
    Param(String),
}

impl ParamKind {
    /// True when the parameter's validity is the caller's promise (a raw pointer, a callback, a
    /// count not computed from the slice it sizes): the typed binding is `unsafe`.
    pub fn caller_promise(&self) -> bool {
        match self {
            ParamKind::Callback { .. }
            | ParamKind::UserData { .. }
            | ParamKind::Address { .. }
            | ParamKind::SelectedList { .. } => true,
            ParamKind::Unfit { why } => *why == Unfit::RoleType,
            ParamKind::InArray { count, .. } | ParamKind::CstrArray { count, .. } | ParamKind::OutArray { count, .. } => {
                !matches!(count, Count::Computed { .. })
            }
            ParamKind::OutBuffer { size, .. } => match size {
                BufferSize::Unbounded => true,
                BufferSize::Count { count } => !matches!(count, Count::Computed { .. }),
                BufferSize::Query { .. } | BufferSize::BadQuery { .. } | BufferSize::Capacity => false,
            },
            _ => false,
        }
    }
}

/// Why a typed binding is `unsafe`: one reason per parameter or per resource it ends, decided by
/// `passes::signature` (parameters) and `passes::ownership` (enders). A safe fn never takes an
/// address whose validity the caller must promise, and never ends what an owned type may own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "why")]
pub enum Unsafety {
    /// The parameter's validity is the caller's promise ([`ParamKind::caller_promise`]): a raw
    /// pointer, a callback, a count not computed from the slice it sizes.
    Promise { param: String },
    /// The call acts on device memory through the device address(es) the parameter holds (by
    /// value or in the array or value it points to): that memory must be live. A call that only
    /// asks about an address (every input plain, some output returned) is not.
    DeviceAddress { param: String },
    /// The parameter is, points to or lists a record whose field `field` (a path through nested
    /// records: `kernel.kernelParams`) holds an address or a function pointer the call uses.
    Record { param: String, field: String },
    /// The call ends what the parameter holds: a `resource` of `passes::ownership`, or (`None`) a
    /// call that looks like an ender and pairs with none (excused there).
    Ends { resource: Option<String> },
    /// The call hands out work captured from a stream (a graph), which replays on memory and
    /// modules nothing keeps alive (the safe layer's capture borrows them instead).
    Captured,
}

impl Unsafety {
    /// One short line for tables and snapshots: `ends(Stream)`, `device(dptr)`,
    /// `record(pCopy.dstHost)`, `promise(p)`.
    pub fn short(&self) -> String {
        match self {
            Unsafety::Promise { param } => format!("promise({param})"),
            Unsafety::DeviceAddress { param } => format!("device({param})"),
            Unsafety::Record { param, field } => format!("record({param}.{field})"),
            Unsafety::Ends { resource } => format!("ends({})", resource.as_deref().unwrap_or("excused")),
            Unsafety::Captured => "captured".into(),
        }
    }

    /// The `# Safety` line of a typed binding for this reason (Markdown).
    pub fn safety_line(&self) -> String {
        match self {
            Unsafety::Promise { param } => {
                format!(
                    "`{param}` must be valid as the C API documents (a raw pointer, callback or count the caller vouches for)."
                )
            }
            Unsafety::DeviceAddress { param } => {
                format!("The device memory `{param}` addresses must be live (not freed) and free of other use for as long as the call (or the work it enqueues) touches it.")
            }
            Unsafety::Record { param, field } => {
                format!("Every address in `{param}` (`{field}` and the like) must point to live memory, and every function pointer there be callable, for as long as the call or the work it makes uses them.")
            }
            Unsafety::Ends { resource: Some(r) } => {
                format!("It ends a `{r}`: nothing may use or end that handle afterwards (an owned `{r}` ends its own on drop).")
            }
            Unsafety::Ends { resource: None } => {
                "It ends or invalidates what its arguments hold (memory, mappings or state): nothing may use that afterwards."
                    .into()
            }
            Unsafety::Captured => "The graph it returns replays the captured work: every buffer, module and event that work uses must outlive the graph and every executable made from it.".into(),
        }
    }
}

impl super::Function {
    /// Records one more reason for the typed binding to be `unsafe` (each reason once).
    pub fn mark_unsafe(&mut self, why: Unsafety) {
        if !self.unsafe_because.contains(&why) {
            self.unsafe_because.push(why);
        }
        self.needs_unsafe = true;
    }
}

/// What a function returns, and so what it returns when the call cannot run (library or entry
/// missing, a caught panic).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReturnKind {
    /// The library's status enum, spelled as such: typed surfaces return `Result<outputs>`; a
    /// call that cannot run returns the library's own codes (`Library::status_codes`).
    #[default]
    Status,
    /// `const char *` to a static string: a fixed message when the call cannot run.
    StaticCstr,
    /// Another pointer: null when the call cannot run.
    Pointer,
    /// Any other value: zeroed when the call cannot run.
    Value,
    Void,
}

/// How the C shim exports a function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "export")]
pub enum Export {
    /// Forwarded to the `cudagen` crate's `sys` function.
    #[default]
    Forward,
    /// The library's entry resolver (the profile's `resolver`): the shim answers it itself, so
    /// that the entries it hands out are the shim's (traced). `ptsz_wrapper`: NVIDIA's header
    /// gives per-thread builds an inline `_ptsz` wrapper of this ABI.
    Resolver { ptsz_wrapper: bool },
}

impl Export {
    pub fn is_forward(&self) -> bool {
        *self == Export::Forward
    }
}
