#!/usr/bin/env bash
# numba-cuda's own tests (its driver layer calls cuda.bindings.driver from Python), run twice on the
# GPU machine: on cuda.bindings, and with cudagen in place of cuda.bindings.driver/.nvrtc (the
# swap: tests/gpu/clients/swap/sitecustomize.py). Prints per run
#   numba-cuda (cuda.bindings): N passed, M failed, K skipped
#   numba-cuda (cudagen): N passed, M failed, K skipped
# then the tests that pass on one and fail on the other (what matters), the cudagen-only failures
# grouped by their first error line, and a last line `numba-cuda: RESULT ...`.
#
# usage: bash tests/gpu/clients/numba_cuda.sh <site-dir-with-cudagen> [out-dir]
#   out-dir (default $OUT/clients): numba-<run>.log (pytest's output), numba-<run>.results (one
#   line per test), numba-diff.txt (the full lists).
# Environment:
#   PYTHON                  the interpreter (default python3): numba-cuda, pytest-xdist, cuda.bindings
#   NUMBA_CLIENTS_MODULES   what pytest runs (--pyargs names), default the selection below
#   NUMBA_CLIENTS_WORKERS   xdist workers per run (default 8)
#   NUMBA_CLIENTS_TIMEOUT   seconds per run (default 270); pytest is interrupted then, and what it
#                           had run is still compared (the tests reached by one run only are listed)
#   NUMBA_CLIENTS_PARALLEL  1 (default): the two runs at once (16 cores: 8 workers each); 0: in turn
# numba-cuda's tests import filecheck (and a few cffi): when the interpreter lacks them, wheels
# carried in .carry/clients/whl (tests/gpu/clients/bundle.sh) are installed into a scratch folder.
# numba-cuda 0.30.4 names numpy.row_stack, gone from numpy 2.5: CUDAGEN_CLIENTS_COMPAT=1 makes the
# sitecustomize put it back, in both runs alike.
#
# The selection: all of cudadrv, nrt and doc_examples, and the cudapy modules that exercise the
# driver (launches, streams, events, memory, occupancy, cooperative launch, IPC, caching of
# modules) rather than only the compiler (libdevice, math, intrinsics, atomics, IR passes), which
# make up most of cudapy's time.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
site=${1:?usage: numba_cuda.sh <site-dir-with-cudagen> [out-dir]}
site=$(cd "$site" && pwd)
out=${2:-${OUT:-/tmp}/clients}
mkdir -p "$out"
out=$(cd "$out" && pwd)
py=${PYTHON:-python3}
workers=${NUMBA_CLIENTS_WORKERS:-8}
limit=${NUMBA_CLIENTS_TIMEOUT:-270}
parallel=${NUMBA_CLIENTS_PARALLEL:-1}

cudapy="alignment array array_alignment array_args array_methods blackscholes boolean cache_hints
  caching complex_kernel const_string constmem cooperative_groups cuda_array_interface
  cuda_jit_no_types device_array_capture device_func dispatcher errors exception extending_types
  forall freevar globals gufunc gufunc_scalar idiv ipc iterators launch_config_sensitive laplace
  localmem mandel matmul montecarlo multiprocessing multithreads nondet numba_interop print
  py2_div_issue random record_dtype reduction retrieve_autoconverted_arrays serialize slicing sm
  sm_creation stream_api sync transpose userexc vectorize vectorize_decor vectorize_device
  vectorize_scalar_arg"
default="numba.cuda.tests.cudadrv numba.cuda.tests.nrt numba.cuda.tests.doc_examples"
for m in $cudapy; do default+=" numba.cuda.tests.cudapy.test_$m"; done
modules=${NUMBA_CLIENTS_MODULES:-$default}

work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-numba.XXXXXX")
trap 'rm -rf "$work"' EXIT

# what the tests need beyond numba-cuda itself
extra=
missing=$("$py" - <<'EOF'
import importlib.util
print(" ".join(m for m in ("filecheck", "cffi", "xdist") if importlib.util.find_spec(m) is None))
EOF
)
if [[ " $missing " == *" xdist "* ]]; then
  echo "numba-cuda: RESULT SKIP pytest-xdist is not installed for $py"; exit 2
fi
if [ -n "$missing" ]; then
  wheels=$root/.carry/clients/whl
  if ls "$wheels"/*.whl >/dev/null 2>&1; then
    echo "numba-cuda: installing the carried wheels for: $missing"
    # shellcheck disable=SC2086
    "$py" -m pip install -q --no-index --no-deps --target "$work/extra" "$wheels"/*.whl || true
    extra=$work/extra
  fi
  if ! PYTHONPATH=$extra "$py" -c "import filecheck" 2>/dev/null; then
    echo "numba-cuda: RESULT SKIP numba-cuda's tests import filecheck, which $py lacks;" \
      "run tests/gpu/clients/bundle.sh here and carry .carry"
    exit 2
  fi
fi

# pytest's rootdir: numba-cuda's package folder, so test ids read numba/cuda/tests/...
rootdir=$("$py" -c "import numba_cuda, os; print(os.path.dirname(numba_cuda.__file__))") \
  || { echo "numba-cuda: RESULT SKIP numba_cuda is not importable by $py"; exit 2; }

# run LABEL SWAP: one pytest run; results in $out/numba-LABEL.results
run() {
  local label=$1 swap=$2
  local tmp=$work/tmp-$label
  mkdir -p "$tmp"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  (
    cd "$work" &&
    CUDAGEN_SWAP=$swap CUDAGEN_CLIENTS_COMPAT=1 TMPDIR=$tmp \
    NUMBA_CLIENTS_RESULTS=$out/numba-$label.results \
    PYTHONPATH=$here/swap:$here/pytest_plugin:$site${extra:+:$extra}${PYTHONPATH:+:$PYTHONPATH} \
      timeout -s INT -k 30 "$limit" "$py" -m pytest -c "$here/pytest_plugin/pytest.ini" \
        --rootdir "$rootdir" -n "$workers" -v -rN --tb=short -W ignore::DeprecationWarning \
        --pyargs $modules
  ) > "$out/numba-$label.log" 2>&1
  local rc=$?
  local how="exit $rc"
  [ "$rc" = 124 ] || [ "$rc" = 130 ] && how="cut at ${limit}s (exit $rc)"
  echo "numba-cuda ($label) pytest: $how after $((SECONDS - t0))s; $(grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' "$out/numba-$label.log" | tail -n 1 | tr -d '=')"
}

echo "numba-cuda: $("$py" -c 'import numba, numba_cuda, numpy; print("numba", numba.__version__, "numba-cuda", numba_cuda.__version__, "numpy", numpy.__version__)' 2>&1 | tail -n 1)"
echo "numba-cuda: $(wc -w <<< "$modules") test packages/modules, $workers workers per run, limit ${limit}s per run"
if [ "$parallel" = 1 ]; then
  run cuda.bindings 0 > "$work/a.txt" &
  run cudagen 1 > "$work/b.txt" &
  wait
  cat "$work/a.txt" "$work/b.txt"
else
  run cuda.bindings 0
  run cudagen 1
fi

"$py" "$here/numba_compare.py" "$out/numba-cuda.bindings.results" "$out/numba-cudagen.results" "$out/numba-diff.txt"
rc=$?
case $rc in
  0) echo "numba-cuda: RESULT PASS no test passes on cuda.bindings and fails with cudagen" ;;
  1) echo "numba-cuda: RESULT FAIL $(grep -m1 '^## pass on cuda.bindings, fail on cudagen' "$out/numba-diff.txt" | sed 's/^## //')" ;;
  *) echo "numba-cuda: RESULT FAIL no results to compare (see $out/numba-*.log)" ;;
esac
exit "$rc"
