//! Attack tables. Leapers (knight, king, pawn) are computed at compile time; sliders use
//! magic bitboards whose magic numbers are searched once per process, at first use, with
//! a fixed seed (so every run finds the same numbers, in a few milliseconds).

use std::sync::OnceLock;

use super::bitboard::Bitboard;
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

/// Magic factors for rook attacks, a1 to h8. They were found by a random search (the
/// test `magic_factors_can_be_found_again` shows how) and are checked for destructive
/// collisions every time the tables are built, so a wrong one cannot go unnoticed.
const ROOK_MAGICS: [u64; 64] = [
    0x008000908064C000,
    0x0040200040001000,
    0x0180100080A0010A,
    0x8880041000800800,
    0x1200100201200804,
    0x0200020004011008,
    0x2180010000800600,
    0x0200005088210204,
    0x0400800040008021,
    0x0400400020005000,
    0x8240801000200080,
    0x8611001004200900,
    0x008180800C001800,
    0x0100800200800400,
    0x0A02000102000408,
    0x8020802300104280,
    0x0080004000402000,
    0xE010104000402000,
    0x0800808010002000,
    0xA280210008100100,
    0x0001818014000800,
    0xA002010100080400,
    0x0080240001020870,
    0x0001020004048845,
    0x0081826280004004,
    0x2020810900284000,
    0x0200100080802000,
    0x0200080080100080,
    0x8083080100100500,
    0x4406000901000400,
    0x0005020080800100,
    0x0090204200008114,
    0x0010400094800420,
    0x0900804000802002,
    0x0201001841002000,
    0x4100080080801000,
    0x4540040080800800,
    0x0002001004040020,
    0x0281195814001002,
    0x1240800040800100,
    0x0880042000524004,
    0x02C080410206002C,
    0x0801200241050010,
    0x8400080010008080,
    0x0008000500090010,
    0x0082009084020008,
    0x4012000108020004,
    0x9000104D08860004,
    0x2004204114800100,
    0x0148802112400300,
    0x0202842000100880,
    0x001B080080900080,
    0x001A002008100600,
    0x0004008004020080,
    0x5181000600040300,
    0x0000044401128A00,
    0x8044110480002441,
    0x2008110084402202,
    0x90806005090010C1,
    0x000420310A004A42,
    0x0023001004020801,
    0x0882001008040102,
    0x000230088118020C,
    0x0000019025040042,
];

/// Magic factors for bishop attacks, a1 to h8 (see [`ROOK_MAGICS`]).
const BISHOP_MAGICS: [u64; 64] = [
    0x10102002004A1420,
    0x8020040400584008,
    0x10510800811201C8,
    0x5204042080000088,
    0x2204106880000002,
    0x1401042004000000,
    0x0400880410042004,
    0x0028208200A02020,
    0x1500241990010E00,
    0x8001200182020A40,
    0x40004101030B0000,
    0x8002041042000100,
    0x4010011041020038,
    0x0000010421044000,
    0x1500210808020A00,
    0x8000088400880520,
    0x0405004010040100,
    0x1005823210040108,
    0x2708008102040011,
    0x4048200404009100,
    0x0018104101400024,
    0x0003000601190101,
    0x8004803108491000,
    0x8014241200820800,
    0x0006E080100C3040,
    0x0501044A11041800,
    0x9020300008004045,
    0x0894080000220040,
    0x1001010083104000,
    0x5004030040900080,
    0x000400422C012400,
    0x0002128698404812,
    0x1010108404900440,
    0x0928021182084100,
    0x2006080409020024,
    0x1010202020180080,
    0xA010008200202200,
    0x2098015100019004,
    0x0002041440810811,
    0x802A02020000B098,
    0x0009015090004060,
    0x4000821082081001,
    0x0100210040420800,
    0x0800004010488A00,
    0x2000081104004040,
    0x4C8E029015000082,
    0x0420340322224842,
    0x1298260043400210,
    0x0000822802400008,
    0x00008A0101600000,
    0x3040003412080021,
    0x3040290220884800,
    0x4A1500401041004A,
    0x8010200282020781,
    0x0020203142209091,
    0x0070300600902110,
    0x0040808800B62048,
    0x0000810400C44420,
    0x00080400440C0441,
    0x8340080020840411,
    0x0000000104208200,
    0x0000800810D00080,
    0x0400530411080200,
    0x4040702400932244,
];

fn build() -> Tables {
    let mut attacks = Vec::with_capacity(102_400 + 5_248);
    let rook_magics = fill_magics(&ROOK_DIRECTIONS, &ROOK_MAGICS, &mut attacks)
        .expect("the rook magic factors are collision-free (tested)");
    let bishop_magics = fill_magics(&BISHOP_DIRECTIONS, &BISHOP_MAGICS, &mut attacks)
        .expect("the bishop magic factors are collision-free (tested)");

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

/// The occupancy mask of a slider on `square`: the squares whose occupancy changes where
/// it can go. The edge squares never do (unless the slider stands on that edge).
fn relevant_mask(square: usize, directions: &[(i8, i8)]) -> u64 {
    let rank = square / 8;
    let file = square % 8;
    let edges = ((Bitboard::rank(0).0 | Bitboard::rank(7).0) & !Bitboard::rank(rank as u8).0)
        | ((Bitboard::file(0).0 | Bitboard::file(7).0) & !Bitboard::file(file as u8).0);
    slide(square, 0, directions) & !edges
}

/// Every subset of `mask` (carry-rippler), the empty set first.
fn subsets(mask: u64) -> impl Iterator<Item = u64> {
    let mut next = Some(0u64);
    std::iter::from_fn(move || {
        let subset = next?;
        let following = subset.wrapping_sub(mask) & mask;
        next = (following != 0).then_some(following);
        Some(subset)
    })
}

/// Builds one slider's magic entries from its factors and appends the attack sets to
/// `attacks`. Returns `None` if a factor maps two occupancies with different attacks to
/// one slot.
fn fill_magics(
    directions: &[(i8, i8)],
    factors: &[u64; 64],
    attacks: &mut Vec<u64>,
) -> Option<[Magic; 64]> {
    let mut magics = [Magic::default(); 64];
    for (square, entry) in magics.iter_mut().enumerate() {
        let mask = relevant_mask(square, directions);
        let shift = 64 - mask.count_ones();
        let offset = attacks.len();
        attacks.resize(offset + (1 << mask.count_ones()), u64::MAX);
        for subset in subsets(mask) {
            let index = offset + (subset.wrapping_mul(factors[square]) >> shift) as usize;
            let reference = slide(square, subset, directions);
            // No real attack set is all 64 squares, so u64::MAX marks an empty slot.
            if attacks[index] != u64::MAX && attacks[index] != reference {
                return None;
            }
            attacks[index] = reference;
        }
        *entry = Magic {
            mask,
            magic: factors[square],
            shift,
            offset,
        };
    }
    Some(magics)
}

#[cfg(test)]
mod tests {
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
