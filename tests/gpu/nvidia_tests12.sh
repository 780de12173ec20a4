#!/usr/bin/env bash
# NVIDIA's tests and samples of the cuda-bindings 12.9.x era (.carry/nvtests12/, fetched as
# tests/gpu/nvtests/files12.txt lists) against cuda-bindings 12.9.5 and against cudagen's 12.9
# wheel, on the GPU machine (issue #33, "as tagged with cuda-bindings 12.9.5"). The machine has
# CUDA 13 only: both ways find its libraries as a user's program would (cuda-bindings 12.9.5 loads
# libnvrtc.so.13 there; cudagen's loader falls back to the next major the same way).
#
# usage: bash tests/gpu/nvidia_tests12.sh CUDAGEN-WHEEL-FOLDER
# Carried (git-ignored): .carry/whl12/cuda_bindings-12.9.5-*.whl and .carry/nvtests12/.
# Both wheels go into one site folder, first on PYTHONPATH, so `cuda.bindings` is 12.9.5 in both
# ways and the machine's 13.x bindings stay out. Prints nvidia_tests.sh's tables.
set -uo pipefail
cd "$(dirname "$0")/../.."
py=${PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$py" ] || py=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/nvtests12.XXXXXX")
"$py" -m pip install -q --no-deps --target "$work/site" .carry/whl12/cuda_bindings-12.9.5-*.whl "${1:?wheel folder}"/cudagen-*.whl \
  || { echo "nvidia_tests12: pip could not install the wheels"; exit 2; }
echo "nvidia_tests12: $(PYTHONPATH=$work/site "$py" -c 'import cuda.bindings as b, cuda.bindings.nvrtc as n; print("cuda-bindings", b.__version__, "nvrtc", n.nvrtcVersion()[1:])')"
echo "nvidia_tests12: $(PYTHONPATH=$work/site "$py" -c 'import cudagen.nvrtc as n; print("cudagen 12.9 nvrtc", n.nvrtcVersion()[1:])')"
NVTESTS_SRC=$PWD/.carry/nvtests12 bash tests/gpu/nvidia_tests.sh "$work/site"
