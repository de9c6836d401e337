//! The play page's answer: `pbem::board::view` (replay the record up to a ply, draw the
//! board with its hit areas, list every legal turn with its token and clicks) on each
//! example's hardest position, the ply with the most legal turns (found before the
//! measurement and printed). The page narrows clicks locally from this list, so a
//! click is answered in this time at most (issue 34's target: under 50 ms).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pbem::board;
use pbem::notation::{Record, parse_record};

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

criterion_group!(benches, views);
criterion_main!(benches);
