//! The slider tables' making, shared by the build script (`build.rs` includes this file
//! with `#[path]` and writes the tables it fills as Rust source into `OUT_DIR`, so a
//! process finds them ready) and by the library (the `Magic` entry type, and the tests
//! that check the tables against the slow [`slide`]). It uses nothing of the crate.

// The library itself uses only `Magic`; the rest serves the build script and the tests.
#![allow(dead_code)]

/// The four rook directions as (file, rank) steps.
pub(crate) const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
/// The four bishop directions as (file, rank) steps.
pub(crate) const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

/// How many attack sets the rook (102,400) and bishop (5,248) entries index in all.
pub(crate) const ATTACK_COUNT: usize = 102_400 + 5_248;

/// The squares a slider on `square` reaches along `directions`, stopping at (and
/// including) the first occupied square of each ray. The slow reference the magic tables
/// are filled from.
pub(crate) fn slide(square: usize, occupied: u64, directions: &[(i8, i8)]) -> u64 {
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
/// the shift and where its slice of the shared attack table starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Magic {
    pub(crate) mask: u64,
    pub(crate) magic: u64,
    pub(crate) shift: u32,
    pub(crate) offset: usize,
}

impl Magic {
    /// Where the attack set for `occupied` is in the shared table.
    #[inline]
    pub(crate) fn index(&self, occupied: u64) -> usize {
        self.offset + ((occupied & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

/// The occupancy mask of a slider on `square`: the squares whose occupancy changes where
/// it can go. The edge squares never do (unless the slider stands on that edge).
pub(crate) fn relevant_mask(square: usize, directions: &[(i8, i8)]) -> u64 {
    const RANK_1: u64 = 0xFF;
    const FILE_A: u64 = 0x0101_0101_0101_0101;
    let rank = square / 8;
    let file = square % 8;
    let edges = ((RANK_1 | RANK_1 << 56) & !(RANK_1 << (8 * rank)))
        | ((FILE_A | FILE_A << 7) & !(FILE_A << file));
    slide(square, 0, directions) & !edges
}

/// Every subset of `mask` (carry-rippler), the empty set first.
pub(crate) fn subsets(mask: u64) -> impl Iterator<Item = u64> {
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
pub(crate) fn fill_magics(
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

/// Every table the slider lookups read: the rook and bishop entries, the attack sets
/// they index, and for each pair of squares the squares strictly between them and the
/// whole line through them (both empty unless the squares share a rank, file or
/// diagonal).
pub(crate) struct SliderTables {
    pub(crate) rook_magics: [Magic; 64],
    pub(crate) bishop_magics: [Magic; 64],
    pub(crate) attacks: Vec<u64>,
    pub(crate) between: Vec<[u64; 64]>,
    pub(crate) line: Vec<[u64; 64]>,
}

/// Fills every slider table from the constant factors.
///
/// # Panics
/// If a factor has a destructive collision (the test
/// `the_constant_factors_are_collision_free` shows none has).
pub(crate) fn slider_tables() -> SliderTables {
    let mut attacks = Vec::with_capacity(ATTACK_COUNT);
    let rook_magics = fill_magics(&ROOK_DIRECTIONS, &ROOK_MAGICS, &mut attacks)
        .expect("the rook magic factors are collision-free");
    let bishop_magics = fill_magics(&BISHOP_DIRECTIONS, &BISHOP_MAGICS, &mut attacks)
        .expect("the bishop magic factors are collision-free");
    assert_eq!(attacks.len(), ATTACK_COUNT);

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
    SliderTables {
        rook_magics,
        bishop_magics,
        attacks,
        between,
        line,
    }
}

/// Magic factors for rook attacks, a1 to h8. They were found by a random search (the
/// test `magic_factors_can_be_found_again` shows how) and are checked for destructive
/// collisions when the build script fills the tables, so a wrong one fails the build.
pub(crate) const ROOK_MAGICS: [u64; 64] = [
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
pub(crate) const BISHOP_MAGICS: [u64; 64] = [
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
