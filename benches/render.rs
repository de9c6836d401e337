//! Picture speed: the SVG of a game's final position with its last turn marked (target
//! under 5 ms; the record is replayed once, outside the measurement) and the PNG made
//! from it by resvg at 560 pixels (target under 50 ms: reading the SVG, rasterising and
//! encoding), for the example game of each game.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, criterion_group, criterion_main};
use pbem::games::{African, Cascudo, Chesica, Chess, Chesscala, Wickets};
use pbem::notation::parse_record;
use pbem::render::{self, Render};
use pbem::replay::replay_game;

const CHESS: &str = include_str!("../examples/immortal.pgn");
const WICKETS: &str = include_str!("../examples/wickets-cards.pgn");
const CHESICA: &str = include_str!("../examples/chesica.pgn");
const AFRICAN: &str = include_str!("../examples/african-chess.pgn");
const CASCUDO: &str = include_str!("../examples/cascudo.pgn");
const CHESSCALA: &str = include_str!("../examples/chesscala.pgn");

/// Draws the final position of a record, its last turn marked.
fn draw<G: Render>(group: &mut BenchmarkGroup<WallTime>, name: &str, text: &str) {
    let record = parse_record(text).unwrap();
    let replayed = replay_game::<G>(&record);
    let mut position = replayed.start.unwrap();
    let mut before = position.clone();
    for turn in &replayed.turns {
        before = position.clone();
        position.play(turn);
    }
    let last = replayed.turns.last().unwrap().clone();
    group.bench_function(name, |b| {
        b.iter(|| render::svg(black_box(&position), Some((&before, &last))).len());
    });
}

fn pictures(c: &mut Criterion) {
    let mut svg = c.benchmark_group("svg");
    svg.measurement_time(Duration::from_secs(3));
    draw::<Chess>(&mut svg, "chess", CHESS);
    draw::<Wickets>(&mut svg, "wickets", WICKETS);
    draw::<Chesica>(&mut svg, "chesica", CHESICA);
    draw::<African>(&mut svg, "african", AFRICAN);
    draw::<Cascudo>(&mut svg, "cascudo", CASCUDO);
    draw::<Chesscala>(&mut svg, "chesscala", CHESSCALA);
    svg.finish();

    let mut png = c.benchmark_group("png");
    png.sample_size(20);
    png.measurement_time(Duration::from_secs(4));
    for (name, text) in [
        ("chess", CHESS),
        ("wickets", WICKETS),
        ("chesica", CHESICA),
        ("african", AFRICAN),
        ("cascudo", CASCUDO),
        ("chesscala", CHESSCALA),
    ] {
        let picture = render::final_svg(&parse_record(text).unwrap()).unwrap();
        png.bench_function(name, |b| {
            b.iter(|| {
                render::png(black_box(&picture), render::PNG_SIZE)
                    .unwrap()
                    .len()
            });
        });
    }
    png.finish();
}

criterion_group!(benches, pictures);
criterion_main!(benches);
