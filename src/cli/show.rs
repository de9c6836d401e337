//! `pbem show`: the position after a game, or after one of its plies.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Status, input, record_variant};
use crate::games::Game;
use crate::notation::Record;
use crate::replay::{self, History};

/// Arguments of `pbem show`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show the position after this many plies (0 is the start); default: the end.
    #[arg(long, value_name = "N")]
    pub ply: Option<usize>,
    /// Which game of the file, from 1.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub game: usize,
    /// The game: a file (`-` reads standard input), or the id of one of your games by
    /// mail (or the start of it).
    #[arg(value_name = "GAME")]
    pub file: PathBuf,
}

/// Runs `pbem show`.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    let file = game_file(&args.file, config)?;
    let record = input::game(&file, args.game)?;
    let variant = record_variant(&record)?;
    let name = super::display_path(&file);
    crate::with_game!(variant, G => show::<G>(&record, &name, args.ply, out))
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

/// The position of `record` (read from the file `name`) after `ply` plies (default: all
/// that replay).
pub(super) fn position_after<G: Game>(
    record: &Record,
    name: &str,
    ply: Option<usize>,
) -> Result<(G, usize), CliError> {
    let replayed = replay::replay_game::<G>(record);
    let Some(mut position) = replayed.start else {
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
    for turn in &replayed.turns[..wanted] {
        position.play(turn);
    }
    Ok((position, wanted))
}

/// The history of the first `plies` turns of the record's main line (repetition bans
/// and ends by repetition depend on it).
pub(super) fn history_after<G: Game>(record: &Record, plies: usize) -> History<G> {
    let replayed = replay::replay_game::<G>(record);
    match &replayed.start {
        Some(start) => History::of_line(start, replayed.turns.iter().take(plies)),
        None => History::default(),
    }
}

fn show<G: Game>(
    record: &Record,
    name: &str,
    ply: Option<usize>,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let (position, shown) = position_after::<G>(record, name, ply)?;
    let history = history_after::<G>(record, shown);
    write!(out, "{}", position.diagram())?;
    writeln!(out)?;
    writeln!(out, "{}", position.position_string())?;
    let mut state = format!("after ply {shown}: ");
    match (position.awaiting(), history.outcome(&position)) {
        (Some(awaited), _) => state.push_str(&awaited),
        (None, Some(outcome)) => state.push_str(&outcome.to_string()),
        (None, None) => state.push_str(&format!("{} to move", position.side_to_move())),
    }
    writeln!(out, "{state}")?;
    Ok(Status::Ok)
}
