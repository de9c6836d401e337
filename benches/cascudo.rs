//! Cascudo speed: cascade generation (the depth-first search over chains, which must prune
//! early and not allocate per node, and test check by cascade at each leaf), perft, and
//! writing and resolving cascade tokens.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::games::{Cascudo, Game};

const START: &str = "b/qbk/npbpn/rp3pr/p5p/3B3/PPPBPPP/RNQBKNR w 0 1";
/// After 24 random plies: 133 cascades.
const MIDDLEGAME: &str = "n/b2/rk1rb/1Bp1p2/n1PQ1p1/pp4P/PPK2PN/1b1B1RN w 0 13";

fn generation(c: &mut Criterion) {
    let mut group = c.benchmark_group("cascades");
    for (name, text, count) in [("start", START, 996u64), ("middlegame", MIDDLEGAME, 133)] {
        let position = Cascudo::from_position_string(text).unwrap();
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        assert_eq!(turns.len() as u64, count, "{name}");
        group.throughput(Throughput::Elements(count));
        group.bench_function(format!("generate {name}"), |b| {
            b.iter(|| {
                turns.clear();
                black_box(&position).legal_turns(&mut turns);
                turns.len()
            });
        });
    }
    group.finish();
}

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, text, depth, nodes) in [
        ("start depth 2", START, 2, 742_969u64),
        ("middlegame depth 3", MIDDLEGAME, 3, 5_805_059),
    ] {
        let position = Cascudo::from_position_string(text).unwrap();
        assert_eq!(position.perft(depth), nodes, "{name}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| black_box(&position).perft(depth)));
    }
    group.finish();
}

fn tokens(c: &mut Criterion) {
    let position = Cascudo::from_position_string(MIDDLEGAME).unwrap();
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let written: Vec<String> = turns.iter().map(|t| position.write_turn(t)).collect();
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::Elements(turns.len() as u64));
    group.bench_function("write every middlegame cascade", |b| {
        b.iter(|| {
            turns
                .iter()
                .map(|t| black_box(&position).write_turn(t).len())
                .sum::<usize>()
        });
    });
    group.bench_function("resolve every middlegame cascade", |b| {
        b.iter(|| {
            written
                .iter()
                .filter(|token| {
                    let syntax = Cascudo::parse_turn(token).unwrap();
                    black_box(&position).resolve(&syntax).is_ok()
                })
                .count()
        });
    });
    group.finish();
}

criterion_group!(benches, generation, perft, tokens);
criterion_main!(benches);
