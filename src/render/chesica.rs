//! Chesica: the 8 by 8 board; a promoted piece stands on a gold disc, like a crowned
//! draughts king, with a small crown, so it never looks like an unpromoted one.

use super::grid::{self, Grid};
use super::svg::Svg;
use super::{Marks, Render};
use crate::games::chesica::Turn;
use crate::games::{Chesica, Game, Man};

impl Render for Chesica {
    fn draw(&self, marks: &Marks) -> String {
        let grid = Grid::new(8, 8);
        let mut svg = grid.start(&format!("Chesica: {}", self.position_string()));
        grid.squares(&mut svg, |file, row| Some(Grid::checkered(file, row + 1)));
        grid.marks(&mut svg, marks);
        grid.coordinates(&mut svg, |_| true);
        grid.side_to_move(&mut svg, self.side_to_move());
        if let Some(snapshot) = self.snapshot() {
            let cell = grid.cell;
            grid::draw_pieces(&grid, &mut svg, &snapshot, |svg, man, x, y| {
                if man.kind.name.starts_with("Promoted") {
                    promoted_mark(svg, man, x, y, cell);
                }
            });
        }
        svg.finish()
    }

    /// Chesica has no King and no check.
    fn checked(&self) -> Option<Vec<String>> {
        Some(Vec::new())
    }

    /// The piece's square, then every square it lands on (each jump of a chain).
    fn clicks(&self, turn: &Turn) -> Vec<String> {
        std::iter::once(turn.from())
            .chain(turn.landings().iter().copied())
            .map(|square| square.to_string())
            .collect()
    }

    fn hit_areas(&self, svg: &mut Svg) {
        super::chess::square_hit_areas(svg, 8, 8);
    }
}

/// The gold disc under a promoted piece and the crown in the square's corner.
fn promoted_mark(svg: &mut Svg, man: &Man, x: f32, y: f32, cell: f32) {
    let _ = man;
    svg.circle(
        x + cell / 2.0,
        y + cell * 0.56,
        cell * 0.44,
        "class=\"promoted\" fill=\"#e3b23c\" stroke=\"#7a5a10\" stroke-width=\"2\"",
    );
    svg.circle(
        x + cell / 2.0,
        y + cell * 0.56,
        cell * 0.36,
        "fill=\"none\" stroke=\"#7a5a10\" stroke-width=\"1.5\"",
    );
    let s = cell / 100.0;
    svg.open_at(x + cell * 0.66, y + cell * 0.02, s, "");
    svg.path(
        "M2 26L6 6L14 16L20 2L26 16L34 6L38 26Z",
        "fill=\"#f2c744\" stroke=\"#6b4c08\" stroke-width=\"3\" stroke-linejoin=\"round\"",
    );
    svg.close();
}
