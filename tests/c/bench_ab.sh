#!/usr/bin/env bash
# A/B of shim builds on the GPU machine: bench_pair.c (libcuda against the shim, one process)
# with every call traced and recorded (CUDAGEN_TRACE_FILE=/dev/null, 2k calls and 8 launch
# batches per sample, 60 ms pauses), run ROUNDS times over the given builds in turn (A B A B ...),
# so drift in the machine falls on every build alike. Prints, per build, the added ns of each
# round (median of paired differences) and the median over rounds, then the same over the samples
# where libcuda ran first and where the shim did (bench_pair.c alternates the order). A build is
# shown by its setting and the last two parts of its path.
# Usage: bash tests/c/bench_ab.sh ROUNDS a/libcudagen.so b/libcudagen.so ...
# A build given as VAR=VALUE@path runs with that variable set (CUDAGEN_TRACE_DURATIONS=0@lib.so).
# (BENCH_SAMPLES, default 201, sets the samples of each run.)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:?usage: bench_ab.sh ROUNDS lib.so...}
shift
[ $# -ge 1 ] || { echo "usage: bench_ab.sh ROUNDS lib.so..."; exit 2; }
cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")}
cuda_lib="$cuda_home/lib64"
[ -d "$cuda_lib" ] || cuda_lib="$cuda_home/lib"
work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT
${CC:-gcc} -std=c11 -O2 -Wall -I "$here/../../generated/c/include" "$here/bench_pair.c" -o "$work/bench_pair" \
    -L "$cuda_lib/stubs" -lcuda -ldl || exit 1
export LD_LIBRARY_PATH="$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for r in $(seq "$rounds"); do
    for so in "$@"; do
        setting=
        [[ $so == *@* ]] && setting=${so%%@*}
        CUDAGEN_TRACE_FILE=/dev/null BENCH_SAMPLES=${BENCH_SAMPLES:-201} BENCH_CALLS=2000 BENCH_BATCHES=8 BENCH_PAUSE_MS=60 \
            env $setting "$work/bench_pair" "${so#*@}" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
        grep -q "skipped: no driver" "$work/out" && { echo "skipped: no driver"; exit 0; }
        # rows: | name | libcuda | shim | diff | diff, libcuda first | diff, shim first |
        awk -F'|' -v so="$so" -v r="$r" '/^\| cu/ { for (i = 2; i <= 7; i++) gsub(/ +/, "", $i); print so, r, $2, $5, $6, $7 }' \
            "$work/out" >> "$work/rows"
    done
done
python3 - "$work/rows" "$@" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
builds = sys.argv[2:]
calls = list(dict.fromkeys(r[2] for r in rows))
def table(col, note):
    print(f"\n{note}\n\n| build | " + " | ".join(calls) + " |")
    print("| --- |" + " ---: |" * len(calls))
    for b in builds:
        cells = []
        for c in calls:
            v = [float(r[col]) for r in rows if r[0] == b and r[2] == c]
            cells.append(f"{statistics.median(v):+.0f} ({', '.join(f'{x:+.0f}' for x in v)})")
        setting, _, path = b.rpartition("@")
        label = (setting + " " if setting else "") + "/".join(path.split("/")[-2:])
        print(f"| {label} | " + " | ".join(cells) + " |")
table(3, "added ns: median over rounds (each round's median of paired differences)")
table(4, "the same over the samples where libcuda ran first")
table(5, "the same over the samples where the shim ran first")
EOF
