//! The decision of a scoring attempt, by mode (Deterministic, Deterministic II, Dice,
//! Dice II, Cards, Cards II): the one place where chance is judged. The card deck itself
//! is in `cards`.

use super::cards::{self, Card, Verdict};
use super::movegen::Turn;
use super::{Loc, Wickets, idx};
use crate::games::SetupError;
use crate::games::chess::types::Role;

/// How a throw into the opposing wicket is decided: the `[Decision]` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionMode {
    /// Success unless the Defender sees its wicket; then three sacrifices buy it.
    Deterministic,
    /// As Deterministic, with two sacrifices.
    DeterministicII,
    /// A die: 3-6 succeeds, 5-6 when the Defender sees its wicket.
    Dice,
    /// As Dice, with one second roll after a failure, bought by one sacrifice.
    DiceII,
    /// Each side plays a card, the opponent following suit; the higher card wins, the
    /// opponent's with a 2.5 bonus when its Defender sees its wicket; ties are replayed.
    Cards,
    /// As Cards, with one second try after a failure.
    CardsII,
}

impl DecisionMode {
    /// Every mode, in the order of the rules page.
    pub const ALL: [DecisionMode; 6] = [
        DecisionMode::Deterministic,
        DecisionMode::DeterministicII,
        DecisionMode::Dice,
        DecisionMode::DiceII,
        DecisionMode::Cards,
        DecisionMode::CardsII,
    ];

    /// The `[Decision]` tag value.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "Deterministic",
            DecisionMode::DeterministicII => "Deterministic II",
            DecisionMode::Dice => "Dice",
            DecisionMode::DiceII => "Dice II",
            DecisionMode::Cards => "Cards",
            DecisionMode::CardsII => "Cards II",
        }
    }

    /// The short form in the position string.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            DecisionMode::Deterministic => "det",
            DecisionMode::DeterministicII => "det2",
            DecisionMode::Dice => "dice",
            DecisionMode::DiceII => "dice2",
            DecisionMode::Cards => "cards",
            DecisionMode::CardsII => "cards2",
        }
    }

    /// Reads a tag value or a position-string code, case-insensitively.
    pub fn from_name(text: &str) -> Result<DecisionMode, SetupError> {
        let wanted: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        DecisionMode::ALL
            .into_iter()
            .find(|mode| {
                let name: String = mode.name().replace(' ', "").to_ascii_lowercase();
                name == wanted || mode.code() == wanted
            })
            .ok_or_else(|| {
                SetupError::new(format!(
                    "unknown decision mode \"{text}\" (expected Deterministic, Deterministic II, \
                     Dice, Dice II, Cards or Cards II)"
                ))
            })
    }

    /// Pieces a deterministic mode sacrifices when the Defender sees its wicket.
    pub(super) const fn sacrifices(self) -> usize {
        match self {
            DecisionMode::Deterministic => 3,
            DecisionMode::DeterministicII => 2,
            _ => 0,
        }
    }

    pub(super) const fn is_dice(self) -> bool {
        matches!(self, DecisionMode::Dice | DecisionMode::DiceII)
    }

    /// Whether the mode decides by cards.
    #[must_use]
    pub const fn is_cards(self) -> bool {
        matches!(self, DecisionMode::Cards | DecisionMode::CardsII)
    }
}

/// One part of a scoring attempt's decision, in the order it happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decision {
    /// A die roll, 1 to 6.
    Roll(u8),
    /// One of the thrower's own pieces removed from the board.
    Sacrifice(Loc),
    /// A card played: the thrower's and the opponent's in turn.
    Card(Card),
}

impl Wickets {
    /// Own pieces that may be sacrificed: not the King, not the Defender.
    pub(super) fn sacrificable(&self) -> Vec<Loc> {
        let us = self.turn;
        self.locs_of(us)
            .filter(|&loc| {
                self.piece_at(loc).is_some_and(|p| p.role != Role::King)
                    && self.defender[idx(us)] != Some(loc)
            })
            .collect()
    }

    /// Every decision a scoring attempt may carry here, with whether it succeeds.
    pub(super) fn decisions(&self) -> Vec<(Vec<Decision>, bool)> {
        let sees = self.defender_sees_wicket(self.turn.other());
        let mut out = Vec::new();
        if self.mode.is_cards() {
            // The cards are played by both sides as the attempt goes: the turn is listed
            // once, its cards still to be played.
            out.push((Vec::new(), false));
            return out;
        }
        if self.mode.is_dice() {
            let need = if sees { 5 } else { 3 };
            let pieces = self.sacrificable();
            for first in 1..=6 {
                out.push((vec![Decision::Roll(first)], first >= need));
                if first < need && self.mode == DecisionMode::DiceII {
                    for &piece in &pieces {
                        for second in 1..=6 {
                            out.push((
                                vec![
                                    Decision::Roll(first),
                                    Decision::Sacrifice(piece),
                                    Decision::Roll(second),
                                ],
                                second >= need,
                            ));
                        }
                    }
                }
            }
            return out;
        }
        if !sees {
            out.push((Vec::new(), true));
            return out;
        }
        out.push((Vec::new(), false));
        let pieces = self.sacrificable();
        let k = self.mode.sacrifices();
        let mut chosen = Vec::with_capacity(k);
        combinations(&pieces, k, 0, &mut chosen, &mut |set| {
            out.push((set.iter().map(|&l| Decision::Sacrifice(l)).collect(), true));
        });
        out
    }

    /// Whether the scoring attempt in `turn` succeeds (false for any other turn).
    pub(super) fn succeeds(&self, turn: &Turn) -> bool {
        let us = self.turn;
        if turn.throw != Some(Loc::wicket_of(us.other())) {
            return false;
        }
        let mut moved = self.clone();
        if turn.naming.is_some() {
            moved.defender[idx(us)] = turn.naming;
        }
        moved.apply_move(&turn.mv);
        let sees = moved.defender_sees_wicket(us.other());
        if self.mode.is_cards() {
            let cards = card_plays(&turn.decision);
            return cards::judge(self.mode, sees, &cards) == Ok(Verdict::Success);
        }
        if self.mode.is_dice() {
            let need = if sees { 5 } else { 3 };
            return matches!(turn.decision.last(), Some(Decision::Roll(r)) if *r >= need);
        }
        !sees || !turn.decision.is_empty()
    }

    /// Whether the cards of an attempt decided it; called before the turn passes, while
    /// the thrower is the side to move.
    pub(super) fn attempt_decided(&self, played: &[Card]) -> bool {
        let sees = self.defender_sees_wicket(self.turn.other());
        matches!(
            cards::judge(self.mode, sees, played),
            Ok(Verdict::Success | Verdict::Failure)
        )
    }

    /// What a scoring attempt still waits for, when the last turn's cards did not decide
    /// it: the thrower's next card (none played yet, or a tie) or the opponent's reply.
    #[must_use]
    pub fn awaiting(&self) -> Option<String> {
        let played = self.cards.attempt.as_ref()?;
        let thrower = self.turn.other();
        Some(match played.len() % 2 {
            1 => format!(
                "the scoring attempt awaits {}'s card in reply to {thrower}'s {}",
                self.turn,
                played[played.len() - 1]
            ),
            _ if played.is_empty() => {
                format!("the scoring attempt awaits {thrower}'s card")
            }
            _ => format!("the scoring attempt awaits {thrower}'s next card after a tie"),
        })
    }

    /// The cards played since the last reshuffle (the discard pile), in deck order.
    pub fn discards(&self) -> impl Iterator<Item = Card> + use<> {
        let mask = self.cards.discards;
        (0..40u8).filter_map(move |i| {
            (mask & (1 << i) != 0)
                .then(|| Card::new(cards::SUITS[usize::from(i / 10)], i % 10 + 1))
                .flatten()
        })
    }
}

/// Calls `found` with every `k`-element subset of `items` (in order).
pub(super) fn combinations(
    items: &[Loc],
    k: usize,
    start: usize,
    chosen: &mut Vec<Loc>,
    found: &mut impl FnMut(&[Loc]),
) {
    if chosen.len() == k {
        found(chosen);
        return;
    }
    for i in start..items.len() {
        chosen.push(items[i]);
        combinations(items, k, i + 1, chosen, found);
        chosen.pop();
    }
}

/// The cards of a decision, in the order played.
pub(super) fn card_plays(decision: &[Decision]) -> Vec<Card> {
    decision
        .iter()
        .filter_map(|d| match d {
            Decision::Card(card) => Some(*card),
            _ => None,
        })
        .collect()
}
