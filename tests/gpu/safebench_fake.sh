#!/usr/bin/env bash
# safebench against a fake driver (tests/gpu/bench_safe/fake_cuda.c), here, without a GPU:
# checks that the benchmark's four paths run and compute SAXPY right before a GPU run, and shows
# each library's host-side work per operation (the fake does each call at once, in host memory;
# its times are not a driver's). Builds the fake with gcc and the benchmark in release.
# Usage: bash tests/gpu/safebench_fake.sh [SAMPLES]   (CARGO_TARGET_DIR honoured; default target/)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
CARGO_TARGET_DIR=$target cargo build --release --locked -q --manifest-path tests/gpu/bench_safe/Cargo.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -ffp-contract=off -shared -fPIC -o "$work/libfakecuda.so" tests/gpu/bench_safe/fake_cuda.c
ln -s libfakecuda.so "$work/libcuda.so"
CUDAGEN_LIBCUDA=$work/libfakecuda.so CUDAGEN_NVRTC_PATH=$work/libfakecuda.so LD_LIBRARY_PATH=$work \
  "$target/release/safebench" "${1:-41}"
