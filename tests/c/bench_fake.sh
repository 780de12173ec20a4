#!/usr/bin/env bash
# bench_pair.c without a GPU: against the fake driver tests/c/fake_bench_libcuda.c, whose
# functions return at once, so the table shows what the shim and its tracer add per call on the
# calling thread (median of paired differences, one process). Runs, one after the other:
#   off       tracing off
#   dropped   traced to /dev/null as on the GPU machine (200k calls per sample: the writer cannot
#             keep up with calls this cheap, so most calls find the buffer full and are dropped)
#   recorded  traced to /dev/null, 2k calls and 8 launch batches per sample (about one buffer
#             chunk), 60 ms pauses: every call is recorded, the writer formats between samples
#   busy      traced to /dev/null, 20k calls per sample, 300 ms pauses: every call is recorded,
#             the writer formats while the sample runs
#   summary   CUDAGEN_TRACE_SUMMARY=1 alone (as `busy`; the writer decodes but formats nothing)
# Usage: bash tests/c/bench_fake.sh [path/to/libcudagen.so] [mode...]
# (default: target/release/libcudagen.so, built; modes off dropped recorded busy summary).
# Times are the calling thread's CPU time (BENCH_CLOCK=thread), so preemption by the writer or
# other jobs on a small machine does not count; BENCH_CLOCK=wall for the monotonic clock.
# FAKE_LAUNCH_NS=N makes the fake cuLaunchKernel take N ns.
set -euo pipefail
cd "$(dirname "$0")/../.."
so=${1:-}
shift || true
if [ -z "$so" ]; then
    cargo build --release -q -p cudagen-shim
    target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
    so="$target/release/libcudagen.so"
fi
modes=${*:-off dropped recorded busy summary}
export BENCH_CLOCK=${BENCH_CLOCK:-thread}
CC=${CC:-gcc}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
$CC -shared -fPIC -O2 -Wall -Werror -Wl,-Bsymbolic -Wl,-soname,libcuda.so.1 tests/c/fake_bench_libcuda.c -o "$work/libcuda.so.1"
ln -s libcuda.so.1 "$work/libcuda.so"
$CC -std=c11 -O2 -Wall -I generated/c/include tests/c/bench_pair.c -o "$work/bench_pair" -L "$work" -lcuda -ldl
run() {
    echo "== $1"
    shift
    env -u CUDAGEN_TRACE -u BENCH_CALLS -u BENCH_BATCHES -u BENCH_PAUSE_MS -u CUDAGEN_TRACE_FILE -u CUDAGEN_TRACE_SUMMARY -u CUDAGEN_TRACE_ONLY -u CUDAGEN_TRACE_FORMAT \
        LD_LIBRARY_PATH="$work" CUDAGEN_LIBCUDA="$work/libcuda.so.1" "$@" "$work/bench_pair" "$so"
}
for m in $modes; do
    case $m in
        off) run "tracing off" env ;;
        dropped) run "traced to /dev/null, 200k calls per sample (mostly dropped)" env CUDAGEN_TRACE_FILE=/dev/null ;;
        recorded) run "traced to /dev/null, 2k calls per sample, 60 ms pauses (all recorded)" env CUDAGEN_TRACE_FILE=/dev/null BENCH_CALLS=2000 BENCH_BATCHES=8 BENCH_PAUSE_MS=60 ;;
        busy) run "traced to /dev/null, 20k calls per sample, 300 ms pauses (all recorded, writer busy)" env CUDAGEN_TRACE_FILE=/dev/null BENCH_CALLS=20000 BENCH_PAUSE_MS=300 ;;
        summary) run "summary only, 20k calls per sample, 300 ms pauses" env CUDAGEN_TRACE_SUMMARY=1 BENCH_CALLS=20000 BENCH_PAUSE_MS=300 ;;
        *) echo "unknown mode $m" >&2; exit 2 ;;
    esac
done
