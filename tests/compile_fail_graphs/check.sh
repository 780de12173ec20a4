#!/usr/bin/env bash
# Graph-borrow probes, ready for the compile-fail harness (tests/compile_fail/): each file's first
# line says `// error: CODE` (it must fail with that code) or `// compiles`. Until the harness
# takes them, this builds all of them in one scratch crate and compares.
# Usage: bash tests/compile_fail_graphs/check.sh   (CARGO_TARGET_DIR honoured; default target/)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/bin"
cp "$here"/*.rs "$work/src/bin/"
printf '[package]\nname = "graph-probes"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\ncudagen = { path = "%s/generated/rust" }\n[workspace]\n' "$root" > "$work/Cargo.toml"
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target} cargo build -q --keep-going --bins --message-format=json \
  --manifest-path "$work/Cargo.toml" 2>/dev/null | python3 -c '
import collections, glob, json, os, sys
got = collections.defaultdict(set)
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    msg = m.get("message") or {}
    if m.get("reason") == "compiler-message" and msg.get("level") == "error" and msg.get("code"):
        for sp in msg["spans"]:
            got[os.path.basename(sp["file_name"])].add(msg["code"]["code"])
files = sorted(glob.glob(sys.argv[1] + "/*.rs"))
bad = 0
for f in files:
    name, want = os.path.basename(f), open(f).readline().split("//")[1].strip()
    codes = sorted(got.get(name, ()))
    ok = (codes == []) if want == "compiles" else (want.split()[-1] in codes)
    bad += not ok
    shown = codes or "no error"
    print(("ok  " if ok else "BAD ") + f"{name}: want {want}, got {shown}")
print(f"summary: {len(files) - bad} of {len(files)} probes as declared")
sys.exit(1 if bad else 0)
' "$here"
