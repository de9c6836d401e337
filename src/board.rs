//! What a player can click: one position of a record as the play page (`pbem play`)
//! shows it, with every legal turn and the places clicked to build it.
//!
//! [`view`] replays a record's main line up to a ply and returns a [`View`]: the board
//! picture with a transparent hit area on every place ([`crate::render::board_svg`]:
//! an element carrying `data-place="NAME"` per square, hex cell or wicket, drawn last),
//! the side to move, the move list (a window of [`LISTED`] plies around the one shown),
//! and the legal turns, each a [`Buildable`]: its token, exactly as `pbem legal FILE
//! --ply N` prints it (both come from [`offer`]: the turns of
//! [`History::legal_turns_written`], in a game with fair dice the attempt without its
//! roll, [`crate::fair::as_typed`]), and its clicks ([`Render::clicks`]), the places
//! named as the notation names them.
//!
//! What each game clicks, as a player thinks of the turn:
//!
//! | game | clicks |
//! |---|---|
//! | Chess | the piece's square, its target (castling: the King's two squares) |
//! | Chess with wickets | the new Defender when one is named, the piece's square, its target (castling: the King's), the drop of a captured Ball, the throw's target (`w0`/`w9` for a scoring attempt), each sacrifice's place |
//! | African Chess | a step: the stone's square, its target; a sowing: the group's square, the first square of its direction, and the touchstone's square when the token names it (`=d3`) |
//! | Cascudo | the first mover's cell, then each link's destination in order |
//! | Chesica | the piece's square, then each landing (every jump of a chain) |
//! | Chesscala | each move in turn: a capture's piece and victim (the Hammer's landing between), a sowing's square and each square a piece is laid on, a King step's or double move's two squares |
//!
//! How the page narrows the list: each click keeps the turns whose next click is that
//! place. Turns that share all their clicks (a promotion piece, a sowing order, an
//! attempt's card or die, a touchstone step and a sowing that starts the same way) differ
//! by their tokens, and the page shows one button per token. A turn's clicks may also be
//! the start of another's (a move, and the same move followed by a throw; a capture, and
//! a sowing through the same square): once a turn's clicks are all made, the page offers
//! it beside the places that continue the others. A place may come twice in a row (a
//! Bomb's capture in its own stack, a sowing's touchstone on the first square).
//!
//! A position that awaits a part (a card in Cards modes) or whose game is over has no
//! turn: [`View::awaiting`] and [`View::awaited_parts`], or [`View::outcome`], say why.
//! Nor has any position of a record whose main line stops before its end (an illegal
//! turn in the middle): [`View::stopped`] says where and why, as `pbem validate` finds
//! it, since a turn played on from its last good position would drop the rest.
//! A game is over by its rules (a mate) or, at the record's end, by its `[Result]` tag (a
//! resignation, a draw agreed or claimed, a claim on time: [`ended`]).
//!
//! Invariants, checked over random playouts of every game by the property tests
//! (`tests/integration/board.rs`): every legal turn has clicks, every click is the
//! `data-place` of a hit area of the view's picture, and the tokens are `pbem legal`'s
//! (but for a record that stops early, which offers none).

use crate::games::{Color, Game, Outcome};
use crate::notation::Record;
use crate::render::{self, Render};
use crate::replay::{self, History};

/// What the play page needs of one position of a record.
#[derive(Debug, Clone, serde::Serialize)]
pub struct View {
    /// The board at that ply, last turn marked, with a transparent hit area on top of
    /// every place the player can click: an SVG element carrying `data-place="NAME"`
    /// (NAME exactly as the notation writes the place, as in `render::Marks`), one per
    /// place of the board, drawn last so that a click anywhere on the place hits it.
    pub svg: String,
    /// "white" or "black": the side to move (or the side whose part is awaited).
    pub side_to_move: String,
    /// The canonical tokens of the move list: at most [`LISTED`] plies of the main line
    /// around the one shown (all of them in a shorter game), from ply `plies_from + 1` on.
    pub plies: Vec<String>,
    /// The ply before the first of `plies` (0: the list starts at the first turn).
    pub plies_from: usize,
    /// How many plies of the main line replay: the ply of its end.
    pub plies_total: usize,
    /// The ply shown (0 = the start).
    pub ply: usize,
    /// The turns the side to move may play here, exactly the tokens `pbem legal FILE
    /// --ply N` prints (canonical; in a game with fair dice the attempt without its roll,
    /// as `fair::typed_turns` writes it), each with the places clicked to build it.
    /// Empty when the game is over or a part is awaited.
    pub turns: Vec<Buildable>,
    /// When the last turn awaits a part (a card in Cards modes): what is awaited, in
    /// words.
    pub awaiting: Option<String>,
    /// The parts the awaited player may add, as `Game::awaited_parts` lists them (the
    /// server replaces them by the player's own hand where it knows it).
    pub awaited_parts: Vec<String>,
    /// The game's outcome when it is over, in words.
    pub outcome: Option<String>,
    /// When the record's main line does not replay to its end: the turn it stops at and
    /// why. No turn is offered then, at any ply.
    pub stopped: Option<Stop>,
}

/// Where a record's main line stops replaying before its end, and why: the finding
/// `pbem validate` reports there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stop {
    /// How many plies replay (the last position the view can show).
    pub plies: usize,
    /// The turn that does not replay, with its move number as written (`2. Ke3`).
    pub turn: String,
    /// Where it is in the file.
    pub line: u32,
    /// Where it is in the file.
    pub column: u32,
    /// Why it does not replay.
    pub reason: String,
}

/// A legal turn and the places clicked to build it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Buildable {
    /// The turn's token.
    pub token: String,
    /// The places clicked to build it, in order (a piece's place, then each place it
    /// goes to: a capture, each jump of a multi-jump, each step of a cascade, a stack's
    /// part, the wicket or target of a throw, a sowing's cells in order...). Never empty.
    /// Turns that share all their clicks are told apart by the page with buttons
    /// showing the rest of the token (promotion piece, sowing order, card, attempt).
    pub clicks: Vec<String>,
}

/// How many plies the move list of a [`View`] holds at most: a longer game's list is a
/// window around the ply shown, so that an answer of the play page stays small however
/// long the game (a game of 100,000 plies listed whole was 850 KB an answer).
pub const LISTED: usize = 200;

/// Why there is no view of a record at a ply.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// The record's `[Variant]` names no game pbem plays.
    #[error(
        "unknown variant \"{0}\" (pbem plays Chess, Chess with wickets, Chesica, Chesscala, African Chess and Cascudo)"
    )]
    UnknownVariant(String),
    /// The game's setup is invalid, so no position can be shown.
    #[error("{line}:{column}: game {game}: {reason} (`pbem validate FILE` says more)")]
    Setup {
        /// The game's number in its file.
        game: usize,
        /// Where the fault is.
        line: u32,
        /// Where the fault is.
        column: u32,
        /// Why.
        reason: String,
    },
    /// The ply asked for is past the plies that replay.
    #[error("game {game} has {available} playable plies, not {wanted}{}", stop.as_ref().map(|(line, column, reason)| format!(" (it stops at {line}:{column}: {reason})")).unwrap_or_default())]
    PastEnd {
        /// The game's number in its file.
        game: usize,
        /// The ply asked for.
        wanted: usize,
        /// How many plies replay.
        available: usize,
        /// Where and why the replay stops early, if it does.
        stop: Option<(u32, u32, String)>,
    },
}

/// The view after `ply` plies of the record's main line (`None`: its end, as far as it
/// replays).
pub fn view(record: &Record, ply: Option<usize>) -> Result<View, BoardError> {
    let variant = replay::variant_of(record).map_err(BoardError::UnknownVariant)?;
    crate::with_game!(variant, G => view_of::<G>(record, ply))
}

/// [`view`] in the game `G`.
fn view_of<G: Render>(record: &Record, ply: Option<usize>) -> Result<View, BoardError> {
    let replayed = replay::replay_game::<G>(record);
    let first_error = replayed
        .report
        .errors()
        .next()
        .map(|finding| (finding.span, finding.message.clone()));
    let Some(start) = replayed.start else {
        let (span, reason) =
            first_error.unwrap_or_else(|| (record.span, "invalid setup".to_owned()));
        return Err(BoardError::Setup {
            game: record.number,
            line: span.line.max(1),
            column: span.column.max(1),
            reason,
        });
    };
    let available = replayed.turns.len();
    let wanted = ply.unwrap_or(available);
    if wanted > available {
        return Err(BoardError::PastEnd {
            game: record.number,
            wanted,
            available,
            stop: first_error.map(|(span, reason)| (span.line, span.column, reason)),
        });
    }
    let stopped = record.moves.turns.get(available).map(|node| {
        let finding = replayed
            .report
            .errors()
            .find(|finding| !finding.in_variation);
        Stop {
            plies: available,
            turn: match finding.and_then(|finding| finding.move_number.as_ref()) {
                Some(number) => format!("{number} {}", node.token),
                None => node.token.to_string(),
            },
            line: finding.map_or(node.span.line, |finding| finding.span.line),
            column: finding.map_or(node.span.column, |finding| finding.span.column),
            reason: finding.map_or_else(
                || "it does not replay".to_owned(),
                |finding| finding.message.clone(),
            ),
        }
    });
    // The move list's window: [`LISTED`] plies, the one shown in the middle where the
    // game allows.
    let plies_from = wanted
        .saturating_sub(LISTED / 2)
        .min(available.saturating_sub(LISTED));
    let listed = plies_from..available.min(plies_from + LISTED);
    // One pass up to the ply shown or the window's end writes the window's tokens (with
    // the history before each, as the replay does) and keeps the position shown, its
    // history and its last turn.
    let mut history = History::starting_at(&start);
    let mut position = start;
    let mut plies = Vec::with_capacity(listed.len());
    let mut shown = None;
    let mut last = None;
    let through = wanted.max(listed.end);
    for (index, turn) in replayed.turns.into_iter().enumerate().take(through) {
        if index == wanted {
            shown = Some((position.clone(), history.clone()));
        }
        if listed.contains(&index) {
            plies.push(position.write_turn_except(&turn, history.forbidden()));
        }
        if index + 1 == wanted {
            last = Some((position.clone(), turn.clone()));
        }
        position.play(&turn);
        history.enter(&position);
    }
    let (position, history) = shown.unwrap_or((position, history));
    let svg = render::board_svg(
        &position,
        last.as_ref().map(|(before, turn)| (before, turn)),
    );
    let side = position
        .awaited_side()
        .unwrap_or_else(|| position.side_to_move());
    let mut view = View {
        svg,
        side_to_move: side_name(side).to_owned(),
        plies,
        plies_from,
        plies_total: available,
        ply: wanted,
        turns: Vec::new(),
        awaiting: None,
        awaited_parts: Vec::new(),
        outcome: None,
        stopped,
    };
    if view.stopped.is_some() {
        return Ok(view);
    }
    // A game ended by its record (a resignation, a draw agreed or claimed, a claim on
    // time) offers nothing at the record's end.
    let ended_here = if wanted >= record.moves.turns.len() {
        ended(record)
    } else {
        None
    };
    match offer(&position, &history, Written::of(record)) {
        Offer::Over(outcome) => view.outcome = Some(outcome.to_string()),
        _ if ended_here.is_some() => view.outcome = ended_here,
        Offer::Awaiting { what, parts } => {
            view.awaiting = Some(what);
            view.awaited_parts = parts;
        }
        Offer::Turns(turns) => {
            view.turns = turns
                .into_iter()
                .map(|(token, turn)| Buildable {
                    token,
                    clicks: position.clicks(&turn),
                })
                .collect();
        }
    }
    Ok(view)
}

/// How the game of `record` ended by its record, in words with the result (`Bob (Black)
/// resigned: Alice (White) wins, 1-0`), when its `[Result]` tag is set; `None` while it
/// is open. At the record's end such a game offers no turn, as `pbem legal` and the play
/// page say.
#[must_use]
pub fn ended(record: &Record) -> Option<String> {
    match record.tag("Result").map(str::trim) {
        None | Some("*") => None,
        Some(result) => Some(crate::desk::inbox::ending(record, None, result)),
    }
}

/// How the turns of a position are written for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Canonically, as a record holds them.
    Canonical,
    /// As the player types them in a game with fair dice: attempts without their rolls
    /// ([`crate::fair::as_typed`]), the rolls of an attempt one turn.
    AsTyped,
}

impl Written {
    /// How the turns of `record`'s game are written: as typed when it uses fair dice.
    #[must_use]
    pub fn of(record: &Record) -> Written {
        if crate::fair::uses_dice(record) {
            Written::AsTyped
        } else {
            Written::Canonical
        }
    }
}

/// What a position offers the side to move: what `pbem legal` lists and the play page
/// builds.
#[derive(Clone, Debug)]
pub enum Offer<T> {
    /// The last turn awaits a part (a card): what, in words, and the parts that may be
    /// added ([`Game::awaited_parts`]).
    Awaiting {
        /// What is awaited, and from whom.
        what: String,
        /// The parts the awaited player may add.
        parts: Vec<String>,
    },
    /// The game is over (the rules, a repetition, every turn forbidden).
    Over(Outcome),
    /// The legal turns the history allows, each with its token, sorted by token, each
    /// token once.
    Turns(Vec<(String, T)>),
}

/// What `position`, reached with `history`, offers the side to move, the turns written
/// as `written` says.
#[must_use]
pub fn offer<G: Game>(position: &G, history: &History<G>, written: Written) -> Offer<G::Turn> {
    if let Some(what) = position.awaiting() {
        return Offer::Awaiting {
            what,
            parts: position.awaited_parts(),
        };
    }
    if let Some(outcome) = history.outcome(position) {
        return Offer::Over(outcome);
    }
    let mut turns = history.legal_turns_written(position);
    if written == Written::AsTyped {
        for (token, _) in &mut turns {
            *token = crate::fair::as_typed(token);
        }
        // The rolls of an attempt are one typed turn (as `fair::typed_turns` lists them).
        turns.sort_by(|a, b| a.0.cmp(&b.0));
        turns.dedup_by(|a, b| a.0 == b.0);
    }
    Offer::Turns(turns)
}

/// "white" or "black".
fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "white",
        Color::Black => "black",
    }
}
