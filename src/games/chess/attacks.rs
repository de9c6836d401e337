//! Attack tables. Leapers (knight, king, pawn) are computed at compile time; sliders use
//! magic bitboards from constant magic factors, whose attack sets (and the between and
//! line tables) the build script fills with the code of [`super::magics`], so a process
//! starts with every table ready.

use super::bitboard::Bitboard;
use super::magics::{ATTACK_COUNT, Magic};
use super::types::Square;
use crate::games::Color;

/// The eight knight leaps as (file, rank) steps, in the order every game walks them.
pub(crate) const KNIGHT_DELTAS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The squares reached by single steps of the given (file, rank) deltas from `square`.
const fn leaper(square: usize, deltas: &[(i8, i8)]) -> u64 {
    let file = (square % 8) as i8;
    let rank = (square / 8) as i8;
    let mut set = 0;
    let mut i = 0;
    while i < deltas.len() {
        let f = file + deltas[i].0;
        let r = rank + deltas[i].1;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            set |= 1 << (r * 8 + f);
        }
        i += 1;
    }
    set
}

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut square = 0;
    while square < 64 {
        table[square] = leaper(square, deltas);
        square += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&KNIGHT_DELTAS);
static KING: [u64; 64] = leaper_table(&KING_DELTAS);
static PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

/// The squares a knight on `square` attacks.
#[inline]
pub(crate) fn knight(square: Square) -> Bitboard {
    Bitboard(KNIGHT[square.index()])
}

/// The squares a king on `square` attacks.
#[inline]
pub(crate) fn king(square: Square) -> Bitboard {
    Bitboard(KING[square.index()])
}

/// The squares a pawn of `color` on `square` attacks (captures to).
#[inline]
pub(crate) fn pawn(color: Color, square: Square) -> Bitboard {
    Bitboard(PAWN[super::types::color_index(color)][square.index()])
}

// The slider tables, filled by the build script from `magics` (see there).
include!(concat!(env!("OUT_DIR"), "/slider_tables.rs"));

/// The slider tables. They are statics written at build time, so this costs nothing;
/// the type stays so that callers hold one handle for all the lookups.
pub(crate) struct Tables;

impl Tables {
    /// Rook moves from `square` with the given occupancy (including the first blocker).
    #[inline(always)]
    pub(crate) fn rook(&self, square: Square, occupied: Bitboard) -> Bitboard {
        Bitboard(ATTACKS[ROOK_ENTRIES[square.index()].index(occupied.0)])
    }

    /// Bishop moves from `square` with the given occupancy (including the first blocker).
    #[inline(always)]
    pub(crate) fn bishop(&self, square: Square, occupied: Bitboard) -> Bitboard {
        Bitboard(ATTACKS[BISHOP_ENTRIES[square.index()].index(occupied.0)])
    }

    /// Queen moves from `square` with the given occupancy.
    #[inline]
    pub(crate) fn queen(&self, square: Square, occupied: Bitboard) -> Bitboard {
        self.rook(square, occupied) | self.bishop(square, occupied)
    }

    /// Squares strictly between `a` and `b` when they share a rank, file or diagonal.
    #[inline]
    pub(crate) fn between(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(BETWEEN[a.index()][b.index()])
    }

    /// The full line through `a` and `b` when they share one, else empty.
    #[inline]
    pub(crate) fn line(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(LINE[a.index()][b.index()])
    }
}

/// The slider tables.
#[inline]
pub(crate) fn tables() -> &'static Tables {
    &Tables
}

#[cfg(test)]
mod tests {
    use super::super::magics::{
        BISHOP_DIRECTIONS, BISHOP_MAGICS, ROOK_DIRECTIONS, ROOK_MAGICS, fill_magics, relevant_mask,
        slide, slider_tables, subsets,
    };
    use super::*;

    /// xorshift64*: small, fast and good enough to find magics.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(2_685_821_657_736_338_717)
        }

        /// Magics with few bits set are found much faster.
        fn sparse(&mut self) -> u64 {
            self.next() & self.next() & self.next()
        }
    }

    /// How the constant factors were found: random sparse candidates until one has no
    /// destructive collision. Run for a few squares to show the search still works.
    #[test]
    fn magic_factors_can_be_found_again() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for square in [0usize, 27, 63] {
            let mask = relevant_mask(square, &ROOK_DIRECTIONS);
            let shift = 64 - mask.count_ones();
            let found = (0..1_000_000).map(|_| rng.sparse()).find(|&candidate| {
                let mut slots = vec![u64::MAX; 1 << mask.count_ones()];
                subsets(mask).all(|subset| {
                    let index = (subset.wrapping_mul(candidate) >> shift) as usize;
                    let reference = slide(square, subset, &ROOK_DIRECTIONS);
                    let fits = slots[index] == u64::MAX || slots[index] == reference;
                    slots[index] = reference;
                    fits
                })
            });
            assert!(found.is_some(), "no magic found for square {square}");
        }
    }

    #[test]
    fn the_constant_factors_are_collision_free() {
        let mut attacks = Vec::new();
        assert!(fill_magics(&ROOK_DIRECTIONS, &ROOK_MAGICS, &mut attacks).is_some());
        assert!(fill_magics(&BISHOP_DIRECTIONS, &BISHOP_MAGICS, &mut attacks).is_some());
        assert_eq!(attacks.len(), 102_400 + 5_248);
        let mut broken = ROOK_MAGICS;
        broken[0] = 1;
        assert!(fill_magics(&ROOK_DIRECTIONS, &broken, &mut Vec::new()).is_none());
    }

    #[test]
    fn magic_lookups_agree_with_the_slow_slide() {
        let tables = tables();
        let mut rng = Rng(12345);
        for square in 0..64u8 {
            for _ in 0..200 {
                let occupied = rng.next() & rng.next();
                let sq = Square::new(square);
                assert_eq!(
                    tables.rook(sq, Bitboard(occupied)).0,
                    slide(square as usize, occupied, &ROOK_DIRECTIONS)
                );
                assert_eq!(
                    tables.bishop(sq, Bitboard(occupied)).0,
                    slide(square as usize, occupied, &BISHOP_DIRECTIONS)
                );
            }
        }
    }

    /// The tables the build script wrote are what the shared code fills now.
    #[test]
    fn the_built_tables_are_the_filled_ones() {
        let fresh = slider_tables();
        assert_eq!(ROOK_ENTRIES, fresh.rook_magics);
        assert_eq!(BISHOP_ENTRIES, fresh.bishop_magics);
        assert_eq!(ATTACKS.as_slice(), fresh.attacks.as_slice());
        assert_eq!(BETWEEN.as_slice(), fresh.between.as_slice());
        assert_eq!(LINE.as_slice(), fresh.line.as_slice());
    }

    /// Between and line for every pair of squares, against their definition by steps:
    /// two squares share a line when one is a whole number of king steps from the other
    /// in one direction.
    #[test]
    fn between_and_line_agree_with_their_definition() {
        let tables = tables();
        for a in 0..64u8 {
            for b in 0..64u8 {
                let (fa, ra) = (i32::from(a % 8), i32::from(a / 8));
                let (fb, rb) = (i32::from(b % 8), i32::from(b / 8));
                let (df, dr) = (fb - fa, rb - ra);
                let aligned = a != b && (df == 0 || dr == 0 || df.abs() == dr.abs());
                let mut between = 0u64;
                let mut line = 0u64;
                if aligned {
                    let (sf, sr) = (df.signum(), dr.signum());
                    for k in -8..=8 {
                        let (f, r) = (fa + k * sf, ra + k * sr);
                        if (0..8).contains(&f) && (0..8).contains(&r) {
                            let bit = 1u64 << (r * 8 + f);
                            line |= bit;
                            if k > 0 && k < df.abs().max(dr.abs()) {
                                between |= bit;
                            }
                        }
                    }
                }
                let (sa, sb) = (Square::new(a), Square::new(b));
                assert_eq!(tables.between(sa, sb).0, between, "between {sa} {sb}");
                assert_eq!(tables.line(sa, sb).0, line, "line {sa} {sb}");
            }
        }
    }

    #[test]
    fn leaper_tables_know_the_corners() {
        let a1 = Square::new(0);
        assert_eq!(knight(a1).count(), 2);
        assert_eq!(king(a1).count(), 3);
        assert_eq!(pawn(Color::White, a1).count(), 1);
        assert_eq!(pawn(Color::Black, a1).count(), 0);
    }

    #[test]
    fn between_and_line() {
        let tables = tables();
        let a1 = Square::new(0);
        let h8 = Square::new(63);
        let b3 = Square::from_coords(1, 2);
        assert_eq!(tables.between(a1, h8).count(), 6);
        assert_eq!(tables.line(a1, h8).count(), 8);
        assert!(tables.between(a1, b3).is_empty());
        assert!(tables.line(a1, b3).is_empty());
    }
}
