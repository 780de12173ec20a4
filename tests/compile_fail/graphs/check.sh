#!/usr/bin/env bash
# Graph-borrow probes in the compile-fail harness's format (`//! expect: CODE` or
# `//! expect: compiles`; tests/compile_fail.rs runs them once it is merged). Until then this
# builds them all in one scratch crate and checks each gives exactly its code.
# Usage: bash tests/compile_fail/graphs/check.sh   (CARGO_TARGET_DIR honoured; default target/)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
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
    name = os.path.basename(f)
    want = [l.split("expect:")[1].strip() for l in open(f) if l.startswith("//! expect:")][0]
    codes = sorted(got.get(name, ()))
    ok = (codes == []) if want == "compiles" else (codes == [want])
    bad += not ok
    shown = codes or "no error"
    print(("ok  " if ok else "BAD ") + f"{name}: want {want}, got {shown}")
print(f"summary: {len(files) - bad} of {len(files)} probes as declared")
sys.exit(1 if bad else 0)
' "$here"
