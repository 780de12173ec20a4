//! Interleaved sampling, medians, paired differences and the printed table.

/// Warm-up rounds (every path, not recorded) before the samples.
const WARMUP: usize = 3;

/// One op's samples: `per_path[p][i]` is path p's ns per repetition in sample i; paths in
/// table order (typed, safe, cudarc, cudarc-noev), typed the baseline of the differences.
pub struct Row {
    pub per_path: [Vec<f64>; 4],
}

/// Runs each path once per sample, forward on even samples and reversed on odd ones.
pub fn sample(samples: usize, mut paths: [&mut dyn FnMut() -> f64; 4]) -> Row {
    for _ in 0..WARMUP {
        paths.iter_mut().for_each(|p| {
            p();
        });
    }
    let mut per_path: [Vec<f64>; 4] = std::array::from_fn(|_| Vec::with_capacity(samples));
    for i in 0..samples {
        let mut order = [0, 1, 2, 3];
        if i % 2 == 1 {
            order.reverse();
        }
        for p in order {
            per_path[p].push(paths[p]());
        }
    }
    Row { per_path }
}

pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The median over samples of `path - typed`.
fn paired(row: &Row, path: usize) -> f64 {
    let d: Vec<f64> = row.per_path[path].iter().zip(&row.per_path[0]).map(|(p, t)| p - t).collect();
    median(&d)
}

pub fn header() {
    println!(
        "{:<16} {:>10} {:>10} {:>10} {:>11} | {:>10} {:>10} {:>11}",
        "op (ns per op)", "typed", "safe", "cudarc", "cudarc-noev", "safe-typ", "cudarc-typ", "noev-typ"
    );
}

pub fn print_row(name: &str, row: &Row) {
    let m: Vec<f64> = row.per_path.iter().map(|v| median(v)).collect();
    println!(
        "{name:<16} {:>10.0} {:>10.0} {:>10.0} {:>11.0} | {:>+10.0} {:>+10.0} {:>+11.0}",
        m[0],
        m[1],
        m[2],
        m[3],
        paired(row, 1),
        paired(row, 2),
        paired(row, 3)
    );
}

pub fn size_name(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}Mi", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{}Ki", n >> 10),
        n => n.to_string(),
    }
}

/// Deterministic pseudo-random floats in [0, 1) (xorshift).
pub fn floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}
