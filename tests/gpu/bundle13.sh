#!/usr/bin/env bash
# Builds, HERE, what tests/gpu/run13.sh runs on the GPU machine (issue #12: CUDA 13.x output on a
# CUDA 13.0 driver) into the git-ignored .carry/v13/ (the rest of .carry/ is left alone: bundle.sh
# wipes and refills it, so run bundle.sh first when both are wanted). That machine has no Rust
# toolchain and no network. Then: device run with carry [".carry"] and `bash tests/gpu/run13.sh`.
#
# Needs what `cargo xtask test` provisions: .cache/ (13.0 and 13.5 header wheels, libclang; regen
# fetches what is missing), maturin in .venv or .venv13 (made here if neither has one), and a
# CPython 3.12 (python3.12 on PATH or under ~/.pyenv) for the extension's cp312 wheel.
#
# Sources, all under target/ (git-ignored):
#   target/v13_0/gen   `cargo xtask regen --cuda 13.0`; target/v13_0/Cargo.toml makes its three
#                      crates a scratch workspace (the repository's Cargo.lock copied beside it)
#   target/v13_5/gen   `cargo xtask regen --cuda 13.5` (its Rust crate only)
#   target/v13_5/saxpy13  a copy of tests/gpu/saxpy13 whose `cudagen` path is ../gen/rust
#   target/v13gpu      the one CARGO_TARGET_DIR of all these release builds
# Carried (.carry/v13, ~5 MB; everything stripped):
#   rust/saxpy13_0     tests/gpu/saxpy13 against the 13.0 crate
#   rust/saxpy13_5     the same against the 13.5 crate, feature cuda13_4 (cuDeviceGetCliqueCount)
#   whl/cudagen-*-cp312-*.whl   the Python module generated from 13.0 headers (CPython 3.12 only)
#   c/libcudagen.so, c/include/ the C shim and headers generated from 13.0 (for tests/c/gpu.sh)
#   MANIFEST           what was built from which commit and headers
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
# wheels link NVIDIA's static cudart of the release they bind (pyproject.toml's `static-cudart`)
export CUDAGEN_CUDART_STATIC=$(cudart_static 13.0)
root=$(pwd)
out=.carry/v13
start=$SECONDS
rm -rf "$out"
mkdir -p "$out/rust" "$out/whl" "$out/c"

export CARGO_TARGET_DIR="$root/target/v13gpu"
# one profile for every build (the saxpy13 crate says the same), so shared units build once
export CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false CARGO_INCREMENTAL=0

step() { echo "== $* ($((SECONDS - start)) s)"; }

step "regenerate CUDA 13.0 and 13.5"
cargo xtask regen --cuda 13.0 --out target/v13_0/gen | tail -n 1
cargo xtask regen --cuda 13.5 --out target/v13_5/gen | tail -n 1
cat > target/v13_0/Cargo.toml <<'EOF'
# Written by tests/gpu/bundle13.sh: the crates generated from CUDA 13.0, outside the repository's workspace.
[workspace]
resolver = "2"
members = ["gen/rust", "gen/python", "gen/c"]
EOF
cp Cargo.lock target/v13_0/Cargo.lock

step "Rust SAXPY against the 13.0 crate"
cargo build --release --manifest-path tests/gpu/saxpy13/Cargo.toml
cp "$CARGO_TARGET_DIR/release/saxpy13" "$out/rust/saxpy13_0"

step "Rust SAXPY against the 13.5 crate, feature cuda13_4"
s135=target/v13_5/saxpy13
rm -rf "$s135"
mkdir -p "$s135"
cp tests/gpu/saxpy13/main.rs tests/gpu/saxpy13/Cargo.lock "$s135/"
sed 's|^cudagen = { path = "../../../target/v13_0/gen/rust" }$|cudagen = { path = "../gen/rust" }|' \
  tests/gpu/saxpy13/Cargo.toml > "$s135/Cargo.toml"
grep -qx 'cudagen = { path = "../gen/rust" }' "$s135/Cargo.toml" \
  || { echo "bundle13: the cudagen path line of tests/gpu/saxpy13/Cargo.toml changed; update the sed here" >&2; exit 1; }
cargo build --release --manifest-path "$s135/Cargo.toml" --features cuda13_4
cp "$CARGO_TARGET_DIR/release/saxpy13" "$out/rust/saxpy13_5"

step "C shim from 13.0"
cargo build --release --manifest-path target/v13_0/Cargo.toml -p cudagen-shim
cp "$CARGO_TARGET_DIR/release/libcudagen.so" "$out/c/"
cp -r target/v13_0/gen/c/include "$out/c/include"

step "Python module from 13.0, CPython 3.12 wheel"
py312=
for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
  if "$c" -c "import sys; assert sys.version_info[:2] == (3, 12)" 2>/dev/null; then py312=$c; break; fi
done
[ -n "$py312" ] || { echo "bundle13: no CPython 3.12 here (the GPU machine's interpreter); install one" >&2; exit 1; }
maturin=
for m in .venv/bin/maturin .venv13/bin/maturin; do [ -x "$m" ] && { maturin=$m; break; }; done
if [ -z "$maturin" ]; then
  python3 -m venv .venv && .venv/bin/pip install -q "maturin>=1.5,<2"
  maturin=.venv/bin/maturin
fi
"$maturin" build --release --strip --quiet -m target/v13_0/gen/python/Cargo.toml -o "$out/whl" \
  -i "$py312" --no-default-features --features extension-module,static-cudart

# NVIDIA's own tests (never committed: their licence) travel in .carry/peer, which bundle.sh
# fills from CUDAGEN_PEER_TESTS; refreshed here too when that is set.
if [ -n "${CUDAGEN_PEER_TESTS:-}" ]; then
  rm -rf .carry/peer
  cp -r "$CUDAGEN_PEER_TESTS" .carry/peer
fi

{
  echo "built by tests/gpu/bundle13.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with local changes)')"
  echo "13.0 headers: $(head -n 1 target/v13_0/gen/rust/Cargo.toml)"
  echo "13.5 headers: $(head -n 1 target/v13_5/gen/rust/Cargo.toml)"
  (cd "$out" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} > "$out/MANIFEST"
cat "$out/MANIFEST"
step "done"
du -sh "$out"
[ -e .carry/peer/run.sh ] && echo ".carry/peer/run.sh present: run13.sh will run NVIDIA's tests" \
  || echo ".carry/peer/run.sh absent: run13.sh will skip NVIDIA's tests (set CUDAGEN_PEER_TESTS)"
