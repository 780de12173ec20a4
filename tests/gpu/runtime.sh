#!/usr/bin/env bash
# Issue #25 on the GPU machine (CUDA 13.0 driver, /opt/torch/.venv with cuda.bindings 13.3.1):
# runs what tests/gpu/bundle_runtime.sh put in .carry/runtime and prints one row per check.
#   bash tests/gpu/runtime.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
c=.carry/runtime
py=${PYTHON:-/opt/torch/.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -a rows
row() { rows+=("$(printf '%-46s %-5s %s' "$1" "$2" "${3:-}")"); }
result() { grep -o 'RESULT: [A-Z]*' "$1" | tail -1 | cut -d' ' -f2; }

# the runtime library for cudagen's loader: the system's, else the wheel cuda.bindings uses
if ! ldconfig -p | grep -q 'libcudart.so.13 '; then
  for d in $("$py" -c 'import site; print(" ".join(site.getsitepackages()))'); do
    for f in "$d"/nvidia/cu13/lib/libcudart.so.13 "$d"/nvidia/cuda_runtime/lib/libcudart.so.13; do
      [ -f "$f" ] && export CUDAGEN_CUDART_PATH=${CUDAGEN_CUDART_PATH:-$f}
    done
  done
fi
echo "libcudart: ${CUDAGEN_CUDART_PATH:-(system)}"

"$c/rust/rtsaxpy" > "$work/rust.txt" 2>&1
row "rust: runtime SAXPY + driver launch" "$(result "$work/rust.txt")" "$(grep -o 'max |gpu - cpu| = [^ ]*' "$work/rust.txt")"

# The wheel into a folder of its own on the machine's Python's path (lib.sh).
pip_target "$py" "$work/site" "$c"/whl/*.whl
# The bench's floors (tests/python/bench_rt_floor.c): the dynamic one comes built; the static one
# is built here when this machine has Python's headers and the wheel's libcudart_static.a.
floor="$work/floor"; mkdir -p "$floor"; cp "$c"/floor/*.so "$floor/" 2>/dev/null || true
pyinc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
static_a=$(ls "$(dirname "${CUDAGEN_CUDART_PATH:-/nonexistent/x}")"/libcudart_static.a 2>/dev/null | head -1)
if [ -f "$pyinc/Python.h" ] && [ -n "$static_a" ] && [ -f "$c/floor/bench_rt_floor.c" ]; then
  gcc -O2 -shared -fPIC -I"$pyinc" "$c/floor/bench_rt_floor.c" "$static_a" -Wl,--exclude-libs,ALL -ldl -lrt -lpthread \
    -o "$floor/bench_rt_floor_static$suffix" || echo "static floor: build failed"
fi
CUDAGEN_BENCH_FLOOR="$floor" "$py" "$c/runtime_py.py" > "$work/py.txt" 2>&1
row "python: runtime SAXPY + mixing" "$(result "$work/py.txt")" "$(grep -c ' ok$' "$work/py.txt") checks ok"
while read -r _ name ours theirs ratio floors; do row "python bench $name (ns ours/theirs)" INFO "$ours / $theirs = $ratio ${floors:+floors $floors}"; done < <(grep '^BENCH ' "$work/py.txt" | grep -v 'skipped\|note')
grep '^BENCH note' "$work/py.txt"

if gcc -std=c99 -O2 -I "$c/c/include" "$c/c/runtime_saxpy.c" -L "$c/c" -Wl,-rpath,"$PWD/$c/c" -lcudagen -lm -o "$work/csaxpy" > "$work/cc.txt" 2>&1; then
  CUDAGEN_TRACE=1 CUDAGEN_TRACE_FILE="$work/trace.txt" "$work/csaxpy" > "$work/c.txt" 2>&1
  row "c: runtime SAXPY through the shim, traced" "$(result "$work/c.txt")" "$(grep -c 'cuda[A-Z]' "$work/trace.txt" 2>/dev/null) runtime trace lines, links: $(ldd "$work/csaxpy" | grep -c 'libcudart') libcudart"
else
  row "c: build against cudagen headers" FAIL "$(head -c 200 "$work/cc.txt")"
fi

echo; printf '%s\n' "${rows[@]}"
for f in rust py c; do echo "---- $f"; cat "$work/$f.txt" 2>/dev/null | tail -n 15; done
grep -m 8 'cuda[A-Z]' "$work/trace.txt" 2>/dev/null
