//! Whole archives at 1x and 10x size: each case that used to grow with the square of its
//! size must take about ten times as long at 10x. The inputs are made here:
//!
//! - `validate-text/long-line`: `pbem validate` (text output) of one game written on one
//!   line, with a finding in each of its variations;
//! - `read/tagless`: games without tags, read and replayed;
//! - `convert/typed-list`: a typed move list on one line (the converter stops at the
//!   fivefold repetition; every word is still read);
//! - `convert/export`: a long game written as Game Courier and Zillions moves.
//!
//! And `validate/compressed`: `pbem validate --jobs 1` of the same games plain, `.gz`,
//! `.zst` and `.bz2` (the decoder runs on a thread of its own; each must run at no less
//! than 80% of the plain file's speed). Memory at 1x and 10x of a 20 MB input is measured
//! by `benches/archives.sh` (peak RSS needs a process of its own).

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::convert::{self, Format, Options, ops::Dialect};
use pbem::games::{Chess, Game};
use pbem::notation::{Reader, parse_record};
use pbem::replay::{self, History, replay};

const SIZES: [(&str, usize); 2] = [("1x", 1), ("10x", 10)];

fn scratch_file(name: &str, contents: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("pbem-bench-{}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("temporary file");
    path
}

/// One game on one line: a variation with an illegal turn after each of `count` turns.
fn long_line(count: usize) -> String {
    let mut text = String::from("[Event \"long line\"]\n\n1. e4 ");
    for _ in 0..count {
        text.push_str("(1. Qh5) ");
    }
    text.push_str("e5 *\n");
    text
}

fn bench_validate_text(c: &mut Criterion) {
    let mut group = c.benchmark_group("validate-text/long-line");
    for (label, factor) in SIZES {
        let text = long_line(1_000 * factor);
        let path = scratch_file(&format!("long-line-{label}.pgn"), &text);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(label, |b| {
            b.iter(|| {
                let cli = pbem::cli::Cli::try_parse_from([
                    "pbem",
                    "validate",
                    "--color",
                    "never",
                    path.to_str().unwrap(),
                ])
                .unwrap();
                let mut sink = Vec::new();
                pbem::cli::execute(cli.command, None, &mut sink).unwrap();
                sink.len()
            });
        });
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

fn bench_tagless(c: &mut Criterion) {
    let mut group = c.benchmark_group("read/tagless");
    for (label, factor) in SIZES {
        let text = "1. e4 e5 2. Nf3 Nc6 *\n\n".repeat(10_000 * factor);
        group.throughput(Throughput::Elements(10_000 * factor as u64));
        group.bench_function(label, |b| {
            b.iter(|| {
                Reader::new(text.as_bytes())
                    .flatten()
                    .filter(|record| replay(record).is_valid())
                    .count()
            });
        });
    }
    group.finish();
}

fn bench_typed_list(c: &mut Criterion) {
    let mut group = c.benchmark_group("convert/typed-list");
    for (label, factor) in SIZES {
        let text = "Nf3 Nf6 Ng1 Ng8 ".repeat(8_000 * factor);
        group.throughput(Throughput::Elements(32_000 * factor as u64));
        group.bench_function(label, |b| {
            b.iter(|| {
                let foreign = convert::read(Format::Text, &text);
                convert::to_pbem(&foreign, &Options::default()).turns
            });
        });
    }
    group.finish();
}

/// A legal game of `plies` plies from a fixed pseudo-random playout that does not end
/// earlier (seeds are tried in order until one lasts).
fn long_game(plies: usize) -> String {
    playout(plies, 1).1
}

/// The first seed from `first` whose playout lasts `plies` plies, and its game.
fn playout(plies: usize, first: u64) -> (u64, String) {
    for seed in first.. {
        let mut state = seed;
        let mut position = Chess::start();
        let mut history = History::starting_at(&position);
        let mut tokens = Vec::new();
        let mut turns = Vec::new();
        while tokens.len() < plies && history.outcome(&position).is_none() {
            turns.clear();
            position.legal_turns(&mut turns);
            if turns.is_empty() {
                break;
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let turn = &turns[(state >> 33) as usize % turns.len()];
            tokens.push(position.write_turn(turn));
            position.play(turn);
            history.enter(&position);
        }
        if tokens.len() == plies {
            return (
                seed,
                format!("[Event \"long game\"]\n\n{} *\n", tokens.join(" ")),
            );
        }
    }
    unreachable!("some playout lasts")
}

fn bench_export(c: &mut Criterion) {
    let mut group = c.benchmark_group("convert/export");
    for (label, factor) in SIZES {
        let plies = 40 * factor;
        let text = long_game(plies);
        let record = parse_record(&text).expect("a playout reads");
        group.throughput(Throughput::Elements(plies as u64));
        group.bench_function(format!("gamecourier/{label}"), |b| {
            b.iter(|| {
                let game = convert::export_with(
                    &record,
                    Dialect::WithoutChange,
                    replay::Options::default(),
                )
                .expect("a valid game exports");
                convert::gamecourier::write(&game).len()
            });
        });
        group.bench_function(format!("zillions/{label}"), |b| {
            b.iter(|| {
                let game =
                    convert::export_with(&record, Dialect::WithChange, replay::Options::default())
                        .expect("a valid game exports");
                convert::zillions::write(&game).len()
            });
        });
    }
    group.finish();
}

/// About `bytes` of distinct games of 60 plies, so that they compress as real archives do
/// (not as one game repeated).
fn archive(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 1024);
    let mut seed = 1;
    while text.len() < bytes {
        let (used, game) = playout(60, seed);
        seed = used + 1;
        text.push_str(&game.replacen("long game", &format!("game {seed}"), 1));
        text.push('\n');
    }
    text
}

fn bench_compressed(c: &mut Criterion) {
    let text = archive(2 << 20);
    let plain = text.as_bytes();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(plain).unwrap();
    let mut bz2 = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz2.write_all(plain).unwrap();
    let files = [
        ("plain", "pgn", plain.to_vec()),
        ("gz", "pgn.gz", gz.finish().unwrap()),
        ("zst", "pgn.zst", zstd::encode_all(plain, 3).unwrap()),
        ("bz2", "pgn.bz2", bz2.finish().unwrap()),
    ];
    let mut group = c.benchmark_group("validate/compressed");
    group.throughput(Throughput::Bytes(plain.len() as u64));
    for (label, extension, bytes) in files {
        let path = std::env::temp_dir().join(format!(
            "pbem-bench-{}-archive.{extension}",
            std::process::id()
        ));
        std::fs::write(&path, bytes).expect("temporary file");
        group.bench_function(label, |b| {
            b.iter(|| {
                let cli = pbem::cli::Cli::try_parse_from([
                    "pbem",
                    "validate",
                    "--jobs",
                    "1",
                    "--quiet",
                    path.to_str().unwrap(),
                ])
                .unwrap();
                let mut sink = Vec::new();
                pbem::cli::execute(cli.command, None, &mut sink).unwrap();
                assert!(
                    sink.ends_with(b"valid\n"),
                    "{}",
                    String::from_utf8_lossy(&sink)
                );
                sink.len()
            });
        });
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_validate_text, bench_tagless, bench_typed_list, bench_export, bench_compressed
}
criterion_main!(benches);
