//! The proof that rides with message 3 of the deal and of every reshuffle (issue 32):
//! its writer knows, for every position `i`, the factor `c_i` with `M3[i] = c_i · M2[i]`
//! (for an honest writer `c_i = a_i · a⁻¹`, its card key over its global scalar). Without
//! it, White (or a reshuffle's first player), who holds the other side's keys for its own
//! places before it writes message 3, could write `a_i · b_i · card(c)` at one of them and
//! deal itself any card `c`; with a factor it knows, a position can open to a card other
//! than its own only if it knows a discrete logarithm between two card points.
//!
//! One Schnorr proof per position, batched under one Fiat-Shamir challenge (SHA-512 on
//! curve25519-dalek, as the deal): commitments `R_i = r_i · M2[i]`, challenge `e` the
//! SHA-512 of a label, the deck's size, M2, M3 and every `R_i` (reduced modulo ℓ),
//! answers `s_i = r_i + e · c_i`. The verifier recomputes `R_i = s_i · M2[i] − e · M3[i]`
//! and the hash. The proof is `e` and the `s_i`: 32 + 32 n bytes. The nonces `r_i` come
//! from the writer's seed and the two messages (as every other secret of the deal comes
//! from the seed), so a proof is written again the same and no nonce serves two
//! challenges. notation/fair-chance.md ("The proof of message 3") gives the bytes.

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use sha2::{Digest, Sha512};

use super::deal::{self, DealError, Dealer, Masked};

/// The label that begins the challenge's hash.
const CHALLENGE_LABEL: &[u8] = b"pbem rekey proof v1";

/// The label that begins each nonce's hash.
const NONCE_LABEL: &[u8] = b"pbem rekey proof nonce";

/// The proof that message 3 is message 2 under factors its writer knows: the challenge
/// `e` and one answer `s_i` per position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The challenge `e`.
    pub challenge: Scalar,
    /// The answers `s_i`, one per position.
    pub answers: Vec<Scalar>,
}

/// Why a message 3 and its proof are refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FactorError {
    /// Message 2 or 3 is not a deck (size, element, repeated element).
    #[error(transparent)]
    Deck(#[from] DealError),
    /// No proof rides with the message.
    #[error(
        "it carries no proof that its writer knows its factors over message 2 (`proof E S0 \
         ...` after its elements; a forged or a hand-made message 3)"
    )]
    Missing,
    /// Not one answer per position.
    #[error("its proof has {found} answers, not {size}")]
    Size {
        /// The deck's positions.
        size: usize,
        /// The answers found.
        found: usize,
    },
    /// The recomputed challenge differs: some position is not message 2's under a factor
    /// the writer knows.
    #[error(
        "its proof of its factors over message 2 does not hold: a position is not message \
         2's element under a factor its writer knows (a card put in by its writer)"
    )]
    Fails,
}

/// Message 3 of a deck of `size` cards (the deal's or a reshuffle's) written by `dealer`
/// from message 2, with its proof.
pub fn rekey_and_prove(
    dealer: &Dealer,
    from: &[CompressedRistretto],
    size: usize,
) -> Result<(Masked, Proof), DealError> {
    let to = dealer.rekey_deck(from, size)?;
    let points = deal::read(from, size)?;
    let factors = dealer.rekey_factors(size);
    let mut nonce_hash = Sha512::new();
    nonce_hash.update(NONCE_LABEL);
    nonce_hash.update(dealer.seed());
    from.iter()
        .chain(&to)
        .for_each(|c| nonce_hash.update(c.as_bytes()));
    let nonces: Vec<Scalar> = (0..size)
        .map(|i| {
            let mut hash = nonce_hash.clone();
            hash.update((i as u64).to_be_bytes());
            Scalar::from_bytes_mod_order_wide(&hash.finalize().into())
        })
        .collect();
    let commitments: Vec<RistrettoPoint> = nonces.iter().zip(&points).map(|(r, m)| r * m).collect();
    let challenge = challenge(from, &to, &commitments);
    let answers = nonces
        .iter()
        .zip(&factors)
        .map(|(r, c)| r + challenge * c)
        .collect();
    Ok((to, Proof { challenge, answers }))
}

/// Checks message 3 (`to`) against message 2 (`from`) and its proof (`None` when the
/// message carries none, which is refused).
pub fn verify(
    from: &[CompressedRistretto],
    to: &[CompressedRistretto],
    proof: Option<&Proof>,
) -> Result<(), FactorError> {
    let size = from.len();
    let before = deal::read(from, size)?;
    let after = deal::read(to, size)?;
    let proof = proof.ok_or(FactorError::Missing)?;
    if proof.answers.len() != size {
        return Err(FactorError::Size {
            size,
            found: proof.answers.len(),
        });
    }
    let commitments: Vec<RistrettoPoint> = proof
        .answers
        .iter()
        .zip(before.iter().zip(&after))
        .map(|(s, (m2, m3))| s * m2 - proof.challenge * m3)
        .collect();
    if challenge(from, to, &commitments) == proof.challenge {
        Ok(())
    } else {
        Err(FactorError::Fails)
    }
}

impl Proof {
    /// The proof from its scalars as written: `e` first, then the answers.
    #[must_use]
    pub fn from_scalars(scalars: &[Scalar]) -> Option<Proof> {
        let (challenge, answers) = scalars.split_first()?;
        Some(Proof {
            challenge: *challenge,
            answers: answers.to_vec(),
        })
    }

    /// The scalars as written: `e` first, then the answers.
    pub fn scalars(&self) -> impl Iterator<Item = &Scalar> {
        std::iter::once(&self.challenge).chain(&self.answers)
    }
}

/// `e`: `SHA-512(label ‖ n as 8 bytes big-endian ‖ M2 ‖ M3 ‖ R_0 ‖ ... ‖ R_n−1)` (every
/// element compressed), the 64 bytes read little-endian modulo ℓ.
fn challenge(
    from: &[CompressedRistretto],
    to: &[CompressedRistretto],
    commitments: &[RistrettoPoint],
) -> Scalar {
    let mut hash = Sha512::new();
    hash.update(CHALLENGE_LABEL);
    hash.update((from.len() as u64).to_be_bytes());
    from.iter()
        .chain(to)
        .for_each(|c| hash.update(c.as_bytes()));
    for commitment in commitments {
        hash.update(commitment.compress().as_bytes());
    }
    Scalar::from_bytes_mod_order_wide(&hash.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::deal::{DECK, card_point};

    /// Message 2 of an honest deal between two seeds, and White's dealer.
    fn message_2() -> (Dealer, Dealer, Masked) {
        let white = Dealer::from_seed([1; 32]);
        let black = Dealer::from_seed([2; 32]);
        let m1 = white.mask_and_shuffle();
        let m2 = black.shuffle_with_card_keys(&m1).unwrap();
        (white, black, m2)
    }

    #[test]
    fn an_honest_message_3_proves_and_is_the_deal_s() {
        let (white, black, m2) = message_2();
        let (m3, proof) = rekey_and_prove(&white, &m2, DECK).unwrap();
        assert_eq!(m3, white.rekey(&m2).unwrap());
        assert_eq!(proof.answers.len(), DECK);
        assert_eq!(verify(&m2, &m3, Some(&proof)), Ok(()));
        // Written again, the same proof.
        assert_eq!(rekey_and_prove(&white, &m2, DECK).unwrap().1, proof);
        // A reshuffle's (21 places).
        let p = white.reshuffle(1);
        let q = black.reshuffle(1);
        let cards: Vec<usize> = (0..21).map(|c| c + 5).collect();
        let r2 = q.shuffle_deck(&p.mask_cards(&cards), 21).unwrap();
        let (r3, proof) = rekey_and_prove(&p, &r2, 21).unwrap();
        assert_eq!(verify(&r2, &r3, Some(&proof)), Ok(()));
    }

    #[test]
    fn a_card_dealt_to_oneself_fails_the_proof() {
        // White deals itself card 39 at position 3 with Black's key for it: the
        // honest proof, and a proof made with the factors White knows for the other
        // positions, both fail.
        let (white, black, m2) = message_2();
        let (mut m3, proof) = rekey_and_prove(&white, &m2, DECK).unwrap();
        let forged = (white.card_key(3) * black.card_key(3) * card_point(39)).compress();
        if m3.contains(&forged) {
            return;
        }
        m3[3] = forged;
        assert_eq!(verify(&m2, &m3, Some(&proof)), Err(FactorError::Fails));
        assert_eq!(verify(&m2, &m3, None), Err(FactorError::Missing));
    }

    #[test]
    fn a_tampered_answer_or_challenge_or_a_moved_proof_fails() {
        let (white, black, m2) = message_2();
        let (m3, proof) = rekey_and_prove(&white, &m2, DECK).unwrap();
        let mut answer = proof.clone();
        answer.answers[17] += Scalar::ONE;
        assert_eq!(verify(&m2, &m3, Some(&answer)), Err(FactorError::Fails));
        let mut challenge = proof.clone();
        challenge.challenge += Scalar::ONE;
        assert_eq!(verify(&m2, &m3, Some(&challenge)), Err(FactorError::Fails));
        let mut short = proof.clone();
        short.answers.pop();
        assert_eq!(
            verify(&m2, &m3, Some(&short)),
            Err(FactorError::Size {
                size: DECK,
                found: 39
            })
        );
        // The proof of another deal's message 3 (other seeds), shown for this one.
        let other_white = Dealer::from_seed([3; 32]);
        let other_m2 = black
            .shuffle_with_card_keys(&other_white.mask_and_shuffle())
            .unwrap();
        let (other_m3, other_proof) = rekey_and_prove(&other_white, &other_m2, DECK).unwrap();
        assert_eq!(verify(&other_m2, &other_m3, Some(&other_proof)), Ok(()));
        assert_eq!(
            verify(&m2, &m3, Some(&other_proof)),
            Err(FactorError::Fails)
        );
        // The proof kept with this message 3 shown against another message 2.
        assert_eq!(
            verify(&other_m2, &m3, Some(&proof)),
            Err(FactorError::Fails)
        );
        // Two positions swapped (each still message 2's under a known factor, but not at
        // its own position).
        let mut swapped = m3.clone();
        swapped.swap(0, 1);
        assert_eq!(verify(&m2, &swapped, Some(&proof)), Err(FactorError::Fails));
    }
}
