//! The mental-poker deal for the Cards modes (issue 16): SRA-style commutative masking on
//! the ristretto255 group (curve25519-dalek), with per-card keys so that one card can be
//! opened to one player alone. `fair::cards` writes it into the record and the mails and
//! checks it.
//!
//! Cards are the 40 group elements `card_point(0..40)` (index = suit × 10 + value − 1,
//! suits C, D, H, S as in `notation/wickets.md`), made by hashing, so nobody knows a
//! discrete logarithm between two of them. The deal takes three messages:
//!
//! 1. A masks every card with its secret scalar `a` and sends them in its shuffled order;
//! 2. B shuffles those and masks position `i` with its card key `b_i`;
//! 3. A removes `a` and masks position `i` with its card key `a_i`: position `i` is now
//!    `a_i · b_i · card`.
//!
//! Position `i` opens with both card keys; each player reveals to the other the keys of
//! the positions the other may see (the other's hand, then each drawn card), so a card
//! is seen by its holder alone, and a card play reveals the player's own key for it.
//! With both seeds revealed at the end, [`verify`] recomputes the three messages and
//! gives the deal's order, which proves the shuffle was a permutation of the 40 cards.
//! All keys, permutations and masks come from a player's 32-byte secret seed (SHA-512
//! with a label), so revealing the seed reveals everything at once. A reshuffle of the
//! discards takes the same three steps on its cards ([`Dealer::mask_cards`],
//! [`Dealer::shuffle_deck`], [`Dealer::rekey_deck`], [`verify_cards`]), each player with
//! the dealer [`Dealer::reshuffle`] derives from its seed.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use sha2::{Digest, Sha512};

/// Cards in the deck.
pub const DECK: usize = 40;

/// A masked deck as mailed: 40 compressed group elements.
pub type Masked = Vec<CompressedRistretto>;

/// Why a message of the deal is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// Not the deck's number of elements (40 for the deal, 21 for a reshuffle).
    #[error("a masked deck has {size} cards here, not {found}")]
    Size {
        /// The cards the deck has.
        size: usize,
        /// The elements found.
        found: usize,
    },
    /// An element that is not a point of the group.
    #[error("position {0} is not a ristretto255 element")]
    NotAPoint(usize),
    /// Two positions hold the same element: not a permutation.
    #[error("positions {0} and {1} hold the same masked card: the deck is not a permutation")]
    Repeated(usize, usize),
    /// A message differs from what the revealed seeds give.
    #[error("step {step} differs from what the revealed seeds give at position {position}")]
    Differs {
        /// 1, 2 or 3.
        step: u8,
        /// The first position that differs.
        position: usize,
    },
}

fn wide(label: &[u8], seed: &[u8; 32], index: u64) -> [u8; 64] {
    let mut hash = Sha512::new();
    hash.update(label);
    hash.update(seed);
    hash.update(index.to_be_bytes());
    hash.finalize().into()
}

/// A non-zero scalar from the seed (zero has probability 2^-252; skipped all the same):
/// `H(label, index)` of notation/fair-chance.md, which hashes `1024 × index + r` (not
/// `index`) for `r` = 0, 1, ... Recorded games depend on these bytes.
fn scalar(label: &[u8], seed: &[u8; 32], index: u64) -> Scalar {
    (0..)
        .map(|round: u64| {
            Scalar::from_bytes_mod_order_wide(&wide(label, seed, index * 1024 + round))
        })
        .find(|s| *s != Scalar::ZERO)
        .unwrap_or(Scalar::ONE)
}

/// The group element of card `index` (0 to 39).
#[must_use]
pub fn card_point(index: usize) -> RistrettoPoint {
    RistrettoPoint::from_uniform_bytes(&wide(b"pbem card v1", &[0; 32], index as u64))
}

/// One player's side of the deal, from its secret seed.
#[derive(Clone)]
pub struct Dealer {
    seed: [u8; 32],
}

impl std::fmt::Debug for Dealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Dealer { seed: <secret> }")
    }
}

impl Dealer {
    /// The player's side from its seed (32 bytes from the operating system).
    #[must_use]
    pub fn from_seed(seed: [u8; 32]) -> Dealer {
        Dealer { seed }
    }

    /// The seed, to reveal at the end of the game.
    #[must_use]
    pub fn seed(&self) -> &[u8; 32] {
        &self.seed
    }

    /// The player's global scalar (message 1's mask), for the proof of message 1.
    pub(crate) fn global(&self) -> Scalar {
        scalar(b"pbem deal global", &self.seed, 0)
    }

    /// The player's key for position `i` of the final deck.
    #[must_use]
    pub fn card_key(&self, i: usize) -> Scalar {
        scalar(b"pbem deal card", &self.seed, i as u64)
    }

    /// The player's side of reshuffle `k` (1, 2, ...) of the discards: a dealer whose seed
    /// is the first 32 bytes of `SHA-512("pbem reshuffle v1" ‖ seed ‖ k as 8 bytes
    /// big-endian)`, so that its scalars, keys and order are new for each reshuffle and
    /// still follow from the one seed revealed at the end.
    #[must_use]
    pub fn reshuffle(&self, k: u64) -> Dealer {
        let bytes = wide(b"pbem reshuffle v1", &self.seed, k);
        let mut seed = [0; 32];
        seed.copy_from_slice(&bytes[..32]);
        Dealer { seed }
    }

    /// The player's shuffle: Fisher-Yates with indices drawn by rejection sampling.
    #[must_use]
    pub fn permutation(&self) -> [usize; DECK] {
        let order = self.permutation_of(DECK);
        std::array::from_fn(|i| order[i])
    }

    /// The player's shuffle of `n` positions (the deal's for `n` = 40): Fisher-Yates from
    /// the last position down, indices drawn by rejection sampling.
    #[must_use]
    pub fn permutation_of(&self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        let mut counter = 0u64;
        for i in (1..n).rev() {
            let bound = (i + 1) as u64;
            let limit = u64::MAX - u64::MAX % bound;
            let j = loop {
                let bytes = wide(b"pbem deal shuffle", &self.seed, counter);
                counter += 1;
                let draw = u64::from_be_bytes(bytes[..8].try_into().unwrap_or_default());
                if draw < limit {
                    break (draw % bound) as usize;
                }
            };
            order.swap(i, j);
        }
        order
    }

    /// Step 1 (the first player): every card masked with the secret scalar, shuffled.
    #[must_use]
    pub fn mask_and_shuffle(&self) -> Masked {
        let all: Vec<usize> = (0..DECK).collect();
        self.mask_cards(&all)
    }

    /// Step 1 of a deck of the given cards (a reshuffle's discards, in deck order):
    /// position `k` holds `cards[π(k)]` masked with the secret scalar.
    #[must_use]
    pub fn mask_cards(&self, cards: &[usize]) -> Masked {
        let a = self.global();
        self.permutation_of(cards.len())
            .iter()
            .map(|&from| (a * card_point(cards[from])).compress())
            .collect()
    }

    /// Step 2 (the second player): the first player's deck shuffled, position `i`
    /// masked with the card key `i`.
    pub fn shuffle_with_card_keys(
        &self,
        deck: &[CompressedRistretto],
    ) -> Result<Masked, DealError> {
        self.shuffle_deck(deck, DECK)
    }

    /// Step 2 of a deck of `size` cards.
    pub fn shuffle_deck(
        &self,
        deck: &[CompressedRistretto],
        size: usize,
    ) -> Result<Masked, DealError> {
        let points = read(deck, size)?;
        Ok(self
            .permutation_of(size)
            .iter()
            .enumerate()
            .map(|(i, &from)| (self.card_key(i) * points[from]).compress())
            .collect())
    }

    /// Step 3 (the first player): its secret scalar replaced by its card keys.
    pub fn rekey(&self, deck: &[CompressedRistretto]) -> Result<Masked, DealError> {
        self.rekey_deck(deck, DECK)
    }

    /// Step 3 of a deck of `size` cards.
    pub fn rekey_deck(
        &self,
        deck: &[CompressedRistretto],
        size: usize,
    ) -> Result<Masked, DealError> {
        let points = read(deck, size)?;
        Ok(points
            .iter()
            .zip(self.rekey_factors(size))
            .map(|(point, factor)| (factor * point).compress())
            .collect())
    }

    /// Step 3's factor for each of `size` positions: `a_i · a⁻¹`, the card key over the
    /// global scalar (what the proof of message 3 proves known, `fair::factors`).
    pub(crate) fn rekey_factors(&self, size: usize) -> Vec<Scalar> {
        let unmask = self.global().invert();
        (0..size).map(|i| self.card_key(i) * unmask).collect()
    }
}

/// Checks a masked deck as received: 40 group elements, all different.
pub fn check(deck: &[CompressedRistretto]) -> Result<(), DealError> {
    read(deck, DECK).map(|_| ())
}

/// Checks a masked deck of `size` cards (a reshuffle's): `size` group elements, all
/// different.
pub fn check_size(deck: &[CompressedRistretto], size: usize) -> Result<(), DealError> {
    read(deck, size).map(|_| ())
}

/// The deck's points, checked: `size` group elements, all different.
pub(crate) fn read(
    deck: &[CompressedRistretto],
    size: usize,
) -> Result<Vec<RistrettoPoint>, DealError> {
    if deck.len() != size {
        return Err(DealError::Size {
            size,
            found: deck.len(),
        });
    }
    let points = deck
        .iter()
        .enumerate()
        .map(|(i, c)| c.decompress().ok_or(DealError::NotAPoint(i)))
        .collect::<Result<Vec<_>, _>>()?;
    for i in 0..size {
        if let Some(j) = (i + 1..size).find(|&j| deck[j] == deck[i]) {
            return Err(DealError::Repeated(i, j));
        }
    }
    Ok(points)
}

/// The card at position `i` of the final deck, opened with both players' keys for it;
/// `None` when the keys are not the right ones (nothing is learned then).
#[must_use]
pub fn open(
    deck: &[CompressedRistretto],
    i: usize,
    first: &Scalar,
    second: &Scalar,
) -> Option<usize> {
    let point = deck.get(i)?.decompress()?;
    let card = (first * second).invert() * point;
    (0..DECK).find(|&c| card_point(c) == card)
}

/// The deal checked with both seeds revealed (at the end of the game, or for an
/// arbiter): the three messages recomputed and compared, and the cards in deal order.
pub fn verify(
    first: &Dealer,
    second: &Dealer,
    messages: [&[CompressedRistretto]; 3],
) -> Result<[usize; DECK], DealError> {
    let all: Vec<usize> = (0..DECK).collect();
    let order = verify_cards(first, second, &messages, &all)?;
    Ok(std::array::from_fn(|i| order[i]))
}

/// A deck of the given cards (a reshuffle's discards, in deck order) checked with both
/// seeds: the messages there are (1, 1 and 2, or all three) recomputed and compared;
/// with all three, the cards in the deck's final order.
pub fn verify_cards(
    first: &Dealer,
    second: &Dealer,
    messages: &[&[CompressedRistretto]],
    cards: &[usize],
) -> Result<Vec<usize>, DealError> {
    let size = cards.len();
    let mut steps = vec![first.mask_cards(cards)];
    if messages.len() > 1 {
        steps.push(second.shuffle_deck(messages[0], size)?);
    }
    if messages.len() > 2 {
        steps.push(first.rekey_deck(messages[1], size)?);
    }
    for (k, (mine, theirs)) in steps.iter().zip(messages).enumerate() {
        if let Some(position) = (0..size).find(|&i| theirs.get(i) != mine.get(i)) {
            return Err(DealError::Differs {
                step: k as u8 + 1,
                position,
            });
        }
    }
    let Some(last) = messages.get(2) else {
        return Ok(Vec::new());
    };
    (0..size)
        .map(|i| {
            open(last, i, &first.card_key(i), &second.card_key(i)).ok_or(DealError::Differs {
                step: 3,
                position: i,
            })
        })
        .collect()
}

/// A masked deck in the notation: 64 hex digits per card, back to back.
#[must_use]
pub fn to_hex(deck: &[CompressedRistretto]) -> String {
    deck.iter().map(|c| super::hex(c.as_bytes())).collect()
}

/// Reads [`to_hex`]'s form.
#[must_use]
pub fn from_hex(text: &str) -> Option<Masked> {
    let text = text.trim();
    if !text.len().is_multiple_of(64) {
        return None;
    }
    (0..text.len() / 64)
        .map(|i| super::read_value(&text[64 * i..64 * i + 64]).map(CompressedRistretto))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deal() -> (Dealer, Dealer, [Masked; 3]) {
        let (a, b) = (Dealer::from_seed([3; 32]), Dealer::from_seed([4; 32]));
        let m1 = a.mask_and_shuffle();
        let m2 = b.shuffle_with_card_keys(&m1).unwrap();
        let m3 = a.rekey(&m2).unwrap();
        (a, b, [m1, m2, m3])
    }

    #[test]
    fn the_deal_is_a_permutation_and_each_card_opens_with_both_keys() {
        let (a, b, [m1, m2, m3]) = deal();
        let mut seen = [false; DECK];
        for i in 0..DECK {
            let card = open(&m3, i, &a.card_key(i), &b.card_key(i)).unwrap();
            assert!(!seen[card], "card {card} twice");
            seen[card] = true;
        }
        let order = verify(&a, &b, [&m1, &m2, &m3]).unwrap();
        assert_eq!(
            order[0],
            open(&m3, 0, &a.card_key(0), &b.card_key(0)).unwrap()
        );
        // Another seed deals another order.
        let other = Dealer::from_seed([5; 32]);
        let o2 = other.shuffle_with_card_keys(&m1).unwrap();
        let o3 = a.rekey(&o2).unwrap();
        assert_ne!(verify(&a, &other, [&m1, &o2, &o3]).unwrap(), order);
        // Hex round trip.
        assert_eq!(from_hex(&to_hex(&m3)).unwrap(), m3);
    }

    #[test]
    fn one_key_alone_opens_nothing() {
        let (a, b, [_, _, m3]) = deal();
        // B holds its own key for position 0, not A's: its guesses open no card.
        for guess in [Scalar::ONE, b.card_key(1), a.card_key(1)] {
            assert_eq!(open(&m3, 0, &guess, &b.card_key(0)), None);
        }
        // Nor do the earlier messages show a card as it is.
        let (_, _, [m1, m2, _]) = deal();
        for i in 0..DECK {
            for c in 0..DECK {
                assert_ne!(m1[i], card_point(c).compress());
                assert_ne!(m2[i], card_point(c).compress());
            }
        }
    }

    #[test]
    fn a_swapped_or_repeated_card_is_caught() {
        let (a, b, [m1, mut m2, m3]) = deal();
        // B repeats a card (to hold it twice): refused as soon as A reads the message.
        m2[7] = m2[3];
        assert_eq!(a.rekey(&m2), Err(DealError::Repeated(3, 7)));
        // B puts in a card of its own making: caught when the seeds are revealed.
        let (_, _, [_, mut m2, _]) = deal();
        m2[5] = (Scalar::from(9u8) * card_point(0)).compress();
        let m3_forged = a.rekey(&m2).unwrap();
        assert_eq!(
            verify(&a, &b, [&m1, &m2, &m3_forged]),
            Err(DealError::Differs {
                step: 2,
                position: 5
            })
        );
        // The honest deal verifies.
        let (_, _, [_, m2, _]) = deal();
        assert!(verify(&a, &b, [&m1, &m2, &m3]).is_ok());
    }
}
