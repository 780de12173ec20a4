#!/usr/bin/env bash
# Issue #24: builds here what tests/gpu/safe.sh runs on the GPU machine into .carry/safe: the
# release test binaries safe_examples, safe_threads, safe_leaks and safe_gpu (stripped), and
# the test crate's cudagen against the committed generated crate (12.9). Leaves the rest of
# .carry alone. Carry `.carry/safe` and run `bash tests/gpu/safe.sh` there.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.carry/safe
export CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_DEBUG=false CARGO_INCREMENTAL=0
tests=(safe_examples safe_threads safe_leaks safe_gpu)
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
json=$(cargo test --release -p cudagen-tests "${args[@]}" --no-run --message-format=json)
rm -rf "$out"
mkdir -p "$out"
for t in "${tests[@]}"; do
  exe=$(printf '%s\n' "$json" | grep -F '"executable":' | grep -F "\"name\":\"$t\"" | sed -E 's/.*"executable":"([^"]+)".*/\1/' | tail -n 1)
  [ -n "$exe" ] && [ -x "$exe" ] || { echo "bundle_safe: no executable for $t" >&2; exit 1; }
  cp "$exe" "$out/$t"
done
ls -l "$out"
du -sh "$out"
