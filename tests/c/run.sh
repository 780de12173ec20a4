#!/usr/bin/env bash
# CI tests of the C shim (no GPU needed). Run from anywhere: `bash tests/c/run.sh`.
#   1. builds libcudagen.so / libcudagen.a (cargo build --release -p cudagen-shim)
#   2. its dynamic symbol table equals generated/c/symbols.txt (the IR's ABI symbols) plus the
#      EXTRAS below: nothing missing, nothing extra; the static library defines the same set
#   3. the generated headers (cuda.h with its interop companions cudaGL.h, cudaEGL.h, cudaVDPAU.h,
#      cudaProfiler.h, nvrtc.h, nvJitLink.h and nvvm.h) compile as C99 (-Wall -Werror), C11 and C++; their layouts,
#      enum and macro values and prototypes equal NVIDIA's (when the 12.9 headers are at hand:
#      $CUDAGEN_HEADERS_DIR or .cache/headers/12.9). The OpenGL, EGL and VDPAU headers they
#      include are the parser's stand-ins (generator/src/clang/interop), given to gcc for the test only.
#   4. saxpy.c builds with gcc -std=c99 -Wall -Werror against the generated headers alone, linked
#      -lcudagen (shared), against libcudagen.a (static) and through pkg-config; the NVRTC part
#      runs for real ($CUDAGEN_NVRTC_PATH, else the wheel in .cache/nvrtc); without a driver it
#      reports CUDA_ERROR_STUB_LIBRARY and the loader's message and exits 0
#   4b. jitlink.c built against 12.4's nvJitLink.h (calls __nvJitLink*_12_4) and linked with the
#      shim alone runs its NVRTC -> nvJitLink -> NVVM steps on the 12.9 libraries, traced as _12_4;
#      built with -DNVJITLINK_NO_INLINE against the generated headers it calls and traces the
#      unversioned names (nvJitLinkCreate ...)
#   5. installed as libcuda.so.1 the shim skips itself; cuGetProcAddress hands out the shim's
#      entry points (against the fake driver tests/c/fake_libcuda.c)
#   6. the tracer through the shim (tests/c/trace_test.c against tests/c/fake_bench_libcuda.c,
#      checked by tests/c/trace_check.py): decoded lines in text, JSON and Perfetto, filter,
#      errors only, summary; every call of several threads is a line or counted as dropped, at
#      exit (threads alive or joined) and on abort; handles named (kernels, modules, streams,
#      graphs), kernel arguments (CUDAGEN_TRACE_ARGS=1), the summary by kernel and graph
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

# Exported beyond the IR's ABI symbols (make additions here explicit):
#   cuGetProcAddress        the 11.3 ABI of cuGetProcAddress (cuda.h maps the name to _v2)
#   cudagenLastLoaderError  cudagen.h
#   cudagen_shim_marker     data: the loader skips a libcuda.so.1 that exports it
EXTRAS="cuGetProcAddress cudagenLastLoaderError cudagen_shim_marker"

CC=${CC:-gcc}
CXX=${CXX:-g++}
work=$(mktemp -d "${TMPDIR:-/tmp}/cudagen-c.XXXXXX")
trap 'rm -rf "$work"' EXIT
declare -a rows
fails=0

row() { rows+=("$(printf '%-48s %-5s %s' "$1" "$2" "${3:-}")"); [ "$2" = PASS ] || fails=$((fails + 1)); }
check() { # name, command...: PASS when the command succeeds; its output goes to $work/<n>.log
    local name=$1; shift
    local log="$work/step$((${#rows[@]} + 1)).log"
    if "$@" > "$log" 2>&1; then row "$name" PASS; else row "$name" FAIL "(see below)"; echo "---- $name" >&2; tail -n 30 "$log" >&2; fi
}

echo "== building the shim"
target=$(cargo metadata --format-version 1 --no-deps 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
lib="$target/release"
if cargo build --release -q -p cudagen-shim; then row "cargo build --release -p cudagen-shim" PASS; else row "cargo build --release -p cudagen-shim" FAIL; fi
so="$lib/libcudagen.so"; ar="$lib/libcudagen.a"
inc="$root/generated/c/include"
# Stand-ins for <GL/gl.h>, <EGL/egl.h>, <vdpau/vdpau.h>: the same types the real headers define.
gfx="$root/generator/src/clang/interop"

echo "== symbols"
grep -v '^#' generated/c/symbols.txt | sed '/^$/d' | sort > "$work/ir.txt"
{ cat "$work/ir.txt"; printf '%s\n' $EXTRAS; } | sort > "$work/expected.txt"
nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort > "$work/exported.txt"
missing=$(comm -23 "$work/expected.txt" "$work/exported.txt" | wc -l)
extra=$(comm -13 "$work/expected.txt" "$work/exported.txt" | wc -l)
echo "IR ABI symbols: $(wc -l < "$work/ir.txt"), extras: $(echo $EXTRAS | wc -w), exported: $(wc -l < "$work/exported.txt"), missing: $missing, extra: $extra"
comm -23 "$work/expected.txt" "$work/exported.txt" | sed 's/^/  missing: /' | head -20
comm -13 "$work/expected.txt" "$work/exported.txt" | sed 's/^/  extra:   /' | head -20
if [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
    row "nm -D libcudagen.so == IR symbols + extras" PASS "$(wc -l < "$work/exported.txt") symbols"
else
    row "nm -D libcudagen.so == IR symbols + extras" FAIL "missing $missing, extra $extra"
fi
nm --defined-only "$ar" 2>/dev/null | awk '$2 ~ /^[TDRB]$/ {print $3}' | sort -u > "$work/static.txt"
smissing=$(comm -23 "$work/expected.txt" "$work/static.txt" | wc -l)
if [ "$smissing" = 0 ]; then row "libcudagen.a defines every symbol" PASS; else row "libcudagen.a defines every symbol" FAIL "missing $smissing"; fi

echo "== headers"
{ for h in "$inc"/*.h; do echo "#include <$(basename "$h")>"; done
  echo 'int main(void) { return CUDA_VERSION > 0 && CUDAGEN_CUDA_H && CUDAGEN_NVRTC_H ? 0 : 1; }'; } > "$work/all.c"
echo "headers: $(cd "$inc" && echo *.h)"
check "headers: gcc -std=c99 -Wall -Wextra -Werror" $CC -std=c99 -Wall -Wextra -Werror -I "$inc" -I "$gfx" -c "$work/all.c" -o "$work/all99.o"
check "headers: gcc -std=c11 -Wall -Wextra -Werror" $CC -std=c11 -Wall -Wextra -Werror -I "$inc" -I "$gfx" -c "$work/all.c" -o "$work/all11.o"
check "headers: g++ -std=c++11 -Wall -Wextra -Werror" $CXX -std=c++11 -Wall -Wextra -Werror -x c++ -I "$inc" -I "$gfx" -c "$work/all.c" -o "$work/allxx.o"
check "headers: per-thread default stream mode" $CC -std=c99 -Wall -Werror -DCUDA_API_PER_THREAD_DEFAULT_STREAM -I "$inc" -I "$gfx" -c "$work/all.c" -o "$work/allpt.o"

nv=${CUDAGEN_HEADERS_DIR:-$root/.cache/headers/12.9}
if [ -f "$nv/cuda.h" ] && [ -f "$nv/nvrtc.h" ]; then
    probe=generated/c/tests/abi_probe.c
    # C11: NVIDIA's cuda.h aligns CUtensorMap to 64 bytes only from C11 / C++11 on (_Alignas);
    # ours always does (CUDAGEN_ALIGN), so the layouts are compared where both apply it.
    if $CC -std=c11 -Wall -Werror -I "$inc" -I "$gfx" "$probe" -o "$work/probe-ours" > "$work/probe-ours.log" 2>&1 \
        && $CC -std=c11 -Wall -Werror -I "$nv" -I "$gfx" "$probe" -o "$work/probe-nv" > "$work/probe-nv.log" 2>&1 \
        && "$work/probe-ours" > "$work/ours.txt" && "$work/probe-nv" > "$work/nv.txt" && cmp -s "$work/ours.txt" "$work/nv.txt"; then
        row "ABI probe == NVIDIA headers" PASS "$(grep -c size= "$work/ours.txt") records, $(grep -c ' = ' "$work/ours.txt") constants, $(grep -cE '^[^ #].*\);$' "$probe") prototypes"
    else
        row "ABI probe == NVIDIA headers" FAIL
        cat "$work"/probe-*.log >&2; diff "$work/ours.txt" "$work/nv.txt" 2>/dev/null | head -20 >&2
    fi
else
    row "ABI probe == NVIDIA headers" SKIP "no NVIDIA headers at $nv"
    fails=$((fails - 1))
fi

# Every symbol a program built against NVIDIA's headers can reference, with and without
# CUDA_API_PER_THREAD_DEFAULT_STREAM (gcc -aux-info lists the declarations each mode sees;
# static inline helpers are not symbols), must be exported.
# nvJitLink.h's API names are static inline wrappers of versioned symbols (__nvJitLinkCreate_12_9).
if [ -f "$nv/cudaTypedefs.h" ] && [ -f "$nv/nvrtc.h" ]; then
    printf '#include <cudaTypedefs.h>\n#include <nvrtc.h>\n' > "$work/decls.c"
    for h in nvJitLink.h nvvm.h cuda_runtime_api.h; do [ -f "$nv/$h" ] && printf '#include <%s>\n' "$h" >> "$work/decls.c"; done
    for mode in "" -DCUDA_API_PER_THREAD_DEFAULT_STREAM; do
        $CC -fsyntax-only $mode -I "$nv" -I "$gfx" -aux-info "$work/aux$mode.txt" "$work/decls.c" 2>> "$work/aux.log"
        grep -v '^/\* /usr' "$work/aux$mode.txt" | grep -v 'static' | grep -oE '\b(cu|nvrtc|nvJitLink|__nvJitLink|nvvm)[A-Za-z0-9_]+ \(' | sed 's/ (//'
    done | sort -u > "$work/nv-symbols.txt"
    nvmiss=$(comm -23 "$work/nv-symbols.txt" "$work/exported.txt")
    if [ -s "$work/nv-symbols.txt" ] && [ -z "$nvmiss" ]; then
        row "every symbol NVIDIA's headers reference" PASS "$(wc -l < "$work/nv-symbols.txt") symbols, both stream modes"
    else
        row "every symbol NVIDIA's headers reference" FAIL "missing: $(echo $nvmiss | head -c 200)"
    fi
fi

echo "== saxpy"
nvrtc=${CUDAGEN_NVRTC_PATH:-}
if [ -z "$nvrtc" ]; then nvrtc=$(ls "$root"/.cache/nvrtc/*/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 "$root"/.cache/nvrtc/*/libnvrtc.so.12 2>/dev/null | head -1); fi
export CUDAGEN_NVRTC_PATH=$nvrtc
echo "NVRTC: ${nvrtc:-(system search)}"
check "saxpy.c: gcc -std=c99 -Wall -Werror, -lcudagen" $CC -std=c99 -Wall -Werror -I "$inc" tests/c/saxpy.c -o "$work/saxpy" -L "$lib" -lcudagen -lm
check "saxpy.c: static, libcudagen.a" $CC -std=c99 -Wall -Werror -I "$inc" tests/c/saxpy.c -o "$work/saxpy-static" "$ar" -lpthread -ldl -lm
if command -v pkg-config > /dev/null; then
    check "saxpy.c: pkg-config cudagen" sh -c "$CC -std=c99 -Wall -Werror tests/c/saxpy.c -o '$work/saxpy-pc' \$(PKG_CONFIG_PATH=generated/c pkg-config --define-variable=libdir='$lib' --cflags --libs cudagen) -lm"
fi
if ldd "$work/saxpy" 2>/dev/null | grep -Eq 'libcuda\.so|libnvrtc'; then row "saxpy links no libcuda/libnvrtc" FAIL; else row "saxpy links no libcuda/libnvrtc" PASS; fi

# Runs one saxpy binary; passes on "RESULT: PASS" (a GPU is there) or on the documented no-driver
# outcome: NVRTC ran, CUDA_ERROR_STUB_LIBRARY, the loader's message, exit 0.
run_saxpy() {
    local name=$1 out="$work/$1.out"; shift
    env "$@" > "$out" 2>&1; local rc=$?
    sed 's/^/  | /' "$out" | cut -c1-220
    if [ $rc = 0 ] && grep -q '^RESULT: PASS' "$out"; then
        row "$name" PASS "GPU part ran"
    elif [ $rc = 0 ] && grep -q '^RESULT: SKIP no driver' "$out" && grep -q 'has .entry saxpy' "$out" \
        && grep -q 'CUDA_ERROR_STUB_LIBRARY' "$out" && grep -q '^loader: .*libcuda' "$out"; then
        row "$name" PASS "NVRTC ran; no driver: STUB_LIBRARY + loader message"
    else
        row "$name" FAIL "rc=$rc"
    fi
}
run_saxpy "run saxpy (shared)" LD_LIBRARY_PATH="$lib" "$work/saxpy"
run_saxpy "run saxpy (static)" "$work/saxpy-static"
# A driver that is certainly missing: the message must name the path looked for.
run_saxpy "run saxpy, CUDAGEN_LIBCUDA missing" CUDAGEN_LIBCUDA=/nonexistent/libcuda.so.1 LD_LIBRARY_PATH="$lib" \
    CUDAGEN_TRACE_FILE="$work/missing.trace" "$work/saxpy"
# A call that fails in the loader is traced like any other, with the loader's status.
grep -q '^\[cudagen tid=[0-9]*\] cuInit(Flags=0) -> CUDA_ERROR_STUB_LIBRARY' "$work/missing.trace" \
    && row "loader failure traced" PASS || { row "loader failure traced" FAIL; head -5 "$work/missing.trace" >&2; }
grep -q '/nonexistent/libcuda.so.1' "$work/run saxpy, CUDAGEN_LIBCUDA missing.out" \
    && row "loader message names CUDAGEN_LIBCUDA path" PASS || row "loader message names CUDAGEN_LIBCUDA path" FAIL
# Installed as libcuda.so.1 on LD_LIBRARY_PATH, with no real driver: it must skip itself.
mkdir -p "$work/asdrv"
cp "$so" "$work/asdrv/libcuda.so.1"
if [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]; then
    env LD_LIBRARY_PATH="$work/asdrv:$lib" "$work/saxpy" > "$work/asdrv.out" 2>&1
    if grep -q 'is the cudagen shim, skipped' "$work/asdrv.out" && grep -q '^RESULT: SKIP no driver' "$work/asdrv.out"; then
        row "shim as libcuda.so.1 skips itself" PASS
    else
        row "shim as libcuda.so.1 skips itself" FAIL; cat "$work/asdrv.out" >&2
    fi
fi

echo "== nvJitLink and NVVM under LD_PRELOAD (libraries of the wheels)"
# jitlink.c built against NVIDIA's headers and linked with NVIDIA's libraries (the driver's entries
# from libcudagen: no libcuda here); the preloaded shim must trace the versioned nvJitLink symbols
# the header's inline wrappers call, and the NVVM calls.
jl=$(ls "$root"/.cache/nvjitlink/12.9/libnvJitLink.so.12 2>/dev/null); vm=$(ls "$root"/.cache/nvvm/12.9/libnvvm.so* 2>/dev/null | head -1)
if [ -f "$nv/nvJitLink.h" ] && [ -f "$nv/nvvm.h" ] && [ -n "$jl" ] && [ -n "$vm" ] && [ -n "$nvrtc" ]; then
    mkdir -p "$work/jl"
    ln -sf "$jl" "$work/jl/libnvJitLink.so"; ln -sf "$vm" "$work/jl/libnvvm.so"; ln -sf "$vm" "$work/jl/libnvvm.so.4"; ln -sf "$nvrtc" "$work/jl/libnvrtc.so"
    if $CC -std=c99 -Wall -Werror -I "$nv" tests/c/jitlink.c -o "$work/jitlink" -L "$work/jl" -lnvJitLink -lnvvm -lnvrtc -L "$lib" -lcudagen; then
        env LD_PRELOAD="$so" LD_LIBRARY_PATH="$lib:$work/jl:$(dirname "$jl"):$(dirname "$nvrtc")" CUDAGEN_NVJITLINK_PATH="$jl" \
            CUDAGEN_NVVM_PATH="$vm" CUDAGEN_TRACE_FILE="$work/jl.trace" "$work/jitlink" > "$work/jl.out" 2>&1
        rc=$?
        sed 's/^/  | /' "$work/jl.out"
        if [ $rc = 0 ] && grep -q '^RESULT: \(PASS\|SKIP no driver\)' "$work/jl.out" && grep -q '__nvJitLinkCreate_12_9(.*-> NVJITLINK_SUCCESS' "$work/jl.trace" \
            && grep -q '__nvJitLinkGetLinkedCubin_12_9(' "$work/jl.trace" && grep -q 'nvvmCompileProgram(.*-> NVVM_SUCCESS' "$work/jl.trace"; then
            row "jitlink.c: LD_PRELOAD traces nvJitLink, NVVM" PASS "$(grep -c 'nvJitLink\|nvvm' "$work/jl.trace") trace lines"
        else
            row "jitlink.c: LD_PRELOAD traces nvJitLink, NVVM" FAIL "rc=$rc"; head -20 "$work/jl.trace" >&2
        fi
    else
        row "jitlink.c: LD_PRELOAD traces nvJitLink, NVVM" FAIL "build"
    fi
fi

# jitlink_row LABEL TAG CREATE CUBIN FORBID COUNTED WHAT CFLAGS...: builds tests/c/jitlink.c with
# CFLAGS, linked with the shim only, runs it on the real nvJitLink / NVVM / NVRTC (no driver: it
# stops after linking) and passes when the binary calls CREATE (nvJitLinkCreate's name in this
# build), the trace shows CREATE and CUBIN succeeding, no name matching FORBID is called, and
# reports how many trace lines match COUNTED as WHAT.
jitlink_row() {
    local label=$1 tag=$2 create=$3 cubin=$4 forbid=$5 counted=$6 what=$7 rc
    shift 7
    if ! $CC -std=c99 -Wall -Werror "$@" tests/c/jitlink.c -o "$work/$tag" -L "$lib" -lcudagen; then
        row "$label" FAIL "build"
        return
    fi
    env LD_LIBRARY_PATH="$lib" CUDAGEN_LIBCUDA=/nonexistent CUDAGEN_NVJITLINK_PATH="$jl" CUDAGEN_NVVM_PATH="$vm" \
        CUDAGEN_NVRTC_PATH="$nvrtc" CUDAGEN_TRACE_FILE="$work/$tag.trace" "$work/$tag" > "$work/$tag.out" 2>&1
    rc=$?
    sed 's/^/  | /' "$work/$tag.out"
    if [ $rc = 0 ] && grep -q '^RESULT: SKIP no driver' "$work/$tag.out" && nm -u "$work/$tag" | grep -q " $create\$" \
        && ! nm -u "$work/$tag" | grep -q "$forbid" \
        && grep -q "\b$create(.*-> NVJITLINK_SUCCESS" "$work/$tag.trace" \
        && grep -q "\b$cubin(.*-> NVJITLINK_SUCCESS" "$work/$tag.trace" && ! grep -q "$forbid" "$work/$tag.trace"; then
        row "$label" PASS "$(grep -c "$counted" "$work/$tag.trace") $what"
    else
        row "$label" FAIL "rc=$rc"
        head -20 "$work/$tag.trace" >&2
    fi
}

echo "== nvJitLink: a program built against an older release's nvJitLink.h, linked with the shim only"
# 12.4's nvJitLink.h calls __nvJitLinkCreate_12_4 ...: the shim exports every earlier release's
# name of the 12.x ABI and forwards it (traced) to the real library's same symbol (the 12.9 wheel's
# libnvJitLink.so.12 exports _12_0 ... _12_9).
old=${CUDAGEN_HEADERS_CACHE:-$root/.cache/headers}/12.4
if [ ! -f "$old/nvJitLink.h" ]; then
    row "jitlink.c (12.4 headers) on the shim" FAIL "no 12.4 headers at $old (cargo xtask test fetches them)"
elif [ -n "$jl" ] && [ -n "$vm" ] && [ -n "$nvrtc" ]; then
    jitlink_row "jitlink.c (12.4 headers) on the shim" jitlink124 __nvJitLinkCreate_12_4 __nvJitLinkGetLinkedCubin_12_4 \
        '_12_9' '__nvJitLink.*_12_4(' "_12_4 calls traced" -I "$old"
fi

echo "== nvJitLink: a program built with NVJITLINK_NO_INLINE against the generated headers, linked with the shim only"
# Without the inline wrappers a program calls nvJitLinkCreate ... by their own names, which the real
# library exports too: the shim exports them (from the header's `#ifndef NVJITLINK_NO_INLINE`
# around each wrapper) and forwards them, traced, to the library's same symbols.
if [ -n "$jl" ] && [ -n "$vm" ] && [ -n "$nvrtc" ]; then
    jitlink_row "jitlink.c (NVJITLINK_NO_INLINE) on the shim" jitlinknoinl nvJitLinkCreate nvJitLinkGetLinkedCubin \
        '__nvJitLink' '\bnvJitLink[A-Za-z]*(' "unversioned calls traced" -DNVJITLINK_NO_INLINE -I "$inc"
fi

echo "== cuGetProcAddress interception (fake driver)"
mkdir -p "$work/fake"
if $CC -shared -fPIC -O2 -Wall -Werror tests/c/fake_libcuda.c -o "$work/fake/libcuda.so.1" \
    && $CC -std=c99 -Wall -Werror -I "$inc" tests/c/getproc_test.c -o "$work/getproc_test" -L "$lib" -lcudagen -ldl; then
    env CUDAGEN_LIBCUDA="$work/fake/libcuda.so.1" CUDAGEN_TRACE_FILE="$work/getproc.trace" LD_LIBRARY_PATH="$lib" \
        "$work/getproc_test" > "$work/getproc.out" 2>&1
    rc=$?
    cat "$work/getproc.out"
    if [ $rc = 0 ] && grep -q 'cuGetProcAddress(passthrough)(symbol="cuInternalThing"' "$work/getproc.trace"; then
        row "cuGetProcAddress -> shim entry points" PASS "$(grep -c '^ok' "$work/getproc.out") checks, passthrough traced"
    else
        row "cuGetProcAddress -> shim entry points" FAIL "rc=$rc"
    fi
else
    row "cuGetProcAddress -> shim entry points" FAIL "build"
fi

echo "== tracer (fake driver)"
mkdir -p "$work/tfake"
if $CC -shared -fPIC -O2 -Wall -Werror -Wl,-Bsymbolic -Wl,-soname,libcuda.so.1 tests/c/fake_bench_libcuda.c -o "$work/tfake/libcuda.so.1" \
    && $CC -std=c11 -Wall -Werror -I "$inc" tests/c/trace_test.c -o "$work/trace_test" -L "$lib" -lcudagen -lpthread -ldl; then
    tt() { # trace file, env..., -- args...
        local f=$1; shift
        rm -f "$f"
        env -u CUDAGEN_TRACE -u CUDAGEN_TRACE_FORMAT -u CUDAGEN_TRACE_SUMMARY -u CUDAGEN_TRACE_ONLY -u CUDAGEN_TRACE_ERRORS -u CUDAGEN_TRACE_DURATIONS -u CUDAGEN_TRACE_ARGS \
            LD_LIBRARY_PATH="$lib" CUDAGEN_LIBCUDA="$work/tfake/libcuda.so.1" CUDAGEN_TRACE_FILE="$f" "$@"
    }
    t="$work/trace"
    tt "$t.txt" "$work/trace_test" calls > /dev/null
    tt "$t.jsonl" CUDAGEN_TRACE_FORMAT=json "$work/trace_test" calls > /dev/null
    tt "$t.perfetto" CUDAGEN_TRACE_FORMAT=perfetto "$work/trace_test" calls > /dev/null
    tt "$t.only" CUDAGEN_TRACE_ONLY='cuDeviceGetAttribute,cuMemAlloc*' "$work/trace_test" calls > /dev/null
    check "trace: lines, JSON, Perfetto, filter" python3 tests/c/trace_check.py calls "$t.txt" "$t.jsonl" "$t.perfetto" "$t.only"
    tt "$t.errors" CUDAGEN_TRACE_ERRORS=1 CUDAGEN_TRACE_SUMMARY=1 "$work/trace_test" calls > /dev/null 2> "$t.summary"
    if [ "$(grep -c '' "$t.errors")" = 3 ] && ! grep -q -- '-> CUDA_SUCCESS' "$t.errors" \
        && grep -Eq '^ +[0-9.]+ +[0-9.]+ +2 +1 +[0-9.]+ +[0-9.]+  cuDeviceGetAttribute$' "$t.summary" \
        && grep -q 'API summary (pid [0-9]*): 12 functions, 17 calls, 3 errors' "$t.summary"; then
        row "trace: errors only, summary" PASS
    else
        row "trace: errors only, summary" FAIL; cat "$t.errors" "$t.summary" >&2
    fi
    tt "$t.untimed" CUDAGEN_TRACE_DURATIONS=0 "$work/trace_test" calls > /dev/null
    tt "$t.untimed.perfetto" CUDAGEN_TRACE_DURATIONS=0 CUDAGEN_TRACE_FORMAT=perfetto CUDAGEN_TRACE_SUMMARY=1 "$work/trace_test" calls \
        > /dev/null 2> "$t.untimed.summary"
    check "trace: CUDAGEN_TRACE_DURATIONS=0" python3 tests/c/trace_check.py untimed "$t.untimed" "$t.untimed.perfetto" "$t.untimed.summary"
    tt "$t.names" CUDAGEN_TRACE_SUMMARY=1 "$work/trace_test" names > /dev/null 2> "$t.names.summary"
    tt "$t.names.jsonl" CUDAGEN_TRACE_FORMAT=json "$work/trace_test" names > /dev/null
    tt "$t.names.perfetto" CUDAGEN_TRACE_FORMAT=perfetto "$work/trace_test" names > /dev/null
    tt "$t.names.args" CUDAGEN_TRACE_ARGS=1 "$work/trace_test" names > /dev/null
    check "trace: names, kernel arguments, summary by kernel" python3 tests/c/trace_check.py names "$t.names" "$t.names.jsonl" \
        "$t.names.perfetto" "$t.names.args" "$t.names.summary"
    for mode in "threads 4 200000" "joined 4 200000" "threads 3 1000" "abort 5000"; do
        set -- $mode
        tt "$t.$1" "$work/trace_test" $mode > "$t.$1.out" 2>&1
        [ "$1" = abort ] && calls=$2 || calls=$(( $2 * $3 ))
        check "trace: $mode: every call a line or dropped" python3 tests/c/trace_check.py count "$t.$1" "$calls"
    done
else
    row "trace: build trace_test" FAIL
fi

echo
echo "---- C shim ----"
printf '%s\n' "${rows[@]}"
echo "failures: $fails"
[ "$fails" = 0 ]
