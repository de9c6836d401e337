#!/usr/bin/env bash
# pbem validate against pgn-reader 0.29 + shakmaty 0.30 on the same files, side by side.
#
# Builds pbem (release) and the comparison program benches/compare/ (a separate Cargo
# project with its own Cargo.lock, not a dependency of pbem) into target/, makes a 25 MB
# and a 200 MB input by concatenating the lichess and TWIC samples of the shared data
# (PBEM_SHARED_DATA, default ../shared/data), runs each side RUNS times per input (one
# process per run, so both pay for start-up and reading the file) and prints the best and
# median wall time, MB/s, games/s, pbem's ratio (the other side's time over pbem's: above
# 1 means pbem is faster) and the peak RSS of one run of each.
#
# Usage: benches/compare.sh [RUNS]      (RUNS defaults to 5; SIZES="25 200" to choose)
# Measurements on a shared machine are noisy: compare medians, and look at the load.
set -euo pipefail

runs=${1:-5}
sizes=${SIZES:-"25 200"}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
data=${PBEM_SHARED_DATA:-../shared/data}
samples=("$data/pgn/lichess_db_1000k.pgn" "$data/pgn/twic1599_1000k.pgn")
for sample in "${samples[@]}"; do
    [[ -f $sample ]] || { echo "missing $sample (set PBEM_SHARED_DATA)" >&2; exit 2; }
done
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

# Inputs: one lichess + one TWIC sample is 2 MB and 1,548 games; repeat the pair.
make_input() {
    local megabytes=$1 file=$out/games-$1mb.pgn copies
    copies=$(( (megabytes + 1) / 2 ))
    if [[ ! -f $file ]]; then
        : > "$file.tmp"
        for ((i = 0; i < copies; i++)); do
            cat "${samples[@]}" >> "$file.tmp"
        done
        mv "$file.tmp" "$file"
    fi
    echo "$file"
}

now() { date +%s.%N; }

# Runs a command RUNS times; prints "best median" seconds.
time_runs() {
    local times=() start end
    for ((r = 0; r < runs; r++)); do
        start=$(now)
        "$@" > /dev/null || true
        end=$(now)
        times+=("$(echo "$end - $start" | bc -l)")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ t[NR] = $1 } END { printf "%.4f %.4f\n", t[1], t[int((NR + 1) / 2)] }'
}

# Peak resident memory of one run, in MB.
peak_rss() {
    if [[ -x /usr/bin/time ]]; then
        /usr/bin/time -v "$@" 2>&1 > /dev/null | awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }'
    else
        # Without GNU time: poll the process's VmHWM in /proc.
        "$@" > /dev/null &
        local pid=$! hwm=0 value
        while kill -0 "$pid" 2> /dev/null; do
            value=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2> /dev/null || echo 0)
            [[ -n $value && $value -gt $hwm ]] && hwm=$value
            sleep 0.01
        done
        wait "$pid" || true
        awk -v kb="$hwm" 'BEGIN { printf "%.1f", kb / 1024 }'
    fi
}

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
printf '%-8s %-26s %9s %9s %8s %10s %7s %8s\n' \
    input side best_s median_s MB/s games/s ratio rss_MB
for size in $sizes; do
    file=$(make_input "$size")
    bytes=$(stat -c %s "$file")
    line=$("$other" "$file")
    games=$(sed -n 's/.* games=\([0-9]*\).*/\1/p' <<< "$line")
    read -r other_best other_median < <(time_runs "$other" "$file")
    report() {
        local side=$1 best=$2 median=$3 rss=$4 ratio=$5
        printf '%-8s %-26s %9s %9s %8.1f %10.0f %7s %8s\n' "${size}MB" "$side" \
            "$best" "$median" "$(echo "$bytes / $median / 1000000" | bc -l)" \
            "$(echo "$games / $median" | bc -l)" "$ratio" "$rss"
    }
    report "pgn-reader+shakmaty" "$other_best" "$other_median" \
        "$(peak_rss "$other" "$file")" "1.00"
    for jobs in "${job_counts[@]}"; do
        args=(validate --quiet)
        [[ -z $jobs ]] || args+=(--jobs "$jobs")
        read -r best median < <(time_runs "$pbem" "${args[@]}" "$file")
        ratio=$(echo "$other_median / $median" | bc -l)
        report "pbem ${args[*]:1}" "$best" "$median" \
            "$(peak_rss "$pbem" "${args[@]}" "$file")" "$(printf '%.2f' "$ratio")"
    done
done
for jobs in "${job_counts[@]}"; do
    args=(validate --quiet)
    [[ -z $jobs ]] || args+=(--jobs "$jobs")
    echo "pbem ${args[*]:1} peak RSS on the 1 MB lichess sample: $(peak_rss "$pbem" "${args[@]}" "$small") MB"
done
