#!/usr/bin/env bash
# Adds the C programs gpu.sh runs to a carry folder that already holds libcudagen.so,
# libcudagen.a and include/ (tests/gpu/bundle.sh makes .carry/c): saxpy and bench linked
# -lcudagen, and bench linked -lcuda against the generated headers (libcuda's symbols come from
# a tiny stub built here, so no toolkit is needed; the GPU machine's real libcuda.so.1 serves it).
#   bash tests/c/bundle.sh .carry/c
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
carry=$(cd "$1" && pwd)
CC=${CC:-gcc}
inc="$carry/include"
$CC -std=c99 -Wall -Werror -O2 -I "$inc" "$here/saxpy.c" -o "$carry/saxpy" -L "$carry" -lcudagen -lm
$CC -std=c99 -Wall -Werror -O2 -I "$inc" "$here/bench.c" -o "$carry/bench" -L "$carry" -lcudagen
stub=$(mktemp -d)
# A link-time stand-in for libcuda.so.1 with the symbols bench.c references.
nm -D --defined-only "$carry/libcudagen.so" | awk '$2 == "T" {print "void " $3 "(void) {}"}' > "$stub/stub.c"
$CC -shared -fPIC -w -Wl,-soname,libcuda.so.1 "$stub/stub.c" -o "$stub/libcuda.so"
$CC -std=c99 -Wall -Werror -O2 -I "$inc" "$here/bench.c" -o "$carry/bench-libcuda" -L "$stub" -lcuda
rm -rf "$stub"
ls -la "$carry"
