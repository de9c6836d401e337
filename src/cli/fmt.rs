//! `pbem fmt`: rewrite game files in canonical form.

use std::io::Write;
use std::path::PathBuf;

use super::{CliError, Status, display_path, input};
use crate::notation::{ReadError, complete_roster, write_record};
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

/// Runs `pbem fmt`.
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
        if args.in_place {
            // Before reading: a FIFO would block the read, and a device or a hard-linked
            // file must not be replaced.
            crate::store::check_replaceable(path).map_err(|source| CliError::Io {
                path: name.clone(),
                source,
            })?;
        }
        let mut text = String::new();
        let mut reader = input::open_with(path, args.encoding, None)?;
        let mut unreadable = 0;
        let mut warned = false;
        while let Some(item) = reader.next() {
            input::warn_decoded(&reader, &name, &mut warned);
            let mut record = match item {
                Ok(record) => record,
                Err(ReadError::Io(source)) => return Err(CliError::Io { path: name, source }),
                Err(ReadError::Parse(error)) => {
                    eprintln!(
                        "{name}:{}:{}: game {} cannot be read: {}",
                        error.span.line, error.span.column, error.game, error.message
                    );
                    unreadable += 1;
                    continue;
                }
            };
            let options = replay::Options::from_flags(args.lenient_results, false);
            let (report, numbering) = replay::canonicalize_with(&mut record, options);
            for finding in report.errors() {
                eprintln!(
                    "{name}:{}:{}: game {}: {}",
                    finding.span.line,
                    finding.span.column,
                    report.game,
                    super::escape_controls(&finding.message)
                );
                status = Status::Invalid;
            }
            complete_roster(&mut record);
            // Separates games with a blank line.
            write_record(&record, numbering, &mut text);
        }
        if unreadable > 0 {
            // Writing only the readable games would lose the others: refuse.
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
            if args.in_place {
                continue;
            }
        }
        if args.in_place {
            crate::store::write_atomically(path, text.as_bytes())
                .map_err(|source| CliError::Io { path: name, source })?;
        } else {
            if wrote_any && !text.is_empty() {
                out.write_all(b"\n")?;
            }
            wrote_any |= !text.is_empty();
            out.write_all(text.as_bytes())?;
        }
    }
    Ok(status)
}
