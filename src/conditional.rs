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
    /// With `playing`, the game's last turn before the reply: a card answered completes
    /// that turn (the number of turns stays), so the repair tells it played by its token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playing_last: Option<String>,
    /// Replies not played at a point, each the game's history then followed by the
    /// reply: a book's the game refused (a card not in the hand), or one held back by the
    /// opponent's draw offer (a turn would decline it unseen). Not given again there; the
    /// player, told once, acts by hand.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Vec<String>>,
}

impl Tree {
    /// Whether `reply` was refused when the game's history was `history`.
    #[must_use]
    pub fn was_refused(&self, history: &[String], reply: &str) -> bool {
        self.refused.iter().any(|refused| {
            refused
                .split_last()
                .is_some_and(|(last, before)| before == history && last == reply)
        })
    }

    /// Whether the tree holds nothing worth keeping.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.playing.is_none() && self.refused.is_empty()
    }
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
    /// The game's mode where it has one (Chess with wickets' decision mode), as the
    /// book's start holds it: shown beside the variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
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
/// (also glued to their turn, `13.e5`, with a typographic ellipsis, `12… Nf6`, or with no
/// dot, `13 e5`), annotations (`e5!`, `Nd5?!`, `$1`) and result markers skipped.
#[must_use]
pub fn read_line(text: &str) -> Vec<String> {
    text.replace('\u{2026}', "...")
        .split_whitespace()
        .filter_map(|word| {
            let (_, rest) = split_number(word);
            let rest = rest.trim_end_matches(['!', '?']);
            let skipped = matches!(rest, "*" | "1-0" | "0-1" | "1/2-1/2" | "...")
                || rest.starts_with('$')
                || rest.is_empty();
            (!skipped).then(|| rest.to_owned())
        })
        .collect()
}

/// A word's move number and what follows it: `12...Nf6` is `(Some((12, true)), "Nf6")`,
/// `13.` is `(Some((13, false)), "")`, a word without one is `(None, word)`.
fn split_number(word: &str) -> (Option<(u32, bool)>, &str) {
    let digits = word.len() - word.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &word[digits..];
    let Ok(number) = word[..digits].parse::<u32>() else {
        return (None, word);
    };
    if let Some(after) = rest.strip_prefix("...") {
        (Some((number, true)), after)
    } else if let Some(after) = rest.strip_prefix('.') {
        (Some((number, false)), after)
    } else if rest.is_empty() {
        (Some((number, false)), rest)
    } else {
        (None, word)
    }
}

/// The move number a typed line starts with, and whether it is Black's (`12...`): `None`
/// when its first word has none.
#[must_use]
pub fn first_number(text: &str) -> Option<(u32, bool)> {
    let text = text.replace('\u{2026}', "...");
    let mut words = text.split_whitespace();
    let (number, rest) = split_number(words.next()?);
    let (number, black) = number?;
    // `12 ... Nf6`, `12. ... Nf6`: the ellipsis as a word of its own.
    let black = black || (rest.is_empty() && words.next() == Some("..."));
    Some((number, black))
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
/// whole histories the line stands for.
///
/// In Chess with wickets' Cards modes a word of the line may be the part the last turn
/// awaits (a card, `S5`, or the turn whole with it, `Nxe5:w9_cD10_cS5`): it completes
/// that turn's token, as `pbem move GAME S5` does, and the line goes on after it. In the
/// Dice modes by mail a line may go past the player's own attempt typed without its roll
/// (`Nxe5:w9`): it goes on on each roll's branch where the rest of the line is legal (one
/// history for each roll, the attempt completed with it), and is refused when it is legal
/// on none.
pub fn extend(record: &Record, tokens: &[String]) -> Result<Vec<Vec<String>>, LineError> {
    let variant = replay::variant_of(record)
        .map_err(|name| LineError::Game(format!("unsupported variant \"{name}\"")))?;
    crate::with_game!(variant, G => extend_in::<G>(record, tokens))
}

/// A line being checked: its whole history so far, the position and repetition history
/// after it, and the same before its last turn (which a part completes).
#[derive(Clone)]
struct Walk<G: Game> {
    whole: Vec<String>,
    position: G,
    history: History<G>,
    before: Option<(G, History<G>)>,
}

fn extend_in<G: Game>(record: &Record, tokens: &[String]) -> Result<Vec<Vec<String>>, LineError> {
    let replayed = replay::replay_game::<G>(record);
    if let Some(error) = replayed.report.errors().next() {
        return Err(LineError::Game(format!(
            "the game does not replay: line {}: {}",
            error.span.line, error.message
        )));
    }
    let (Some(start), Some(position)) = (replayed.start, replayed.position) else {
        return Err(LineError::Game(
            "the game has no playable position".to_owned(),
        ));
    };
    // The last turn awaits a part (the opponent's card or roll): the line may begin with
    // it, judged from the position before that turn.
    let before = match replayed.turns.split_last() {
        Some((_, earlier)) if position.awaiting().is_some() => {
            let mut before = start.clone();
            for turn in earlier {
                before.play(turn);
            }
            Some((before, History::of_line(&start, earlier)))
        }
        _ => None,
    };
    let walk = Walk {
        whole: history(record),
        history: History::of_line(&start, &replayed.turns),
        position,
        before,
    };
    walk_on(walk, tokens, 0)
}

/// Plays `tokens[from..]` on `walk` (see [`extend`]).
fn walk_on<G: Game>(
    mut walk: Walk<G>,
    tokens: &[String],
    from: usize,
) -> Result<Vec<Vec<String>>, LineError> {
    for (index, token) in tokens.iter().enumerate().skip(from) {
        let stops = |reason: String| LineError::Stops {
            index,
            token: token.clone(),
            reason,
        };
        let refused = |reason: String| LineError::Turn {
            index,
            token: token.clone(),
            reason,
        };
        let Some(awaited) = walk.position.awaiting() else {
            if let Some(outcome) = walk.history.outcome(&walk.position) {
                return Err(stops(format!("the game is over there ({outcome})")));
            }
            walk.before = Some((walk.position.clone(), walk.history.clone()));
            let played = play_token(&mut walk, token).map_err(refused)?;
            walk.whole.push(played);
            continue;
        };
        // A part that completes the last turn, judged from the position before it.
        let (Some(before), Some(last)) = (walk.before.clone(), walk.whole.last().cloned()) else {
            return Err(stops(format!(
                "the turn before awaits a hidden part ({awaited}): write the turn whole, with its roll or cards"
            )));
        };
        let completed = G::complete_token(&last, token)
            .or_else(|| G::completes(&last, token).then(|| token.clone()));
        let Some(completed) = completed else {
            // A roll nobody chooses: the line goes on on each roll's branch.
            if walk.position.awaited_part() == "roll" {
                return roll_branches(&walk, &before, tokens, index)
                    .ok_or_else(|| stops(format!("no roll of {awaited} lets the line go on")))?;
            }
            let example = walk.position.awaited_parts().into_iter().next();
            return Err(refused(format!(
                "{awaited}: write the {} it adds{}",
                walk.position.awaited_part(),
                example.map_or_else(String::new, |part| format!(" (as {part})"))
            )));
        };
        walk.whole.pop();
        (walk.position, walk.history) = before;
        let played = play_token(&mut walk, &completed).map_err(refused)?;
        walk.whole.push(played);
    }
    Ok(vec![walk.whole])
}

/// Reads, resolves and plays `token` on the walk's position; its canonical form.
fn play_token<G: Game>(walk: &mut Walk<G>, token: &str) -> Result<String, String> {
    let syntax = G::parse_turn(token).map_err(|error| error.message.clone())?;
    let turn = walk
        .position
        .resolve_except(&syntax, walk.history.forbidden())
        .map_err(|error| format!("illegal: {}", error.message))?;
    let written = walk
        .position
        .write_turn_except(&turn, walk.history.forbidden());
    walk.position.play(&turn);
    walk.history.enter(&walk.position);
    Ok(written)
}

/// The line from `tokens[index]` on, on each branch of the roll the last turn awaits
/// (its token completed with each roll the rules take); `None` when it goes on on none,
/// else the first branch's refusal when every branch refuses it.
fn roll_branches<G: Game>(
    walk: &Walk<G>,
    before: &(G, History<G>),
    tokens: &[String],
    index: usize,
) -> Option<Result<Vec<Vec<String>>, LineError>> {
    let last = walk.whole.last()?;
    let bare = last.trim_end_matches(['+', '#']);
    let mut rolled: Vec<String> = (1..=6).map(|roll| format!("{bare}_r{roll}")).collect();
    // Dice II: a sacrifice named for a second roll comes between the two rolls.
    if let Some((head, sacrifice)) = bare.split_once("_s") {
        for first in 1..=6 {
            rolled.push(format!("{head}_r{first}"));
            for second in 1..=6 {
                rolled.push(format!("{head}_r{first}_s{sacrifice}_r{second}"));
            }
        }
    }
    let mut lines = Vec::new();
    let mut refusal = None;
    for token in rolled.iter().filter(|token| G::completes(last, token)) {
        let mut branch = walk.clone();
        branch.whole.pop();
        branch.position = before.0.clone();
        branch.history = before.1.clone();
        let Ok(played) = play_token(&mut branch, token) else {
            continue;
        };
        if branch.position.awaiting().is_some() {
            continue;
        }
        branch.whole.push(played);
        branch.before = None;
        match walk_on(branch, tokens, index) {
            Ok(found) => lines.extend(found),
            Err(error) => {
                refusal.get_or_insert(error);
            }
        }
    }
    match (lines.is_empty(), refusal) {
        (false, _) => Some(Ok(lines)),
        (true, Some(error)) => Some(Err(error)),
        (true, None) => None,
    }
}

/// The rest of a line typed from the game's start (a line or a tree exported from move
/// 1): the turns after the game's own, when the line begins with them; `None` when it
/// does not (or the game has no turns yet).
#[must_use]
pub fn past_history(record: &Record, tokens: &[String]) -> Option<Vec<String>> {
    let played = history(record);
    if played.is_empty() || tokens.len() <= played.len() {
        return None;
    }
    let mut start = record.clone();
    start.moves.turns.clear();
    let begun = extend(&start, &tokens[..played.len()]).ok()?;
    (begun == [played.clone()]).then(|| tokens[played.len()..].to_vec())
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

/// The mode a game is played in, where its variant has modes: Chess with wickets'
/// decision mode (`Cards`).
#[must_use]
pub fn mode_of(record: &Record) -> Option<&'static str> {
    use crate::games::wickets::Wickets;
    (replay::variant_of(record).ok()? == Variant::ChessWithWickets)
        .then(|| {
            Wickets::from_tags(record)
                .ok()
                .map(|start| start.mode().name())
        })
        .flatten()
}

/// The start of a game (its position string), as a book's lines begin from it, and the
/// side that moves first there.
#[must_use]
pub fn start_of(record: &Record) -> Option<(String, Color)> {
    let variant = replay::variant_of(record).ok()?;
    crate::with_game!(variant, G => G::from_tags(record)
        .ok()
        .map(|start| (start.position_string(), start.side_to_move())))
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

/// Whether `later` is the token `earlier` completed with parts (cards, a roll) that the
/// game's rules add to a turn awaiting them.
fn completes(variant: Variant, earlier: &str, later: &str) -> bool {
    crate::with_game!(variant, G => G::completes(earlier, later))
}

/// Whether the line goes on from `history`: the history is a proper prefix of it, or
/// its last turn, still awaiting a part, is the line's turn there not yet completed.
fn goes_on(variant: Variant, line: &[String], history: &[String]) -> bool {
    let Some((last, before)) = history.split_last() else {
        return !line.is_empty();
    };
    line.len() >= history.len()
        && line[..before.len()] == *before
        && if line[before.len()] == *last {
            line.len() > history.len()
        } else {
            completes(variant, last, &line[before.len()])
        }
}

/// The next part `later` adds to `earlier`, a token it completes (`_cS5`).
fn next_part<'a>(earlier: &str, later: &'a str) -> &'a str {
    let later = later.trim_end_matches(['+', '#']);
    let rest = later
        .get(earlier.trim_end_matches(['+', '#']).len()..)
        .unwrap_or_default();
    let end = rest[1.min(rest.len())..]
        .find('_')
        .map_or(rest.len(), |at| at + 1);
    &rest[..end]
}

/// The reply the lines give when the game's history is `history` and the player is to
/// act: the next turn of the first line that goes on from here, or the part it adds to
/// the last turn when that awaits one (a card: `_cS5`).
#[must_use]
pub fn reply(variant: Variant, lines: &[Vec<String>], history: &[String]) -> Option<String> {
    let line = lines.iter().find(|line| goes_on(variant, line, history))?;
    let at = history.len();
    Some(match history.last() {
        Some(last) if at > 0 && line[at - 1] != *last => next_part(last, &line[at - 1]).to_owned(),
        _ => line[at].clone(),
    })
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
pub fn prune(variant: Variant, lines: &[Vec<String>], history: &[String]) -> Pruned {
    let mut pruned = Pruned::default();
    for line in lines {
        if goes_on(variant, line, history) {
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

/// The acts in `token`, the turn at index `at` of a line: each the token up to the act's
/// end (the turn itself, then each part that completes it), with whether it is the
/// player's (`None` for chance: a roll). `mine` says whether the turn at an index is the
/// player's; of a turn's cards the thrower plays the 1st, 3rd..., the other side the
/// 2nd, 4th... (a Cards II decline is the thrower's, in a thrower's place).
fn acts<'a>(
    variant: Variant,
    token: &'a str,
    at: usize,
    mine: &impl Fn(usize) -> bool,
) -> Vec<(&'a str, Option<bool>)> {
    let thrower = mine(at);
    let mut acts: Vec<(&str, Option<bool>)> = token
        .match_indices('_')
        .map(|(end, _)| &token[..end])
        .filter(|part| completes(variant, part, token))
        .chain(std::iter::once(token))
        .map(|part| (part, Some(thrower)))
        .collect();
    for index in 1..acts.len() {
        let added = next_part(acts[index - 1].0, acts[index].0);
        acts[index].1 = if added.starts_with("_r") {
            None
        } else if added.starts_with("_c") {
            let cards = acts[index].0.matches("_c").count();
            Some(thrower == (cards % 2 == 1))
        } else {
            Some(thrower)
        };
    }
    acts
}

/// How many of a turn's `acts` (see [`acts`]) the turn `token` shares: each is `token`
/// itself or a part of it.
fn shared_acts(variant: Variant, acts: &[(&str, Option<bool>)], token: &str) -> usize {
    acts.iter()
        .take_while(|(part, _)| *part == token || completes(variant, part, token))
        .count()
}

/// Whether `line` gives an act other than the one `lines` already give for the player
/// at some point: the index of the turn where it does. `mine` says whether the turn at
/// an index is the player's.
#[must_use]
pub fn conflict(
    variant: Variant,
    lines: &[Vec<String>],
    line: &[String],
    mine: impl Fn(usize) -> bool,
) -> Option<usize> {
    lines.iter().find_map(|other| {
        let at = other.iter().zip(line).position(|(a, b)| a != b)?;
        // The acts both lines share in that turn, then the first that differs.
        let parts = acts(variant, &line[at], at, &mine);
        let shared = shared_acts(variant, &parts, &other[at]);
        let owner = match parts.get(shared) {
            Some((_, owner)) => *owner,
            // One line's turn is a part of the other's: they do not differ yet.
            None => Some(false),
        };
        (owner == Some(true)).then_some(at)
    })
}

/// How many replies of the player wait in `lines` beyond `history`: distinct points of
/// the tree where the player acts (a turn, or a card in answer). `mine` says whether the
/// turn at an index is the player's.
#[must_use]
pub fn waiting(
    variant: Variant,
    lines: &[Vec<String>],
    history: &[String],
    mine: impl Fn(usize) -> bool,
) -> usize {
    let mut replies = BTreeSet::new();
    let from = history.len().saturating_sub(1);
    for line in lines.iter().filter(|line| goes_on(variant, line, history)) {
        for at in from..line.len() {
            let mut theirs_before = true;
            for (part, owner) in acts(variant, &line[at], at, &mine) {
                let played = at < history.len() && history[at].len() >= part.len();
                if owner == Some(true) && theirs_before && !played {
                    replies.insert((&line[..at], part));
                }
                theirs_before = owner != Some(true);
            }
        }
    }
    replies.len()
}

/// Whether `line` goes through `turns` (a whole history, as [`extend`] gives it): it is
/// that history, or goes on from it (see [`prune`]). `pbem if --drop` drops such lines.
#[must_use]
pub fn goes_through(variant: Variant, line: &[String], turns: &[String]) -> bool {
    line == turns || goes_on(variant, line, turns)
}

/// The first card the player plays in `line` beyond `history` (a card in answer, or the
/// lead of their own attempt), at the turn of index `at`: `(at, card, lead)`, the lead
/// being the opponent's card it answers (`None` when the player leads). No card of the
/// player's is played before it, so it comes from the hand the player holds now (a
/// played card is replaced by a draw, which nobody knows in advance). `mine` says
/// whether the turn at an index is the player's.
#[must_use]
pub fn first_own_card(
    variant: Variant,
    line: &[String],
    history: &[String],
    mine: impl Fn(usize) -> bool,
) -> Option<(usize, String, Option<String>)> {
    let from = history.len().saturating_sub(1);
    for at in from..line.len() {
        let parts = acts(variant, &line[at], at, &mine);
        for index in 1..parts.len() {
            let (part, owner) = parts[index];
            let added = next_part(parts[index - 1].0, part);
            let Some(card) = added.strip_prefix("_c") else {
                continue;
            };
            let played = at < history.len() && history[at].len() >= part.len();
            if played || owner != Some(true) || card == "-" {
                continue;
            }
            let lead = (index > 1 && parts[index - 1].1 == Some(false))
                .then(|| next_part(parts[index - 2].0, parts[index - 1].0))
                .and_then(|lead| lead.strip_prefix("_c"))
                .map(str::to_owned);
            return Some((at, card.to_owned(), lead));
        }
    }
    None
}

/// Where a game's turn parted from a line's turn at the same place, when both are the same
/// turn up to one of its parts (a roll, a card): see [`parting`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parting {
    /// The turn both share, up to the part that differs (`Nxe5:w9_cH2`).
    pub shared: String,
    /// The game's part there (`_r5`, `_cH6`).
    pub went: String,
    /// The line's part there.
    pub expected: String,
    /// Whose act the part is: the turn's maker's (`Some(true)`, as `mine` says), the other
    /// side's (`Some(false)`), or chance's (`None`: a roll).
    pub owner: Option<bool>,
}

/// How the game's turn `went` parted from `expected`, a line's turn at the same index
/// `at`: the part of the turn where they differ, or `None` when the turns differ as
/// turns. `mine` says whether the turn at an index is the player's.
#[must_use]
pub fn parting(
    variant: Variant,
    went: &str,
    expected: &str,
    at: usize,
    mine: impl Fn(usize) -> bool,
) -> Option<Parting> {
    let parts = acts(variant, went, at, &mine);
    let shared = shared_acts(variant, &parts, expected);
    let before = parts.get(shared.checked_sub(1)?)?.0;
    let (part, owner) = parts.get(shared)?;
    let expected = next_part(before, expected);
    (!expected.is_empty()).then(|| Parting {
        shared: before.to_owned(),
        went: next_part(before, part).to_owned(),
        expected: expected.to_owned(),
        owner: *owner,
    })
}

/// Drops from the end of `line` the acts that are not the player's (an opponent's turn or
/// card, a roll after it) and that no reply of the line answers, keeping its first `keep`
/// turns; says whether it dropped any. `mine` says whether the turn at an index is the
/// player's.
pub fn trim_theirs(
    variant: Variant,
    line: &mut Vec<String>,
    keep: usize,
    mine: impl Fn(usize) -> bool,
) -> bool {
    let mut trimmed = false;
    while line.len() > keep {
        let at = line.len() - 1;
        let parts = acts(variant, &line[at], at, &mine);
        let shorter = match parts.split_last() {
            Some(((_, Some(true)), _)) | None => break,
            Some((_, before)) => before.last().map(|(part, _)| (*part).to_owned()),
        };
        match shorter {
            Some(part) => line[at] = part,
            None => {
                line.pop();
            }
        }
        trimmed = true;
    }
    trimmed
}

/// A game's position now (its position string), after its main line.
#[must_use]
pub fn position_of(record: &Record) -> Option<String> {
    let variant = replay::variant_of(record).ok()?;
    crate::with_game!(variant, G => replay::replay_game::<G>(record)
        .position
        .map(|position| position.position_string()))
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
        assert_eq!(
            read_line("12\u{2026} Nf6 13 e5! Nd5?! $2 14. ... c4"),
            tokens("Nf6 e5 Nd5 c4")
        );
        assert_eq!(first_number("12... Nf6 13. e5"), Some((12, true)));
        assert_eq!(first_number("12\u{2026}Nf6"), Some((12, true)));
        assert_eq!(first_number("13 ... Nd5"), Some((13, true)));
        assert_eq!(first_number("13.e5"), Some((13, false)));
        assert_eq!(first_number("3 Bb5"), Some((3, false)));
        assert_eq!(first_number("Nf6 e5"), None);
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
        let chess = Variant::Chess;
        assert_eq!(
            reply(chess, &lines, &tokens("e4 e5")).as_deref(),
            Some("Nf3")
        );
        assert_eq!(reply(chess, &lines, &tokens("e4 d5")), None);
        assert_eq!(waiting(chess, &lines, &tokens("e4"), mine), 3);
        let pruned = prune(chess, &lines, &tokens("e4 e5 Nf3"));
        assert_eq!(pruned.kept, vec![tokens("e4 e5 Nf3 Nc6 Bb5")]);
        assert_eq!(pruned.dropped, 1);
        assert_eq!(conflict(chess, &lines, &tokens("e4 e5 d4"), mine), Some(2));
        assert_eq!(conflict(chess, &lines, &tokens("e4 d5 d4"), mine), None);
    }

    #[test]
    fn a_card_in_answer_completes_the_last_turn() {
        let wickets = Variant::ChessWithWickets;
        // Black answers White's attempt with a card, then plays on; a Dice attempt of
        // Black's own is a branch for each roll.
        let lines = vec![
            tokens("e4 e5 Nxe5:w9_cD4_cD9 Kxe5"),
            tokens("e4 e5 Nxe5:w9_cS7_cS2 Dg8:Kxe5"),
        ];
        let black = |at: usize| at % 2 == 1;
        assert_eq!(
            reply(wickets, &lines, &tokens("e4 e5 Nxe5:w9_cD4")).as_deref(),
            Some("_cD9")
        );
        assert_eq!(
            reply(wickets, &lines, &tokens("e4 e5 Nxe5:w9_cD4_cD9")).as_deref(),
            Some("Kxe5")
        );
        assert_eq!(reply(wickets, &lines, &tokens("e4 e5 Nxe5:w9_cC4")), None);
        assert_eq!(waiting(wickets, &lines, &tokens("e4 e5"), black), 4);
        assert_eq!(
            waiting(wickets, &lines, &tokens("e4 e5 Nxe5:w9_cD4"), black),
            2
        );
        // Another lead is another branch; another card to the same lead is a conflict.
        let other_lead = tokens("e4 e5 Nxe5:w9_cD5_cD9 Kxe5");
        assert_eq!(conflict(wickets, &lines, &other_lead, black), None);
        let other_card = tokens("e4 e5 Nxe5:w9_cD4_cD2");
        assert_eq!(conflict(wickets, &lines, &other_card, black), Some(2));
        let rolls = vec![tokens("e4 e5 d4 Nxd4:w0_r1 Ke2")];
        let roll = tokens("e4 e5 d4 Nxd4:w0_r6 Kf2");
        assert_eq!(conflict(wickets, &rolls, &roll, black), None);
        assert!(prune(wickets, &rolls, &tokens("e4 e5 d4 Nxd4:w0")).dropped == 0);
    }
}
