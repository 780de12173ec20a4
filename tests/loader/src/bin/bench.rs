//! Hot-path micro-benchmark: `cargo run --release --bin bench` (builds the fake driver with gcc).
//! Prints the median ns/call over many rounds.

use cudagen_loader_tests::{build_fake, loader::*, trace};
use std::hint::black_box;
use std::time::Instant;

static ENTRIES: [Entry; 1] = [Entry {
    symbol: "cuFake",
    proc_name: "cuFake",
    version: 3020,
    per_thread: false,
    fallbacks: &[],
}];
static TABLE: Table<1> = Table::new(DRIVER, &ENTRIES);

const ROUNDS: usize = 41;
const ITERS: u32 = 2_000_000;

fn median(mut f: impl FnMut() -> u64) -> f64 {
    let mut v: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_nanos() as f64 / ITERS as f64
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[ROUNDS / 2]
}

/// What a generated wrapper does: table lookup, trace check, call.
#[inline(never)]
fn wrapper(x: i32) -> i32 {
    match TABLE.get(0) {
        Ok(p) => {
            let f: unsafe extern "C" fn(i32) -> i32 = unsafe { std::mem::transmute(p) };
            if trace::active() {
                let t = Instant::now();
                let r = unsafe { f(x) };
                trace::record(
                    "cuFake",
                    &[("x", trace::Value::I64(x as i64))],
                    trace::Value::I64(r as i64),
                    t.elapsed(),
                );
                r
            } else {
                unsafe { f(x) }
            }
        }
        Err(_) => -1,
    }
}

fn main() {
    let dir = std::env::temp_dir().join("cudagen-loader-bench");
    let so = build_fake("fake_driver", &dir, "libfakecuda.so");
    std::env::set_var("CUDAGEN_LIBCUDA", &so);
    std::env::remove_var("CUDAGEN_TRACE");
    std::env::remove_var("CUDAGEN_TRACE_FILE");
    let p = TABLE.get(0).expect("fake driver");
    let direct: unsafe extern "C" fn(i32) -> i32 = unsafe { std::mem::transmute(p) };
    assert!(!trace::active());

    let get = median(|| {
        let mut acc = 0usize;
        for _ in 0..ITERS {
            acc = acc.wrapping_add(black_box(TABLE.get(black_box(0)).map_or(0, |p| p as usize)));
        }
        acc as u64
    });
    let active = median(|| {
        let mut n = 0u64;
        for _ in 0..ITERS {
            n += black_box(trace::active()) as u64;
        }
        n
    });
    let both = median(|| {
        let mut acc = 0usize;
        for _ in 0..ITERS {
            let p = black_box(TABLE.get(black_box(0)).map_or(0, |p| p as usize));
            acc = acc.wrapping_add(p + black_box(trace::active()) as usize);
        }
        acc as u64
    });
    let call_direct = median(|| {
        let mut acc = 0i64;
        for i in 0..ITERS {
            acc += unsafe { black_box(direct)(i as i32) } as i64;
        }
        acc as u64
    });
    let call_wrapped = median(|| {
        let mut acc = 0i64;
        for i in 0..ITERS {
            acc += wrapper(black_box(i as i32)) as i64;
        }
        acc as u64
    });
    println!("Table::get (resolved slot):          {get:.2} ns/call");
    println!("trace::active() (off):               {active:.2} ns/call");
    println!("Table::get + trace::active():        {both:.2} ns/call");
    println!("direct call through fn pointer:      {call_direct:.2} ns/call");
    println!(
        "generated-style wrapper (get+check+call, #[inline(never)]): {call_wrapped:.2} ns/call"
    );
    println!(
        "overhead wrapper vs direct:          {:.2} ns/call",
        call_wrapped - call_direct
    );
}
