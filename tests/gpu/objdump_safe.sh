#!/usr/bin/env bash
# Issue #24: do owned-handle methods compile to the same calls as the typed layer? Builds
# tests/gpu/asm_safe (release, the profile users get), disassembles each owned_X / typed_X pair
# (objdump -d --no-show-raw-insn), normalises the text (addresses, rip displacements and
# padding dropped; jumps inside a function written as <SELF+offset>) and prints per pair:
# "identical" (or "one body" where LLVM merged the two into one symbol) or the diff, with
# instruction and call counts. Runs here: no GPU, no driver. Needs cargo and objdump.
# Usage: bash tests/gpu/objdump_safe.sh  (CARGO_TARGET_DIR is honoured; default target/)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
CARGO_TARGET_DIR=$target cargo build --release --locked -q --manifest-path tests/gpu/asm_safe/Cargo.toml
bin=$target/release/asm_safe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# GOT slot -> what it holds (Rust calls other crates' functions through the GOT): the target
# of each R_X86_64_RELATIVE slot named by nm, or the symbol of a GLOB_DAT slot.
nm -C --defined-only "$bin" | awk '{ a = $1; sub(/^0+/, "", a); $1 = ""; $2 = ""; sub(/^ +/, ""); print a "\t" $0 }' > "$work/syms"
readelf -rW "$bin" | awk '$3 == "R_X86_64_RELATIVE" { o = $1; v = $4; sub(/^0+/, "", o); sub(/^0+/, "", v); print o "\t" v }
  $3 == "R_X86_64_GLOB_DAT" { o = $1; sub(/^0+/, "", o); print o "\t=" $5 }' > "$work/relocs"
awk -F '\t' 'NR == FNR { name[$1] = $2; next }
  { print $1 "\t" (substr($2, 1, 1) == "=" ? substr($2, 2) : ($2 in name ? name[$2] : "?" $2)) }' \
  "$work/syms" "$work/relocs" > "$work/got"

# body SYMBOL: the normalised instructions of SYMBOL, one a line.
body() {
  objdump -d --no-show-raw-insn --disassemble="$1" "$bin" |
    awk -F '\t' -v s="<$1>:" 'NR == FNR { got[$1] = $2; next }
      index($0, s) { on = 1; next } on && /^$/ { exit }
      on { if (match($0, /# [0-9a-f]+ </)) { a = substr($0, RSTART + 2, RLENGTH - 4); if (a in got) $0 = substr($0, 1, RSTART + 1) "GOT<" got[a] ">" } print }' "$work/got" - |
    sed -E -e 's/^ *[0-9a-f]+:[[:space:]]*//' \
      -e "s/<$1([+>])/<SELF\1/g" \
      -e 's/[0-9a-f]+ <([^>]*)>/<\1>/g' \
      -e 's/-?0x[0-9a-f]+\(%rip\)/X(%rip)/g' \
      -e 's/[[:space:]]+/ /g' -e 's/ $//' |
    awk "$labels"
}
# Trailing padding dropped; jump targets inside the function renamed L1, L2.. in address order
# (so one extra instruction does not shift every later target).
labels='function hex(h,  i, v) { v = 0; for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
{ lines[NR] = $0; while (match($0, /<SELF\+0x[0-9a-f]+>/)) { o = substr($0, RSTART + 8, RLENGTH - 9); offs[o] = hex(o); $0 = substr($0, RSTART + RLENGTH) } }
END { n = NR; while (n > 0 && lines[n] ~ /^(nop|cs nop|data16|xchg %ax,%ax|int3)/) n--
  for (o in offs) { k = 1; for (p in offs) if (offs[p] < offs[o]) k++; name["<SELF+0x" o ">"] = "L" k }
  for (i = 1; i <= n; i++) { l = lines[i]; out = ""
    while (match(l, /<SELF\+0x[0-9a-f]+>/)) { out = out substr(l, 1, RSTART - 1) name[substr(l, RSTART, RLENGTH)]; l = substr(l, RSTART + RLENGTH) }
    print out l } }'
addr() { nm "$bin" | awk -v s="$1" '$3 == s { print $1 }'; }
count() { wc -l < "$1" | tr -d ' '; }
calls() { grep -c '^call' "$1" || true; }
# The ordered call targets of a body (what "the same calls" means).
targets() { grep '^call' "$1" | sed -E 's/^call \*?//' || true; }

row() { printf '%-20s %-10s %-12s %6s %6s %6s %6s\n' "$@"; }
row pair code "call targets" insns insns calls calls
row "" "" "(in order)" owned typed owned typed
details=$work/details
: > "$details"
# NAME or NAME=OWNED,TYPED (default owned_NAME, typed_NAME). The *_ref rows give the typed
# side the handle by reference too, as the owned side gets it (&Stream).
pairs="stream_query stream_query_ref=owned_stream_query,typed_stream_query_ref stream_synchronize
  event_record event_record_ref=owned_event_record,typed_event_record_ref ctx_api_version
  ctx_api_version_ref=owned_ctx_api_version,typed_ctx_api_version_ref mem_alloc_free mem_alloc_drop
  stream_create_drop ctx_synchronize launch5"
for spec in $pairs; do
  p=${spec%%=*} o=owned_$p t=typed_$p
  case $spec in *=*) o=${spec#*=} t=${o#*,} o=${o%,*} ;; esac
  body "$o" > "$work/$o"
  body "$t" > "$work/$t"
  if [ "$(addr "$o")" = "$(addr "$t")" ]; then
    code="one body" # LLVM merged the two identical functions into one symbol
    cp "$work/$o" "$work/$t"
  elif cmp -s "$work/$o" "$work/$t"; then
    code=identical
  else
    code=differs
    { echo "---- $p: diff -u typed owned"; diff -u "$work/$t" "$work/$o" | tail -n +3 || true; } >> "$details"
  fi
  if [ "$code" != differs ] || [ "$(targets "$work/$o")" = "$(targets "$work/$t")" ]; then same=same; else same=differ; fi
  row "$p" "$code" "$same" "$(count "$work/$o")" "$(count "$work/$t")" "$(calls "$work/$o")" "$(calls "$work/$t")"
done

# The owned side of the Drop rows calls its type's Drop out of line: its size, to add.
echo "out-of-line Drop bodies the owned rows call (insns, calls):"
nm -C -S --defined-only "$bin" | grep -E ' <cudagen::safe::driver::(DeviceMemory|Stream|CurrentGuard) as core::ops::drop::Drop>::drop$' |
  while read -r a size _ name; do
    n=$(objdump -d --no-show-raw-insn --start-address=0x$a --stop-address=$((0x$a + 0x$size)) "$bin" | grep -cE '^ +[0-9a-f]+:')
    c=$(objdump -d --no-show-raw-insn --start-address=0x$a --stop-address=$((0x$a + 0x$size)) "$bin" | grep -cE '^ +[0-9a-f]+:[[:space:]]+call')
    printf '  %-70s %4s %3s\n' "$name $a" "$n" "$c"
  done
if [ -s "$details" ]; then
  if [ "${OBJDUMP_SAFE_FULL:-0}" = 1 ]; then cat "$details"; else
    echo "(diffs of the pairs that differ below; launch5 only with OBJDUMP_SAFE_FULL=1)"
    awk '/^---- launch5/ { skip = 1 } /^---- / && !/launch5/ { skip = 0 } !skip' "$details"
  fi
fi
