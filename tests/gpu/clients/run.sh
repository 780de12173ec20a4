#!/usr/bin/env bash
# Real Python clients on the GPU machine (issue #22), each run twice: on cuda.bindings, and with
# cudagen's modules in place of cuda.bindings.driver / .nvrtc (CUDAGEN_SWAP=1 and
# tests/gpu/clients/swap first on PYTHONPATH: see swap/sitecustomize.py). Builds nothing.
#   numba-cuda   its own tests (numba_cuda.sh; in the background, while the programs run)
#   cuda_core_*  programs of ours through cuda.core's public API
#   samples/*    programs of ours written the way cuda.bindings' samples are
# Prints a table `client | cuda.bindings | cudagen` last. Everything goes to $OUT/clients/
# (clients.log, one .out per program and run, numba-*.log/.results, numba-diff.txt).
# Exit 0 when everything that passes on cuda.bindings passes on cudagen; 1 otherwise; 2 when
# nothing could be compared (no cudagen module, the swap not taking).
#
# usage: bash tests/gpu/clients/run.sh <cudagen>
#   <cudagen>: a folder holding the installed module (`pip install --target DIR cudagen-*.whl`,
#   as run13.sh makes), or a wheel, or a folder of wheels (.carry/v13/whl): installed here then.
# Environment: PYTHON (default python3), CLIENTS_NUMBA=0 leaves numba-cuda out, and
# numba_cuda.sh's NUMBA_CLIENTS_* settings. About 4-5 minutes on a 16-core H100 machine: the
# numba-cuda runs (both at once, up to 270 s) overlap the 24 program runs (~3 s each).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
out=${OUT:-/tmp}/clients
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/clients.log
: > "$log"
export PYTHONUNBUFFERED=1
say() { echo "$*" | tee -a "$log"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT

arg=${1:?usage: run.sh <site-dir-with-cudagen | cudagen wheel | folder of wheels>}
if [ -d "$arg/cudagen" ]; then
  site=$(cd "$arg" && pwd)
else
  wheel=$arg
  [ -d "$arg" ] && wheel=$(ls "$arg"/cudagen-*cp312*.whl "$arg"/cudagen-*.whl 2>/dev/null | head -n 1)
  [ -f "$wheel" ] || { say "clients: no cudagen module or wheel at $arg"; exit 2; }
  site=$work/site
  "$py" -m pip install -q --no-index --no-deps --target "$site" "$wheel" >> "$log" 2>&1 \
    || { say "clients: pip could not install $wheel"; exit 2; }
fi
pp=$here/swap:$site${PYTHONPATH:+:$PYTHONPATH}

# The swap must take, or the two runs would be the same run.
swapcheck=$(CUDAGEN_SWAP=1 PYTHONPATH=$pp "$py" - 2>&1 <<'EOF'
import cudagen.driver, cudagen.nvrtc
from cuda.bindings import driver, nvrtc
import cuda.bindings.driver as d2
assert driver is cudagen.driver and d2 is driver and nvrtc is cudagen.nvrtc, (driver, nvrtc)
print("swap ok:", driver.__file__, "CUDA_VERSION", driver.CUDA_VERSION)
EOF
)
say "clients: $swapcheck"
[[ $swapcheck == "swap ok:"* ]] || { say "clients: the swap does not take; nothing compared"; exit 2; }
say "clients: $("$py" -c 'import cuda.bindings, cuda.core, numpy; print("cuda-bindings", cuda.bindings.__version__, "cuda-core", cuda.core.__version__, "numpy", numpy.__version__)' 2>&1 | tail -n 1)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/clients: /' | tee -a "$log"

if [ "${CLIENTS_NUMBA:-1}" != 0 ]; then
  PYTHON=$py bash "$here/numba_cuda.sh" "$site" "$out" > "$out/numba.txt" 2>&1 &
  numba_pid=$!
fi

declare -a rows
regressions=0
# result FILE NAME: "PASS ..." or "FAIL ..." from a program's output and exit status
result() {
  local f=$1 name=$2 rc=$3 line
  line=$(grep -E "^$name: (PASS|FAIL)" "$f" | tail -n 1)
  if [ "$rc" = 0 ] && [[ $line == "$name: PASS"* ]]; then
    echo "PASS${line#"$name: PASS"}"
  elif [ -n "$line" ]; then
    echo "FAIL${line#"$name: FAIL"}"
  elif [ "$rc" = 124 ]; then
    echo "FAIL timed out"
  else
    echo "FAIL exit $rc: $(grep -E 'Error|error' "$f" | tail -n 1 | cut -c1-160)"
  fi
}

programs=$(ls "$here"/cuda_core_*.py "$here"/samples/*.py | grep -v '/cuda_helpers\.py$')
for p in $programs; do
  name=$(basename "$p" .py)
  declare -A res=()
  for mode in cuda.bindings cudagen; do
    swap=0; [ "$mode" = cudagen ] && swap=1
    f=$out/$name.$mode.out
    (cd "$(dirname "$p")" && CUDAGEN_SWAP=$swap PYTHONPATH=$pp timeout 120 "$py" "$p") > "$f" 2>&1
    rc=$?
    res[$mode]=$(result "$f" "$name" "$rc")
    # the program's first line names the driver module it got
    used=$(grep -m1 -oE 'cuda.bindings.driver is [a-z_.]+' "$f" | awk '{print $3}')
    if [ "$mode" = cudagen ] && [ -n "$used" ] && [ "$used" != cudagen.driver ]; then
      res[$mode]="FAIL the swap did not take ($used)"
    fi
    { echo "=== $name on $mode: exit $rc"; cat "$f"; } >> "$log"
  done
  b=${res[cuda.bindings]} c=${res[cudagen]}
  if [[ $b == PASS* && $c != PASS* ]]; then regressions=$((regressions + 1)); fi
  rows+=("$name"$'\t'"$b"$'\t'"$c")
  say "$(printf '%-22s %-9s %s' "$name" "${b%% *}" "${c%% *}")"
done

if [ -n "${numba_pid:-}" ]; then
  wait "$numba_pid"
  numba_rc=$?
  cat "$out/numba.txt" >> "$log"
  nb=$(grep -m1 '^numba-cuda (cuda.bindings):' "$out/numba.txt" | sed 's/^numba-cuda (cuda.bindings): //; s/ *\[.*//')
  nc=$(grep -m1 '^numba-cuda (cudagen):' "$out/numba.txt" | sed 's/^numba-cuda (cudagen): //; s/ *\[.*//')
  verdict=$(grep -m1 '^numba-cuda: RESULT' "$out/numba.txt" | sed 's/^numba-cuda: RESULT //')
  [ "$numba_rc" = 0 ] || regressions=$((regressions + 1))
  rows+=("numba-cuda tests"$'\t'"${nb:-no result}"$'\t'"${nc:-no result}; ${verdict:-see numba.txt}")
fi

{
  echo
  if [ -f "$out/numba.txt" ]; then
    echo "---- numba-cuda (full lists: $out/numba-diff.txt) ----"
    cat "$out/numba.txt"
  fi
  echo
  echo "---- real clients: cuda.bindings vs cudagen in place of cuda.bindings.driver/.nvrtc ----"
  printf '%-22s | %-40s | %s\n' client cuda.bindings cudagen
  for r in "${rows[@]}"; do
    IFS=$'\t' read -r name b c <<< "$r"
    printf '%-22s | %-40s | %s\n' "$name" "$(cut -c1-40 <<< "$b")" "$(cut -c1-150 <<< "$c")"
  done
  echo "clients passing on cuda.bindings but not on cudagen: $regressions (log: $log)"
} | tee -a "$log"
[ "$regressions" = 0 ]
