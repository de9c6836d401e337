//! Converters between pbem records and the formats other programs and people use:
//! Zillions of Games saved games ([`zillions`]), Game Courier move lists
//! ([`gamecourier`]) and move lists typed into posts and mails ([`text`], read only).
//!
//! Nothing here knows a game's pieces. Readers turn a file into a [`Foreign`] game: board
//! operations ([`Op`]) or typed tokens per turn. [`to_pbem`] matches each turn against
//! the legal turns of the position ([`matching`]), so the result is always a legal,
//! canonical pbem game; what cannot be matched is a [`Finding`] at its place with the
//! candidates, and the game is converted up to there. Writers go the other way: each
//! turn's operations are derived from the boards before and after it ([`ops::derive`]),
//! through [`Game::snapshot`]. A game needs nothing more than `Game::snapshot` and
//! `Game::PIECE_KINDS` to be convertible.
//!
//! When several legal turns leave the same board (a die or a card decided something the
//! board does not show), writers add the pbem token in a comment the readers understand.
//!
//! Like the rest of the library, nothing here does I/O.
//!
//! # How it is built
//!
//! Converters between pbem records and foreign formats, the same for every game. A game
//! describes its board through `Game::snapshot` (a `Snapshot`: every place in a fixed order
//! with its pieces bottom to top, each a `Man`: side and `PieceKind` with a Zillions name and
//! a Game Courier label; `Stacking` says whether places hold one piece, an unordered set or
//! an ordered stack; `Snapshot::filled` builds one) and `Game::PIECE_KINDS`; the default
//! `None` means "not convertible yet", and those two items are all a new game adds. All six
//! games implement them (Chesscala's stacks as unordered places, Cascudo's 44 cells as
//! single ones, both with the chess pieces' names). `Game::snapshot_after`, the board a
//! turn leaves, defaults to playing the turn; Chesscala overrides it to move the pieces
//! without judging mates, since matching compares the board of every legal turn. `ops` (`Op`: move, removal, drop,
//! change of kind or side; `apply` plays operations on a snapshot as the foreign program
//! would; `derive` finds the readable operations between two snapshots, orders a turn's
//! moves so that a piece leaves a place before another enters it (a Cascudo cascade is
//! written from its end; identical pieces trade origins to break a cycle; a piece that
//! changed kind where a chain passes is the one that moves on, so a promotion inside a
//! chain reads as a move and a change), and puts right
//! what they miss by clearing and dropping, so its result is always exact; `edits` for
//! setups),
//! `matching` (the one place a foreign move becomes a turn: operations by comparing the
//! board they leave with the board of every legal turn; typed tokens by the game's own
//! `parse_turn`/`resolve`, then by coordinates; anything else is an `Unmatched` with the
//! candidates), `zillions`, `gamecourier` (reader and writer each), `text` (reader; its
//! `Stream` reads a typed list from a stream piece by piece as the turns are taken), and in
//! the module itself `Format` (with `guess` from the content), `Foreign` (a file read without
//! the rules: game name, setup edits, turns with spans and an optional `pbem turn` hint,
//! findings), `to_pbem` (matching turn by turn, a turn joined with the Zillions partial
//! lines after it that may continue it when the join is a legal turn, stopping at the
//! first that cannot be matched, then the replay of the result, which applies the repetition rules;
//! `to_pbem_from` takes the turns one at a time from a `Turns` stream and none past the
//! end of the game, so a typed list converts in memory that grows with the game, not with
//! the input) and
//! `export` (a valid record's main line as `ExportedTurn`s for the writers).
//!
//! Invariants: the output of `to_pbem` is a legal, canonical record (what could be matched);
//! `apply(derive(a, b))` gives `b` (unordered places compared as sets) for any two
//! snapshots; where several legal turns leave the same
//! board (dice, cards; never in chess, which says so by `Game::BOARD_TELLS_TURN`, so that
//! its export compares no other turn's board) the writers add the pbem token as a `pbem
//! turn` comment, so
//! `read(write(g)) == g` for every game. Nothing here does I/O; `cli::convert` reads the
//! input, renders the findings through `cli::diagnostic` and writes with
//! `store::write_atomically`.

pub mod gamecourier;
pub mod matching;
pub mod ops;
pub mod text;
pub mod zillions;

use std::fmt;

use crate::games::{Color, Forbidden, Game, GameResult, Snapshot, Variant};
use crate::notation::{Line, Numbering, Record, Span, TurnNode, complete_roster, write_record};
use crate::replay::{self, Finding, FindingKind, History, Severity};
use crate::with_game;

pub use matching::Unmatched;
pub use ops::Op;

/// A format `pbem convert` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// pbem's own notation.
    Pbem,
    /// A Zillions of Games saved game (`.zsg`).
    Zillions,
    /// A Game Courier move list.
    GameCourier,
    /// A move list typed by a person (read only).
    Text,
}

impl Format {
    /// Every format, in the order the help lists them.
    pub const ALL: [Format; 4] = [
        Format::Pbem,
        Format::Zillions,
        Format::GameCourier,
        Format::Text,
    ];

    /// The name on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Format::Pbem => "pbem",
            Format::Zillions => "zillions",
            Format::GameCourier => "gamecourier",
            Format::Text => "text",
        }
    }

    /// The format a name means (case-insensitively; `zsg` and `pgn` too).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Format> {
        match name.trim().to_ascii_lowercase().as_str() {
            "pbem" | "pgn" => Some(Format::Pbem),
            "zillions" | "zsg" => Some(Format::Zillions),
            "gamecourier" | "game-courier" | "gc" => Some(Format::GameCourier),
            "text" | "txt" => Some(Format::Text),
            _ => None,
        }
    }

    /// Guesses the format of a file from its content: the Zillions header, PGN tag
    /// pairs, Game Courier's labelled moves (`P e2-e4`), drops (`*`), removals (`@-`) or
    /// `//` comments; anything else is a typed move list.
    #[must_use]
    pub fn guess(text: &str) -> Format {
        let text = text.trim_start_matches('\u{feff}');
        if text.trim_start().starts_with(zillions::HEADER) {
            return Format::Zillions;
        }
        let lines = || text.lines().map(str::trim);
        if lines().any(|line| line.starts_with('[') && line.ends_with(']') && line.contains('"')) {
            return Format::Pbem;
        }
        if lines().any(gamecourier::looks_like) {
            return Format::GameCourier;
        }
        Format::Text
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one turn of a foreign file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnBody {
    /// Board operations (Zillions, Game Courier).
    Ops(Vec<Op>),
    /// A typed token (a typed move list).
    Token(String),
    /// A turn the reader could not read (its finding says why): the conversion stops
    /// here rather than blame the turns after it.
    Unreadable,
}

/// One turn of a foreign file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignTurn {
    /// Where it starts in the file.
    pub span: Span,
    /// The turn as written, for messages.
    pub written: String,
    /// What it says.
    pub body: TurnBody,
    /// The pbem token a comment gives for it, if any.
    pub hint: Option<String>,
    /// Whether it may be the rest of the turn before it (a Zillions `partial` line with
    /// the number of the partial line before it): when the turn before fits no legal
    /// turn, or fits one only with this part, the two are one turn.
    pub may_continue: bool,
}

/// A game as a foreign file gives it, read without knowing the game's rules.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Foreign {
    /// The game the file names (Zillions `VariantName`, a pbem game comment).
    pub game: Option<String>,
    /// The Zillions rules file, if any.
    pub rules_file: Option<String>,
    /// The starting position's string, when a pbem comment gives it.
    pub setup: Option<String>,
    /// Edits of the starting position (Zillions `(x b6)`, `(White Checker b6)`).
    pub edits: Vec<(Op, Span)>,
    /// The turns, in order.
    pub turns: Vec<ForeignTurn>,
    /// The result, if the file gives one.
    pub result: Option<GameResult>,
    /// What could not be read (the rest was read on).
    pub findings: Vec<Finding>,
}

/// Choices for formats that do not name the game or its start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The game (`--variant`), over what the file says.
    pub variant: Option<Variant>,
    /// The starting position as the game's position string (`--setup`).
    pub setup: Option<String>,
}

/// A conversion to pbem: the record's text and everything found on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The pbem record (the turns that could be matched), or empty when no game could
    /// be chosen.
    pub text: String,
    /// Problems, each at its place in the input.
    pub findings: Vec<Finding>,
    /// How many turns were converted.
    pub turns: usize,
}

impl Converted {
    /// Whether everything was converted.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        !self.text.is_empty()
            && !self
                .findings
                .iter()
                .any(|finding| finding.severity == Severity::Error)
    }
}

/// Reads a foreign file (not pbem) into a [`Foreign`] game.
#[must_use]
pub fn read(format: Format, text: &str) -> Foreign {
    match format {
        Format::Zillions => zillions::read(text),
        Format::GameCourier => gamecourier::read(text),
        Format::Text | Format::Pbem => text::read(text),
    }
}

/// A finding at a place of the input.
pub(crate) fn finding(kind: FindingKind, message: impl Into<String>, span: Span) -> Finding {
    Finding::new(Severity::Error, kind, message, span)
}

/// Reads pbem's own comment lines, which the foreign programs do not write (after the
/// comment sign, `;` in Zillions and `//` in Game Courier): `pbem game <name>`,
/// `pbem setup <position string>`, `pbem result <result>` and `pbem turn <token>` (for the
/// turn before it). Other comments are left alone.
pub(crate) fn read_pbem_comment(comment: &str, foreign: &mut Foreign, span: Span) {
    let Some(rest) = comment.trim().strip_prefix("pbem ") else {
        return;
    };
    let (key, value) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
    let value = value.trim();
    match key {
        "game" => foreign.game = Some(value.to_owned()),
        "setup" => foreign.setup = Some(value.to_owned()),
        "result" => match GameResult::from_token(value) {
            Some(result) => foreign.result = Some(result),
            None => foreign.findings.push(finding(
                FindingKind::Parse,
                format!("{value} is not a result"),
                span,
            )),
        },
        "turn" => match foreign.turns.last_mut() {
            Some(turn) => turn.hint = Some(value.to_owned()),
            None => foreign.findings.push(finding(
                FindingKind::Parse,
                "a pbem turn comment before any turn",
                span,
            )),
        },
        _ => foreign.findings.push(finding(
            FindingKind::Parse,
            format!("unknown pbem comment \"{key}\""),
            span,
        )),
    }
}

/// Turns byte offsets of a text into lines and columns (from 1; columns count
/// characters, as the notation reader's do).
pub(crate) struct Locator<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
    /// The last offset located and its column: the readers ask going forward, so a long
    /// line is counted once, not once a word.
    last: std::cell::Cell<(usize, u32)>,
}

impl Locator<'_> {
    pub(crate) fn new(text: &str) -> Locator<'_> {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        Locator {
            text,
            line_starts,
            last: std::cell::Cell::new((0, 1)),
        }
    }

    pub(crate) fn span(&self, offset: usize) -> Span {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let (last, last_column) = self.last.get();
        let (from, base) = if last >= start && last <= offset {
            (last, last_column)
        } else {
            (start, 1)
        };
        let characters = self
            .text
            .get(from..offset)
            .map_or(offset - from, |before| before.chars().count());
        let column = base.saturating_add(u32::try_from(characters).unwrap_or(u32::MAX));
        if self.text.is_char_boundary(offset.min(self.text.len())) {
            self.last.set((offset, column));
        }
        Span {
            offset,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column,
        }
    }
}

/// The turns of a foreign game, taken one at a time ([`to_pbem_from`]): a stream of turns
/// read as they are needed, and the result the file gives once all are taken.
pub trait Turns: Iterator<Item = ForeignTurn> {
    /// The result the file gives; asked only after every turn was taken.
    fn result(&self) -> Option<GameResult>;
}

/// The turns of a [`Foreign`] game read whole.
struct Listed<'a> {
    turns: std::slice::Iter<'a, ForeignTurn>,
    result: Option<GameResult>,
}

impl Iterator for Listed<'_> {
    type Item = ForeignTurn;

    fn next(&mut self) -> Option<ForeignTurn> {
        self.turns.next().cloned()
    }
}

impl Turns for Listed<'_> {
    fn result(&self) -> Option<GameResult> {
        self.result
    }
}

/// Converts a foreign game into a pbem record, matching every turn against the legal
/// turns of its position. The game is `options.variant`, else the one the file names,
/// else Chess for a file that names none.
#[must_use]
pub fn to_pbem(foreign: &Foreign, options: &Options) -> Converted {
    let mut turns = Listed {
        turns: foreign.turns.iter(),
        result: foreign.result,
    };
    to_pbem_from(foreign, &mut turns, options)
}

/// [`to_pbem`] with the turns taken one at a time from `turns` (a typed move list read
/// from a stream, [`text::Stream`]); `foreign` gives the rest (its own turns are not
/// looked at). Turns are taken only while the game goes on: the conversion stops at the
/// first turn after the end of the game or that cannot be matched, so memory grows with
/// the game, not with the input.
pub fn to_pbem_from(foreign: &Foreign, turns: &mut dyn Turns, options: &Options) -> Converted {
    let mut findings = foreign.findings.clone();
    let named = foreign.game.as_deref().map(str::trim);
    let variant = match (options.variant, named) {
        (Some(variant), _) => variant,
        (None, Some(name)) => match Variant::from_name(name) {
            Some(variant) => variant,
            None => {
                let rules = foreign
                    .rules_file
                    .as_deref()
                    .map(|file| format!(" (rules file {file})"))
                    .unwrap_or_default();
                findings.push(finding(
                    FindingKind::UnsupportedVariant,
                    format!(
                        "the file is a game of {name}{rules}, which pbem does not know; \
                         pbem knows {}",
                        known_games()
                    ),
                    Span::default(),
                ));
                return Converted {
                    text: String::new(),
                    findings,
                    turns: 0,
                };
            }
        },
        (None, None) => Variant::Chess,
    };
    with_game!(variant, G => convert_game::<G>(foreign, turns, options, findings))
}

fn known_games() -> String {
    Variant::ALL
        .iter()
        .map(|variant| variant.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn convert_game<G: Game>(
    foreign: &Foreign,
    turns: &mut dyn Turns,
    options: &Options,
    mut findings: Vec<Finding>,
) -> Converted {
    let failed = |findings: Vec<Finding>| Converted {
        text: String::new(),
        findings,
        turns: 0,
    };
    let setup = options.setup.clone().or_else(|| foreign.setup.clone());
    let start = match setup.as_deref().map(G::from_position_string) {
        None => G::start(),
        Some(Ok(start)) => start,
        Some(Err(error)) => {
            findings.push(finding(
                FindingKind::Setup,
                format!("invalid setup: {error}"),
                Span::default(),
            ));
            return failed(findings);
        }
    };
    let Some(board) = start.snapshot() else {
        findings.push(finding(
            FindingKind::UnsupportedVariant,
            format!(
                "pbem cannot convert games of {} yet: the game does not describe its board \
                 to the converters",
                G::VARIANT
            ),
            Span::default(),
        ));
        return failed(findings);
    };
    if let Some((_, span)) = foreign.edits.first() {
        let mut edited = G::start()
            .snapshot()
            .expect("a game that describes one position describes all");
        let edits: Vec<Op> = foreign.edits.iter().map(|(op, _)| op.clone()).collect();
        let applied = ops::apply(&mut edited, G::PIECE_KINDS, Color::White, &edits);
        let message = match applied {
            Err(reason) => Some(format!("the setup edits cannot be made: {reason}")),
            Ok(()) if setup.is_none() => Some(
                "the file edits the starting position, and pbem cannot build a position from \
                 edits: give the edited position with --setup"
                    .to_owned(),
            ),
            Ok(()) if edited.normalized() != board => {
                Some("the setup edits do not give the position of the setup".to_owned())
            }
            Ok(()) => None,
        };
        if let Some(message) = message {
            findings.push(finding(FindingKind::Setup, message, *span));
            return failed(findings);
        }
    }

    let mut position = start.clone();
    let mut history = History::starting_at(&start);
    let mut tokens = Vec::new();
    // Where the foreign turn each token comes from (its first part) is, and how it is
    // written.
    let mut sources: Vec<(Span, String)> = Vec::new();
    // The turns taken and not yet converted (a turn and the parts that may continue it).
    let mut ahead: std::collections::VecDeque<ForeignTurn> = std::collections::VecDeque::new();
    let complete = loop {
        if ahead.is_empty() {
            match turns.next() {
                Some(turn) => ahead.push_back(turn),
                None => break true,
            }
        }
        if let Some(outcome) = history.outcome(&position) {
            let turn = &ahead[0];
            let mut found = finding(
                FindingKind::AfterEnd,
                format!("a turn after the end of the game ({outcome})"),
                turn.span,
            );
            found.token = Some(turn.written.clone());
            findings.push(found);
            break false;
        }
        let (matched, parts) = match &ahead[0].body {
            TurnBody::Ops(_) => {
                // Every part that may continue it is taken, and the turn after them.
                while ahead.len() == 1 + continuations(ahead.iter().skip(1)) {
                    match turns.next() {
                        Some(turn) => ahead.push_back(turn),
                        None => break,
                    }
                }
                match_parts(&position, history.forbidden(), ahead.make_contiguous())
            }
            TurnBody::Token(token) => (
                matching::match_token(&position, history.forbidden(), token),
                1,
            ),
            TurnBody::Unreadable => break false,
        };
        let turn = &ahead[0];
        match matched {
            Ok(legal) => {
                tokens.push(position.write_turn_except(&legal, history.forbidden()));
                sources.push((turn.span, turn.written.clone()));
                position.play(&legal);
                history.enter(&position);
                ahead.drain(..parts);
            }
            Err(unmatched) => {
                let mut found = finding(
                    FindingKind::Illegal,
                    format!("cannot convert {}: {}", turn.written, unmatched.message),
                    turn.span,
                );
                found.token = Some(turn.written.clone());
                found.ply = u32::try_from(tokens.len() + 1).ok();
                found.legal = unmatched.candidates;
                findings.push(found);
                break false;
            }
        }
    };
    let given = if complete { turns.result() } else { None };
    let ruled = history.outcome(&position).map(|outcome| outcome.result());
    let result = match (given, ruled) {
        // An open result may not stand after the rules have ended the game: the rules'
        // result is written.
        (Some(GameResult::Unknown), Some(ruled)) if complete => ruled,
        (Some(GameResult::Unknown), None) if complete => GameResult::Unknown,
        (Some(given), Some(ruled)) if complete && given != ruled => {
            findings.push(finding(
                FindingKind::Result,
                format!("the result {given} contradicts the final position, which is {ruled}"),
                Span::default(),
            ));
            ruled
        }
        (Some(given), _) if complete => given,
        (_, Some(ruled)) => ruled,
        _ => GameResult::Unknown,
    };
    let mut text = pbem_text(&start, setup.is_some(), &tokens, result);
    // The validator has the last word: repetition bans and ends by repetition belong to
    // the replay, not to a position.
    let record = crate::notation::parse_record(&text).expect("pbem_text writes records");
    let report = replay::replay(&record);
    if let Some(error) = report.errors().next() {
        let at = error
            .ply
            .and_then(|ply| usize::try_from(ply).ok())
            .filter(|&ply| ply >= 1 && ply <= tokens.len());
        let mut found = match at {
            Some(ply) => {
                let (span, written) = &sources[ply - 1];
                let mut found = finding(
                    error.kind,
                    format!("cannot convert {written}: {}", error.message),
                    *span,
                );
                found.token = Some(written.clone());
                if error.legal.is_empty() {
                    found.legal = other_turns(&start, &tokens[..ply - 1], &tokens[ply - 1]);
                }
                tokens.truncate(ply - 1);
                found
            }
            None => finding(error.kind, error.message.clone(), Span::default()),
        };
        found.ply = error.ply;
        if !error.legal.is_empty() {
            found.legal.clone_from(&error.legal);
        }
        findings.push(found);
        text = pbem_text(&start, setup.is_some(), &tokens, GameResult::Unknown);
    }
    Converted {
        text,
        findings,
        turns: tokens.len(),
    }
}

/// Matches a turn given as operations, joined with the parts after it that may continue
/// it (Zillions `partial` lines): the longest join that fits a legal turn wins, else the
/// first part alone. Gives the match and how many foreign turns it takes.
fn match_parts<G: Game>(
    position: &G,
    forbidden: &Forbidden,
    turns: &[ForeignTurn],
) -> (Result<G::Turn, matching::Unmatched>, usize) {
    let ops_of = |turn: &ForeignTurn| match &turn.body {
        TurnBody::Ops(ops) => Some(ops.clone()),
        TurnBody::Token(_) | TurnBody::Unreadable => None,
    };
    let parts = 1 + continuations(turns[1..].iter());
    for count in (2..=parts).rev() {
        let joined: Vec<Op> = turns[..count].iter().filter_map(ops_of).flatten().collect();
        let hint = turns[..count]
            .iter()
            .rev()
            .find_map(|turn| turn.hint.as_deref());
        if let Ok(turn) = matching::match_ops(position, forbidden, &joined, hint) {
            return (Ok(turn), count);
        }
    }
    let first = ops_of(&turns[0]).unwrap_or_default();
    (
        matching::match_ops(position, forbidden, &first, turns[0].hint.as_deref()),
        1,
    )
}

/// How many of these turns, from the first, may continue the turn before them.
fn continuations<'a>(turns: impl Iterator<Item = &'a ForeignTurn>) -> usize {
    turns
        .take_while(|turn| turn.may_continue && matches!(turn.body, TurnBody::Ops(_)))
        .count()
}

/// The legal turns other than `refused` after `played` from `start`, canonically: the
/// candidates for a turn the replay refuses (a repetition ban) though it is generated.
fn other_turns<G: Game>(start: &G, played: &[String], refused: &str) -> Vec<String> {
    let mut position = start.clone();
    for token in played {
        let turn = G::parse_turn(token)
            .ok()
            .and_then(|syntax| position.resolve(&syntax).ok())
            .expect("the tokens were written from legal turns");
        position.play(&turn);
    }
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    turns
        .iter()
        .map(|turn| position.write_turn(turn))
        .filter(|token| token != refused)
        .collect()
}

/// The canonical pbem record of a game from `start` with these canonical tokens.
#[must_use]
pub fn pbem_text<G: Game>(
    start: &G,
    with_setup: bool,
    tokens: &[String],
    result: GameResult,
) -> String {
    let mut record = Record {
        moves: Line {
            comments: Vec::new(),
            turns: tokens.iter().map(TurnNode::new).collect(),
        },
        result: Some(result),
        ..Record::default()
    };
    record.set_tag("Result", result.as_str());
    record.set_tag("Variant", G::VARIANT.name());
    if with_setup {
        record.set_tag("SetUp", "1");
        record.set_tag("FEN", start.position_string());
    }
    complete_roster(&mut record);
    let numbering = Numbering {
        fullmove: start.fullmove_number(),
        side: start.side_to_move(),
    };
    let mut text = String::new();
    write_record(&record, numbering, &mut text);
    text
}

/// One turn of a pbem game as a writer writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedTurn {
    /// The full move number.
    pub fullmove: u32,
    /// The side that plays it.
    pub side: Color,
    /// The operations that make it on the board.
    pub ops: Vec<Op>,
    /// The pbem token, when the board alone does not tell the turn (several legal turns
    /// leave the same board).
    pub hint: Option<String>,
}

/// A pbem game ready for a writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The game.
    pub variant: Variant,
    /// The starting position's string when the record does not start from the standard
    /// position, and the setup edits that make it from the standard one.
    pub setup: Option<(String, Vec<Op>)>,
    /// The main line's turns.
    pub turns: Vec<ExportedTurn>,
    /// The result.
    pub result: GameResult,
}

/// Prepares the main line of a valid pbem record for a writer; a record that is not
/// valid gives the validator's findings.
pub fn export(record: &Record, dialect: ops::Dialect) -> Result<Exported, Vec<Finding>> {
    export_with(record, dialect, replay::Options::default())
}

/// [`export`], with the validator's options (`--lenient-results`).
pub fn export_with(
    record: &Record,
    dialect: ops::Dialect,
    options: replay::Options,
) -> Result<Exported, Vec<Finding>> {
    let variant = replay::variant_of(record).map_err(|message| {
        vec![finding(
            FindingKind::UnsupportedVariant,
            message,
            record.span,
        )]
    })?;
    with_game!(variant, G => export_game::<G>(record, dialect, options))
}

fn export_game<G: Game>(
    record: &Record,
    dialect: ops::Dialect,
    options: replay::Options,
) -> Result<Exported, Vec<Finding>> {
    let replayed = replay::replay_game_with::<G>(record, options);
    let errors: Vec<Finding> = replayed.report.errors().cloned().collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let start = replayed.start.expect("a valid record has a start");
    let Some(start_board) = start.snapshot() else {
        return Err(vec![finding(
            FindingKind::UnsupportedVariant,
            format!(
                "pbem cannot convert games of {} yet: the game does not describe its board \
                 to the converters",
                G::VARIANT
            ),
            record.span,
        )]);
    };
    // Option tags (a decision mode) show in the position string, so a start that
    // differs from the standard one in anything is carried as a setup.
    let standard_start = G::start();
    let setup = (start.position_string() != standard_start.position_string()).then(|| {
        let standard = standard_start
            .snapshot()
            .expect("the game describes its board");
        let edits = ops::edits(&standard, &start_board, dialect);
        (start.position_string(), edits)
    });
    let mut position = start;
    let mut turns = Vec::with_capacity(replayed.turns.len());
    let mut legal = Vec::new();
    for turn in &replayed.turns {
        let previous = position.clone();
        let before = position.snapshot().expect("the game describes its board");
        legal.clear();
        position.legal_turns(&mut legal);
        let (fullmove, side) = (position.fullmove_number(), position.side_to_move());
        position.play(turn);
        let after = position
            .snapshot()
            .expect("the game describes its board")
            .normalized();
        // The board does not tell the turn when another legal turn leaves the same
        // board, or when the turn carries more than generation gives (cards).
        let told = legal.contains(turn)
            && (G::BOARD_TELLS_TURN
                || !legal.iter().filter(|other| *other != turn).any(|other| {
                    previous
                        .snapshot_after(other)
                        .map(Snapshot::normalized)
                        .as_ref()
                        == Some(&after)
                }));
        turns.push(ExportedTurn {
            fullmove,
            side,
            ops: ops::derive(&before, &after, G::PIECE_KINDS, side, dialect),
            hint: (!told).then(|| previous.write_turn(turn)),
        });
    }
    Ok(Exported {
        variant: G::VARIANT,
        setup,
        turns,
        result: record.result.unwrap_or(GameResult::Unknown),
    })
}
