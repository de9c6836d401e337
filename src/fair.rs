//! Fair chance by mail (issue 16): the dice of Chess with wickets' Dice and Dice II
//! modes come from both players' committed random values, so that neither can choose
//! or foresee a roll, and the record alone proves every roll. The protocol is specified
//! in `notation/fair-chance.md`.
//!
//! Each player's pbem draws a secret 32-byte seed from the operating system and keeps it
//! in the game's private local state; the record gets only the tip of its hash chain
//! (`[%chance commit TIP]`). The k-th chance event of the game uses each player's k-th
//! value of the chain, revealed backwards (`[%chance reveal K VALUE...]`): the thrower's
//! with its attempt, the opponent's when its pbem completes the roll. Everything here
//! works on records and seeds passed in; drawing the seed and the files are the caller's.
//!
//! # How it is built
//!
//! Fair dice by mail for Chess with wickets' Dice modes (`notation/fair-chance.md`): each
//! player's SHA-256 hash `Chain` from a secret seed (kept in `LocalState`, drawn by `cli`
//! from the system), `roll` (both values, game id and event to 1-6 by rejection sampling),
//! the transcript as `[%chance commit|reveal]` comment commands (`commit`, `reveal_attempt`,
//! `complete`: the awaited side's pbem rolls and rewrites the attempt's token), and `check`,
//! which says from the record alone whether the chance is proven fair, not proven or broken
//! at a ply. A Dice attempt sent without its roll is a position that awaits it
//! (`Wickets::awaits_roll`, `complete_roll`). No I/O. `fair::deal` is the Cards modes' mental-poker deal on
//! ristretto255 (curve25519-dalek): masking, shuffles and per-card keys from a player's
//! seed, opening a card with both keys, `verify` with both seeds; the same steps on a
//! given set of cards (`mask_cards`, `shuffle_deck`, `rekey_deck`, `verify_cards`) with a
//! dealer derived per reshuffle (`Dealer::reshuffle(k)`) make the reshuffles of the
//! discards. Its hashes are notation/fair-chance.md's byte for byte (a card key hashes
//! `1024 × i`, not `i`), which `fair_cards::the_page_s_card_key_formula_is_the_code_s`
//! checks with a verifier written from the page. `fair::cards` puts it in the record as `[%deal
//! mask1|mask2|mask3|reshuffle K maskN|keys|open|seed]` comment commands (base64); one
//! numbering of positions covers the deal (0-39) and the reshuffles (40 + 21 (k − 1) + i),
//! so position 20 + j is always the j-th card's replacement. `advance` adds the steps a
//! side can take now (its message of the deal or of a reshuffle, its keys for the other
//! side's cards, its seed at the end), `after_move` checks a card played against the
//! player's hand and writes its opening key, `hand`/`may_play` open a side's own hand with
//! its seed, and `check` (through `fair::check`) opens every card played from the record
//! alone (no card played twice since its deck was made), with a side's seed that side's
//! cards, and with both seeds recomputes the deal and each reshuffle and checks suits
//! followed. `check_as` is `check` plus what one side's pbem sees with its seed: each of
//! its cards against the cards played (a card dealt twice, under two keys of a forged
//! message, shows there), which `receive` runs on every mail. The game
//! engine is untouched: it still judges the cards written in the tokens, and `fair::cards`
//! finds them through the replay. `cli` calls it from `new`, `move`, `receive` and every
//! event that ends a game (`resign`, `draw accept|claim`: the ender's seed rides in the mail
//! of the end, the other side's is added on receipt) with the same seed as the dice chain,
//! in `LocalState`; shows the hand in `show`, `status`, `legal` and `receive` (never in a
//! mail), and adds `pbem fair reveal`.
//! `fair::proof` is a measured study, not part of the protocol: a Fiat-Shamir
//! cut-and-choose proof that a masked deck is a shuffle of the one before (`prove_first`,
//! `prove_second`, `verify`), kept with its unit tests as the ground of the figures that
//! made notation/fair-chance.md ("A proof of each shuffle") leave it out (about 90 KB a
//! message), and used only by `benches/fair.rs`. `fair::factors` is part of the protocol:
//! the proof that rides with every message 3 (the deal's and each reshuffle's, `mask3 ...
//! proof E S0 ...`) that its writer knows each position's factor over message 2, so that it
//! cannot deal itself a card with the other side's keys for its own places (a batched
//! Schnorr proof, Fiat-Shamir on SHA-512, nonces from the seed); `cards::advance` writes it
//! through `rekey_and_prove`, and `cards::read_deal` (under `check`, `receive`, `move`)
//! refuses a message 3 whose proof is missing or does not hold.

use sha2::{Digest, Sha256};

pub mod cards;
pub mod deal;
pub mod factors;
pub mod proof;

use crate::clock::commands;
use crate::games::wickets::{DecisionMode, Step, Syntax, Wickets};
use crate::games::{Color, Game, Variant};
use crate::notation::{Comment, Record, Span, complete_roster};
use crate::replay;

/// How many values a chain holds: the chance events a game may have. A Dice attempt
/// uses one, a Dice II attempt with a sacrifice named for a second roll two.
pub const CHAIN_LENGTH: u32 = 1000;

/// The comment command of the transcript.
const COMMAND: &str = "chance";

/// A 32-byte value of a chain.
pub type Value = [u8; 32];

fn sha256(bytes: &[u8]) -> Value {
    Sha256::digest(bytes).into()
}

/// One player's hash chain: `value(k) = SHA-256^(CHAIN_LENGTH - k)(seed)`, the tip is
/// `value(0)`, and each value hashes to the one before it.
#[derive(Clone)]
pub struct Chain {
    seed: Value,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Chain { seed: <secret> }")
    }
}

impl Chain {
    /// The chain from a secret seed (32 bytes from the operating system's random source).
    #[must_use]
    pub fn from_seed(seed: Value) -> Chain {
        Chain { seed }
    }

    /// The chain from its seed written in hex, as the local state keeps it.
    #[must_use]
    pub fn from_hex(text: &str) -> Option<Chain> {
        read_value(text).map(Chain::from_seed)
    }

    /// The seed in hex, for the local state.
    #[must_use]
    pub fn seed_hex(&self) -> String {
        hex(&self.seed)
    }

    /// The chain's value for event `k` (0 is the tip, the commitment).
    #[must_use]
    pub fn value(&self, k: u32) -> Option<Value> {
        if k > CHAIN_LENGTH {
            return None;
        }
        let mut value = self.seed;
        for _ in 0..CHAIN_LENGTH - k {
            value = sha256(&value);
        }
        Some(value)
    }

    /// The commitment: the chain's tip.
    #[must_use]
    pub fn tip(&self) -> Value {
        self.value(0).unwrap_or_default()
    }
}

/// The die roll of chance event `event` of game `game_id`, from White's and Black's
/// values for it: the first byte below 252 of SHA-256("pbem dice v1", 0, game id, 0,
/// event as 4 bytes big-endian, White's value, Black's value), taken modulo 6, plus 1
/// (252 is 42 times 6, so every roll is equally likely); when all 32 bytes are 252 or
/// more, the same with the digest hashed again.
#[must_use]
pub fn roll(game_id: &str, event: u32, white: &Value, black: &Value) -> u8 {
    let mut input = Vec::with_capacity(100);
    input.extend_from_slice(b"pbem dice v1\0");
    input.extend_from_slice(game_id.as_bytes());
    input.push(0);
    input.extend_from_slice(&event.to_be_bytes());
    input.extend_from_slice(white);
    input.extend_from_slice(black);
    let mut digest = sha256(&input);
    loop {
        if let Some(byte) = digest.iter().find(|&&b| b < 252) {
            return byte % 6 + 1;
        }
        digest = sha256(&digest);
    }
}

/// Lowercase hex.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn read_value(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut value = [0; 32];
    for (i, byte) in value.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(value)
}

/// What `pbem validate` says of a game's chance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fairness {
    /// The game has no chance (another game, or a deterministic mode).
    NoChance,
    /// Every roll comes from both players' values, checked against their commitments.
    Proven {
        /// The rolls in the record.
        rolls: usize,
    },
    /// The deal of the Cards modes: every card played opened from the masked deal, the
    /// shuffle recomputed from both revealed seeds, suits followed.
    DealProven {
        /// The cards played.
        cards: usize,
        /// The reshuffles of the discards made (each proven like the deal).
        reshuffles: usize,
    },
    /// Not proven: the reason (no transcript, cards).
    NotProven(String),
    /// The transcript or a roll is wrong at this ply (0: before the first turn).
    Broken {
        /// The ply.
        ply: usize,
        /// Why.
        reason: String,
    },
}

impl std::fmt::Display for Fairness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fairness::NoChance => f.write_str("no chance"),
            Fairness::Proven { rolls } => write!(
                f,
                "chance proven fair ({rolls} roll{})",
                if *rolls == 1 { "" } else { "s" }
            ),
            Fairness::DealProven { cards, reshuffles } => write!(
                f,
                "chance proven fair (the deal{} and {cards} card{})",
                match reshuffles {
                    0 => String::new(),
                    1 => ", 1 reshuffle".to_owned(),
                    n => format!(", {n} reshuffles"),
                },
                if *cards == 1 { "" } else { "s" }
            ),
            Fairness::NotProven(reason) => write!(f, "chance not proven: {reason}"),
            Fairness::Broken { ply, reason } => {
                write!(f, "chance broken at ply {ply}: {reason}")
            }
        }
    }
}

/// A transcript command as written: its side, ply (0 before the first turn), and what it
/// says.
#[derive(Clone, Debug)]
struct Command {
    side: Color,
    ply: usize,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Commit(Value),
    Reveal { event: u32, values: Vec<Value> },
}

/// Calls `each(ply, side, value)` for every `[%NAME value]` command in the comments of
/// the main line, in record order (ply 0: before the first turn). A comment holding one
/// must name its side first ("white …" or "black …"); the first error, its own or one
/// `each` returns, ends the walk with its ply.
pub(crate) fn side_commands<'r>(
    record: &'r Record,
    name: &str,
    mut each: impl FnMut(usize, Color, &'r str) -> Result<(), (usize, String)>,
) -> Result<(), (usize, String)> {
    let lists = std::iter::once(&record.moves.comments)
        .chain(record.moves.turns.iter().map(|turn| &turn.comments));
    for (ply, comments) in lists.enumerate() {
        for comment in comments {
            let text = comment.text.as_str();
            for (_, value) in commands(text).filter(|(found, _)| *found == name) {
                let side = if text.starts_with("white") {
                    Color::White
                } else if text.starts_with("black") {
                    Color::Black
                } else {
                    return Err((ply, format!("\"{text}\" does not name its side first")));
                };
                each(ply, side, value)?;
            }
        }
    }
    Ok(())
}

/// The transcript commands of the main line, in record order; an unreadable one is an
/// error with its ply.
fn transcript(record: &Record) -> Result<Vec<Command>, (usize, String)> {
    let mut out = Vec::new();
    side_commands(record, COMMAND, |ply, side, value| {
        let words: Vec<&str> = value.split_whitespace().collect();
        let bad = || (ply, format!("cannot read [%{COMMAND} {value}]"));
        let kind = match words.as_slice() {
            ["commit", tip] => Kind::Commit(read_value(tip).ok_or_else(bad)?),
            ["reveal", event, values @ ..] if !values.is_empty() => Kind::Reveal {
                event: event.parse().map_err(|_| bad())?,
                values: values
                    .iter()
                    .map(|v| read_value(v))
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?,
            },
            _ => return Err(bad()),
        };
        out.push(Command { side, ply, kind });
        Ok(())
    })?;
    Ok(out)
}

fn is_dice_game(record: &Record) -> Option<DecisionMode> {
    if replay::variant_of(record).ok()? != Variant::ChessWithWickets {
        return None;
    }
    let start = Wickets::from_tags(record).ok()?;
    Some(start.mode())
}

/// Whether a game with these tags has chance for [`check`] to judge (Chess with Wickets
/// with dice or cards); the others are [`Fairness::NoChance`] whatever their turns.
#[must_use]
pub(crate) fn has_chance(record: &Record) -> bool {
    is_dice_game(record).is_some_and(|mode| {
        mode.is_cards() || matches!(mode, DecisionMode::Dice | DecisionMode::DiceII)
    })
}

/// Checks a record's chance: every commitment and reveal, and every roll against the
/// values revealed for it.
#[must_use]
pub fn check(record: &Record) -> Fairness {
    let Some(mode) = is_dice_game(record) else {
        return Fairness::NoChance;
    };
    if mode.is_cards() {
        return cards::check(record);
    }
    if !matches!(mode, DecisionMode::Dice | DecisionMode::DiceII) {
        return Fairness::NoChance;
    }
    match check_dice(record) {
        Ok(Some(rolls)) => Fairness::Proven { rolls },
        Ok(None) => {
            Fairness::NotProven("no transcript (the rolls are written by the players)".to_owned())
        }
        Err((ply, reason)) => Fairness::Broken { ply, reason },
    }
}

/// The number of rolls proven, `None` without a transcript, or the first error.
fn check_dice(record: &Record) -> Result<Option<usize>, (usize, String)> {
    let commands = transcript(record)?;
    if commands.is_empty() {
        return Ok(None);
    }
    let game_id = record.tag("GameId").unwrap_or_default().to_owned();
    let replayed = replay::replay_game::<Wickets>(record);
    if let Some(error) = replayed.report.errors().next() {
        return Err((0, format!("the record does not replay: {}", error.message)));
    }
    let Some(start) = replayed.start else {
        return Err((0, "no playable start".to_owned()));
    };
    // Each side's commitment (with its ply) and the chain so far: last event, value.
    let mut commit: [Option<usize>; 2] = [None, None];
    let mut chain: [(u32, Value); 2] = [(0, [0; 32]); 2];
    let index = |side: Color| usize::from(side == Color::Black);
    // The values each side revealed, by event.
    let mut revealed: [std::collections::BTreeMap<u32, (usize, usize, Value)>; 2] =
        Default::default();
    for (order, command) in commands.iter().enumerate() {
        let side = index(command.side);
        let ply = command.ply;
        match &command.kind {
            Kind::Commit(tip) => {
                if commit[side].is_some() {
                    return Err((ply, format!("{} commits a second time", command.side)));
                }
                commit[side] = Some(ply);
                chain[side] = (0, *tip);
            }
            Kind::Reveal { event, values } => {
                if commit[side].is_none() {
                    return Err((ply, format!("{} reveals before committing", command.side)));
                }
                for (offset, value) in values.iter().enumerate() {
                    let event = event + offset as u32;
                    let (last, previous) = chain[side];
                    if event != last + 1 {
                        return Err((
                            ply,
                            format!(
                                "{}'s reveal is for event {event}, but its next value is for \
                                 event {} (a replayed or skipped value)",
                                command.side,
                                last + 1
                            ),
                        ));
                    }
                    if sha256(value) != previous {
                        return Err((
                            ply,
                            format!(
                                "{}'s value for event {event} does not match its commitment \
                                 (its SHA-256 is not the value before it in the chain)",
                                command.side
                            ),
                        ));
                    }
                    chain[side] = (event, *value);
                    revealed[side].insert(event, (ply, order, *value));
                }
            }
        }
    }
    // Now the attempts, in order: each uses the next events.
    let mut position = start;
    let mut next_event = 1u32;
    let mut rolls = 0;
    let last_ply = replayed.turns.len();
    for (i, turn) in replayed.turns.iter().enumerate() {
        let ply = i + 1;
        let thrower = position.side_to_move();
        let opponent = thrower.other();
        let mut after = position.clone();
        after.play(turn);
        let written: Vec<u8> = turn
            .decision
            .iter()
            .filter_map(|d| match d {
                crate::games::wickets::Decision::Roll(r) => Some(*r),
                _ => None,
            })
            .collect();
        let pending = after.awaits_roll();
        if written.is_empty() && !pending {
            // Any reveal here belongs to no attempt.
            for side in [Color::White, Color::Black] {
                if revealed[index(side)].values().any(|&(p, ..)| p == ply) {
                    return Err((
                        ply,
                        format!("{side} reveals a value with no scoring attempt"),
                    ));
                }
            }
            position = after;
            continue;
        }
        for (side, what) in [(thrower, "the thrower"), (opponent, "the opponent")] {
            if commit[index(side)].is_none_or(|at| at >= ply) {
                return Err((
                    ply,
                    format!("{side} ({what}) had not committed before the attempt"),
                ));
            }
        }
        // The thrower's reveal at this ply says how many events the attempt uses.
        let theirs = |side: Color| -> Vec<(u32, usize, Value)> {
            revealed[index(side)]
                .iter()
                .filter(|(_, (p, ..))| *p == ply)
                .map(|(event, &(_, order, value))| (*event, order, value))
                .collect()
        };
        let by_thrower = theirs(thrower);
        let by_opponent = theirs(opponent);
        if by_thrower.is_empty() {
            return Err((
                ply,
                format!(
                    "the attempt has no reveal by {thrower}, the thrower: the roll was written by hand"
                ),
            ));
        }
        if by_thrower[0].0 != next_event {
            return Err((
                ply,
                format!(
                    "{thrower}'s reveal is for event {}, but this attempt is event {next_event}",
                    by_thrower[0].0
                ),
            ));
        }
        let count = by_thrower.len();
        if count > 2 || (count == 2 && position.mode() != DecisionMode::DiceII) {
            return Err((
                ply,
                format!("{thrower} reveals {count} values for one attempt"),
            ));
        }
        if pending && ply == last_ply && by_opponent.is_empty() {
            // Sent, not yet rolled: nothing more to check.
            break;
        }
        if by_opponent.len() != count || by_opponent[0].0 != next_event {
            return Err((
                ply,
                format!(
                    "{opponent} must reveal its values for events {next_event} to {} with the roll",
                    next_event + count as u32 - 1
                ),
            ));
        }
        if by_opponent[0].1 < by_thrower[0].1 {
            return Err((
                ply,
                format!("{opponent} revealed before {thrower}, the thrower"),
            ));
        }
        let values = |k: usize| {
            let (w, b) = match thrower {
                Color::White => (by_thrower[k].2, by_opponent[k].2),
                Color::Black => (by_opponent[k].2, by_thrower[k].2),
            };
            roll(&game_id, next_event + k as u32, &w, &b)
        };
        let expected: Vec<u8> = (0..count).map(values).collect();
        for (k, (&got, &want)) in written.iter().zip(&expected).enumerate() {
            if got != want {
                return Err((
                    ply,
                    format!(
                        "roll {} is {got}, but the revealed values give {want}",
                        k + 1
                    ),
                ));
            }
        }
        if written.len() > count {
            return Err((
                ply,
                format!("{} rolls, but values for {count} revealed", written.len()),
            ));
        }
        if written.len() < count && !position.attempt_succeeds(turn) {
            return Err((
                ply,
                format!(
                    "{thrower} named a sacrifice for a second roll, but the failed first roll \
                     is not followed by it (the revealed values give {})",
                    expected[1]
                ),
            ));
        }
        rolls += written.len();
        next_event += count as u32;
        position = after;
    }
    // Reveals beyond the attempts (a value given away early) are refused too.
    for side in [Color::White, Color::Black] {
        if let Some((event, (ply, ..))) = revealed[index(side)].range(next_event..).next()
            && !(*ply == last_ply && is_last_pending(&replayed.position))
        {
            return Err((
                *ply,
                format!("{side} reveals its value for event {event}, which no attempt uses"),
            ));
        }
    }
    Ok(Some(rolls))
}

fn is_last_pending(position: &Option<Wickets>) -> bool {
    position.as_ref().is_some_and(Wickets::awaits_roll)
}

/// Whether the game's chance is by fair dice: a Dice mode of Chess with wickets.
#[must_use]
pub fn uses_dice(record: &Record) -> bool {
    matches!(
        is_dice_game(record),
        Some(DecisionMode::Dice | DecisionMode::DiceII)
    )
}

/// Whether the game's chance is by cards: a Cards mode of Chess with wickets.
#[must_use]
pub fn uses_cards(record: &Record) -> bool {
    is_dice_game(record).is_some_and(DecisionMode::is_cards)
}

/// A legal turn as the player types it in a game with fair dice: a scoring attempt
/// without its rolls, which pbem draws from both players' values (so also without the
/// check or mate marker, which depends on them): `Nxe5:w9_r6+` is typed `Nxe5:w9`,
/// `Bf8:w9_r1_se6_r3` is typed `Bf8:w9_se6`. Other turns are unchanged.
#[must_use]
pub fn as_typed(token: &str) -> String {
    match Syntax::parse(token) {
        Ok(mut syntax)
            if syntax
                .steps
                .iter()
                .any(|step| matches!(step, Step::Roll(_))) =>
        {
            syntax.steps.retain(|step| !matches!(step, Step::Roll(_)));
            syntax.marker = 0;
            syntax.to_string()
        }
        _ => token.to_owned(),
    }
}

/// The legal turns of a game with fair dice as the player types them ([`as_typed`]):
/// sorted, each once (the six rolls of an attempt are one typed turn).
#[must_use]
pub fn typed_turns(tokens: &[String]) -> Vec<String> {
    let mut typed: Vec<String> = tokens.iter().map(|token| as_typed(token)).collect();
    typed.sort();
    typed.dedup();
    typed
}

/// Whether `side` has committed in this record.
#[must_use]
pub fn has_committed(record: &Record, side: Color) -> bool {
    transcript(record).is_ok_and(|commands| {
        commands
            .iter()
            .any(|c| c.side == side && matches!(c.kind, Kind::Commit(_)))
    })
}

fn push_command(record: &mut Record, side: Color, text: &str) {
    push_side_command(record, side, COMMAND, text);
}

/// Writes `side`'s `[%command text]` in a comment of its own after the last turn (before
/// the first when there is none), the side named first: the dice's and the deal's
/// transcript commands.
fn push_side_command(record: &mut Record, side: Color, command: &str, text: &str) {
    let target = match record.moves.turns.last_mut() {
        Some(turn) => &mut turn.comments,
        None => &mut record.moves.comments,
    };
    target.push(Comment {
        text: format!("{} [%{command} {text}]", side.name().to_ascii_lowercase()).into(),
        span: Span::default(),
    });
}

/// Writes `side`'s commitment (its chain's tip) after the last turn.
pub fn commit(record: &mut Record, side: Color, chain: &Chain) {
    push_command(record, side, &format!("commit {}", hex(&chain.tip())));
}

/// The next chance event: one after the last value `side` revealed (1 at first).
fn next_event_of(record: &Record, side: Color) -> u32 {
    transcript(record)
        .unwrap_or_default()
        .iter()
        .filter(|c| c.side == side)
        .filter_map(|c| match &c.kind {
            Kind::Reveal { event, values } => Some(event + values.len() as u32),
            Kind::Commit(_) => None,
        })
        .max()
        .unwrap_or(1)
}

/// After the thrower's Dice attempt sent without its roll (the record's last turn):
/// writes the thrower's values for the events it uses (two when a sacrifice is named for
/// a second roll). Does nothing when the last turn awaits no roll.
pub fn reveal_attempt(record: &mut Record, side: Color, chain: &Chain) -> Result<(), String> {
    let replayed = replay::replay_game::<Wickets>(record);
    let Some(position) = replayed.position.filter(Wickets::awaits_roll) else {
        return Ok(());
    };
    let count = if position.roll_sacrifice().is_some() {
        2
    } else {
        1
    };
    let event = next_event_of(record, side);
    let values = (event..event + count)
        .map(|k| chain.value(k).map(|v| hex(&v)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("the chain's {CHAIN_LENGTH} values are used up"))?;
    push_command(
        record,
        side,
        &format!("reveal {event} {}", values.join(" ")),
    );
    Ok(())
}

/// A roll completed by the awaited side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completed {
    /// The completed token.
    pub token: String,
    /// The rolls.
    pub rolls: Vec<u8>,
}

/// When the record's last turn is the opponent's Dice attempt awaiting its roll and
/// `side` is the awaited side: computes the roll(s) from the thrower's revealed values
/// and `side`'s own, rewrites the last token with them (canonically, setting the result
/// when the attempt ends the game) and writes `side`'s reveal. `Ok(None)` when nothing
/// awaits a roll from `side`; an error when the thrower's reveal is missing or wrong.
pub fn complete(
    record: &mut Record,
    side: Color,
    chain: &Chain,
) -> Result<Option<Completed>, String> {
    let replayed = replay::replay_game::<Wickets>(record);
    let Some(after) = replayed.position.filter(Wickets::awaits_roll) else {
        return Ok(None);
    };
    if after.side_to_move() != side {
        return Ok(None);
    }
    if let Fairness::Broken { ply, reason } = check(record) {
        return Err(format!("ply {ply}: {reason}"));
    }
    let ply = record.moves.turns.len();
    let commands = transcript(record).map_err(|(_, reason)| reason)?;
    let Some((event, theirs)) = commands.iter().rev().find_map(|c| match &c.kind {
        Kind::Reveal { event, values } if c.ply == ply && c.side == side.other() => {
            Some((*event, values.clone()))
        }
        _ => None,
    }) else {
        return Err(format!(
            "the attempt carries no revealed value from {}: its roll cannot be computed",
            side.other()
        ));
    };
    let game_id = record.tag("GameId").unwrap_or_default().to_owned();
    let mine: Vec<Value> = (event..event + theirs.len() as u32)
        .map(|k| chain.value(k))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("the chain's {CHAIN_LENGTH} values are used up"))?;
    let mut before = record.clone();
    before.moves.turns.pop();
    let before_replay = replay::replay_game::<Wickets>(&before);
    let (Some(position), Some(pending)) = (before_replay.position, replayed.turns.last()) else {
        return Err("the record does not replay".to_owned());
    };
    let mut rolls = Vec::new();
    let turn = position
        .complete_roll(pending, &mut |k| {
            let (w, b) = match side {
                Color::White => (mine[k], theirs[k]),
                Color::Black => (theirs[k], mine[k]),
            };
            let r = roll(&game_id, event + k as u32, &w, &b);
            rolls.push(r);
            r
        })
        .ok_or_else(|| "the last turn is not an attempt awaiting its roll".to_owned())?;
    let token = position.write_turn(&turn);
    let mut next = position.clone();
    next.play(&turn);
    if let Some(node) = record.moves.turns.last_mut() {
        node.token = token.as_str().into();
    }
    if let Some(outcome) = next.outcome() {
        let result = outcome.result();
        record.set_tag("Result", result.as_str());
        record.result = Some(result);
        complete_roster(record);
    }
    let values: Vec<String> = mine.iter().map(|v| hex(v)).collect();
    push_command(
        record,
        side,
        &format!("reveal {event} {}", values.join(" ")),
    );
    Ok(Some(Completed { token, rolls }))
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;
