//! The geometry of Cascudo's board, in one place: the 44 cells, their names, the twelve
//! Glinski directions, rays, knight targets, pawn steps and the three colours, as constant
//! tables built at compile time.
//!
//! Each cell has a file `x` (0 = a .. 6 = g) and a height `h` in half cells: the files
//! stand upright and neighbouring files are shifted by half a cell, as on Glinski's board,
//! so `h = 2 * (rank - 1) + |x - 3|`. The d-file (8 cells) is lowest; the a- and g-files
//! (5 cells) start one and a half cells higher. In these coordinates the six edge
//! (orthogonal) directions are `(0, ±2)` and `(±1, ±1)`, the six vertex (diagonal)
//! directions `(±1, ±3)` and `(±2, 0)`, and the twelve knight leaps `(±1, ±5)`,
//! `(±2, ±4)` and `(±3, ±1)`.

use std::fmt;

/// The number of cells.
pub const CELLS: usize = 44;
/// The number of files (a to g).
pub const FILES: usize = 7;
/// How many cells each file has, a to g.
pub const FILE_LENGTHS: [u8; FILES] = [5, 6, 7, 8, 7, 6, 5];
/// The highest height (`h`) of a cell: d8.
pub const MAX_HEIGHT: i8 = 14;

/// A cell of the board, `0..44`, numbered file by file from a1 (a1..a5, b1..b6, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(u8);

/// The six edge directions first (up, up-right, down-right, down, down-left, up-left),
/// then the six vertex directions (up-right, right, down-right, down-left, left, up-left).
pub const DIRECTIONS: [(i8, i8); 12] = [
    (0, 2),
    (1, 1),
    (1, -1),
    (0, -2),
    (-1, -1),
    (-1, 1),
    (1, 3),
    (2, 0),
    (1, -3),
    (-1, -3),
    (-2, 0),
    (-1, 3),
];

/// The indices into [`DIRECTIONS`] of the edge (orthogonal, rook) directions.
pub const ORTHOGONAL: std::ops::Range<usize> = 0..6;
/// The indices into [`DIRECTIONS`] of the vertex (diagonal, bishop) directions.
pub const DIAGONAL: std::ops::Range<usize> = 6..12;
/// Index of "up" (toward rank 8) in [`DIRECTIONS`].
pub const UP: usize = 0;
/// Index of "down" in [`DIRECTIONS`].
pub const DOWN: usize = 3;
/// White pawns capture up-left and up-right; Black pawns down-left and down-right.
pub const WHITE_PAWN_CAPTURES: [usize; 2] = [5, 1];
/// See [`WHITE_PAWN_CAPTURES`].
pub const BLACK_PAWN_CAPTURES: [usize; 2] = [4, 2];

/// The twelve knight leaps: two cells along an edge direction, then one at 60 degrees
/// outward.
pub const KNIGHT_LEAPS: [(i8, i8); 12] = [
    (1, 5),
    (2, 4),
    (3, 1),
    (3, -1),
    (2, -4),
    (1, -5),
    (-1, -5),
    (-2, -4),
    (-3, -1),
    (-3, 1),
    (-2, 4),
    (-1, 5),
];

/// One of the three colours; no two neighbouring cells share one, and a bishop keeps to
/// its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// The colour of d3 (and d6).
    Light,
    /// The colour of d2 (and d8).
    Mid,
    /// The colour of d1 (and d7).
    Dark,
}

impl Colour {
    /// `"light"`, `"mid"` or `"dark"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Colour::Light => "light",
            Colour::Mid => "mid",
            Colour::Dark => "dark",
        }
    }
}

/// How far above d1's height the first cell of a file stands: half a cell per file away
/// from the d-file.
const fn height_offset(file: u8) -> u8 {
    file.abs_diff(3)
}

const fn coords_table() -> [(i8, i8); CELLS] {
    let mut table = [(0, 0); CELLS];
    let mut index = 0;
    let mut x = 0;
    while x < FILES {
        let offset = height_offset(x as u8) as i8;
        let mut rank = 0;
        while rank < FILE_LENGTHS[x] {
            table[index] = (x as i8, 2 * rank as i8 + offset);
            index += 1;
            rank += 1;
        }
        x += 1;
    }
    table
}

const COORDS: [(i8, i8); CELLS] = coords_table();

/// The cell at `(x, h)`, or `u8::MAX` off the board.
const fn grid_table() -> [[u8; MAX_HEIGHT as usize + 1]; FILES] {
    let mut grid = [[u8::MAX; MAX_HEIGHT as usize + 1]; FILES];
    let mut index = 0;
    while index < CELLS {
        let (x, h) = COORDS[index];
        grid[x as usize][h as usize] = index as u8;
        index += 1;
    }
    grid
}

const GRID: [[u8; MAX_HEIGHT as usize + 1]; FILES] = grid_table();

const fn at(x: i8, h: i8) -> u8 {
    if x < 0 || x >= FILES as i8 || h < 0 || h > MAX_HEIGHT {
        return u8::MAX;
    }
    GRID[x as usize][h as usize]
}

/// `NEIGHBOURS[cell][direction]`: the next cell that way, or `u8::MAX`.
const fn neighbour_table() -> [[u8; 12]; CELLS] {
    let mut table = [[u8::MAX; 12]; CELLS];
    let mut index = 0;
    while index < CELLS {
        let (x, h) = COORDS[index];
        let mut d = 0;
        while d < 12 {
            table[index][d] = at(x + DIRECTIONS[d].0, h + DIRECTIONS[d].1);
            d += 1;
        }
        index += 1;
    }
    table
}

const NEIGHBOURS: [[u8; 12]; CELLS] = neighbour_table();

/// `KNIGHTS[cell]`: the knight targets, then `u8::MAX` padding.
const fn knight_table() -> [[u8; 12]; CELLS] {
    let mut table = [[u8::MAX; 12]; CELLS];
    let mut index = 0;
    while index < CELLS {
        let (x, h) = COORDS[index];
        let mut count = 0;
        let mut leap = 0;
        while leap < 12 {
            let target = at(x + KNIGHT_LEAPS[leap].0, h + KNIGHT_LEAPS[leap].1);
            if target != u8::MAX {
                table[index][count] = target;
                count += 1;
            }
            leap += 1;
        }
        index += 1;
    }
    table
}

const KNIGHTS: [[u8; 12]; CELLS] = knight_table();

/// `RAYS[cell][direction]`: the cells from `cell` (excluded) to the edge that way, one
/// bit per cell index.
const fn ray_table() -> [[u64; 12]; CELLS] {
    let mut table = [[0u64; 12]; CELLS];
    let mut index = 0;
    while index < CELLS {
        let mut d = 0;
        while d < 12 {
            let mut at = NEIGHBOURS[index][d];
            while at != u8::MAX {
                table[index][d] |= 1 << at;
                at = NEIGHBOURS[at as usize][d];
            }
            d += 1;
        }
        index += 1;
    }
    table
}

const RAYS: [[u64; 12]; CELLS] = ray_table();

/// `KNIGHT_MASKS[cell]`: the knight targets as bits.
const fn knight_mask_table() -> [u64; CELLS] {
    let mut table = [0u64; CELLS];
    let mut index = 0;
    while index < CELLS {
        let mut i = 0;
        while i < 12 && KNIGHTS[index][i] != u8::MAX {
            table[index] |= 1 << KNIGHTS[index][i];
            i += 1;
        }
        index += 1;
    }
    table
}

const KNIGHT_MASKS: [u64; CELLS] = knight_mask_table();

/// Whether the cell indices grow along `direction` (an index into [`DIRECTIONS`]): cells
/// are numbered file by file from a1, so they grow toward the g-file and, along a file,
/// upward. Along any ray they change one way only.
#[must_use]
pub const fn grows(direction: usize) -> bool {
    let (x, h) = DIRECTIONS[direction];
    x > 0 || (x == 0 && h > 0)
}

/// A set of cells, one bit per cell index.
pub type CellSet = u64;

impl Cell {
    /// Every cell, a1 first, file by file.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..CELLS as u8).map(Cell)
    }

    /// The cell with this index, if it is below 44.
    #[must_use]
    pub const fn new(index: u8) -> Option<Cell> {
        if (index as usize) < CELLS {
            Some(Cell(index))
        } else {
            None
        }
    }

    /// Its index, `0..44`.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The cell at file `x` (0 = a) and height `h` (half cells), if there is one.
    #[must_use]
    pub const fn at(x: i8, h: i8) -> Option<Cell> {
        let index = at(x, h);
        if index == u8::MAX {
            None
        } else {
            Some(Cell(index))
        }
    }

    /// The cell of a file (0 = a) and rank (0 = the first), if the file has that rank.
    #[must_use]
    pub const fn from_file_rank(file: u8, rank: u8) -> Option<Cell> {
        if file as usize >= FILES || rank >= FILE_LENGTHS[file as usize] {
            return None;
        }
        let offset = height_offset(file);
        Cell::at(file as i8, (2 * rank + offset) as i8)
    }

    /// The cell named like `d4`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Cell> {
        match name.as_bytes() {
            [file @ b'a'..=b'g', rank @ b'1'..=b'8'] => {
                Cell::from_file_rank(file - b'a', rank - b'1')
            }
            _ => None,
        }
    }

    /// Its file, 0 = a.
    #[must_use]
    pub const fn file(self) -> u8 {
        COORDS[self.0 as usize].0 as u8
    }

    /// Its rank within its file, 0 = the first.
    #[must_use]
    pub const fn rank(self) -> u8 {
        let (x, h) = COORDS[self.0 as usize];
        let offset = height_offset(x as u8) as i8;
        ((h - offset) / 2) as u8
    }

    /// Its height in half cells (d1 is 0, d8 is 14).
    #[must_use]
    pub const fn height(self) -> i8 {
        COORDS[self.0 as usize].1
    }

    /// The file letter, `a` to `g`.
    #[must_use]
    pub const fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    /// The rank digit, `1` to `8`.
    #[must_use]
    pub const fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }

    /// The next cell in direction `direction` (an index into [`DIRECTIONS`]), if any.
    #[must_use]
    pub const fn step(self, direction: usize) -> Option<Cell> {
        let next = NEIGHBOURS[self.0 as usize][direction];
        if next == u8::MAX {
            None
        } else {
            Some(Cell(next))
        }
    }

    /// The cells from here (excluded) to the edge in one direction, nearest first.
    pub fn ray(self, direction: usize) -> impl Iterator<Item = Cell> {
        std::iter::successors(self.step(direction), move |cell| cell.step(direction))
    }

    /// The cells of [`Cell::ray`] as a set.
    #[must_use]
    pub const fn ray_set(self, direction: usize) -> CellSet {
        RAYS[self.0 as usize][direction]
    }

    /// The cells of [`Cell::knight_targets`] as a set.
    #[must_use]
    pub const fn knight_set(self) -> CellSet {
        KNIGHT_MASKS[self.0 as usize]
    }

    /// This cell as a set of one.
    #[must_use]
    pub const fn bit(self) -> CellSet {
        1 << self.0
    }

    /// The cell of `set` nearest to an origin from which the cells grow along `direction`
    /// or not ([`grows`]): the lowest or the highest; `None` for an empty set.
    #[must_use]
    pub const fn nearest(set: CellSet, direction: usize) -> Option<Cell> {
        if set == 0 {
            None
        } else if grows(direction) {
            Some(Cell(set.trailing_zeros() as u8))
        } else {
            Some(Cell(63 - set.leading_zeros() as u8))
        }
    }

    /// The lowest cell of a non-empty set.
    #[must_use]
    pub const fn lowest(set: CellSet) -> Cell {
        Cell(set.trailing_zeros() as u8)
    }

    /// The cells a knight reaches from here.
    #[must_use]
    pub fn knight_targets(self) -> &'static [u8] {
        let row = &KNIGHTS[self.0 as usize];
        let count = row.iter().position(|&c| c == u8::MAX).unwrap_or(12);
        &row[..count]
    }

    /// The cell's colour: `(x - k) mod 3` over axial coordinates `(x, k)` with
    /// `k = (h - x + 3) / 2`, so that edge neighbours differ and vertex neighbours agree.
    #[must_use]
    pub const fn colour(self) -> Colour {
        let (x, h) = COORDS[self.0 as usize];
        let k = (h - x + 3) / 2;
        match (x - k).rem_euclid(3) {
            0 => Colour::Dark,
            1 => Colour::Light,
            _ => Colour::Mid,
        }
    }

    /// The top cell of its file (where White's pawns promote).
    #[must_use]
    pub const fn is_top(self) -> bool {
        self.rank() + 1 == FILE_LENGTHS[self.file() as usize]
    }

    /// The first cell of its file (where Black's pawns promote).
    #[must_use]
    pub const fn is_bottom(self) -> bool {
        self.rank() == 0
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

/// A picture of the board's shape with one string of `width` characters per cell, which
/// `content` chooses. Rows go down in half cells (d8 alone on the first), files across;
/// the cells of neighbouring files are half a row apart, so each file is a column of
/// cells with an empty line between them.
pub fn picture(width: usize, mut content: impl FnMut(Cell) -> String) -> Vec<String> {
    let mut rows = Vec::with_capacity(MAX_HEIGHT as usize + 1);
    for h in (0..=MAX_HEIGHT).rev() {
        let mut row = String::new();
        for x in 0..FILES as i8 {
            match Cell::at(x, h) {
                Some(cell) => {
                    let text = content(cell);
                    row.push_str(&format!("{text:^width$}"));
                }
                None => row.push_str(&" ".repeat(width)),
            }
            if x + 1 < FILES as i8 {
                row.push(' ');
            }
        }
        rows.push(row.trim_end().to_owned());
    }
    rows
}

/// The file letters under a [`picture`] of the same `width`.
#[must_use]
pub fn file_labels(width: usize) -> String {
    let letters: Vec<String> = (b'a'..b'a' + FILES as u8)
        .map(|file| format!("{:^width$}", char::from(file)))
        .collect();
    letters.join(" ").trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str) -> Cell {
        Cell::from_name(name).unwrap_or_else(|| panic!("{name} is a cell"))
    }

    fn names(cells: impl Iterator<Item = Cell>) -> String {
        let mut names: Vec<String> = cells.map(|c| c.to_string()).collect();
        names.sort();
        names.join(" ")
    }

    #[test]
    fn there_are_44_cells_with_names_that_read_back() {
        assert_eq!(Cell::all().count(), 44);
        let mut per_file = [0u8; FILES];
        for c in Cell::all() {
            assert_eq!(Cell::from_name(&c.to_string()), Some(c));
            per_file[c.file() as usize] += 1;
        }
        assert_eq!(per_file, FILE_LENGTHS);
        for name in ["a6", "b7", "c8", "d9", "e8", "f7", "g6", "h1", "a0", "d"] {
            assert_eq!(Cell::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn the_board_is_every_cell_within_three_of_the_core() {
        // Hex distance in axial coordinates (x, k), k = (h - x + 3) / 2.
        let axial = |c: Cell| {
            let (x, h) = (c.file() as i32, c.height() as i32);
            (x, (h - x + 3) / 2)
        };
        let distance = |a: Cell, b: Cell| {
            let ((x1, k1), (x2, k2)) = (axial(a), axial(b));
            let (dx, dk) = (x1 - x2, k1 - k2);
            (dx.abs() + dk.abs() + (dx + dk).abs()) / 2
        };
        let (d4, d5) = (cell("d4"), cell("d5"));
        assert_eq!(distance(d4, d5), 1);
        for c in Cell::all() {
            assert!(distance(c, d4) <= 3 || distance(c, d5) <= 3, "{c}");
        }
        // And every cell within 3 of the core is on the board: 37 round each core cell,
        // 30 of them shared.
        assert_eq!(37 + 37 - 30, 44);
        assert_eq!(
            Cell::all()
                .filter(|&c| distance(c, d4) <= 3 && distance(c, d5) <= 3)
                .count(),
            30
        );
    }

    #[test]
    fn every_cell_agrees_with_the_geometry_table() {
        // tests/data/cascudo/geometry.txt was written by a separate program.
        let table = include_str!("../../../tests/data/cascudo/geometry.txt");
        let mut seen = 0;
        for line in table.lines().filter(|line| !line.starts_with('#')) {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let [name, edge, vertex, knight, colour] = fields[..] else {
                panic!("malformed line: {line}");
            };
            let c = cell(name);
            let edge_cells = names(ORTHOGONAL.filter_map(|d| c.step(d)));
            let vertex_cells = names(DIAGONAL.filter_map(|d| c.step(d)));
            let knight_cells = names(c.knight_targets().iter().map(|&i| Cell(i)));
            assert_eq!(edge_cells, edge, "{name} edge neighbours");
            assert_eq!(vertex_cells, vertex, "{name} vertex neighbours");
            assert_eq!(knight_cells, knight, "{name} knight targets");
            assert_eq!(c.colour().name(), colour, "{name} colour");
            seen += 1;
        }
        assert_eq!(seen, CELLS);
    }

    #[test]
    fn neighbours_of_corner_edge_and_centre_cells() {
        let around = |name: &str, range: std::ops::Range<usize>| {
            names(range.filter_map(|d| cell(name).step(d)))
        };
        assert_eq!(around("d4", ORTHOGONAL), "c3 c4 d3 d5 e3 e4");
        assert_eq!(around("d4", DIAGONAL), "b3 c2 c5 e2 e5 f3");
        assert_eq!(around("a1", ORTHOGONAL), "a2 b1 b2");
        assert_eq!(around("a1", DIAGONAL), "b3 c2");
        assert_eq!(around("d1", ORTHOGONAL), "c1 d2 e1");
        assert_eq!(around("d1", DIAGONAL), "c2 e2");
        assert_eq!(around("d8", ORTHOGONAL), "c7 d7 e7");
        assert_eq!(around("g5", ORTHOGONAL), "f5 f6 g4");
        assert_eq!(around("g5", DIAGONAL), "e6 f4");
    }

    #[test]
    fn every_neighbour_relation_is_symmetric_and_inside() {
        for c in Cell::all() {
            let mut count = 0;
            for d in ORTHOGONAL {
                if let Some(n) = c.step(d) {
                    count += 1;
                    assert_eq!(n.step((d + 3) % 6), Some(c), "{c} {d}");
                }
            }
            for d in DIAGONAL {
                if let Some(n) = c.step(d) {
                    assert_eq!(n.step(6 + (d - 6 + 3) % 6), Some(c), "{c} {d}");
                }
            }
            assert!((2..=6).contains(&count), "{c} has {count} neighbours");
        }
        // The cells within two of the core (19 + 19 - 14) have six neighbours.
        let full = Cell::all()
            .filter(|c| ORTHOGONAL.filter_map(|d| c.step(d)).count() == 6)
            .count();
        assert_eq!(full, 24);
    }

    #[test]
    fn ray_and_knight_sets_agree_with_the_walks() {
        for cell in Cell::all() {
            for direction in 0..12 {
                let walked: Vec<Cell> = cell.ray(direction).collect();
                let set = walked.iter().fold(0, |set, c| set | c.bit());
                assert_eq!(cell.ray_set(direction), set, "{cell} {direction}");
                assert_eq!(Cell::nearest(set, direction), walked.first().copied());
            }
            let knights = cell.knight_targets().iter().fold(0, |set, &c| set | 1 << c);
            assert_eq!(cell.knight_set(), knights, "{cell}");
        }
    }

    #[test]
    fn rays_run_to_the_edge() {
        let ray = |name: &str, d: usize| {
            cell(name)
                .ray(d)
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(ray("d1", UP), "d2 d3 d4 d5 d6 d7 d8");
        assert_eq!(ray("a1", 1), "b2 c3 d4 e4 f4 g4");
        assert_eq!(ray("a5", 2), "b5 c5 d5 e4 f3 g2");
        assert_eq!(ray("a3", 7), "c4 e4 g3");
        assert_eq!(ray("d1", 6), "e2 f3 g4");
        assert_eq!(ray("g5", 9), "f4 e3 d2");
        assert_eq!(cell("d8").ray(DOWN).count(), 7);
    }

    #[test]
    fn knight_targets_are_glinskis() {
        assert_eq!(
            names(cell("d4").knight_targets().iter().map(|&i| Cell(i))),
            "a2 a3 b1 b5 c1 c6 e1 e6 f1 f5 g2 g3"
        );
        assert_eq!(
            names(cell("a1").knight_targets().iter().map(|&i| Cell(i))),
            "b4 c4 d2 d3"
        );
        assert_eq!(
            names(cell("b1").knight_targets().iter().map(|&i| Cell(i))),
            "a3 c4 d4 e1 e2"
        );
        // A knight's leap is symmetric and never lands on a neighbour or its own colour.
        for c in Cell::all() {
            for &t in c.knight_targets() {
                let t = Cell(t);
                assert!(t.knight_targets().contains(&(c.0)), "{c} {t}");
                assert_ne!(t.colour(), c.colour(), "{c} {t}");
                assert!(ORTHOGONAL.into_iter().all(|d| c.step(d) != Some(t)));
            }
        }
    }

    #[test]
    fn colours_alternate_along_edges_and_hold_along_diagonals() {
        assert_eq!(cell("d1").colour(), Colour::Dark);
        assert_eq!(cell("d2").colour(), Colour::Mid);
        assert_eq!(cell("d3").colour(), Colour::Light);
        assert_eq!(cell("d6").colour(), Colour::Light);
        assert_eq!(cell("d7").colour(), Colour::Dark);
        assert_eq!(cell("d8").colour(), Colour::Mid);
        let mut counts = [0; 3];
        for c in Cell::all() {
            counts[c.colour() as usize] += 1;
            for d in ORTHOGONAL {
                if let Some(n) = c.step(d) {
                    assert_ne!(n.colour(), c.colour(), "{c} {n}");
                }
            }
            for d in DIAGONAL {
                if let Some(n) = c.step(d) {
                    assert_eq!(n.colour(), c.colour(), "{c} {n}");
                }
            }
        }
        assert_eq!(counts, [14, 15, 15]);
        // The colours of the whole board, as the notation page draws them.
        let drawn = picture(1, |c| c.colour().name()[..1].to_owned()).join("\n");
        // Each height has one colour: the rows run dark, mid, light from d1 up.
        let expected = [
            "      m",
            "    l   l",
            "  d   d   d",
            "m   m   m   m",
            "  l   l   l",
            "d   d   d   d",
            "  m   m   m",
            "l   l   l   l",
            "  d   d   d",
            "m   m   m   m",
            "  l   l   l",
            "d   d   d   d",
            "  m   m   m",
            "    l   l",
            "      d",
        ]
        .join("\n");
        assert_eq!(drawn, expected);
    }

    #[test]
    fn the_picture_has_one_column_per_file() {
        let rows = picture(2, |c| c.to_string());
        assert_eq!(rows.len(), 15);
        assert_eq!(rows[0].trim(), "d8");
        assert_eq!(rows[14].trim(), "d1");
        assert!(rows[3].starts_with("a5"));
        assert!(rows[3].ends_with("g5"));
    }
}
