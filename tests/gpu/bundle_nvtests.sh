#!/usr/bin/env bash
# Builds, HERE, the wheel tests/gpu/nvidia_tests.sh installs on the GPU machine: one abi3 (cp311)
# wheel of the Python modules generated from the CUDA 13.5 headers (the newest 13.x of
# headers/versions.toml), release build, NVIDIA's static cudart of 13.5 linked in, into the
# git-ignored .carry/v13/whl/ (only that folder is replaced). NVIDIA's tests themselves are fetched
# into .carry/nvtests/ as tests/gpu/nvtests/README.md says; this script does not touch them.
#
# Needs: `cargo xtask` (regen), .cache/ (fetched by `cargo xtask fetch --cuda 13.5` if needed),
# maturin ($MATURIN or .venv's, made here if missing) and any CPython >= 3.11 (abi3 wheels load on 3.12).
# Sources under target/ (git-ignored): target/v13_5/gen (regen), target/v13_5/Cargo.toml (a scratch
# workspace over it), target/v13rel (the CARGO_TARGET_DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
CUDA=${CUDA:-13.5}
CUDAGEN_CUDART_STATIC=$(cudart_static "$CUDA")
export CUDAGEN_CUDART_STATIC
export CARGO_TARGET_DIR="$PWD/target/v13rel" CARGO_INCREMENTAL=0
export CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false
gen=target/v13_${CUDA#13.}
start=$SECONDS
echo "== regenerate CUDA $CUDA into $gen/gen"
cargo xtask regen --cuda "$CUDA" --out "$gen/gen" | tail -n 1
cat > "$gen/Cargo.toml" <<'EOF'
# Written by tests/gpu/bundle_nvtests.sh: the generated crates, outside the repository's workspace.
[workspace]
resolver = "2"
members = ["gen/rust", "gen/python"]
EOF
cp Cargo.lock "$gen/Cargo.lock"
# $MATURIN, else .venv's (made here if missing)
maturin=${MATURIN:-.venv/bin/maturin}
if [ ! -x "$maturin" ]; then
  python3 -m venv .venv && .venv/bin/pip install -q "maturin>=1.5,<2"
fi
echo "== maturin build --release (abi3, static cudart $CUDAGEN_CUDART_STATIC) ($((SECONDS - start)) s)"
rm -rf .carry/v13/whl
mkdir -p .carry/v13/whl
"$maturin" build --release --strip --quiet -m "$gen/gen/python/Cargo.toml" -o .carry/v13/whl
{
  echo "built by tests/gpu/bundle_nvtests.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with local changes)')"
  echo "headers: $(head -n 1 "$gen/gen/rust/Cargo.toml") (CUDA $CUDA)"
  (cd .carry/v13/whl && sha256sum ./*.whl)
} > .carry/v13/whl/MANIFEST
cat .carry/v13/whl/MANIFEST
echo "== done ($((SECONDS - start)) s)"
du -sh .carry
