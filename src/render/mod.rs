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
//!
//! # How it is built
//!
//! Pictures of positions, drawn in the project: `svg` (the `Svg` builder; every number
//! through `num`, two decimals at most, so a picture is the same bytes from run to run),
//! `glyphs` (letters and digits as stroke paths on a small grid, so no font is needed and
//! resvg is built without text support), `pieces` (the chess pieces, Chesscala's Hammer,
//! Bomb and Man, the cricket Ball and the Defender's shield as hand-written paths in a 100
//! by 100 box), `grid` (square boards: squares, coordinates, the last turn's highlight, the
//! check glow, the side-to-move marker, pieces from a snapshot), and one file per game
//! implementing the `Render` trait (`draw`, and `touched`/`checked` where the game knows
//! better than the defaults); every `draw` puts the side-to-move marker (`side_to_move`: a
//! disc of that side's colour, id `to-move-white` or `to-move-black`) in the frame right of
//! the board, on that side's edge: `chess`, `wickets` (the wickets at e0/e9 with their
//! names `w0`/`w9` beside them, Balls by `ball_haver`/`loose_ball`, shields by `defender`), `chesica` (a gold disc and crown under promoted pieces), `african`
//! (stones as piles of coins with a count per colour, touchstones gold-rimmed; a guarded
//! touchstone is its check), `cascudo` (the hex board from `cascudo::hex`: files upright,
//! three cell colours), `chesscala` (the three circuits as loops with arrows, stacks in two
//! rows framed in the controlling side's colour). `Marks` carries what is marked beside
//! the pieces: by default the last turn's places are those whose pieces differ in
//! `Game::snapshot` before and after it plus the places its canonical token names (a
//! chain's landings), and check comes from the token's `+`/`#` unless the game says
//! (`checked`). Each game also says what a player clicks to build a turn (`clicks`, for
//! [`crate::board`]) and draws the play page's hit areas (`hit_areas`: a transparent
//! square, hex cell or wicket patch per place, carrying `data-place="NAME"`), which only
//! `board_svg` lays on top of the picture. `svg`, `marks`, `board_svg` and `final_svg` (a
//! record's last position with its last turn) are the entry points; `png` rasterises with resvg (default features off: no
//! text, no system fonts, no raster images) at `PNG_SIZE` (560) on the longer side.
//! `html` writes the replay page as it replays, one ply at a time (`write_head`,
//! `write_game`, `write_tail`; the command streams it through `store::write_atomically_with`),
//! with two pictures in memory at a time, so that the page and pbem's memory grow by a few
//! hundred bytes a ply (issue 32: 5.4 GB for a game of 100,000 plies before). Each ply's
//! picture is the SVG `show` draws, cut into parts (the open tag, the title, each top-level
//! element and each child of a top-level group); a ply carries its move, comments, status
//! and the splices (Myers's difference) that turn the last ply's parts into its own, and a
//! part's text travels once, in a dictionary the page builds as it reads, where a piece's
//! drawing (a `translate(..) scale(..)` group with no group inside) is an entry of its own.
//! One small inline script builds the move list, puts the parts back together into the very
//! SVG text (keeping a copy every 64th ply to step back), and steps (buttons, arrow keys,
//! Home, End, a click on a move; one picture in the DOM at a time, so ids never repeat). The
//! JSON has no `</`, `<!` nor `<script` in any case (written `<\/` and `\u003c`), so no
//! comment or tag can end or turn the data's script element.
//!
//! Invariants: a game's position is read only through its public accessors and
//! `snapshot`; nothing here does I/O; the same position and last turn give the same bytes.
//!
//! Tests: `tests/integration/render.rs` parses each game's picture with usvg and checks
//! its elements by id (`piece-<place>`, `last-<place>`, `check-<place>`, the squares and
//! coordinates), compares PNGs with `tests/data/render/*.png` (at most 0.5% of pixels off;
//! `PBEM_BLESS=1 cargo test --test integration render::` rewrites them), and checks the
//! picture mail's MIME structure; `tests/outside/browser.rs` drives headless Chromium
//! through chromedriver (`Need::Chromium`) over each example's replay page, and over pages
//! whose comments, tags and title hold `<!--<script>`, `</script>` and the like, and over
//! long random games of every game (`tests/support/playouts.rs`, 2,000 plies: a random walk
//! over the turns the rules and the history allow, Chesica's repetition ban included;
//! Chesscala's from a position of Kings and Pawns, since its games from the start all end
//! within dozens of plies), whose board at a ply must be the very SVG `pbem show --ply N`
//! writes; `render::the_replay_page_grows_by_...` validates each long game with `pbem
//! validate` and bounds its page bytes a ply, and `benches/html.rs` measures page bytes and
//! peak memory.

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

    /// The places a player clicks to build `turn` (a legal turn of this position), in
    /// order, named as the notation names them: a piece's place, then each place it goes
    /// to. Never empty. See [`crate::board`] for what each game clicks.
    fn clicks(&self, turn: &Self::Turn) -> Vec<String>;

    /// Draws the play page's hit areas: one transparent element over every place a click
    /// may name, carrying `data-place="NAME"` (the shape of the place: a square, a hex
    /// cell, a wicket's patch).
    fn hit_areas(&self, svg: &mut svg::Svg);
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

/// The SVG of `position` as the play page shows it: [`svg()`]'s picture with the hit
/// areas ([`Render::hit_areas`]) drawn last, in a group with the id `places` whose fill
/// is transparent, so that a click anywhere on a place hits its `data-place` element.
/// Only the play page has them: `show`, the mails' pictures and `html` keep their bytes.
pub fn board_svg<G: Render>(position: &G, last: Option<(&G, &G::Turn)>) -> String {
    let mut picture = svg(position, last);
    let mut layer = svg::Svg::fragment();
    layer.open("id=\"places\" fill=\"#000\" fill-opacity=\"0\"");
    position.hit_areas(&mut layer);
    layer.close();
    let end = picture.rfind("</svg>").unwrap_or(picture.len());
    picture.insert_str(end, &layer.finish_fragment());
    picture
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
