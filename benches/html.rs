//! The replay page's size and pbem's memory for long games (issue 32, point 8): for each
//! game, a long game of 1,000, 10,000 and 100,000 plies (`PLIES="1000 10000"` to choose),
//! from the random walk of `tests/support/playouts.rs`, made once and kept under
//! `target/html-bench/`; then `pbem html GAME -o PAGE` (the release binary) run under GNU
//! time, which gives its peak resident memory. Prints the game file's size, the page's
//! size, the page's bytes a ply, the peak memory and the wall time.
//!
//! Usage: `cargo bench --bench html`. ARCHITECTURE.md (Performance) has the figures.

use std::path::Path;
use std::process::Command;

#[path = "../tests/support/playouts.rs"]
#[allow(dead_code)]
mod playouts;

use playouts::LONG_GAMES;

fn main() {
    let sizes: Vec<usize> = std::env::var("PLIES")
        .unwrap_or_else(|_| "1000 10000 100000".to_owned())
        .split_whitespace()
        .map(|plies| plies.parse().expect("PLIES: numbers of plies"))
        .collect();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/html-bench");
    std::fs::create_dir_all(&folder).expect("target/html-bench");
    assert!(
        Path::new("/usr/bin/time").exists(),
        "needs /usr/bin/time (GNU time) for the peak memory"
    );
    println!(
        "{:<10} {:>8} {:>10} {:>12} {:>10} {:>9} {:>8}",
        "game", "plies", "game KB", "page bytes", "bytes/ply", "peak MB", "wall s"
    );
    for (name, long_game) in LONG_GAMES {
        for &plies in &sizes {
            let source = folder.join(format!("{name}-{plies}.pgn"));
            if !source.exists() {
                // A walk that finds no way on (Chesica's ban) is reported, not measured.
                let Ok(text) = std::panic::catch_unwind(|| long_game(plies, 7)) else {
                    println!("{name:<10} {plies:>8} no random walk of this length (seed 7)");
                    continue;
                };
                std::fs::write(&source, text).expect("write the game");
            }
            let page = folder.join(format!("{name}-{plies}.html"));
            let output = Command::new("/usr/bin/time")
                .args(["-f", "PEAK %M %e", env!("CARGO_BIN_EXE_pbem"), "html", "-o"])
                .arg(&page)
                .arg(&source)
                .output()
                .expect("run pbem html under GNU time");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{name}, {plies} plies: {stderr}");
            let (peak, wall) = stderr
                .lines()
                .find_map(|line| line.strip_prefix("PEAK "))
                .and_then(|figures| figures.split_once(' '))
                .expect("GNU time's figures");
            let peak: f64 = peak.parse().expect("kilobytes");
            let bytes = std::fs::metadata(&page).expect("the page").len();
            let game = std::fs::metadata(&source).expect("the game").len();
            println!(
                "{:<10} {:>8} {:>10.0} {:>12} {:>10.0} {:>9.1} {:>8}",
                name,
                plies,
                game as f64 / 1024.0,
                bytes,
                bytes as f64 / plies as f64,
                peak / 1024.0,
                wall
            );
        }
    }
}
