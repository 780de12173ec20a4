#!/usr/bin/env bash
# One GPU call for issues #22 and #24 (run on the GPU machine over .carry, built here by
# tests/gpu/bundle13.sh, tests/gpu/clients/bundle.sh and release builds of tests/safe_*.rs
# copied to .carry/safe/). Builds nothing. Prints a table last; logs under $OUT.
#   clients   tests/gpu/clients/run.sh over the 13.0 wheel (numba-cuda, cuda.core, samples)
#   safe      tests/gpu/safe.sh: the safe Rust layer's GPU tests (.carry/safe/), plain and under
#             compute-sanitizer memcheck --leak-check full
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
mkdir -p "$out"
declare -a rows
run() {
  local name=$1; shift
  local start=$SECONDS
  "$@" > "$out/$name.log" 2>&1; local rc=$?
  rows+=("$(printf '%-24s rc=%-3s %4ss  %s' "$name" "$rc" $((SECONDS - start)) "$(grep -E 'summary|ERROR SUMMARY|LEAK SUMMARY|bytes leaked|test result' "$out/$name.log" | tr '\n' ' ' | cut -c1-200)")")
}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
OUT=$out/safe bash tests/gpu/safe.sh > "$out/safe.txt" 2>&1
rows+=("safe (tests/gpu/safe.sh) rc=$?")
echo "---- safe ----"; tail -n 8 "$out/safe.txt"
OUT=$out bash tests/gpu/clients/run.sh .carry/v13/whl > "$out/clients.txt" 2>&1
rows+=("clients rc=$?")
echo "---- clients ----"; tail -n 45 "$out/clients.txt"
echo "---- summary ----"; printf '%s\n' "${rows[@]}"
