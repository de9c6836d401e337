//! Orthodox chess: the 8 by 8 board and the chess pieces.

use super::grid::{self, Grid};
use super::svg::Svg;
use super::{Marks, Render, kings};
use crate::games::chess::Move;
use crate::games::{Chess, Game};

impl Render for Chess {
    fn draw(&self, marks: &Marks) -> String {
        let grid = Grid::new(8, 8);
        let mut svg = grid.start(&format!("Chess: {}", self.position_string()));
        grid.squares(&mut svg, |file, row| Some(Grid::checkered(file, row + 1)));
        grid.marks(&mut svg, marks);
        grid.coordinates(&mut svg, |_| true);
        grid.side_to_move(&mut svg, self.side_to_move());
        if let Some(snapshot) = self.snapshot() {
            grid::draw_pieces(&grid, &mut svg, &snapshot, |_, _, _, _| {});
        }
        svg.finish()
    }

    fn checked(&self) -> Option<Vec<String>> {
        Some(match self.snapshot() {
            Some(snapshot) if self.is_check() => kings(&snapshot, self.side_to_move()),
            _ => Vec::new(),
        })
    }

    /// The piece's square and its target; castling is the King's two squares, and the
    /// promotion piece is told apart by the token.
    fn clicks(&self, turn: &Move) -> Vec<String> {
        vec![turn.from.to_string(), turn.to.to_string()]
    }

    fn hit_areas(&self, svg: &mut Svg) {
        square_hit_areas(svg, 8, 8);
    }
}

/// The hit areas of a plain board of `files` by `ranks` squares.
pub(super) fn square_hit_areas(svg: &mut Svg, files: u8, ranks: u8) {
    let grid = Grid::new(files, ranks);
    grid.hit_areas(svg, |file, row| Some(grid.square_name(file, row)));
}
