//! `pbem convert`: between pbem records, Zillions saved games, Game Courier move lists
//! and typed move lists.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use super::diagnostic::{self, Source};
use super::{CliError, Status, display_path, parse_variant};
use crate::convert::{self, Format, Options, ops::Dialect};
use crate::games::Variant;
use crate::notation::{ReadError, Record, Span, complete_roster, read_str, write_record};
use crate::replay::{self, Finding, FindingKind};

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
    /// it.
    #[arg(long, value_name = "POSITION")]
    pub setup: Option<String>,
    /// For a pbem input, as `pbem validate --lenient-results`: `*` on an ended game and
    /// turns after a dead position are not errors.
    #[arg(long)]
    pub lenient_results: bool,
    /// Where to write (atomically); standard output when left out.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The file to convert (`-` reads standard input).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Format::ALL.iter().map(|format| format.name()).collect();
        format!("unknown format \"{name}\" (known: {})", known.join(", "))
    })
}

/// Runs `pbem convert`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    if args.to == Format::Text {
        return Err(CliError::Usage(
            "pbem does not write typed move lists; its own notation is one (--to pbem)".to_owned(),
        ));
    }
    let name = display_path(&args.input);
    let text = read_input(args, &name)?;
    let from = args.from.unwrap_or_else(|| Format::guess(&text));
    if from == Format::Pbem && (args.variant.is_some() || args.setup.is_some()) {
        return Err(CliError::Usage(
            "--variant and --setup are for inputs that do not name the game; a pbem record \
             has its own tags"
                .to_owned(),
        ));
    }
    let styled = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let source = Source {
        path: &name,
        text: &text,
        start: Span::default(),
    };
    let report = |findings: &[Finding]| {
        for finding in findings {
            if finding.kind == FindingKind::UnsupportedVariant {
                eprintln!(
                    "{name}:{}:{}: {}",
                    finding.span.line.max(1),
                    finding.span.column.max(1),
                    finding.message
                );
            } else {
                eprintln!("{}", diagnostic::render(finding, 1, &source, styled));
            }
        }
    };

    // The pbem record to write or to export.
    let (records, mut status) = if from == Format::Pbem {
        read_pbem(&text, &name)?
    } else {
        let foreign = convert::read(from, &text);
        let options = Options {
            variant: args.variant,
            setup: args.setup.clone(),
        };
        let converted = convert::to_pbem(&foreign, &options);
        report(&converted.findings);
        let status = if converted.is_complete() {
            Status::Ok
        } else {
            Status::Invalid
        };
        if converted.text.is_empty() {
            return Ok(status);
        }
        let record = crate::notation::parse_record(&converted.text)
            .expect("the converter writes readable records");
        (vec![record], status)
    };

    let options = replay::Options {
        lenient_results: args.lenient_results,
    };
    let mut output = String::new();
    match args.to {
        Format::Pbem | Format::Text => {
            for mut record in records {
                let (found, numbering) = replay::canonicalize_with(&mut record, options);
                let errors: Vec<Finding> = found.errors().cloned().collect();
                if !errors.is_empty() {
                    report(&errors);
                    status = Status::Invalid;
                }
                complete_roster(&mut record);
                if !output.is_empty() {
                    output.push('\n');
                }
                write_record(&record, numbering, &mut output);
            }
        }
        Format::Zillions | Format::GameCourier => {
            let [record] = records.as_slice() else {
                return Err(CliError::Usage(format!(
                    "{name} holds {} games; a {} file holds one",
                    records.len(),
                    args.to
                )));
            };
            let dialect = if args.to == Format::Zillions {
                Dialect::WithChange
            } else {
                Dialect::WithoutChange
            };
            match convert::export_with(record, dialect, options) {
                Ok(game) if args.to == Format::Zillions => {
                    output = convert::zillions::write(&game);
                }
                Ok(game) => output = convert::gamecourier::write(&game),
                Err(findings) => {
                    report(&findings);
                    return Ok(Status::Invalid);
                }
            }
        }
    }
    match &args.output {
        Some(path) => {
            crate::store::write_atomically(path, output.as_bytes()).map_err(|source| {
                CliError::Io {
                    path: display_path(path),
                    source,
                }
            })?
        }
        None => out.write_all(output.as_bytes())?,
    }
    Ok(status)
}

fn read_input(args: &Args, name: &str) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let io_error = |source| CliError::Io {
        path: name.to_owned(),
        source,
    };
    if args.input.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map_err(io_error)?;
    } else {
        bytes = std::fs::read(&args.input).map_err(io_error)?;
    }
    // Zillions writes Windows code pages; anything not UTF-8 is kept as replacement
    // characters rather than refused.
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

/// Every record of a pbem file; an unreadable game is an error of the input.
fn read_pbem(text: &str, name: &str) -> Result<(Vec<Record>, Status), CliError> {
    let mut records = Vec::new();
    for item in read_str(text) {
        match item {
            Ok(record) => records.push(record),
            Err(ReadError::Io(source)) => {
                return Err(CliError::Io {
                    path: name.to_owned(),
                    source,
                });
            }
            Err(ReadError::Parse(error)) => {
                eprintln!(
                    "{name}:{}:{}: game {} cannot be read: {}",
                    error.span.line, error.span.column, error.game, error.message
                );
                return Ok((records, Status::Invalid));
            }
        }
    }
    Ok((records, Status::Ok))
}
