//! `pbem show`: the position after a game, or after one of its plies, or of a position
//! string, as text, SVG or PNG.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Status, input, parse_variant, position_from, record_variant};
use crate::games::{Game, Variant};
use crate::notation::Record;
use crate::render::{self, Render};
use crate::replay::{self, History};

/// What `pbem show` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The ASCII diagram, the position string and the state.
    Text,
    /// The picture as SVG.
    Svg,
    /// The picture as PNG (560 pixels on its longer side).
    Png,
}

/// Arguments of `pbem show`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to write.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The game, when no game file names it (a `[Variant]` name; default Chess).
    #[arg(long, value_name = "NAME", value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The position as the game's position string (FEN for chess), instead of a file.
    #[arg(long, value_name = "POS", conflicts_with = "file")]
    pub fen: Option<String>,
    /// Show the position after this many plies (0 is the start); default: the end.
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
    /// Which game of the file, from 1.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub game: usize,
    /// The game: a file (`-` reads standard input), or the id of one of your games by
    /// mail (or the start of it).
    #[arg(value_name = "GAME", required_unless_present = "fen")]
    pub file: Option<PathBuf>,
}

/// Runs `pbem show`.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut bytes = Vec::new();
    let target: &mut dyn Write = if args.output.is_some() {
        &mut bytes
    } else {
        out
    };
    if let Some(file) = &args.file {
        let file = game_file(file, config)?;
        let record = input::game(&file, args.game)?;
        let variant = record_variant(&record)?;
        if let Some(wanted) = args.variant.filter(|wanted| *wanted != variant) {
            return Err(CliError::Usage(format!(
                "the game is {variant}, not {wanted}"
            )));
        }
        let name = super::display_path(&file);
        crate::with_game!(variant, G => show::<G>(&record, &name, args.ply, args.format, target))?;
        // A fair deal: the player's own hand, from its local state (only its own), at the
        // ply shown.
        if args.format == Format::Text
            && let Ok(home) = super::home::Home::load(config)
            && let Some((_, _, hand)) = super::play::own_hand(&at_ply(&record, args.ply), &home)
        {
            let line = super::play::hand_line(&hand);
            match args.ply {
                Some(ply) => writeln!(
                    target,
                    "{}",
                    line.replacen("your hand:", &format!("your hand after ply {ply}:"), 1)
                )?,
                None => writeln!(target, "{line}")?,
            }
        }
    } else {
        let variant = args.variant.unwrap_or(Variant::Chess);
        crate::with_game!(variant, G => {
            let position = position_from::<G>(args.fen.as_deref())?;
            let history = History::starting_at(&position);
            write_position(&position, &history, None, None, args.format, target)
        })?;
    }
    if let Some(path) = &args.output {
        crate::store::write_atomically(path, &bytes).map_err(|source| CliError::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    Ok(Status::Ok)
}

/// The record as it stood after `ply` plies (the whole record without one): its later
/// turns dropped, with the comments written after each kept turn (a fair deal's steps
/// ride there).
pub(super) fn at_ply(record: &Record, ply: Option<usize>) -> Record {
    let mut at = record.clone();
    if let Some(ply) = ply {
        at.moves.turns.truncate(ply);
    }
    at
}

/// A game argument: a file that exists (or `-`), else a game id, or the unique start of
/// one, in the games folder of the player's config (`--config`, `$PBEM_CONFIG`...).
pub(super) fn game_file(name: &Path, config: Option<&Path>) -> Result<PathBuf, CliError> {
    if name.as_os_str() == "-" || name.exists() {
        return Ok(name.to_path_buf());
    }
    let Some(text) = name.to_str() else {
        return Ok(name.to_path_buf());
    };
    match super::home::Home::load(config) {
        Ok(home) => home.games.find(text).map_err(|error| match error {
            crate::store::StoreError::NotFound(_) => CliError::Usage(format!(
                "no file or game \"{text}\" (give a game file, a game id, or the start of one; `pbem status` lists your games)"
            )),
            other => other.into(),
        }),
        Err(_) => Err(CliError::Usage(format!(
            "{text}: no such file (and no config file in which to look it up as a game id)"
        ))),
    }
}

/// A game's position after some of its plies, worked out from one replay.
pub(super) struct Shown<G: Game> {
    /// The position.
    pub(super) position: G,
    /// The history of the plies before it (repetition bans and ends depend on it).
    pub(super) history: History<G>,
    /// The position before the last ply shown, and that ply's turn (none at the start).
    pub(super) last: Option<(G, G::Turn)>,
    /// How many plies are shown.
    pub(super) plies: usize,
}

/// The position of `record` (read from the file `name`) after `ply` plies (default: all
/// that replay), with its history and last turn, from one replay of the record.
pub(super) fn position_after<G: Game>(
    record: &Record,
    name: &str,
    ply: Option<usize>,
) -> Result<Shown<G>, CliError> {
    let replayed = replay::replay_game::<G>(record);
    let Some(start) = replayed.start else {
        let (span, reason) = replayed.report.errors().next().map_or_else(
            || (record.span, "invalid setup".to_owned()),
            |f| (f.span, f.message.clone()),
        );
        return Err(CliError::Usage(format!(
            "{name}:{}:{}: game {}: {reason}",
            span.line.max(1),
            span.column.max(1),
            record.number
        )));
    };
    let available = replayed.turns.len();
    let wanted = ply.unwrap_or(available);
    if let (None, Some(error)) = (ply, replayed.report.errors().next()) {
        // Showing "the end" of a game that stops early would mislead without a word.
        eprintln!(
            "pbem: warning: {name}:{}:{}: game {} stops here: {}; showing the position \
             before it",
            error.span.line, error.span.column, record.number, error.message
        );
    }
    if wanted > available {
        let why = replayed
            .report
            .errors()
            .next()
            .map(|finding| {
                format!(
                    " ({name}:{}:{}: {})",
                    finding.span.line, finding.span.column, finding.message
                )
            })
            .unwrap_or_default();
        return Err(CliError::Usage(format!(
            "game {} has {available} playable plies, not {wanted}{why}",
            record.number
        )));
    }
    let mut history = History::starting_at(&start);
    let mut position = start;
    let mut last = None;
    for (index, turn) in replayed.turns.into_iter().take(wanted).enumerate() {
        if index + 1 == wanted {
            last = Some((position.clone(), turn.clone()));
        }
        position.play(&turn);
        history.enter(&position);
    }
    Ok(Shown {
        position,
        history,
        last,
        plies: wanted,
    })
}

fn show<G: Render>(
    record: &Record,
    name: &str,
    ply: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let shown = position_after::<G>(record, name, ply)?;
    let last = match format {
        Format::Text => None,
        Format::Svg | Format::Png => shown.last.as_ref().map(|(before, turn)| (before, turn)),
    };
    write_position(
        &shown.position,
        &shown.history,
        last,
        Some(shown.plies),
        format,
        out,
    )
}

/// Writes a position in the chosen format, the last turn marked in pictures.
fn write_position<G: Render>(
    position: &G,
    history: &History<G>,
    last: Option<(&G, &G::Turn)>,
    shown: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    match format {
        Format::Text => {}
        Format::Svg => {
            out.write_all(render::svg(position, last).as_bytes())?;
            return Ok(Status::Ok);
        }
        Format::Png => {
            let png = render::png(&render::svg(position, last), render::PNG_SIZE)
                .map_err(|error| CliError::Usage(error.to_string()))?;
            out.write_all(&png)?;
            return Ok(Status::Ok);
        }
    }
    write!(out, "{}", position.diagram())?;
    writeln!(out)?;
    writeln!(out, "{}", position.position_string())?;
    let mut state = match shown {
        Some(shown) => format!("after ply {shown}: "),
        None => String::new(),
    };
    match (position.awaiting(), history.outcome(position)) {
        (Some(awaited), _) => state.push_str(&awaited),
        (None, Some(outcome)) => state.push_str(&outcome.to_string()),
        (None, None) => state.push_str(&format!("{} to move", position.side_to_move())),
    }
    writeln!(out, "{state}")?;
    Ok(Status::Ok)
}
