#!/usr/bin/env bash
# CPU-only check of tests/gpu/clients (no GPU, no libcuda here): the swap makes
# `from cuda.bindings import driver` cudagen's module and leaves it NVIDIA's without
# CUDAGEN_SWAP=1; every program imports and gets as far as its first driver call, where loading
# libcuda fails, under both (a program that breaks earlier, on a name or an import, fails here).
#
# usage: bash tests/gpu/clients/local_check.sh <site-dir-with-cudagen> [python]
#   python: an interpreter with cuda-bindings 13.x, cuda-core and numpy (default .venv13/bin/python)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
site=$(cd "${1:?usage: local_check.sh <site-dir-with-cudagen> [python]}" && pwd)
py=${2:-$root/.venv13/bin/python}
pp=$here/swap:$site
fails=0
bad() { echo "local_check: FAIL $*"; fails=$((fails + 1)); }

for swap in 0 1; do
  want=cuda.bindings.driver; [ $swap = 1 ] && want=cudagen.driver
  got=$(CUDAGEN_SWAP=$swap PYTHONPATH=$pp "$py" -c '
import cuda.bindings.driver as a
from cuda.bindings import driver, nvrtc
assert a is driver
print(driver.__name__, nvrtc.__name__)' 2>&1 | tail -n 1)
  [ "$got" = "$want ${want%.driver}.nvrtc" ] && echo "local_check: CUDAGEN_SWAP=$swap gives $got" \
    || bad "CUDAGEN_SWAP=$swap: $got"
done
broken=$(mktemp -d)
trap 'rm -rf "$broken"' EXIT
mkdir -p "$broken/cudagen" && echo 'raise ImportError("no cudagen here")' > "$broken/cudagen/__init__.py"
if PYTHONPATH=$here/swap:$broken CUDAGEN_SWAP=1 "$py" -c 'print("ran")' 2>/dev/null | grep -q ran; then
  bad "CUDAGEN_SWAP=1 with cudagen not importable ran the program (it must stop: no silent fallback)"
else
  echo "local_check: CUDAGEN_SWAP=1 with cudagen not importable stops the interpreter"
fi
has_core=1
"$py" -c 'import cuda.core' 2>/dev/null || { has_core=0; echo "local_check: no cuda.core for $py: cuda_core_*.py skipped"; }

# the names the programs use exist; every kernel compiles with NVRTC (no GPU needed), through
# NVIDIA's nvrtc and through cudagen's
if [ $has_core = 1 ]; then
  for swap in 0 1; do
    o=$(CUDAGEN_SWAP=$swap PYTHONPATH=$pp "$py" -W ignore "$here/local_cpu.py" 2>&1)
    last=$(tail -n 1 <<< "$o")
    [[ $last == "local_cpu: PASS"* ]] && echo "local_check: swap=$swap: $last" || bad "local_cpu.py (swap=$swap): $last"
  done
fi

# the first failure must be libcuda not loading (cudagen: LoaderError; cuda.bindings:
# DynamicLibNotFoundError; cuda.core: either, or CUDA_ERROR_NO_DEVICE / not initialized)
loadfail='LoaderError|DynamicLibNotFoundError|libcuda|CUDA_ERROR_(NO_DEVICE|NOT_INITIALIZED|STUB_LIBRARY)|cudaErrorInsufficientDriver'
for p in "$here"/cuda_core_*.py "$here"/samples/*.py; do
  name=$(basename "$p" .py)
  [ "$name" = cuda_helpers ] && continue
  [[ $name == cuda_core_* ]] && [ $has_core = 0 ] && continue
  for swap in 0 1; do
    o=$(cd "$(dirname "$p")" && CUDAGEN_SWAP=$swap PYTHONPATH=$pp timeout 60 "$py" -W ignore "$p" 2>&1)
    first=$(grep -m1 -E ': FAIL ' <<< "$o")
    if [ -z "$first" ]; then bad "$name (swap=$swap): no FAIL line: $(tail -n 2 <<< "$o" | tr '\n' ' ')"
    elif grep -qE "$loadfail" <<< "$first"; then echo "local_check: $name (swap=$swap) reached the driver: ${first:0:150}"
    else bad "$name (swap=$swap) failed before the driver: $first"
    fi
  done
done
"$py" "$here/numba_compare.py" /dev/null /dev/null > /dev/null; [ $? = 2 ] || bad "numba_compare.py: empty results should exit 2"
echo "local_check: $fails failure(s)"
[ "$fails" = 0 ]
