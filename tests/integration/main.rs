//! pbem's integration tests: one test binary, one module per area.
//!
//! Tests that read the shared data set (real PGN files, perft tables, Zillions games) find
//! it at `../shared/data` beside the project, or where `PBEM_SHARED_DATA` points. When it
//! is absent they print that they were skipped and pass; CI always has it.

use std::path::PathBuf;

/// The shared data folder, or `None` (after saying so on stderr) when it is absent.
pub fn shared_data(test: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("PBEM_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED {test}: shared data not found at {} (set PBEM_SHARED_DATA)",
            dir.display()
        );
        None
    }
}

mod african;
mod cascudo;
mod chesica;
mod chess;
mod chesscala;
mod cli;
mod convert;
mod email;
mod mail;
mod notation;
mod play;
mod robustness;
mod roundtrip;
mod scenarios;
mod shared_files;
mod smtp;
mod validate;
mod wickets;
