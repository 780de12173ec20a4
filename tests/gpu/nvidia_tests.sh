#!/usr/bin/env bash
# NVIDIA's own tests of cuda.bindings (cuda_bindings/tests/test_*.py) and its sample programs
# (cuda_bindings/examples/), run on the GPU machine twice: on NVIDIA's cuda.bindings, and with
# cudagen's five modules (driver, nvrtc, runtime, nvjitlink, nvvm) in their place (the swap:
# tests/gpu/clients/swap/sitecustomize.py with CUDAGEN_SWAP_MODULES=all). Issue #33.
#
# usage: bash tests/gpu/nvidia_tests.sh [WHEEL | WHEEL-FOLDER | SITE-DIR]   (default .carry/v13/whl)
# NVIDIA's files are not in the repository: tests/gpu/nvtests/README.md says how they are fetched
# into .carry/nvtests/ (tests/, helpers/cuda_python_test_helpers/, examples/), carried with
# `carry: [".carry"]`. Every test file runs in its own pytest process per way (-p no:cacheprovider,
# pytest-timeout's --timeout when it is installed), one result line per test as it finishes
# (tests/gpu/clients/pytest_plugin), so a run that crashes or hits its limit still compares: a
# crash is recorded as the failure of the first test it did not report, and pytest goes on with
# the tests after it. Then one sample program per process, both ways.
# Last: the table `module | pass on cuda.bindings | pass on cudagen | pass there, fail here`, the
# first error line of each of those, and the samples' table. What comes back from $OUT (at most 8
# files): $OUT/nvtests/table.md and $OUT/nvtests/nvtests.tar.gz (every log and result file), written
# also when the run is cut short.
# Environment: PYTHON (default /opt/torch/.venv/bin/python, else python3), NVTESTS_TIMEOUT (s per
# pytest process, default 240), NVTESTS_TEST_TIMEOUT (s per test, default 60), NVTESTS_FILES,
# NVTESTS_SAMPLE_TIMEOUT (s per sample, default 120).
# Exit status: 0 when everything that passes on cuda.bindings passes with cudagen.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
. tests/gpu/lib.sh
src=${NVTESTS_SRC:-$root/.carry/nvtests}
what=${1:-.carry/v13/whl}
py=${PYTHON:-}
[ -n "$py" ] || { [ -x /opt/torch/.venv/bin/python ] && py=/opt/torch/.venv/bin/python || py=python3; }
out=${OUT:-/tmp}/nvtests
mkdir -p "$out"
out=$(cd "$out" && pwd)
limit=${NVTESTS_TIMEOUT:-240}
per_test=${NVTESTS_TEST_TIMEOUT:-60}
sample_limit=${NVTESTS_SAMPLE_TIMEOUT:-120}
files=${NVTESTS_FILES:-test_cuda test_cudart test_nvrtc test_nvjitlink test_nvvm test_kernelParams test_interoperability}
[ -d "$src/tests" ] || { echo "nvidia_tests: $src/tests missing (see tests/gpu/nvtests/README.md)"; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-nvtests.XXXXXX")
logs=$work/nvtests  # every log and result file; packed into $out at exit
mkdir -p "$logs"
trap 'tar czf "$out/nvtests.tar.gz" -C "$work" nvtests; cp "$logs/table.md" "$out/" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
# cudagen: a site folder as it is, else the wheel installed into a scratch one
if [ -d "$what" ] && [ -d "$what/cudagen" ]; then
  site=$(cd "$what" && pwd)
else
  wheel=$what
  [ -d "$what" ] && wheel=$(ls "$what"/cudagen-*.whl 2>/dev/null | head -n 1)
  [ -f "$wheel" ] || { echo "nvidia_tests: no cudagen wheel at $what"; exit 2; }
  site=$work/site
  pip_target "$py" "$site" "$wheel" || { echo "nvidia_tests: pip could not install $wheel"; exit 2; }
fi
# lib.sh's pip_target put $site on PYTHONPATH: every run below names its path itself
base_path=$root/tests/gpu/clients/swap:$root/tests/gpu/clients/pytest_plugin:$site:$src/helpers
# an empty ini: no configuration from the folders above .carry/nvtests/tests applies
printf '[pytest]\n' > "$work/pytest.ini"
plugin_opts=(-c "$work/pytest.ini" --rootdir "$src/tests" -p numba_cuda_fixtures -p no:cacheprovider)
"$py" -c "import pytest_timeout" 2>/dev/null && plugin_opts+=(--timeout "$per_test")

# with SWAP (0/1) and ARGS..., runs the interpreter as both ways do
way_env() {
  local swap=$1
  shift
  CUDAGEN_SWAP=$swap CUDAGEN_SWAP_MODULES=all PYTHONPATH=$base_path${PYTHONPATH_EXTRA:+:$PYTHONPATH_EXTRA} "$@"
}

echo "nvidia_tests: $("$py" -c 'import sys, numpy, pytest; from cuda.bindings import __version__ as v; print("python", sys.version.split()[0], "cuda-bindings", v, "numpy", numpy.__version__, "pytest", pytest.__version__)' 2>&1 | tail -n 1)"
echo "nvidia_tests: cudagen $(way_env 0 "$py" -c 'import cudagen, cudagen.driver as d; print(getattr(cudagen, "__version__", "?"), "CUDA_VERSION", d.CUDA_VERSION, "from", cudagen.__file__)' 2>&1 | tail -n 1)"
echo "nvidia_tests: swap check: $(way_env 1 "$py" -c 'import cuda.bindings.driver as d, cuda.bindings.runtime as r, cuda.bindings.nvjitlink as j, cuda.bindings.nvvm as v, cuda.bindings.nvrtc as n; print(" ".join(m.__name__ for m in (d, n, r, j, v)))' 2>&1 | tail -n 1)"

# run_file FILE LABEL SWAP: pytest on one file, restarted past a crash; $logs/FILE.LABEL.results
run_file() {
  local file=$1 label=$2 swap=$3
  local res=$logs/$file.$label.results log=$logs/$file.$label.log
  : > "$res"
  : > "$log"
  local ids=$work/$file.$label.ids
  (cd "$src/tests" && way_env "$swap" timeout -k 10 120 "$py" -m pytest "${plugin_opts[@]}" --collect-only -q "$file.py") \
    2>/dev/null | grep '::' > "$ids"
  local attempt=0 deselect=() rc
  while :; do
    attempt=$((attempt + 1))
    (cd "$src/tests" && NUMBA_CLIENTS_RESULTS=$res.$attempt way_env "$swap" \
      timeout -k 10 "$limit" "$py" -m pytest "${plugin_opts[@]}" -q -rN --tb=short "$file.py" "${deselect[@]}") >> "$log" 2>&1
    rc=$?
    grep -v '^#' "$res.$attempt" 2>/dev/null >> "$res"
    rm -f "$res.$attempt"
    case $rc in 0 | 1 | 5) break ;; esac  # pytest finished (5: nothing collected)
    [ "$attempt" -ge 6 ] && break
    # died (a crash or the time limit): the first test it did not report is the culprit
    local next
    next=$(cut -f2 "$res" | grep -vxF -f - "$ids" | head -n 1)
    [ -n "$next" ] || break
    printf 'failed\t%s\tthe pytest process died here (exit %s)\n' "$next" "$rc" >> "$res"
    echo "== pytest exit $rc at $next: restarting after it" >> "$log"
    deselect=()
    while IFS= read -r t; do deselect+=(--deselect "$t"); done < <(cut -f2 "$res")
  done
}

start=$SECONDS
for f in $files; do
  [ -f "$src/tests/$f.py" ] || { echo "nvidia_tests: $f.py not fetched, left out"; continue; }
  run_file "$f" cuda.bindings 0
  run_file "$f" cudagen 1
  echo "nvidia_tests: $f done ($((SECONDS - start)) s)"
done

# samples: every *.py under examples/ with a main guard, one process each, both ways. They compile
# with the toolkit's headers ($CUDA_HOME/include); CUDAGEN_CLIENTS_COMPAT=1: see the sitecustomize.
[ -z "${CUDA_HOME:-}" ] && [ -d /usr/local/cuda/include ] && export CUDA_HOME=/usr/local/cuda
: > "$logs/samples.results"
if [ -d "$src/examples" ]; then
  while IFS= read -r p; do
    rel=${p#"$src/examples/"}
    for way in cuda.bindings:0 cudagen:1; do
      label=${way%:*}
      (cd "$(dirname "$p")" && CUDAGEN_CLIENTS_COMPAT=1 PYTHONPATH_EXTRA=$src/examples way_env "${way#*:}" \
        timeout -k 10 "$sample_limit" "$py" "$(basename "$p")") > "$logs/sample.$(basename "$p" .py).$label.log" 2>&1
      rc=$?
      why=$(grep -av '^\s*$' "$logs/sample.$(basename "$p" .py).$label.log" | tail -n 1 | cut -c1-200 | tr '\t' ' ')
      printf '%s\t%s\t%s\t%s\n' "$label" "$rel" "$rc" "$why" >> "$logs/samples.results"
    done
  done < <(grep -l '__main__' $(find "$src/examples" -name '*.py' ! -path '*/common/*' | sort) 2>/dev/null)
fi

set -o pipefail
"$py" tests/gpu/nvidia_table.py "$logs" $files | tee "$logs/table.md"
