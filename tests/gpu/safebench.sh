#!/usr/bin/env bash
# Issue #24: what cudagen's safe Rust layer costs, beside its typed layer and cudarc's safe API,
# on the GPU machine. Runs .carry/safebench/safebench (tests/gpu/bench_safe), built here with
#   CARGO_TARGET_DIR=/work/tgt/<name> cargo build --release --manifest-path tests/gpu/bench_safe/Cargo.toml
#   mkdir -p .carry/safebench && cp "$CARGO_TARGET_DIR/release/safebench" .carry/safebench/
# Builds nothing here. Rows (ns per op, medians of SAFEBENCH_SAMPLES interleaved samples, default
# 41; the last three columns are medians of paired differences with the typed layer):
#   saxpy N          alloc x, y + copy both in + SAXPY + copy y out + free + synchronize
#   launch (5 args)  an empty kernel with 3 buffers, batches of 256 + one synchronize
#   alloc0+free 1Ki  a zeroed 1Ki-float buffer allocated and freed, batches of 256 + one sync
# Columns: typed (cudagen::driver, unsafe raw calls), safe (cudagen::safe), cudarc (0.19.10 safe
# API on a new_stream, event tracking on, its default), cudarc-noev (event tracking off).
# The whole binary runs SAFEBENCH_RUNS times (default 3) to show the spread between runs.
# Prints one SKIP line and exits 0 where no CUDA driver or device exists. Log: $OUT/safebench.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=.carry/safebench/safebench
out=${OUT:-/tmp}
log=$out/safebench.log
mkdir -p "$out"
: > "$log"
[ -x "$bin" ] || { echo "safebench: $bin missing: build it here (see this script's header) and carry .carry/safebench" | tee -a "$log"; exit 2; }

# No driver: the binary says so in one line (cuInit through cudagen's loader); check first
# without it too, so a crashing binary is not mistaken for a missing driver.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [ -z "${CUDAGEN_LIBCUDA:-}" ] \
  && ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib/aarch64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 \
    /usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/wsl/lib/libcuda.so.1 /usr/local/cuda/compat/libcuda.so.1 >/dev/null 2>&1; then
  echo "safebench: SKIP no CUDA driver here (libcuda.so.1 not found); nothing run" | tee -a "$log"
  exit 0
fi

runs=${SAFEBENCH_RUNS:-3}
fails=0
for r in $(seq 1 "$runs"); do
  echo "=== run $r of $runs" | tee -a "$log"
  timeout 300 "$bin" "${SAFEBENCH_SAMPLES:-41}" > "$out/safebench.$r.out" 2>&1
  rc=$?
  cat "$out/safebench.$r.out" >> "$log"
  if grep -q '^safebench: SKIP' "$out/safebench.$r.out"; then
    grep '^safebench: SKIP' "$out/safebench.$r.out"
    exit 0
  fi
  # The table (header, rows) and the verdict.
  grep -E '^(safebench:|op |saxpy |launch |alloc0|check: .*WRONG|RESULT)' "$out/safebench.$r.out"
  [ "$rc" = 0 ] && grep -q '^RESULT: PASS' "$out/safebench.$r.out" || { echo "run $r: FAIL (exit $rc)"; fails=$((fails + 1)); }
done
echo "safebench: $runs runs, $fails failed (full log $log)"
[ "$fails" = 0 ]
