//! Arbitrary bytes through the notation reader: it must never panic, every error must be
//! located inside the input, and every game it reads must write and read back the same.
//!
//! Run with `cargo +nightly fuzz run read_notation` from the project root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pbem::notation::{Numbering, ReadError, Reader, Record, parse_record, record_to_string};

fuzz_target!(|data: &[u8]| {
    let mut reader = Reader::new(data).with_max_game_bytes(1 << 16);
    let mut games = 0;
    while let Some(game) = reader.next() {
        games += 1;
        let (text, start) = reader.game_text();
        assert!(start.offset <= data.len());
        assert!(text.len() <= data.len() * 3 + 3);
        match game {
            Ok(record) => check_round_trip(&record),
            Err(ReadError::Parse(error)) => {
                assert!(error.span.offset <= data.len());
                assert!(error.span.line >= 1 && error.span.column >= 1);
                assert_eq!(error.game, games);
            }
            Err(ReadError::Io(error)) => panic!("reading a slice failed: {error}"),
        }
    }
});

fn check_round_trip(record: &Record) {
    let numbering = Numbering::from_tags(record);
    let text = record_to_string(record, numbering);
    if text.is_empty() {
        // The empty record (a game of move numbers only) writes as nothing.
        return;
    }
    let mut again = parse_record(&text).expect("the writer's output reads");
    again.number = record.number;
    let written = record_to_string(&again, numbering);
    assert_eq!(written, text, "writing is not a fixed point");
}
