//! `pbem bench`: how fast pbem reads and validates game files, in MB/s, games/s and
//! plies/s.
//!
//! Criterion benches (`cargo bench`) track the same paths for regressions; this command
//! measures any file a user has, in a release build, in seconds: the paths on one core,
//! then `pbem validate` itself with one job and with one per core.
//! `benches/compare.sh` compares `pbem validate` (on one core and on all) with pgn-reader
//! and shakmaty, and `benches/games.sh` measures each game; benches/README.md has the
//! figures.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{CliError, Status, display_path, input, validate};
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
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    writeln!(
        out,
        "{:<40} {:>22} {:>10} {:>12} {:>12} {:>8}",
        "file", "path", "MB/s", "games/s", "plies/s", "games"
    )?;
    for path in &args.files {
        let name = display_path(path);
        let bytes = std::fs::read(path).map_err(|source| CliError::Io {
            path: name.clone(),
            source,
        })?;
        // The main-line plies of the file, counted once.
        let plies: u64 = Reader::new(&bytes[..])
            .flatten()
            .map(|record| u64::from(replay::replay(&record).plies))
            .sum();
        let mut paths = vec![
            Path::Parse,
            Path::Replay,
            Path::ParseAndReplay,
            Path::Validate(1),
        ];
        if cores > 1 {
            paths.push(Path::Validate(cores));
        }
        for measured in paths {
            let (games, seconds) = measure(path, &bytes, measured, budget)?;
            writeln!(
                out,
                "{:<40} {:>22} {:>10.1} {:>12.0} {:>12.0} {:>8}",
                name,
                measured.label(),
                bytes.len() as f64 / seconds / 1e6,
                games as f64 / seconds,
                plies as f64 / seconds,
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
    /// Reading records and replaying them.
    ParseAndReplay,
    /// `pbem validate --quiet --jobs N` on the file (plain games streamed without a
    /// record; with N above 1, games replayed on N threads), the file read from the disk
    /// cache and the output thrown away.
    Validate(usize),
}

impl Path {
    fn label(self) -> String {
        match self {
            Path::Parse => "parse".to_owned(),
            Path::Replay => "replay".to_owned(),
            Path::ParseAndReplay => "parse+replay".to_owned(),
            Path::Validate(jobs) => format!("validate --jobs {jobs}"),
        }
    }
}

/// Runs one path over the whole input repeatedly for about `budget`; returns the games
/// per pass and the best seconds per pass.
fn measure(
    file: &std::path::Path,
    bytes: &[u8],
    path: Path,
    budget: Duration,
) -> Result<(usize, f64), CliError> {
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
            Path::Validate(jobs) => {
                let args = validate::Args {
                    json: false,
                    quiet: true,
                    lenient_results: false,
                    strict: false,
                    color: validate::ColorChoice::Never,
                    jobs: Some(u16::try_from(jobs).unwrap_or(u16::MAX)),
                    input: input::InputArgs::default(),
                    files: vec![file.to_path_buf()],
                };
                let mut output = Vec::new();
                validate::run(&args, &mut output)?;
                // The last line says `FILE: N games: ...`.
                let text = String::from_utf8_lossy(&output);
                let last = text.lines().last().unwrap_or_default();
                let counted = last
                    .strip_prefix(&format!("{}: ", display_path(file)))
                    .unwrap_or_default();
                games = counted
                    .split(' ')
                    .next()
                    .and_then(|count| count.parse().ok())
                    .unwrap_or(0);
            }
        }
        std::hint::black_box(valid);
        best = best.min(pass.elapsed().as_secs_f64());
    }
    Ok((games, best.max(f64::MIN_POSITIVE)))
}
