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

# Runs a command RUNS times; prints "best median cpu": the best and median wall seconds and
# the median processor seconds (user + system, all threads), which a loaded machine
# disturbs less than the wall time.
time_runs() {
    local walls=() cpus=() line
    for ((r = 0; r < runs; r++)); do
        if [[ -x /usr/bin/time ]]; then
            line=$( /usr/bin/time -f 'TIMES %e %U %S' "$@" 2>&1 > /dev/null | grep '^TIMES' || true)
            read -r _ wall user system <<< "$line"
            walls+=("$wall")
            cpus+=("$(echo "$user + $system" | bc -l)")
        else
            local start end
            start=$(date +%s.%N)
            "$@" > /dev/null 2>&1 || true
            end=$(date +%s.%N)
            walls+=("$(echo "$end - $start" | bc -l)")
            cpus+=("0")
        fi
    done
    local best median cpu
    best=$(printf '%s\n' "${walls[@]}" | sort -g | head -1)
    median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
    printf '%.3f %.3f %.3f\n' "$best" "$median" "$cpu"
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
printf '%-6s %-26s %7s %8s %7s %7s %9s %9s %9s %7s\n' \
    input side best_s median_s cpu_s MB/s games/s ratio cpu_ratio rss_MB
for size in $sizes; do
    file=$(make_input "$size")
    bytes=$(stat -c %s "$file")
    line=$("$other" "$file")
    games=$(sed -n 's/.* games=\([0-9]*\).*/\1/p' <<< "$line")
    read -r other_best other_median other_cpu < <(time_runs "$other" "$file")
    # MB/s and games/s from the median wall time; ratio: the other side's median wall
    # time over pbem's; cpu_ratio: the same with processor time.
    report() {
        local side=$1 best=$2 median=$3 cpu=$4 rss=$5
        printf '%-6s %-26s %7s %8s %7s %7.1f %9.0f %9.2f %9.2f %7s\n' "${size}MB" "$side" \
            "$best" "$median" "$cpu" "$(echo "$bytes / $median / 1000000" | bc -l)" \
            "$(echo "$games / $median" | bc -l)" "$(echo "$other_median / $median" | bc -l)" \
            "$(echo "$other_cpu / $cpu" | bc -l 2> /dev/null || echo 0)" "$rss"
    }
    report "pgn-reader+shakmaty" "$other_best" "$other_median" "$other_cpu" \
        "$(peak_rss "$other" "$file")"
    for jobs in "${job_counts[@]}"; do
        args=(validate --quiet)
        [[ -z $jobs ]] || args+=(--jobs "$jobs")
        read -r best median cpu < <(time_runs "$pbem" "${args[@]}" "$file")
        report "pbem ${args[*]:1}" "$best" "$median" "$cpu" \
            "$(peak_rss "$pbem" "${args[@]}" "$file")"
    done
done
for jobs in "${job_counts[@]}"; do
    args=(validate --quiet)
    [[ -z $jobs ]] || args+=(--jobs "$jobs")
    echo "pbem ${args[*]:1} peak RSS on the 1 MB lichess sample: $(peak_rss "$pbem" "${args[@]}" "$small") MB"
done
