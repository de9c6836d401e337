//! Cascudo: Glinski's hexagonal board of 44 cells, files upright and neighbouring files
//! half a cell apart, in its three cell colours, with the chess pieces.

use super::glyphs;
use super::grid::{FRAME, INK, TOUCHED, check_glow};
use super::pieces::{self, Shape};
use super::svg::{Svg, escape};
use super::{Marks, Render, kings};
use crate::games::cascudo::Turn;
use crate::games::cascudo::hex::{self, Cell, Colour};
use crate::games::{Cascudo, Color, Game};

/// The radius of a cell (centre to corner).
const R: f32 = 32.0;
/// The frame's width.
const MARGIN: f32 = 30.0;
/// Half a cell's height.
const HALF: f32 = R * 0.866_025_4;

fn centre(cell: Cell) -> (f32, f32) {
    (
        MARGIN + R + f32::from(cell.file()) * 1.5 * R,
        MARGIN + HALF + f32::from(hex::MAX_HEIGHT - cell.height()) * HALF,
    )
}

fn corners(cx: f32, cy: f32, r: f32) -> [(f32, f32); 6] {
    let h = r * 0.866_025_4;
    [
        (cx + r, cy),
        (cx + r / 2.0, cy + h),
        (cx - r / 2.0, cy + h),
        (cx - r, cy),
        (cx - r / 2.0, cy - h),
        (cx + r / 2.0, cy - h),
    ]
}

const WIDTH: f32 = 2.0 * MARGIN + 11.0 * R;
const HEIGHT: f32 = 2.0 * MARGIN + (hex::MAX_HEIGHT as f32 + 2.0) * HALF;

impl Render for Cascudo {
    fn draw(&self, marks: &Marks) -> String {
        let mut svg = Svg::new(
            WIDTH,
            HEIGHT,
            &format!("Cascudo: {}", self.position_string()),
        );
        svg.rect(
            0.0,
            0.0,
            WIDTH,
            HEIGHT,
            &format!("fill=\"{FRAME}\" rx=\"6\""),
        );
        svg.open("id=\"squares\" stroke=\"#4a382b\" stroke-width=\"1.5\"");
        for cell in Cell::all() {
            let (cx, cy) = centre(cell);
            let fill = match cell.colour() {
                Colour::Light => "#f1dfbf",
                Colour::Mid => "#cfa57a",
                Colour::Dark => "#9c6f4a",
            };
            svg.polygon(&corners(cx, cy, R), &format!("fill=\"{fill}\""));
        }
        svg.close();
        for name in &marks.touched {
            if let Some(cell) = Cell::from_name(name) {
                let (cx, cy) = centre(cell);
                svg.polygon(
                    &corners(cx, cy, R - 1.0),
                    &format!("id=\"last-{}\" {TOUCHED}", escape(name)),
                );
            }
        }
        for name in &marks.check {
            if let Some(cell) = Cell::from_name(name) {
                let (cx, cy) = centre(cell);
                check_glow(&mut svg, name, cx, cy, HALF);
            }
        }
        coordinates(&mut svg);
        // Whose turn it is, in the frame right of the board, on that side's edge.
        let y = match self.side_to_move() {
            Color::White => HEIGHT - MARGIN - HALF,
            Color::Black => MARGIN + HALF,
        };
        super::side_to_move(&mut svg, self.side_to_move(), WIDTH - MARGIN / 2.0, y, 11.0);
        svg.open("id=\"pieces\"");
        if let Some(snapshot) = self.snapshot() {
            for place in &snapshot.places {
                let Some(cell) = Cell::from_name(&place.name) else {
                    continue;
                };
                let (cx, cy) = centre(cell);
                for man in &place.pieces {
                    let Some(shape) = Shape::from_name(man.kind.name) else {
                        continue;
                    };
                    let size = R * 1.4;
                    svg.open(&format!("id=\"piece-{}\"", escape(&place.name)));
                    pieces::piece(
                        &mut svg,
                        shape,
                        man.color,
                        cx - size / 2.0,
                        cy - size / 2.0,
                        size,
                    );
                    svg.close();
                }
            }
        }
        svg.close();
        svg.finish()
    }

    fn checked(&self) -> Option<Vec<String>> {
        Some(match self.snapshot() {
            Some(snapshot) if self.is_check() => kings(&snapshot, self.side_to_move()),
            _ => Vec::new(),
        })
    }

    /// The first mover's cell, then each move's destination in order: a cascade is
    /// clicked link by link.
    fn clicks(&self, turn: &Turn) -> Vec<String> {
        turn.cells().iter().map(ToString::to_string).collect()
    }

    fn hit_areas(&self, svg: &mut Svg) {
        for cell in Cell::all() {
            let (cx, cy) = centre(cell);
            svg.polygon(
                &corners(cx, cy, R),
                &format!("data-place=\"{}\"", escape(&cell.to_string())),
            );
        }
    }
}

/// File letters under each file's first cell; rank numbers left of the a-file and above
/// the left end of the ranks that start higher (b6, c7, d8).
fn coordinates(svg: &mut Svg) {
    svg.open("id=\"coordinates\"");
    let size = 11.0;
    for file in 0..hex::FILES as u8 {
        if let Some(cell) = Cell::from_file_rank(file, 0) {
            let (cx, cy) = centre(cell);
            glyphs::label(
                svg,
                &char::from(b'a' + file).to_string(),
                cx,
                cy + HALF + 12.0,
                size,
                INK,
            );
        }
    }
    for rank in 0..8u8 {
        let Some(cell) = (0..hex::FILES as u8).find_map(|file| Cell::from_file_rank(file, rank))
        else {
            continue;
        };
        let (cx, cy) = centre(cell);
        let (x, y) = if cell.file() == 0 {
            (cx - R - 9.0, cy)
        } else {
            (cx - R * 0.95, cy - HALF - 2.0)
        };
        glyphs::label(svg, &(rank + 1).to_string(), x, y, size, INK);
    }
    svg.close();
}
