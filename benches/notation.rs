//! Throughput of the notation layer: reading (parse only) and writing the lichess and
//! TWIC samples of the shared data set.
//!
//! The samples are read from `../shared/data/pgn` beside the project, or from
//! `$PBEM_SHARED_DATA/pgn`; without them the benchmarks say so and measure nothing.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::notation::{Numbering, Reader, Record, read_str, write_record};

const SAMPLES: [&str; 2] = ["lichess_db_1000k.pgn", "twic1599_1000k.pgn"];

fn shared_pgn() -> Option<PathBuf> {
    let dir = match std::env::var_os("PBEM_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    };
    let pgn = dir.join("pgn");
    if pgn.is_dir() {
        Some(pgn)
    } else {
        eprintln!(
            "skipping the notation benchmarks: no shared data at {} (set PBEM_SHARED_DATA)",
            pgn.display()
        );
        None
    }
}

fn samples() -> Vec<(&'static str, String)> {
    let Some(dir) = shared_pgn() else {
        return Vec::new();
    };
    SAMPLES
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(name))
                .unwrap_or_else(|error| panic!("cannot read {name}: {error}"));
            (*name, text)
        })
        .collect()
}

fn read(c: &mut Criterion) {
    let mut group = c.benchmark_group("notation/read");
    for (name, text) in samples() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut turns = 0;
                for record in Reader::new(black_box(text.as_bytes())) {
                    turns += record.expect("the sample reads").moves.turns.len();
                }
                turns
            });
        });
    }
    group.finish();
}

fn write(c: &mut Criterion) {
    let mut group = c.benchmark_group("notation/write");
    for (name, text) in samples() {
        let records: Vec<Record> = read_str(&text)
            .collect::<Result<_, _>>()
            .expect("the sample reads");
        let mut out = String::with_capacity(text.len() * 2);
        for record in &records {
            write_record(record, Numbering::from_tags(record), &mut out);
        }
        group.throughput(Throughput::Bytes(out.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                for record in black_box(&records) {
                    write_record(record, Numbering::from_tags(record), &mut out);
                }
                out.len()
            });
        });
    }
    group.finish();
}

/// 100 MB of one game repeated, streamed through `BufRead` as from a file.
fn stream(c: &mut Criterion) {
    let game = "[Event \"Stream\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n\
1. e4 {[%clk 0:05:00]} e5 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4 Nf6\n\
5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 1-0\n\n";
    let text = game.repeat((100 << 20) / game.len());
    let mut group = c.benchmark_group("notation/stream");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("100MB", |b| {
        b.iter(|| {
            let reader = std::io::BufReader::new(black_box(text.as_bytes()));
            Reader::new(reader).filter(Result::is_ok).count()
        });
    });
    group.finish();
}

criterion_group!(benches, read, write, stream);
criterion_main!(benches);
