#!/usr/bin/env bash
# GPU-machine tests of the C shim. Builds nothing with cargo: it receives a folder holding
# libcudagen.so, libcudagen.a and include/ (tests/gpu/bundle.sh copies them to .carry/c); the C
# programs are compiled there with gcc / nvcc, which that machine has.
#   bash tests/c/gpu.sh .carry/c
# Suites (a PASS/FAIL table is printed at the end; exit status 0 only when all pass; GPU_SUITES
# names the ones to run, default all):
#   linked      saxpy.c linked -lcudagen: passes; its trace holds every driver/NVRTC call
#   preload     saxpy.c built against the real toolkit (-lcuda -lnvrtc), run with
#               LD_PRELOAD=libcudagen.so: passes; its trace holds every driver/NVRTC call
#   as-libcuda  runtime_saxpy.cu (nvcc -cudart shared) with the shim installed as libcuda.so.1 on
#               LD_LIBRARY_PATH: passes; its driver calls (through cuGetProcAddress) are traced
#   perfetto    the linked saxpy traced with CUDAGEN_TRACE_FORMAT=perfetto: the file is valid JSON
#   clients     real programs with the shim as libcuda.so.1 (LD_LIBRARY_PATH), untraced and traced
#               (with CUDAGEN_TRACE_SUMMARY=1), each RESULT line compared with a run without the
#               shim: PyTorch (matmul + small ops), CuPy (RawKernel + reduction), JAX (jit), an
#               nvcc runtime program (--default-stream per-thread) and saxpy.c built per-thread
#               against the real cuda.h (-lcuda); one PASS/FAIL line each; then traced in JSON and
#               Perfetto too: "launches named / launches" per format (tests/c/launch_names.py),
#               one PASS/FAIL line each (every launch named in every format); and with
#               CUDAGEN_TRACE_ARGS=1: RESULT unchanged, launches showing argument words
#   nsys        the runtime client under `nsys profile --trace=cuda` with the shim as libcuda.so.1
#               and tracing on: both traces written, RESULT unchanged (skipped without nsys)
#   bench       bench_pair.c: libcuda vs libcudagen in one process, then traced to /dev/null (calls
#               mostly dropped); bench_ab.sh: five processes each untraced, every call recorded,
#               recorded without durations
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "${1:-$here/../../.carry/c}" && pwd) || { echo "usage: gpu.sh <folder with libcudagen.so>"; exit 2; }
out=${OUT:-/tmp}/c-shim
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-cgpu.XXXXXX")
CC=${CC:-gcc}
cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")}
[ -d "$cuda_home/include" ] || cuda_home=/usr/local/cuda
cuda_lib="$cuda_home/lib64"
[ -d "$cuda_lib" ] || cuda_lib="$cuda_home/lib"
declare -a rows
fails=0
row() { rows+=("$(printf '%-34s %-5s %s' "$1" "$2" "${3:-}")"); [ "$2" = PASS ] || fails=$((fails + 1)); }
# GPU_SUITES="clients bench" runs only those suites (default: all).
want() { [ -z "${GPU_SUITES:-}" ] || [[ " $GPU_SUITES " == *" $1 "* ]]; }

echo "carry: $carry"; ls -la "$carry"
echo "CUDA toolkit: $cuda_home ($("$cuda_home/bin/nvcc" --version 2>/dev/null | tail -1))"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null

# Driver and NVRTC functions the program calls (API names, from its source), minus those only
# reached on an error path.
expected_calls() {
    grep -oE '\b(cu|nvrtc)[A-Z][A-Za-z0-9]*\(' "$1" | tr -d '(' | sort -u \
        | grep -vxE 'cuGetErrorName|nvrtcGetErrorString|nvrtcGetProgramLog'
}

# Checks that a trace holds each expected API name (as its ABI symbol: cuMemAlloc -> cuMemAlloc_v2).
trace_has_all() { # trace file, source file
    python3 - "$1" <(expected_calls "$2") <<'EOF'
import re, sys
trace = open(sys.argv[1], errors="replace").read()
called = set(re.findall(r"\] ((?:cu|nvrtc)[A-Za-z0-9_]*)\(", trace)) | set(re.findall(r'"fn":"((?:cu|nvrtc)[A-Za-z0-9_]*)"', trace))
want = [l.strip() for l in open(sys.argv[2]) if l.strip()]
def hit(api):
    return any(c == api or re.fullmatch(re.escape(api) + r"(_v\d+)?(_ptds|_ptsz)?", c) for c in called)
missing = [w for w in want if not hit(w)]
print(f"trace: {len(called)} distinct functions; expected {len(want)}, missing {len(missing)}: {' '.join(missing)}")
sys.exit(1 if missing else 0)
EOF
}

# ---------------------------------------------------------------------------------------------
echo; echo "== linked: saxpy.c -lcudagen"
if want linked; then
saxpy="$carry/saxpy"
if [ ! -x "$saxpy" ]; then
    saxpy="$work/saxpy"
    $CC -std=c99 -Wall -Werror -I "$carry/include" "$here/saxpy.c" -o "$saxpy" -L "$carry" -lcudagen -lm || saxpy=
fi
if [ -n "$saxpy" ]; then
    env LD_LIBRARY_PATH="$carry:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDAGEN_TRACE=1 \
        CUDAGEN_TRACE_FILE="$out/linked.trace" "$saxpy" > "$out/linked.out" 2>&1
    rc=$?; cat "$out/linked.out"
    if [ $rc = 0 ] && grep -q '^RESULT: PASS' "$out/linked.out"; then row "linked saxpy" PASS; else row "linked saxpy" FAIL "rc=$rc"; fi
    if trace_has_all "$out/linked.trace" "$here/saxpy.c"; then row "linked trace: every call" PASS "$(wc -l < "$out/linked.trace") lines"; else row "linked trace: every call" FAIL; fi
else
    row "linked saxpy" FAIL "build"
fi
fi

# ---------------------------------------------------------------------------------------------
echo; echo "== preload: saxpy.c against the real toolkit, LD_PRELOAD=libcudagen.so"
if want preload; then
if $CC -std=c99 -Wall -Werror -I "$cuda_home/include" "$here/saxpy.c" -o "$work/saxpy-real" \
    -L "$cuda_lib" -L "$cuda_lib/stubs" -lcuda -lnvrtc -lm; then
    env LD_LIBRARY_PATH="$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/saxpy-real" > "$out/real.out" 2>&1
    grep -q '^RESULT: PASS' "$out/real.out" && row "real toolkit saxpy (no shim)" PASS || { row "real toolkit saxpy (no shim)" FAIL; cat "$out/real.out"; }
    env LD_PRELOAD="$carry/libcudagen.so" LD_LIBRARY_PATH="$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        CUDAGEN_TRACE=1 CUDAGEN_TRACE_FILE="$out/preload.trace" "$work/saxpy-real" > "$out/preload.out" 2>&1
    rc=$?; cat "$out/preload.out"
    if [ $rc = 0 ] && grep -q '^RESULT: PASS' "$out/preload.out"; then row "LD_PRELOAD saxpy" PASS; else row "LD_PRELOAD saxpy" FAIL "rc=$rc"; fi
    if trace_has_all "$out/preload.trace" "$here/saxpy.c"; then row "LD_PRELOAD trace: every call" PASS "$(wc -l < "$out/preload.trace") lines"; else row "LD_PRELOAD trace: every call" FAIL; fi
else
    row "LD_PRELOAD saxpy" FAIL "build against $cuda_home"
fi
fi

# ---------------------------------------------------------------------------------------------
echo; echo "== as-libcuda: runtime_saxpy.cu with the shim installed as libcuda.so.1"
if want as-libcuda; then
mkdir -p "$work/drv"
cp "$carry/libcudagen.so" "$work/drv/libcuda.so.1"
if "$cuda_home/bin/nvcc" -cudart shared -o "$work/runtime_saxpy" "$here/runtime_saxpy.cu"; then
    env LD_LIBRARY_PATH="$work/drv:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDAGEN_TRACE=1 \
        CUDAGEN_TRACE_FILE="$out/runtime.trace" "$work/runtime_saxpy" > "$out/runtime.out" 2>&1
    rc=$?; cat "$out/runtime.out"
    if [ $rc = 0 ] && grep -q '^RESULT: PASS' "$out/runtime.out"; then row "runtime saxpy via shim libcuda" PASS; else row "runtime saxpy via shim libcuda" FAIL "rc=$rc"; fi
    # Which driver calls went through the shim.
    python3 - "$out/runtime.trace" <<'EOF'
import collections, re, sys
names = re.findall(r"\] (cu[A-Za-z0-9_]*)(?:\(passthrough\))?\(", open(sys.argv[1], errors="replace").read())
c = collections.Counter(names)
via = {n for n in c if not n.startswith("cuGetProcAddress") and n not in ("cuDriverGetVersion", "cuGetExportTable")}
print(f"trace: {sum(c.values())} driver calls, {len(c)} distinct; besides cuGetProcAddress/cuDriverGetVersion/cuGetExportTable: {len(via)}")
print("  " + " ".join(f"{n}x{k}" for n, k in c.most_common(40)))
sys.exit(0 if via and any(n.startswith("cuGetProcAddress") for n in c) else 1)
EOF
    if [ $? = 0 ]; then row "runtime trace: driver calls" PASS "$(grep -c '' "$out/runtime.trace") lines"; else row "runtime trace: driver calls" FAIL; fi
else
    row "runtime saxpy via shim libcuda" FAIL "nvcc"
fi
fi

# ---------------------------------------------------------------------------------------------
echo; echo "== perfetto: linked saxpy, CUDAGEN_TRACE_FORMAT=perfetto"
if want perfetto; then
if [ -n "${saxpy:-}" ]; then
    env LD_LIBRARY_PATH="$carry:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDAGEN_TRACE_FORMAT=perfetto \
        CUDAGEN_TRACE_FILE="$out/saxpy.perfetto.json" "$saxpy" > "$out/perfetto.out" 2>&1
    if python3 - "$out/saxpy.perfetto.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))
slices = [e for e in ev if e.get("ph") == "X"]
assert slices and all({"name", "ts", "dur", "tid", "args"} <= e.keys() and "result" in e["args"] for e in slices)
print(f"perfetto: {len(slices)} slices, e.g. {slices[-1]['name']} {slices[-1]['args']}")
EOF
    then row "perfetto JSON parses" PASS "$(grep -c '"ph":"X"' "$out/saxpy.perfetto.json") slices"; else row "perfetto JSON parses" FAIL; fi
fi
fi

# ---------------------------------------------------------------------------------------------
echo; echo "== clients: real programs with the shim as libcuda.so.1"
if want clients; then
shimdir="$work/shimdrv"
mkdir -p "$shimdir"
cp "$carry/libcudagen.so" "$shimdir/libcuda.so.1"
real_libcuda=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
[ -n "$real_libcuda" ] || real_libcuda=/usr/lib/x86_64-linux-gnu/libcuda.so.1
echo "real driver: $real_libcuda"
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
# client NAME COMMAND...: baseline, shim untraced, shim traced + summary; RESULT lines compared.
client() {
    local name=$1; shift
    local base="$out/client-$name"
    timeout 180 env "$@" > "$base.base.out" 2>&1; local rb=$?
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" "$@" > "$base.shim.out" 2>&1; local rs=$?
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_TRACE_FILE="$base.trace" \
        CUDAGEN_TRACE_SUMMARY=1 "$@" > "$base.traced.out" 2>&1; local rt=$?
    local want got1 got2
    want=$(grep '^RESULT' "$base.base.out"); got1=$(grep '^RESULT' "$base.shim.out"); got2=$(grep '^RESULT' "$base.traced.out")
    echo "-- $name: rc $rb/$rs/$rt; baseline: $want; shim: $got1; traced: $got2"
    if [ $rb = 0 ] && [ $rs = 0 ] && [ $rt = 0 ] && [ -n "$want" ] && [ "$want" = "$got1" ] && [ "$want" = "$got2" ] \
        && ! grep -q 'FAIL\|False' <<< "$want"; then
        echo "PASS client $name ($(grep -c '' "$base.trace" 2>/dev/null) trace lines)"
        row "client $name" PASS "$(grep -c '' "$base.trace" 2>/dev/null) trace lines"
    else
        echo "FAIL client $name"; tail -n 15 "$base.shim.out" "$base.traced.out"
        row "client $name" FAIL "rc $rb/$rs/$rt"
    fi
    sed -n '/API summary/,+8p' "$base.traced.out"
    sed -n '/launches by kernel/,+6p' "$base.traced.out"
    # The same run traced in JSON and Perfetto: how many launches each format names.
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_TRACE_FILE="$base.trace.jsonl" \
        CUDAGEN_TRACE_FORMAT=json "$@" > /dev/null 2>&1
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_TRACE_FILE="$base.perfetto.json" \
        CUDAGEN_TRACE_FORMAT=perfetto "$@" > /dev/null 2>&1
    local names
    names=$(python3 "$here/launch_names.py" "$name" "$base.trace" "$base.trace.jsonl" "$base.perfetto.json"); local rn=$?
    echo "$names"
    if [ $rn = 0 ]; then row "client $name: launches named" PASS "$(head -1 <<< "$names" | sed 's/.*: [^ ]* //')"
    else row "client $name: launches named" FAIL "$(head -1 <<< "$names" | sed 's/.*: [^ ]* //')"; fi
    # With kernel arguments (CUDAGEN_TRACE_ARGS=1): the result unchanged, launches showing words.
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_TRACE_FILE="$base.args.trace" \
        CUDAGEN_TRACE_ARGS=1 "$@" > "$base.args.out" 2>&1; local ra=$?
    local got3 words launches
    got3=$(grep '^RESULT' "$base.args.out")
    words=$(grep -c '\] cuLaunch[A-Za-z]*Kernel[A-Za-z_0-9]*(.*kernelParams=\[' "$base.args.trace")
    launches=$(grep -c '\] cuLaunch[A-Za-z]*Kernel[A-Za-z_0-9]*(' "$base.args.trace")
    grep -m2 'kernelParams=\[' "$base.args.trace" | cut -c1-400
    if [ $ra = 0 ] && [ "$want" = "$got3" ] && [ "$words" -gt 0 ]; then
        row "client $name: kernel arguments" PASS "$words/$launches launches with argument words"
    else
        row "client $name: kernel arguments" FAIL "rc $ra; RESULT '$got3'; $words/$launches launches with words"
    fi
}
py=${PYTHON:-python3}
client torch "$py" "$here/clients/torch_client.py"
if printf '%s\n' "${rows[@]}" | grep -qE '^client torch +FAIL'; then
    echo "-- torch diagnostics: cuBLASLt's log"
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUBLASLT_LOG_LEVEL=5 \
        CUBLAS_LOGINFO_DBG=1 CUBLAS_LOGDEST_DBG=stderr "$py" "$here/clients/torch_client.py" 2>&1 | grep -v '^ ' | tail -12 | cut -c1-300
    echo "-- torch diagnostics: the driver's own pointers from cuGetProcAddress (CUDAGEN_GETPROC=driver)"
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_GETPROC=driver \
        "$py" "$here/clients/torch_client.py" 2>&1 | tail -3
    echo "-- torch diagnostics: names looked up with dlsym and not found"
    mkdir -p "$work/lddbg"
    timeout 180 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" LD_DEBUG=symbols,bindings \
        LD_DEBUG_OUTPUT="$work/lddbg/log" "$py" "$here/clients/torch_client.py" > /dev/null 2>&1
    "$py" "$here/dlsym_misses.py" "$work"/lddbg/log.* | head -80
fi
client cupy "$py" "$here/clients/cupy_client.py"
client jax "$py" "$here/clients/jax_client.py"
if "$cuda_home/bin/nvcc" --default-stream per-thread -o "$work/runtime_ptds" "$here/runtime_ptds.cu"; then
    client runtime-ptds "$work/runtime_ptds"
else
    row "client runtime-ptds" FAIL "nvcc"
fi
if $CC -std=c99 -Wall -Werror -DCUDA_API_PER_THREAD_DEFAULT_STREAM -I "$cuda_home/include" "$here/saxpy.c" \
    -o "$work/saxpy-ptds" -L "$cuda_lib" -L "$cuda_lib/stubs" -lcuda -lnvrtc -lm; then
    nm -D "$work/saxpy-ptds" | grep -E '_pt(ds|sz)' | head -5
    client driver-ptds "$work/saxpy-ptds"
else
    row "client driver-ptds" FAIL "build"
fi
# nsys (CUPTI) and the shim on one program: both traces written, the result unchanged.
echo; echo "== nsys: the runtime client under nsys profile --trace=cuda, the shim as libcuda.so.1, traced"
# (Nsight Compute ships an nsys of its own under host/target-linux-x64.)
nsys=$(command -v nsys 2>/dev/null || ls -d "$cuda_home"/bin/nsys /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys \
    /opt/nvidia/nsight-systems*/target-linux-x64/nsys /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | tail -1)
if [ -z "$nsys" ] || [ ! -x "$nsys" ]; then
    echo "nsys not found (PATH, $cuda_home/bin, /usr/local/cuda/bin, /opt/nvidia/nsight-systems*, /opt/nvidia/nsight-compute/*/host): skipped"
    row "nsys + shim" SKIP "no nsys"; fails=$((fails - 1))
elif [ ! -x "$work/runtime_ptds" ]; then
    row "nsys + shim" FAIL "no runtime client"
else
    echo "nsys: $nsys ($("$nsys" --version 2>/dev/null))"
    rm -f "$out/nsys-runtime.nsys-rep" "$out/nsys-runtime.qdstrm" "$out/nsys-runtime.trace"
    timeout 300 env LD_LIBRARY_PATH="$shimdir:$cuda_lib" CUDAGEN_LIBCUDA="$real_libcuda" CUDAGEN_TRACE_FILE="$out/nsys-runtime.trace" \
        "$nsys" profile --trace=cuda --force-overwrite=true -o "$out/nsys-runtime" "$work/runtime_ptds" > "$out/nsys-runtime.out" 2>&1
    rc=$?
    tail -n 5 "$out/nsys-runtime.out"
    want=$(grep '^RESULT' "$out/client-runtime-ptds.base.out" 2>/dev/null); got=$(grep '^RESULT' "$out/nsys-runtime.out")
    ls -la "$out"/nsys-runtime.* 2>/dev/null
    # The report (or, where this nsys cannot make one, its raw capture).
    report=$(ls "$out/nsys-runtime.nsys-rep" "$out/nsys-runtime.qdstrm" 2>/dev/null | head -1)
    api=
    if [ -s "$out/nsys-runtime.nsys-rep" ]; then
        "$nsys" stats -q --report cuda_api_sum --format csv "$out/nsys-runtime.nsys-rep" > "$out/nsys-runtime.api.csv" 2>/dev/null
        head -6 "$out/nsys-runtime.api.csv" | cut -c1-160
        api=$(grep -c 'cu' "$out/nsys-runtime.api.csv" 2>/dev/null)
    fi
    lines=$(grep -c '' "$out/nsys-runtime.trace" 2>/dev/null)
    python3 "$here/launch_names.py" nsys-runtime "$out/nsys-runtime.trace" - - | head -2
    if [ -n "$got" ] && [ "$got" = "$want" ] && [ -s "$report" ] && [ "${lines:-0}" -gt 0 ]; then
        row "nsys + shim" PASS "nsys rc $rc: $(basename "$report") $(stat -c %s "$report") bytes${api:+, $api API rows}; shim: $lines lines"
    else
        row "nsys + shim" FAIL "rc $rc; RESULT '$got' vs '$want'; nsys file '${report:-none}'; shim lines ${lines:-0}"
    fi
fi

# What the real driver exports that the shim does not (programs that dlsym those names bypass it).
nm -D --defined-only "$real_libcuda" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$work/real.syms"
nm -D --defined-only "$carry/libcudagen.so" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$work/shim.syms"
echo "real driver exports $(wc -l < "$work/real.syms"); shim $(wc -l < "$work/shim.syms"); only in the driver: $(comm -23 "$work/real.syms" "$work/shim.syms" | wc -l)"
comm -23 "$work/real.syms" "$work/shim.syms" | tr '\n' ' ' | head -c 3000; echo
# Of those, the names cuBLAS / cuBLASLt carry as strings (looked up with dlsym at run time).
for l in $("$py" -c 'import glob, os, torch; d = os.path.dirname(torch.__file__); print(" ".join(glob.glob(d + "/../nvidia/cu*/lib/libcublas*.so*")))' 2>/dev/null); do
    echo "$(basename "$l"): driver-only names it mentions: $(strings "$l" | grep -xE 'cu[A-Z][A-Za-z0-9_]+' | sort -u | comm -12 - <(comm -23 "$work/real.syms" "$work/shim.syms") | tr '\n' ' ')"
done
fi

# ---------------------------------------------------------------------------------------------
# One process links libcuda and dlopens the shim; samples alternate, so both paths see the same
# context, clocks and layout (separate builds differed by several ns from run to run).
echo; echo "== bench: libcuda vs libcudagen in one process, tracing off, then traced to /dev/null"
if want bench; then
# (200k calls per sample: the writer cannot keep up with the small calls, most are dropped); then
# bench_ab.sh: five processes each of the shim untraced, every call recorded (101 samples of 2k
# calls and pauses; see tests/c/bench_fake.sh) and the same without durations
# (CUDAGEN_TRACE_DURATIONS=0). A launch's added ns moves by +-25 from process to process (the
# untraced shim's too: the layout each process gets), so the recorded cost is the median over
# processes, each process's median of paired differences shown beside it.
if $CC -std=c11 -O2 -Wall -I "$carry/include" "$here/bench_pair.c" -o "$work/bench_pair" -L "$cuda_lib/stubs" -lcuda -ldl; then
    export LD_LIBRARY_PATH="$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if "$work/bench_pair" "$carry/libcudagen.so" | tee "$out/bench.txt" \
        && CUDAGEN_TRACE_FILE=/dev/null "$work/bench_pair" "$carry/libcudagen.so" | tee -a "$out/bench.txt"; then
        row "bench (one process)" PASS "see table"
    else
        row "bench (one process)" FAIL
    fi
    if BENCH_SAMPLES=101 bash "$here/bench_ab.sh" 5 "CUDAGEN_TRACE=0@$carry/libcudagen.so" "$carry/libcudagen.so" \
        "CUDAGEN_TRACE_DURATIONS=0@$carry/libcudagen.so" | tee -a "$out/bench.txt"; then
        row "bench (five processes)" PASS "see table"
    else
        row "bench (five processes)" FAIL
    fi
else
    row "bench (one process)" FAIL "build"
fi
fi

echo
echo "---- C shim on the GPU machine ----"
printf '%s\n' "${rows[@]}"
echo "failures: $fails (logs and traces in $out)"
rm -rf "$work"
[ "$fails" = 0 ]
