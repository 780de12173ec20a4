//! `raw_fn!`: the body of one raw C entry point in a `sys` module, written once here so each
//! generated symbol is a short invocation instead of five hand-expanded functions.
//!
//! One invocation defines, next to the module's `TABLE`:
//! - the `pub unsafe fn` itself: a jump to the entry once it is resolved and tracing is known to
//!   be off, to `traced` when tracing is known to be on, else (the first call, a missing entry)
//!   to the cold `slow` fn; a few loads and compares before the jump, no frame;
//! - `call` (`pub(crate)`, used by the typed layer): resolves the entry (`Err` on a loader
//!   failure) and traces the call when tracing is on;
//! - `slow` (cold): runs `call` under `catch_unwind`, so the raw fn never unwinds (a panic becomes
//!   `on_panic`), and maps a loader failure to `on_load_error`, traced like any other call;
//! - `traced` (C calling convention, the function's own parameters): opens the call's trace
//!   record (`trace::open`), calls the entry and records it, the one traced path of `pub fn` and
//!   `call`; nothing it runs unwinds (`trace::finish` catches), so the raw fn needs no guard;
//! - `desc`: the symbol's static `trace::Desc` (argument names, how each word is shown, the
//!   enums' decoders);
//! - `record` (inlined into `traced` and `slow`): records the call for the tracer as one word
//!   per argument and one for the result (outputs read after the call); both the traced call
//!   and the traced loader failure use it.
//!
//! The word expressions name the parameters, the result (`|__r, ..|`) and the mask of written
//! outputs (`|.., __w|`) with the caller's identifiers, so they are passed in as expressions and
//! evaluated where those names are bound. The expansion's `TABLE` is the invoking module's.

#[macro_export]
macro_rules! raw_fn {
    (
        $(#[$attr:meta])*
        fn $name:ident($($p:ident: $t:ty),*) -> $ret:ty = $index:literal;
        helpers $call:ident, $slow:ident, $traced:ident, $record:ident, $desc:ident;
        trace |$r:ident, $w:ident| $names:literal [$($arg:expr => $word:expr),* $(,)?] => $rkind:expr, $rword:expr;
        enums [$($enum:path),* $(,)?];
        on_load_error |$e:ident| $on_load:expr;
        on_panic $on_panic:expr;
    ) => {
        $(#[$attr])*
        #[inline]
        pub unsafe fn $name($($p: $t),*) -> $ret {
            type F = unsafe extern "C" fn($($t),*) -> $ret;
            // One call site, reached with the caller's arguments untouched, so it is a jump
            // (LLVM makes only one of several calls with stack arguments a jump).
            let to: F = match (TABLE.peek($index), $crate::trace::known()) {
                (Some(p), Some(false)) => ::core::mem::transmute::<*const ::core::ffi::c_void, F>(p),
                (Some(_), Some(true)) => $traced,
                _ => $slow,
            };
            to($($p),*)
        }

        #[inline(always)]
        pub(crate) unsafe fn $call($($p: $t),*) -> ::core::result::Result<$ret, $crate::loader::LoadError> {
            type F = unsafe extern "C" fn($($t),*) -> $ret;
            let f = ::core::mem::transmute::<*const ::core::ffi::c_void, F>(TABLE.get($index)?);
            if $crate::trace::active() {
                return Ok($traced($($p),*));
            }
            Ok(f($($p),*))
        }

        /// Never unwinds (C calling convention, so the raw fn can jump to it).
        #[cold]
        #[inline(never)]
        unsafe extern "C" fn $slow($($p: $t),*) -> $ret {
            match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $call($($p),*))) {
                Ok(Ok(r)) => r,
                Ok(Err($e)) => {
                    let r = $on_load;
                    if $crate::trace::active() {
                        $record($($p,)* r, $crate::trace::enter());
                    }
                    r
                }
                Err(_) => $on_panic,
            }
        }

        /// A traced call of an entry already resolved. It finds the pointer itself and has the
        /// C function's parameters and calling convention, so that an exported C function can
        /// jump to it (no frame of its own, no arguments copied). Never unwinds.
        #[inline(never)]
        unsafe extern "C" fn $traced($($p: $t),*) -> $ret {
            type F = unsafe extern "C" fn($($t),*) -> $ret;
            let Some(p) = TABLE.peek($index) else { return $slow($($p),*) };
            let f = ::core::mem::transmute::<*const ::core::ffi::c_void, F>(p);
            let entered = $crate::trace::open(&$desc);
            let $r = f($($p),*);
            $record($($p,)* $r, entered);
            $r
        }

        #[allow(non_upper_case_globals)]
        static $desc: $crate::trace::Desc = $crate::trace::Desc::new(concat!(stringify!($name), ",", $names), &[$($arg),*], $rkind, &[$($enum),*]);

        #[inline(always)]
        #[allow(unused_variables, unused_mut)]
        unsafe fn $record($($p: $t,)* $r: $ret, entered: $crate::trace::Entered) {
            $crate::trace::finish(&$desc, entered, || {
                let mut $w = 0u64;
                let words = [$($word,)* $rword];
                (words, $w)
            });
        }
    };
}
