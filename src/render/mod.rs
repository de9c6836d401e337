//! Pictures of positions: an SVG for every game, drawn in the project with hand-made
//! vector pieces and stroke letters (no font, no network), a PNG made from it by resvg,
//! and the self-contained HTML replay page (`html`).
//!
//! Each game says how it is drawn by implementing [`Render`] in its own file here,
//! reading the position only through the game's public accessors and [`Game::snapshot`].
//! What the pictures mark beside the pieces comes in [`Marks`]: the places the last turn
//! touched and the places in check. Every picture also shows whose turn it is
//! ([`side_to_move`]: a small disc of that side's colour in the frame, on its side). By default the last turn's places are those whose
//! pieces changed plus those its canonical token names (so a chain's landings show), and
//! check is read from the token's `+` or `#`; a game that knows better says so.
//!
//! Output is a pure function of the position and the last turn: the same bytes from run
//! to run.

mod african;
mod cascudo;
mod chesica;
mod chess;
mod chesscala;
pub mod glyphs;
mod grid;
pub mod html;
pub mod pieces;
pub mod svg;
mod wickets;

use crate::games::{Color, Game, Snapshot};

/// What a picture marks beside the pieces, by place name (`e4`, `w0`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// Every place the last turn touched: origin, target, a cascade's links, a sowing's
    /// squares, a multi-jump's landings and the pieces it took.
    pub touched: Vec<String>,
    /// The places of pieces in check (Kings, or an African touchstone that is guarded).
    pub check: Vec<String>,
}

impl Marks {
    /// Whether the last turn touched `place`.
    #[must_use]
    pub fn touched(&self, place: &str) -> bool {
        self.touched.iter().any(|name| name == place)
    }

    /// Whether `place` holds a piece in check.
    #[must_use]
    pub fn in_check(&self, place: &str) -> bool {
        self.check.iter().any(|name| name == place)
    }
}

/// A game that can be drawn.
pub trait Render: Game {
    /// The SVG document of this position with the given marks.
    fn draw(&self, marks: &Marks) -> String;

    /// The places `turn` touches when played from this position (see [`Marks::touched`]).
    fn touched(&self, turn: &Self::Turn) -> Vec<String> {
        touched_by_snapshots(self, turn)
    }

    /// The places in check in this position, or `None` when the game cannot tell from the
    /// position alone (then the last turn's check marker decides).
    fn checked(&self) -> Option<Vec<String>> {
        None
    }
}

/// The marks of `position`, reached by `last` (the position before and the turn) if
/// known.
pub fn marks<G: Render>(position: &G, last: Option<(&G, &G::Turn)>) -> Marks {
    let touched = last
        .map(|(before, turn)| before.touched(turn))
        .unwrap_or_default();
    let check = position.checked().unwrap_or_else(|| {
        let marked = last.is_some_and(|(before, turn)| {
            let token = before.write_turn(turn);
            token.trim_end_matches(['!', '?']).ends_with(['+', '#'])
        });
        if marked {
            position
                .snapshot()
                .map(|snapshot| kings(&snapshot, position.side_to_move()))
                .unwrap_or_default()
        } else {
            Vec::new()
        }
    });
    Marks { touched, check }
}

/// The SVG of `position`, with the last turn (the position before it and the turn)
/// marked if given.
pub fn svg<G: Render>(position: &G, last: Option<(&G, &G::Turn)>) -> String {
    position.draw(&marks(position, last))
}

/// The SVG of the position at the end of a record's main line (as far as it replays),
/// its last turn marked; `None` when the record names no game pbem plays or its setup is
/// invalid.
#[must_use]
pub fn final_svg(record: &crate::notation::Record) -> Option<String> {
    let variant = crate::replay::variant_of(record).ok()?;
    crate::with_game!(variant, G => {
        let replayed = crate::replay::replay_game::<G>(record);
        let mut position: G = replayed.start?;
        let mut before = None;
        for turn in &replayed.turns {
            before = Some(position.clone());
            position.play(turn);
        }
        let last = before.as_ref().zip(replayed.turns.last());
        Some(svg(&position, last))
    })
}

/// Draws the side-to-move marker centred on `(cx, cy)`, `r` in radius: a disc of the
/// side's colour on a light ground (so that Black's reads as black on a dark frame), in
/// a group with the id `to-move-white` or `to-move-black`.
pub fn side_to_move(svg: &mut svg::Svg, side: Color, cx: f32, cy: f32, r: f32) {
    let (id, fill) = match side {
        Color::White => ("to-move-white", "#fbfaf5"),
        Color::Black => ("to-move-black", "#1b1b1b"),
    };
    svg.open(&format!("id=\"{id}\""));
    svg.circle(cx, cy, r, "fill=\"#f3e9d8\"");
    svg.circle(
        cx,
        cy,
        r * 0.72,
        &format!(
            "fill=\"{fill}\" stroke=\"#1b1b1b\" stroke-width=\"{}\"",
            svg::num(r / 10.0)
        ),
    );
    svg.close();
}

/// The places of `side`'s Kings in a snapshot.
#[must_use]
pub fn kings(snapshot: &Snapshot, side: Color) -> Vec<String> {
    snapshot
        .places
        .iter()
        .filter(|place| {
            place
                .pieces
                .iter()
                .any(|man| man.color == side && man.kind.name == "King")
        })
        .map(|place| place.name.clone())
        .collect()
}

/// The places a turn touches, read from the board: every place whose pieces differ
/// before and after it, and every place its canonical token names.
pub fn touched_by_snapshots<G: Game>(before: &G, turn: &G::Turn) -> Vec<String> {
    let (Some(old), Some(new)) = (before.snapshot(), before.snapshot_after(turn)) else {
        return Vec::new();
    };
    let (old, new) = (old.normalized(), new.normalized());
    let token = before.write_turn(turn);
    old.places
        .iter()
        .zip(&new.places)
        .filter(|(a, b)| a.pieces != b.pieces || names_place(&token, &a.name))
        .map(|(a, _)| a.name.clone())
        .collect()
}

/// Whether a token names a place: the name appears and is not the start of a longer
/// coordinate (`e1` in `e10`).
fn names_place(token: &str, name: &str) -> bool {
    let bytes = token.as_bytes();
    token.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        let before_ok = at == 0 || !bytes[at - 1].is_ascii_digit();
        let after_ok = end >= bytes.len() || !bytes[end].is_ascii_digit();
        before_ok && after_ok
    })
}

/// Why a picture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The SVG could not be read (a bug: the renderer writes it).
    #[error("cannot read the picture: {0}")]
    Svg(String),
    /// The PNG could not be made.
    #[error("cannot make the png: {0}")]
    Png(String),
}

/// The longest side of the PNG pictures, in pixels.
pub const PNG_SIZE: u32 = 560;

/// Renders an SVG document as PNG bytes whose longer side is `size` pixels.
pub fn png(svg: &str, size: u32) -> Result<Vec<u8>, RenderError> {
    let options = resvg::usvg::Options::default();
    let tree = resvg::usvg::Tree::from_str(svg, &options)
        .map_err(|error| RenderError::Svg(error.to_string()))?;
    let (width, height) = (tree.size().width(), tree.size().height());
    let scale = size as f32 / width.max(height);
    let (w, h) = (
        (width * scale).round().max(1.0) as u32,
        (height * scale).round().max(1.0) as u32,
    );
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| RenderError::Png(format!("no {w}x{h} pixmap")))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|error| RenderError::Png(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_a_place_only_as_a_whole_coordinate() {
        assert!(names_place("Nf3", "f3"));
        assert!(names_place("c3xe5xc7", "e5"));
        assert!(!names_place("e10", "e1"));
        assert!(!names_place("e4", "e41"));
    }
}
