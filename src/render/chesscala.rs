//! Chesscala: the 6 by 8 board with its three mancala circuits (a loop over each pair of
//! files with arrows in the sowing direction: up the b, d and f files, down the a, c and
//! e files), each stack drawn as a pile showing every piece in the stack's order from
//! the bottom (two pieces on a diagonal, three or four in two rows, bottom row first),
//! framed in the colour of the side that controls it (white and black dashes when both
//! do).

use super::grid::Grid;
use super::pieces::{self, Shape};
use super::svg::{Svg, escape, num};
use super::{Marks, Render, kings};
use crate::games::chesscala::{Move, Role, Sq, Turn};
use crate::games::{Chesscala, Color, Game};

/// The circuits' colours, a-b, c-d, e-f.
const CIRCUITS: [&str; 3] = ["#2f7fc1", "#2e9a5a", "#c0462f"];

impl Render for Chesscala {
    fn draw(&self, marks: &Marks) -> String {
        let grid = Grid::new(6, 8);
        let mut svg = grid.start(&format!("Chesscala: {}", self.position_string()));
        grid.squares(&mut svg, |file, row| Some(Grid::checkered(file, row + 1)));
        grid.marks(&mut svg, marks);
        grid.coordinates(&mut svg, |_| true);
        grid.side_to_move(&mut svg, self.side_to_move());
        circuits(&mut svg, &grid);
        svg.open("id=\"pieces\"");
        for rank in 0..8 {
            for file in 0..6 {
                let square = Sq::new(file, rank);
                let stack = self.stack(square);
                if stack.is_empty() {
                    continue;
                }
                let (x, y) = grid.corner(file, rank);
                svg.open(&format!("id=\"piece-{}\"", escape(&square.to_string())));
                let pile: Vec<_> = stack.pieces().collect();
                let cell = grid.cell;
                if pile.len() == 1 {
                    let inset = cell * 0.06;
                    let piece = pile[0];
                    pieces::piece(
                        &mut svg,
                        shape(piece.role()),
                        piece.color(),
                        x + inset,
                        y + inset,
                        cell - 2.0 * inset,
                    );
                } else {
                    control(
                        &mut svg,
                        stack.controlled_by(Color::White),
                        stack.controlled_by(Color::Black),
                        x,
                        y,
                        cell,
                    );
                    let (size, places): (f32, &[(f32, f32)]) = if pile.len() == 2 {
                        (0.54, &[(0.04, 0.42), (0.42, 0.04)])
                    } else {
                        (
                            0.47,
                            &[(0.04, 0.49), (0.49, 0.49), (0.04, 0.04), (0.49, 0.04)],
                        )
                    };
                    for (piece, (dx, dy)) in pile.iter().zip(places) {
                        pieces::piece(
                            &mut svg,
                            shape(piece.role()),
                            piece.color(),
                            x + dx * cell,
                            y + dy * cell,
                            size * cell,
                        );
                    }
                }
                svg.close();
            }
        }
        svg.close();
        svg.finish()
    }

    fn checked(&self) -> Option<Vec<String>> {
        let snapshot = self.snapshot()?;
        let mut places = Vec::new();
        for side in [Color::White, Color::Black] {
            if self.is_check(side) {
                places.extend(kings(&snapshot, side));
            }
        }
        Some(places)
    }

    /// Each move's places in turn: a capture's piece and its victim's square (the
    /// Hammer's landing between them; a Bomb in its own stack names that square twice),
    /// a sowing's square and every square a piece is laid on, in order (the order of the
    /// pieces is told apart by the token), a King step or double move's two squares.
    fn clicks(&self, turn: &Turn) -> Vec<String> {
        let mut position = self.clone();
        let mut clicks = Vec::new();
        for step in turn.moves() {
            let laid = position.apply(step);
            match *step {
                Move::Capture {
                    from, to, target, ..
                } => {
                    clicks.push(from);
                    if to != target {
                        clicks.push(to);
                    }
                    clicks.push(target);
                }
                Move::Sow { from, len, .. } => {
                    clicks.push(from);
                    clicks.extend_from_slice(&laid[..usize::from(len)]);
                }
                Move::King { from, to } | Move::Double { from, to } => {
                    clicks.extend([from, to]);
                }
            }
        }
        clicks.iter().map(ToString::to_string).collect()
    }

    fn hit_areas(&self, svg: &mut Svg) {
        super::chess::square_hit_areas(svg, 6, 8);
    }
}

fn shape(role: Role) -> Shape {
    match role {
        Role::King => Shape::King,
        Role::Queen => Shape::Queen,
        Role::Rook => Shape::Rook,
        Role::Bishop => Shape::Bishop,
        Role::Knight => Shape::Knight,
        Role::Hammer => Shape::Hammer,
        Role::Bomb => Shape::Bomb,
        Role::Man => Shape::Man,
        Role::Pawn => Shape::Pawn,
    }
}

/// The three circuits: a loop through the centres of each pair of files, with arrows
/// between ranks 4 and 5 and along the ends.
fn circuits(svg: &mut Svg, grid: &Grid) {
    svg.open("id=\"circuits\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\"");
    let half = grid.cell / 2.0;
    for (index, colour) in CIRCUITS.iter().enumerate() {
        let left = index as u8 * 2;
        let (lx, bottom) = grid.corner(left, 0);
        let (rx, top) = grid.corner(left + 1, 7);
        let (lx, rx, top, bottom) = (lx + half, rx + half, top + half, bottom + half);
        svg.path(
            &format!(
                "M{} {}V{}H{}V{}Z",
                num(rx),
                num(bottom),
                num(top),
                num(lx),
                num(bottom)
            ),
            &format!("stroke=\"{colour}\" stroke-width=\"3\" stroke-opacity=\"0.55\""),
        );
        let middle = (top + bottom) / 2.0;
        let arrow = grid.cell * 0.16;
        // Up the right file, down the left one, left along the top, right along the bottom.
        for (x, y, dx, dy) in [
            (rx, middle, 0.0, -1.0),
            (lx, middle, 0.0, 1.0),
            ((lx + rx) / 2.0, top, -1.0, 0.0),
            ((lx + rx) / 2.0, bottom, 1.0, 0.0),
        ] {
            let tip = (x + dx * arrow, y + dy * arrow);
            let back = (x - dx * arrow * 0.4, y - dy * arrow * 0.4);
            let side = (-dy * arrow * 0.8, dx * arrow * 0.8);
            svg.polygon(
                &[
                    tip,
                    (back.0 + side.0, back.1 + side.1),
                    (back.0 - side.0, back.1 - side.1),
                ],
                &format!("fill=\"{colour}\" stroke=\"#1b1b1b\" stroke-width=\"1\""),
            );
        }
    }
    svg.close();
}

/// The frame that says who controls a stack of several pieces: white, black, or white
/// and black dashes when both sides have as many pieces in it.
fn control(svg: &mut Svg, white: bool, black: bool, x: f32, y: f32, cell: f32) {
    let inset = cell * 0.05;
    let (x, y, side) = (x + inset, y + inset, cell - 2.0 * inset);
    let width = num(cell * 0.06);
    let base = |colour: &str| {
        format!("fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\" rx=\"4\"")
    };
    match (white, black) {
        (true, true) => {
            svg.rect(
                x,
                y,
                side,
                side,
                &format!("class=\"control-both\" {}", base("#fbfaf5")),
            );
            svg.rect(
                x,
                y,
                side,
                side,
                &format!(
                    "{} stroke-dasharray=\"{} {}\"",
                    base("#2a2a2e"),
                    num(cell * 0.1),
                    num(cell * 0.1)
                ),
            );
        }
        (true, false) => svg.rect(
            x,
            y,
            side,
            side,
            &format!("class=\"control-white\" {}", base("#fbfaf5")),
        ),
        _ => svg.rect(
            x,
            y,
            side,
            side,
            &format!("class=\"control-black\" {}", base("#2a2a2e")),
        ),
    }
}
