//! The rules engines: one trait, [`Game`], that every game implements, one module per
//! game, and [`Variant`], which picks a game at run time.
//!
//! A game knows its board, its pieces, its turn grammar and its end conditions. Nothing
//! outside a game's module looks at its pieces: the replay, the writer and the command
//! line only go through [`Game`].
//!
//! The flow for one turn token is always the same:
//!
//! ```text
//! token ──Game::parse_turn──▶ Syntax (no board) ──Game::resolve──▶ Turn (legal)
//! position + Turn ──Game::play──▶ next position
//! position + Turn ──Game::write_turn──▶ canonical token
//! ```
//!
//! # How it is built
//!
//! The `Game` trait that every game implements, with associated `Turn` (a legal turn,
//! all of its parts) and `Syntax` (a token parsed without a board), plus the shared
//! vocabulary: `Color`, `Outcome`, `WinReason`, `DrawReason`, `GameResult`,
//! `RepetitionRule`, `SetupError`, `TurnSyntaxError`, `IllegalTurn`. `Variant` names the
//! games and reads `[Variant]` values and aliases (case-insensitive, spaces, hyphens and
//! underscores alike). The `with_game!` macro is the one place that turns a run-time
//! `Variant` into a type; nothing outside a game's module matches on its pieces. A
//! `SetupError` names the white-space separated field of the position string it is about
//! (`field`, from 1; one past the last for a missing field) when it is about one, so that
//! the command line can put a caret under it.
//!
//! Invariants: `legal_turns` fills a caller-owned vector and does not allocate per node;
//! `resolve(parse_turn(write_turn(t))) == t` for every legal `t`; `from_position_string`
//! reads what `position_string` writes, for every position a legal turn produces. A position
//! does not know its history: repetition is counted by `replay::History` from
//! `repetition_key` and applied by `RepetitionRule`. The turns a history forbids
//! (`IllegalAt`) are a `Forbidden` set (repetition keys no turn may reach) that
//! `legal_turns_except`, `resolve_except` (refusing with `IllegalKind::Repetition`) and
//! `write_turn_except` take, so that notation disambiguates among the turns the history
//! allows; the defaults filter, resolve then check, and ignore it, and Chesica, the one game
//! with a ban, overrides the last two. Move numbers and counters go up by `count_up`, which
//! stops at `MAX_COUNT` (a billion) instead of wrapping, and position strings refuse larger
//! ones (`check_count`).
//!
//! Chance events (die rolls, cards) and multi-part turns belong inside one turn token, so
//! they are part of `Syntax`/`Turn`; `play` consumes them. A turn may still wait for the
//! opponent's hidden play (a card in reply): `Game::awaiting` (default `None`) then says
//! what the position after it waits for, `Game::awaited_side` from whom, and
//! `Game::awaited_parts` what that side may add (`pbem legal` lists them). Such a position
//! has no legal turn and no outcome; `resolve` refuses any turn from it, and a line that
//! ends there gets a warning finding of kind `Awaiting` (the record stays valid).

use std::fmt;

pub mod african;
pub mod cascudo;
pub mod chesica;
pub mod chess;
pub mod chesscala;
pub mod snapshot;
pub mod wickets;

pub use african::African;
pub use cascudo::Cascudo;
pub use chesica::Chesica;
pub use chess::Chess;
pub use chesscala::Chesscala;
pub use snapshot::{Man, PieceKind, Place, Snapshot, Stacking};
pub use wickets::Wickets;

/// A side. White moves first in every game pbem knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first.
    White,
    /// The side that moves second.
    Black,
}

impl Color {
    /// The other side.
    #[must_use]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `"White"` or `"Black"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a finished game ended, as far as the rules decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Win {
        /// The winner.
        winner: Color,
        /// Why the game is over.
        reason: WinReason,
    },
    /// Nobody won.
    Draw {
        /// Why the game is drawn.
        reason: DrawReason,
    },
}

impl Outcome {
    /// The PGN result string: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn result(self) -> GameResult {
        match self {
            Outcome::Win {
                winner: Color::White,
                ..
            } => GameResult::WhiteWins,
            Outcome::Win {
                winner: Color::Black,
                ..
            } => GameResult::BlackWins,
            Outcome::Draw { .. } => GameResult::Draw,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, reason } => write!(f, "{winner} wins by {reason}"),
            Outcome::Draw { reason } => write!(f, "draw by {reason}"),
        }
    }
}

/// Why a game was won by the rules (not by resignation or time, which are record events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WinReason {
    /// The loser's king is in check and the loser has no legal turn.
    Checkmate,
    /// The loser has no legal turn, in check or not (games where that loses).
    NoLegalTurn,
    /// The loser has no piece left (games won by taking every opposing piece).
    AllPiecesCaptured,
    /// Chess with wickets: the loser's King was its Defender when its wicket was taken.
    KingDefenderTaken,
    /// Chess with wickets: the loser had to name a new Defender and had no piece to name.
    NoDefender,
    /// African Chess: the loser's touchstone is guarded and the loser has no legal turn.
    Touch,
    /// Chesscala: the loser has lost 12 or more pieces.
    Attrition,
}

impl fmt::Display for WinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WinReason::Checkmate => "checkmate",
            WinReason::NoLegalTurn => "the opponent having no legal turn",
            WinReason::AllPiecesCaptured => "capturing every opposing piece",
            WinReason::KingDefenderTaken => "taking the wicket of a King Defender",
            WinReason::NoDefender => "the opponent having no piece to name Defender",
            WinReason::Touch => "touch",
            WinReason::Attrition => "attrition",
        })
    }
}

/// Why a game is drawn, or could be drawn on a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DrawReason {
    /// The side to move has no legal turn and is not in check.
    Stalemate,
    /// Neither side can win by any series of legal moves.
    InsufficientMaterial,
    /// Fifty moves of each side without progress: in chess without a capture or a pawn move
    /// (a claim); in Cascudo without a capture (automatic).
    FiftyMoves,
    /// Seventy-five moves of each side without a capture or a pawn move (automatic).
    SeventyFiveMoves,
    /// The same position for the third time (a claim).
    ThreefoldRepetition,
    /// The same position for the fifth time (automatic).
    FivefoldRepetition,
    /// Chesscala: both sides have a checkmated King (at once, or after a last turn).
    SimultaneousCheckmate,
    /// Chesscala: the side that played its last turn took the other's twelfth piece.
    AttritionOnLastTurn,
}

impl fmt::Display for DrawReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DrawReason::Stalemate => "stalemate",
            DrawReason::InsufficientMaterial => "insufficient material",
            DrawReason::FiftyMoves => "the fifty-move rule",
            DrawReason::SeventyFiveMoves => "the seventy-five-move rule",
            DrawReason::ThreefoldRepetition => "threefold repetition",
            DrawReason::FivefoldRepetition => "fivefold repetition",
            DrawReason::SimultaneousCheckmate => "simultaneous checkmates",
            DrawReason::AttritionOnLastTurn => "the twelfth piece taken on the last turn",
        })
    }
}

/// A game's result as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: unknown, or the game goes on.
    Unknown,
}

impl GameResult {
    /// The PGN token.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a PGN result token.
    #[must_use]
    pub fn from_token(token: &str) -> Option<GameResult> {
        match token {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unknown),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How repeating a position matters in a game. The replay counts repetitions (by
/// [`Game::repetition_key`]) and applies this rule; a position alone cannot know its past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionRule {
    /// A draw may be claimed at the `claim`th occurrence and the game ends by itself at
    /// the `automatic`th (FIDE: 3 and 5).
    Draw {
        /// Occurrences from which a draw may be claimed.
        claim: u32,
        /// Occurrences at which the game is drawn without a claim.
        automatic: Option<u32>,
    },
    /// A turn that would make a position occur for the `n`th time is illegal.
    IllegalAt(u32),
}

/// The setup of a game could not be turned into a playable position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SetupError {
    /// What is wrong, in words (lowercase, no trailing period).
    pub message: String,
    /// The field of the position string that is wrong (its white-space separated fields
    /// count from 1; one past the last for a missing field), when the error is about one.
    pub field: Option<usize>,
}

impl SetupError {
    /// A setup error with the given message.
    pub fn new(message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            field: None,
        }
    }

    /// A setup error about field `field` of the position string (from 1).
    pub fn in_field(field: usize, message: impl Into<String>) -> SetupError {
        SetupError {
            message: message.into(),
            field: Some(field),
        }
    }

    /// The error, now known to be about field `field` (from 1), unless it named one.
    #[must_use]
    pub fn or_in_field(self, field: usize) -> SetupError {
        SetupError {
            field: self.field.or(Some(field)),
            ..self
        }
    }
}

/// A turn token that does not follow the game's turn grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TurnSyntaxError {
    /// What is wrong, in words.
    pub message: String,
    /// Byte offset inside the token where the problem is.
    pub offset: usize,
}

impl TurnSyntaxError {
    /// A syntax error at `offset` bytes into the token.
    pub fn new(offset: usize, message: impl Into<String>) -> TurnSyntaxError {
        TurnSyntaxError {
            message: message.into(),
            offset,
        }
    }
}

/// Why a well-formed turn is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IllegalKind {
    /// No piece of the side to move could make this turn at all.
    NoSuchPiece,
    /// A piece could reach the target, but something stands in the way.
    Blocked,
    /// The turn would leave (or put) the mover's own king in check.
    LeavesKingInCheck,
    /// Several turns match; each is written out canonically.
    Ambiguous(Vec<String>),
    /// The game is already over.
    GameOver,
    /// The rules allow the turn, but the game's history forbids it: it would make a
    /// position occur too often ([`RepetitionRule::IllegalAt`]).
    Repetition,
    /// Any other reason, in words.
    Other,
}

/// A well-formed turn that is not legal in the position, with the reason in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct IllegalTurn {
    /// The kind of problem, for programs.
    pub kind: IllegalKind,
    /// The reason in words, for people (lowercase, no trailing period).
    pub message: String,
}

impl IllegalTurn {
    /// An illegal turn of the given kind and message.
    pub fn new(kind: IllegalKind, message: impl Into<String>) -> IllegalTurn {
        IllegalTurn {
            kind,
            message: message.into(),
        }
    }
}

/// The turns a game's history forbids in a position: under
/// [`RepetitionRule::IllegalAt`], those that would reach a position (by
/// [`Game::repetition_key`]) that has already occurred as often as the rule allows. The
/// replay's history computes it (`replay::History`); a position alone never forbids
/// anything, and in games without such a rule it is always empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forbidden {
    /// The repetition keys no turn may reach, sorted.
    keys: Vec<u64>,
    /// The occurrence a turn may not make (3 in Chesica).
    limit: u32,
}

impl Forbidden {
    /// Nothing is forbidden.
    #[must_use]
    pub const fn none() -> Forbidden {
        Forbidden {
            keys: Vec::new(),
            limit: 0,
        }
    }

    /// Forbids reaching any of `keys`, which would make a position occur `limit` times.
    #[must_use]
    pub fn new(keys: impl IntoIterator<Item = u64>, limit: u32) -> Forbidden {
        let mut keys: Vec<u64> = keys.into_iter().collect();
        keys.sort_unstable();
        keys.dedup();
        Forbidden { keys, limit }
    }

    /// Whether nothing is forbidden (always so in games without a repetition ban).
    #[must_use]
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The occurrence a forbidden turn would make (3 in Chesica).
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.limit
    }

    /// Whether reaching the position with this repetition key is forbidden.
    #[must_use]
    pub fn forbids_key(&self, key: u64) -> bool {
        self.keys.binary_search(&key).is_ok()
    }

    /// Whether playing `turn` in `position` is forbidden.
    #[must_use]
    #[inline]
    pub fn forbids<G: Game>(&self, position: &G, turn: &G::Turn) -> bool {
        if self.keys.is_empty() {
            return false;
        }
        let mut next = position.clone();
        next.play(turn);
        self.forbids_key(next.repetition_key())
    }

    /// Adds a key (the position has occurred as often as allowed).
    pub(crate) fn insert(&mut self, key: u64, limit: u32) {
        self.limit = limit;
        if let Err(at) = self.keys.binary_search(&key) {
            self.keys.insert(at, key);
        }
    }

    /// Removes a key (the path that made it forbidden was left).
    pub(crate) fn remove(&mut self, key: u64) {
        if let Ok(at) = self.keys.binary_search(&key) {
            self.keys.remove(at);
        }
    }

    /// The reason a forbidden turn, written `token`, is refused.
    #[must_use]
    pub fn refusal(&self, token: &str) -> IllegalTurn {
        IllegalTurn::new(
            IllegalKind::Repetition,
            format!(
                "{token} would make the same position occur {} times",
                self.limit
            ),
        )
    }
}

/// The largest move number (and move counter) a position string may give: a billion,
/// far beyond any game, so that [`count_up`] never wraps and every position a turn
/// produces can be written and read back.
pub const MAX_COUNT: u32 = 1_000_000_000;

/// A move number or counter after one more step. It never overflows: past [`MAX_COUNT`]
/// it stays there (no game gets that far; [`check_count`] refuses a position string that
/// starts beyond it).
#[must_use]
pub const fn count_up(n: u32) -> u32 {
    if n >= MAX_COUNT { MAX_COUNT } else { n + 1 }
}

/// Checks a move number or counter read from field `index` (`what` in words) of a
/// position string: at most [`MAX_COUNT`].
pub fn check_count(n: u32, index: u32, what: &str) -> Result<u32, SetupError> {
    if n > MAX_COUNT {
        Err(SetupError::in_field(
            index as usize,
            format!("bad field {index} ({what}): {n} is more than {MAX_COUNT}, beyond any game"),
        ))
    } else {
        Ok(n)
    }
}

/// Read access to a record's tag pairs, which choose the setup and the game's options.
pub trait Tags {
    /// The value of the first tag with this name, compared case-sensitively as PGN does.
    fn tag(&self, name: &str) -> Option<&str>;
}

impl Tags for [(&str, &str)] {
    fn tag(&self, name: &str) -> Option<&str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// One game's rules. A value of the implementing type is a position of that game; the
/// associated types are its turn, as a legal move in a position, and its turn syntax, as a
/// token reads without a board.
///
/// Implementations keep move generation free of allocation per node: `legal_turns` fills a
/// vector the caller owns and reuses.
pub trait Game: Clone + fmt::Debug + Sized {
    /// A legal turn in some position (all its parts: capture then sow, a cascade, a throw).
    type Turn: Clone + PartialEq + fmt::Debug;
    /// A turn token parsed without looking at a board.
    type Syntax: Clone + PartialEq + fmt::Debug + fmt::Display;

    /// Which game this is.
    const VARIANT: Variant;
    /// What repeating a position does in this game.
    const REPETITION: RepetitionRule;
    /// Whether a draw may be claimed under a fifty-move rule ([`Game::claimable_draw`]
    /// says when); games without such a claim keep the default.
    const FIFTY_MOVE_CLAIM: bool = false;

    /// The game's standard starting position.
    fn start() -> Self;

    /// The position a record starts from, chosen by its tags (`SetUp`/`FEN`, and any
    /// option tags the game defines). Without setup tags it is the standard start. The
    /// default reads only the setup tags ([`position_from_setup_tags`]); games with
    /// option tags read those and call it.
    fn from_tags(tags: &dyn Tags) -> Result<Self, SetupError> {
        position_from_setup_tags(tags)
    }

    /// Reads the game's FEN-like position string.
    fn from_position_string(text: &str) -> Result<Self, SetupError>;

    /// Writes the game's FEN-like position string; `from_position_string` reads it back.
    fn position_string(&self) -> String;

    /// A multi-line ASCII picture of the position, for people.
    fn diagram(&self) -> String;

    /// The side whose turn it is.
    fn side_to_move(&self) -> Color;

    /// The number of the current full move, as PGN numbers them (starts at 1, grows after
    /// Black's turn).
    fn fullmove_number(&self) -> u32;

    /// Appends every legal turn to `out` (which the caller clears and reuses).
    fn legal_turns(&self, out: &mut Vec<Self::Turn>);

    /// Like [`Game::legal_turns`], leaving out the turns the history forbids. The default
    /// filters the legal turns; `forbidden` is empty in games without a repetition ban.
    fn legal_turns_except(&self, forbidden: &Forbidden, out: &mut Vec<Self::Turn>) {
        let from = out.len();
        self.legal_turns(out);
        if !forbidden.is_empty() {
            let mut index = from;
            while index < out.len() {
                if forbidden.forbids(self, &out[index]) {
                    out.remove(index);
                } else {
                    index += 1;
                }
            }
        }
    }

    /// Parses one turn token (without move number, annotation glyphs or comments).
    fn parse_turn(token: &str) -> Result<Self::Syntax, TurnSyntaxError>;

    /// Finds the legal turn that a parsed token means here, or says why there is none.
    fn resolve(&self, syntax: &Self::Syntax) -> Result<Self::Turn, IllegalTurn>;

    /// The canonical token for a legal turn in this position (before it is played):
    /// the shortest unambiguous form, with its check or mate marker.
    fn write_turn(&self, turn: &Self::Turn) -> String;

    /// Like [`Game::resolve`], among the turns the history does not forbid: a token
    /// that fits one allowed turn and forbidden ones means the allowed one, and a token
    /// that fits only a forbidden turn is refused with [`IllegalKind::Repetition`]. The
    /// default, right for games whose tokens never need the history to disambiguate,
    /// resolves and then checks.
    fn resolve_except(
        &self,
        syntax: &Self::Syntax,
        forbidden: &Forbidden,
    ) -> Result<Self::Turn, IllegalTurn> {
        let turn = self.resolve(syntax)?;
        if forbidden.forbids(self, &turn) {
            return Err(forbidden.refusal(&self.write_turn(&turn)));
        }
        Ok(turn)
    }

    /// Like [`Game::write_turn`], disambiguating only among the turns the history does
    /// not forbid (as PGN counts only legal moves). The default ignores the history.
    fn write_turn_except(&self, turn: &Self::Turn, forbidden: &Forbidden) -> String {
        let _ = forbidden;
        self.write_turn(turn)
    }

    /// The tokens of `turns`, which are all the turns the history allows here, each as
    /// [`Game::write_turn_except`] writes it (the same text). A game whose writer looks
    /// at the other legal turns (a Chesscala sowing order) writes them all from this one
    /// list instead of generating it again for each token: `pbem legal` and the play
    /// page's list of turns (`board::view`).
    fn write_turns_except(&self, turns: &[Self::Turn], forbidden: &Forbidden) -> Vec<String> {
        turns
            .iter()
            .map(|turn| self.write_turn_except(turn, forbidden))
            .collect()
    }

    /// Plays a legal turn. Behaviour for a turn that is not legal here is unspecified
    /// (but never undefined).
    fn play(&mut self, turn: &Self::Turn);

    /// The end the rules impose on this position without any claim (checkmate,
    /// stalemate, insufficient material, the 75-move rule...), or `None` while the game
    /// goes on. Repetition is judged by the replay, not here.
    fn outcome(&self) -> Option<Outcome>;

    /// Like [`Game::outcome`], for a position known to have a legal turn (the replay has
    /// just resolved one from it): only the ends that leave legal turns (a dead position,
    /// a move-count rule) need checking, which is cheaper than looking for mate.
    fn outcome_with_legal_turn(&self) -> Option<Outcome> {
        self.outcome()
    }

    /// How the game ends when the side to move has legal turns but the repetition rule
    /// forbids every one of them ([`RepetitionRule::IllegalAt`]): by default the side to
    /// move loses, as in games where having no legal turn loses.
    fn outcome_without_legal_turn(&self) -> Outcome {
        Outcome::Win {
            winner: self.side_to_move().other(),
            reason: WinReason::NoLegalTurn,
        }
    }

    /// A draw the side to move may claim in this position by a move-count rule (the
    /// fifty-move rule), or `None`. Repetition claims are judged by the replay.
    fn claimable_draw(&self) -> Option<DrawReason>;

    /// A hash of everything that makes two positions "the same" for repetition: the
    /// placement, the side to move, and any rights that change the legal turns.
    fn repetition_key(&self) -> u64;

    /// After `self` was reached by playing a turn written as `syntax`, a complaint about
    /// any claim the token made that the position does not bear out (a `#` that is not
    /// mate), or `None`.
    fn annotation_mismatch(&self, syntax: &Self::Syntax) -> Option<String> {
        let _ = syntax;
        None
    }

    /// What the last turn played still waits for, when a decision in it depends on a
    /// player's hidden play that the record does not give yet (a card in reply), or
    /// `None`. No turn may follow until the record completes it; a record ending here is
    /// valid and the replay reports what is awaited as a warning.
    fn awaiting(&self) -> Option<String> {
        None
    }

    /// The side whose part the last turn awaits (see [`Game::awaiting`]): by mail, that
    /// side completes the last turn before anyone plays on.
    fn awaited_side(&self) -> Option<Color> {
        None
    }

    /// What the awaited side adds (see [`Game::awaited_side`]), in a word: `card` (a
    /// card in reply), `roll` (a Dice attempt's roll, from that side's revealed value).
    fn awaited_part(&self) -> &'static str {
        "card"
    }

    /// The parts the awaited side may add now (see [`Game::awaiting`]), as
    /// [`Game::complete_token`] takes them (the cards in Chess with wickets: `S5`); empty
    /// when nothing is awaited. `pbem legal` lists them.
    fn awaited_parts(&self) -> Vec<String> {
        Vec::new()
    }

    /// The last turn's token `last` completed with `part`, what the awaited side adds
    /// (a card in Chess with wickets: `D4`), or `None` when `part` is no such part.
    fn complete_token(last: &str, part: &str) -> Option<String> {
        let _ = (last, part);
        None
    }

    /// Whether `later` is the token `earlier` completed with parts the awaited sides
    /// added (so a mail that carries it updates the last turn, not a history that differs).
    fn completes(earlier: &str, later: &str) -> bool {
        let _ = (earlier, later);
        false
    }

    /// The kinds of piece the converters name (`pbem convert`): every kind that can
    /// appear in [`Game::snapshot`], promotions included. Empty for a game the converters
    /// do not know yet.
    const PIECE_KINDS: &'static [PieceKind] = &[];

    /// Whether two different legal turns from one position always leave different
    /// boards ([`Game::snapshot`]), as in chess: the converters then need not compare the
    /// board of every other legal turn to know that the board tells the turn. `false` (the
    /// default) makes them compare.
    const BOARD_TELLS_TURN: bool = false;

    /// The board for the converters: every place in a fixed order with its pieces bottom
    /// to top (see [`Snapshot`]). Two positions that differ only off the board (side to
    /// move, rights, clocks, dice) may give the same snapshot. `None` (the default) means
    /// the game cannot be converted yet; implementing this and [`Game::PIECE_KINDS`] is
    /// all a game needs for `pbem convert`.
    fn snapshot(&self) -> Option<Snapshot> {
        None
    }

    /// The board `turn` leaves, for the converters, which compare it with a foreign
    /// move's board for every legal turn. The default plays the turn; a game whose
    /// [`Game::play`] also judges the new position (mates, a last turn) overrides it to
    /// move the pieces only.
    fn snapshot_after(&self, turn: &Self::Turn) -> Option<Snapshot> {
        let mut next = self.clone();
        next.play(turn);
        next.snapshot()
    }

    /// The number of leaf positions `depth` turns deep. Games override it with a faster
    /// count where they have one; this one allocates one vector per level, not per node.
    fn perft(&self, depth: u32) -> u64 {
        fn walk<G: Game>(position: &G, depth: u32, buffers: &mut [Vec<G::Turn>]) -> u64 {
            let Some((turns, rest)) = buffers.split_first_mut() else {
                return 1;
            };
            turns.clear();
            position.legal_turns(turns);
            if depth == 1 {
                return turns.len() as u64;
            }
            let mut nodes = 0;
            for turn in turns.iter() {
                let mut next = position.clone();
                next.play(turn);
                nodes += walk(&next, depth - 1, rest);
            }
            nodes
        }
        if depth == 0 {
            return 1;
        }
        let mut buffers: Vec<Vec<Self::Turn>> = (0..depth).map(|_| Vec::new()).collect();
        walk(self, depth, &mut buffers)
    }
}

/// Perft for a game that can count its legal turns without keeping them: each level above
/// the last plays every legal turn on a copy and asks the game's own `perft` one level
/// down; the last level is `count_turns`.
pub(crate) fn perft_counting_last<G: Game>(
    position: &G,
    depth: u32,
    count_turns: impl Fn(&G) -> u64,
) -> u64 {
    match depth {
        0 => 1,
        1 => count_turns(position),
        _ => {
            let mut turns = Vec::new();
            position.legal_turns(&mut turns);
            turns
                .iter()
                .map(|turn| {
                    let mut next = position.clone();
                    next.play(turn);
                    next.perft(depth - 1)
                })
                .sum()
        }
    }
}

/// Reads field 2 of a position string, the side to move: `w` or `b`.
pub(crate) fn read_side(field: Option<&str>) -> Result<Color, SetupError> {
    match field {
        None => Err(SetupError::in_field(2, "missing field 2 (side to move)")),
        Some("w") => Ok(Color::White),
        Some("b") => Ok(Color::Black),
        Some(other) => Err(SetupError::in_field(
            2,
            format!("bad field 2 (side to move): expected 'w' or 'b', found '{other}'"),
        )),
    }
}

/// Field 2 of a position string for `turn`, the side to move: `w` or `b` (what
/// [`read_side`] reads).
pub(crate) const fn side_field(turn: Color) -> char {
    match turn {
        Color::White => 'w',
        Color::Black => 'b',
    }
}

/// Reads field `index` of a position string, `what` in words, a number from `least` up
/// to [`MAX_COUNT`]; `None` when the field is left out.
pub(crate) fn read_number_field(
    field: Option<&str>,
    index: u32,
    what: &str,
    least: u32,
) -> Result<Option<u32>, SetupError> {
    field
        .map(|text| {
            let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
            match text.parse::<u32>() {
                Ok(n) if n >= least => check_count(n, index, what),
                // All digits but too big for a u32: beyond any game as well.
                Err(_) if digits => Err(SetupError::in_field(
                    index as usize,
                    format!(
                        "bad field {index} ({what}): {text} is more than {MAX_COUNT}, beyond \
                         any game"
                    ),
                )),
                _ => Err(SetupError::in_field(
                    index as usize,
                    format!("bad field {index} ({what}): '{text}' is not a number from {least}"),
                )),
            }
        })
        .transpose()
}

/// Reads a position string of three fields, `placement side [fullmove]`: the placement
/// with `read_placement` (its errors said to be in field 1), the side to move, the
/// fullmove number (1 when left out), and nothing after them.
pub(crate) fn read_placement_side_fullmove<B>(
    text: &str,
    read_placement: impl FnOnce(&str) -> Result<B, SetupError>,
) -> Result<(B, Color, u32), SetupError> {
    let mut fields = text.split_whitespace();
    let placement = fields
        .next()
        .ok_or_else(|| SetupError::in_field(1, "empty position string"))?;
    let board = read_placement(placement).map_err(|error| error.or_in_field(1))?;
    let turn = read_side(fields.next())?;
    let fullmove_number = read_number_field(fields.next(), 3, "fullmove number", 1)?.unwrap_or(1);
    if let Some(extra) = fields.next() {
        return Err(SetupError::in_field(
            4,
            format!("unexpected text after field 3: '{extra}'"),
        ));
    }
    Ok((board, turn, fullmove_number))
}

/// The start the standard setup tags choose: `[FEN]` (with or without `[SetUp "1"]`) read
/// as the game's position string; `[SetUp "1"]` without `[FEN]` is an error; without
/// either, the game's standard start.
pub fn position_from_setup_tags<G: Game>(tags: &dyn Tags) -> Result<G, SetupError> {
    match (tags.tag("FEN"), tags.tag("SetUp")) {
        (Some(text), _) => G::from_position_string(text),
        (None, Some(setup)) if setup.trim() == "1" => Err(SetupError::new(
            "the setup tag is \"1\" but there is no fen tag",
        )),
        (None, _) => Ok(G::start()),
    }
}

/// SplitMix64 (Steele, Lea and Flood), for the constant keys of repetition hashes: a
/// different `state` gives an unrelated 64-bit key.
#[must_use]
pub const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One key per piece code (0 to 11: the side, the kind and any promotion) and square of a
/// board of `N` squares, each `splitmix(seed ^ (code * 64 + square))`: the constant keys of
/// the games whose repetition key is [`board_key`].
pub(crate) const fn piece_square_keys<const N: usize>(seed: u64) -> [[u64; N]; 12] {
    let mut keys = [[0; N]; 12];
    let mut piece = 0;
    while piece < 12 {
        let mut square = 0;
        while square < N {
            keys[piece][square] = splitmix(seed ^ (piece * 64 + square) as u64);
            square += 1;
        }
        piece += 1;
    }
    keys
}

/// The repetition key of a board held as one `Option` a square: the XOR of each piece's
/// key on its square (`keys[code(piece)][square]`), and of `black_to_move` when Black is
/// to move.
pub(crate) fn board_key<P: Copy, const N: usize>(
    turn: Color,
    black_to_move: u64,
    board: &[Option<P>],
    keys: &[[u64; N]; 12],
    code: impl Fn(P) -> usize,
) -> u64 {
    let mut key = match turn {
        Color::White => 0,
        Color::Black => black_to_move,
    };
    for (square, piece) in board.iter().enumerate() {
        if let Some(piece) = *piece {
            key ^= keys[code(piece)][square];
        }
    }
    key
}

/// The games pbem plays, chosen at run time (from a `[Variant]` tag or `--variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Variant {
    /// Orthodox chess under the FIDE Laws.
    Chess,
    /// Chesica, Copley's chess and checkers hybrid as Peter Aronson reconstructed it.
    Chesica,
    /// Chess with wickets (A. Black, 2011): Balls, Ball-havers, Defenders and wickets.
    ChessWithWickets,
    /// African Chess (Arthur and Wald Amberstone, early 1960s): stones sown like mancala.
    AfricanChess,
    /// Cascudo (David Jagger, 2003): a hexagonal chess whose turns are cascades of moves.
    Cascudo,
    /// Chesscala (Francois Tremblay and David Mustoe, 2011): chess pieces sown in three
    /// mancala circuits.
    Chesscala,
}

impl Variant {
    /// Every game pbem plays, in the order the help lists them.
    pub const ALL: &'static [Variant] = &[
        Variant::Chess,
        Variant::ChessWithWickets,
        Variant::Chesica,
        Variant::AfricanChess,
        Variant::Cascudo,
        Variant::Chesscala,
    ];

    /// The canonical `[Variant]` tag value.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "Chess",
            Variant::Chesica => "Chesica",
            Variant::ChessWithWickets => "Chess with wickets",
            Variant::AfricanChess => "African Chess",
            Variant::Cascudo => "Cascudo",
            Variant::Chesscala => "Chesscala",
        }
    }

    /// Other names people write for the game (compared like [`Variant::from_name`]).
    #[must_use]
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Variant::Chess => &["standard", "orthodox", "fide", "normal", "from position"],
            Variant::Chesica => &["Chesica Reconstructed", "Copley's Chesica"],
            Variant::ChessWithWickets => &["wickets", "chess-with-wickets", "wicket chess"],
            Variant::AfricanChess => &["african", "african-chess", "Amberstone chess"],
            Variant::Cascudo => &["Cascudo Chess", "cascade chess"],
            Variant::Chesscala => &["chess-mancala", "chess mancala", "Tremblay's Chesscala"],
        }
    }

    /// Finds a game by a `[Variant]` value or alias, case-insensitively, with spaces,
    /// hyphens and underscores counted alike.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Variant> {
        let wanted = normalize_name(name);
        Variant::ALL.iter().copied().find(|variant| {
            normalize_name(variant.name()) == wanted
                || variant
                    .aliases()
                    .iter()
                    .any(|alias| normalize_name(alias) == wanted)
        })
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn normalize_name(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            '-' | '_' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs a generic expression with `$G` bound to the game type of a [`Variant`]. This is
/// the one place that turns a run-time choice of game into a type.
#[macro_export]
macro_rules! with_game {
    ($variant:expr, $G:ident => $body:expr) => {
        match $variant {
            $crate::games::Variant::Chess => {
                type $G = $crate::games::Chess;
                $body
            }
            $crate::games::Variant::Chesica => {
                type $G = $crate::games::Chesica;
                $body
            }
            $crate::games::Variant::ChessWithWickets => {
                type $G = $crate::games::Wickets;
                $body
            }
            $crate::games::Variant::AfricanChess => {
                type $G = $crate::games::African;
                $body
            }
            $crate::games::Variant::Cascudo => {
                type $G = $crate::games::Cascudo;
                $body
            }
            $crate::games::Variant::Chesscala => {
                type $G = $crate::games::Chesscala;
                $body
            }
            // `Variant` is `#[non_exhaustive]` for other crates, which must then have a
            // wildcard arm; this macro comes with the crate, so it names every variant
            // and the arm is never taken.
            #[allow(unreachable_patterns)]
            _ => unreachable!("with_game! names every variant of its own crate"),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_are_case_and_separator_insensitive() {
        assert_eq!(Variant::from_name("chess"), Some(Variant::Chess));
        assert_eq!(Variant::from_name(" Standard "), Some(Variant::Chess));
        assert_eq!(Variant::from_name("From-Position"), Some(Variant::Chess));
        assert_eq!(Variant::from_name("crazyhouse"), None);
        assert_eq!(Variant::from_name("CHESICA"), Some(Variant::Chesica));
        assert_eq!(
            Variant::from_name("chesica-reconstructed"),
            Some(Variant::Chesica)
        );
        assert_eq!(
            Variant::from_name("African-Chess"),
            Some(Variant::AfricanChess)
        );
        assert_eq!(Variant::from_name("african"), Some(Variant::AfricanChess));
        assert_eq!(Variant::from_name("cascudo-chess"), Some(Variant::Cascudo));
        assert_eq!(Variant::from_name("chesscala"), Some(Variant::Chesscala));
        assert_eq!(
            Variant::from_name("Chess-Mancala"),
            Some(Variant::Chesscala)
        );
    }
}
