//! Zobrist hashing for repetition: one random key per piece on a square, per castling
//! right, per en passant file and for Black to move, combined by exclusive or.

use super::Chess;
use super::types::color_index;
use super::types::{Piece, Square};
use crate::games::Color;

const PIECE_KEYS: usize = 2 * 6 * 64;
const CASTLING_KEYS: usize = 4;
const EP_KEYS: usize = 8;
const KEY_COUNT: usize = PIECE_KEYS + CASTLING_KEYS + EP_KEYS + 1;

/// SplitMix64 from a fixed seed: the keys are constants, so hashes are stable across
/// runs and builds (a stored game's keys mean the same tomorrow).
const KEYS: [u64; KEY_COUNT] = {
    let mut keys = [0u64; KEY_COUNT];
    let mut state: u64 = 0x5EED_C4E5_5A11_0001;
    let mut i = 0;
    while i < KEY_COUNT {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
};

/// The key of each set of castling rights (by their bits): the rights' keys combined.
const CASTLING_SETS: [u64; 16] = {
    let mut sets = [0u64; 16];
    let mut rights = 0;
    while rights < 16 {
        let mut bit = 0;
        while bit < CASTLING_KEYS {
            if rights & (1 << bit) != 0 {
                sets[rights] ^= KEYS[PIECE_KEYS + bit];
            }
            bit += 1;
        }
        rights += 1;
    }
    sets
};

/// The key of one piece on one square.
#[inline]
pub(crate) fn piece_key(piece: Piece, square: Square) -> u64 {
    KEYS[(color_index(piece.color) * 6 + piece.role.index()) * 64 + square.index()]
}

/// The repetition hash: placement, side to move, castling rights, and the en passant
/// file only when a capture en passant is actually legal (FIDE Laws 9.2.3).
/// The placement part comes from the board, which keeps it up to date move by move.
#[inline]
pub(crate) fn hash(position: &Chess) -> u64 {
    let mut hash = position.board().placement_hash()
        ^ CASTLING_SETS[usize::from(position.castling_rights().bits()) & 15];
    if let Some(square) = position.legal_ep_square() {
        hash ^= KEYS[PIECE_KEYS + CASTLING_KEYS + square.file() as usize];
    }
    if position.turn == Color::Black {
        hash ^= KEYS[KEY_COUNT - 1];
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    /// The placement hash from scratch, to check the one kept move by move.
    fn placement_from_scratch(position: &Chess) -> u64 {
        position
            .board()
            .pieces()
            .fold(0, |hash, (square, piece)| hash ^ piece_key(piece, square))
    }

    #[test]
    fn the_incremental_placement_hash_matches_a_fresh_one() {
        let mut position = Chess::start();
        let mut moves = Vec::new();
        // A fixed walk through captures, castling, en passant and promotion.
        for ply in 0..300usize {
            assert_eq!(
                position.board().placement_hash(),
                placement_from_scratch(&position),
                "ply {ply}: {}",
                position.position_string()
            );
            moves.clear();
            position.legal_turns(&mut moves);
            if moves.is_empty() {
                break;
            }
            let capture = moves
                .iter()
                .position(|m| m.is_capture() || m.promotion.is_some());
            let choice = capture.unwrap_or(ply * 7919 % moves.len());
            position.play(&moves[choice]);
        }
    }
}
