//! Fair cards by mail (issue 16): the mental-poker deal of [`super::deal`] written into
//! the record as `[%deal ...]` comment commands, the checks `pbem validate` makes of it,
//! and the steps each player's pbem adds to its mails. The protocol is specified in
//! `notation/fair-chance.md` ("Cards").
//!
//! White deals first (steps 1 and 3), Black second (step 2). Positions 0-9 of the final
//! deck are White's hand, 10-19 Black's, and the j-th card played since the deal draws
//! position 19 + j for its player. When the deck runs out (the 21st card since the deal
//! or the last reshuffle), the 21 discards are dealt again the same way, begun by the
//! player whose card emptied it (`[%deal reshuffle K maskN ...]`); their places are
//! positions 40 + 21 (K − 1) + i, so the rule of the replacements holds throughout. Each player reveals to the other its card key for
//! every position the other holds (`[%deal keys P KEY ...]`), and opens each card it
//! plays with its own key for its position (`[%deal open P KEY]`), so the record alone
//! proves that a played card was the one its player held. The seeds (`[%deal seed S]`)
//! come at the end: then [`super::deal::verify`] recomputes the three messages, which
//! proves the shuffle a permutation of the 40 cards and gives every hand, so that suits
//! followed can be checked too. Everything here works on records and a seed passed in;
//! drawing the seed and the files are the caller's.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use curve25519_dalek::ristretto::CompressedRistretto;
use curve25519_dalek::scalar::Scalar;

use std::collections::BTreeMap;

use super::deal::{self, DECK, Dealer, Masked};
use super::factors;
use super::{Fairness, Value};
use crate::games::wickets::{Card, Decision, Wickets};
use crate::games::{Color, Game};
use crate::notation::Record;
use crate::replay;

/// The comment command of the deal.
const COMMAND: &str = "deal";

/// The tag that keeps a Cards game on the honour system: `[Dealing "by hand"]` (`pbem
/// new --cards-by-hand`): no deal is started, the players write their cards.
pub const BY_HAND_TAG: &str = "Dealing";

/// The value of [`BY_HAND_TAG`].
pub const BY_HAND: &str = "by hand";

/// Whether the game starts with the whole deck (no `[FEN]` with discards or an attempt
/// under way): only then is there a deal to make.
fn fresh_deck(record: &Record) -> bool {
    record.tag("FEN").is_none_or(|fen| {
        fen.split_whitespace()
            .nth(7)
            .is_none_or(|mode| !mode.contains('/') || mode.ends_with("/-"))
    })
}

/// The cards dealt to each hand.
const HAND: usize = 10;

/// Cards in a reshuffled deck: the discards when the deck runs out, the card just played
/// included (the 21st card since the deal or the last reshuffle).
const RESHUFFLED: usize = DECK - 2 * HAND + 1;

/// Positions beyond any game (a reshuffle every 21 cards): refused when read.
const POSITIONS: usize = DECK + RESHUFFLED * 100_000;

const SUITS: [char; 4] = ['C', 'D', 'H', 'S'];

/// The card of a deal index (suit × 10 + value − 1).
fn card_of(index: usize) -> Option<Card> {
    Card::new(*SUITS.get(index / 10)?, u8::try_from(index % 10 + 1).ok()?)
}

/// The deal index of a card.
fn index_of(card: Card) -> usize {
    SUITS.iter().position(|&s| s == card.suit()).unwrap_or(0) * 10 + usize::from(card.value()) - 1
}

/// The deck a position is in and its place there: `(0, p)` for the deal's 40 positions,
/// `(k, i)` for place `i` of reshuffle `k` (positions 40 + 21 (k − 1) + i). Position
/// `20 + j` is always the replacement drawn by the j-th card played (from 0), in the deal
/// or, from the 21st card on, in a reshuffle.
fn deck_of(p: usize) -> (usize, usize) {
    if p < DECK {
        (0, p)
    } else {
        ((p - DECK) / RESHUFFLED + 1, (p - DECK) % RESHUFFLED)
    }
}

/// The first card played (counted from 0) after the deck `k` was made: 0 for the deal,
/// 21 k for reshuffle `k`. A card of that deck lies in it or in a hand from then until
/// it is played, so no card is played twice from that play on before it is.
fn period_start(k: usize) -> usize {
    RESHUFFLED * k
}

/// How a deck is named in a reason: "the deal" or "reshuffle k".
fn deck_name(k: usize) -> String {
    if k == 0 {
        "the deal".to_owned()
    } else {
        format!("reshuffle {k}")
    }
}

/// The card played (counted from 0 since the deal) that empties the deck and starts
/// reshuffle `k`: 20, 41, 62, ...
fn trigger(k: usize) -> usize {
    RESHUFFLED * k - 1
}

/// The cards reshuffle `k` deals again, in deck order: the cards played since the deal
/// or the previous reshuffle, the trigger included; `None` while the deck has not run out.
fn discards(k: usize, plays: &Plays) -> Option<Vec<usize>> {
    let from = RESHUFFLED * (k - 1);
    let mut cards: Vec<usize> = plays
        .plays
        .get(from..=trigger(k))?
        .iter()
        .map(|play| index_of(play.card))
        .collect();
    cards.sort_unstable();
    Some(cards)
}

/// A player's card key for any position (the deal's or a reshuffle's).
fn key_at(dealer: &Dealer, p: usize) -> Scalar {
    match deck_of(p) {
        (0, i) => dealer.card_key(i),
        (k, i) => dealer.reshuffle(k as u64).card_key(i),
    }
}

fn text_of(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

fn bytes_of(text: &str) -> Option<[u8; 32]> {
    B64.decode(text).ok()?.try_into().ok()
}

fn scalar_of(text: &str) -> Option<Scalar> {
    Option::from(Scalar::from_canonical_bytes(bytes_of(text)?))
}

fn side_index(side: Color) -> usize {
    usize::from(side == Color::Black)
}

/// One command of the deal's transcript.
#[derive(Clone, Debug)]
enum Step {
    /// Message 1, 2 or 3 of the deal: 40 masked cards.
    Mask(u8, Masked),
    /// Message 1, 2 or 3 of reshuffle `k` (the first number): 21 masked cards.
    Reshuffle(usize, u8, Masked),
    /// The writer's card keys for positions the other side holds.
    Keys(Vec<(usize, Scalar)>),
    /// A card played, opened with its player's key for its position.
    Open(usize, Scalar),
    /// The writer's seed, at the end.
    Seed(Value),
}

/// A command as written: its side, ply (0 before the first turn) and place in the record.
#[derive(Clone, Debug)]
struct Entry {
    side: Color,
    ply: usize,
    step: Step,
    /// The proof that rides with a message (`... proof E S0 ...`), if any.
    proof: Option<factors::Proof>,
}

/// The deal's commands of the main line, in record order; an unreadable one is an error
/// with its ply.
fn transcript(record: &Record) -> Result<Vec<Entry>, (usize, String)> {
    let mut out = Vec::new();
    super::side_commands(record, COMMAND, |ply, side, value| {
        let words: Vec<&str> = value.split_whitespace().collect();
        let short: String = value.chars().take(40).collect();
        let bad = || (ply, format!("cannot read [%{COMMAND} {short}...]"));
        let points = |cards: &[&str]| {
            cards
                .iter()
                .map(|c| bytes_of(c).map(CompressedRistretto))
                .collect::<Option<_>>()
                .ok_or_else(bad)
        };
        let (words, proof) = match words.iter().position(|&w| w == "proof") {
            Some(at) => (
                &words[..at],
                Some(
                    words[at + 1..]
                        .iter()
                        .map(|w| scalar_of(w))
                        .collect::<Option<Vec<_>>>()
                        .and_then(|s| factors::Proof::from_scalars(&s))
                        .ok_or_else(bad)?,
                ),
            ),
            None => (&words[..], None),
        };
        let step = match words {
            [mask @ ("mask1" | "mask2" | "mask3"), cards @ ..] => {
                Step::Mask(mask.as_bytes()[4] - b'0', points(cards)?)
            }
            [
                "reshuffle",
                k,
                mask @ ("mask1" | "mask2" | "mask3"),
                cards @ ..,
            ] => Step::Reshuffle(
                k.parse()
                    .ok()
                    .filter(|k| (1..100_000).contains(k))
                    .ok_or_else(bad)?,
                mask.as_bytes()[4] - b'0',
                points(cards)?,
            ),
            ["keys", pairs @ ..] if pairs.len().is_multiple_of(2) => Step::Keys(
                pairs
                    .chunks(2)
                    .map(|pair| Some((position(pair[0])?, scalar_of(pair[1])?)))
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?,
            ),
            ["open", at, key] => Step::Open(
                position(at).ok_or_else(bad)?,
                scalar_of(key).ok_or_else(bad)?,
            ),
            ["seed", seed] => Step::Seed(bytes_of(seed).ok_or_else(bad)?),
            _ => return Err(bad()),
        };
        out.push(Entry {
            side,
            ply,
            step,
            proof,
        });
        Ok(())
    })?;
    Ok(out)
}

fn position(text: &str) -> Option<usize> {
    text.parse().ok().filter(|&p| p < POSITIONS)
}

/// A card played in the record.
#[derive(Clone, Copy, Debug)]
struct Play {
    ply: usize,
    side: Color,
    card: Card,
    /// The card it answers (an opponent's reply), if any.
    lead: Option<Card>,
    /// Which of its side's cards in this ply it is (0 first).
    nth: usize,
}

/// The cards played along the main line, in order; with the side awaited at the end
/// (whose card comes next).
struct Plays {
    plays: Vec<Play>,
    awaited: Option<Color>,
}

fn plays_of(record: &Record) -> Result<Plays, (usize, String)> {
    let replayed = replay::replay_game::<Wickets>(record);
    if let Some(error) = replayed.report.errors().next() {
        return Err((0, format!("the record does not replay: {}", error.message)));
    }
    let Some(mut position) = replayed.start else {
        return Err((0, "no playable start".to_owned()));
    };
    let mut plays = Vec::new();
    for (i, turn) in replayed.turns.iter().enumerate() {
        let thrower = position.side_to_move();
        let cards: Vec<Card> = turn
            .decision
            .iter()
            .filter_map(|d| match d {
                Decision::Card(card) => Some(*card),
                _ => None,
            })
            .collect();
        for (k, &card) in cards.iter().enumerate() {
            let side = if k % 2 == 0 { thrower } else { thrower.other() };
            plays.push(Play {
                ply: i + 1,
                side,
                card,
                lead: (k % 2 == 1).then(|| cards[k - 1]),
                nth: cards[..k]
                    .iter()
                    .enumerate()
                    .filter(|(m, _)| m % 2 == k % 2)
                    .count(),
            });
        }
        position.play(turn);
    }
    let awaited = replayed
        .position
        .as_ref()
        .filter(|p| p.mode().is_cards())
        .and_then(Game::awaited_side);
    Ok(Plays { plays, awaited })
}

/// Who holds position `p` of the deal, given the plays so far (and the next one, awaited).
fn holder(p: usize, plays: &Plays) -> Option<Color> {
    if p < HAND {
        return Some(Color::White);
    }
    if p < 2 * HAND {
        return Some(Color::Black);
    }
    let j = p - 2 * HAND;
    match plays.plays.get(j) {
        Some(play) => Some(play.side),
        None if j == plays.plays.len() => plays.awaited,
        None => None,
    }
}

/// One message of a reshuffle: its writer, ply and masked deck.
type Remask = Option<(Color, usize, Masked)>;

/// The deal as the record gives it so far.
#[derive(Default)]
struct Deal {
    /// The three messages, each with its ply.
    masks: [Option<(usize, Masked)>; 3],
    /// The reshuffles begun, by number (1, 2, ...): their three messages.
    reshuffles: BTreeMap<usize, [Remask; 3]>,
    /// Each side's revealed card keys (for the other side's positions), with their place
    /// in the transcript, by position.
    keys: [BTreeMap<usize, (usize, Scalar)>; 2],
    /// Each side's opens: (ply, position, key, place in the transcript).
    opens: [Vec<(usize, usize, Scalar, usize)>; 2],
    /// Each side's seed, with its ply.
    seeds: [Option<(usize, Value)>; 2],
}

/// Reads the transcript into a [`Deal`], checking the order of the messages; `None`
/// when the record has no deal commands at all.
fn read_deal(record: &Record) -> Result<Option<Deal>, (usize, String)> {
    let entries = transcript(record)?;
    if entries.is_empty() {
        return Ok(None);
    }
    let mut deal = Deal::default();
    for (order, entry) in entries.into_iter().enumerate() {
        let (side, ply) = (entry.side, entry.ply);
        let s = side_index(side);
        let proof = entry.proof.as_ref();
        if proof.is_some() && !matches!(entry.step, Step::Mask(3, _) | Step::Reshuffle(_, 3, _)) {
            return Err((ply, "a proof rides only with a message 3".to_owned()));
        }
        match entry.step {
            Step::Mask(step, masked) => {
                let dealer = if step == 2 {
                    Color::Black
                } else {
                    Color::White
                };
                let index = usize::from(step - 1);
                if side != dealer {
                    return Err((ply, format!("message {step} of the deal is {dealer}'s")));
                }
                if deal.masks[index].is_some() {
                    return Err((ply, format!("message {step} of the deal comes twice")));
                }
                if index > 0 && deal.masks[index - 1].is_none() {
                    return Err((
                        ply,
                        format!("message {step} of the deal comes before message {index}"),
                    ));
                }
                deal::check(&masked).map_err(|e| (ply, format!("message {step}: {e}")))?;
                if let (3, Some((_, m2))) = (step, &deal.masks[1]) {
                    factors::verify(m2, &masked, proof)
                        .map_err(|e| (ply, format!("message 3 of the deal: {e}")))?;
                }
                deal.masks[index] = Some((ply, masked));
            }
            Step::Reshuffle(k, step, masked) => {
                if deal.masks[2].is_none() {
                    return Err((
                        ply,
                        format!(
                            "message {step} of reshuffle {k} comes before the deal is complete"
                        ),
                    ));
                }
                let messages = deal.reshuffles.entry(k).or_default();
                let index = usize::from(step - 1);
                if messages[index].is_some() {
                    return Err((ply, format!("message {step} of reshuffle {k} comes twice")));
                }
                if index > 0 && messages[index - 1].is_none() {
                    return Err((
                        ply,
                        format!("message {step} of reshuffle {k} comes before message {index}"),
                    ));
                }
                if let Some((first, ..)) = &messages[0] {
                    let writer = if step == 2 { first.other() } else { *first };
                    if side != writer {
                        return Err((
                            ply,
                            format!(
                                "message {step} of reshuffle {k} is {writer}'s ({first} began it)"
                            ),
                        ));
                    }
                }
                deal::check_size(&masked, RESHUFFLED)
                    .map_err(|e| (ply, format!("message {step} of reshuffle {k}: {e}")))?;
                if let (3, Some((_, _, m2))) = (step, &messages[1]) {
                    factors::verify(m2, &masked, proof)
                        .map_err(|e| (ply, format!("message 3 of reshuffle {k}: {e}")))?;
                }
                messages[index] = Some((side, ply, masked));
            }
            Step::Keys(keys) => {
                for (p, key) in keys {
                    if let Some(why) = not_ready(&deal, side, p) {
                        return Err((ply, why));
                    }
                    if deal.keys[s].contains_key(&p) {
                        return Err((
                            ply,
                            format!("{side} reveals its key for position {p} twice"),
                        ));
                    }
                    deal.keys[s].insert(p, (order, key));
                }
            }
            Step::Open(p, key) => deal.opens[s].push((ply, p, key, order)),
            Step::Seed(seed) => {
                if deal.seeds[s].is_some() {
                    return Err((ply, format!("{side} reveals its seed twice")));
                }
                deal.seeds[s] = Some((ply, seed));
            }
        }
    }
    Ok(Some(deal))
}

/// Why `side` may not reveal its key for position `p` yet (its last message of that
/// position's deck not written), if so.
fn not_ready(deal: &Deal, side: Color, p: usize) -> Option<String> {
    match deck_of(p) {
        (0, _) => {
            let last = if side == Color::White { 2 } else { 1 };
            deal.masks[last].is_none().then(|| {
                format!(
                    "{side} reveals card keys before its message {} of the deal",
                    last + 1
                )
            })
        }
        (k, _) => {
            let messages = deal.reshuffles.get(&k);
            let first = messages.and_then(|m| m[0].as_ref()).map(|m| m.0);
            let last = if first == Some(side) { 2 } else { 1 };
            messages.is_none_or(|m| m[last].is_none()).then(|| {
                format!(
                    "{side} reveals its key for position {p} before its message {} of \
                         reshuffle {k}",
                    last + 1
                )
            })
        }
    }
}

/// Who has not revealed its seed, as `validate` and `status` say it: "Black has not
/// revealed its seed", "White and Black have not revealed their seeds".
fn unrevealed(deal: &Deal) -> String {
    match deal.seeds {
        [None, None] => "White and Black have not revealed their seeds".to_owned(),
        [None, _] => "White has not revealed its seed".to_owned(),
        _ => "Black has not revealed its seed".to_owned(),
    }
}

/// The final masked deck of position `p` (the deal's or its reshuffle's message 3) and
/// its place in it, when written.
fn final_deck(deal: &Deal, p: usize) -> Option<(&Masked, usize)> {
    match deck_of(p) {
        (0, i) => deal.masks[2].as_ref().map(|(_, m)| (m, i)),
        (k, i) => deal.reshuffles.get(&k)?[2].as_ref().map(|(_, _, m)| (m, i)),
    }
}

/// Checks a Cards game's deal: every card played opened from the masked deal with both
/// players' keys and held by its player; with both seeds, the three messages and every
/// key recomputed, and suits followed.
pub(super) fn check(record: &Record) -> Fairness {
    match check_deal(record) {
        Ok(fairness) => fairness,
        Err((ply, reason)) => Fairness::Broken { ply, reason },
    }
}

fn check_deal(record: &Record) -> Result<Fairness, (usize, String)> {
    let Some(deal) = read_deal(record)? else {
        return Ok(Fairness::NotProven(
            "no deal transcript (the cards are written by their players)".to_owned(),
        ));
    };
    let plays = plays_of(record)?;
    check_reshuffles(&deal, &plays)?;
    let opened = open_plays(&deal, &plays)?;
    // Keys are revealed only for the other side's cards.
    for side in [Color::White, Color::Black] {
        for &p in deal.keys[side_index(side)].keys() {
            if holder(p, &plays).is_some_and(|h| h == side) {
                let ply = entry_ply(record, side, p);
                return Err((
                    ply,
                    format!("{side} reveals its key for position {p}, its own card"),
                ));
            }
        }
    }
    let reshuffles = deal.reshuffles.values().filter(|m| m[2].is_some()).count();
    let (Some((_, white)), Some((_, black))) = (deal.seeds[0], deal.seeds[1]) else {
        // One side's seed opens every card the other side opened to it: the record is
        // then checked as that side's pbem checks it (a card dealt twice shows with the
        // victim's seed alone, whether or not the cheater reveals its own). With both,
        // the messages are recomputed below.
        for side in [Color::White, Color::Black] {
            if let Some((_, seed)) = deal.seeds[side_index(side)] {
                check_own(record, side, &Dealer::from_seed(seed))?;
            }
        }
        let over = !matches!(record.tag("Result").map(str::trim), None | Some("*"));
        return Ok(Fairness::NotProven(format!(
            "{} ({} card{} opened from the masked deal{} and checked; {})",
            unrevealed(&deal),
            opened.len(),
            if opened.len() == 1 { "" } else { "s" },
            match reshuffles {
                0 => String::new(),
                1 => " and its reshuffle".to_owned(),
                n => format!(" and its {n} reshuffles"),
            },
            if over {
                "the game is over, and the shuffle and suits followed stay unproven until \
                 both seeds are in"
            } else {
                "the shuffle and suits followed are proven once both seeds are in, at the \
                 end of the game or by `pbem fair reveal`"
            }
        )));
    };
    let dealers = [Dealer::from_seed(white), Dealer::from_seed(black)];
    let masks: Vec<&(usize, Masked)> = deal.masks.iter().flatten().collect();
    let [m1, m2, m3] = masks.as_slice() else {
        return Err((
            0,
            "the seeds are revealed, but the deal is not complete".to_owned(),
        ));
    };
    let order = deal::verify(&dealers[0], &dealers[1], [&m1.1, &m2.1, &m3.1]).map_err(|e| {
        let ply = match e {
            deal::DealError::Differs { step, .. } => masks[usize::from(step - 1)].0,
            _ => m3.0,
        };
        (ply, format!("the deal against the revealed seeds: {e}"))
    })?;
    // Each reshuffle recomputed from the seeds, as far as it went: its final order.
    let mut orders: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (&k, messages) in &deal.reshuffles {
        let written: Vec<&(Color, usize, Masked)> = messages.iter().flatten().collect();
        let Some(&&(first, ..)) = written.first() else {
            continue;
        };
        let cards = discards(k, &plays).unwrap_or_default();
        let decks: Vec<&[CompressedRistretto]> = written.iter().map(|m| m.2.as_slice()).collect();
        let order = deal::verify_cards(
            &dealers[side_index(first)].reshuffle(k as u64),
            &dealers[side_index(first.other())].reshuffle(k as u64),
            &decks,
            &cards,
        )
        .map_err(|e| {
            let ply = match e {
                deal::DealError::Differs { step, .. } => written[usize::from(step - 1)].1,
                _ => written[written.len() - 1].1,
            };
            (
                ply,
                format!("reshuffle {k} against the revealed seeds: {e}"),
            )
        })?;
        orders.insert(k, order);
    }
    for side in [Color::White, Color::Black] {
        let dealer = &dealers[side_index(side)];
        for (&p, &(_, k)) in &deal.keys[side_index(side)] {
            if k != key_at(dealer, p) {
                return Err((
                    entry_ply(record, side, p),
                    format!("{side}'s key for position {p} is not the one its seed gives"),
                ));
            }
        }
        for &(ply, p, key, _) in &deal.opens[side_index(side)] {
            if key != key_at(dealer, p) {
                return Err((
                    ply,
                    format!("{side}'s opening key for position {p} is not the one its seed gives"),
                ));
            }
        }
    }
    // Suits followed: each reply against the whole hand at that moment.
    let card_at = |p: usize| match deck_of(p) {
        (0, i) => card_of(order[i]),
        (k, i) => orders
            .get(&k)
            .and_then(|o| o.get(i))
            .and_then(|&c| card_of(c)),
    };
    let mut hands: [Vec<usize>; 2] = [(0..HAND).collect(), (HAND..2 * HAND).collect()];
    for (j, (play, &p)) in plays.plays.iter().zip(&opened).enumerate() {
        let hand = &mut hands[side_index(play.side)];
        if let Some(lead) = play.lead
            && play.card.suit() != lead.suit()
        {
            let held: Vec<String> = hand
                .iter()
                .filter_map(|&q| card_at(q))
                .filter(|c| c.suit() == lead.suit())
                .map(|c| c.to_string())
                .collect();
            if !held.is_empty() {
                return Err((
                    play.ply,
                    format!(
                        "{} must follow suit: {} answers {lead} while {} holds {}",
                        play.side,
                        play.card,
                        play.side,
                        held.join(" ")
                    ),
                ));
            }
        }
        hand.retain(|&q| q != p);
        hand.push(2 * HAND + j);
    }
    Ok(Fairness::DealProven {
        cards: opened.len(),
        reshuffles,
    })
}

/// Checks who began each reshuffle and when: the player of the card that emptied the
/// deck, at or after that card's ply.
fn check_reshuffles(deal: &Deal, plays: &Plays) -> Result<(), (usize, String)> {
    for (&k, messages) in &deal.reshuffles {
        let Some((first, ply, _)) = &messages[0] else {
            continue;
        };
        let Some(emptied) = plays.plays.get(trigger(k)) else {
            return Err((
                *ply,
                format!(
                    "reshuffle {k} begins before the deck ran out (the {}th card since the deal \
                     empties it; {} played)",
                    trigger(k) + 1,
                    plays.plays.len()
                ),
            ));
        };
        if emptied.side != *first || *ply < emptied.ply {
            return Err((
                *ply,
                format!(
                    "reshuffle {k} is begun by {}, whose {} emptied the deck at ply {}",
                    emptied.side, emptied.card, emptied.ply
                ),
            ));
        }
    }
    Ok(())
}

/// The ply of `side`'s keys command that reveals position `p` (0 when not found).
fn entry_ply(record: &Record, side: Color, p: usize) -> usize {
    transcript(record)
        .unwrap_or_default()
        .into_iter()
        .find(|e| {
            e.side == side && matches!(&e.step, Step::Keys(k) if k.iter().any(|(q, _)| *q == p))
        })
        .map_or(0, |e| e.ply)
}

/// Opens every card played: the position its player named, held by that player, opened
/// with the other side's key revealed before and the player's own: the card played (and,
/// for a reshuffle's position, one of that reshuffle's discards). Returns the position
/// of each play.
fn open_plays(deal: &Deal, plays: &Plays) -> Result<Vec<usize>, (usize, String)> {
    let mut positions = Vec::with_capacity(plays.plays.len());
    let mut played = std::collections::BTreeSet::new();
    // The last play of each card so far (its index in `plays`).
    let mut last: [Option<usize>; DECK] = [None; DECK];
    for (j, play) in plays.plays.iter().enumerate() {
        let (side, ply) = (play.side, play.ply);
        let Some(&(_, p, key, order)) = deal.opens[side_index(side)]
            .iter()
            .filter(|o| o.0 == ply)
            .nth(play.nth)
        else {
            return Err((
                ply,
                format!(
                    "{side}'s card {} carries no opening key ([%deal open]): it was written by hand",
                    play.card
                ),
            ));
        };
        if deal.masks[2].is_none() {
            return Err((
                ply,
                format!("{side} plays {} before the deal is complete", play.card),
            ));
        }
        let drawn = p < 2 * HAND + j;
        let again = played.contains(&p);
        if holder(p, plays) != Some(side) || !drawn || again {
            return Err((
                ply,
                format!(
                    "{side} plays {} from position {p}, which is not in its hand{}",
                    play.card,
                    if again { " (played before)" } else { "" }
                ),
            ));
        }
        let Some((deck, i)) = final_deck(deal, p) else {
            return Err((
                ply,
                format!(
                    "{side} plays {} from position {p} before reshuffle {} is complete",
                    play.card,
                    deck_of(p).0
                ),
            ));
        };
        let Some(&(revealed, theirs)) = deal.keys[side_index(side.other())].get(&p) else {
            return Err((
                ply,
                format!("{} never revealed its key for position {p}", side.other()),
            ));
        };
        if revealed > order {
            return Err((
                ply,
                format!(
                    "{side} opens position {p} before {} revealed its key for it",
                    side.other()
                ),
            ));
        }
        match deal::open(deck, i, &key, &theirs).and_then(card_of) {
            None => {
                return Err((
                    ply,
                    format!(
                        "position {p} does not open with the keys revealed for it (an edited key): \
                         {side}'s {} is not proven",
                        play.card
                    ),
                ));
            }
            Some(card) if card != play.card => {
                return Err((
                    ply,
                    format!(
                        "{side} plays {}, but position {p} of its hand holds {card} (a swapped card)",
                        play.card
                    ),
                ));
            }
            Some(card) => {
                let (k, _) = deck_of(p);
                if k > 0 && !discards(k, plays).is_some_and(|cards| cards.contains(&index_of(card)))
                {
                    return Err((
                        ply,
                        format!(
                            "{side} plays {card} from position {p} of reshuffle {k}, but {card} \
                             was not among the discards reshuffled"
                        ),
                    ));
                }
                // The card lay in the deck or a hand from its deck's start (the deal or
                // reshuffle k) until now: nobody can have played it in between.
                if let Some(earlier) = last[index_of(card)]
                    .filter(|&i| i >= period_start(k))
                    .map(|i| &plays.plays[i])
                {
                    return Err((
                        ply,
                        format!(
                            "{card} is played twice since {}: by {} at ply {}, and by {side} \
                             from position {p} (a card dealt twice)",
                            deck_name(k),
                            earlier.side,
                            earlier.ply
                        ),
                    ));
                }
            }
        }
        last[index_of(play.card)] = Some(j);
        played.insert(p);
        positions.push(p);
    }
    Ok(positions)
}

/// Whether the record carries a fair deal (any `[%deal]` command).
#[must_use]
pub fn has_deal(record: &Record) -> bool {
    transcript(record).is_ok_and(|entries| !entries.is_empty())
}

fn push(record: &mut Record, side: Color, text: &str) {
    super::push_side_command(record, side, COMMAND, text);
}

/// ` proof E S0 ...`: the proof written after message 3's elements.
fn proof_text(proof: &factors::Proof) -> String {
    let scalars: Vec<String> = proof.scalars().map(|s| text_of(s.as_bytes())).collect();
    format!(" proof {}", scalars.join(" "))
}

fn mask_text(step: u8, deck: &[CompressedRistretto]) -> String {
    let cards: Vec<String> = deck.iter().map(|c| text_of(c.as_bytes())).collect();
    format!("mask{step} {}", cards.join(" "))
}

/// Adds every step of the deal `side` can take now (after the last turn): White's first
/// message when the record has none (and no card was played by hand); Black's second with
/// its keys for White's hand; White's third with its keys for Black's hand; then `side`'s
/// keys for every position the other side holds (or draws with the card it is awaited
/// for) that it has not revealed yet, and its seed once the game is over. Says whether
/// the record changed; an error when the record's deal is broken or a message is not a
/// deck.
pub fn advance(record: &mut Record, side: Color, dealer: &Dealer) -> Result<bool, String> {
    if !super::uses_cards(record) {
        return Ok(false);
    }
    let deal = match read_deal(record).map_err(|(ply, why)| format!("ply {ply}: {why}"))? {
        Some(deal) => deal,
        None => {
            let plays = plays_of(record).map_err(|(_, why)| why)?;
            if side != Color::White
                || !plays.plays.is_empty()
                || !fresh_deck(record)
                || record.tag("Deal").is_some()
                || record
                    .tag(BY_HAND_TAG)
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case(BY_HAND))
            {
                return Ok(false);
            }
            push(record, side, &mask_text(1, &dealer.mask_and_shuffle()));
            return Ok(true);
        }
    };
    let mut changed = false;
    match (side, &deal.masks) {
        (Color::Black, [Some((_, m1)), None, _]) => {
            let m2 = dealer
                .shuffle_with_card_keys(m1)
                .map_err(|e| e.to_string())?;
            push(record, side, &mask_text(2, &m2));
            changed = true;
        }
        (Color::White, [Some(_), Some((_, m2)), None]) => {
            let (m3, proof) =
                factors::rekey_and_prove(dealer, m2, DECK).map_err(|e| e.to_string())?;
            push(record, side, &(mask_text(3, &m3) + &proof_text(&proof)));
            changed = true;
        }
        _ => {}
    }
    let plays = plays_of(record).map_err(|(_, why)| why)?;
    // Reshuffles: the player whose card emptied the deck writes message 1 (the discards
    // masked and shuffled) and 3, the other side message 2.
    for k in (1..).take_while(|&k| trigger(k) < plays.plays.len()) {
        let first = plays.plays[trigger(k)].side;
        let mine = dealer.reshuffle(k as u64);
        let none = [None, None, None];
        let messages = deal.reshuffles.get(&k).unwrap_or(&none);
        let step = match messages {
            [None, ..] if side == first => {
                let cards = discards(k, &plays).unwrap_or_default();
                Some((1, mine.mask_cards(&cards), String::new()))
            }
            [Some((_, _, m1)), None, _] if side != first => Some((
                2,
                mine.shuffle_deck(m1, RESHUFFLED)
                    .map_err(|e| e.to_string())?,
                String::new(),
            )),
            [Some(_), Some((_, _, m2)), None] if side == first => {
                let (m3, proof) =
                    factors::rekey_and_prove(&mine, m2, RESHUFFLED).map_err(|e| e.to_string())?;
                Some((3, m3, proof_text(&proof)))
            }
            _ => None,
        };
        if let Some((step, masked, proof)) = step {
            push(
                record,
                side,
                &format!("reshuffle {k} {}{proof}", mask_text(step, &masked)),
            );
            changed = true;
        }
    }
    // Keys for every position the other side holds (or draws with the card it is
    // awaited for) whose deck has this side's last message.
    let deal = read_deal(record)
        .map_err(|(ply, why)| format!("ply {ply}: {why}"))?
        .unwrap_or_default();
    let mine = &deal.keys[side_index(side)];
    let owed: Vec<String> = (0..=2 * HAND + plays.plays.len())
        .filter(|&p| {
            !mine.contains_key(&p)
                && holder(p, &plays) == Some(side.other())
                && not_ready(&deal, side, p).is_none()
        })
        .map(|p| format!("{p} {}", text_of(key_at(dealer, p).as_bytes())))
        .collect();
    if !owed.is_empty() {
        push(record, side, &format!("keys {}", owed.join(" ")));
        changed = true;
    }
    check_own(record, side, dealer).map_err(|(ply, why)| format!("ply {ply}: {why}"))?;
    let over = !matches!(record.tag("Result").map(str::trim), None | Some("*"));
    if over && deal.seeds[side_index(side)].is_none() {
        reveal_seed(record, side, dealer);
        changed = true;
    }
    Ok(changed)
}

/// Checks, as only `side`'s pbem can before the seeds, every card of `side` that the
/// other side opened to it with its key: that the key opens its position to a card (in
/// a reshuffle, one of its discards), no card twice among them in a deck, and no card
/// twice in a deck period: a card `side` holds (or draws with its awaited card) that was
/// played since its deck was made (the deal or its reshuffle), by either side, is a card
/// dealt twice. The reason's ply is that of the mail that showed it (the later of the
/// key and the play); `side`'s own plays are the record's to check ([`check`]).
fn check_own(record: &Record, side: Color, dealer: &Dealer) -> Result<(), (usize, String)> {
    let Some(deal) = read_deal(record)? else {
        return Ok(());
    };
    let plays = plays_of(record)?;
    let played = open_plays(&deal, &plays)?;
    let other = side.other();
    let mut seen = BTreeMap::new();
    for (&p, (_, key)) in &deal.keys[side_index(other)] {
        let Some((deck, i)) = final_deck(&deal, p) else {
            continue;
        };
        let k = deck_of(p).0;
        let at = || entry_ply(record, other, p);
        let Some(card) = deal::open(deck, i, &key_at(dealer, p), key) else {
            return Err((
                at(),
                format!(
                    "{other}'s key for position {p}, one of {side}'s cards, opens no card (an \
                     edited key, or a card not of the deck)"
                ),
            ));
        };
        let name = card_of(card).map(|c| c.to_string()).unwrap_or_default();
        if k > 0 && !discards(k, &plays).is_some_and(|cards| cards.contains(&card)) {
            return Err((
                at(),
                format!(
                    "position {p} of {side}'s cards opens to {name}, which was not among the \
                     discards of reshuffle {k}"
                ),
            ));
        }
        if let Some(q) = seen.insert((k, card), p) {
            return Err((
                at(),
                format!("positions {q} and {p} of {side}'s cards open to the same card, {name}"),
            ));
        }
        if played.contains(&p) {
            continue;
        }
        let Some((j, twice)) = plays
            .plays
            .iter()
            .enumerate()
            .skip(period_start(k))
            .find(|(_, play)| index_of(play.card) == card)
        else {
            continue;
        };
        // Held before that play (dealt, or drawn by an earlier card), or drawn after it.
        let held = p < 2 * HAND || p - 2 * HAND < j;
        let reason = if held {
            format!(
                "{} plays {name}, but {side} holds {name} (position {p}): a card dealt twice",
                twice.side
            )
        } else {
            format!(
                "position {p}, drawn into {side}'s hand, opens to {name}, which {} played at \
                 ply {} since {}: a card dealt twice",
                twice.side,
                twice.ply,
                deck_name(k)
            )
        };
        return Err((at().max(twice.ply), reason));
    }
    Ok(())
}

/// Checks the record as `side`'s own pbem can (with its seed, before the opponent's):
/// [`crate::fair::check`], then every card the other side opened to `side` against the
/// cards played (a card dealt twice, an edited key): a mail that breaks either is refused.
#[must_use]
pub fn check_as(record: &Record, side: Color, dealer: &Dealer) -> Fairness {
    match check(record) {
        Fairness::Broken { ply, reason } => Fairness::Broken { ply, reason },
        fairness => match check_own(record, side, dealer) {
            Ok(()) => fairness,
            Err((ply, reason)) => Fairness::Broken { ply, reason },
        },
    }
}

/// Writes `side`'s seed (at the end of the game, or for an arbiter): with both seeds in,
/// `pbem validate` proves the whole deal. Every card of `side` is known to the other
/// side from then on.
pub fn reveal_seed(record: &mut Record, side: Color, dealer: &Dealer) {
    push(record, side, &format!("seed {}", text_of(dealer.seed())));
}

/// Whether `side` has revealed its seed in this record.
#[must_use]
pub fn seed_revealed(record: &Record, side: Color) -> bool {
    read_deal(record).is_ok_and(|deal| deal.is_some_and(|d| d.seeds[side_index(side)].is_some()))
}

/// A player's hand as its own pbem sees it: the cards it holds (position and card), and
/// how many drawn cards wait for the other side's key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hand {
    /// The cards held, with their positions in the deal, in deck order.
    pub cards: Vec<(usize, Card)>,
    /// Drawn cards that open with the other side's next mail.
    pub pending: usize,
    /// Whether the deal has given this side its hand yet.
    pub dealt: bool,
}

impl Hand {
    /// The cards, written as the notation does: `C3 D7 S10`.
    #[must_use]
    pub fn text(&self) -> String {
        let mut cards: Vec<Card> = self.cards.iter().map(|&(_, c)| c).collect();
        cards.sort();
        let names: Vec<String> = cards.iter().map(ToString::to_string).collect();
        names.join(" ")
    }
}

/// `side`'s hand now, opened with its own keys and the ones the other side revealed
/// (drawn cards whose key or reshuffle is still to come are `pending`); `None` when the
/// record has no deal.
#[must_use]
pub fn hand(record: &Record, side: Color, dealer: &Dealer) -> Option<Hand> {
    let deal = read_deal(record).ok()??;
    let plays = plays_of(record).ok()?;
    if deal.masks[2].is_none() {
        return Some(Hand::default());
    }
    let positions = open_plays(&deal, &plays).ok()?;
    let theirs = &deal.keys[side_index(side.other())];
    let mut hand = Hand {
        dealt: true,
        ..Hand::default()
    };
    let drawn = 2 * HAND + plays.plays.len();
    for p in (0..drawn).filter(|&p| holder(p, &plays) == Some(side) && !positions.contains(&p)) {
        match (theirs.get(&p), final_deck(&deal, p)) {
            (Some((_, key)), Some((deck, i))) => {
                let card = deal::open(deck, i, &key_at(dealer, p), key).and_then(card_of)?;
                hand.cards.push((p, card));
            }
            _ if p < 2 * HAND => hand.dealt = false,
            _ => hand.pending += 1,
        }
    }
    if !hand.dealt {
        hand.cards.clear();
    }
    hand.cards.sort_by_key(|&(_, c)| c);
    Some(hand)
}

/// The cards `side` may play from its hand now (in reply to `lead`, following suit when
/// it holds one), in deck order.
#[must_use]
pub fn playable(hand: &Hand, lead: Option<Card>) -> Vec<Card> {
    let all: Vec<Card> = hand.cards.iter().map(|&(_, c)| c).collect();
    match lead {
        Some(lead) if all.iter().any(|c| c.suit() == lead.suit()) => all
            .into_iter()
            .filter(|c| c.suit() == lead.suit())
            .collect(),
        _ => all,
    }
}

/// After `side`'s turn or card (`record` is `before` plus it): checks each card `side`
/// added against its hand (held, suit followed) and writes its opening key; refuses a
/// scoring attempt while `side`'s hand is not dealt yet. Then [`advance`].
pub fn after_move(
    before: &Record,
    record: &mut Record,
    side: Color,
    dealer: &Dealer,
) -> Result<(), String> {
    if !has_deal(before) {
        return Ok(());
    }
    let old = plays_of(before).map_err(|(_, why)| why)?;
    let new = plays_of(record).map_err(|(_, why)| why)?;
    let attempt_open = new.awaited.is_some() || new.plays.len() > old.plays.len();
    let Some(mut hand) = hand(before, side, dealer) else {
        return Ok(());
    };
    if attempt_open && !hand.dealt {
        return Err(
            "the deal has not given you your hand yet (it rides in the first three mails of \
             the game: White's, Black's, White's); play a turn without a scoring attempt \
             until then"
                .to_owned(),
        );
    }
    for play in &new.plays[old.plays.len()..] {
        if play.side != side {
            return Err(format!(
                "{} is {}'s card to play, not yours",
                play.card, play.side
            ));
        }
        let Some(&(p, _)) = hand.cards.iter().find(|(_, c)| *c == play.card) else {
            return Err(format!(
                "you do not hold {}: your hand is {}",
                play.card,
                hand.text()
            ));
        };
        if !playable(&hand, play.lead).contains(&play.card) {
            return Err(format!(
                "you must follow suit: {} answers {} while you hold {}",
                play.card,
                play.lead.map(|c| c.to_string()).unwrap_or_default(),
                Hand {
                    cards: hand
                        .cards
                        .iter()
                        .filter(|(_, c)| play.lead.is_some_and(|l| l.suit() == c.suit()))
                        .copied()
                        .collect(),
                    ..Hand::default()
                }
                .text()
            ));
        }
        hand.cards.retain(|&(q, _)| q != p);
        push(
            record,
            side,
            &format!("open {p} {}", text_of(key_at(dealer, p).as_bytes())),
        );
    }
    advance(record, side, dealer)?;
    if let Fairness::Broken { ply, reason } = check(record) {
        return Err(format!("ply {ply}: {reason}"));
    }
    Ok(())
}

/// The cards `side` may play now from its hand, when the record's last turn awaits
/// `side`'s card (in reply to the lead, following suit when it holds one); `None` when
/// nothing awaits `side`'s card or the hand is not known.
#[must_use]
pub fn may_play(record: &Record, side: Color, dealer: &Dealer) -> Option<Vec<Card>> {
    let replayed = replay::replay_game::<Wickets>(record);
    let position = replayed.position?;
    if position.awaited_side() != Some(side) || position.awaits_roll() {
        return None;
    }
    let hand = hand(record, side, dealer).filter(|h| h.dealt)?;
    let lead = if position.side_to_move() == side {
        replayed.turns.last().and_then(|turn| {
            turn.decision.iter().rev().find_map(|d| match d {
                Decision::Card(card) => Some(*card),
                _ => None,
            })
        })
    } else {
        None
    };
    Some(playable(&hand, lead))
}

/// Whether the record's last turn is a Cards II attempt whose thrower may decline the
/// second pair (`_c-`).
#[must_use]
pub fn may_decline(record: &Record) -> bool {
    replay::replay_game::<Wickets>(record)
        .position
        .is_some_and(|position| position.awaited_parts().iter().any(|part| part == "-"))
}

#[cfg(test)]
mod tests;
