#!/usr/bin/env bash
# Builds, HERE, everything the GPU machine runs into the git-ignored .carry/ folder (x86-64 test
# and bench binaries, the Python wheel plus pytest's wheels, the C shim), because that machine
# has no Rust toolchain and no network. Then: device run with carry [".carry"] and
# `bash tests/gpu/run.sh`.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/gpu/lib.sh
# wheels link NVIDIA's static cudart of the release they bind (pyproject.toml's `static-cudart`)
export CUDAGEN_CUDART_STATIC=$(cudart_static 12.9)
out=.carry
rm -rf "$out"
mkdir -p "$out/rust" "$out/whl"

# Copies the named executables out of cargo's JSON messages.
pick() {
  python3 -c '
import json, shutil, sys
want = set(sys.argv[1:])
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in want:
        shutil.copy(m["executable"], ".carry/rust/" + m["target"]["name"])
' "$@"
}
cargo test --release -p cudagen-tests --no-run --message-format=json 2>/dev/null | pick gpu_saxpy nvrtc missing_driver cudarc_interop
cargo bench -p cudagen-tests --bench rust_overhead --no-run --message-format=json 2>/dev/null | pick rust_overhead

if [ -f generated/python/pyproject.toml ]; then
  [ -x .venv/bin/maturin ] || { python3 -m venv .venv && .venv/bin/pip install -q "maturin>=1.5,<2"; }
  .venv/bin/maturin build --release --quiet -m generated/python/Cargo.toml -o "$out/whl"
  # The GPU machine runs CPython 3.12: also a wheel for exactly that version (no abi3), which
  # pip there prefers; built when a 3.12 interpreter is around.
  py312=
  for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if "$c" -c "import sys; assert sys.version_info[:2] == (3, 12)" 2>/dev/null; then py312=$c; break; fi
  done
  if [ -n "$py312" ]; then
    .venv/bin/maturin build --release --quiet -m generated/python/Cargo.toml -o "$out/whl" \
      -i "$py312" --no-default-features --features extension-module,static-cudart
    # the benchmark's reference: the least a GIL-releasing binding can do (bench_floor.c)
    mkdir -p "$out/floor"
    sysconfig() { "$py312" -c "import sysconfig; print(sysconfig.$1)"; }
    gcc -O2 -shared -fPIC -I"$(sysconfig "get_paths()['include']")" tests/python/bench_floor.c -ldl \
      -o "$out/floor/bench_floor$(sysconfig "get_config_var('EXT_SUFFIX')")"
  fi
  python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform any -d "$out/whl" pytest
fi

# NVIDIA's own driver/NVRTC tests with a runner that swaps their imports (kept outside git: NVIDIA's
# licence), when the caller names a folder holding them
if [ -n "${CUDAGEN_PEER_TESTS:-}" ]; then
  cp -r "$CUDAGEN_PEER_TESTS" "$out/peer"
fi

if [ -f generated/c/Cargo.toml ]; then
  cargo build --release -q -p cudagen-shim
  mkdir -p "$out/c"
  cp target/release/libcudagen.so target/release/libcudagen.a "$out/c/"
  cp -r generated/c/include "$out/c/include"
fi
ls -R "$out" | head -40
du -sh "$out"
