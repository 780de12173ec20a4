#!/usr/bin/env bash
# Issue #27: cold build time of the packaged `cudagen` per API era beside cudarc's with the same
# libraries (driver + NVRTC, dynamic loading), each in a fresh project and a fresh target folder,
# one after another (the machine's other load makes the numbers noisy: run them together).
#   CRATE  the unpacked cudagen .crate (default: /tmp/cudagen-packaging/registry/cudagen-0.1.0,
#          from tests/packaging/bundle.sh)     PROFILES  default "dev release"
set -euo pipefail
crate=${CRATE:-/tmp/cudagen-packaging/registry/cudagen-0.1.0}
work=$(mktemp -d /tmp/cudagen-cold.XXXXXX)
[ -f "$crate/Cargo.toml" ] || { echo "cold_build: $crate is not an unpacked cudagen crate (run tests/packaging/bundle.sh)" >&2; exit 2; }
cudarc_common='version = "=0.19.10", default-features = false, features = ["std", "driver", "nvrtc", "dynamic-loading"'
declare -A deps=(
  [cudagen-cuda-12]="cudagen = { path = \"$crate\" }"
  [cudagen-cuda-13]="cudagen = { path = \"$crate\", default-features = false, features = [\"cuda-13\"] }"
  [cudarc-12090]="cudarc = { $cudarc_common, \"cuda-12090\"] }"
  [cudarc-13040]="cudarc = { $cudarc_common, \"cuda-13040\"] }"
)
printf '%-16s %-8s %8s\n' project profile seconds
for profile in ${PROFILES:-dev release}; do
  for name in cudagen-cuda-12 cudarc-12090 cudagen-cuda-13 cudarc-13040; do
    dir=$work/$name
    mkdir -p "$dir/src"
    echo "" > "$dir/src/lib.rs"
    printf '[package]\nname = "cold-%s"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s\n\n[workspace]\n' "$name" "${deps[$name]}" > "$dir/Cargo.toml"
    (cd "$dir" && cargo generate-lockfile --offline --quiet 2>/dev/null || cargo generate-lockfile --quiet)
    rm -rf "$dir/target"
    t0=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --quiet --profile "$profile")
    t1=$(date +%s.%N)
    printf '%-16s %-8s %8.1f\n' "$name" "$profile" "$(echo "$t1 - $t0" | bc)"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); cores: $(nproc)"
rm -rf "$work"
