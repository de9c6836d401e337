//! The decision of a scoring attempt, by mode (Deterministic, Deterministic II, Dice,
//! Dice II, Cards, Cards II): the one place where chance is judged. The card deck itself
//! is in `cards`.

use super::cards::{self, Card, Verdict};
use super::movegen::{Decision, Turn};
use super::{DecisionMode, Loc, Wickets, idx};
use crate::games::chess::types::Role;

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

    /// Whether a throw to `target` (after the move and any drop) is a scoring attempt: a
    /// Ball thrown into the empty opposing wicket. A throw to an own piece standing there
    /// is a pass (ruling 14).
    pub(super) fn is_attempt(&self, target: Loc) -> bool {
        target == Loc::wicket_of(self.turn.other()) && self.is_empty(target)
    }

    /// The roll a die needs, judged on this position: 5 when the opposing Defender sees
    /// its wicket, else 3.
    fn roll_needed(&self) -> u8 {
        if self.defender_sees_wicket(self.turn.other()) {
            5
        } else {
            3
        }
    }

    /// Calls `out` with every decision a scoring attempt may carry here (after the move
    /// and any drop, before the throw). `safe(sacrifices, success)` says whether the
    /// thrower's king is safe after the throw with those sacrifices and that outcome.
    /// Ruling 12: an attempt decided by chance is offered only when its king is safe
    /// whatever the chance decides (in Dice II, each sacrifice likewise for both outcomes
    /// of the second roll); a Deterministic attempt is judged on its own result. Ruling
    /// 13: in Dice II the second roll's need is judged again after the sacrifice.
    pub(super) fn attempts(
        &self,
        safe: &mut dyn FnMut(&[Loc], bool) -> bool,
        out: &mut dyn FnMut(Vec<Decision>),
    ) {
        let by_chance = self.mode.is_cards() || self.mode.is_dice();
        if by_chance && !(safe(&[], true) && safe(&[], false)) {
            return;
        }
        if self.mode.is_cards() {
            // The cards are played by both sides as the attempt goes: the turn is listed
            // once, its cards still to be played.
            out(Vec::new());
            return;
        }
        if self.mode.is_dice() {
            let need = self.roll_needed();
            let seconds: Vec<(Loc, u8)> = if self.mode == DecisionMode::DiceII && need > 1 {
                self.sacrificable()
                    .into_iter()
                    .filter(|&piece| safe(&[piece], true) && safe(&[piece], false))
                    .map(|piece| (piece, self.without(piece).roll_needed()))
                    .collect()
            } else {
                Vec::new()
            };
            for first in 1..=6 {
                out(vec![Decision::Roll(first)]);
                if first < need {
                    for &(piece, _) in &seconds {
                        for second in 1..=6 {
                            out(vec![
                                Decision::Roll(first),
                                Decision::Sacrifice(piece),
                                Decision::Roll(second),
                            ]);
                        }
                    }
                }
            }
            return;
        }
        if !self.defender_sees_wicket(self.turn.other()) {
            if safe(&[], true) {
                out(Vec::new());
            }
            return;
        }
        if safe(&[], false) {
            out(Vec::new());
        }
        let pieces = self.sacrificable();
        let k = self.mode.sacrifices();
        let mut chosen = Vec::with_capacity(k);
        combinations(&pieces, k, 0, &mut chosen, &mut |set| {
            if safe(set, true) {
                out(set.iter().map(|&l| Decision::Sacrifice(l)).collect());
            }
        });
    }

    /// This position with the own piece on `loc` removed (a sacrifice).
    fn without(&self, loc: Loc) -> Wickets {
        let mut next = self.clone();
        next.remove_piece(loc);
        next
    }

    /// Whether a scoring attempt with this decision succeeds, judged on the position
    /// after the move and any drop, before the throw: the one place the rolls, the cards
    /// and the sacrifices are weighed.
    pub(super) fn verdict(&self, decision: &[Decision]) -> bool {
        let sees = self.defender_sees_wicket(self.turn.other());
        if self.mode.is_cards() {
            let cards = card_plays(decision);
            return cards::judge(self.mode, sees, &cards, declines(decision))
                == Ok(Verdict::Success);
        }
        if self.mode.is_dice() {
            let sacrificed = sacrifices(decision);
            let need = match sacrificed.first() {
                Some(&piece) => self.without(piece).roll_needed(),
                None => self.roll_needed(),
            };
            return matches!(decision.last(), Some(Decision::Roll(r)) if *r >= need);
        }
        !sees || !decision.is_empty()
    }

    /// The position after the naming, the move and the drop of `turn`, before its throw.
    pub(super) fn after_move(&self, turn: &Turn) -> Wickets {
        let us = self.turn;
        let mut moved = self.clone();
        if turn.naming.is_some() {
            moved.defender[idx(us)] = turn.naming;
        }
        moved.apply_move(&turn.mv);
        if let Some(place) = turn.drop {
            moved.loose[idx(us.other())] = Some(place);
        }
        moved
    }

    /// Whether the decision of an attempt decided it; judged after the move, before the
    /// throw.
    pub(super) fn attempt_decided(&self, decision: &[Decision]) -> bool {
        let sees = self.defender_sees_wicket(self.turn.other());
        matches!(
            cards::judge(self.mode, sees, &card_plays(decision), declines(decision)),
            Ok(Verdict::Success | Verdict::Failure)
        )
    }

    /// Where the cards of the attempt that awaits a card leave it, judged on the position
    /// after the attempt (the thrower's opponent to move; the thrown Ball changes no line
    /// to the wicket, so "sees" is as at the throw).
    fn pending(&self) -> Option<Verdict> {
        let played = self.cards.attempt.as_ref()?;
        let sees = self.defender_sees_wicket(self.turn);
        cards::judge(self.mode, sees, played, false).ok()
    }

    /// What a scoring attempt still waits for, when the last turn's cards did not decide
    /// it: the thrower's next card (none played yet, or a tie), the opponent's reply, or
    /// in Cards II after a failing first pair the thrower's choice of a second pair.
    #[must_use]
    pub fn awaiting(&self) -> Option<String> {
        let played = self.cards.attempt.as_ref()?;
        let thrower = self.turn.other();
        Some(match self.pending() {
            Some(Verdict::AwaitsReply(card)) => format!(
                "the scoring attempt awaits {}'s card in reply to {thrower}'s {card}",
                self.turn,
            ),
            Some(Verdict::AwaitsSecondPair) => format!(
                "the first pair failed: the scoring attempt awaits {thrower}'s card for a second \
                 pair, or _c- to accept the failure"
            ),
            _ if played.is_empty() => {
                format!("the scoring attempt awaits {thrower}'s card")
            }
            _ => format!("the scoring attempt awaits {thrower}'s next card after a tie"),
        })
    }

    /// The parts the awaited side may add to the attempt that awaits a card, as written
    /// after `_c`: the cards it may hold (with a deal, those of its hand, following suit
    /// when it must; without one, every card not discarded since the last reshuffle) and,
    /// in Cards II after a failing first pair, `-` (no second pair).
    #[must_use]
    pub fn awaited_parts(&self) -> Vec<String> {
        if self.cards.attempt.is_none() {
            return Vec::new();
        }
        let pending = self.pending();
        let (player, lead) = match pending {
            Some(Verdict::AwaitsReply(card)) => (self.turn, Some(card)),
            _ => (self.turn.other(), None),
        };
        let mut parts: Vec<String> = self
            .cards
            .playable(player, lead)
            .map(|card| card.to_string())
            .collect();
        if pending == Some(Verdict::AwaitsSecondPair) {
            parts.push("-".to_owned());
        }
        parts
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

/// The sacrificed pieces of a decision, in order.
/// The rolls that make a Dice attempt succeed, in words: `5 or 6`, `3 to 6`.
fn needed(need: u8) -> String {
    match need {
        6 => "6".to_owned(),
        5 => "5 or 6".to_owned(),
        need => format!("{need} to 6"),
    }
}

/// One pair of cards of an attempt, in words: `H9 beats S5`, `S9 beats H5`, `H5 ties S5`,
/// with the Defender's 2.5 bonus named when the reply has it.
fn pair_words(lead: Card, reply: Card, sees: bool) -> String {
    let (ours, theirs) = (
        2 * lead.value(),
        2 * reply.value() + if sees { 5 } else { 0 },
    );
    let (and, with) = if sees {
        (
            " and the Defender's 2.5 bonus",
            " with the Defender's 2.5 bonus",
        )
    } else {
        ("", "")
    };
    match ours.cmp(&theirs) {
        std::cmp::Ordering::Greater => format!("{lead} beats {reply}{and}"),
        std::cmp::Ordering::Less => format!("{reply}{with} beats {lead}"),
        std::cmp::Ordering::Equal => format!("{lead} ties {reply}{with}"),
    }
}

pub(super) fn sacrifices(decision: &[Decision]) -> Vec<Loc> {
    decision
        .iter()
        .filter_map(|d| match d {
            Decision::Sacrifice(loc) => Some(*loc),
            _ => None,
        })
        .collect()
}

/// Whether a decision declines the Cards II second pair.
pub(super) fn declines(decision: &[Decision]) -> bool {
    decision.contains(&Decision::Decline)
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

impl Wickets {
    /// What a Dice attempt sent without its roll waits for.
    pub(super) fn roll_awaiting(&self) -> Option<String> {
        let awaited = self.awaited_roll?;
        let second = awaited
            .sacrifice
            .map(|loc| format!(" (and, if it fails, a second one bought by the piece on {loc})"))
            .unwrap_or_default();
        Some(format!(
            "the scoring attempt awaits its roll{second}, computed by {}'s pbem from both \
             players' revealed values",
            self.turn
        ))
    }

    /// What chance decided in the scoring attempt `turn`, played from this position, in
    /// the players' words: the roll against what was needed (`the roll is 2: the attempt
    /// fails, 5 or 6 was needed`), or the card pairs and where they leave the attempt
    /// (a Cards II decline `_c-` named). `None` when the turn is no attempt decided by
    /// chance, or its roll or every card pair is still awaited.
    #[must_use]
    pub fn chance_outcome(&self, turn: &Turn) -> Option<String> {
        if !(self.mode.is_dice() || self.mode.is_cards()) {
            return None;
        }
        let moved = self.after_move(turn);
        if !turn.throw.is_some_and(|target| moved.is_attempt(target)) {
            return None;
        }
        let outcome = |success: bool| {
            if success {
                "the attempt succeeds"
            } else {
                "the attempt fails"
            }
        };
        if self.mode.is_dice() {
            let rolls: Vec<u8> = turn
                .decision
                .iter()
                .filter_map(|d| match d {
                    Decision::Roll(r) => Some(*r),
                    _ => None,
                })
                .collect();
            let &first = rolls.first()?;
            let need = moved.roll_needed();
            if first >= need {
                return Some(format!(
                    "the roll is {first}: the attempt succeeds, {} was needed",
                    needed(need)
                ));
            }
            return Some(match (sacrifices(&turn.decision).first(), rolls.get(1)) {
                (Some(&piece), Some(&second)) => {
                    let again = moved.without(piece).roll_needed();
                    format!(
                        "the roll is {first}: it fails, {} was needed; the piece on {piece} is \
                         sacrificed for a second roll, {second}: {}, {} was needed",
                        needed(need),
                        outcome(second >= again),
                        needed(again)
                    )
                }
                _ => format!(
                    "the roll is {first}: the attempt fails, {} was needed",
                    needed(need)
                ),
            });
        }
        let sees = moved.defender_sees_wicket(self.turn.other());
        let cards = card_plays(&turn.decision);
        let pairs: Vec<String> = cards
            .chunks(2)
            .filter_map(|pair| match *pair {
                [lead, reply] => Some(pair_words(lead, reply, sees)),
                _ => None,
            })
            .collect();
        if pairs.is_empty() {
            return None;
        }
        let declined = declines(&turn.decision);
        let end = match cards::judge(self.mode, sees, &cards, declined).ok()? {
            Verdict::Success => outcome(true).to_owned(),
            Verdict::Failure if declined => {
                "the thrower declines a second pair (_c-): the attempt fails".to_owned()
            }
            Verdict::Failure => outcome(false).to_owned(),
            Verdict::AwaitsSecondPair => {
                "the first pair fails; the thrower leads a second pair or declines it (_c-)"
                    .to_owned()
            }
            Verdict::AwaitsMover => "a tie: the thrower plays another card".to_owned(),
            Verdict::AwaitsReply(card) => format!("the reply to {card} is awaited"),
        };
        Some(format!("the cards {}: {end}", pairs.join(", then ")))
    }

    /// Whether the last turn was a Dice attempt sent without its roll.
    #[must_use]
    pub fn awaits_roll(&self) -> bool {
        self.awaited_roll.is_some()
    }

    /// The turn in this position that a Dice attempt sent without its roll (`pending`,
    /// its decision empty or, in Dice II, the sacrifice named in advance) becomes with the
    /// rolls `roll(0)`, `roll(1)` (the second asked only when the first fails and a
    /// sacrifice was named). `None` when `pending` is not such an attempt.
    pub fn complete_roll(&self, pending: &Turn, roll: &mut dyn FnMut(usize) -> u8) -> Option<Turn> {
        if !self.mode.is_dice()
            || pending
                .decision
                .iter()
                .any(|d| !matches!(d, Decision::Sacrifice(_)))
            || pending.decision.len() > 1
        {
            return None;
        }
        let moved = self.after_move(pending);
        if !pending.throw.is_some_and(|target| moved.is_attempt(target)) {
            return None;
        }
        let mut turn = pending.clone();
        let first = roll(0);
        turn.decision = vec![Decision::Roll(first)];
        if let Some(&Decision::Sacrifice(piece)) = pending.decision.first()
            && !moved.verdict(&turn.decision)
        {
            turn.decision = vec![
                Decision::Roll(first),
                Decision::Sacrifice(piece),
                Decision::Roll(roll(1)),
            ];
        }
        Some(turn)
    }

    /// The Dice attempt without its roll that `decision` (empty, or one sacrifice named in
    /// advance in Dice II) makes of one of the `turns` with the same move and throw, when
    /// they are a legal attempt decided by dice; `Err` says why the named sacrifice
    /// cannot buy a second roll.
    pub(super) fn pending_roll(
        &self,
        turns: &[Turn],
        sacrifice: Option<Loc>,
    ) -> Option<Result<Turn, String>> {
        let base = turns.iter().find(|t| t.decision == [Decision::Roll(1)])?;
        let mut pending = base.clone();
        pending.decision = Vec::new();
        let Some(piece) = sacrifice else {
            return Some(Ok(pending));
        };
        if self.mode != DecisionMode::DiceII {
            return Some(Err(
                "in Dice mode there is no second roll, so no sacrifice is named".to_owned(),
            ));
        }
        let offered = turns
            .iter()
            .any(|t| t.decision.len() == 3 && t.decision[1] == Decision::Sacrifice(piece));
        if !offered {
            return Some(Err(format!(
                "the piece on {piece} cannot buy a second roll (not an own piece other than \
                 the King and the Defender, or its loss would leave the king in check)"
            )));
        }
        pending.decision = vec![Decision::Sacrifice(piece)];
        Some(Ok(pending))
    }
}

/// Whether `later`'s steps complete `earlier`'s, a Dice attempt sent without its roll:
/// `earlier` has no roll and at most the sacrifice named in advance, `later` has its
/// roll(s) and no other sacrifice.
pub(super) fn completes_roll(earlier: &[super::Step], later: &[super::Step]) -> bool {
    use super::Step;
    let sacrifices = |steps: &[Step]| -> Vec<Step> {
        steps
            .iter()
            .filter(|s| matches!(s, Step::Sacrifice(_)))
            .copied()
            .collect()
    };
    earlier.iter().all(|s| matches!(s, Step::Sacrifice(_)))
        && earlier.len() <= 1
        && later.iter().any(|s| matches!(s, Step::Roll(_)))
        && later
            .iter()
            .all(|s| matches!(s, Step::Roll(_) | Step::Sacrifice(_)))
        && sacrifices(later).iter().all(|s| earlier.contains(s))
}

impl Wickets {
    /// Whether `turn`, played here, is a scoring attempt that succeeds.
    #[must_use]
    pub fn attempt_succeeds(&self, turn: &Turn) -> bool {
        let moved = self.after_move(turn);
        turn.throw.is_some_and(|target| moved.is_attempt(target)) && moved.verdict(&turn.decision)
    }
}

impl Wickets {
    /// The piece named for a second roll by a Dice II attempt awaiting its roll.
    #[must_use]
    pub fn roll_sacrifice(&self) -> Option<Loc> {
        self.awaited_roll.and_then(|awaited| awaited.sacrifice)
    }
}
