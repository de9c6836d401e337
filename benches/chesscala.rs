//! Chesscala speed: turn generation (sowings in every distinct order, captures, two-move
//! turns) measured by perft from the standard setup and from a crowded middlegame.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::games::{Chesscala, Game};

const MIDDLEGAME: &str = "kq(kb)1(np)1/p(pp)(qp)(npp)(rnnp)1/2B1p1/1b4/1(ROp)2Q1/1(Pqh)2p1/(OPP)Q(BNPP)(RPP)(PP)P/1P1KQK w - Fa 5/4 - 6";

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("chesscala perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    let start = Chesscala::start().position_string();
    for (name, text, depth, nodes) in [
        ("standard depth 3", start.as_str(), 3, 3_230_090u64),
        ("middlegame depth 2", MIDDLEGAME, 2, 672_181),
    ] {
        let position = Chesscala::from_position_string(text).unwrap();
        assert_eq!(position.perft(depth), nodes, "{name}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| black_box(&position).perft(depth)));
    }
    group.finish();
}

fn legal_turns(c: &mut Criterion) {
    let position = Chesscala::from_position_string(MIDDLEGAME).unwrap();
    let mut turns = Vec::new();
    c.bench_function("chesscala legal turns of the middlegame", |b| {
        b.iter(|| {
            turns.clear();
            black_box(&position).legal_turns(&mut turns);
            turns.len()
        });
    });
}

criterion_group!(benches, perft, legal_turns);
criterion_main!(benches);
