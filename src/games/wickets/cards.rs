//! The Cards and Cards II decision modes: the 40-card deck, the discard pile, the deal
//! when the record carries it, and the judging of a scoring attempt's card plays.
//!
//! Cards are played in turn: the thrower (the mover) leads, the opponent replies; a tie
//! of values is replayed with a new pair; in Cards II a failed pair may be followed by one
//! second pair, which the thrower plays or declines. After each play the player draws a replacement; when the deck (40 minus
//! the two hands of ten minus the discards) is empty, the discards are reshuffled into
//! it.

use std::fmt;
use std::sync::Arc;

use super::{DecisionMode, idx};
use crate::games::{Color, SetupError};

/// The suit letters, in deck order: clubs (or batons), diamonds (or coins), hearts (or
/// cups), spades (or swords).
pub const SUITS: [char; 4] = ['C', 'D', 'H', 'S'];

/// One card of the 40-card deck: a suit and a value 1 to 10 (aces low).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The card of a suit letter (`C`, `D`, `H`, `S`) and a value 1 to 10.
    #[must_use]
    pub fn new(suit: char, value: u8) -> Option<Card> {
        let s = SUITS.iter().position(|&c| c == suit)?;
        (1..=10)
            .contains(&value)
            .then(|| Card(s as u8 * 10 + value - 1))
    }

    /// Reads `S7` or `H10`.
    #[must_use]
    pub fn from_name(text: &str) -> Option<Card> {
        let mut chars = text.chars();
        let suit = chars.next()?;
        let value: u8 = chars.as_str().parse().ok()?;
        if chars.as_str().starts_with('0') {
            return None;
        }
        Card::new(suit, value)
    }

    /// The suit letter.
    #[must_use]
    pub fn suit(self) -> char {
        SUITS[usize::from(self.0 / 10)]
    }

    /// The value, 1 to 10.
    #[must_use]
    pub const fn value(self) -> u8 {
        self.0 % 10 + 1
    }

    pub(super) const fn bit(self) -> u64 {
        1 << self.0
    }

    const fn suit_mask(self) -> u64 {
        0x3ff << (self.0 / 10 * 10)
    }

    fn all_in(mask: u64) -> impl Iterator<Item = Card> {
        (0..40u8).filter(move |i| mask & (1 << i) != 0).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.suit(), self.value())
    }
}

/// Writes the cards of a mask, in deck order, joined without separators (`C3H10S7`).
pub(super) fn write_mask(mask: u64) -> String {
    Card::all_in(mask).map(|c| c.to_string()).collect()
}

/// Reads cards written back to back (`C3H10S7`), or `-` for none.
pub(super) fn read_cards(text: &str) -> Option<Vec<Card>> {
    if text == "-" {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest[1..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(rest.len(), |i| i + 1);
        out.push(Card::from_name(&rest[..end])?);
        rest = &rest[end..];
    }
    Some(out)
}

/// The deal a record reveals (the `[Deal]` tag): the shuffled deck, the hands it gave and
/// how far the replacements have been drawn. Known until the first reshuffle, whose new
/// order the tag does not give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Deal {
    order: Arc<[Card]>,
    drawn: u8,
    hands: [u64; 2],
}

impl Deal {
    /// Reads the tag: the 40 cards in the shuffled order, separated by spaces; the first
    /// ten are White's hand, the next ten Black's, the rest the deck in drawing order.
    pub(super) fn from_tag(text: &str) -> Result<Deal, SetupError> {
        let mut order = Vec::with_capacity(40);
        let mut seen = 0u64;
        for word in text.split_whitespace() {
            let card = Card::from_name(word).ok_or_else(|| {
                SetupError::new(format!(
                    "the deal tag: \"{word}\" is not a card (a suit C, D, H or S and a value \
                     1 to 10)"
                ))
            })?;
            if seen & card.bit() != 0 {
                return Err(SetupError::new(format!(
                    "the deal tag: {card} is dealt twice"
                )));
            }
            seen |= card.bit();
            order.push(card);
        }
        if order.len() != 40 {
            return Err(SetupError::new(format!(
                "the deal tag has {} cards, not the 40 of the deck",
                order.len()
            )));
        }
        let hand = |cards: &[Card]| cards.iter().fold(0, |m, c| m | c.bit());
        let hands = [hand(&order[..10]), hand(&order[10..20])];
        Ok(Deal {
            order: order.into(),
            drawn: 20,
            hands,
        })
    }
}

/// The state of the cards in a position.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct CardState {
    /// The cards played since the last reshuffle.
    pub(super) discards: u64,
    /// The cards of a scoring attempt still waiting for a card, in the order played
    /// (`Some` only then: the game cannot go on until it is decided).
    pub(super) attempt: Option<Vec<Card>>,
    /// The deal, when the record gives it and no reshuffle has happened since.
    pub(super) deal: Option<Deal>,
}

impl CardState {
    /// Plays one card of `player` (replying to `lead` when it is the opponent's card),
    /// then draws its replacement, reshuffling the discards when the deck is empty.
    pub(super) fn play(
        &mut self,
        player: Color,
        card: Card,
        lead: Option<Card>,
    ) -> Result<(), String> {
        if self.discards & card.bit() != 0 {
            return Err(format!(
                "{card} was already played since the last reshuffle (discards: {})",
                write_mask(self.discards)
            ));
        }
        if let Some(deal) = &mut self.deal {
            let hand = deal.hands[idx(player)];
            if hand & card.bit() == 0 {
                return Err(format!(
                    "{player} does not hold {card}: by the deal {player}'s hand is {}",
                    write_mask(hand)
                ));
            }
            if let Some(lead) = lead
                && lead.suit() != card.suit()
                && hand & lead.suit_mask() != 0
            {
                return Err(format!(
                    "{player} must follow suit: {card} answers {lead} while {player} holds {}",
                    write_mask(hand & lead.suit_mask())
                ));
            }
            deal.hands[idx(player)] &= !card.bit();
        }
        self.discards |= card.bit();
        // The deck holds 40 - 20 in hands - discards; with 21 discards it ran out before
        // this replacement: the discards become the deck.
        if self.discards.count_ones() > 20 {
            self.discards = 0;
            self.deal = None;
        }
        if let Some(deal) = &mut self.deal {
            let drawn = deal.order[usize::from(deal.drawn)];
            deal.hands[idx(player)] |= drawn.bit();
            deal.drawn += 1;
        }
        Ok(())
    }
}

impl CardState {
    /// The cards `player` may play now, in deck order (in reply to `lead` when it is the
    /// opponent's card): with the deal, those of its hand, of the lead's suit when it
    /// holds one; without it, every card not discarded since the last reshuffle (the
    /// hands are hidden).
    pub(super) fn playable(
        &self,
        player: Color,
        lead: Option<Card>,
    ) -> impl Iterator<Item = Card> + use<> {
        let mask = match &self.deal {
            Some(deal) => {
                let hand = deal.hands[idx(player)];
                match lead {
                    Some(lead) if hand & lead.suit_mask() != 0 => hand & lead.suit_mask(),
                    _ => hand,
                }
            }
            None => !self.discards & ((1 << 40) - 1),
        };
        Card::all_in(mask)
    }
}

/// Where the cards of a scoring attempt leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The mover's card beat the reply: the wicket is taken.
    Success,
    /// The reply won (and, in Cards II, a second pair was declined or failed too).
    Failure,
    /// The mover's card is awaited (none played yet, or the last pair tied).
    AwaitsMover,
    /// The opponent's reply to this card is awaited.
    AwaitsReply(Card),
    /// Cards II: the first pair failed; the thrower's choice is awaited, a card that leads
    /// a second pair or declining it (then the failure stands).
    AwaitsSecondPair,
}

/// Judges the cards of an attempt, in order (mover, opponent, mover...); `sees` gives the
/// opponent the 2.5 bonus; `declined` says that the thrower declined a Cards II second
/// pair after them (`_c-`), which only a failing first pair allows.
pub(super) fn judge(
    mode: DecisionMode,
    sees: bool,
    cards: &[Card],
    declined: bool,
) -> Result<Verdict, String> {
    let verdict = judge_cards(mode, sees, cards)?;
    match (verdict, declined) {
        (Verdict::AwaitsSecondPair, true) => Ok(Verdict::Failure),
        (verdict, false) => Ok(verdict),
        (verdict, true) => Err(format!(
            "only a failing first pair in Cards II may be followed by _c- (no second pair); {}",
            match verdict {
                Verdict::Success => "here the attempt succeeded",
                Verdict::Failure if mode == DecisionMode::CardsII => {
                    "here the second pair failed too"
                }
                Verdict::Failure => "Cards mode has no second pair",
                Verdict::AwaitsReply(_) => "here the opponent's reply is awaited",
                _ => "here the thrower's card is awaited",
            }
        )),
    }
}

fn judge_cards(mode: DecisionMode, sees: bool, cards: &[Card]) -> Result<Verdict, String> {
    let bonus = if sees { 5 } else { 0 };
    let mut failures = 0;
    let mut pairs = cards.chunks(2).peekable();
    while let Some(pair) = pairs.next() {
        let &[lead, reply] = pair else {
            return Ok(Verdict::AwaitsReply(pair[0]));
        };
        let (ours, theirs) = (2 * lead.value(), 2 * reply.value() + bonus);
        let more = pairs.peek().is_some();
        if ours > theirs {
            if more {
                return Err(format!(
                    "{lead} beats {reply}{}: the attempt succeeded, no more cards are played",
                    if sees { " with its 2.5 bonus" } else { "" }
                ));
            }
            return Ok(Verdict::Success);
        }
        if ours < theirs {
            failures += 1;
            if more && (mode != DecisionMode::CardsII || failures > 1) {
                return Err(format!(
                    "{reply}{} beats {lead}: the attempt failed{}",
                    if sees { " with its 2.5 bonus" } else { "" },
                    if mode == DecisionMode::CardsII {
                        " a second time, and Cards II allows one second try only"
                    } else {
                        ", and Cards mode has no second try"
                    }
                ));
            }
            if !more {
                return Ok(if mode == DecisionMode::CardsII && failures == 1 {
                    Verdict::AwaitsSecondPair
                } else {
                    Verdict::Failure
                });
            }
        } else if !more {
            return Ok(Verdict::AwaitsMover);
        }
    }
    Ok(Verdict::AwaitsMover)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        read_cards(text).expect("cards")
    }

    #[test]
    fn cards_read_and_write() {
        assert_eq!(
            Card::from_name("H10").map(|c| c.to_string()),
            Some("H10".into())
        );
        assert_eq!(Card::from_name("S0"), None);
        assert_eq!(Card::from_name("X3"), None);
        assert_eq!(Card::from_name("S11"), None);
        assert_eq!(Card::from_name("S07"), None);
        assert_eq!(
            write_mask(cards("S7C3H10").iter().fold(0, |m, c| m | c.bit())),
            "C3H10S7"
        );
    }

    #[test]
    fn judging_ties_bonus_and_second_tries() {
        use DecisionMode::{Cards, CardsII};
        assert_eq!(
            judge(Cards, false, &cards("S7S5"), false),
            Ok(Verdict::Success)
        );
        assert_eq!(
            judge(Cards, true, &cards("S7S5"), false),
            Ok(Verdict::Failure)
        );
        assert_eq!(
            judge(Cards, true, &cards("S8S5"), false),
            Ok(Verdict::Success)
        );
        assert_eq!(
            judge(Cards, false, &cards("S5H5"), false),
            Ok(Verdict::AwaitsMover)
        );
        assert_eq!(
            judge(Cards, false, &cards("S5H5C2"), false),
            Ok(Verdict::AwaitsReply(cards("C2")[0]))
        );
        assert_eq!(
            judge(Cards, false, &cards("S5H5C2C9"), false),
            Ok(Verdict::Failure)
        );
        assert!(judge(Cards, false, &cards("S2S9C7C1"), false).is_err());
        assert_eq!(
            judge(CardsII, false, &cards("S2S9C7C1"), false),
            Ok(Verdict::Success)
        );
        assert!(judge(CardsII, false, &cards("S2S9C1C7D1D2"), false).is_err());
        assert!(judge(Cards, false, &cards("S9S2C1C7"), false).is_err());
        assert_eq!(judge(Cards, false, &[], false), Ok(Verdict::AwaitsMover));
        // Cards II: a failing first pair awaits the thrower's choice; declining it (_c-)
        // is a failure, and is allowed nowhere else.
        assert_eq!(
            judge(CardsII, false, &cards("S2S9"), false),
            Ok(Verdict::AwaitsSecondPair)
        );
        assert_eq!(
            judge(CardsII, false, &cards("S2S9"), true),
            Ok(Verdict::Failure)
        );
        assert_eq!(
            judge(CardsII, false, &cards("S5H5C2C9"), false),
            Ok(Verdict::AwaitsSecondPair)
        );
        assert_eq!(
            judge(CardsII, false, &cards("S2S9C1C7"), false),
            Ok(Verdict::Failure)
        );
        assert!(judge(CardsII, false, &cards("S2S9C1C7"), true).is_err());
        assert!(judge(CardsII, false, &cards("S7S5"), true).is_err());
        assert!(judge(CardsII, false, &cards("S5H5"), true).is_err());
        assert!(judge(Cards, false, &cards("S2S9"), true).is_err());
    }
}
