//! The play page's answer: `pbem::board::view` (replay the record up to a ply, draw the
//! board with its hit areas, list every legal turn with its token and clicks) on each
//! example's hardest position, the ply with the most legal turns (found before the
//! measurement and printed). The page narrows clicks locally from this list, so a
//! click is answered in this time at most (issue 34's target: under 50 ms).
//!
//! And the view of a game of 100,000 plies (`board_view_100k`): Chesscala's random walk
//! of `tests/support/playouts.rs` (seed 7; every ply legal, as Chesscala has no
//! repetition or move-count rule), made once and kept under `target/board-bench/`, at its
//! start, its middle and its end. Before measuring, the bench prints the size of each
//! view's JSON (what the page receives) and the peak memory one view adds to the
//! process (`VmHWM` of `/proc/self/status`, Linux only).

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pbem::board;
use pbem::notation::{Record, parse_record};

#[path = "../tests/support/playouts.rs"]
#[allow(dead_code)]
mod playouts;

/// The example of each game (the Dice game of Chess with wickets: its turns are the
/// attempts as typed, the roll dropped).
const EXAMPLES: [(&str, &str); 6] = [
    ("chess", include_str!("../examples/immortal.pgn")),
    ("wickets", include_str!("../examples/wickets-dice.pgn")),
    ("chesica", include_str!("../examples/chesica.pgn")),
    ("african", include_str!("../examples/african-chess.pgn")),
    ("cascudo", include_str!("../examples/cascudo.pgn")),
    ("chesscala", include_str!("../examples/chesscala.pgn")),
];

/// The ply of `record` with the most legal turns, and how many.
fn hardest(record: &Record) -> (usize, usize) {
    let end = board::view(record, None).expect("the example replays").ply;
    (0..=end)
        .map(|ply| {
            let view = board::view(record, Some(ply)).expect("the view");
            (ply, view.turns.len())
        })
        .max_by_key(|&(ply, turns)| (turns, std::cmp::Reverse(ply)))
        .expect("a ply")
}

fn views(c: &mut Criterion) {
    let mut group = c.benchmark_group("board_view");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(4));
    for (name, text) in EXAMPLES {
        let record = parse_record(text).expect("the example reads");
        let (ply, turns) = hardest(&record);
        eprintln!("{name}: ply {ply}, {turns} turns");
        group.bench_function(name, |b| {
            b.iter(|| {
                board::view(&record, Some(ply))
                    .expect("the view")
                    .turns
                    .len()
            });
        });
    }
    group.finish();
}

/// The plies of the long game.
const LONG_PLIES: usize = 100_000;

/// The long game, made at the first run and kept.
fn long_record() -> Record {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/board-bench");
    let path = folder.join(format!("chesscala-{LONG_PLIES}.pgn"));
    if !path.exists() {
        std::fs::create_dir_all(&folder).expect("target/board-bench");
        std::fs::write(&path, playouts::long_chesscala(LONG_PLIES, 7)).expect("the long game");
    }
    let text = std::fs::read_to_string(&path).expect("the long game");
    parse_record(&text).expect("the long game reads")
}

/// A figure of `/proc/self/status` in kB (`None` off Linux).
fn status_kb(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// How much the peak resident memory grows above the present one while `work` runs, in
/// MB: the peak is reset first (`5` written to `/proc/self/clear_refs`, Linux 4.0 on).
fn peak_growth<T>(work: impl FnOnce() -> T) -> (T, Option<f64>) {
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = status_kb("VmRSS:");
    let value = work();
    let after = status_kb("VmHWM:");
    let grown = match (reset, before, after) {
        (true, Some(before), Some(after)) => Some(after.saturating_sub(before) as f64 / 1024.0),
        _ => None,
    };
    (value, grown)
}

fn long_views(c: &mut Criterion) {
    let record = long_record();
    let mut group = c.benchmark_group("board_view_100k");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, ply) in [
        ("start", Some(0)),
        ("middle", Some(LONG_PLIES / 2)),
        ("end", None),
    ] {
        let (view, grown) = peak_growth(|| board::view(&record, ply).expect("the view"));
        let grown = grown.map_or("?".to_owned(), |grown| format!("{grown:.1} MB"));
        let json = serde_json::to_vec(&view).expect("the view's JSON").len();
        eprintln!(
            "{name}: ply {}, {} plies listed, JSON {json} bytes, peak memory grown by {grown}",
            view.ply,
            view.plies.len()
        );
        drop(view);
        group.bench_function(name, |b| {
            b.iter(|| board::view(&record, ply).expect("the view").ply);
        });
    }
    group.finish();
}

criterion_group!(benches, views, long_views);
criterion_main!(benches);
