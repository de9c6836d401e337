#!/usr/bin/env bash
# Whole archives in a release build, one process per run: wall time, CPU time and peak
# resident memory (/usr/bin/time) of `pbem validate` and `pbem convert` at 1x and 10x size
# (20 and 200 MB by default), of the same games plain, .gz, .zst and .bz2, and of a typed
# move list streamed on standard input (prose around one move, and a list that ends by
# fivefold repetition). Memory must stay flat from 1x to 10x; validating a compressed file
# must run at no less than 80% of the plain file's speed (the decoder has a thread of its
# own, so it is the wall time that counts).
#
# The games are the lichess and TWIC samples of the shared data (PBEM_SHARED_DATA, default
# ../shared/data), repeated; the inputs are kept under target/archives/ (about 300 MB at
# the default sizes) for later runs.
#
# Usage: benches/archives.sh [RUNS]     (RUNS defaults to 3; SIZES="20 200" to choose)
set -euo pipefail
# shellcheck source=benches/common.sh
source "$(dirname "$0")/common.sh"
bench_args 3 "20 200" "$@"
[[ -x /usr/bin/time ]] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
out=target/archives
mkdir -p "$out"
cargo build --release --locked --quiet --bin pbem
pbem=target/release/pbem

# The best wall seconds, the median CPU seconds and the largest peak RSS in MB of RUNS
# runs of a command.
measure() {
    local best median cpu peak
    read -r best median cpu peak < <(time_runs "$@")
    printf '%8.2f %8.2f %8.1f\n' "$best" "$cpu" "$peak"
}

printf '%-34s %8s %8s %8s\n' "case" "wall s" "cpu s" "peak MB"
for megabytes in $sizes; do
    file=$(games_input "$out" "$megabytes")
    for tool in "gzip -6" "zstd -3 -q" "bzip2 -9"; do
        extension=$(case $tool in gzip*) echo gz ;; zstd*) echo zst ;; bzip2*) echo bz2 ;; esac)
        if [[ ! -f $file.$extension ]] && command -v "${tool%% *}" > /dev/null; then
            # shellcheck disable=SC2086
            ${tool} -c < "$file" > "$file.$extension.tmp" && mv "$file.$extension.tmp" "$file.$extension"
        fi
    done
    for suffix in "" .gz .zst .bz2; do
        [[ -f $file$suffix ]] || continue
        printf '%-34s ' "validate --jobs 1 ${megabytes}mb.pgn$suffix"
        measure "$pbem" validate --quiet --jobs 1 "$file$suffix"
    done
    printf '%-34s ' "validate ${megabytes}mb.pgn (all cores)"
    measure "$pbem" validate --quiet "$file"
    printf '%-34s ' "convert ${megabytes}mb.pgn"
    measure "$pbem" convert "$file"
    printf '%-34s ' "convert typed prose ${megabytes}mb"
    measure bash -c "{ yes 'the quick brown fox jumps over the lazy dog' | head -c ${megabytes}000000; echo ' 1. e4 e5 *'; } | $pbem convert --from text -"
    printf '%-34s ' "convert typed fivefold ${megabytes}mb"
    measure bash -c "yes 'Nf3 Nf6 Ng1 Ng8' | head -c ${megabytes}000000 | $pbem convert --from text -"
done
