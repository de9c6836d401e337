//! Record events judged by the rules of the record's game.
//!
//! Resignations, draw offers, acceptances and claims are not turns: they are comment
//! commands preceded by the side that made them (`white [%draw offer]`, `black [%resign]`,
//! `white [%draw claim threefold]`; see `notation/correspondence.md`). The replay hands
//! the comments at each point of the main line (before the first turn, after each turn)
//! to a `Judge`, with the position there and how often it has occurred; the judge finds
//! the events the rules do not allow and remembers how the game ended (`End`), by an
//! event or by the rules. `pbem draw claim` and the validator judge claims with the same
//! [`ClaimReason::check`].

use std::fmt;

use crate::clock::commands;
use crate::games::{Color, DrawReason, Game, GameResult, Outcome, RepetitionRule};
use crate::notation::{Comment, Record};

use super::{Finding, FindingKind, Severity};

/// A reason a draw may be claimed for, as a claim names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimReason {
    /// `threefold`: the same position for the third time (at least).
    Threefold,
    /// `fifty-moves`: the fifty-move rule.
    FiftyMoves,
}

impl ClaimReason {
    /// Every reason, in the order a claim prefers them when several hold.
    pub const ALL: [ClaimReason; 2] = [ClaimReason::FiftyMoves, ClaimReason::Threefold];

    /// The word a claim names it by: `threefold`, `fifty-moves`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ClaimReason::Threefold => "threefold",
            ClaimReason::FiftyMoves => "fifty-moves",
        }
    }

    /// Reads the word a claim names its reason by.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ClaimReason> {
        ClaimReason::ALL
            .into_iter()
            .find(|reason| reason.name() == name)
    }

    /// The draw the claim gives.
    #[must_use]
    pub const fn draw_reason(self) -> DrawReason {
        match self {
            ClaimReason::Threefold => DrawReason::ThreefoldRepetition,
            ClaimReason::FiftyMoves => DrawReason::FiftyMoves,
        }
    }

    /// Whether the game `G` lets a draw be claimed for this reason at all (African Chess
    /// has no fifty-move rule; Chesscala and Chesica have no draw by claim).
    #[must_use]
    pub fn in_game<G: Game>(self) -> bool {
        match self {
            ClaimReason::Threefold => {
                matches!(G::REPETITION, RepetitionRule::Draw { claim, .. } if claim != u32::MAX)
            }
            ClaimReason::FiftyMoves => G::FIFTY_MOVE_CLAIM,
        }
    }

    /// Whether the claim holds in `position`, which has occurred `occurrences` times on
    /// the way to it (itself included); why not when it does not.
    pub fn check<G: Game>(self, position: &G, occurrences: u32) -> Result<(), String> {
        if !self.in_game::<G>() {
            return Err(format!(
                "a draw claimed by {}, but {} has no such rule",
                self.draw_reason(),
                G::VARIANT
            ));
        }
        match self {
            ClaimReason::Threefold => {
                let RepetitionRule::Draw { claim, .. } = G::REPETITION else {
                    unreachable!("in_game checked the rule")
                };
                if occurrences >= claim {
                    Ok(())
                } else {
                    Err(format!(
                        "a draw claimed by threefold repetition, but the position has occurred \
                         {} here",
                        times(occurrences)
                    ))
                }
            }
            ClaimReason::FiftyMoves => {
                if position.claimable_draw() == Some(DrawReason::FiftyMoves) {
                    Ok(())
                } else {
                    Err(
                        "a draw claimed by the fifty-move rule, but fifty moves of each side \
                         without progress have not been played"
                            .to_owned(),
                    )
                }
            }
        }
    }
}

fn times(count: u32) -> String {
    match count {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        _ => format!("{count} times"),
    }
}

/// The draw the side to move could claim in `position` (reached for the `occurrences`th
/// time), preferring the fifty-move rule.
#[must_use]
pub fn claimable<G: Game>(position: &G, occurrences: u32) -> Option<DrawReason> {
    ClaimReason::ALL
        .into_iter()
        .find(|reason| reason.check(position, occurrences).is_ok())
        .map(ClaimReason::draw_reason)
}

/// What an event command asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action<'a> {
    /// `[%draw offer]`
    Offer,
    /// `[%draw agree]`: accept the other side's standing offer.
    Agree,
    /// `[%draw claim REASON]`, with the reason as written.
    Claim(&'a str),
    /// `[%resign]`
    Resign,
    /// `[%timeout INSTANT]`: the game claimed on time at that instant, the opponent being
    /// over its time (as written).
    Timeout(&'a str),
    /// A `[%draw ...]` command pbem does not know, with its value.
    Unknown(&'a str),
}

/// One event command in a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventCommand<'a> {
    /// The side the comment names first (`white`, `black`), if it names one.
    pub side: Option<Color>,
    /// What the command asks for.
    pub action: Action<'a>,
}

impl fmt::Display for EventCommand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(side) = self.side {
            write!(f, "{} ", side.name().to_ascii_lowercase())?;
        }
        match self.action {
            Action::Offer => f.write_str("[%draw offer]"),
            Action::Agree => f.write_str("[%draw agree]"),
            Action::Claim("") => f.write_str("[%draw claim]"),
            Action::Claim(reason) => write!(f, "[%draw claim {reason}]"),
            Action::Resign => f.write_str("[%resign]"),
            Action::Timeout(instant) => write!(f, "[%timeout {instant}]"),
            Action::Unknown(value) => write!(f, "[%draw {value}]"),
        }
    }
}

/// Whether a comment's text may hold an event command: most comments carry no command, or
/// only clocks and evaluations, and an event command starts `[%resign` or `[%draw`. Also
/// true of the text before its white space is collapsed, since neither has any. (A claim
/// on time, `[%timeout`, is found the same way.)
///
/// Inlined into the streaming replay, which asks it of every comment: a short text is
/// looked at eight bytes at a time (the last eight bytes overlapping the ones before),
/// without setting up memchr.
#[inline(always)]
pub(crate) fn may_hold_event(text: &str) -> bool {
    let bytes = text.as_bytes();
    let length = bytes.len();
    if !(8..=64).contains(&length) {
        return may_hold_event_by_memchr(bytes);
    }
    // Eight bytes at a time, the last eight overlapping the ones before.
    let last = length - 8;
    let mut base = 0;
    while base < last {
        if event_in_word(bytes, base) {
            return true;
        }
        base += 8;
    }
    event_in_word(bytes, last)
}

/// Whether the eight bytes of `bytes` from `base` hold the `%` of an event command.
#[inline(always)]
fn event_in_word(bytes: &[u8], base: usize) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let Some(word) = bytes.get(base..base + 8) else {
        return false;
    };
    let word = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ (ONES * 0x25);
    // A high bit in `found` marks a byte that may be a `%` (one above a true one may be a
    // false alarm): each is checked, the byte after it (the name's first letter) first.
    let mut found = word.wrapping_sub(ONES) & !word & (ONES * 0x80);
    while found != 0 {
        let at = base + (found.trailing_zeros() / 8) as usize;
        if matches!(bytes.get(at + 1), Some(b'r' | b'd' | b't'))
            && bytes[at] == b'%'
            && event_at(bytes, at)
        {
            return true;
        }
        found &= found - 1;
    }
    false
}

/// [`may_hold_event`] for a long text (or one under eight bytes), with memchr.
#[inline(never)]
fn may_hold_event_by_memchr(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'%', bytes).any(|at| event_at(bytes, at))
}

/// Whether the `%` at byte `at` of `bytes` starts an event command's name after its `[`.
#[inline]
fn event_at(bytes: &[u8], at: usize) -> bool {
    let name = &bytes[at + 1..];
    at > 0
        && bytes[at - 1] == b'['
        && match name.first() {
            Some(b'r') => name.starts_with(b"resign"),
            Some(b'd') => name.starts_with(b"draw"),
            Some(b't') => name.starts_with(b"timeout"),
            _ => false,
        }
}

/// The side a comment names first (`white [%draw offer]`), if it names one.
#[must_use]
pub fn comment_side(text: &str) -> Option<Color> {
    let first = text.split_whitespace().next().unwrap_or("");
    if first.eq_ignore_ascii_case("white") {
        Some(Color::White)
    } else if first.eq_ignore_ascii_case("black") {
        Some(Color::Black)
    } else {
        None
    }
}

/// The event commands in a comment's text (`white [%draw offer]`), in order. Other
/// commands (`[%clk ...]`, the stamps) are not events.
#[must_use]
pub fn events_in(text: &str) -> Vec<EventCommand<'_>> {
    if !may_hold_event(text) {
        return Vec::new();
    }
    let side = comment_side(text);
    commands(text)
        .filter_map(|(name, value)| {
            let action = match (name, value) {
                ("resign", _) => Action::Resign,
                ("timeout", instant) => Action::Timeout(instant),
                ("draw", "offer") => Action::Offer,
                ("draw", "agree") => Action::Agree,
                ("draw", value) => match value.strip_prefix("claim") {
                    Some(reason) if reason.is_empty() || reason.starts_with(' ') => {
                        Action::Claim(reason.trim())
                    }
                    _ => Action::Unknown(value),
                },
                _ => return None,
            };
            Some(EventCommand { side, action })
        })
        .collect()
}

/// The comments at the end of the main line: after the last turn, or before the first
/// when there is none.
#[must_use]
pub fn final_comments(record: &Record) -> &[Comment] {
    match record.moves.turns.last() {
        Some(turn) => &turn.comments,
        None => &record.moves.comments,
    }
}

/// The side whose draw offer stands at the end of the main line: made after the last
/// turn (an offer lapses with the next turn), and not yet accepted.
#[must_use]
pub fn standing_offer(record: &Record) -> Option<Color> {
    let mut standing = None;
    for comment in final_comments(record) {
        for event in events_in(&comment.text) {
            match (event.action, event.side) {
                (Action::Offer, Some(side)) => standing = Some(side),
                (Action::Agree, _) => standing = None,
                _ => {}
            }
        }
    }
    standing
}

/// How a game ended: by the rules or by a record event.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct End {
    /// The result the end gives.
    pub result: GameResult,
    /// The end in words (`White resigned`, `Black wins by checkmate`).
    pub what: String,
    /// The rules' outcome, when the rules ended the game.
    pub rule: Option<Outcome>,
}

impl End {
    pub(crate) fn by_rule(outcome: Outcome) -> End {
        End {
            result: outcome.result(),
            what: outcome.to_string(),
            rule: Some(outcome),
        }
    }

    fn by_event(result: GameResult, what: String) -> End {
        End {
            result,
            what,
            rule: None,
        }
    }
}

/// Follows the events along the main line: the standing offer and the end.
#[derive(Debug, Default)]
pub(crate) struct Judge {
    /// How the game ended, once it has (the first end counts).
    pub end: Option<End>,
    /// The side whose offer stands.
    offer: Option<Color>,
}

impl Judge {
    /// A turn was played: a standing offer lapses.
    pub(crate) fn turn_played(&mut self) {
        self.offer = None;
    }

    /// Judges the events in the comments at one point of the main line, where `position`
    /// has occurred `occurrences` times; an end the rules impose there must already be in
    /// [`Judge::end`].
    pub(crate) fn comments<G: Game>(
        &mut self,
        comments: &[Comment],
        position: &G,
        occurrences: u32,
        findings: &mut Vec<Finding>,
    ) {
        for comment in comments {
            for event in events_in(&comment.text) {
                if let Err(message) = self.event(&event, position, occurrences) {
                    findings.push(Finding {
                        token: Some(event.to_string()),
                        ..Finding::new(Severity::Error, FindingKind::Event, message, comment.span)
                    });
                }
            }
        }
    }

    fn event<G: Game>(
        &mut self,
        event: &EventCommand<'_>,
        position: &G,
        occurrences: u32,
    ) -> Result<(), String> {
        let Some(side) = event.side else {
            return Err(format!(
                "the event {event} does not say which side made it (\"white {event}\" or \
                 \"black {event}\")"
            ));
        };
        if let Action::Unknown(value) = event.action {
            return Err(format!(
                "unknown draw event \"{value}\" (pbem knows offer, agree and claim REASON)"
            ));
        }
        let claim = match event.action {
            Action::Claim(written) => Some(claim_reason::<G>(written)?),
            _ => None,
        };
        if let Some(end) = &self.end {
            // A claim that holds, made after a draw the rules imposed by themselves (a
            // Cascudo repetition), only says it again.
            if let (Some(reason), Some(Outcome::Draw { .. })) = (claim, end.rule)
                && reason.check(position, occurrences).is_ok()
            {
                return Ok(());
            }
            return Err(format!("the game was already over ({})", end.what));
        }
        match event.action {
            Action::Offer => self.offer = Some(side),
            Action::Agree => {
                if self.offer != Some(side.other()) {
                    return Err(format!(
                        "{side} accepts a draw, but no draw offer from {} stands",
                        side.other()
                    ));
                }
                self.end = Some(End::by_event(
                    GameResult::Draw,
                    "the players agreed a draw".to_owned(),
                ));
            }
            Action::Resign => {
                let result = match side {
                    Color::White => GameResult::BlackWins,
                    Color::Black => GameResult::WhiteWins,
                };
                self.end = Some(End::by_event(result, format!("{side} resigned")));
            }
            Action::Timeout(instant) => {
                // The claimant waits for the other side's act (its turn, or the card or
                // roll the last turn awaits); its pbem checked the clocks at the instant.
                let to_act = position
                    .awaited_side()
                    .unwrap_or_else(|| position.side_to_move());
                if to_act == side {
                    return Err(format!(
                        "{side} claims the game on time while its own act is awaited: only \
                         the side waiting for the other's act claims on time"
                    ));
                }
                if crate::clock::parse_instant(instant).is_none() {
                    return Err(format!(
                        "the claim on time \"{instant}\" does not name its instant \
                         (2026-11-20T10:00:00Z)"
                    ));
                }
                let result = match side {
                    Color::White => GameResult::WhiteWins,
                    Color::Black => GameResult::BlackWins,
                };
                self.end = Some(End::by_event(
                    result,
                    format!("{side} claimed the game on time"),
                ));
            }
            Action::Claim(_) => {
                let reason = claim.expect("read above");
                let to_move = position.side_to_move();
                if to_move != side {
                    return Err(format!(
                        "{side} claims a draw on {to_move}'s turn: a draw is claimed on one's \
                         own turn"
                    ));
                }
                reason.check(position, occurrences)?;
                self.end = Some(End::by_event(
                    GameResult::Draw,
                    format!("{side} claimed a draw by {}", reason.draw_reason()),
                ));
            }
            Action::Unknown(_) => unreachable!("refused above"),
        }
        Ok(())
    }
}

/// The reason a claim names, if it is one the game `G` has.
fn claim_reason<G: Game>(written: &str) -> Result<ClaimReason, String> {
    let known: Vec<&str> = ClaimReason::ALL
        .into_iter()
        .filter(|reason| reason.in_game::<G>())
        .map(ClaimReason::name)
        .collect();
    let choices = if known.is_empty() {
        format!("{} has no draw by claim", G::VARIANT)
    } else {
        format!("{} knows {}", G::VARIANT, known.join(", "))
    };
    if written.is_empty() {
        return Err(format!("a draw claim without a reason ({choices})"));
    }
    let Some(reason) = ClaimReason::from_name(written) else {
        return Err(format!("unknown draw claim \"{written}\" ({choices})"));
    };
    if !reason.in_game::<G>() {
        return Err(format!(
            "a draw claimed by {}, but {} has no such rule ({choices})",
            reason.draw_reason(),
            G::VARIANT
        ));
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::african::African;
    use crate::games::chess::Chess;
    use proptest::prelude::*;

    /// The test by its definition: a `[%` followed by an event's name, anywhere.
    fn holds_event_name(text: &str) -> bool {
        ["[%resign", "[%draw", "[%timeout"]
            .iter()
            .any(|start| text.contains(start))
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::with_cases(3000)
        })]

        /// Short and long comments, with the pieces of event commands in them.
        #[test]
        fn may_hold_event_finds_every_event_name(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("["), Just("%"), Just("[%"), Just("[%draw"), Just("[%resign"),
                    Just("[%clk 0:05:00]"), Just(" "), Just("dra"), Just("res"), Just("é"),
                    Just("[%timeout"), Just("[%time"), Just("tim"),
                    Just("x"), Just("long text long text long text "),
                ],
                0..12,
            )
        ) {
            let text = pieces.concat();
            prop_assert_eq!(may_hold_event(&text), holds_event_name(&text), "{:?}", text);
        }
    }

    #[test]
    fn event_commands_are_read_with_their_side() {
        let events = events_in("black [%draw claim threefold]");
        assert_eq!(
            events,
            [EventCommand {
                side: Some(Color::Black),
                action: Action::Claim("threefold")
            }]
        );
        assert_eq!(events[0].to_string(), "black [%draw claim threefold]");
        assert_eq!(events_in("[%clk 0:03:00] [%eval 0.3]"), []);
        assert_eq!(events_in("[%resign]")[0].side, None);
        assert_eq!(
            events_in("white [%draw claimx]")[0].action,
            Action::Unknown("claimx")
        );
    }

    #[test]
    fn claims_name_reasons_their_game_has() {
        assert!(ClaimReason::FiftyMoves.in_game::<Chess>());
        assert!(!ClaimReason::FiftyMoves.in_game::<African>());
        assert!(ClaimReason::Threefold.in_game::<African>());
        let error = claim_reason::<African>("fifty-moves").unwrap_err();
        assert!(error.contains("African Chess has no such rule"), "{error}");
        let error = claim_reason::<Chess>("nonsense").unwrap_err();
        assert!(error.contains("unknown draw claim \"nonsense\""), "{error}");
        assert_eq!(
            ClaimReason::Threefold.check(&Chess::start(), 2),
            Err(
                "a draw claimed by threefold repetition, but the position has occurred twice \
                 here"
                    .to_owned()
            )
        );
        assert_eq!(ClaimReason::Threefold.check(&Chess::start(), 3), Ok(()));
        assert_eq!(
            claimable(&Chess::start(), 3),
            Some(DrawReason::ThreefoldRepetition)
        );
        assert_eq!(claimable(&Chess::start(), 2), None);
    }
}
