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

# The shared libcudart of the bench's dynamic floor and of the second Python run (cudagen's loader
# over it through $CUDAGEN_CUDART_PATH): the given one, else the system's, else the wheel
# cuda.bindings uses. The wheel itself links libcudart_static.a (feature `static-cudart`).
cudart_so=${CUDAGEN_CUDART_PATH:-}
for d in /usr/local/cuda/lib64 $("$py" -c 'import site; print(" ".join(site.getsitepackages()))'); do
  for f in "$d"/libcudart.so.13 "$d"/nvidia/cu13/lib/libcudart.so.13 "$d"/nvidia/cuda_runtime/lib/libcudart.so.13; do
    [ -z "$cudart_so" ] && [ -f "$f" ] && cudart_so=$f
  done
done
unset CUDAGEN_CUDART_PATH
echo "shared libcudart: ${cudart_so:-(none found)}"

"$c/rust/rtsaxpy" > "$work/rust.txt" 2>&1
row "rust: runtime SAXPY + driver launch" "$(result "$work/rust.txt")" "$(grep -o 'max |gpu - cpu| = [^ ]*' "$work/rust.txt")"

# The wheel into a folder of its own on the machine's Python's path (lib.sh).
pip_target "$py" "$work/site" "$c"/whl/*.whl
# The bench's floors (tests/python/bench_rt_floor.c): the dynamic one comes built; the static one
# is built here when this machine has Python's headers and the wheel's libcudart_static.a.
floor="$work/floor"; mkdir -p "$floor"; cp "$c"/floor/*.so "$floor/" 2>/dev/null || true
pyinc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
static_a=$(ls "$(dirname "${cudart_so:-/nonexistent/x}")"/libcudart_static.a 2>/dev/null | head -1)
if [ -f "$pyinc/Python.h" ] && [ -n "$static_a" ] && [ -f "$c/floor/bench_rt_floor.c" ]; then
  gcc -O2 -shared -fPIC -I"$pyinc" "$c/floor/bench_rt_floor.c" "$static_a" -Wl,--exclude-libs,ALL -ldl -lrt -lpthread \
    -o "$floor/bench_rt_floor_static$suffix" || echo "static floor: build failed"
fi
export CUDAGEN_BENCH_FLOOR="$floor" CUDAGEN_BENCH_CUDART="$cudart_so"
"$py" "$c/runtime_py.py" > "$work/py.txt" 2>&1
CUDAGEN_CUDART_PATH="$cudart_so" "$py" "$c/runtime_py.py" > "$work/py_shared.txt" 2>&1
for mode in py py_shared; do
  label=$([ $mode = py ] && echo "static cudart" || echo "shared libcudart")
  row "python ($label): runtime SAXPY + mixing" "$(result "$work/$mode.txt")" "$(grep -c ' ok$' "$work/$mode.txt") checks ok"
  while read -r _ name ours theirs ratio floors; do row "  bench $name (ns ours/theirs)" INFO "$ours / $theirs = $ratio ${floors:+floors $floors}"; done < <(grep '^BENCH ' "$work/$mode.txt" | grep -v 'skipped\|note')
done
grep -h '^BENCH note' "$work/py.txt"

if gcc -std=c99 -O2 -I "$c/c/include" "$c/c/runtime_saxpy.c" -L "$c/c" -Wl,-rpath,"$PWD/$c/c" -lcudagen -lm -o "$work/csaxpy" > "$work/cc.txt" 2>&1; then
  CUDAGEN_TRACE=1 CUDAGEN_TRACE_FILE="$work/trace.txt" "$work/csaxpy" > "$work/c.txt" 2>&1
  row "c: runtime SAXPY through the shim, traced" "$(result "$work/c.txt")" "$(grep -c 'cuda[A-Z]' "$work/trace.txt" 2>/dev/null) runtime trace lines, links: $(ldd "$work/csaxpy" | grep -c 'libcudart') libcudart"
else
  row "c: build against cudagen headers" FAIL "$(head -c 200 "$work/cc.txt")"
fi

echo; printf '%s\n' "${rows[@]}"
for f in rust py py_shared c; do echo "---- $f"; cat "$work/$f.txt" 2>/dev/null | tail -n 15; done
grep -m 8 'cuda[A-Z]' "$work/trace.txt" 2>/dev/null
