//! The pieces, drawn by hand as vector shapes in a box of 100 by 100 units: the chess
//! pieces, Chesscala's Hammer, Bomb and Man, the cricket Ball and the Defender's shield
//! of Chess with wickets. White pieces are light with a dark outline, Black pieces dark
//! with light inner lines.

use super::svg::{Svg, num};
use crate::games::Color;

/// A shape the pictures know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The King: a crown with a cross.
    King,
    /// The Queen: a crown of five points.
    Queen,
    /// The Rook: a tower.
    Rook,
    /// The Bishop: a mitre.
    Bishop,
    /// The Knight: a horse's head.
    Knight,
    /// The Pawn.
    Pawn,
    /// Chesscala's Hammer.
    Hammer,
    /// Chesscala's Bomb.
    Bomb,
    /// Chesscala's Man (a promoted Pawn): a draughts man.
    Man,
}

impl Shape {
    /// The shape of a chess piece's Zillions name (`King`, `Promoted Rook`, `Bomb`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Shape> {
        let base = name.strip_prefix("Promoted ").unwrap_or(name);
        Some(match base {
            "King" => Shape::King,
            "Queen" => Shape::Queen,
            "Rook" => Shape::Rook,
            "Bishop" => Shape::Bishop,
            "Knight" => Shape::Knight,
            "Pawn" => Shape::Pawn,
            "Hammer" => Shape::Hammer,
            "Bomb" => Shape::Bomb,
            "Man" => Shape::Man,
            _ => return None,
        })
    }
}

/// The fill, outline and detail colours of a side's pieces.
#[must_use]
pub const fn colours(color: Color) -> (&'static str, &'static str, &'static str) {
    match color {
        Color::White => ("#fbfaf5", "#1b1b1b", "#1b1b1b"),
        Color::Black => ("#2a2a2e", "#050505", "#e9e6dc"),
    }
}

/// Draws a piece with its top left corner at `(x, y)`, `size` wide and high.
pub fn piece(svg: &mut Svg, shape: Shape, color: Color, x: f32, y: f32, size: f32) {
    let (fill, outline, detail) = colours(color);
    let body = format!(
        "fill=\"{fill}\" stroke=\"{outline}\" stroke-width=\"3.5\" stroke-linejoin=\"round\""
    );
    let lines =
        format!("fill=\"none\" stroke=\"{detail}\" stroke-width=\"3\" stroke-linecap=\"round\"");
    let dot = format!("fill=\"{detail}\"");
    svg.open_at(x, y, size / 100.0, "");
    match shape {
        Shape::King => {
            svg.path("M46 8H54V16H62V24H54V34H46V24H38V16H46Z", &body);
            svg.path(
                "M27 76C13 62 17 40 34 41C42 42 47 47 50 55C53 47 58 42 66 41C83 40 87 62 73 76Z",
                &body,
            );
            svg.path("M50 36V55", &body);
            svg.path("M26 76H74L77 90H23Z", &body);
            svg.path("M30 70C42 66 58 66 70 70", &lines);
        }
        Shape::Queen => {
            svg.path(
                "M28 76L16 34L31 55L34 25L44 53L50 20L56 53L66 25L69 55L84 34L72 76Z",
                &body,
            );
            for (cx, cy) in [
                (16.0, 30.0),
                (34.0, 21.0),
                (50.0, 15.0),
                (66.0, 21.0),
                (84.0, 30.0),
            ] {
                svg.circle(cx, cy, 5.5, &body);
            }
            svg.path("M28 76H72L75 90H25Z", &body);
            svg.path("M31 69C43 65 57 65 69 69", &lines);
        }
        Shape::Rook => {
            svg.path(
                "M23 90H77V82L68 77L66 45L73 38V18H62V26H55V18H45V26H38V18H27V38L34 45L32 77L23 82Z",
                &body,
            );
            svg.path("M35 45H65M33 76H67", &lines);
        }
        Shape::Bishop => {
            svg.path("M26 90H74V83C64 79 36 79 26 83Z", &body);
            svg.path("M39 80L42 70H58L61 80Z", &body);
            svg.path("M42 70C28 60 33 43 50 27C67 43 72 60 58 70Z", &body);
            svg.circle(50.0, 21.0, 6.5, &body);
            svg.path("M52 41L57 54M43 62H57", &lines);
        }
        Shape::Knight => {
            svg.path(
                "M30 90H77C78 70 75 50 65 37C61 31 57 27 53 25L51 14L44 23C36 28 28 38 22 49\
                 C18 56 21 62 28 62C33 62 37 58 43 54C45 60 41 67 35 73C31 78 30 84 30 90Z",
                &body,
            );
            svg.circle(43.0, 36.0, 3.5, &dot);
            svg.path("M60 34C67 44 70 58 70 82", &lines);
        }
        Shape::Pawn => {
            svg.circle(50.0, 30.0, 13.0, &body);
            svg.path("M36 46H64L60 54H40Z", &body);
            svg.path(
                "M40 54C40 66 33 74 26 80V90H74V80C67 74 60 66 60 54Z",
                &body,
            );
        }
        Shape::Hammer => {
            svg.path("M45 34H55V82H45Z", &body);
            svg.path("M20 16H80V36H20Z", &body);
            svg.path("M24 90H76V82H24Z", &body);
            svg.path("M30 26H70", &lines);
        }
        Shape::Bomb => {
            svg.circle(50.0, 60.0, 28.0, &body);
            svg.path("M42 28H58V36H42Z", &body);
            svg.path(
                "M50 28C50 18 58 12 66 14",
                &format!(
                    "fill=\"none\" stroke=\"{outline}\" stroke-width=\"4\" stroke-linecap=\"round\""
                ),
            );
            svg.path(
                "M66 8L70 14L76 12M70 14L74 19",
                "fill=\"none\" stroke=\"#e0701a\" stroke-width=\"3\" stroke-linecap=\"round\"",
            );
            svg.path("M38 52C40 46 44 43 49 42", &lines);
        }
        Shape::Man => {
            svg.path("M16 62C16 52 84 52 84 62V72C84 82 16 82 16 72Z", &body);
            svg.path("M16 62C16 72 84 72 84 62", &body);
            svg.path("M32 62C32 58 68 58 68 62", &lines);
        }
    }
    svg.close();
}

/// Draws the cricket Ball of a side, centred on `(cx, cy)` with radius `r`: White's
/// Ball is red, Black's is white, both with a seam.
pub fn ball(svg: &mut Svg, color: Color, cx: f32, cy: f32, r: f32) {
    let (fill, seam) = match color {
        Color::White => ("#c8202a", "#fbe7c0"),
        Color::Black => ("#f4f1e6", "#c8202a"),
    };
    svg.circle(
        cx,
        cy,
        r,
        &format!(
            "fill=\"{fill}\" stroke=\"#1b1b1b\" stroke-width=\"{}\"",
            num(r / 6.0)
        ),
    );
    svg.path(
        &format!(
            "M{} {}C{} {} {} {} {} {}",
            num(cx - r * 0.55),
            num(cy - r * 0.8),
            num(cx - r * 0.1),
            num(cy - r * 0.3),
            num(cx - r * 0.1),
            num(cy + r * 0.3),
            num(cx - r * 0.55),
            num(cy + r * 0.8)
        ),
        &format!(
            "fill=\"none\" stroke=\"{seam}\" stroke-width=\"{}\" stroke-dasharray=\"{} {}\"",
            num(r / 5.0),
            num(r / 5.0),
            num(r / 8.0)
        ),
    );
}

/// Draws the Defender's shield of a side with its top left corner at `(x, y)`, `size`
/// wide.
pub fn shield(svg: &mut Svg, color: Color, x: f32, y: f32, size: f32) {
    let fill = match color {
        Color::White => "#2f6fd0",
        Color::Black => "#1d3d78",
    };
    svg.open_at(x, y, size / 100.0, "");
    svg.path(
        "M50 4L90 18C90 58 74 82 50 96C26 82 10 58 10 18Z",
        &format!("fill=\"{fill}\" stroke=\"#f7f3e8\" stroke-width=\"8\" stroke-linejoin=\"round\""),
    );
    svg.path(
        "M50 22V78M28 42H72",
        "fill=\"none\" stroke=\"#f7f3e8\" stroke-width=\"9\" stroke-linecap=\"round\"",
    );
    svg.close();
}
