//! Chess speed: perft (move generation and playing moves) and resolving SAN tokens, the
//! work a validator does for every move of every game.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::games::{Chess, Game};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, fen, depth, nodes) in [
        ("start depth 5", START, 5, 4_865_609u64),
        ("kiwipete depth 4", KIWIPETE, 4, 4_085_603),
    ] {
        let position = Chess::from_position_string(fen).unwrap();
        assert_eq!(position.perft(depth), nodes, "{name}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| black_box(&position).perft(depth)));
    }
    group.finish();
}

/// Games of random legal moves, written in canonical SAN: deterministic (a fixed linear
/// congruential sequence picks the moves) and self-contained, so the bench needs no data.
fn sample_games(games: usize, plies: usize) -> Vec<Vec<String>> {
    let mut seed: u64 = 0x0123_4567_89AB_CDEF;
    let mut moves = Vec::new();
    (0..games)
        .map(|_| {
            let mut position = Chess::start();
            let mut tokens = Vec::new();
            for _ in 0..plies {
                moves.clear();
                position.legal_turns(&mut moves);
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                tokens.push(position.write_turn(&m));
                position.play(&m);
            }
            tokens
        })
        .collect()
}

fn san(c: &mut Criterion) {
    let games = sample_games(20, 120);
    let plies: usize = games.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("san");
    group.throughput(Throughput::Elements(plies as u64));
    group.bench_function("parse, resolve and play", |b| {
        b.iter(|| {
            for game in &games {
                let mut position = Chess::start();
                for token in game {
                    let syntax = Chess::parse_turn(token).unwrap();
                    let m = position.resolve(&syntax).unwrap();
                    position.play(&m);
                }
                black_box(&position);
            }
        });
    });
    group.bench_function("write", |b| {
        let positions: Vec<(Chess, pbem::games::chess::Move)> = games
            .iter()
            .flat_map(|game| {
                let mut position = Chess::start();
                game.iter()
                    .map(|token| {
                        let m = position
                            .resolve(&Chess::parse_turn(token).unwrap())
                            .unwrap();
                        let before = position.clone();
                        position.play(&m);
                        (before, m)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        b.iter(|| {
            for (position, m) in &positions {
                black_box(position.write_turn(m));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, perft, san);
criterion_main!(benches);
