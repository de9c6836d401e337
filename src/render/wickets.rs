//! Chess with wickets: the 8 by 8 board with the two wickets w0 and w9 drawn where e0 and
//! e9 would be (a patch of pitch with stumps, named in the frame beside it), each side's
//! Ball (on its Ball-haver's square, or loose), and the Defender's shield.

use super::glyphs;
use super::grid::{self, Grid};
use super::pieces;
use super::svg::{Svg, escape};
use super::{Marks, Render, kings};
use crate::games::wickets::{Decision, Loc, Turn};
use crate::games::{Color, Game, Wickets};

/// The pitch under a wicket.
const PITCH: &str = "#8db96a";

/// The grid's name of a place: the wickets stand at e0 and e9.
fn grid_name(name: &str) -> String {
    match name {
        "w0" => "e0".to_owned(),
        "w9" => "e9".to_owned(),
        other => other.to_owned(),
    }
}

impl Render for Wickets {
    fn draw(&self, marks: &Marks) -> String {
        let grid = wickets_grid();
        let mut svg = grid.start(&format!("Chess with wickets: {}", self.position_string()));
        grid.squares(&mut svg, |file, row| match row {
            0 | 9 => (file == 4).then_some(PITCH),
            _ => Some(Grid::checkered(file, row)),
        });
        for row in [0, 9] {
            let (x, y) = grid.corner(4, row);
            stumps(&mut svg, x, y, grid.cell);
        }
        let marks = Marks {
            touched: marks.touched.iter().map(|name| grid_name(name)).collect(),
            check: marks.check.iter().map(|name| grid_name(name)).collect(),
        };
        grid.marks(&mut svg, &marks);
        grid.coordinates(&mut svg, |row| (1..=8).contains(&row));
        wicket_labels(&mut svg, &grid);
        grid.side_to_move(&mut svg, self.side_to_move());
        let Some(mut snapshot) = self.snapshot() else {
            return svg.finish();
        };
        for place in &mut snapshot.places {
            place.name = grid_name(&place.name);
        }
        grid::draw_pieces(&grid, &mut svg, &snapshot, |_, _, _, _| {});
        let cell = grid.cell;
        svg.open("id=\"balls\"");
        for color in [Color::White, Color::Black] {
            let corner = |loc: Loc| grid.place_corner(&grid_name(&loc.to_string()));
            if let Some(loc) = self.defender(color)
                && let Some((x, y)) = corner(loc)
            {
                svg.open(&format!("id=\"defender-{}\"", escape(&loc.to_string())));
                pieces::shield(
                    &mut svg,
                    color,
                    x + cell * 0.02,
                    y + cell * 0.02,
                    cell * 0.36,
                );
                svg.close();
            }
            if let Some(loc) = self.ball_haver(color)
                && let Some((x, y)) = corner(loc)
            {
                svg.open(&format!("id=\"haver-{}\"", escape(&loc.to_string())));
                pieces::ball(&mut svg, color, x + cell * 0.8, y + cell * 0.2, cell * 0.17);
                svg.close();
            }
            if let Some(loc) = self.loose_ball(color)
                && let Some((x, y)) = corner(loc)
            {
                let (cx, cy, r) = if self.piece_at(loc).is_some() {
                    (x + cell * 0.2, y + cell * 0.8, cell * 0.16)
                } else {
                    (x + cell / 2.0, y + cell / 2.0, cell * 0.2)
                };
                svg.open(&format!("id=\"loose-{}\"", escape(&loc.to_string())));
                pieces::ball(&mut svg, color, cx, cy, r);
                svg.close();
            }
        }
        svg.close();
        svg.finish()
    }

    fn checked(&self) -> Option<Vec<String>> {
        let side = self.side_to_move();
        Some(match self.snapshot() {
            Some(snapshot) if self.in_check(side) => kings(&snapshot, side),
            _ => Vec::new(),
        })
    }

    /// In the order the parts happen: the new Defender's place when one is named, the
    /// piece's place and its target (castling: the King's), where a captured Ball is
    /// dropped, where the Ball is thrown (a wicket, `w0` or `w9`, for a scoring attempt),
    /// and each sacrificed piece's place. Rolls and cards are no places: the token tells
    /// them apart.
    fn clicks(&self, turn: &Turn) -> Vec<String> {
        let sacrifices = turn.decision.iter().filter_map(|step| match step {
            Decision::Sacrifice(place) => Some(*place),
            _ => None,
        });
        turn.naming
            .into_iter()
            .chain([turn.mv.from, turn.mv.to])
            .chain(turn.drop)
            .chain(turn.throw)
            .chain(sacrifices)
            .map(|place| place.to_string())
            .collect()
    }

    fn hit_areas(&self, svg: &mut Svg) {
        let grid = wickets_grid();
        grid.hit_areas(svg, |file, row| match row {
            0 => (file == 4).then(|| "w0".to_owned()),
            9 => (file == 4).then(|| "w9".to_owned()),
            _ => Some(grid.square_name(file, row)),
        });
    }
}

/// The wickets' board: ranks 1 to 8 with a row below and above for the wickets.
fn wickets_grid() -> Grid {
    Grid {
        rows: 10,
        first_rank: 0,
        ..Grid::new(8, 10)
    }
}

/// The wickets' names, `w0` and `w9`, in the frame left of each wicket's patch.
fn wicket_labels(svg: &mut Svg, grid: &Grid) {
    for (name, row) in [("w0", 0), ("w9", 9)] {
        let (x, y) = grid.corner(4, row);
        svg.open(&format!("id=\"label-{name}\""));
        glyphs::label(
            svg,
            name,
            x - grid.cell * 0.3,
            y + grid.cell / 2.0,
            (grid.margin * 0.42).round(),
            grid::INK,
        );
        svg.close();
    }
}

/// Three stumps and two bails in the wicket's square.
fn stumps(svg: &mut Svg, x: f32, y: f32, cell: f32) {
    let attrs = "fill=\"#f3ead2\" stroke=\"#6b5a3a\" stroke-width=\"1\"";
    for index in 0..3u8 {
        let sx = x + cell * (0.3 + 0.18 * f32::from(index));
        svg.rect(sx, y + cell * 0.22, cell * 0.06, cell * 0.62, attrs);
    }
    svg.rect(
        x + cell * 0.29,
        y + cell * 0.18,
        cell * 0.2,
        cell * 0.04,
        attrs,
    );
    svg.rect(
        x + cell * 0.51,
        y + cell * 0.18,
        cell * 0.2,
        cell * 0.04,
        attrs,
    );
}

#[cfg(test)]
mod tests {
    use super::grid_name;

    #[test]
    fn the_wickets_stand_on_the_e_file() {
        assert_eq!(grid_name("w0"), "e0");
        assert_eq!(grid_name("w9"), "e9");
        assert_eq!(grid_name("e4"), "e4");
    }
}
