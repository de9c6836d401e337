//! `pbem fmt`: rewrite game files in canonical form.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{CliError, Status, display_path, input};
use crate::notation::{Numbering, ReadError, Record, complete_roster, write_record};
use crate::replay;

/// Arguments of `pbem fmt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Replace each file with its canonical form (atomically) instead of printing it.
    #[arg(long, short = 'i')]
    pub in_place: bool,
    /// As `pbem validate --lenient-results`: `*` on an ended game and turns after a
    /// dead position are not errors (without it, such turns are errors only in games
    /// pbem conducted by mail, as in `validate`).
    #[arg(long)]
    pub lenient_results: bool,
    /// How to read text that is not UTF-8 (written back as UTF-8): an encoding label
    /// (windows-1252, latin1, iso-8859-2, ...); utf-8 refuses it instead.
    #[arg(long, value_name = "ENCODING", value_parser = input::parse_encoding, default_value = "windows-1252")]
    pub encoding: input::Fallback,
    /// Game files (`-` reads standard input; not with --in-place).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Runs `pbem fmt`: each file is read and written game by game (one game in memory at a
/// time); `--in-place` writes into a temporary file beside the original, renamed over it
/// only when every game was read.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    if args.in_place && args.files.iter().any(|path| path.as_os_str() == "-") {
        return Err(CliError::Usage(
            "--in-place cannot rewrite standard input".to_owned(),
        ));
    }
    let mut status = Status::Ok;
    let mut wrote_any = false;
    for path in &args.files {
        let name = display_path(path);
        let formatted = if args.in_place {
            // Before reading: a FIFO would block the read, and a device or a hard-linked
            // file must not be replaced.
            crate::store::check_replaceable(path).map_err(|source| CliError::Io {
                path: name.clone(),
                source,
            })?;
            super::write_file_with(path, |sink| {
                let mut games = Games::new(sink, false);
                let formatted = format_file(args, path, &name, &mut games)?;
                // Writing only the readable games would lose the others.
                Ok((formatted, formatted.unreadable == 0))
            })?
        } else {
            let mut games = Games::new(&mut *out, wrote_any);
            let formatted = format_file(args, path, &name, &mut games)?;
            wrote_any |= games.started;
            formatted
        };
        status = status.worst(formatted.status);
        let unreadable = formatted.unreadable;
        if unreadable > 0 {
            status = Status::Invalid;
            eprintln!(
                "{name}: {unreadable} game{} could not be read; {}",
                if unreadable == 1 { "" } else { "s" },
                if args.in_place {
                    "the file is left unchanged"
                } else {
                    "they are left out of the output"
                }
            );
        }
    }
    Ok(status)
}

/// What formatting one file found.
#[derive(Clone, Copy)]
struct Formatted {
    status: Status,
    /// Games that could not be read (left out of the output).
    unreadable: usize,
}

/// Reads the games of one file and writes each in canonical form to `games` as it is
/// read, telling on standard error what the replay found.
fn format_file(
    args: &Args,
    path: &Path,
    name: &str,
    games: &mut Games<'_>,
) -> Result<Formatted, CliError> {
    let mut formatted = Formatted {
        status: Status::Ok,
        unreadable: 0,
    };
    let mut reader = input::open_with(path, args.encoding, None)?;
    let mut warned = false;
    let options = replay::Options::from_flags(args.lenient_results, false);
    while let Some(item) = reader.next() {
        input::warn_decoded(&reader, name, &mut warned);
        let mut record = match item {
            Ok(record) => record,
            Err(ReadError::Io(source)) => {
                return Err(CliError::Io {
                    path: name.to_owned(),
                    source,
                });
            }
            Err(ReadError::Parse(error)) => {
                eprintln!("{}", input::unreadable(name, &error));
                formatted.unreadable += 1;
                continue;
            }
        };
        let (report, numbering) = replay::canonicalize_with(&mut record, options);
        for finding in report.errors() {
            eprintln!(
                "{name}:{}:{}: game {}: {}",
                finding.span.line,
                finding.span.column,
                report.game,
                super::escape_controls(&finding.message)
            );
            formatted.status = Status::Invalid;
        }
        complete_roster(&mut record);
        games.write(&record, numbering)?;
    }
    Ok(formatted)
}

/// Writes the games of a file one by one, separated as [`write_record`] separates the
/// games it writes into one string, and the files by one blank line.
struct Games<'a> {
    sink: &'a mut dyn Write,
    /// Whether an earlier file wrote something (then a blank line comes first).
    after_file: bool,
    /// Whether this file wrote anything yet.
    started: bool,
    /// The last byte this file wrote.
    last: u8,
    /// One game's text, reused.
    text: String,
}

impl<'a> Games<'a> {
    fn new(sink: &'a mut dyn Write, after_file: bool) -> Games<'a> {
        Games {
            sink,
            after_file,
            started: false,
            last: b'\n',
            text: String::new(),
        }
    }

    /// Writes one game (with what separates it from the one before) in one write, so that
    /// a line-buffered standard output passes it on whole.
    fn write(&mut self, record: &Record, numbering: Numbering) -> io::Result<()> {
        self.text.clear();
        write_record(record, numbering, &mut self.text);
        let separator = if self.started {
            if self.last == b'\n' { "\n" } else { "\n\n" }
        } else if self.text.is_empty() {
            return Ok(());
        } else if self.after_file {
            "\n"
        } else {
            ""
        };
        self.text.insert_str(0, separator);
        self.started = true;
        self.sink.write_all(self.text.as_bytes())?;
        if let Some(&last) = self.text.as_bytes().last() {
            self.last = last;
        }
        Ok(())
    }
}
