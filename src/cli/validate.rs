//! `pbem validate`: replay every game of every file and report what is wrong.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::diagnostic::{self, Source};
use super::{CliError, Status, display_path, input};
use crate::notation::{ReadError, Record};
use crate::replay::{self, Finding, Options, Report};

/// Arguments of `pbem validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print findings and per-game verdicts as JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print only invalid and unsupported games and the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Take `*` on a game that has ended, and turns after a dead position or another
    /// end the rules impose while turns are still possible, as warnings (archives of
    /// over-the-board games write them).
    #[arg(long)]
    pub lenient_results: bool,
    /// Colour the diagnostics: auto (when standard output is a terminal), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(flatten)]
    pub input: input::InputArgs,
    /// Game files to check, plain or compressed (`.gz`, `.zst`, `.bz2`); `-` reads
    /// standard input; a folder means the `.pgn` files (and `.pgn.gz`, `.pgn.zst`,
    /// `.pgn.bz2`) in it and its subfolders.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// When to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard output is a terminal and `NO_COLOR` is unset.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Counts over one file or all files.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    files: usize,
    games: usize,
    valid: usize,
    invalid: usize,
    unsupported: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.games += other.games;
        self.valid += other.valid;
        self.invalid += other.invalid;
        self.unsupported += other.unsupported;
    }

    fn describe(&self) -> String {
        let mut text = format!(
            "{} game{}: {} valid",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.valid
        );
        if self.invalid > 0 {
            text.push_str(&format!(", {} invalid", self.invalid));
        }
        if self.unsupported > 0 {
            text.push_str(&format!(", {} unsupported", self.unsupported));
        }
        text
    }
}

/// One JSON line about a game.
#[derive(Serialize)]
struct GameLine<'a> {
    r#type: &'static str,
    file: &'a str,
    game: usize,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'static str>,
    plies: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_position: Option<&'a str>,
    errors: usize,
    warnings: usize,
}

/// One JSON line about a finding.
#[derive(Serialize)]
struct FindingLine<'a> {
    r#type: &'static str,
    file: &'a str,
    game: usize,
    line: u32,
    column: u32,
    #[serde(flatten)]
    finding: &'a Finding,
}

/// Runs `pbem validate`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    let styled = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let mut total = Tally::default();
    let files = input::expand(&args.files, args.input.follow)?;
    let mut progress = input::Progress::new(&files, args.quiet);
    for path in &files {
        let name = display_path(path);
        let mut tally = validate_file(path, &name, args, styled, progress.as_mut(), out)?;
        tally.files = 1;
        if !args.json {
            writeln!(out, "{name}: {}", tally.describe())?;
        }
        total.add(tally);
    }
    if !args.json && total.files > 1 {
        writeln!(out, "total: {}", total.describe())?;
    }
    Ok(if total.valid == total.games {
        Status::Ok
    } else {
        Status::Invalid
    })
}

fn validate_file(
    path: &std::path::Path,
    name: &str,
    args: &Args,
    styled: bool,
    mut progress: Option<&mut input::Progress>,
    out: &mut dyn Write,
) -> Result<Tally, CliError> {
    let mut reader = input::open_with(path, args.input.encoding, progress.as_deref())?;
    let mut tally = Tally::default();
    let mut warned = false;
    while let Some(item) = reader.next() {
        input::warn_decoded(&reader, name, &mut warned);
        if let Some(progress) = progress.as_deref_mut() {
            progress.game();
        }
        tally.games += 1;
        let (report, record) = match item {
            Ok(record) => {
                let options = Options {
                    lenient_results: args.lenient_results,
                };
                (replay::replay_with(&record, options), Some(record))
            }
            Err(ReadError::Io(source)) => {
                return Err(CliError::Io {
                    path: name.to_owned(),
                    source,
                });
            }
            Err(ReadError::Parse(error)) => (Report::unreadable(&error), None),
        };
        if report.is_valid() {
            tally.valid += 1;
        } else if report.is_unsupported() {
            tally.unsupported += 1;
        } else {
            tally.invalid += 1;
        }
        let (text, start) = reader.game_text();
        let source = Source {
            path: name,
            text,
            start,
        };
        if args.json {
            write_json(&report, record.as_ref(), name, out)?;
        } else {
            write_text(&report, record.as_ref(), &source, args.quiet, styled, out)?;
        }
    }
    Ok(tally)
}

fn write_json(
    report: &Report,
    record: Option<&Record>,
    name: &str,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    for finding in &report.findings {
        let line = FindingLine {
            r#type: "finding",
            file: name,
            game: report.game,
            line: finding.span.line,
            column: finding.span.column,
            finding,
        };
        serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
        writeln!(out)?;
    }
    let errors = report.errors().count();
    let line = GameLine {
        r#type: "game",
        file: name,
        game: report.game,
        status: status_word(report),
        variant: report.variant.map(|variant| variant.name()),
        plies: report.plies,
        result: record.and_then(|record| record.tag("Result")),
        outcome: report.outcome.map(|outcome| outcome.to_string()),
        final_position: report.final_position.as_deref(),
        errors,
        warnings: report.findings.len() - errors,
    };
    serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)?;
    writeln!(out)?;
    Ok(())
}

fn status_word(report: &Report) -> &'static str {
    if report.is_valid() {
        "valid"
    } else if report.is_unsupported() {
        "unsupported"
    } else {
        "invalid"
    }
}

fn write_text(
    report: &Report,
    record: Option<&Record>,
    source: &Source<'_>,
    quiet: bool,
    styled: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let valid = report.is_valid();
    if quiet && valid && report.findings.is_empty() {
        return Ok(());
    }
    let described = record.map(describe_game).unwrap_or_default();
    if report.is_unsupported() {
        // Not a mistake in the record: one line says which game it is and where.
        if let Some(finding) = report.findings.first() {
            let span = finding.span;
            writeln!(
                out,
                "{}:{}:{}: game {}{described}: {}",
                source.path,
                span.line,
                span.column,
                report.game,
                super::escape_controls(&finding.message)
            )?;
        }
        return Ok(());
    }
    let mut line = format!("{}: game {}{described}", source.path, report.game);
    for finding in &report.findings {
        writeln!(
            out,
            "{}",
            diagnostic::render(finding, report.game, source, styled)
        )?;
    }
    if quiet && valid {
        return Ok(());
    }
    line.push_str(": ");
    line.push_str(status_word(report));
    line.push_str(&format!(
        ", {} pl{}",
        report.plies,
        if report.plies == 1 { "y" } else { "ies" }
    ));
    if valid {
        if let Some(result) = record.and_then(|record| record.tag("Result")) {
            line.push_str(&format!(", {result}"));
        }
        if let Some(outcome) = report.outcome {
            line.push_str(&format!(" ({outcome})"));
        }
    } else {
        let errors = report.errors().count();
        line.push_str(&format!(
            " ({errors} error{})",
            if errors == 1 { "" } else { "s" }
        ));
    }
    writeln!(out, "{line}")?;
    Ok(())
}

/// ` (White - Black, Event Date)` from the tags that are known.
fn describe_game(record: &Record) -> String {
    let known = |name: &str| {
        record
            .tag(name)
            .map(str::trim)
            .filter(|value| !value.is_empty() && !value.starts_with('?'))
    };
    let mut parts = Vec::new();
    if let (Some(white), Some(black)) = (known("White"), known("Black")) {
        parts.push(format!("{white} - {black}"));
    }
    let place: Vec<&str> = [known("Event"), known("Date")]
        .into_iter()
        .flatten()
        .collect();
    if !place.is_empty() {
        parts.push(place.join(" "));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", super::escape_controls(&parts.join(", ")))
    }
}
