//! The generated owned handles (`cudagen::safe::{Stream, PrimaryContext, Module, Function}`)
//! against a fake libcuda (`tests/loader/fake/fake_owned_driver.c`, built with gcc), so it runs
//! without a GPU: each create is ended exactly once by drop, `into_raw` skips the end, a failing
//! end is kept for `take_drop_errors`, kept values reach the end call, binds push and pop, a
//! constructor refuses a context that is not current. Each scenario runs in its own process
//! (the loader is process-wide).

use cudagen::driver::{CUdevice, CUresult};
use cudagen::loader::{Entry, Table, DRIVER};
use cudagen::safe::{take_drop_errors, Error, Launchable, Module, PrimaryContext, Stream};
use std::ffi::{c_char, c_long, CString};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// Builds the fake once per test process.
fn fake_lib() -> PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| cudagen_tests::fake_libcuda("fake_owned_driver", env!("CARGO_TARGET_TMPDIR").as_ref())).clone()
}

/// In the parent: re-runs this binary for test `name` alone with the fake driver and `envs`,
/// and checks it passed. In the child (`CUDAGEN_TEST_CHILD` set): returns false.
fn parent_runs(name: &str, envs: &[(&str, &str)]) -> bool {
    if std::env::var_os("CUDAGEN_TEST_CHILD").is_some() {
        return false;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("CUDAGEN_TEST_CHILD", "1")
        .env("CUDAGEN_LIBCUDA", fake_lib())
        .env_remove("CUDAGEN_TRACE")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "child {name} failed:\n{text}");
    true
}

static FAKE_ENTRIES: [Entry; 1] = [Entry::new("cuFakeCount", "cuFakeCount", 0, false)];
static FAKE: Table<1> = Table::new(DRIVER, &FAKE_ENTRIES);

/// A primary context of the fake, bound for the rest of the process (its guard is leaked).
fn bound_context() -> &'static PrimaryContext {
    let ctx = Box::leak(Box::new(PrimaryContext::retain(CUdevice::from(0)).unwrap()));
    std::mem::forget(ctx.bind().unwrap());
    ctx
}

/// How often the fake saw `name` called (or one of its records).
fn calls(name: &str) -> i64 {
    let f: unsafe extern "C" fn(*const c_char) -> c_long = unsafe { std::mem::transmute(FAKE.get(0).unwrap()) };
    let name = CString::new(name).unwrap();
    unsafe { f(name.as_ptr()) as i64 }
}

#[test]
fn a_dropped_stream_is_destroyed_exactly_once() {
    if parent_runs("a_dropped_stream_is_destroyed_exactly_once", &[]) {
        return;
    }
    let ctx = bound_context();
    let s = Stream::create(ctx, 0).unwrap();
    assert_eq!((calls("cuStreamCreate"), calls("cuStreamDestroy")), (1, 0));
    s.synchronize().unwrap();
    assert_eq!(calls("cuStreamSynchronize"), 1, "a method calls the typed layer with the handle");
    drop(s);
    assert_eq!(calls("cuStreamDestroy"), 1);
    Stream::create(ctx, 0).unwrap().destroy().unwrap();
    assert_eq!((calls("cuStreamCreate"), calls("cuStreamDestroy")), (2, 2), "destroy ends it once, drop does not again");
    assert!(take_drop_errors().is_empty());
}

#[test]
fn into_raw_skips_the_destroy() {
    if parent_runs("into_raw_skips_the_destroy", &[]) {
        return;
    }
    let ctx = bound_context();
    let s = Stream::create(ctx, 0).unwrap();
    // SAFETY: the context outlives both uses of the handle.
    let raw = unsafe { s.as_raw() };
    assert_eq!(unsafe { s.into_raw() }, raw);
    assert_eq!(calls("cuStreamDestroy"), 0, "into_raw gives the handle up without ending it");
    drop(unsafe { Stream::from_raw(raw) });
    assert_eq!(calls("cuStreamDestroy"), 1, "from_raw takes it over again");
}

#[test]
fn a_failing_destroy_is_recorded_or_returned() {
    if parent_runs("a_failing_destroy_is_recorded_or_returned", &[("FAKE_DESTROY_FAILS", "1")]) {
        return;
    }
    let ctx = bound_context();
    drop(Stream::create(ctx, 0).unwrap());
    let errors = take_drop_errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "Stream");
    let Error::Driver(e) = &errors[0].1 else { panic!("{:?}", errors[0].1) };
    assert_eq!(e.code(), CUresult(400));
    assert!(take_drop_errors().is_empty(), "taken once");
    let e = Stream::create(ctx, 0).unwrap().destroy().unwrap_err();
    assert_eq!(e.code(), CUresult(400), "destroy returns the error");
    assert!(take_drop_errors().is_empty(), "and records nothing");
    assert_eq!(calls("cuStreamDestroy"), 2);
}

#[test]
fn a_primary_context_keeps_its_device_and_binds_for_a_scope() {
    if parent_runs("a_primary_context_keeps_its_device_and_binds_for_a_scope", &[]) {
        return;
    }
    let ctx = PrimaryContext::retain(CUdevice::from(3)).unwrap();
    {
        let _bound = ctx.bind().unwrap();
        assert_eq!((calls("cuCtxPushCurrent"), calls("cuCtxPopCurrent")), (1, 0));
    }
    assert_eq!(calls("cuCtxPopCurrent"), 1, "the guard pops on drop");
    drop(ctx);
    assert_eq!(
        (calls("cuDevicePrimaryCtxRelease"), calls("lastReleasedDevice")),
        (1, 3),
        "released with the device it was retained on"
    );
}

#[test]
fn a_function_borrows_its_module() {
    if parent_runs("a_function_borrows_its_module", &[]) {
        return;
    }
    let ctx = bound_context();
    let module = unsafe { Module::load_data(ctx, c"image".as_ptr().cast()) }.unwrap();
    let f = module.get_function(c"k").unwrap();
    // SAFETY: compared only, while `f` lives.
    assert_eq!(unsafe { f.raw_function() }, unsafe { f.as_raw() }, "a function is launchable by the safe layer");
    assert!(unsafe { f.raw_kernel() }.is_none());
    drop(f);
    assert_eq!(calls("cuModuleUnload"), 0, "dropping a function ends nothing");
    drop(module);
    assert_eq!(calls("cuModuleUnload"), 1);
}

/// The threading rules the pass decided, as the compiler sees them.
#[test]
fn owned_types_cross_threads_as_documented() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Stream<'static>>();
    send_sync::<cudagen::safe::Event<'static>>();
    send_sync::<Module<'static>>();
    send_sync::<cudagen::safe::Function<'static>>();
    send_sync::<PrimaryContext>();
    send_sync::<cudagen::safe::Context>();
    send_sync::<cudagen::safe::DeviceMemory<'static>>();
    send_sync::<cudagen::safe::MemoryPool>();
    send::<cudagen::safe::Graph>();
    send::<cudagen::safe::Program>();
}

#[test]
fn a_constructor_takes_the_current_context_only() {
    if parent_runs("a_constructor_takes_the_current_context_only", &[]) {
        return;
    }
    let ctx = PrimaryContext::retain(CUdevice::from(0)).unwrap();
    let e = Stream::create(&ctx, 0).unwrap_err();
    assert!(matches!(e, Error::NotCurrent { current: false }), "{e:?}");
    assert!(e.to_string().starts_with("no context is current on the calling thread"), "{e}");
    let other = PrimaryContext::retain(CUdevice::from(1)).unwrap();
    let bound = other.bind().unwrap();
    let e = Stream::create(&ctx, 0).unwrap_err();
    assert!(matches!(e, Error::NotCurrent { current: true }), "{e:?}");
    assert_eq!(calls("cuStreamCreate"), 0, "a refused constructor creates nothing");
    let s = Stream::create(&other, 0).unwrap();
    assert_eq!((calls("cuCtxGetCurrent"), calls("cuStreamCreate")), (3, 1), "one current-context check per constructor");
    // The stream borrows `other`: it must be dropped before the context (the compiler refuses
    // the other order; see the compile_fail examples in tests/lib.rs).
    drop(s);
    drop(bound);
    drop(other);
}
