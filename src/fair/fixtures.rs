//! The games the fair-chance unit tests and `benches/fair.rs` start from, said once: this
//! file is a module of the library's tests (`fair::fixtures`) and is included by path into
//! the bench, so it uses the public API only, through the crate's own name.

use pbem::clock::{Stamp, parse_instant};
use pbem::config::Player;
use pbem::correspondence::{self, NewGame};
use pbem::fair::{self, Chain};
use pbem::games::{Color, Variant};
use pbem::notation::Record;

/// The game id of the fixtures' games.
pub const GAME_ID: &str = "g-20261122-0000000f";

/// Alice or Bob, at example.org.
pub fn player(name: &str) -> Player {
    Player {
        name: name.to_owned(),
        email: format!("{}@example.org", name.to_ascii_lowercase()),
    }
}

/// A new Chess with wickets record between Alice and Bob in decision mode `mode`, from
/// the standard start or the FEN `position`.
pub fn wickets_record(mode: &str, position: Option<&str>, game_id: &str) -> Record {
    let mut record = correspondence::new_record(&NewGame {
        variant: Variant::ChessWithWickets,
        white: player("Alice"),
        black: player("Bob"),
        position: position.map(str::to_owned),
        time_control: None,
        game_id: game_id.to_owned(),
        started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
    })
    .unwrap();
    record.set_tag("Decision", mode);
    record
}

/// The stamp of every turn of the fixtures' games.
pub fn stamp() -> Stamp {
    Stamp {
        received: parse_instant("2026-11-22T10:00:00Z"),
        sent: parse_instant("2026-11-23T10:00:00Z"),
        leave_days: 0,
    }
}

/// White's and Black's dice chains.
pub fn chains() -> (Chain, Chain) {
    (Chain::from_seed([1; 32]), Chain::from_seed([2; 32]))
}

/// The turns before the scoring attempt of the fixtures' Dice games.
pub const BEFORE_ATTEMPT: [&str; 6] = ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"];

/// Plays `token` for the side of ply `index` (from 0: Alice's, Bob's, ...).
pub fn play(record: &mut Record, index: usize, token: &str) {
    let who = if index.is_multiple_of(2) {
        "alice"
    } else {
        "bob"
    };
    correspondence::play(record, &format!("{who}@example.org"), token, stamp()).unwrap();
}

/// A Dice (or Dice II) game by the library's steps, up to White's attempt `attempt`
/// sent without its roll and revealed.
pub fn game_to_attempt(mode: &str, attempt: &str) -> Record {
    let (white, black) = chains();
    let mut record = wickets_record(mode, None, GAME_ID);
    fair::commit(&mut record, Color::White, &white);
    for (i, token) in BEFORE_ATTEMPT.iter().chain([&attempt]).enumerate() {
        play(&mut record, i, token);
        if i == 0 {
            fair::commit(&mut record, Color::Black, &black);
        }
    }
    fair::reveal_attempt(&mut record, Color::White, &white).unwrap();
    record
}
