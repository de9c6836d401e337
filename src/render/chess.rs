//! Orthodox chess: the 8 by 8 board and the chess pieces.

use super::grid::{self, Grid};
use super::{Marks, Render, kings};
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
}
