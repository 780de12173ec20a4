#!/usr/bin/env bash
# Issue #27: the C shim as an installed C library, found by a C program through pkg-config and
# through CMake (find_package), both outside the repository.
#   cargo xtask install --prefix $WORK/prefix
#   gcc saxpy.c $(pkg-config --cflags --libs cudagen)          -> $WORK/prefix/bin/saxpy_pkgconfig
#   gcc saxpy.c $(pkg-config --static --cflags --libs cudagen) -> $WORK/prefix/bin/saxpy_static
#   cmake: find_package(cudagen 12 REQUIRED), cudagen::cudagen -> $WORK/prefix/bin/saxpy_cmake
#   find_package(cudagen 13) must fail (a 12.x API), `pkg-config --modversion` says 12.9
#   README.md's C blocks (marked `<!-- example: eras=12 -->`) built with the README's pkg-config
#   line and with CMake, run without LD_LIBRARY_PATH (cudagen.pc's rpath, CMake's build rpath)
# Each program runs here (no GPU: RESULT: SKIP after the NVRTC part, which needs libnvrtc:
# CUDAGEN_NVRTC_PATH or the loader's search). The prefix (binaries with RUNPATH $ORIGIN/../lib)
# is copied to .carry/packaging/c/prefix for tests/gpu/packaging.sh.
#   WORK   scratch folder outside the repository (default: a new /tmp/cudagen-c-install.XXXX)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=${WORK:-$(mktemp -d /tmp/cudagen-c-install.XXXXXX)}
prefix=$work/prefix
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)"; }
command -v cmake > /dev/null || { echo "install.sh: cmake missing (apt-get install cmake)" >&2; exit 2; }

step "cargo xtask install --prefix $prefix"
rm -rf "$prefix"
cargo xtask install --prefix "$prefix"
mkdir -p "$prefix/bin" "$work/src"
cp tests/c/saxpy.c "$work/src/saxpy.c"
cd "$work/src"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
step "pkg-config: cudagen $(pkg-config --modversion cudagen): $(pkg-config --cflags --libs cudagen)"
gcc -std=c99 -O2 saxpy.c $(pkg-config --cflags --libs cudagen) -lm -Wl,-rpath,'$ORIGIN/../lib' -o "$prefix/bin/saxpy_pkgconfig"
gcc -std=c99 -O2 saxpy.c $(pkg-config --cflags cudagen) "$prefix/lib/libcudagen.a" \
  $(pkg-config --static --libs-only-l cudagen | sed 's/-lcudagen//') -lm -o "$prefix/bin/saxpy_static"

step "README.md's C blocks (<!-- example: eras=12 ... -->): pkg-config as the README writes it, no rpath of ours"
python3 - "$root/README.md" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
n = 0
for i, l in enumerate(lines):
    if l.strip() == "```c":
        before = [x for x in lines[:i] if x.strip()]
        m = re.fullmatch(r"<!-- example: (.*) -->", before[-1].strip()) if before else None
        assert m, f"README.md:{i + 1}: a C block without its example marker"
        if "12" not in re.search(r"eras=(\S+)", m.group(1)).group(1).split(","):
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```")
        open(f"readme_{i + 1}.c", "w").write("\n".join(lines[i + 1 : end]) + "\n")
        n += 1
assert n, "README.md has no C example for the 12.x API"
print(f"{n} C block(s) from README.md")
PY
for src in readme_*.c; do
  b=${src%.c}
  gcc -std=c99 "$src" $(pkg-config --cflags --libs cudagen) -o "$prefix/bin/${b}_pkgconfig"
  echo "$b: NEEDED $(readelf -d "$prefix/bin/${b}_pkgconfig" | grep -o 'NEEDED.*libcudagen[^]]*]' | grep -o 'libcudagen[^]]*'), RUNPATH $(readelf -d "$prefix/bin/${b}_pkgconfig" | grep -o 'R[UN]*PATH.*' | grep -o '\[.*\]')"
  env -u LD_LIBRARY_PATH CUDAGEN_NVRTC_PATH="${CUDAGEN_NVRTC_PATH:-$(ls "$root"/.cache/nvrtc/12.9/libnvrtc.so.* 2>/dev/null | head -n 1)}" "$prefix/bin/${b}_pkgconfig"
done
echo "soname: $(readelf -d "$prefix/lib/libcudagen.so" | grep -o 'SONAME.*' | grep -o '\[.*\]') ($(readlink "$prefix/lib/libcudagen.so"))"

step "CMake: find_package(cudagen 12 REQUIRED)"
cat > CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(cudagen_consumer C)
find_package(cudagen 12 REQUIRED)
message(STATUS "cudagen ${cudagen_VERSION} from ${cudagen_DIR}")
add_executable(saxpy_cmake saxpy.c)
file(GLOB readme_sources readme_*.c)
foreach(src ${readme_sources})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name}_cmake ${src})
  target_link_libraries(${name}_cmake PRIVATE cudagen::cudagen)
endforeach()
target_link_libraries(saxpy_cmake PRIVATE cudagen::cudagen m)
set_target_properties(saxpy_cmake PROPERTIES BUILD_RPATH "$ORIGIN/../lib")
CMAKE
cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > cmake.log || { cat cmake.log; exit 1; }
grep "cudagen 12" cmake.log
cmake --build build > /dev/null
cp build/saxpy_cmake "$prefix/bin/"
for b in build/readme_*_cmake; do
  echo "$(basename "$b") (build tree, no LD_LIBRARY_PATH): $(env -u LD_LIBRARY_PATH CUDAGEN_NVRTC_PATH="${CUDAGEN_NVRTC_PATH:-$(ls "$root"/.cache/nvrtc/12.9/libnvrtc.so.* 2>/dev/null | head -n 1)}" "$b" | tr '\n' ' ')"
done
mkdir -p wrong && sed 's/find_package(cudagen 12 REQUIRED)/find_package(cudagen 13 REQUIRED)/' CMakeLists.txt > wrong/CMakeLists.txt
cp saxpy.c wrong/
if cmake -S wrong -B wrong/build -DCMAKE_PREFIX_PATH="$prefix" > wrong/cmake.log 2>&1; then
  echo "FAIL: find_package(cudagen 13) accepted the 12.9 package" >&2; exit 1
fi
echo "find_package(cudagen 13) refused: $(grep -m1 -o 'version: 12.9[^)]*' wrong/cmake.log || grep -m1 -i 'version' wrong/cmake.log)"

step "run (no GPU here: the NVRTC part, then SKIP)"
nvrtc=${CUDAGEN_NVRTC_PATH:-$(ls "$root"/.cache/nvrtc/12.9/libnvrtc.so.* 2>/dev/null | head -n 1)}
for b in saxpy_pkgconfig saxpy_static saxpy_cmake; do
  line=$(CUDAGEN_NVRTC_PATH=$nvrtc "$prefix/bin/$b" | grep '^RESULT:')
  echo "$b: $line (linked: $(ldd "$prefix/bin/$b" | grep -o 'libcudagen[^ ]* => [^ ]*' || echo static))"
  case $line in "RESULT: PASS"*|"RESULT: SKIP"*) ;; *) exit 1 ;; esac
done
rm -rf "$root/.carry/packaging/c" && mkdir -p "$root/.carry/packaging/c"
cp -r "$prefix" "$root/.carry/packaging/c/prefix"
rm "$root/.carry/packaging/c/prefix/lib/libcudagen.a"   # 26 MB, linked into saxpy_static already
step "done: prefix $(du -sh "$prefix" | cut -f1) ($(du -h "$prefix/lib/libcudagen.so" | cut -f1) .so, $(du -h "$prefix/lib/libcudagen.a" | cut -f1) .a)"
