#!/usr/bin/env bash
# NVIDIA's tests and samples of the cuda-bindings 12.9.x era (.carry/nvtests12/, fetched as
# tests/gpu/nvtests/files12.txt lists) against cuda-bindings 12.9.5 and against cudagen's 12.9
# wheel, on the GPU machine (issue #33, "as tagged with cuda-bindings 12.9.5"). The machine has
# CUDA 13 only, so NVRTC 12.9 travels too, as xz-compressed libraries.
#
# usage: bash tests/gpu/nvidia_tests12.sh CUDAGEN-WHEEL-FOLDER
# Carried (git-ignored; NV12_LIB below when they do not fit one call): .carry/whl12/cuda_bindings-12.9.5-*.whl, .carry/nv12/libnvrtc.so.12.xz and
# libnvrtc-builtins.so.12.9.xz (from the nvidia-cuda-nvrtc-cu12 12.9 wheel), .carry/nvtests12/.
# Both wheels go into one site folder, first on PYTHONPATH, so `cuda.bindings` is 12.9.5 in both
# ways and the machine's 13.x bindings stay out. Prints nvidia_tests.sh's tables.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
py=${PYTHON:-/opt/torch/.venv/bin/python}
[ -x "$py" ] || py=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/nvtests12.XXXXXX")
# NV12_LIB: a folder that already holds the unpacked libraries (a warm machine keeps /tmp; the
# carried .xz files and the rest of the carry may not fit in one call)
lib=${NV12_LIB:-$work/lib}
mkdir -p "$lib"
[ -f "$lib/libnvrtc.so.12" ] || for f in .carry/nv12/*.xz; do xz -dc "$f" > "$lib/$(basename "$f" .xz)"; done
ln -sf libnvrtc.so.12 "$lib/libnvrtc.so"
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDAGEN_NVRTC_PATH="$lib/libnvrtc.so.12"
"$py" -m pip install -q --no-deps --target "$work/site" .carry/whl12/cuda_bindings-12.9.5-*.whl "${1:?wheel folder}"/cudagen-*.whl \
  || { echo "nvidia_tests12: pip could not install the wheels"; exit 2; }
echo "nvidia_tests12: $(PYTHONPATH=$work/site "$py" -c 'import cuda.bindings as b, cuda.bindings.nvrtc as n; print("cuda-bindings", b.__version__, "nvrtc", n.nvrtcVersion())')"
NVTESTS_SRC=$PWD/.carry/nvtests12 bash tests/gpu/nvidia_tests.sh "$work/site"
