#!/usr/bin/env bash
# Fills, HERE, .carry/clients/whl with the wheels numba-cuda's tests import beyond numba-cuda
# itself (filecheck; cffi and pycparser for its FFI tests), for CPython 3.12 on x86-64: the GPU
# machine has no network. tests/gpu/clients/numba_cuda.sh installs them there into a scratch
# folder only when its interpreter lacks them. The rest of .carry/ is left alone (bundle.sh wipes
# .carry/ whole: run this after it). ~0.3 MB.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=.carry/clients/whl
rm -rf "$out"
mkdir -p "$out"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform any \
  -d "$out" filecheck cffi
ls -l "$out"
