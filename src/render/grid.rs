//! The square boards (chess, Chess with wickets, Chesica, African Chess, Chesscala): where
//! each square is, the squares, the coordinates, the last turn's highlight and the check
//! glow. Places are named as the games name them: a file letter and a rank number.

use super::Marks;
use super::glyphs;
use super::svg::{Svg, escape};
use crate::games::Color;

/// The frame round the board.
pub const FRAME: &str = "#5b4636";
/// The coordinates on the frame.
pub const INK: &str = "#f3e9d8";
/// Light squares.
pub const LIGHT: &str = "#efdab7";
/// Dark squares.
pub const DARK: &str = "#b78a62";
/// The last turn's squares, laid over the square colour.
pub const TOUCHED: &str = "fill=\"#f2df3a\" fill-opacity=\"0.55\"";

/// A rectangular board of `files` by `rows` squares, rows numbered from `first_rank` at
/// the bottom.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    /// Files, from a.
    pub files: u8,
    /// Rows drawn, bottom to top.
    pub rows: u8,
    /// The rank number of the bottom row (1, or 0 when the wickets' row is drawn).
    pub first_rank: u8,
    /// The side of a square.
    pub cell: f32,
    /// The frame's width, where the coordinates stand.
    pub margin: f32,
}

impl Grid {
    /// A board of `files` by `ranks` squares of 60 units, ranks from 1.
    #[must_use]
    pub const fn new(files: u8, ranks: u8) -> Grid {
        Grid {
            files,
            rows: ranks,
            first_rank: 1,
            cell: 60.0,
            margin: 26.0,
        }
    }

    /// The picture's width.
    #[must_use]
    pub fn width(&self) -> f32 {
        2.0 * self.margin + f32::from(self.files) * self.cell
    }

    /// The picture's height.
    #[must_use]
    pub fn height(&self) -> f32 {
        2.0 * self.margin + f32::from(self.rows) * self.cell
    }

    /// The top left corner of the square at `file` (0 = a) and `row` (0 = bottom).
    #[must_use]
    pub fn corner(&self, file: u8, row: u8) -> (f32, f32) {
        (
            self.margin + f32::from(file) * self.cell,
            self.margin + f32::from(self.rows - 1 - row) * self.cell,
        )
    }

    /// The file and row of a place name (`e4`, `e0`), if it is on this grid.
    #[must_use]
    pub fn locate(&self, name: &str) -> Option<(u8, u8)> {
        let mut chars = name.chars();
        let file = chars.next()?;
        if !file.is_ascii_lowercase() {
            return None;
        }
        let file = file as u8 - b'a';
        let rank: u8 = chars.as_str().parse().ok()?;
        let row = rank.checked_sub(self.first_rank)?;
        (file < self.files && row < self.rows).then_some((file, row))
    }

    /// The top left corner of a named place.
    #[must_use]
    pub fn place_corner(&self, name: &str) -> Option<(f32, f32)> {
        self.locate(name).map(|(file, row)| self.corner(file, row))
    }

    /// Starts the picture: the document and the frame.
    #[must_use]
    pub fn start(&self, title: &str) -> Svg {
        let mut svg = Svg::new(self.width(), self.height(), title);
        svg.rect(
            0.0,
            0.0,
            self.width(),
            self.height(),
            &format!("fill=\"{FRAME}\" rx=\"6\""),
        );
        svg
    }

    /// Draws every square that `colour` gives a colour (`None`: no square there).
    pub fn squares(&self, svg: &mut Svg, colour: impl Fn(u8, u8) -> Option<&'static str>) {
        svg.open("id=\"squares\"");
        for row in 0..self.rows {
            for file in 0..self.files {
                if let Some(fill) = colour(file, row) {
                    let (x, y) = self.corner(file, row);
                    svg.rect(x, y, self.cell, self.cell, &format!("fill=\"{fill}\""));
                }
            }
        }
        svg.close();
    }

    /// The usual two colours, a1 dark.
    #[must_use]
    pub fn checkered(file: u8, rank_from_one: u8) -> &'static str {
        if (file + rank_from_one) % 2 == 1 {
            DARK
        } else {
            LIGHT
        }
    }

    /// Lays the last turn's highlight and the check glow on the squares.
    pub fn marks(&self, svg: &mut Svg, marks: &Marks) {
        for name in &marks.touched {
            if let Some((x, y)) = self.place_corner(name) {
                svg.rect(
                    x,
                    y,
                    self.cell,
                    self.cell,
                    &format!("id=\"last-{}\" {TOUCHED}", escape(name)),
                );
            }
        }
        for name in &marks.check {
            if let Some((x, y)) = self.place_corner(name) {
                check_glow(
                    svg,
                    name,
                    x + self.cell / 2.0,
                    y + self.cell / 2.0,
                    self.cell / 2.0,
                );
            }
        }
    }

    /// The name of the square at `file` (0 = a) and `row` (0 = bottom): `e4`, `e0`.
    #[must_use]
    pub fn square_name(&self, file: u8, row: u8) -> String {
        format!(
            "{}{}",
            char::from(b'a' + file),
            u16::from(row) + u16::from(self.first_rank)
        )
    }

    /// The play page's hit areas: a square over every place that `name` names (`None`:
    /// no place there), carrying `data-place="NAME"`.
    pub fn hit_areas(&self, svg: &mut Svg, name: impl Fn(u8, u8) -> Option<String>) {
        for row in 0..self.rows {
            for file in 0..self.files {
                if let Some(name) = name(file, row) {
                    let (x, y) = self.corner(file, row);
                    svg.rect(
                        x,
                        y,
                        self.cell,
                        self.cell,
                        &format!("data-place=\"{}\"", escape(&name)),
                    );
                }
            }
        }
    }

    /// The side-to-move marker in the frame right of the board: beside the bottom row
    /// for White, the top row for Black (the edge each side plays from).
    pub fn side_to_move(&self, svg: &mut Svg, side: Color) {
        let row = match side {
            Color::White => 0,
            Color::Black => self.rows - 1,
        };
        let (_, y) = self.corner(0, row);
        super::side_to_move(
            svg,
            side,
            self.width() - self.margin / 2.0,
            y + self.cell / 2.0,
            self.margin * 0.38,
        );
    }

    /// The file letters under the board and the rank numbers left of it; `show_row`
    /// says which rows get a number.
    pub fn coordinates(&self, svg: &mut Svg, show_row: impl Fn(u8) -> bool) {
        svg.open("id=\"coordinates\"");
        let size = (self.margin * 0.42).round();
        let below = self.height() - self.margin / 2.0;
        for file in 0..self.files {
            let (x, _) = self.corner(file, 0);
            let letter = char::from(b'a' + file).to_string();
            glyphs::label(svg, &letter, x + self.cell / 2.0, below, size, INK);
        }
        for row in (0..self.rows).filter(|&row| show_row(row)) {
            let (_, y) = self.corner(0, row);
            let number = (u16::from(row) + u16::from(self.first_rank)).to_string();
            glyphs::label(
                svg,
                &number,
                self.margin / 2.0,
                y + self.cell / 2.0,
                size,
                INK,
            );
        }
        svg.close();
    }
}

/// A red glow round a piece in check, centred on `(cx, cy)`.
pub fn check_glow(svg: &mut Svg, name: &str, cx: f32, cy: f32, r: f32) {
    svg.open(&format!("id=\"check-{}\"", escape(name)));
    svg.circle(cx, cy, r * 0.98, "fill=\"#e8271e\" fill-opacity=\"0.35\"");
    svg.circle(cx, cy, r * 0.75, "fill=\"#e8271e\" fill-opacity=\"0.45\"");
    svg.circle(cx, cy, r * 0.5, "fill=\"#ff3b2f\" fill-opacity=\"0.5\"");
    svg.close();
}

/// Draws the pieces of a snapshot whose places are on the grid, one per place, with
/// `name` giving the place's name on the grid; `extra` draws what a game adds to a
/// piece (a promotion mark).
pub fn draw_pieces(
    grid: &Grid,
    svg: &mut Svg,
    snapshot: &crate::games::Snapshot,
    mut extra: impl FnMut(&mut Svg, &crate::games::Man, f32, f32),
) {
    svg.open("id=\"pieces\"");
    for place in &snapshot.places {
        let Some((x, y)) = grid.place_corner(&place.name) else {
            continue;
        };
        for man in &place.pieces {
            let Some(shape) = super::pieces::Shape::from_name(man.kind.name) else {
                continue;
            };
            svg.open(&format!("id=\"piece-{}\"", escape(&place.name)));
            extra(svg, man, x, y);
            let inset = grid.cell * 0.06;
            super::pieces::piece(
                svg,
                shape,
                man.color,
                x + inset,
                y + inset,
                grid.cell - 2.0 * inset,
            );
            svg.close();
        }
    }
    svg.close();
}
