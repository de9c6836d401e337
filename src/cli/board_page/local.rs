//! A game file played locally by `pbem play FILE`: both sides at one board, no mail. A
//! turn is checked by the rules as `pbem move` checks one, refused with the same kind of
//! diagnostic, and the file is replaced atomically with the game in canonical form.

use std::io::Write;
use std::path::Path;

use super::super::{CliError, Status, diagnostic, display_path, input, record_variant};
use crate::correspondence;
use crate::games::Game;
use crate::notation::{Record, Span, TurnNode, parse_record};
use crate::replay::{self, History};

/// Reads the game of a file played locally, as the commands that read games read one
/// ([`input::read_text`]): text that is not UTF-8 is read as Windows-1252 (and the file
/// written back in UTF-8, in canonical form, as every turn writes it). A compressed file
/// is refused: it could not be written back as it is, and writing a plain text under its
/// name would break it for every other program.
pub(super) fn load(path: &Path) -> Result<Record, CliError> {
    let file = input::read_text(path)?;
    if let Some(compression) = file.compressed {
        let shown = display_path(path);
        return Err(CliError::Usage(format!(
            "{shown} is compressed ({}): `pbem play FILE` writes each turn back into the file,              and writes no compressed files; decompress it (`{} {shown}`) and play the file              that leaves",
            compression.format(),
            compression.decompress_command()
        )));
    }
    parse_record(&file.text).map_err(|error| {
        let shown = display_path(path);
        CliError::Invalid(format!(
            "{shown}: {error}: `pbem play FILE` plays a file that holds one game that reads \
             (`pbem validate {shown}` tells what is wrong)"
        ))
    })
}

/// Adds `token` to the game of the file (whichever side is to move) and saves it.
pub(super) fn play(path: &Path, token: &str, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut record = load(path)?;
    let variant = record_variant(&record)?;
    let label = crate::with_game!(variant, G => append::<G>(&mut record, token.trim(), path))?;
    crate::store::write_atomically(path, correspondence::to_text(&record).as_bytes()).map_err(
        |source| CliError::Io {
            path: display_path(path),
            source,
        },
    )?;
    writeln!(out, "{}: {label}", display_path(path))?;
    Ok(Status::Ok)
}

/// Checks `token` against the end of the record's main line and adds it, canonical, with
/// the result when it ends the game; returns the turn with its number and the result.
fn append<G: Game>(record: &mut Record, token: &str, path: &Path) -> Result<String, CliError> {
    let shown = display_path(path);
    let replayed = replay::replay_game::<G>(record);
    let (Some(start), Some(mut position)) = (replayed.start, replayed.position) else {
        return Err(CliError::Invalid(format!(
            "{shown}: the game does not replay (`pbem validate {shown}` shows why)"
        )));
    };
    if !replayed.report.is_valid() {
        return Err(CliError::Invalid(format!(
            "{shown}: the game has an error before its end (`pbem validate {shown}` shows where)"
        )));
    }
    let mut history = History::of_line(&start, &replayed.turns);
    if let Some(outcome) = history.outcome(&position) {
        return Err(CliError::Invalid(format!(
            "{shown}: the game is over: {outcome}"
        )));
    }
    if let Some(awaited) = position.awaiting() {
        return complete_last::<G>(record, token, &awaited, &position.awaited_parts(), path);
    }
    if let Some(finding) = replay::diagnose_turn(&position, &history, token) {
        let source = diagnostic::Source {
            path: "TURN",
            text: token,
            start: Span::START,
        };
        let mut text = diagnostic::render_about(&finding, None, &source, false);
        text.push_str(&format!("\npbem: {shown} is unchanged"));
        return Err(CliError::Reported(text));
    }
    let syntax = G::parse_turn(token).map_err(|error| {
        CliError::Invalid(format!("cannot read \"{token}\": {}", error.message))
    })?;
    let turn = position
        .resolve_except(&syntax, history.forbidden())
        .map_err(|error| {
            CliError::Invalid(format!("illegal turn \"{token}\": {}", error.message))
        })?;
    let canonical = position.write_turn_except(&turn, history.forbidden());
    let number = move_label(&position);
    position.play(&turn);
    history.enter(&position);
    record.moves.turns.push(TurnNode::new(&canonical));
    let mut label = format!("{number} {canonical}");
    if let Some(outcome) = history.outcome(&position) {
        let result = outcome.result();
        record.set_tag("Result", result.as_str());
        record.result = Some(result);
        label.push_str(&format!(", game over: {}", result.as_str()));
    }
    Ok(label)
}

/// Completes the record's last turn with the part it awaits (a card in Chess with
/// wickets), as the rules take it (`Game::complete_token`); the record is replayed with it
/// to check it. Returns the turn as completed, with the result when it ends the game.
fn complete_last<G: Game>(
    record: &mut Record,
    part: &str,
    awaited: &str,
    parts: &[String],
    path: &Path,
) -> Result<String, CliError> {
    let shown = display_path(path);
    let refused = |why: String| {
        CliError::Invalid(format!(
            "{shown}: {awaited}: {why} (the parts that may be added: {}); {shown} is unchanged",
            parts.join(" ")
        ))
    };
    let mut completed = record.clone();
    let Some(last) = completed.moves.turns.last_mut() else {
        return Err(refused("no turn awaits it".to_owned()));
    };
    let Some(token) = G::complete_token(&last.token, part) else {
        return Err(refused(format!("\"{part}\" is not one of them")));
    };
    last.token = token.as_str().into();
    let replayed = replay::replay_game::<G>(&completed);
    if let Some(error) = replayed.report.errors().next() {
        return Err(refused(format!("{token}: {}", error.message)));
    }
    let mut label = token;
    if let Some(outcome) = replayed.report.outcome {
        let result = outcome.result();
        completed.set_tag("Result", result.as_str());
        completed.result = Some(result);
        label.push_str(&format!(", game over: {}", result.as_str()));
    }
    *record = completed;
    Ok(label)
}

/// `12.` or `12...` for the turn about to be played in `position`.
fn move_label<G: Game>(position: &G) -> String {
    match position.side_to_move() {
        crate::games::Color::White => format!("{}.", position.fullmove_number()),
        crate::games::Color::Black => format!("{}...", position.fullmove_number()),
    }
}
