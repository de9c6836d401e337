//! Conditional moves and opening books: replies the player decided in advance, played for
//! them when the opponent's turn they answer arrives.
//!
//! A tree is a set of lines, each the game's whole history of canonical turn tokens from
//! its start to the last turn the player planned: the turns the game had when the line
//! was added, then turns that alternate between the opponent's and the player's own,
//! starting with the opponent's. Keeping whole histories makes matching a comparison of
//! prefixes and makes the tree idempotent against the record: a reply is due only while
//! the game's history is a proper prefix of a line and the line's next turn is the
//! player's, so a reply already played (now part of the history) is never played again,
//! and a line the history has left is dropped. In Dice and Cards modes the opponent's
//! turn is compared as its completed token (the roll, the cards played), so
//! `Nxe5:w9_r5` and `Nxe5:w9_r2` are different branches.
//!
//! An opening book is the same kind of lines from the start of a game of one variant,
//! for one side, read from a PGN with variations; it answers in every game whose history
//! is a line of it. A game's own tree comes first.
//!
//! Every line is checked through the rules when it is added ([`extend`]): read as
//! `pbem move` reads a turn (the game's lenient `parse_turn`, move numbers skipped),
//! resolved against the position and the history's repetition ban, and written
//! canonically. The module does no I/O: the command line keeps trees and books in the
//! player's home, never in a record or a mail.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::games::{Color, Game, Variant};
use crate::notation::{Line, Record};
use crate::replay::{self, History};

/// A game's conditional lines (each a whole history of canonical tokens), and the crash
/// marker of a reply being played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tree {
    /// The lines, in the order they were added.
    #[serde(default)]
    pub lines: Vec<Vec<String>>,
    /// Set while a reply is being played: the number of turns the game had before it.
    /// A pbem killed before the reply's mail reached the outbox finds it at the next
    /// start and puts the mail in the outbox then (once: see the command line's repair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playing: Option<usize>,
}

/// An opening book: lines from the start of a game of `variant`, played for `side`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Book {
    /// The game (its `[Variant]` name).
    pub variant: String,
    /// The side the book plays (`White` or `Black`).
    pub side: String,
    /// The start the lines begin from (the game's position string).
    pub start: String,
    /// The lines, each a whole history of canonical tokens.
    pub lines: Vec<Vec<String>>,
}

/// Why a line cannot be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The record or the book's start does not replay.
    #[error("{0}")]
    Game(String),
    /// A turn of the line does not read or is not legal (turn index in the line, from 0).
    #[error("turn {} of the line, \"{token}\": {reason}", index + 1)]
    Turn {
        /// The turn's place in the line, from 0.
        index: usize,
        /// The turn as written.
        token: String,
        /// Why the rules refuse it.
        reason: String,
    },
    /// The line goes on after the game's end or after a turn that awaits a hidden part.
    #[error("turn {} of the line, \"{token}\": {reason}", index + 1)]
    Stops {
        /// The turn's place in the line, from 0.
        index: usize,
        /// The turn as written.
        token: String,
        /// What stops the line there.
        reason: String,
    },
}

/// The turn tokens of a line as a player types it: `12... Nf6 13. e5 Nd5`, move numbers
/// (also glued to their turn, `13.e5`) and result markers skipped.
#[must_use]
pub fn read_line(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter_map(|word| {
            let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
            let rest = if digits.len() < word.len() && digits.starts_with('.') {
                digits.trim_start_matches('.')
            } else {
                word
            };
            let is_result = matches!(rest, "*" | "1-0" | "0-1" | "1/2-1/2");
            (!rest.is_empty() && !is_result).then(|| rest.to_owned())
        })
        .collect()
}

/// Every line of a movetext with variations, from its first turn to each leaf: the main
/// line, and for each variation the turns before it followed by the variation's lines.
#[must_use]
pub fn lines_of(line: &Line) -> Vec<Vec<String>> {
    let mut lines = Vec::new();
    for (index, node) in line.turns.iter().enumerate() {
        for variation in &node.variations {
            for rest in lines_of(variation) {
                let mut whole: Vec<String> = line.turns[..index]
                    .iter()
                    .map(|node| node.token.to_string())
                    .collect();
                whole.extend(rest);
                lines.push(whole);
            }
        }
    }
    let main: Vec<String> = line
        .turns
        .iter()
        .map(|node| node.token.to_string())
        .collect();
    if !main.is_empty() {
        lines.push(main);
    }
    lines
}

/// Checks `tokens` through the rules after the game `record` holds (its start, its main
/// line), and returns the record's tokens followed by the line's, all canonical: the
/// whole history the line stands for.
pub fn extend(record: &Record, tokens: &[String]) -> Result<Vec<String>, LineError> {
    let variant = replay::variant_of(record)
        .map_err(|name| LineError::Game(format!("unsupported variant \"{name}\"")))?;
    crate::with_game!(variant, G => extend_in::<G>(record, tokens))
}

fn extend_in<G: Game>(record: &Record, tokens: &[String]) -> Result<Vec<String>, LineError> {
    let replayed = replay::replay_game::<G>(record);
    if let Some(error) = replayed.report.errors().next() {
        return Err(LineError::Game(format!(
            "the game does not replay: line {}: {}",
            error.span.line, error.message
        )));
    }
    let (Some(start), Some(mut position)) = (replayed.start, replayed.position) else {
        return Err(LineError::Game(
            "the game has no playable position".to_owned(),
        ));
    };
    let mut whole = history(record);
    let mut history = History::of_line(&start, &replayed.turns);
    for (index, token) in tokens.iter().enumerate() {
        let stops = |reason: String| LineError::Stops {
            index,
            token: token.clone(),
            reason,
        };
        if let Some(awaited) = position.awaiting() {
            return Err(stops(format!(
                "the turn before awaits a hidden part ({awaited}): write the turn whole, with its roll or cards"
            )));
        }
        if let Some(outcome) = history.outcome(&position) {
            return Err(stops(format!("the game is over there ({outcome})")));
        }
        let refused = |reason: String| LineError::Turn {
            index,
            token: token.clone(),
            reason,
        };
        let syntax = G::parse_turn(token).map_err(|error| refused(error.message.clone()))?;
        let turn = position
            .resolve_except(&syntax, history.forbidden())
            .map_err(|error| refused(format!("illegal: {}", error.message)))?;
        whole.push(position.write_turn_except(&turn, history.forbidden()));
        position.play(&turn);
        history.enter(&position);
    }
    Ok(whole)
}

/// A game's history as the lines compare it: its main line's tokens.
#[must_use]
pub fn history(record: &Record) -> Vec<String> {
    record
        .moves
        .turns
        .iter()
        .map(|node| node.token.to_string())
        .collect()
}

/// The start of a game (its position string), as a book's lines begin from it.
#[must_use]
pub fn start_of(record: &Record) -> Option<String> {
    let variant = replay::variant_of(record).ok()?;
    crate::with_game!(variant, G => G::from_tags(record).ok().map(|start| start.position_string()))
}

impl Book {
    /// Whether the book plays `side` in games of `variant` that begin at `start`.
    #[must_use]
    pub fn plays(&self, variant: Variant, side: Color, start: &str) -> bool {
        Variant::from_name(&self.variant) == Some(variant)
            && self.side == side.name()
            && self.start == start
    }
}

/// Whether `history` is a proper prefix of `line` (the line goes on from here).
fn goes_on(line: &[String], history: &[String]) -> bool {
    line.len() > history.len() && line[..history.len()] == *history
}

/// The reply the lines give when the game's history is `history` and the player is to
/// move: the next turn of the first line that goes on from here.
#[must_use]
pub fn reply<'a>(lines: &'a [Vec<String>], history: &[String]) -> Option<&'a str> {
    lines
        .iter()
        .find(|line| goes_on(line, history))
        .map(|line| line[history.len()].as_str())
}

/// What became of a tree's lines at `history`: those that go on from it, and those it has
/// left, with the turn each expected where the history went another way (`None` for a
/// line played to its end).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The lines that go on.
    pub kept: Vec<Vec<String>>,
    /// How many lines were dropped.
    pub dropped: usize,
    /// The turns the dropped lines expected where the game went another way, each once
    /// (with their place in the history, from 0).
    pub expected: BTreeSet<(usize, String)>,
}

/// Splits `lines` into those that go on from `history` and those it has left.
#[must_use]
pub fn prune(lines: &[Vec<String>], history: &[String]) -> Pruned {
    let mut pruned = Pruned::default();
    for line in lines {
        if goes_on(line, history) {
            pruned.kept.push(line.clone());
            continue;
        }
        pruned.dropped += 1;
        if let Some(at) = line.iter().zip(history).position(|(a, b)| a != b) {
            pruned.expected.insert((at, line[at].clone()));
        }
    }
    pruned
}

/// Whether `line` gives a turn other than the one `lines` already give for the player
/// at some point: the index of the first such turn. `mine` says whether the turn at an
/// index is the player's.
#[must_use]
pub fn conflict(
    lines: &[Vec<String>],
    line: &[String],
    mine: impl Fn(usize) -> bool,
) -> Option<usize> {
    lines.iter().find_map(|other| {
        let at = other.iter().zip(line).position(|(a, b)| a != b)?;
        mine(at).then_some(at)
    })
}

/// How many replies of the player wait in `lines` beyond `history`: distinct points of
/// the tree where the player answers. `mine` says whether the turn at an index is the
/// player's.
#[must_use]
pub fn waiting(lines: &[Vec<String>], history: &[String], mine: impl Fn(usize) -> bool) -> usize {
    let mut replies = BTreeSet::new();
    for line in lines.iter().filter(|line| goes_on(line, history)) {
        for at in history.len()..line.len() {
            if mine(at) {
                replies.insert(&line[..=at]);
            }
        }
    }
    replies.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_typed_line_loses_its_numbers() {
        assert_eq!(
            read_line("12... Nf6 13. e5 Nd5 14.c4 *"),
            tokens("Nf6 e5 Nd5 c4")
        );
    }

    #[test]
    fn variations_become_lines() {
        let record = crate::notation::parse_record("1. e4 e5 (1... c5 2. Nf3) 2. Nf3 *").unwrap();
        assert_eq!(
            lines_of(&record.moves),
            vec![tokens("e4 c5 Nf3"), tokens("e4 e5 Nf3")]
        );
    }

    #[test]
    fn replies_prune_and_count() {
        let lines = vec![tokens("e4 e5 Nf3 Nc6 Bb5"), tokens("e4 c5 Nf3")];
        let mine = |at: usize| at.is_multiple_of(2);
        assert_eq!(reply(&lines, &tokens("e4 e5")), Some("Nf3"));
        assert_eq!(reply(&lines, &tokens("e4 d5")), None);
        assert_eq!(waiting(&lines, &tokens("e4"), mine), 3);
        let pruned = prune(&lines, &tokens("e4 e5 Nf3"));
        assert_eq!(pruned.kept, vec![tokens("e4 e5 Nf3 Nc6 Bb5")]);
        assert_eq!(pruned.dropped, 1);
        assert_eq!(conflict(&lines, &tokens("e4 e5 d4"), mine), Some(2));
        assert_eq!(conflict(&lines, &tokens("e4 d5 d4"), mine), None);
    }
}
