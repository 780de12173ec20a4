#!/usr/bin/env bash
# Issue #25 on the GPU machine (CUDA 13.0 toolkit and driver, Python 3.12 at /opt/torch/.venv):
# nvJitLink and NVVM end to end through each surface, with what tests/gpu/bundle_jitnvvm.sh
# carried in .carry/jitnvvm. Run from the repository root: `bash tests/gpu/jitnvvm.sh`. Prints
# one row per check and exits 1 when any fails.
#   rust      the Rust binary (13.0 crate): NVRTC -dlto -> nvJitLink cubin and NVVM IR -> PTX,
#             each cuModuleLoadData'd, launched on 1M floats, compared with the CPU
#   python    the same through the cp312 wheel (a venv over /opt/torch/.venv), and NVIDIA's
#             cuda.bindings nvjitlink/nvvm must give the same cubin and PTX bytes
#   c-nvidia  tests/c/jitlink.c built against NVIDIA's headers, linked -lnvJitLink -lnvvm -lnvrtc
#             -lcuda, run plain, then under LD_PRELOAD of the 13.0 shim with tracing: same
#             result, and the trace shows __nvJitLinkCreate_13_0 ... and nvvmCompileProgram
#   c-cudagen jitlink.c built against the shim's own 13.0 headers, linked -lcudagen only
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
carry=.carry/jitnvvm
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d "${TMPDIR:-/tmp}/jitnvvm.XXXXXX")
trap 'rm -rf "$work"' EXIT
declare -a rows
fails=0
row() { rows+=("$(printf '%-34s %-5s %s' "$1" "$2" "${3:-}")"); [ "$2" = PASS ] || fails=$((fails + 1)); }
# name, output file: PASS on "RESULT: PASS", with the step lines as detail
judge() {
  sed 's/^/  | /' "$2"
  if grep -q '^RESULT: PASS' "$2"; then row "$1" PASS "$(grep -E '^(launch|oracle)' "$2" | tr '\n' ';' | cut -c1-150)"
  else row "$1" FAIL "$(grep '^RESULT' "$2" | head -1)"; fi
}
[ -f "$carry/MANIFEST" ] || { echo "no $carry: run tests/gpu/bundle_jitnvvm.sh and carry .carry" >&2; exit 1; }
cat "$carry/MANIFEST" | head -2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null

echo "== rust"
"$carry/rust/jitnvvm" > "$work/rust.out" 2>&1
judge "rust (13.0 crate)" "$work/rust.out"

echo "== python"
python=/opt/torch/.venv/bin/python
# The wheel into a folder of its own, on the PYTHONPATH of the machine's Python (lib.sh).
pip_target $python "$work/site" "$carry"/whl/*.whl
$python tests/gpu/jitnvvm.py > "$work/py.out" 2>&1
judge "python (13.0 wheel)" "$work/py.out"

echo "== C against NVIDIA's headers, plain and under LD_PRELOAD"
libs="-L$cuda/lib64 -L$cuda/lib64/stubs -L$cuda/nvvm/lib64 -lnvJitLink -lnvvm -lnvrtc -lcuda"
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/nvvm/lib64:${LD_LIBRARY_PATH:-}"
if gcc -std=c99 -Wall -Werror -I "$cuda/include" -I "$cuda/nvvm/include" tests/c/jitlink.c -o "$work/jl-nv" $libs; then
  "$work/jl-nv" > "$work/c-plain.out" 2>&1
  judge "c-nvidia plain" "$work/c-plain.out"
  LD_PRELOAD="$PWD/$carry/c/libcudagen.so" CUDAGEN_TRACE_FILE="$work/c.trace" "$work/jl-nv" > "$work/c-pre.out" 2>&1
  judge "c-nvidia LD_PRELOAD shim" "$work/c-pre.out"
  echo "  trace (nvJitLink and NVVM lines):"; grep -E '__nvJitLink|nvJitLinkVersion|nvvm' "$work/c.trace" | cut -c1-160 | sed 's/^/  > /'
  if grep -q '__nvJitLinkCreate_13_0(.*-> NVJITLINK_SUCCESS' "$work/c.trace" && grep -q '__nvJitLinkGetLinkedCubin_13_0(' "$work/c.trace" \
      && grep -q 'nvvmCompileProgram(.*-> NVVM_SUCCESS' "$work/c.trace" && grep -q 'cuModuleLoadData(' "$work/c.trace"; then
    row "c-nvidia trace" PASS "$(grep -cE '__nvJitLink|nvvm' "$work/c.trace") nvJitLink/NVVM lines, $(wc -l < "$work/c.trace") in all"
  else
    row "c-nvidia trace" FAIL "versioned nvJitLink / NVVM calls not traced"
  fi
else
  row "c-nvidia build" FAIL "gcc"
fi

echo "== C against the shim's 13.0 headers"
if gcc -std=c99 -Wall -Werror -I "$carry/c/include" tests/c/jitlink.c -o "$work/jl-ours" -L "$carry/c" -lcudagen; then
  LD_LIBRARY_PATH="$PWD/$carry/c:$LD_LIBRARY_PATH" "$work/jl-ours" > "$work/c-ours.out" 2>&1
  judge "c-cudagen (-lcudagen only)" "$work/c-ours.out"
else
  row "c-cudagen build" FAIL "gcc"
fi

echo
printf '%-34s %-5s %s\n' CHECK RESULT DETAIL
printf '%s\n' "${rows[@]}"
echo "failures: $fails"
[ "$fails" = 0 ]
