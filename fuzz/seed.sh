#!/bin/sh
# Fills fuzz/corpus/<target>/ with seed inputs at run time (the corpus is not committed, and
# the conformance data in ../shared/conformance is copied, never checked in):
#   NEON targets      every .neon of the conformance corpus and the test fixtures
#   extension_script  every .rhai of the shipped extensions, fixtures and conformance cases
#   plan_load,        the runtime's plan fixtures, plus each conformance/fixture configuration
#   runtime_services  compiled to JSON and binary with the debug `wireplan` (when built);
#                     runtime_services also gets each binary plan's payload alone (the target
#                     gives such input a valid header) and fuzz/registry-plan.neon compiled,
#                     a plan of the classes its registry has
# Usage: fuzz/seed.sh   (from anywhere; idempotent)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
conf=$(cd "$root/../shared/conformance" 2>/dev/null && pwd -P || echo "$root/../shared/conformance")
corpus="$root/fuzz/corpus"
mkdir -p "$corpus/neon_decode" "$corpus/neon_round_trip" "$corpus/compile_config" \
    "$corpus/extension_script" "$corpus/plan_load" "$corpus/runtime_services"

# A file's seed name: its path with slashes replaced, so seeds never collide.
seed() { # SRC DEST_DIR
    name=$(printf '%s' "$1" | sed "s|^$root/||; s|^$conf/|conformance-|; s|/|_|g")
    cp "$1" "$2/$name"
}

sources="$root/tests/fixtures $root/tests/adversarial $root/examples $root/scripts"
[ -d "$conf" ] && sources="$sources $conf" || echo "note: $conf is absent; seeding from the fixtures only"

find $sources -name '*.neon' -type f | while read -r f; do
    seed "$f" "$corpus/neon_decode"
    seed "$f" "$corpus/neon_round_trip"
    seed "$f" "$corpus/compile_config"
done
find $sources -name '*.rhai' -type f | while read -r f; do
    seed "$f" "$corpus/extension_script"
done
find "$root/runtime/tests/fixtures" -name '*.json' -type f | while read -r f; do
    seed "$f" "$corpus/plan_load"
    seed "$f" "$corpus/runtime_services"
done

bin="$root/target/debug/wireplan"
if [ -x "$bin" ]; then
    tmp=$(mktemp -d)
    { echo "$root/fuzz/registry-plan.neon"; find $sources -name 'config.neon' -type f | head -n 300; } | while read -r f; do
        name=$(printf '%s' "$f" | sed "s|^$root/||; s|^$conf/|conformance-|; s|/|_|g")
        for ext in json bin; do
            if "$bin" compile "$f" -o "$tmp/$name.plan.$ext" >/dev/null 2>&1; then
                cp "$tmp/$name.plan.$ext" "$corpus/plan_load/"
                cp "$tmp/$name.plan.$ext" "$corpus/runtime_services/"
                # The payload after the 28-byte header (wireplan_runtime::encoding).
                [ "$ext" = bin ] && tail -c +29 "$tmp/$name.plan.$ext" > "$corpus/runtime_services/$name.payload"
            fi
        done
    done
    rm -rf "$tmp"
else
    echo "note: build the debug wireplan (cargo build) to seed compiled plans"
fi
for t in "$corpus"/*; do echo "$(ls "$t" | wc -l) seeds in $t"; done
