//! `pbem validate`: replay every game of every file and report what is wrong. The
//! library validates ([`crate::batch`], on as many threads as asked); this module reads
//! the arguments and prints each game's findings and verdict as text or JSON lines.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use serde::Serialize;

use super::diagnostic::{self, Source};
use super::{CliError, Status, input};
use crate::batch::{self, Game, Lines, Tally};
use crate::notation::{Decoded, Record};
use crate::replay::{Finding, Options, Report};

/// Arguments of `pbem validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print findings and per-game verdicts as JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print only invalid and unsupported games and the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Take `*` on a game that has ended, and in every game turns after a dead position
    /// or another automatic draw (seventy-five moves, fivefold repetition), as warnings
    /// (archives of over-the-board games write them).
    #[arg(long, conflicts_with = "strict")]
    pub lenient_results: bool,
    /// Take turns after an automatic draw as errors in every game. Without it (and
    /// without --lenient-results) they are errors only in games pbem conducted by mail
    /// (`[Mode "EM"]` with a `[GameId]`) and warnings in others; the result must be the
    /// draw either way.
    #[arg(long)]
    pub strict: bool,
    /// Colour the diagnostics: auto (when standard output is a terminal), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// How many games to replay at once: 1 replays one game after another on one core;
    /// the default is one per core. The output is the same, in file order, either way.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
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

/// One JSON line about a game, after its type, file and game number.
#[derive(Serialize)]
struct GameLine<'a> {
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
    /// Whether the game's chance is proven fair, not proven, or broken (issue 16).
    #[serde(skip_serializing_if = "Option::is_none")]
    chance: Option<String>,
    errors: usize,
    warnings: usize,
}

/// One JSON line about a finding, after its type, file and game number.
#[derive(Serialize)]
struct FindingLine<'a> {
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
    let files = input::expand(&args.files, args.input.follow)?;
    let options = batch::Options {
        jobs: args.jobs.map_or(0, usize::from),
        replay: Options::from_flags(args.lenient_results, args.strict),
        encoding: args.input.encoding.0,
        final_position: args.json,
    };
    let mut progress = input::Progress::new(&files, args.quiet);
    let printer = Printer { args, styled };
    let total = batch::validate(
        &files,
        &options,
        &printer,
        out,
        progress
            .as_mut()
            .map(|progress| progress as &mut dyn batch::Progress),
    )?;
    drop(progress);
    if !args.json && total.files > 1 {
        writeln!(out, "total: {}", describe(&total))?;
    }
    Ok(if total.valid == total.games {
        Status::Ok
    } else {
        Status::Invalid
    })
}

/// `N games: V valid, I invalid, U unsupported`, the counts that are not zero.
fn describe(tally: &Tally) -> String {
    let mut text = format!(
        "{} game{}: {} valid",
        tally.games,
        if tally.games == 1 { "" } else { "s" },
        tally.valid
    );
    if tally.invalid > 0 {
        text.push_str(&format!(", {} invalid", tally.invalid));
    }
    if tally.unsupported > 0 {
        text.push_str(&format!(", {} unsupported", tally.unsupported));
    }
    text
}

/// What `pbem validate` says of each game (on the thread that replayed it) and each file.
struct Printer<'a> {
    args: &'a Args,
    styled: bool,
}

impl batch::Visitor for Printer<'_> {
    fn game(&self, game: &Game<'_>, out: &mut dyn Lines) -> io::Result<()> {
        if self.args.json {
            write_json(game, out)
        } else {
            write_text(game, self.args.quiet, self.styled, out)
        }
    }

    fn end_file(&self, name: &str, tally: &Tally, out: &mut dyn Write) -> io::Result<()> {
        if !self.args.json {
            writeln!(out, "{name}: {}", describe(tally))?;
        }
        Ok(())
    }

    fn decoded(&self, name: &str, decoded: Decoded) {
        input::warn_decoded_at(name, decoded);
    }
}

fn write_json(game: &Game<'_>, out: &mut dyn Lines) -> io::Result<()> {
    let (report, name) = (game.report, game.file);
    for finding in &report.findings {
        let line = FindingLine {
            line: finding.span.line,
            column: finding.span.column,
            finding,
        };
        write_json_line("finding", name, report.game, &line, out)?;
    }
    let errors = report.errors().count();
    let line = GameLine {
        status: if game.broken() {
            "invalid"
        } else {
            status_word(report)
        },
        variant: report.variant.map(|variant| variant.name()),
        plies: report.plies,
        result: game.record.and_then(|record| record.tag("Result")),
        outcome: report.outcome.map(|outcome| outcome.to_string()),
        final_position: report.final_position.as_deref(),
        chance: game.fairness.map(ToString::to_string),
        errors,
        warnings: report.findings.len() - errors,
    };
    write_json_line("game", name, report.game, &line, out)
}

/// Writes one JSON line: `type`, `file` and `game`, then the fields of `rest` (an object
/// with at least one field).
fn write_json_line(
    kind: &str,
    name: &str,
    game: usize,
    rest: &impl Serialize,
    out: &mut dyn Lines,
) -> io::Result<()> {
    write!(out, "{{\"type\":\"{kind}\",\"file\":")?;
    serde_json::to_writer(&mut *out, name).map_err(io::Error::from)?;
    out.write_all(b",\"game\":")?;
    out.game(game)?;
    let rest = serde_json::to_vec(rest).map_err(io::Error::from)?;
    out.write_all(b",")?;
    out.write_all(rest.get(1..).unwrap_or_default())?;
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

fn write_text(game: &Game<'_>, quiet: bool, styled: bool, out: &mut dyn Lines) -> io::Result<()> {
    let (report, record) = (game.report, game.record);
    let source = Source {
        path: game.file,
        text: game.text,
        start: game.start,
    };
    let broken = game.broken();
    let valid = game.is_valid();
    if quiet && valid && report.findings.is_empty() {
        return Ok(());
    }
    let described = record.map(describe_game).unwrap_or_default();
    if report.is_unsupported() {
        // Not a mistake in the record: one line says which game it is and where.
        if let Some(finding) = report.findings.first() {
            let span = finding.span;
            write!(out, "{}:{}:{}: game ", source.path, span.line, span.column)?;
            out.game(report.game)?;
            writeln!(
                out,
                "{described}: {}",
                super::escape_controls(&finding.message)
            )?;
        }
        return Ok(());
    }
    for finding in &report.findings {
        let rendered = diagnostic::render(finding, report.game, &source, styled);
        // The title starts with the game's number.
        let number = format!("game {}", report.game);
        match rendered.find(&number) {
            Some(at) => {
                out.write_all(&rendered.as_bytes()[..at + "game ".len()])?;
                out.game(report.game)?;
                writeln!(out, "{}", &rendered[at + number.len()..])?;
            }
            None => writeln!(out, "{rendered}")?,
        }
    }
    if quiet && valid {
        return Ok(());
    }
    let mut line = described;
    line.push_str(": ");
    line.push_str(if broken {
        "invalid"
    } else {
        status_word(report)
    });
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
    } else if broken {
        line.push_str(" (1 error)");
    } else {
        let errors = report.errors().count();
        line.push_str(&format!(
            " ({errors} error{})",
            if errors == 1 { "" } else { "s" }
        ));
    }
    if let Some(fairness) = game.fairness {
        line.push_str(&format!("; {fairness}"));
    }
    write!(out, "{}: game ", source.path)?;
    out.game(report.game)?;
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
