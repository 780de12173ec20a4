#!/usr/bin/env bash
# Issue #25: builds here what tests/gpu/runtime.sh runs on the GPU machine (CUDA 13.0 driver,
# libcudart.so.13 only) into .carry/runtime: the Rust runtime SAXPY against the crate regenerated
# from the 13.0 headers, the 13.0 C shim with its headers, the 13.0 Python module as a cp312
# wheel, and the scripts. Leaves the rest of .carry alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
# wheels link NVIDIA's static cudart of the release they bind (pyproject.toml's `static-cudart`)
export CUDAGEN_CUDART_STATIC=$(cudart_static 13.0)
root=$(pwd)
out=.carry/runtime
rm -rf "$out"
mkdir -p "$out/rust" "$out/whl" "$out/c"

echo "== regenerate CUDA 13.0 (the caller's target dir: xtask is built there already)"
cargo xtask regen --cuda 13.0 --out target/v13_0/gen | tail -n 1
export CARGO_TARGET_DIR="$root/target/v13gpu"
export CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false CARGO_INCREMENTAL=0
cat > target/v13_0/Cargo.toml <<'TOML'
[workspace]
resolver = "2"
members = ["gen/rust", "gen/python", "gen/c"]
TOML
cp Cargo.lock target/v13_0/Cargo.lock

echo "== Rust runtime SAXPY against the 13.0 crate"
cargo build --release --manifest-path tests/gpu/rtsaxpy/Cargo.toml
cp "$CARGO_TARGET_DIR/release/rtsaxpy" "$out/rust/"

echo "== C shim from 13.0"
cargo build --release --manifest-path target/v13_0/Cargo.toml -p cudagen-shim
cp "$CARGO_TARGET_DIR/release/libcudagen.so" "$out/c/"
cp -r target/v13_0/gen/c/include "$out/c/include"
cp tests/gpu/runtime_saxpy.c "$out/c/"

echo "== Python module from 13.0, CPython 3.12 wheel"
py312=
for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
  if "$c" -c "import sys; assert sys.version_info[:2] == (3, 12)" 2>/dev/null; then py312=$c; break; fi
done
[ -n "$py312" ] || { echo "bundle_runtime: no CPython 3.12 here" >&2; exit 1; }
maturin=.venv/bin/maturin
[ -x "$maturin" ] || { python3 -m venv .venv && .venv/bin/pip install -q "maturin>=1.5,<2"; }
"$maturin" build --release --strip --quiet -m target/v13_0/gen/python/Cargo.toml -o "$out/whl" \
  -i "$py312" --no-default-features --features extension-module,static-cudart
cp tests/gpu/runtime_py.py "$out/"
# the bench's floors: the dynamic one built here for CPython 3.12; the source for the static one,
# which runtime.sh builds there against the wheel's libcudart_static.a
mkdir -p "$out/floor"
cp tests/python/bench_rt_floor.c "$out/floor/"
sysconfig() { "$py312" -c "import sysconfig; print(sysconfig.$1)"; }
gcc -O2 -shared -fPIC -I"$(sysconfig "get_paths()['include']")" -DFLOOR_DYNAMIC -DCUDART_MAJOR=13 \
  tests/python/bench_rt_floor.c -ldl -o "$out/floor/bench_rt_floor_dyn$(sysconfig "get_config_var('EXT_SUFFIX')")"
du -sh "$out"
