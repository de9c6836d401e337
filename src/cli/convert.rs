//! `pbem convert`: between pbem records, Zillions saved games, Game Courier move lists
//! and typed move lists.

use std::io::{self, BufRead, Cursor, IsTerminal, Read, Write};
use std::path::PathBuf;

use super::diagnostic::{self, Source};
use super::{CliError, Status, display_path, input, parse_variant};
use crate::convert::{self, Format, Options, ops::Dialect};
use crate::games::{Game, Variant};
use crate::notation::{ReadError, Reader, Record, Span, complete_roster, write_record};
use crate::replay::{self, Finding, FindingKind};

/// The largest game `convert` reads: a pbem game, or a whole Zillions or Game Courier file
/// (which holds one game).
pub const MAX_GAME_BYTES: usize = 64 << 20;

/// How much of the input is looked at to guess its format and to tell text from binary.
const HEAD_BYTES: u64 = 1 << 16;

/// Arguments of `pbem convert`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The input's format: pbem, zillions, gamecourier or text (guessed from the content
    /// when left out).
    #[arg(long, value_parser = parse_format)]
    pub from: Option<Format>,
    /// The output's format: pbem, zillions or gamecourier.
    #[arg(long, value_parser = parse_format, default_value = "pbem")]
    pub to: Format,
    /// The game, for inputs that do not name it (a typed list is Chess otherwise).
    #[arg(long, value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The starting position as the game's position string, for inputs that do not give
    /// it (for a typed list, one that does not read is shown with a caret under its wrong
    /// field, exit 1).
    #[arg(long, value_name = "POSITION")]
    pub setup: Option<String>,
    /// For a pbem input, as `pbem validate --lenient-results`: `*` on an ended game and
    /// turns after a dead position are not errors (without it, such turns are errors only
    /// in games pbem conducted by mail, as in `validate`).
    #[arg(long)]
    pub lenient_results: bool,
    /// How to read text that is not UTF-8: an encoding label (windows-1252, latin1,
    /// iso-8859-2, ...); utf-8 refuses it instead.
    #[arg(long, value_name = "ENCODING", value_parser = input::parse_encoding, default_value = "windows-1252")]
    pub encoding: input::Fallback,
    /// Where to write (atomically); standard output when left out.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The file to convert, plain or compressed (`.gz`, `.zst`, `.bz2`); `-` reads
    /// standard input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Format::ALL.iter().map(|format| format.name()).collect();
        format!("unknown format \"{name}\" (known: {})", known.join(", "))
    })
}

/// Runs `pbem convert`: a pbem input is read and written game by game (one game in
/// memory at a time, at most [`MAX_GAME_BYTES`]); a typed move list is read as a stream
/// while its game goes on; a Zillions or Game Courier file, which holds one game, is read
/// whole up to that size.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    if args.to == Format::Text {
        return Err(CliError::Usage(
            "pbem does not write typed move lists; its own notation is one (--to pbem)".to_owned(),
        ));
    }
    let name = display_path(&args.input);
    let io_error = |source| CliError::Io {
        path: name.clone(),
        source,
    };
    let mut stream = input::open_bytes(&args.input, None)?;
    let mut head = Vec::new();
    (&mut stream)
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(io_error)?;
    if let Some(at) = memchr::memchr(0, &head) {
        return Err(CliError::Invalid(format!(
            "{name}: binary data, not a game (a zero byte at offset {at}); pbem converts pbem \
             records, Zillions saved games, Game Courier move lists and typed move lists"
        )));
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Err(CliError::Invalid(format!(
            "{name}: no game: the input is empty"
        )));
    }
    let from = args
        .from
        .unwrap_or_else(|| Format::guess(&input::decode(&head, args.encoding).0));
    if from == Format::Pbem && (args.variant.is_some() || args.setup.is_some()) {
        return Err(CliError::Usage(
            "--variant and --setup are for inputs that do not name the game; a pbem record \
             has its own tags"
                .to_owned(),
        ));
    }
    let stream: Box<dyn BufRead> = Box::new(Cursor::new(head).chain(stream));
    let write = |sink: &mut dyn Write| -> Result<Status, CliError> {
        if from == Format::Pbem {
            let reader = Reader::new(stream)
                .with_max_game_bytes(MAX_GAME_BYTES)
                .with_fallback_encoding(args.encoding.0);
            convert_pbem(args, &name, reader, sink)
        } else {
            convert_foreign(args, &name, from, stream, sink)
        }
    };
    match &args.output {
        None => write(out),
        Some(path) => super::write_file_with(path, |sink| write(sink).map(|status| (status, true))),
    }
}

fn styled() -> bool {
    io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints findings against the text they point into.
fn report(findings: &[Finding], game: usize, source: &Source<'_>) {
    let styled = styled();
    for finding in findings {
        if finding.kind == FindingKind::UnsupportedVariant {
            eprintln!(
                "{}:{}:{}: {}",
                source.path,
                finding.span.line.max(1),
                finding.span.column.max(1),
                super::escape_controls(&finding.message)
            );
        } else {
            eprintln!("{}", diagnostic::render(finding, game, source, styled));
        }
    }
}

/// A foreign file (one game): a typed move list streamed ([`convert_text`]), another
/// format read whole, bounded, matched turn by turn.
fn convert_foreign(
    args: &Args,
    name: &str,
    from: Format,
    stream: Box<dyn BufRead>,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    if from == Format::Text {
        return convert_text(args, name, stream, sink);
    }
    let mut bytes = Vec::new();
    stream
        .take(MAX_GAME_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| CliError::Io {
            path: name.to_owned(),
            source,
        })?;
    if bytes.len() > MAX_GAME_BYTES {
        return Err(CliError::Invalid(format!(
            "{name}:1:1: game 1 cannot be read: game too large: more than {MAX_GAME_BYTES} bytes \
             (a {from} file holds one game)"
        )));
    }
    let (text, decoded) = input::decode(&bytes, args.encoding);
    drop(bytes);
    if decoded {
        input::warn_not_utf8(name, args.encoding);
    }
    let source = Source {
        path: name,
        text: &text,
        start: Span::default(),
    };
    let foreign = convert::read(from, &text);
    let nothing = foreign.turns.is_empty()
        && foreign.edits.is_empty()
        && foreign.game.is_none()
        && foreign.result.is_none()
        && foreign.findings.is_empty();
    if nothing {
        return Err(CliError::Invalid(format!(
            "{name}: no game found: no move, no result{}",
            if from == Format::Text {
                " (read as a typed move list, every move names a square; other words are \
                 left out as prose)"
            } else {
                ""
            }
        )));
    }
    let options = Options {
        variant: args.variant,
        setup: args.setup.clone(),
    };
    let converted = convert::to_pbem(&foreign, &options);
    report(&converted.findings, 1, &source);
    write_converted(args, name, &converted, sink)
}

/// A typed move list, read as a stream while the game goes on ([`convert::text::Stream`]):
/// memory grows with the game, not with the input.
fn convert_text(
    args: &Args,
    name: &str,
    stream: Box<dyn BufRead>,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    // A typed list names no game: the start is read in --variant's (Chess by default),
    // and one that does not read is told with the field it is wrong in.
    if let Some(setup) = &args.setup {
        let variant = args.variant.unwrap_or(Variant::Chess);
        crate::with_game!(variant, G => G::from_position_string(setup).map(|_| ())).map_err(
            |error| CliError::Reported(diagnostic::position_error("--setup", setup, &error)),
        )?;
    }
    let mut turns = convert::text::Stream::new(stream, args.encoding.0);
    let options = Options {
        variant: args.variant,
        setup: args.setup.clone(),
    };
    let converted = convert::to_pbem_from(&convert::Foreign::default(), &mut turns, &options);
    if let Some(source) = turns.take_error() {
        return Err(CliError::Io {
            path: name.to_owned(),
            source,
        });
    }
    if turns.decoded()
        && let Some(encoding) = args.encoding.0
    {
        eprintln!(
            "warning: {name}: not utf-8 text; read as {}",
            encoding.name().to_ascii_lowercase()
        );
    }
    if turns.turns_read() == 0 && turns.result().is_none() {
        return Err(CliError::Invalid(format!(
            "{name}: no game found: no move, no result (read as a typed move list, every \
             move names a square; other words are left out as prose)"
        )));
    }
    let (text, start) = turns.source();
    let source = Source {
        path: name,
        text,
        start,
    };
    report(&converted.findings, 1, &source);
    write_converted(args, name, &converted, sink)
}

/// Writes a foreign game converted to pbem (its findings already shown).
fn write_converted(
    args: &Args,
    name: &str,
    converted: &convert::Converted,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    let mut status = if converted.is_complete() {
        Status::Ok
    } else {
        Status::Invalid
    };
    if converted.text.is_empty() {
        return Ok(status);
    }
    let record = crate::notation::parse_record(&converted.text)
        .expect("the converter writes readable records");
    status = status.worst(write_games(
        args,
        name,
        vec![record].into_iter().map(Ok),
        sink,
    )?);
    Ok(status)
}

/// A pbem input, read and written one game at a time.
fn convert_pbem<R: BufRead>(
    args: &Args,
    name: &str,
    mut reader: Reader<R>,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    let mut status = Status::Ok;
    let mut warned = false;
    let mut games = 0;
    let mut unreadable = false;
    let records = std::iter::from_fn(|| {
        if unreadable {
            return None;
        }
        let item = reader.next()?;
        input::warn_decoded(&reader, name, &mut warned);
        games += 1;
        match item {
            Ok(record) => {
                let (text, start) = reader.game_text();
                Some(Ok((record, text.to_owned(), start)))
            }
            Err(ReadError::Io(source)) => Some(Err(CliError::Io {
                path: name.to_owned(),
                source,
            })),
            Err(ReadError::Parse(error)) => {
                eprintln!("{}", input::unreadable(name, &error));
                unreadable = true;
                None
            }
        }
    });
    status = status.worst(write_games_with_source(args, name, records, sink)?);
    if unreadable {
        status = Status::Invalid;
    }
    if games == 0 {
        return Err(CliError::Invalid(format!("{name}: no game found")));
    }
    Ok(status)
}

/// Writes games converted from the foreign reader (their findings already shown).
fn write_games(
    args: &Args,
    name: &str,
    records: impl Iterator<Item = Result<Record, CliError>>,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    write_games_with_source(
        args,
        name,
        records.map(|record| record.map(|record| (record, String::new(), Span::default()))),
        sink,
    )
}

/// Writes each game as it comes: in pbem form, or as the one game of a foreign file.
fn write_games_with_source(
    args: &Args,
    name: &str,
    mut records: impl Iterator<Item = Result<(Record, String, Span), CliError>>,
    sink: &mut dyn Write,
) -> Result<Status, CliError> {
    let options = replay::Options::from_flags(args.lenient_results, false);
    let mut status = Status::Ok;
    let mut output = String::new();
    match args.to {
        Format::Pbem | Format::Text => {
            let mut first = true;
            for item in records {
                let (mut record, text, start) = item?;
                let source = Source {
                    path: name,
                    text: &text,
                    start,
                };
                let (found, numbering) = replay::canonicalize_with(&mut record, options);
                let errors: Vec<Finding> = found.errors().cloned().collect();
                if !errors.is_empty() {
                    report(&errors, record.number, &source);
                    status = Status::Invalid;
                }
                complete_roster(&mut record);
                output.clear();
                if !first {
                    output.push('\n');
                }
                first = false;
                write_record(&record, numbering, &mut output);
                sink.write_all(output.as_bytes())?;
            }
        }
        Format::Zillions | Format::GameCourier => {
            let Some(item) = records.next() else {
                return Ok(status);
            };
            let (record, text, start) = item?;
            if records.next().is_some() {
                return Err(CliError::Usage(format!(
                    "{name} holds more than one game; a {} file holds one",
                    args.to
                )));
            }
            let source = Source {
                path: name,
                text: &text,
                start,
            };
            let dialect = if args.to == Format::Zillions {
                Dialect::WithChange
            } else {
                Dialect::WithoutChange
            };
            match convert::export_with(&record, dialect, options) {
                Ok(game) if args.to == Format::Zillions => {
                    output = convert::zillions::write(&game);
                }
                Ok(game) => output = convert::gamecourier::write(&game),
                Err(findings) => {
                    report(&findings, record.number, &source);
                    return Ok(Status::Invalid);
                }
            }
            sink.write_all(output.as_bytes())?;
        }
    }
    Ok(status)
}
