//! What the writer knows of handles: names of functions, kernels, modules and libraries, the
//! module a function came from, short ids of streams, events, graphs and contexts (in the order
//! first seen), the allocations device pointers fall in, the nodes added to each graph.
//!
//! Names are learned from the calls that made the handles (`cuModuleGetFunction`'s name and
//! output, a module's file name or image hash, ...: every call whose `Desc` says it
//! [`learns`](super::Desc)). A drain learns from every pending call before it formats any, so a
//! function made on one thread and launched on another is named whichever chunk comes first.
//! A function or kernel still unnamed when formatted (made by the runtime's own loading, by an
//! enumeration, or in a chunk the drain had not reached yet) is asked of the driver once
//! (`cuFuncGetName`, `cuKernelGetName`, 12.3+), on the writer thread; C++ names are demangled
//! with the C++ runtime's `__cxa_demangle` when the process has one.

use super::buffer::Event;
use super::{driver, Class, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

/// One named or parented handle.
struct Object {
    /// What the trace shows for it (`saxpy`, `data@1a2b3c4d`), if known.
    label: Option<Box<str>>,
    /// The module or library a function or kernel came from; the graph of an executable graph
    /// or node (0: not known).
    parent: u64,
}

#[derive(Default)]
pub(super) struct Names {
    objects: HashMap<u64, Object>,
    ids: HashMap<(Class, u64), u32>,
    next: HashMap<Class, u32>,
    /// Start -> length of each allocation seen.
    allocs: BTreeMap<u64, u64>,
    /// Handles asked of the driver already.
    asked: HashSet<u64>,
    /// Graph -> nodes added to it by traced calls.
    nodes: HashMap<u64, u32>,
}

/// The writer's names (one set for the process; the drains and the synchronous writes share it).
pub(super) static NAMES: Mutex<Option<Names>> = Mutex::new(None);

/// What a handle is shown as.
pub(super) enum Label<'n> {
    /// A named function, kernel, module or library, with its module's or library's name.
    Name(&'n str, Option<&'n str>),
    /// A numbered stream, event, graph or context: its class's prefix and id.
    Id(&'static str, u32),
    /// Nothing known: the value alone.
    Plain,
}

/// The prefix of a numbered class's ids (`stream#3`); `None` for the named classes.
fn prefix(class: Class) -> Option<&'static str> {
    Some(match class {
        Class::Stream => "stream",
        Class::Event => "event",
        Class::Graph => "graph",
        Class::GraphExec => "graphExec",
        Class::GraphNode => "graphNode",
        Class::Context => "context",
        _ => return None,
    })
}

fn succeeded(result: &Value<'_>) -> bool {
    matches!(result, Value::Enum { value: 0, .. } | Value::Str(None))
}

impl Names {
    /// Learns what a successful call says of the handles it made: names, parents, allocations.
    /// Learning a call twice changes nothing.
    pub(super) fn learn(&mut self, ev: &Event<'_>) {
        let Some(desc) = ev.desc else { return };
        if !desc.learns || !succeeded(&ev.result) {
            return;
        }
        let (mut string, mut image, mut size, mut container, mut source) = (None, None, None, None, None);
        for ((_, v), a) in ev.args.iter().zip(desc.args) {
            match *v {
                Value::Str(Some(s)) if string.is_none() => string = Some(s.to_bytes()),
                Value::Image(h) if image.is_none() => image = Some(h),
                Value::Size(x) if size.is_none() => size = Some(x),
                Value::Handle { class: Class::Module | Class::Library | Class::Graph, addr } if !a.out && container.is_none() => {
                    container = Some(addr)
                }
                Value::Handle { class: Class::Function | Class::Kernel, addr } if !a.out && source.is_none() => {
                    source = Some(addr)
                }
                _ => {}
            }
        }
        for ((_, v), a) in ev.args.iter().zip(desc.args) {
            let Value::Handle { class, addr } = *v else { continue };
            if !a.out {
                continue;
            }
            let from_source = || source.and_then(|s| self.objects.get(&s));
            let (label, parent): (Option<Box<str>>, u64) = match class {
                Class::Function | Class::Kernel => match (string, from_source()) {
                    (Some(s), _) => (Some(pretty(s)), container.unwrap_or(0)),
                    (None, Some(o)) => (o.label.clone(), o.parent),
                    (None, None) => continue,
                },
                Class::Module | Class::Library => {
                    let named = |h: u64| self.objects.get(&h).and_then(|o| o.label.clone());
                    let label = string
                        .map(|s| file_name(s).into())
                        .or(image.map(|h| format!("data@{:08x}", (h ^ (h >> 32)) as u32).into()))
                        .or_else(|| container.and_then(named))
                        .or_else(|| from_source().and_then(|o| named(o.parent)));
                    (label, 0)
                }
                Class::GraphExec | Class::GraphNode => (None, container.unwrap_or(0)),
                Class::DevicePtr => {
                    if let Some(size) = size.filter(|&n| n > 0 && addr != 0) {
                        self.allocs.insert(addr, size);
                    }
                    continue;
                }
                _ => continue,
            };
            if label.is_some() || parent != 0 {
                self.objects.insert(addr, Object { label, parent });
            }
        }
    }

    /// Everything a formatted call tells: what [`Names::learn`] learns, ids for the numbered
    /// handles it shows, nodes added to graphs; with `ask`, unnamed functions and kernels it
    /// shows are asked of the driver (once each).
    pub(super) fn observe(&mut self, ev: &Event<'_>, ask: bool) {
        self.learn(ev);
        let ok = succeeded(&ev.result);
        let args = ev.args.iter().zip(ev.desc.map_or(&[][..], |d| d.args).iter().map(Some).chain(std::iter::repeat(None)));
        for ((_, v), a) in args {
            let Value::Handle { class, addr } = *v else { continue };
            if addr <= 0xff {
                continue;
            }
            if prefix(class).is_some() {
                let n = self.next.entry(class).or_insert(0);
                self.ids.entry((class, addr)).or_insert_with(|| {
                    *n += 1;
                    *n
                });
            }
            let out = a.is_some_and(|a| a.out);
            if class == Class::GraphNode && out && ok {
                if let Some(g) = self.objects.get(&addr).map(|o| o.parent).filter(|&g| g != 0) {
                    *self.nodes.entry(g).or_insert(0) += 1;
                }
            }
            if ask
                && !out
                && matches!(class, Class::Function | Class::Kernel)
                && !self.objects.contains_key(&addr)
                && self.asked.insert(addr)
            {
                self.ask(class, addr);
            }
        }
    }

    /// Asks the driver for a function's or kernel's name (and a function's module).
    fn ask(&mut self, class: Class, addr: u64) {
        let Some(name) = driver::name_of(addr, class == Class::Kernel) else { return };
        let parent = if class == Class::Function { driver::module_of(addr).unwrap_or(0) } else { 0 };
        self.objects.insert(addr, Object { label: Some(pretty(&name)), parent });
    }

    /// How handle `addr` of `class` is shown.
    pub(super) fn label(&self, class: Class, addr: u64) -> Label<'_> {
        if let Some(p) = prefix(class) {
            return self.ids.get(&(class, addr)).map_or(Label::Plain, |&id| Label::Id(p, id));
        }
        let named = |h: u64| self.objects.get(&h).and_then(|o| o.label.as_deref());
        match self.objects.get(&addr) {
            Some(Object { label: Some(l), parent }) => Label::Name(l, named(*parent)),
            _ => Label::Plain,
        }
    }

    /// Whether `addr` is inside an allocation the trace saw.
    pub(super) fn is_device(&self, addr: u64) -> bool {
        self.allocs.range(..=addr).next_back().is_some_and(|(start, len)| addr - start < *len)
    }

    /// The graph an executable graph was made from and its nodes added by traced calls.
    pub(super) fn graph_of(&self, exec: u64) -> (Option<u32>, Option<u32>) {
        let g = self.objects.get(&exec).map_or(0, |o| o.parent);
        let id = self.ids.get(&(Class::Graph, g)).copied();
        (id, self.nodes.get(&g).copied())
    }
}

/// The last part of a path.
fn file_name(path: &[u8]) -> String {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    String::from_utf8_lossy(name).into_owned()
}

/// A function's name as shown: demangled when it is a C++ name (without its parameters and
/// its `void` result), else as it is.
pub(super) fn pretty(raw: &[u8]) -> Box<str> {
    let text = String::from_utf8_lossy(raw);
    if !raw.starts_with(b"_Z") {
        return text.into();
    }
    let Some(full) = demangle::demangle(raw) else { return text.into() };
    short(&full).into()
}

/// `void ns::k<float>(float*, int)` -> `ns::k<float>`.
fn short(full: &str) -> &str {
    let mut s = full.trim_end();
    if s.ends_with(')') {
        let mut depth = 0i32;
        for (i, c) in s.char_indices().rev() {
            depth += match c {
                ')' => 1,
                '(' => -1,
                _ => 0,
            };
            if depth == 0 {
                s = &s[..i];
                break;
            }
        }
    }
    s.strip_prefix("void ").unwrap_or(s).trim()
}

/// `__cxa_demangle` of the C++ runtime the process has loaded (else of `libstdc++.so.6`, opened
/// for it), found once.
mod demangle {
    use core::ffi::{c_char, c_int, c_void};
    use std::sync::OnceLock;

    type Demangle = unsafe extern "C" fn(*const c_char, *mut c_char, *mut usize, *mut c_int) -> *mut c_char;
    type Free = unsafe extern "C" fn(*mut c_void);

    fn functions() -> Option<(Demangle, Free)> {
        static F: OnceLock<Option<(Demangle, Free)>> = OnceLock::new();
        *F.get_or_init(|| {
            let this = libloading::os::unix::Library::this();
            // SAFETY: symbols of the C and C++ runtimes with these prototypes.
            unsafe {
                let free = *this.get::<Free>(b"free\0").ok()?;
                let demangle = match this.get::<Demangle>(b"__cxa_demangle\0") {
                    Ok(d) => *d,
                    Err(_) => {
                        let lib = libloading::os::unix::Library::new("libstdc++.so.6").ok()?;
                        let d = *lib.get::<Demangle>(b"__cxa_demangle\0").ok()?;
                        // Kept open for the process, like the driver.
                        std::mem::forget(lib);
                        d
                    }
                };
                Some((demangle, free))
            }
        })
    }

    /// The demangled form of a mangled C++ name, if the runtime can make one.
    pub(super) fn demangle(mangled: &[u8]) -> Option<String> {
        let (demangle, free) = functions()?;
        let name = std::ffi::CString::new(mangled).ok()?;
        let mut status: c_int = -1;
        // SAFETY: a NUL-terminated name; NULL buffer: the runtime allocates the result.
        let out = unsafe { demangle(name.as_ptr(), core::ptr::null_mut(), core::ptr::null_mut(), &mut status) };
        if out.is_null() {
            return None;
        }
        // SAFETY: a NUL-terminated string the runtime allocated with malloc, freed once.
        let s = unsafe { core::ffi::CStr::from_ptr(out) }.to_string_lossy().into_owned();
        unsafe { free(out.cast()) };
        (status == 0).then_some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shortened() {
        assert_eq!(short("void axpy<float>(float, float const*, float*, int)"), "axpy<float>");
        assert_eq!(short("void (anonymous namespace)::k(void (*)(int), int)"), "(anonymous namespace)::k");
        assert_eq!(short("saxpy"), "saxpy");
        assert_eq!(&*pretty(b"saxpy"), "saxpy");
        assert_eq!(file_name(b"/tmp/x/k.cubin"), "k.cubin");
        // The test binary links the C++ runtime only where Rust's std does; demangle if we can.
        if let Some(d) = demangle::demangle(b"_Z5saxpyfPKfPfi") {
            assert_eq!(d, "saxpy(float, float const*, float*, int)");
            assert_eq!(&*pretty(b"_Z5saxpyfPKfPfi"), "saxpy");
        }
    }

    #[test]
    fn allocations_contain_addresses() {
        let mut n = Names::default();
        n.allocs.insert(0x1000, 0x100);
        assert!(n.is_device(0x1000) && n.is_device(0x10ff));
        assert!(!n.is_device(0x1100) && !n.is_device(0xfff));
    }
}
