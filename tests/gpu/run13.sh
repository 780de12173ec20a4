#!/usr/bin/env bash
# Issue #12's GPU checks: output generated from CUDA 13.x headers on the GPU machine's CUDA 13.0
# driver. Runs there over .carry/v13 (built here by tests/gpu/bundle13.sh); builds no Rust (gpu.sh
# compiles its C programs with gcc/nvcc). Full log: $OUT/gpu13.log; the programs' own outputs and
# traces: $OUT/gpu13-files.tgz. A PASS/FAIL table with key lines is printed last; exit 0 only when
# no row fails (a SKIP row does not fail).
#   rust-saxpy-13.0        tests/gpu/saxpy13 built against the 13.0 crate: RESULT: PASS
#   rust-13.5-on-13.0      the same built against the 13.5 crate with cuDeviceGetCliqueCount
#                          (CUDA 13.4): the loader's error naming 13.4, no crash, then RESULT: PASS
#   py13.0-seedNNN         tests/python/seeds/seedNNN.py on the 13.0 module (installed into its
#                          own --target folder), rewritten to the 13.x call forms (listed in the
#                          log) and with a result check appended: RESULT: PASS
#   py13.0-peer-tests      NVIDIA's tests, when .carry/peer/run.sh is carried (never committed):
#                          imports swapped to cudagen, 13.x call forms kept (--cuda13)
#   c-saxpy-13.0           tests/c/saxpy.c compiled against the 13.0 C headers, linked with the
#                          13.0 libcudagen.so and traced: RESULT: PASS, trace with cuCtxCreate_v4
#   c-shim-13.0-gpu.sh     bash tests/c/gpu.sh .carry/v13/c: its suites over the 13.0 shim, all
#                          PASS but its bench (bench_pair.c only builds against 12.x headers);
#                          RUN13_GPU_SH=0 skips it
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
carry=.carry/v13
out=${OUT:-/tmp}
log=$out/gpu13.log
mkdir -p "$out"
: > "$log"

# No driver (or no device): one line, nothing run.
if ! probe=$(python3 - 2>&1 <<'EOF'
import ctypes, sys
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    sys.exit(f"libcuda.so.1 not loadable ({e})")
r = cu.cuInit(0)
n = ctypes.c_int(0)
if r != 0 or cu.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value < 1:
    sys.exit(f"cuInit returned {r}, {n.value} devices")
v = ctypes.c_int(0)
cu.cuDriverGetVersion(ctypes.byref(v))
print(v.value)
EOF
); then
  echo "run13: SKIP no CUDA driver here: ${probe##*$'\n'}; nothing run" | tee -a "$log"
  exit 0
fi
driver=${probe##*$'\n'}   # cuDriverGetVersion, e.g. 13000
[ -d "$carry" ] || { echo "run13: $carry missing: run tests/gpu/bundle13.sh (here) and carry .carry" | tee -a "$log"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-run13.XXXXXX")
files=$work/files   # what goes into $OUT/gpu13-files.tgz
mkdir -p "$files"
declare -a rows
fails=0
export PYTHONUNBUFFERED=1

# row NAME RESULT SECONDS DETAIL
row() {
  rows+=("$(printf '%-20s %-9s %4ss  %s' "$1" "$2" "$3" "${4:-}")")
  case $2 in PASS|SKIP*) ;; *) fails=$((fails + 1)) ;; esac
}
# run NAME TIMEOUT COMMAND...: output to $files/NAME.out and the log; sets rc and t
run() {
  local name=$1 limit=$2; shift 2
  echo "=== $name: $*" | tee -a "$log"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$files/$name.out" 2>&1
  rc=$?
  t=$((SECONDS - t0))
  cat "$files/$name.out" >> "$log"
  echo "--- $name: exit $rc after ${t}s" >> "$log"
}
passed() { [ "$rc" = 0 ] && grep -q '^RESULT: PASS' "$files/$1.out"; }
# why NAME: one line on a failed run
why() {
  case $rc in
    124) echo "timed out" ;;
    12[5-9]|1[3-9][0-9]) echo "crashed (signal $((rc - 128)))" ;;
    *) grep -m1 -E '^RESULT|Error' "$files/$1.out" ;;
  esac
}

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "driver API version: $driver"
  echo "carry:"; sed 's/^/  /' "$carry/MANIFEST"
} 2>&1 | tee -a "$log"

# ---- 1. Rust SAXPY, crate generated from 13.0 ------------------------------------------------
run rust-saxpy-13.0 120 "$carry/rust/saxpy13_0"
if passed rust-saxpy-13.0; then
  row rust-saxpy-13.0 PASS "$t" "$(grep -m1 '^saxpy on' "$files/rust-saxpy-13.0.out")"
else
  row rust-saxpy-13.0 "FAIL($rc)" "$t" "$(why rust-saxpy-13.0)"
fi

# ---- 2. The same against the 13.5 crate, plus a CUDA 13.4 function ----------------------------
run rust-13.5-on-13.0 120 "$carry/rust/saxpy13_5"
f=$files/rust-13.5-on-13.0.out
refused=$(grep -m1 -E 'cuDeviceGetCliqueCount \(CUDA 13\.4\) not available in .*: needs CUDA 13\.4' "$f")
if ! passed rust-13.5-on-13.0; then
  row rust-13.5-on-13.0 "FAIL($rc)" "$t" "$(why rust-13.5-on-13.0)${refused:+; $refused}"
elif [ "$driver" -lt 13040 ] && [ -z "$refused" ]; then
  row rust-13.5-on-13.0 FAIL "$t" "driver $driver: no loader error naming CUDA 13.4"
else
  row rust-13.5-on-13.0 PASS "$t" "${refused:-$(grep -m1 '^cuDeviceGetCliqueCount' "$f")}"
fi

# ---- 3. Python module generated from 13.0 -----------------------------------------------------
site=$work/site13
echo "=== python: install $(ls "$carry"/whl/*.whl) into $site" | tee -a "$log"
pip_target python3 "$site" --no-index "$carry"/whl/cudagen-*.whl >> "$log" 2>&1
module=$(PYTHONPATH=$site python3 -c "import cudagen.driver as d, cudagen.nvrtc; print('cudagen', d.__file__, 'CUDA_VERSION', d.CUDA_VERSION)" 2>&1)
echo "$module" | tee -a "$log"
if [[ $module == *"CUDA_VERSION 13000" ]]; then
  # (a) the seeds in the 13.x call forms. Rewrites (each must hit in every seed):
  #   S1  cuCtxCreate(0, dev) -> cuCtxCreate(None, 0, dev)   (13.x: CUctxCreateParams first)
  # Their import lines already name cudagen (PYTHONPATH picks the 13.0 module). Appended to each:
  # a result check printing RESULT: PASS (seed004 checks nothing itself; the others raise).
  for s in tests/python/seeds/seed*.py; do
    name=py13.0-$(basename "$s" .py)
    cp "$s" "$work/$(basename "$s")"
    w=$work/$(basename "$s")
    n=$(grep -cE 'cuCtxCreate\(0, ' "$w")
    sed -E -i 's/cuCtxCreate\(0, /cuCtxCreate(None, 0, /g' "$w"
    cat >> "$w" <<'EOF'

# appended by tests/gpu/run13.sh
print("RESULT: PASS" if np.allclose(hOut, a * hX + hY) else "RESULT: FAIL hOut differs from a * hX + hY")
EOF
    echo "rewrite S1 in $(basename "$s"): $n line(s) -> $(grep -nE 'cuCtxCreate\(' "$w" | tr -s ' ' | tr '\n' ' ')" | tee -a "$log"
    if [ "$n" -lt 1 ]; then
      row "$name" FAIL 0 "rewrite S1 found no cuCtxCreate(0, ...)"
      continue
    fi
    run "$name" 120 env PYTHONPATH="$site" python3 "$w"
    if passed "$name"; then row "$name" PASS "$t" "cuCtxCreate(None, 0, dev): $n site(s)"
    else row "$name" "FAIL($rc)" "$t" "$(why "$name")"; fi
  done

  # (b) NVIDIA's tests, imports swapped to cudagen, 13.x call forms kept
  if [ -f .carry/peer/run.sh ]; then
    pyt=$site
    if ! python3 -c "import pytest" 2>/dev/null && ls .carry/whl/pytest-*.whl >/dev/null 2>&1; then
      pip_target python3 "$work/pytest" --no-index --find-links .carry/whl \
        pytest iniconfig packaging pluggy pygments >> "$log" 2>&1
      pyt=$site:$work/pytest
    fi
    run py13.0-peer-tests 300 env PYTHON=python3 PYTHONPATH="$pyt" bash .carry/peer/run.sh --cuda13
    summary=$(grep -m1 '^SUMMARY' "$files/py13.0-peer-tests.out" \
      || grep -E '(passed|failed|skipped|error)' "$files/py13.0-peer-tests.out" | tail -n 1)
    if [ "$rc" = 0 ]; then row py13.0-peer-tests PASS "$t" "$summary"; else row py13.0-peer-tests "FAIL($rc)" "$t" "$summary"; fi
  else
    row py13.0-peer-tests SKIP 0 ".carry/peer/run.sh not carried"
  fi
else
  row py13.0-module FAIL 0 "install or import of the 13.0 wheel failed (see the log)"
fi

# ---- 4. C shim generated from 13.0 ------------------------------------------------------------
# saxpy.c (its CUDA_VERSION >= 13000 branch: cuCtxCreate(&ctx, NULL, 0, dev)) compiled against the
# 13.0 headers, linked -lcudagen, traced: RESULT: PASS and a trace that holds cuCtxCreate_v4.
c=$carry/c
echo "=== c-saxpy-13.0: gcc tests/c/saxpy.c -I $c/include -lcudagen" | tee -a "$log"
if gcc -std=c99 -Wall -Werror -I "$c/include" tests/c/saxpy.c -o "$work/saxpy13c" -L "$c" -lcudagen -lm >> "$log" 2>&1; then
  trace=$files/c-saxpy-13.0.trace
  run c-saxpy-13.0 120 env LD_LIBRARY_PATH="$c${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDAGEN_TRACE_FILE="$trace" "$work/saxpy13c"
  lines=$(grep -c '' "$trace" 2>/dev/null); lines=${lines:-0}
  echo "trace: $lines lines; $(grep -c '\] cuCtxCreate_v4(' "$trace" 2>/dev/null) cuCtxCreate_v4; $(grep -c '\] cuLaunchKernel' "$trace" 2>/dev/null) cuLaunchKernel" | tee -a "$log"
  if passed c-saxpy-13.0 && [ "$lines" -gt 0 ] && grep -q '\] cuCtxCreate_v4(' "$trace"; then
    row c-saxpy-13.0 PASS "$t" "$(grep -m1 '^saxpy on' "$files/c-saxpy-13.0.out"); trace $lines lines, cuCtxCreate_v4 in it"
  else
    row c-saxpy-13.0 "FAIL($rc)" "$t" "$(why c-saxpy-13.0); trace $lines lines"
  fi
else
  row c-saxpy-13.0 FAIL 0 "saxpy.c does not build against the 13.0 headers (see the log)"
fi

# tests/c/gpu.sh over the 13.0 shim (RUN13_GPU_SH=0 skips it): LD_PRELOAD SAXPY against the
# machine's 13.0 toolkit, runtime SAXPY and real clients with the shim as libcuda.so.1, perfetto.
# Its bench is left out of the verdict: bench_pair.c calls the 12.x cuCtxCreate(&ctx, 0, dev),
# which the 13.x headers refuse, so it fails with "build" there.
if [ "${RUN13_GPU_SH:-1}" != 0 ]; then
  run c-shim-13.0-gpu.sh 420 env OUT="$files" bash tests/c/gpu.sh "$c"
  table=$(sed -n '/^---- C shim on the GPU machine ----$/,/^failures:/p' "$files/c-shim-13.0-gpu.sh.out" | sed '1d;$d')
  bad=$(grep -E ' (FAIL|PASS) ' <<< "$table" | grep -v '^bench (one process)' | grep -E '^.{34} FAIL' | cut -c1-34 | sed 's/ *$//' | paste -sd ',' -)
  counted=$(grep -E ' (FAIL|PASS) ' <<< "$table" | grep -vc '^bench (one process)')
  if [ "$rc" = 124 ] || [ -z "$table" ]; then
    row c-shim-13.0-gpu.sh "FAIL($rc)" "$t" "no table ($(why c-shim-13.0-gpu.sh))"
  elif [ -n "$bad" ]; then
    row c-shim-13.0-gpu.sh FAIL "$t" "failed: $bad"
  else
    row c-shim-13.0-gpu.sh PASS "$t" "$counted suites PASS (bench not counted)"
  fi
else
  row c-shim-13.0-gpu.sh SKIP 0 "RUN13_GPU_SH=0"
fi

tar -czf "$out/gpu13-files.tgz" -C "$work" files 2>> "$log"
{
  echo
  echo "---- key lines ----"
  grep -E '^(=== |driver:|saxpy on|cuDeviceGetCliqueCount|refused|RESULT|rewrite S1|cudagen /|SUMMARY|NVRTC [0-9]|trace:|failures:)|^(linked|LD_PRELOAD|real toolkit|runtime|perfetto|client|bench) ' \
    "$log" | tail -n 70
  echo
  echo "---- CUDA 13.x output on driver $driver (issue #12) ----"
  printf '%s\n' "${rows[@]}"
  echo "failures: $fails (log: $log; outputs and traces: $out/gpu13-files.tgz)"
} | tee -a "$log"
rm -rf "$work"
[ "$fails" = 0 ]
