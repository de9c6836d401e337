#!/usr/bin/env bash
# Each game's speed: perft nodes per second from its start, how many times orthodox
# chess's that is behind (the first row; issue 17 asks for at most 5x), and validation
# plies per second on the bundled example game of that game repeated COPIES times (one
# core).
#
# Times are processor seconds (user + system, from `perf stat` when present, else GNU
# time), the best of RUNS, so that a loaded machine disturbs them less than wall time;
# `pbem perft` itself prints wall-clock nodes/s.
#
# Usage: benches/games.sh [RUNS]     (RUNS defaults to 3; COPIES defaults to 300)
set -euo pipefail

runs=${1:-3}
copies=${COPIES:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=target/compare/games
mkdir -p "$out"
echo "building pbem (release)..." >&2
cargo build --release --locked --quiet --bin pbem
pbem=target/release/pbem

# Processor seconds of one run of a command (its output discarded).
cpu_seconds() {
    if command -v perf > /dev/null && perf stat -x, -e task-clock true > /dev/null 2>&1; then
        perf stat -x, -e task-clock "$@" 2>&1 > /dev/null | awk -F, '/task-clock/ { printf "%.4f\n", $1 / 1000 }'
    else
        /usr/bin/time -f 'TIMES %U %S' "$@" 2>&1 > /dev/null | awk '/^TIMES/ { printf "%.4f\n", $2 + $3 }'
    fi
}

best_of() {
    local best="" seconds
    for ((r = 0; r < runs; r++)); do
        seconds=$(cpu_seconds "$@" || true)
        if [[ -z $best ]] || (($(echo "$seconds < $best" | bc -l))); then
            best=$seconds
        fi
    done
    echo "$best"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), best of $runs (processor time)"
printf '%-22s %6s %12s %9s %13s %7s   %-24s %9s %9s %11s\n' game depth nodes cpu_s nodes/s \
    behind example plies cpu_s plies/s
orthodox=""
# game, perft depth, example file
while read -r game depth example; do
    nodes=$("$pbem" perft --variant "$game" "$depth" 2> /dev/null | tail -1)
    perft_s=$(best_of "$pbem" perft --variant "$game" "$depth")
    file=$out/$example-x$copies.pgn
    if [[ ! -f $file ]]; then
        for ((i = 0; i < copies; i++)); do
            cat "examples/$example.pgn"
            echo
        done > "$file"
    fi
    plies=$("$pbem" validate --json --jobs 1 "$file" |
        sed -n 's/.*"type":"game".*"plies":\([0-9]*\).*/\1/p' | paste -sd+ | bc)
    validate_s=$(best_of "$pbem" validate --quiet --jobs 1 "$file")
    rate=$(echo "$nodes / $perft_s" | bc -l)
    orthodox=${orthodox:-$rate}
    printf '%-22s %6s %12s %9s %13.0f %6.1fx   %-24s %9s %9s %11.0f\n' "$game" "$depth" \
        "$nodes" "$perft_s" "$rate" "$(echo "$orthodox / $rate" | bc -l)" "$example" "$plies" \
        "$validate_s" "$(echo "$plies / $validate_s" | bc -l)"
done << 'EOF'
chess 5 immortal
chesica 4 chesica
chesscala 3 chesscala
cascudo 2 cascudo
wickets 5 wickets-deterministic
african 3 african-chess
EOF
