//! African Chess: the 8 by 8 board, each square's stones drawn as a pile of coins (White's
//! ivory, Black's ebony, a touchstone with a gold rim and a gold dot), with the count of
//! each colour's stones in the square's upper corners.

use super::glyphs;
use super::grid::Grid;
use super::svg::{Svg, escape};
use super::{Marks, Render};
use crate::games::african::{Turn, TurnKind};
use crate::games::{African, Color, Game, Man};

impl Render for African {
    fn draw(&self, marks: &Marks) -> String {
        let grid = Grid::new(8, 8);
        let mut svg = grid.start(&format!("African Chess: {}", self.position_string()));
        grid.squares(&mut svg, |file, row| Some(Grid::checkered(file, row + 1)));
        grid.marks(&mut svg, marks);
        grid.coordinates(&mut svg, |_| true);
        grid.side_to_move(&mut svg, self.side_to_move());
        let Some(snapshot) = self.snapshot() else {
            return svg.finish();
        };
        svg.open("id=\"pieces\"");
        for place in &snapshot.places {
            let Some((x, y)) = grid.place_corner(&place.name) else {
                continue;
            };
            if place.pieces.is_empty() {
                continue;
            }
            svg.open(&format!("id=\"piece-{}\"", escape(&place.name)));
            pile(&mut svg, &place.pieces, x, y, grid.cell);
            svg.close();
        }
        svg.close();
        svg.finish()
    }

    /// A guarded touchstone (one that could be captured) is African Chess's check.
    fn checked(&self) -> Option<Vec<String>> {
        let side = self.side_to_move();
        if !self.is_guarded() {
            return Some(Vec::new());
        }
        Some(
            self.snapshot()
                .map(|snapshot| {
                    snapshot
                        .places
                        .iter()
                        .filter(|place| place.pieces.iter().any(|man| is_touchstone(man, side)))
                        .map(|place| place.name.clone())
                        .collect()
                })
                .unwrap_or_default(),
        )
    }

    /// A step: the stone's square and its target. A sowing: the group's square and the
    /// first square of its direction, then the square where the touchstone ends when
    /// the token names it (`d1N=d3`: when several are legal).
    fn clicks(&self, turn: &Turn) -> Vec<String> {
        let from = turn.from();
        let mut clicks = vec![from.to_string()];
        match turn.kind() {
            TurnKind::Step { to, .. } => clicks.push(to.to_string()),
            TurnKind::Sow {
                direction,
                touchstone,
            } => {
                if let Some(first) = direction.walk(from, 1) {
                    clicks.push(first.to_string());
                }
                if let Some(touchstone) = touchstone
                    && self.write_turn(turn).contains('=')
                {
                    clicks.push(touchstone.to_string());
                }
            }
        }
        clicks
    }

    fn hit_areas(&self, svg: &mut Svg) {
        super::chess::square_hit_areas(svg, 8, 8);
    }
}

fn is_touchstone(man: &Man, side: Color) -> bool {
    man.color == side && man.kind.name == "Touchstone"
}

/// The stones of a square as coins piled bottom up (White's first, each colour's
/// touchstone at the bottom of its colour), and the counts per colour.
fn pile(svg: &mut Svg, stones: &[Man], x: f32, y: f32, cell: f32) {
    let mut ordered: Vec<&Man> = stones.iter().collect();
    ordered.sort_by_key(|man| (man.color, man.kind.name != "Touchstone"));
    let (cx, width, height) = (x + cell / 2.0, cell * 0.66, cell * 0.24);
    let step = cell * 0.13;
    for (index, man) in ordered.iter().enumerate() {
        let cy = y + cell * 0.76 - step * index as f32;
        let (face, rim) = match man.color {
            Color::White => ("#f7f1df", "#d9cfb2"),
            Color::Black => ("#3a3431", "#1c1816"),
        };
        let touch = man.kind.name == "Touchstone";
        let edge = if touch { "#d29b16" } else { "#141414" };
        // The coin's side, then its face.
        svg.path(
            &format!(
                "M{} {}v{}a{} {} 0 0 0 {} 0v-{}Z",
                super::svg::num(cx - width / 2.0),
                super::svg::num(cy),
                super::svg::num(step * 0.7),
                super::svg::num(width / 2.0),
                super::svg::num(height / 2.0),
                super::svg::num(width),
                super::svg::num(step * 0.7)
            ),
            &format!(
                "fill=\"{}\" stroke=\"{edge}\" stroke-width=\"{}\"",
                if touch { "#e5b23a" } else { rim },
                if touch { "2" } else { "1.2" }
            ),
        );
        svg.raw(&format!(
            "<ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" fill=\"{face}\" stroke=\"{edge}\" stroke-width=\"{}\"/>",
            super::svg::num(cx),
            super::svg::num(cy),
            super::svg::num(width / 2.0),
            super::svg::num(height / 2.0),
            if touch { "2.5" } else { "1.2" }
        ));
        if touch && index + 1 == ordered.len() {
            svg.circle(
                cx,
                cy,
                cell * 0.06,
                "fill=\"#d29b16\" stroke=\"#6b4c08\" stroke-width=\"1\"",
            );
        } else if touch {
            svg.circle(cx, cy - height * 0.1, cell * 0.04, "fill=\"#d29b16\"");
        }
    }
    for (color, left) in [(Color::White, true), (Color::Black, false)] {
        let count = stones.iter().filter(|man| man.color == color).count();
        if count == 0 {
            continue;
        }
        let (badge, ink) = match color {
            Color::White => ("#f7f1df", "#1b1b1b"),
            Color::Black => ("#2a2420", "#f7f1df"),
        };
        let bx = if left {
            x + cell * 0.14
        } else {
            x + cell * 0.86
        };
        let by = y + cell * 0.14;
        svg.circle(
            bx,
            by,
            cell * 0.11,
            &format!("class=\"count\" fill=\"{badge}\" stroke=\"#1b1b1b\" stroke-width=\"1\""),
        );
        glyphs::label(svg, &count.to_string(), bx, by, cell * 0.12, ink);
    }
}
