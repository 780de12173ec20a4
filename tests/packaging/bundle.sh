#!/usr/bin/env bash
# Issue #27, built HERE: every package a user would get, consumed from outside the repository.
#   1. `cargo package` of the crate `cudagen` (generated/rust, both API eras) -> its .crate,
#      unpacked under $WORK as a registry would serve it;
#   2. two fresh projects under $WORK (tests/packaging/saxpy/main.rs, the same code) depending on
#      the unpacked crate: `cudagen = { path }` (cuda-12, the default) and
#      `{ path, default-features = false, features = ["cuda-13"] }`; release-built;
#   3. tests/c/install.sh (the C library installed, found through pkg-config and CMake) and
#      tests/python/packaging.sh (wheels and sdists for 12.9 and 13.5, fresh venvs), unless
#      ONLY_RUST=1.
# Carried (.carry/packaging, git-ignored; the GPU machine has no Rust): rust/saxpy_cuda12,
# rust/saxpy_cuda13, c/prefix (bin/saxpy_{pkgconfig,static,cmake}), py/*.whl and MANIFEST.
# Then a device run with carry [".carry"] and `bash tests/gpu/packaging.sh`.
#   WORK      scratch folder outside the repository (default: a new /tmp/cudagen-packaging.XXXX)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=$root/.carry/packaging
work=${WORK:-$(mktemp -d /tmp/cudagen-packaging.XXXXXX)}
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)"; }
rm -rf "$out/rust" && mkdir -p "$out/rust" "$work"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
repo_target=$CARGO_TARGET_DIR

step "cargo package -p cudagen"
cargo package -p cudagen --no-verify --allow-dirty --quiet
crate=$CARGO_TARGET_DIR/package/cudagen-0.1.0.crate
ls -l "$crate"
rm -rf "$work/registry" && mkdir -p "$work/registry"
tar -xzf "$crate" -C "$work/registry"
# a .crate stores fixed mtimes: without this, cargo would keep a build of an older .crate
find "$work/registry" -type f -exec touch {} +

# project NAME DEPENDENCY-LINE [FEATURES-TABLE]
project() {
  local dir=$work/$1
  rm -rf "$dir" && mkdir -p "$dir/src"
  cp tests/packaging/saxpy/main.rs "$dir/src/main.rs"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
$2

[features]
$3

[workspace]

[profile.release]
strip = true
TOML
}
project saxpy_cuda12 "cudagen = { path = \"../registry/cudagen-0.1.0\" }" "cuda13_4 = []"
project saxpy_cuda13 "cudagen = { path = \"../registry/cudagen-0.1.0\", default-features = false, features = [\"cuda-13\"] }" "cuda13_4 = []"

export CARGO_TARGET_DIR=$work/target
for p in saxpy_cuda12 saxpy_cuda13; do
  step "fresh project $p (release)"
  features=; [ $p = saxpy_cuda13 ] && features="--features cuda13_4"
  cargo build --release --quiet --manifest-path "$work/$p/Cargo.toml" $features
  cp "$CARGO_TARGET_DIR/release/$p" "$out/rust/$p"
done

export CARGO_TARGET_DIR=$repo_target
if [ "${ONLY_RUST:-0}" != 1 ]; then
  step "tests/c/install.sh"
  WORK=$work/c bash tests/c/install.sh
  step "tests/python/packaging.sh"
  WORK=$work/py bash tests/python/packaging.sh
fi

{
  echo "built by tests/packaging/bundle.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with local changes)')"
  echo "crate: $(basename "$crate") $(stat -c %s "$crate") bytes"
  (cd "$out" && find . -type f ! -name MANIFEST | sort | xargs sha256sum)
} > "$out/MANIFEST"
cat "$out/MANIFEST"
step "done ($work)"
