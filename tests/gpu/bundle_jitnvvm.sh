#!/usr/bin/env bash
# Builds, HERE, what tests/gpu/jitnvvm.sh runs on the GPU machine (issue #25: nvJitLink and NVVM,
# CUDA 13.0 toolkit and driver there, no Rust, no network) into the git-ignored .carry/jitnvvm/
# (the rest of .carry/ is left alone). Then: device run with carry [".carry"] and
# `bash tests/gpu/jitnvvm.sh`.
#
# Needs what `cargo xtask test` provisions (.cache/ with the 13.0 header wheels and libclang;
# regen fetches what is missing), maturin in .venv, and a CPython 3.12 for the cp312 wheel.
# Sources under target/ (git-ignored): target/jn13/gen (`cargo xtask regen --cuda 13.0`) with a
# scratch workspace target/jn13/Cargo.toml. Carried (.carry/jitnvvm, stripped):
#   rust/jitnvvm        tests/gpu/jitnvvm against the 13.0 crate
#   whl/cudagen-*-cp312-*.whl   the Python module from the 13.0 headers
#   c/libcudagen.so, c/include/ the C shim and headers from the 13.0 headers
#   MANIFEST            what was built from which commit
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
# wheels link NVIDIA's static cudart of the release they bind (pyproject.toml's `static-cudart`)
export CUDAGEN_CUDART_STATIC=$(cudart_static 13.0)
root=$(pwd)
out=.carry/jitnvvm
start=$SECONDS
rm -rf "$out"
mkdir -p "$out/rust" "$out/whl" "$out/c"
step() { echo "== $* ($((SECONDS - start)) s)"; }

step "regenerate CUDA 13.0"
# (the xtask with the caller's CARGO_TARGET_DIR: the release builds below get their own)
cargo xtask regen --cuda 13.0 --out target/jn13/gen | tail -n 1
export CARGO_TARGET_DIR="${CUDAGEN_GPU_TARGET_DIR:-$root/target/jn13gpu}"
export CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false CARGO_INCREMENTAL=0
cat > target/jn13/Cargo.toml <<'TOML'
# Written by tests/gpu/bundle_jitnvvm.sh: the crates generated from CUDA 13.0, outside the repository's workspace.
[workspace]
resolver = "2"
members = ["gen/rust", "gen/python", "gen/c"]
TOML
cp Cargo.lock target/jn13/Cargo.lock

step "Rust binary against the 13.0 crate"
cargo build --release --manifest-path tests/gpu/jitnvvm/Cargo.toml
cp "$CARGO_TARGET_DIR/release/jitnvvm" "$out/rust/jitnvvm"

step "C shim from 13.0"
cargo build --release --manifest-path target/jn13/Cargo.toml -p cudagen-shim
cp "$CARGO_TARGET_DIR/release/libcudagen.so" "$out/c/"
cp -r target/jn13/gen/c/include "$out/c/include"

step "Python module from 13.0, CPython 3.12 wheel"
py312=
for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
  if "$c" -c "import sys; assert sys.version_info[:2] == (3, 12)" 2>/dev/null; then py312=$c; break; fi
done
[ -n "$py312" ] || { echo "bundle_jitnvvm: no CPython 3.12 here (the GPU machine's interpreter)" >&2; exit 1; }
.venv/bin/maturin build --release --strip --quiet -m target/jn13/gen/python/Cargo.toml -o "$out/whl" \
  -i "$py312" --no-default-features --features extension-module,static-cudart

{
  echo "built by tests/gpu/bundle_jitnvvm.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with local changes)')"
  echo "13.0 headers: $(head -n 1 target/jn13/gen/rust/Cargo.toml)"
  (cd "$out" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} > "$out/MANIFEST"
cat "$out/MANIFEST"
step "done"
du -sh "$out"
