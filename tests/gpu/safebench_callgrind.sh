#!/usr/bin/env bash
# Instructions per launch, checked (safe) against typed, on the fake driver of safebench_fake.sh
# (tests/gpu/bench_safe/fake_cuda.c), here, without a GPU: the release safebench runs
# SAFEBENCH_COUNT=PATH:N under callgrind for two N, and the difference of the totals divided by
# the difference of N is one launch's instructions (setup cancels; the fake's cuLaunchKernel is
# in both paths). Needs valgrind.
# Usage: bash tests/gpu/safebench_callgrind.sh [N1 N2]   (default 1000 11000; CARGO_TARGET_DIR honoured)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
n1=${1:-1000}
n2=${2:-11000}
CARGO_TARGET_DIR=$target cargo build --release --locked -q --manifest-path tests/gpu/bench_safe/Cargo.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -ffp-contract=off -shared -fPIC -o "$work/libfakecuda.so" tests/gpu/bench_safe/fake_cuda.c
ln -s libfakecuda.so "$work/libcuda.so"
total() { # PATH N -> total instructions of one run
  CUDAGEN_LIBCUDA=$work/libfakecuda.so CUDAGEN_NVRTC_PATH=$work/libfakecuda.so LD_LIBRARY_PATH=$work SAFEBENCH_COUNT="$1:$2" \
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1.$2" "$target/release/safebench" > /dev/null 2> "$work/log.$1.$2"
  sed -n 's/^summary: *//p' "$work/cg.$1.$2"
}
declare -A per
for path in typed safe; do
  a=$(total "$path" "$n1")
  b=$(total "$path" "$n2")
  per[$path]=$(( (b - a) / (n2 - n1) ))
  echo "callgrind: $path: $a instructions for $n1 launches, $b for $n2: ${per[$path]} a launch"
done
echo "callgrind: checked launch - typed launch = $(( per[safe] - per[typed] )) instructions a launch (5 arguments, 3 buffers)"
