#!/usr/bin/env bash
# Peak memory of the commands that read a file game by game, against the input's size.
#
# - `pbem fmt` (to standard output and --in-place) on the bundled examples repeated to
#   SIZES megabytes (default "20 200"): memory stays flat, one game at a time.
# - `pbem validate` on one game of PLIES plies (default 1,000,000) of African Chess, the
#   touchstones shuttling between e1/d2 and e8/d7 (legal for ever: African Chess has no
#   automatic draw), valid, then with a wrong turn at its end (which the full replay
#   reports): peak memory in bytes per byte of the file.
#
# The inputs are made at run time under target/compare/memory/ and kept for later runs.
# Prints one line per run: the command, the input's size, the wall seconds and the peak
# resident memory (GNU time's maximum RSS, or VmHWM polled from /proc without it).
#
# Usage: benches/memory.sh        (SIZES="20 200" and PLIES=1000000 to choose; PBEM=path
#                                  measures that binary instead of a fresh release build)
# Measurements on a shared machine are noisy in time; the peak memory is not.
set -euo pipefail
# shellcheck source=benches/common.sh
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
sizes=${SIZES:-20 200}
plies=${PLIES:-1000000}
out=target/compare/memory
mkdir -p "$out"
pbem=${PBEM:-}
if [[ -z $pbem ]]; then
    echo "building pbem (release)..." >&2
    cargo build --release --locked --quiet --bin pbem
    pbem=target/release/pbem
fi

# report NAME FILE COMMAND...: one run, its line.
report() {
    local name=$1 file=$2 wall cpu kb bytes
    shift 2
    read -r wall cpu kb < <(run_once "$@" || true)
    bytes=$(stat -c %s "$file")
    awk -v name="$name" -v bytes="$bytes" -v wall="$wall" -v kb="$kb" 'BEGIN {
        printf "%-34s %9.1f MB input %8.2f s %8.1f MB peak RSS %6.2f bytes per input byte\n",
            name, bytes / 1e6, wall, kb / 1024, kb * 1024 / bytes }'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in $sizes; do
    file=$out/examples-${size}mb.pgn
    if [[ ! -f $file ]]; then
        : > "$file.tmp"
        while (($(stat -c %s "$file.tmp") < size * 1000000)); do
            for example in examples/*.pgn; do
                cat "$example"
                echo
            done >> "$file.tmp"
        done
        mv "$file.tmp" "$file"
    fi
    report "fmt (${size} MB)" "$file" "$pbem" fmt "$file"
    cp "$file" "$out/in-place.pgn"
    report "fmt --in-place (${size} MB)" "$file" "$pbem" fmt --in-place "$out/in-place.pgn"
    rm -f "$out/in-place.pgn"
done

long=$out/african-${plies}-plies.pgn
if [[ ! -f $long ]]; then
    {
        printf '[Variant "African Chess"]\n[Result "*"]\n\n'
        awk -v plies="$plies" 'BEGIN {
            for (i = 1; 4 * i <= plies; i++)
                printf "%d. Te1-d2 Te8-d7 %d. Td2-e1 Td7-e8\n", 2 * i - 1, 2 * i }'
        echo '*'
    } > "$long.tmp"
    mv "$long.tmp" "$long"
fi
# The same game with a turn no touchstone can make at its end: invalid, so the whole
# record is read and replayed to report it.
wrong=$out/african-${plies}-plies-wrong.pgn
[[ -f $wrong ]] || sed '$ s/^\*$/Te1-e3 */' "$long" > "$wrong"
report "validate (${plies} plies)" "$long" "$pbem" validate "$long"
report "validate (${plies} plies, invalid)" "$wrong" "$pbem" validate "$wrong"
