#!/usr/bin/env bash
# Issue #27: the `cudagen` command as someone outside this repository gets it.
#   cargo install --path cli --root $WORK/root   (what `cargo install cudagen-cli` builds)
#   cd $WORK/empty && cudagen regen --cuda $CUDA --out my-crate --only rust && cargo build
#   cudagen regen ... --check                    (fresh: exit 0; after an edit: a diff, exit 1)
# Needs network for pip (NVIDIA's header wheels) unless $CUDAGEN_CACHE/wheels already holds
# them; LIBCLANG_PATH, when set, names the libclang to load (else pip provisions one).
#   WORK   scratch folder (default: a new /tmp/cudagen-cli.XXXX)   CUDA   release (default 12.4)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${WORK:-$(mktemp -d /tmp/cudagen-cli.XXXXXX)}
cuda=${CUDA:-12.4}
export CUDAGEN_CACHE=${CUDAGEN_CACHE:-$work/cache}
start=$SECONDS
step() { echo "== $* ($((SECONDS - start)) s)"; }

step "cargo install --path cli --root $work/root"
cargo install --quiet --locked --path cli --root "$work/root"
cudagen=$work/root/bin/cudagen
"$cudagen" --version

rm -rf "$work/empty" && mkdir -p "$work/empty" && cd "$work/empty"
step "cudagen regen --cuda $cuda --out my-crate --only rust (in an empty folder)"
"$cudagen" regen --cuda "$cuda" --out my-crate --only rust | tail -n 1
step "cargo build of the generated crate"
(cd my-crate && CARGO_TARGET_DIR="$work/target" cargo build --quiet)
step "cudagen regen --check: fresh, then after an edit"
"$cudagen" regen --cuda "$cuda" --out my-crate --only rust --check | tail -n 1
echo "// edited" >> my-crate/src/lib.rs
if "$cudagen" regen --cuda "$cuda" --out my-crate --only rust --check > /dev/null 2>&1; then
  echo "FAIL: --check accepted an edited crate" >&2; exit 1
fi
echo "--check refuses the edited crate"
step "done: $(du -sh my-crate | cut -f1) crate, installed binary $(du -h "$cudagen" | cut -f1)"
