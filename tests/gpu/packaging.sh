#!/usr/bin/env bash
# Issue #27's GPU checks: what a user gets from each package, on the GPU machine's CUDA 13.0
# driver. Runs there over .carry/packaging (built here by tests/packaging/bundle.sh,
# tests/c/install.sh and tests/python/packaging.sh); builds nothing. Full log:
# $OUT/packaging.log. A PASS/FAIL table is printed last; exit 0 only when no row fails.
#   rust-cuda-12      fresh project on the packaged crate, default feature cuda-12 (12.9 API on
#                     the 13.0 driver): RESULT: PASS
#   rust-cuda-13      the same code, default-features = false + cuda-13 (13.5 API), first calling
#                     cuDeviceGetCliqueCount (13.4): the loader's error names 13.4, then PASS
#   c-pkgconfig, c-static, c-cmake   tests/c/saxpy.c built against the installed libcudagen
#                     (12.9 API) through pkg-config (shared, static) and CMake: RESULT: PASS
#   py-12.9-seedNNN, py-13.5-seedNNN each wheel pip-installed into a fresh venv (--no-index; numpy
#                     borrowed from python3's own site-packages through a .pth file), the seeds
#                     tests/python/seeds/seed*.py run with a result check appended; the 13.5 ones
#                     rewritten to the 13.x cuCtxCreate(None, 0, dev)
set -uo pipefail
cd "$(dirname "$0")/../.."
carry=.carry/packaging
out=${OUT:-/tmp}
log=$out/packaging.log
mkdir -p "$out"
: > "$log"
[ -d "$carry" ] || { echo "packaging: $carry missing: run the three build scripts here and carry .carry" | tee -a "$log"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-packaging.XXXXXX")
declare -a rows
fails=0
export PYTHONUNBUFFERED=1

row() {
  rows+=("$(printf '%-18s %-9s %4ss  %s' "$1" "$2" "$3" "${4:-}")")
  case $2 in PASS|SKIP*) ;; *) fails=$((fails + 1)) ;; esac
}
# run NAME COMMAND...: output to $work/NAME.out and the log; sets rc and t
run() {
  local name=$1; shift
  echo "=== $name: $*" | tee -a "$log"
  local t0=$SECONDS
  timeout 180 "$@" > "$work/$name.out" 2>&1
  rc=$?
  t=$((SECONDS - t0))
  cat "$work/$name.out" >> "$log"
  echo "--- $name: exit $rc after ${t}s" >> "$log"
}
# check NAME DETAIL-PATTERN: a row from the last run
check() {
  local line
  line=$(grep -m1 '^RESULT:' "$work/$1.out")
  case "$rc:$line" in
    "0:RESULT: PASS"*) row "$1" PASS "$t" "$(grep -m1 -E "$2" "$work/$1.out")" ;;
    "0:RESULT: SKIP"*) row "$1" SKIP "$t" "$line" ;;
    *) row "$1" "FAIL($rc)" "$t" "${line:-$(tail -n 1 "$work/$1.out")}" ;;
  esac
}

{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; sed 's/^/  /' "$carry/MANIFEST"; } 2>&1 | tee -a "$log"

# ---- Rust: the packaged crate, both eras ------------------------------------------------------
run rust-cuda-12 "$carry/rust/saxpy_cuda12"
check rust-cuda-12 '^saxpy on'
run rust-cuda-13 "$carry/rust/saxpy_cuda13"
if grep -q '^RESULT: SKIP\|refused as expected\|cuDeviceGetCliqueCount on driver' "$work/rust-cuda-13.out"; then
  check rust-cuda-13 '^cuDeviceGetCliqueCount'
else
  row rust-cuda-13 FAIL "$t" "no cuDeviceGetCliqueCount line"
fi

# ---- C: the installed library through pkg-config and CMake ----------------------------------
for b in pkgconfig static cmake; do
  run "c-$b" "$carry/c/prefix/bin/saxpy_$b"
  check "c-$b" '^saxpy|max'
done

# ---- Python: each wheel in a fresh venv -----------------------------------------------------
numpy_site=$(python3 -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
for whl in "$carry"/py/cudagen-*.whl; do
  v=$(basename "$whl" | cut -d- -f2); v=${v%.0}   # 12.9 / 13.5
  venv=$work/venv-$v
  python3 -m venv "$venv" && "$venv/bin/pip" install -q --no-index --no-deps "$whl" >> "$log" 2>&1
  echo "$numpy_site" > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_numpy_from_base.pth"
  module=$("$venv/bin/python" -c 'import cudagen.driver as d; print("venv cudagen, CUDA_VERSION", d.CUDA_VERSION)' 2>&1 | tail -n 1)
  echo "$v: $module" | tee -a "$log"
  for s in tests/python/seeds/seed*.py; do
    name=py-$v-$(basename "$s" .py)
    w=$work/$v-$(basename "$s")
    cp "$s" "$w"
    [ "${v%%.*}" = 13 ] && sed -E -i 's/cuCtxCreate\(0, /cuCtxCreate(None, 0, /g' "$w"
    printf '\n# appended by tests/gpu/packaging.sh\nprint("RESULT: PASS" if np.allclose(hOut, a * hX + hY) else "RESULT: FAIL hOut differs")\n' >> "$w"
    run "$name" "$venv/bin/python" "$w"
    echo "$module" >> "$work/$name.out"
    check "$name" '^venv cudagen'
  done
done

echo | tee -a "$log"
printf '%-18s %-9s %5s  %s\n' check result time detail | tee -a "$log"
printf '%s\n' "${rows[@]}" | tee -a "$log"
echo "packaging: $fails failing row(s); log $log" | tee -a "$log"
[ "$fails" = 0 ]
