//! Fair dice by mail (issue 16): the cost of a player's hash chain (a value is up to
//! 1000 SHA-256 from the seed), of a roll, and of checking a game's transcript from the
//! record alone; and the mail bytes the transcript adds (printed once).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pbem::clock::{Stamp, parse_instant};
use pbem::config::Player;
use pbem::correspondence::{self, NewGame};
use pbem::fair::{self, Chain};
use pbem::games::{Color, Variant};
use pbem::notation::Record;

fn player(name: &str) -> Player {
    Player {
        name: name.to_owned(),
        email: format!("{}@example.org", name.to_ascii_lowercase()),
    }
}

/// A Dice II game to a completed attempt with a named sacrifice, and the same game
/// without the transcript (rolls as the completed token has them).
fn games() -> (Record, Record) {
    let (white, black) = (Chain::from_seed([1; 32]), Chain::from_seed([2; 32]));
    let stamp = Stamp {
        received: parse_instant("2026-11-22T10:00:00Z"),
        sent: parse_instant("2026-11-23T10:00:00Z"),
        leave_days: 0,
    };
    let mut record = correspondence::new_record(&NewGame {
        variant: Variant::ChessWithWickets,
        white: player("Alice"),
        black: player("Bob"),
        position: None,
        time_control: None,
        game_id: "g-20261122-0000000f".to_owned(),
        started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
    })
    .unwrap();
    record.set_tag("Decision", "Dice II");
    let mut plain = record.clone();
    fair::commit(&mut record, Color::White, &white);
    for (i, token) in ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6", "Nxe5:w9_sa2"]
        .iter()
        .enumerate()
    {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        correspondence::play(&mut record, &format!("{who}@example.org"), token, stamp).unwrap();
        if i == 0 {
            fair::commit(&mut record, Color::Black, &black);
        }
    }
    fair::reveal_attempt(&mut record, Color::White, &white).unwrap();
    let done = fair::complete(&mut record, Color::Black, &black)
        .unwrap()
        .unwrap();
    for (i, token) in [
        "e4",
        "e5",
        "Ke2:f3",
        "Ke7",
        "Nxf3",
        "Kd6",
        done.token.as_str(),
    ]
    .iter()
    .enumerate()
    {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        correspondence::play(&mut plain, &format!("{who}@example.org"), token, stamp).unwrap();
    }
    (record, plain)
}

fn dice(c: &mut Criterion) {
    let chain = Chain::from_seed([7; 32]);
    c.bench_function("fair chain value 1 (1000 SHA-256)", |b| {
        b.iter(|| black_box(&chain).value(1))
    });
    let (w, v) = (chain.value(1).unwrap(), chain.value(2).unwrap());
    c.bench_function("fair roll", |b| {
        b.iter(|| fair::roll(black_box("g-20261122-0000000f"), 1, &w, &v))
    });
    let (record, plain) = games();
    assert_eq!(fair::check(&record), fair::Fairness::Proven { rolls: 2 });
    let with = correspondence::to_text(&record).len();
    let without = correspondence::to_text(&plain).len();
    println!(
        "fair dice transcript: {with} bytes of record with it, {without} without: {} bytes for \
         two commitments and one Dice II attempt's reveals",
        with - without
    );
    c.bench_function("fair check of a Dice II game (8 plies, 2 rolls)", |b| {
        b.iter(|| fair::check(black_box(&record)))
    });
}

criterion_group!(benches, dice);
criterion_main!(benches);
