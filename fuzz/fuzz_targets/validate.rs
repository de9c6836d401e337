//! Arbitrary bytes through the whole validator: read, replay, rewrite canonically, write.
//! It must never panic, every finding must lie inside the input, and a game that
//! validates must validate again after being written canonically.
//!
//! Run with `cargo +nightly fuzz run validate` from the project root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pbem::notation::{Reader, parse_record, record_to_string};
use pbem::replay::{canonicalize, replay};

fuzz_target!(|data: &[u8]| {
    for mut record in Reader::new(data).with_max_game_bytes(1 << 16).flatten() {
        let report = replay(&record);
        for finding in &report.findings {
            assert!(finding.span.offset <= data.len());
        }
        let (_, numbering) = canonicalize(&mut record);
        let text = record_to_string(&record, numbering);
        if report.is_valid() && !text.is_empty() {
            let again = parse_record(&text).expect("the writer's output reads");
            assert!(replay(&again).is_valid(), "valid before fmt, invalid after:\n{text}");
        }
    }
});
