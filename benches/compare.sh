#!/usr/bin/env bash
# pbem validate against pgn-reader 0.29 + shakmaty 0.30 on the same files, side by side.
#
# Builds pbem (release) and the comparison program benches/compare/ (a separate Cargo
# project with its own Cargo.lock, not a dependency of pbem) into target/, makes a 25 MB
# and a 200 MB input by concatenating the lichess and TWIC samples of the shared data
# (PBEM_SHARED_DATA, default ../shared/data), runs each side RUNS times per input (one
# process per run, so both pay for start-up and reading the file) and prints the best and
# median wall time, MB/s, games/s, pbem's ratio (the other side's time over pbem's: above
# 1 means pbem is faster) and the largest peak RSS of the runs of each.
#
# Usage: benches/compare.sh [RUNS]      (RUNS defaults to 5; SIZES="25 200" to choose)
# Measurements on a shared machine are noisy: compare medians, and look at the load.
set -euo pipefail
# shellcheck source=benches/common.sh
source "$(dirname "$0")/common.sh"
bench_args 5 "25 200" "$@"
out=target/compare
mkdir -p "$out"

echo "building pbem and the comparison program (release)..." >&2
cargo build --release --locked --quiet --bin pbem
cargo build --release --locked --quiet \
    --manifest-path benches/compare/Cargo.toml --target-dir "$out/build" \
    || cargo build --release --locked --offline --quiet \
        --manifest-path benches/compare/Cargo.toml --target-dir "$out/build"
pbem=target/release/pbem
other=$out/build/release/pbem-compare

cores=$(nproc 2> /dev/null || echo 1)
# pbem before `--jobs` validated on one core.
if "$pbem" validate --help | grep -q -- --jobs; then
    job_counts=(1)
    [[ $cores -le 1 ]] || job_counts+=("$cores")
else
    job_counts=("")
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $cores cores, $runs runs each"
small=$out/games-1mb.pgn
cp "${samples[0]}" "$small"
printf '%-6s %-26s %7s %8s %7s %7s %9s %9s %9s %7s\n' \
    input side best_s median_s cpu_s MB/s games/s ratio cpu_ratio rss_MB
for size in $sizes; do
    file=$(games_input "$out" "$size")
    bytes=$(stat -c %s "$file")
    line=$("$other" "$file")
    games=$(sed -n 's/.* games=\([0-9]*\).*/\1/p' <<< "$line")
    read -r other_best other_median other_cpu other_rss < <(time_runs "$other" "$file")
    # MB/s and games/s from the median wall time; ratio: the other side's median wall
    # time over pbem's; cpu_ratio: the same with processor time.
    report() {
        local side=$1 best=$2 median=$3 cpu=$4 rss=$5
        printf '%-6s %-26s %7s %8s %7s %7.1f %9.0f %9.2f %9.2f %7s\n' "${size}MB" "$side" \
            "$best" "$median" "$cpu" "$(echo "$bytes / $median / 1000000" | bc -l)" \
            "$(echo "$games / $median" | bc -l)" "$(echo "$other_median / $median" | bc -l)" \
            "$(echo "$other_cpu / $cpu" | bc -l 2> /dev/null || echo 0)" "$rss"
    }
    report "pgn-reader+shakmaty" "$other_best" "$other_median" "$other_cpu" "$other_rss"
    for jobs in "${job_counts[@]}"; do
        args=(validate --quiet)
        [[ -z $jobs ]] || args+=(--jobs "$jobs")
        read -r best median cpu rss < <(time_runs "$pbem" "${args[@]}" "$file")
        report "pbem ${args[*]:1}" "$best" "$median" "$cpu" "$rss"
    done
done
for jobs in "${job_counts[@]}"; do
    args=(validate --quiet)
    [[ -z $jobs ]] || args+=(--jobs "$jobs")
    read -r _ _ _ rss < <(runs=1 time_runs "$pbem" "${args[@]}" "$small")
    echo "pbem ${args[*]:1} peak RSS on the 1 MB lichess sample: $rss MB"
done
