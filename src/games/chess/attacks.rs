//! Attack tables. Leapers (knight, king, pawn) are computed at compile time; sliders use
//! magic bitboards whose magic numbers are searched once per process, at first use, with
//! a fixed seed (so every run finds the same numbers, in a few milliseconds).

use std::sync::OnceLock;

use super::bitboard::Bitboard;
use super::types::Square;
use crate::games::Color;

const KNIGHT_DELTAS: [(i8, i8); 8] = [
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
const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

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

/// The squares a slider on `square` reaches along `directions`, stopping at (and
/// including) the first occupied square of each ray. The slow reference the magic tables
/// are filled from.
fn slide(square: usize, occupied: u64, directions: &[(i8, i8)]) -> u64 {
    let mut set = 0;
    for &(df, dr) in directions {
        let mut f = (square % 8) as i8 + df;
        let mut r = (square / 8) as i8 + dr;
        while (0..8).contains(&f) && (0..8).contains(&r) {
            let bit = 1 << (r * 8 + f);
            set |= bit;
            if occupied & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
    }
    set
}

/// One square's entry of a magic table: the relevant occupancy mask, the magic factor,
/// the shift and where its slice of the shared attack vector starts.
#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

impl Magic {
    #[inline]
    fn index(&self, occupied: u64) -> usize {
        self.offset + ((occupied & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

/// Everything computed at run time, built once.
pub(crate) struct Tables {
    rook_magics: [Magic; 64],
    bishop_magics: [Magic; 64],
    attacks: Vec<u64>,
    /// Squares strictly between two squares on a common line, else empty.
    between: Vec<[u64; 64]>,
    /// The whole line (edge to edge) through two squares on a common line, else empty.
    line: Vec<[u64; 64]>,
}

impl Tables {
    /// Rook moves from `square` with the given occupancy (including the first blocker).
    #[inline]
    pub(crate) fn rook(&self, square: Square, occupied: Bitboard) -> Bitboard {
        Bitboard(self.attacks[self.rook_magics[square.index()].index(occupied.0)])
    }

    /// Bishop moves from `square` with the given occupancy (including the first blocker).
    #[inline]
    pub(crate) fn bishop(&self, square: Square, occupied: Bitboard) -> Bitboard {
        Bitboard(self.attacks[self.bishop_magics[square.index()].index(occupied.0)])
    }

    /// Queen moves from `square` with the given occupancy.
    #[inline]
    pub(crate) fn queen(&self, square: Square, occupied: Bitboard) -> Bitboard {
        self.rook(square, occupied) | self.bishop(square, occupied)
    }

    /// Squares strictly between `a` and `b` when they share a rank, file or diagonal.
    #[inline]
    pub(crate) fn between(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(self.between[a.index()][b.index()])
    }

    /// The full line through `a` and `b` when they share one, else empty.
    #[inline]
    pub(crate) fn line(&self, a: Square, b: Square) -> Bitboard {
        Bitboard(self.line[a.index()][b.index()])
    }
}

/// The tables, built on first use.
#[inline]
pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build)
}

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

fn build() -> Tables {
    let mut attacks = Vec::with_capacity(102_400 + 5_248);
    let rook_magics = find_magics(&ROOK_DIRECTIONS, &mut attacks, 0x2545_F491_4F6C_DD1D);
    let bishop_magics = find_magics(&BISHOP_DIRECTIONS, &mut attacks, 0x9E37_79B9_7F4A_7C15);

    let mut between = vec![[0u64; 64]; 64];
    let mut line = vec![[0u64; 64]; 64];
    for a in 0..64 {
        for directions in [&ROOK_DIRECTIONS, &BISHOP_DIRECTIONS] {
            let empty_board = slide(a, 0, directions);
            for b in 0..64 {
                if a == b || empty_board & (1 << b) == 0 {
                    continue;
                }
                between[a][b] = slide(a, 1 << b, directions) & slide(b, 1 << a, directions);
                line[a][b] = (empty_board & slide(b, 0, directions)) | (1 << a) | (1 << b);
            }
        }
    }
    Tables {
        rook_magics,
        bishop_magics,
        attacks,
        between,
        line,
    }
}

/// Finds a magic for every square and appends the attack sets to `attacks`.
fn find_magics(directions: &[(i8, i8)], attacks: &mut Vec<u64>, seed: u64) -> [Magic; 64] {
    let mut rng = Rng(seed);
    let mut magics = [Magic::default(); 64];
    let mut occupancies = Vec::with_capacity(4096);
    let mut references = Vec::with_capacity(4096);
    // `epoch[i] == attempt` marks slot `i` as written during this attempt, which saves
    // clearing the slots between attempts.
    let mut epoch = vec![0u32; 4096];
    let mut used = vec![0u64; 4096];
    let mut attempt = 0;

    for (square, entry) in magics.iter_mut().enumerate() {
        let rank = square / 8;
        let file = square % 8;
        // The edge squares never change what a slider reaches, so they stay out of the
        // mask (unless the slider stands on that edge, where they are inner squares).
        let edges = ((Bitboard::rank(0).0 | Bitboard::rank(7).0) & !Bitboard::rank(rank as u8).0)
            | ((Bitboard::file(0).0 | Bitboard::file(7).0) & !Bitboard::file(file as u8).0);
        let mask = slide(square, 0, directions) & !edges;
        let bits = mask.count_ones();
        let shift = 64 - bits;

        // Carry-rippler: every subset of the mask.
        occupancies.clear();
        references.clear();
        let mut subset = 0u64;
        loop {
            occupancies.push(subset);
            references.push(slide(square, subset, directions));
            subset = subset.wrapping_sub(mask) & mask;
            if subset == 0 {
                break;
            }
        }

        let size = occupancies.len();
        let magic = loop {
            let candidate = rng.sparse();
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            attempt += 1;
            let fits = occupancies
                .iter()
                .zip(&references)
                .all(|(&occ, &reference)| {
                    let index = (occ.wrapping_mul(candidate) >> shift) as usize;
                    if epoch[index] < attempt {
                        epoch[index] = attempt;
                        used[index] = reference;
                        true
                    } else {
                        used[index] == reference
                    }
                });
            if fits {
                break candidate;
            }
        };

        let offset = attacks.len();
        attacks.resize(offset + size, 0);
        for (&occ, &reference) in occupancies.iter().zip(&references) {
            let index = (occ.wrapping_mul(magic) >> shift) as usize;
            attacks[offset + index] = reference;
        }
        *entry = Magic {
            mask,
            magic,
            shift,
            offset,
        };
    }
    magics
}

#[cfg(test)]
mod tests {
    use super::*;

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
