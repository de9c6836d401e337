//! `pbem bench`: how fast pbem reads and validates game files, in MB/s and games/s.
//!
//! Criterion benches (`cargo bench`) track the same paths for regressions; this command
//! measures any file a user has, in a release build, in seconds, on one core.
//! `benches/compare.sh` compares `pbem validate` (on one core and on all) with pgn-reader
//! and shakmaty, and `benches/games.sh` measures each game; ARCHITECTURE.md has the
//! figures (on one core pbem validates at about 0.4 of pgn-reader with shakmaty's speed).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{CliError, Status, display_path};
use crate::notation::{Reader, Record};
use crate::replay;

/// Arguments of `pbem bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How long to measure each path of each file, in seconds.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Game files to measure (read into memory first, so the disk is not measured).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `pbem bench`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err(CliError::Usage("--seconds must be positive".to_owned()));
    }
    let budget = Duration::from_secs_f64(args.seconds);
    writeln!(
        out,
        "{:<40} {:>16} {:>10} {:>12} {:>8}",
        "file", "path", "MB/s", "games/s", "games"
    )?;
    for path in &args.files {
        let name = display_path(path);
        let bytes = std::fs::read(path).map_err(|source| CliError::Io {
            path: name.clone(),
            source,
        })?;
        for path in [Path::Parse, Path::Replay, Path::ParseAndReplay] {
            let (games, seconds) = measure(&bytes, path, budget);
            writeln!(
                out,
                "{:<40} {:>16} {:>10.1} {:>12.0} {:>8}",
                name,
                path.label(),
                bytes.len() as f64 / seconds / 1e6,
                games as f64 / seconds,
                games
            )?;
        }
    }
    Ok(Status::Ok)
}

/// What one pass measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// Reading records only.
    Parse,
    /// Replaying records read beforehand (the rules engine and the validator alone).
    Replay,
    /// Reading and replaying, as `pbem validate` does.
    ParseAndReplay,
}

impl Path {
    fn label(self) -> &'static str {
        match self {
            Path::Parse => "parse",
            Path::Replay => "replay",
            Path::ParseAndReplay => "parse+replay",
        }
    }
}

/// Runs one path over the whole input repeatedly for about `budget`; returns the games
/// per pass and the best seconds per pass.
fn measure(bytes: &[u8], path: Path, budget: Duration) -> (usize, f64) {
    let records: Vec<Record> = if path == Path::Replay {
        Reader::new(bytes).flatten().collect()
    } else {
        Vec::new()
    };
    let started = Instant::now();
    let mut best = f64::INFINITY;
    let mut games = 0;
    while started.elapsed() < budget || best.is_infinite() {
        let pass = Instant::now();
        games = 0;
        let mut valid = 0usize;
        match path {
            Path::Replay => {
                for record in &records {
                    games += 1;
                    valid += usize::from(replay::replay(record).is_valid());
                }
            }
            Path::Parse | Path::ParseAndReplay => {
                for record in Reader::new(bytes).flatten() {
                    games += 1;
                    if path == Path::ParseAndReplay {
                        valid += usize::from(replay::replay(&record).is_valid());
                    }
                }
            }
        }
        std::hint::black_box(valid);
        best = best.min(pass.elapsed().as_secs_f64());
    }
    (games, best.max(f64::MIN_POSITIVE))
}
