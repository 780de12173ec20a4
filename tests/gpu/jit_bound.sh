#!/usr/bin/env bash
# Issue #33, class 1, on the GPU machine: the wheel built from headers newer than the machine's
# CUDA toolkit (13.5 over 13.0) links and launches through nvJitLink and NVVM
# (tests/gpu/jitnvvm.py: LTO-IR -> cubin and NVVM IR -> PTX, each launched on 1M floats and
# compared with numpy and with cuda.bindings' bytes), the trace names every entry bound under
# another export (`cudagen.bind`), and `python -m cudagen` prints the same. Run from the
# repository root: `bash tests/gpu/jit_bound.sh <wheel folder>`; exits 1 when a check fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
python=/opt/torch/.venv/bin/python
work=$(mktemp -d "${TMPDIR:-/tmp}/jitbound.XXXXXX")
trap 'rm -rf "$work"' EXIT
pip_target $python "$work/site" "${1:-.carry/v13/whl}"/*.whl || exit 1
cuda=${CUDA_HOME:-/usr/local/cuda}
export LD_LIBRARY_PATH="$cuda/lib64:$cuda/nvvm/lib64:${LD_LIBRARY_PATH:-}"
# the toolkit's own libraries, whatever else the Python environment ships
export CUDAGEN_NVJITLINK_PATH=$(ls "$cuda"/lib64/libnvJitLink.so.1[0-9] | head -1) CUDAGEN_NVVM_PATH="$cuda/nvvm/lib64/libnvvm.so"
echo "toolkit: $(cat "$cuda/version.json" 2>/dev/null | grep -m1 '"version"' | tr -d ' ,'); $CUDAGEN_NVJITLINK_PATH"
fails=0
CUDAGEN_TRACE=1 CUDAGEN_TRACE_ONLY='cudagen.bind*' CUDAGEN_TRACE_FILE="$work/trace" $python tests/gpu/jitnvvm.py > "$work/run" 2>&1
sed 's/^/  | /' "$work/run"
grep -q '^RESULT: PASS' "$work/run" || fails=$((fails + 1))
echo "trace: $(grep -c 'cudagen.bind(' "$work/trace" 2>/dev/null || echo 0) cudagen.bind lines, e.g."
grep 'cudagen.bind(symbol="__nvJitLinkCreate' "$work/trace" | head -1 | sed 's/^/  /'
grep -q 'cudagen.bind(symbol="__nvJitLinkCreate_13_5") -> "__nvJitLinkCreate_13_0"' "$work/trace" || fails=$((fails + 1))
$python - > "$work/doctor" 2>&1 <<'PY'
from cudagen import nvjitlink as jl
jl.destroy(jl.create(1, ["-arch=sm_90"]))
import runpy
runpy.run_module("cudagen", run_name="__main__")
PY
grep -E '^(cudagen|nvjitlink|nvvm|driver|nvrtc|runtime) |__nvJitLinkCreate' "$work/doctor" | sed 's/^/  doctor | /'
grep -q '^bound NvJitLink: __nvJitLinkCreate_13_5 -> __nvJitLinkCreate_13_0' "$work/doctor" || fails=$((fails + 1))
echo "jit_bound: $fails failed"
[ "$fails" = 0 ]
