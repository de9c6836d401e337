//! Validation throughput: reading and replaying every game of the two 1 MB samples
//! (lichess and TWIC), in bytes and games per second. The samples are read from
//! `../shared/data/pgn` (or `PBEM_SHARED_DATA`); without them the bench says so and
//! measures nothing.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pbem::notation::Reader;
use pbem::replay::replay;

fn shared_data() -> Option<PathBuf> {
    let dir = match std::env::var_os("PBEM_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    };
    dir.is_dir().then_some(dir)
}

fn validate_all(bytes: &[u8]) -> usize {
    Reader::new(bytes)
        .flatten()
        .filter(|record| replay(record).is_valid())
        .count()
}

fn bench_validate(c: &mut Criterion) {
    let Some(data) = shared_data() else {
        eprintln!("SKIPPED validate bench: shared data not found (set PBEM_SHARED_DATA)");
        return;
    };
    for name in ["lichess_db_1000k.pgn", "twic1599_1000k.pgn"] {
        let bytes = std::fs::read(data.join("pgn").join(name)).expect("sample readable");
        let games = Reader::new(&bytes[..]).count() as u64;
        let mut group = c.benchmark_group(format!("validate/{name}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("bytes", |b| b.iter(|| validate_all(&bytes)));
        group.throughput(Throughput::Elements(games));
        group.bench_function("games", |b| b.iter(|| validate_all(&bytes)));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_validate
}
criterion_main!(benches);
