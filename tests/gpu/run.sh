#!/usr/bin/env bash
# Runs on the GPU machine over the carried .carry/ folder (see bundle.sh); builds no Rust.
# Each suite's full log goes to $OUT/gpu.log; a summary table is printed last.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
carry=.carry
log=${OUT:-/tmp}/gpu.log
: > "$log"
declare -a rows

suite() {
  local name=$1; shift
  echo "=== $name: $*" | tee -a "$log"
  local start=$SECONDS
  if "$@" >> "$log" 2>&1; then r=PASS; else r="FAIL($?)"; fi
  rows+=("$(printf '%-28s %-9s %4ss' "$name" "$r" $((SECONDS - start)))")
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$log"
export PYTHONUNBUFFERED=1

suite rust-nvrtc "$carry/rust/nvrtc" --nocapture
suite rust-gpu-saxpy "$carry/rust/gpu_saxpy" --nocapture --test-threads=1
suite rust-cudarc-interop "$carry/rust/cudarc_interop" --nocapture --test-threads=1
suite rust-overhead-bench "$carry/rust/rust_overhead"

if ls "$carry"/whl/cudagen-*.whl >/dev/null 2>&1; then
  # pip picks the best wheel for this interpreter (cp312 over abi3 when both are there)
  pip_target python3 /tmp/site --no-index --find-links "$carry/whl" \
    cudagen pytest iniconfig packaging pluggy pygments >> "$log" 2>&1
  python3 -c "import sys; sys.path.insert(0, '/tmp/site'); import cudagen._cudagen as m; print('cudagen module:', m.__file__)" | tee -a "$log"
  suite python-pytest python3 -m pytest -q -rs tests/python
  suite python-bench python3 tests/python/bench_python.py
  if [ -x "$carry/peer/run.sh" ] || [ -f "$carry/peer/run.sh" ]; then
    # NVIDIA's own tests: imports swapped to cudagen (12.x call forms), then as written on cuda.bindings 13.x
    suite peer-tests-cudagen env PYTHON=python3 bash "$carry/peer/run.sh"
    suite peer-tests-cuda.bindings env PYTHON=python3 bash "$carry/peer/run.sh" --oracle --cuda13
  fi
fi

if [ -d "$carry/c" ] && [ -f tests/c/gpu.sh ]; then
  suite c-shim bash tests/c/gpu.sh "$carry/c"
fi

echo
echo "---- key lines ----"
grep -E "^\| |saxpy on|passed|failed|skipped|PASS|FAIL|ratio|ns/call|import|SUMMARY" "$log" | grep -v "^=== " | tail -n 60
echo
echo "---- summary ----"
printf '%s\n' "${rows[@]}"
