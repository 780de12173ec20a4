#!/usr/bin/env bash
# Issue #27: the Python package `cudagen` for CUDA 12 and 13, as cuda-bindings ships them: one
# name, the CUDA release as the version (12.9.0 from generated/python; 13.5.0 from
# `cargo xtask regen --cuda 13.5 --out $WORK/gen13`). For each: an abi3 wheel (CPython 3.11+)
# and an sdist, built with maturin; each wheel `pip install`ed into a fresh venv, imported, and
# its NVRTC compiling the seed's SAXPY kernel (no GPU here). With SDIST_BUILD=1 the 12.9 sdist is
# also built into a wheel by pip in a fresh venv (downloads maturin; compiles the extension).
# The wheels go to .carry/packaging/py for tests/gpu/packaging.sh (the seed SAXPY on the GPU).
#   WORK     scratch folder outside the repository (default: a new /tmp/cudagen-py.XXXX)
#   MATURIN  maturin to use (default: .venv/bin/maturin, else made in $WORK/tools)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=${WORK:-$(mktemp -d /tmp/cudagen-py.XXXXXX)}
dist=$work/dist
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)"; }
mkdir -p "$dist" && rm -f "$dist"/*
maturin=${MATURIN:-}
if [ -z "$maturin" ]; then
  if [ -x .venv/bin/maturin ]; then maturin=.venv/bin/maturin; else
    python3 -m venv "$work/tools" && "$work/tools/bin/pip" install -q "maturin>=1.5,<2"
    maturin=$work/tools/bin/maturin
  fi
fi

step "regen CUDA 13.5 into $work/gen13 (its own crates, outside the workspace)"
cargo xtask regen --cuda 13.5 --out "$work/gen13" | tail -n 1
. tests/gpu/lib.sh  # cudart_static
for gen in "$root/generated" "$work/gen13"; do
  step "maturin build + sdist: $gen/python"
  # wheels link NVIDIA's static cudart of their release (pyproject.toml's `static-cudart`)
  export CUDAGEN_CUDART_STATIC=$(cudart_static "$([ "$gen" = "$root/generated" ] && echo 12.9 || echo 13.5)")
  # One target folder per era: both crates are `cudagen-python`, and cargo does not copy a fresh
  # (unrebuilt) library over the other era's in a shared release folder, so maturin would
  # package the wrong one.
  CARGO_TARGET_DIR="$work/target-$(basename "$gen")" \
    "$maturin" build --release --strip --quiet -m "$gen/python/Cargo.toml" -o "$dist"
  "$maturin" sdist -m "$gen/python/Cargo.toml" -o "$dist"
done
ls -l "$dist"

nvrtc_lib() { ls "$root/.cache/nvrtc/$1"/libnvrtc.so.* 2>/dev/null | head -n 1; }
check_venv() {  # VENV WHEEL CUDA
  python3 -m venv "$1"
  "$1/bin/pip" install -q --no-index --no-deps "$2"
  CUDAGEN_NVRTC_PATH=$(nvrtc_lib "$3") "$1/bin/python" - "$3" <<'PY'
import sys
from cudagen import driver, nvrtc
src = b'extern "C" __global__ void saxpy(float a, float *x, float *y, float *out, size_t n)' \
      b'{ size_t t = blockIdx.x * blockDim.x + threadIdx.x; if (t < n) out[t] = a * x[t] + y[t]; }'
err, prog = nvrtc.nvrtcCreateProgram(src, b"saxpy.cu", 0, [], [])
assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
err, = nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=compute_80"])
assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
err, size = nvrtc.nvrtcGetPTXSize(prog)
want = sys.argv[1].replace(".", "0") + "0"
print(f"cudagen {driver.__file__.split('/site-packages/')[1]}: CUDA_VERSION {driver.CUDA_VERSION}, NVRTC {nvrtc.nvrtcVersion()[1:]}, saxpy PTX {size} bytes")
assert str(driver.CUDA_VERSION).startswith(sys.argv[1].split(".")[0]), driver.CUDA_VERSION
# The extension is this era's too: cuCtxCreate takes (flags, dev) in 12.x and
# (ctxCreateParams, flags, dev) in 13.x: the arguments are accepted (a TypeError fails the check)
# before the loader looks for libcuda (absent here: its LoaderError, or a status with a driver).
import cudagen
args = (0, 0) if sys.argv[1].startswith("12.") else (None, 0, 0)
try:
    print("cuCtxCreate", args, "->", driver.cuCtxCreate(*args)[0])
except cudagen.LoaderError as e:
    print("cuCtxCreate", args, "accepted; no driver:", str(e).split(";")[0])
PY
}
for cuda in 12.9 13.5; do
  wheel=$(ls "$dist"/cudagen-$cuda.0-*.whl)
  step "fresh venv: pip install $(basename "$wheel")"
  check_venv "$work/venv-$cuda" "$wheel" "$cuda"
done
if [ "${SDIST_BUILD:-0}" = 1 ]; then
  step "fresh venv: pip install the 12.9 sdist (builds the extension)"
  python3 -m venv "$work/venv-sdist"
  "$work/venv-sdist/bin/pip" install -q "$dist"/cudagen-12.9.0.tar.gz
  "$work/venv-sdist/bin/python" -c "from cudagen import driver; print('sdist install: CUDA_VERSION', driver.CUDA_VERSION)"
fi
rm -rf "$root/.carry/packaging/py" && mkdir -p "$root/.carry/packaging/py"
cp "$dist"/*.whl "$root/.carry/packaging/py/"
step "done: $(cd "$dist" && du -h ./* | tr '\n' ' ')"
