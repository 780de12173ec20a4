#!/usr/bin/env bash
# Issue #36, "ready to publish": what a user meets between adding the dependency and a first call,
# each step run as a user would, then one table: step | command | result | time.
#   1. README examples: `cargo test -p cudagen-tests --test readme` (every Rust block, both eras;
#      GPU blocks compile here and run where a driver exists);
#   2. rustdoc: `cargo doc -p cudagen --no-deps` with RUSTDOCFLAGS="-D warnings", each era;
#   3. MSRV: `cargo +$MSRV check -p cudagen` for each era, where that toolchain is installed
#      (`rustup toolchain install $MSRV`; else the step says so and fails unless ALLOW_NO_MSRV=1);
#   4. C: tests/c/install.sh (install, pkg-config and CMake programs, the README's C block, all run
#      without LD_LIBRARY_PATH);
#   5. Python: the wheel (tests/python/packaging.sh's build) into a fresh venv with the `nvrtc`
#      extra (network: pip fetches NVIDIA's NVRTC wheel), then the README's Python blocks there.
#      Skipped with SKIP_PYTHON=1 (no network).
#   WORK   scratch folder (default: a new /tmp/cudagen-ready.XXXX)
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
work=${WORK:-$(mktemp -d /tmp/cudagen-ready.XXXXXX)}
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' generated/rust/Cargo.toml)
rows=()
failed=0

# row NAME COMMAND...: runs COMMAND, logs to $work/NAME.log, records the table row.
row() {
  local name=$1
  shift
  local t=$SECONDS result
  if "$@" > "$work/$name.log" 2>&1; then result=ok; else result="FAILED (see $work/$name.log)"; failed=1; fi
  rows+=("| $name | \`$*\` | $result | $((SECONDS - t)) s |")
  echo "== $name: $result"
}

doc_era() {
  RUSTDOCFLAGS="-D warnings" cargo doc -p cudagen --no-deps --quiet "$@"
}

msrv_check() {
  if ! rustup run "$msrv" rustc --version > /dev/null 2>&1; then
    echo "toolchain $msrv not installed (rustup toolchain install $msrv)"
    [ "${ALLOW_NO_MSRV:-0}" = 1 ]
    return
  fi
  CARGO_TARGET_DIR=$root/target/msrv cargo "+$msrv" check -p cudagen --quiet &&
    CARGO_TARGET_DIR=$root/target/msrv cargo "+$msrv" check -p cudagen --quiet --no-default-features --features cuda-13
}

python_extra() {
  local venv=$work/venv
  rm -rf "$venv" && python3 -m venv "$venv"
  local wheel
  wheel=$(ls "$root"/target/wheels/cudagen-*.whl 2> /dev/null | head -n 1)
  [ -n "$wheel" ] || { echo "no wheel under target/wheels: run the Python step (cargo xtask test) first"; return 1; }
  "$venv/bin/pip" install --quiet "$wheel[nvrtc]" pytest &&
    "$venv/bin/python" -c "import cudagen; print('cudagen', cudagen.__version__)" &&
    (cd "$work" && env -u CUDAGEN_NVRTC_PATH "$venv/bin/python" -m pytest -q "$root/tests/python/test_readme.py" -p no:cacheprovider)
}

row readme-rust cargo test -q -p cudagen-tests --test readme
row rustdoc-cuda12 doc_era
row rustdoc-cuda13 doc_era --no-default-features --features cuda-13
row "msrv-$msrv" msrv_check
row c-install env WORK="$work/c" bash tests/c/install.sh
if [ "${SKIP_PYTHON:-0}" != 1 ]; then row python-extra python_extra; fi

echo
echo "| step | command | result | time |"
echo "| --- | --- | --- | ---: |"
printf '%s\n' "${rows[@]}"
exit $failed
