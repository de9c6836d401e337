# Shared by the benchmark scripts, which source it: their arguments, the inputs made from
# the shared game samples, and the timing of one process a run.
# shellcheck shell=bash

# bench_args DEFAULT_RUNS DEFAULT_SIZES [RUNS]: sets `runs` (the script's first argument,
# else DEFAULT_RUNS) and `sizes` (SIZES from the environment, else DEFAULT_SIZES), moves
# to the project root and sets `samples` to the lichess and TWIC samples of the shared
# data (PBEM_SHARED_DATA, default ../shared/data), which must be there.
bench_args() {
    runs=${3:-$1}
    sizes=${SIZES:-$2}
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    local data=${PBEM_SHARED_DATA:-../shared/data} sample
    samples=("$data/pgn/lichess_db_1000k.pgn" "$data/pgn/twic1599_1000k.pgn")
    for sample in "${samples[@]}"; do
        [[ -f $sample ]] || { echo "missing $sample (set PBEM_SHARED_DATA)" >&2; exit 2; }
    done
}

# games_input FOLDER MEGABYTES: prints the name of FOLDER/games-<MEGABYTES>mb.pgn, the
# samples repeated (one lichess + one TWIC sample is 2 MB and 1,548 games), made on the
# first call and kept for later runs.
games_input() {
    local file=$1/games-$2mb.pgn i
    if [[ ! -f $file ]]; then
        : > "$file.tmp"
        for ((i = 0; i < ($2 + 1) / 2; i++)); do
            cat "${samples[@]}" >> "$file.tmp"
        done
        mv "$file.tmp" "$file"
    fi
    echo "$file"
}

# One run of a command, its output discarded: prints "WALL CPU KB", the wall seconds, the
# processor seconds (user + system, every thread) and the peak resident memory in KB.
# With GNU time (the wall time from bash's `time`, to the millisecond, since GNU time's
# %e has only hundredths); without it, the wall time by the clock, no processor time (0)
# and the peak polled from /proc.
run_once() {
    if [[ -x /usr/bin/time ]]; then
        local TIMEFORMAT='WALL %3R'
        { time /usr/bin/time -f 'TIMES %e %U %S %M' "$@" 2>&1 > /dev/null; } 2>&1 \
            | awk '/^WALL/ { wall = $2 } /^TIMES/ { cpu = $3 + $4; kb = $5 }
                   END { print wall, cpu, kb }'
        return
    fi
    local start end hwm=0 value pid
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1 &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do
        value=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2> /dev/null || echo 0)
        [[ -n $value && $value -gt $hwm ]] && hwm=$value
        sleep 0.01
    done
    wait "$pid" || true
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc -l) 0 $hwm"
}

# time_runs COMMAND...: runs it `runs` times, one process a run; prints "BEST MEDIAN CPU
# MB": the best and the median wall seconds, the median processor seconds (which a loaded
# machine disturbs less than the wall time) and the largest peak RSS in MB.
time_runs() {
    local walls=() cpus=() peaks=() wall cpu kb r
    for ((r = 0; r < runs; r++)); do
        read -r wall cpu kb < <(run_once "$@")
        walls+=("${wall:-0}")
        cpus+=("${cpu:-0}")
        peaks+=("${kb:-0}")
    done
    local median='{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
    printf '%.3f %.3f %.3f %.1f\n' \
        "$(printf '%s\n' "${walls[@]}" | sort -g | head -1)" \
        "$(printf '%s\n' "${walls[@]}" | sort -g | awk "$median")" \
        "$(printf '%s\n' "${cpus[@]}" | sort -g | awk "$median")" \
        "$(printf '%s\n' "${peaks[@]}" | sort -g | tail -1 | awk '{ print $1 / 1024 }')"
}
