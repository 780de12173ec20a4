#!/usr/bin/env bash
# The safe Rust layer on the GPU (issue #24). Runs the release test binaries built here and
# carried in .carry/safe/ (tests/safe_{examples,threads,leaks,gpu}.rs; build and copy with the
# commands in NOTES.md, "Safe layer: contexts and threads"), each plainly and under
#   compute-sanitizer --tool memcheck --leak-check full
# and prints a table: test, plain result, sanitizer errors, of them the parameter-info probe's
# API errors (must be 0), the other errors (must be 0) and bytes leaked
# (must be 0). Builds nothing; logs under $OUT.
#
# The probe: below CUDA 13.2 the driver has no cuFuncGetParamCount, so a checked launch that
# asks the driver for a kernel's parameters reads them with cuFuncGetParamInfo /
# cuKernelGetParamInfo index by index until CUDA_ERROR_INVALID_VALUE, once per kernel, and
# memcheck reports each such end as an API error. These tests load every module from PTX
# (`Module::from_ptx`), whose kernels' layouts the safe layer reads from the PTX text, so no
# probe runs and the column must be 0 (a cubin's or fatbin's kernels would still be probed).
# The other API errors, if any, are listed by name above the table.
#
# Capture: safe_gpu checks that a capturing stream refuses copies with pageable host memory in
# both directions; the safe layer asks cuStreamIsCapturing first and enqueues nothing, so no
# driver call fails there. Every test must end with 0 memcheck errors and 0 bytes leaked.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/cudagen-safe}
mkdir -p "$out"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
rows=()
fail=0
count() { grep -cE "$1" "$2" || true; }
tests=("$@")
[ ${#tests[@]} = 0 ] && tests=(safe_examples safe_threads safe_leaks safe_gpu)
for t in "${tests[@]}"; do
  bin=.carry/safe/$t
  if [ ! -x "$bin" ]; then rows+=("$(printf '%-14s %-6s missing %s' "$t" "-" "$bin")"); fail=1; continue; fi
  start=$SECONDS
  "$bin" --nocapture --test-threads=1 > "$out/$t.log" 2>&1; rc=$?
  plain=$([ $rc = 0 ] && grep -q "test result: ok" "$out/$t.log" && echo pass || echo FAIL)
  "$cs" --tool memcheck --leak-check full "$bin" --nocapture --test-threads=1 > "$out/$t.memcheck.log" 2>&1; mrc=$?
  errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$out/$t.memcheck.log" | grep -oE '[0-9]+' | tail -1)
  probe=$(count 'CUDA_ERROR_INVALID_VALUE.*API call to cu(Func|Kernel)GetParamInfo' "$out/$t.memcheck.log")
  leaked=$(grep -oE 'LEAK SUMMARY: [0-9]+ bytes' "$out/$t.memcheck.log" | grep -oE '[0-9]+' | tail -1)
  leaked=${leaked:-0}
  other=$(( ${errors:-999} - probe ))
  mpass=$(grep -q "test result: ok" "$out/$t.memcheck.log" && echo pass || echo FAIL)
  [ "$plain" = pass ] && [ "$mpass" = pass ] && [ "${errors:-x}" = 0 ] && [ "$leaked" = 0 ] || fail=1
  rows+=("$(printf '%-14s %-6s %-14s %-7s %-6s %-6s %-7s %4ss' "$t" "$plain" "$mpass(rc=$mrc)" "${errors:-?}" "$probe" "$other" "$leaked" $((SECONDS - start)))")
done
for t in "${tests[@]}"; do
  echo "---- $t ----"
  grep -oE '(summary|example [a-z]+:|thread [0-9]:|leak:|layouts:|corpus:|shapes:|saxpy:|pageable:|two streams:|pools:|launch cost|skipped) .*' "$out/$t.log" | cut -c1-200
done
echo "---- API errors other than the probe (first 5 per test) ----"
for t in "${tests[@]}"; do
  [ -f "$out/$t.memcheck.log" ] && grep -E 'Program hit' "$out/$t.memcheck.log" | grep -vE 'cu(Func|Kernel)GetParamInfo' | sort | uniq -c | head -5 | sed "s/^/$t: /"
done
echo "---- summary ----"
printf '%-14s %-6s %-14s %-7s %-6s %-6s %-7s %5s\n' test plain memcheck errors probe other leaked time
printf '%s\n' "${rows[@]}"
echo "safe.sh: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
