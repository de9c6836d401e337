//! The validator: replays a record through its game's rules and reports what is wrong.
//!
//! [`replay`] takes a [`Record`] and returns a [`Report`] of [`Finding`]s, each with the
//! span of the token it is about. It does no I/O: the command line prints reports, mail
//! checks an incoming move with them, converters check what they wrote.
//!
//! Every turn of the main line and of every variation is replayed; a variation starts
//! from the position before the turn it is an alternative to. A line stops at its first
//! unreadable or illegal turn (nothing after it can be checked), and the rest of the
//! record goes on.
//!
//! The record events of the main line (resignation, draw offers, acceptance, claims) are
//! judged by [`events`] against the same rules, and the result must follow from how the
//! game ended: by the rules or by an event. Nothing but events may follow the end.
//!
//! # How it is built
//!
//! The validator. `replay` picks the game from the record's tags, replays the main line
//! and every variation (from the position before the turn it replaces), and returns a
//! `Report` of `Finding`s: unreadable game, unsupported variant, invalid setup, unreadable
//! token, illegal turn (with the legal turns and the closest match; `diagnose_turn` gives
//! the same finding for one token typed in a position), turn after the end,
//! result against the end of the game, record event the rules do not allow, false check or
//! mate marker, and (a warning) a line
//! ending in a turn that awaits a card. A line stops at its first
//! bad turn; the rest of the record goes on. Repetition is counted along the current path by a
//! `History` (entries added in a variation are removed when it ends). Under
//! `RepetitionRule::IllegalAt` a turn into the banned occurrence is illegal (resolved with
//! the history's `Forbidden`, so a token that fits it and an allowed turn means the allowed
//! one), and a line that ends where every legal turn is banned ends by
//! `Game::outcome_without_legal_turn`. `History` (`replay::history`) is the one count of a
//! line's positions: the replay, `pbem legal` and `show`, `correspondence::play` (`pbem
//! move`), the converters and, through the replay, the mail path use it for the turns it
//! forbids, for `History::outcome` (the rules' end, an automatic draw by repetition, or every
//! turn forbidden) and for repetition claims.
//!
//! `replay::events` judges the record events of the main line (`[%resign]`, `[%draw offer]`,
//! `[%draw agree]`, `[%draw claim REASON]`, each after the side that made it) at the point
//! where they are written, with the position and its repetition count there: a `Judge`
//! follows the standing offer and the first end (`End`, by the rules or by an event).
//! `ClaimReason::check` is the one test of a claim (a reason the game has, by
//! `Game::REPETITION` and `Game::FIFTY_MOVE_CLAIM`, that holds there); `pbem draw claim`
//! and `standing_offer` in `correspondence` use the module too. The result must be the
//! end's; a turn after the end is an `AfterEnd` error, as is `*` on an ended game.
//! `replay::Options { lenient_results, played_on }` judges the end: `lenient_results`
//! (`--lenient-results`) makes `*` on an ended game a warning; `PlayedOn` says what a turn
//! after a rule end that leaves legal turns (a dead position, seventy-five moves, fivefold)
//! is: `ByOrigin` (the default) an error in a game pbem conducted (`conducted_by_pbem`:
//! `[Mode "EM"]` with a `[GameId]`) and a warning in any other, `Error` (`--strict`) or
//! `Warning` (`--lenient-results`) in every game. `Options::from_flags` maps the two flags.
//!
//! `replay::stream` is `validate`'s path for the plain games (most of a real archive):
//! `Reader::next_streamed` hands each game's tags (into a reused `Record` holding only them)
//! and then its main-line tokens (`notation::Token`: turn with its written move number,
//! comment text, glyph) to an `AnyStreamer`, which passes them to the `Streamer<G>` of the
//! game the `Variant` tag names (orthodox chess's kept and called directly, another game's
//! made at its first game; a Chess with Wickets game with dice or cards is given up at its
//! tags, since its fairness is checked on the record), which plays them as
//! they come with the same checks as the full replay, in the same order, and reports
//! nothing: at the first thing the full replay would report (an error or a warning), and at
//! anything it does not follow (a variation, a `[%resign]`/`[%draw` comment, an escape in a
//! tag value), the game is given up and read again from its start into a record for the
//! full replay. So a streamed game is one with no finding, its `Report` is the full
//! replay's (the final position string is written only for `--json`), and the output is
//! byte for byte the same; `streamed_games_get_the_full_replays_report` compares both on
//! every game of `tests/data`.

use serde::Serialize;

use crate::games::{Color, DrawReason, Game, GameResult, IllegalKind, Outcome, Variant};
use crate::notation::{
    Comment, Line, Numbering, ParseError, Record, Span, TurnNode, WrittenNumber,
};

pub mod events;

use events::{End, Judge};

/// How strictly a replay judges the end of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--lenient-results`: a `*` on a game that has ended is a warning rather than an
    /// error, as archives of over-the-board games write it (the command line sets
    /// [`PlayedOn::Warning`] with it).
    pub lenient_results: bool,
    /// How turns played after an end the rules imposed while turns were still possible
    /// (a dead position, the seventy-five-move rule, fivefold repetition) are judged.
    pub played_on: PlayedOn,
}

/// How a replay judges turns played after an automatic draw that left legal turns (a
/// dead position, the seventy-five-move rule, fivefold repetition). Such a turn is part
/// of the record as played; the game's result must still be the draw. Turns after mate,
/// stalemate, a resignation or an agreement are errors whatever this says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlayedOn {
    /// By who conducted the game (the default): an error in a game pbem conducted by mail
    /// (its `[Mode "EM"]` with the `[GameId]` pbem writes beside it), which pbem would
    /// have ended there; a warning in any other, as over-the-board archives record such
    /// games (the players did not notice the draw, or the arbiter did not step in).
    #[default]
    ByOrigin,
    /// An error in every game (`validate --strict`).
    Error,
    /// A warning in every game (`--lenient-results`).
    Warning,
}

impl PlayedOn {
    /// Whether a turn after an automatic draw is a warning in `record`.
    fn warns(self, record: &Record) -> bool {
        match self {
            PlayedOn::Error => false,
            PlayedOn::Warning => true,
            PlayedOn::ByOrigin => !conducted_by_pbem(record),
        }
    }
}

impl Options {
    /// The options of `--lenient-results` (`lenient`) and `--strict` (`strict`): the
    /// first makes `*` on an ended game and turns after an automatic draw warnings in
    /// every game, the second those turns errors in every game; neither leaves those
    /// turns to the game's origin ([`PlayedOn::ByOrigin`]).
    #[must_use]
    pub fn from_flags(lenient: bool, strict: bool) -> Options {
        Options {
            lenient_results: lenient,
            played_on: if lenient {
                PlayedOn::Warning
            } else if strict {
                PlayedOn::Error
            } else {
                PlayedOn::ByOrigin
            },
        }
    }
}

/// Whether pbem conducted the game by mail: `[Mode "EM"]` with a `[GameId]`, the two tags
/// `pbem new` writes (`correspondence` names the second).
#[must_use]
pub fn conducted_by_pbem(record: &Record) -> bool {
    record
        .tag("Mode")
        .is_some_and(|mode| mode.trim().eq_ignore_ascii_case("EM"))
        && record.tag("GameId").is_some()
}

mod history;
pub mod stream;

pub use history::History;
use history::repetition_end;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The record is wrong: a game with an error is invalid.
    Error,
    /// Worth a look, but the record stays valid (for instance a `+` on a move that does
    /// not give check).
    Warning,
}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// The game's text cannot be read as a record at all (unbalanced braces, a broken
    /// tag...).
    Parse,
    /// The record names a game pbem does not play.
    UnsupportedVariant,
    /// The setup tags do not give a playable position.
    Setup,
    /// A turn token that the game's turn grammar cannot read.
    Syntax,
    /// A readable turn that is not legal in its position.
    Illegal,
    /// A turn played after the game had already ended by rule.
    AfterEnd,
    /// The result (tag or termination marker) contradicts the final position.
    Result,
    /// A check or mate marker the position does not bear out.
    Annotation,
    /// A record event (resignation, draw offer, acceptance, claim) the rules do not allow
    /// where it is made.
    Event,
    /// The record ends inside a turn whose decision waits for a player's hidden play (a
    /// card in reply, in Chess with wickets): valid so far, with what is awaited.
    Awaiting,
    /// A move number (or `...`) written before a turn that does not match the turn's place
    /// in the game (a warning).
    MoveNumber,
    /// A tag given twice: a warning, or an error for two different `[FEN]`, `[SetUp]` or
    /// `[Variant]` values, since the game or its start would be a guess.
    Tag,
}

/// One thing wrong (or worth a look) in a record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// What it is about.
    pub kind: FindingKind,
    /// The reason in words (lowercase, no trailing period).
    pub message: String,
    /// Where the offending token (or tag) starts.
    #[serde(skip)]
    pub span: Span,
    /// The offending token as written, if the finding is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The ply of the offending turn, counted from the start of the game (1 is the first
    /// turn), also inside variations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u32>,
    /// The move number as a reader would write it: `12.` or `12...`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_number: Option<String>,
    /// Whether the turn is inside a variation rather than the main line.
    pub in_variation: bool,
    /// The legal turns in the position, canonically written, for an illegal turn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub legal: Vec<String>,
    /// The legal turn closest to what was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closest: Option<String>,
}

impl Finding {
    pub(crate) fn new(
        severity: Severity,
        kind: FindingKind,
        message: impl Into<String>,
        span: Span,
    ) -> Self {
        Finding {
            severity,
            kind,
            message: message.into(),
            span,
            token: None,
            ply: None,
            move_number: None,
            in_variation: false,
            legal: Vec::new(),
            closest: None,
        }
    }
}

/// What replaying one record found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The game's number in its file, from 1.
    pub game: usize,
    /// The game played, or `None` when the record names one pbem does not play.
    #[serde(serialize_with = "serialize_variant")]
    pub variant: Option<Variant>,
    /// Turns of the main line that were replayed (all of them when the game is valid).
    pub plies: u32,
    /// The position string after the last replayed main-line turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_position: Option<String>,
    /// How the rules end the game in its final position, if they do.
    #[serde(serialize_with = "serialize_outcome")]
    pub outcome: Option<Outcome>,
    /// A draw the side to move could claim in the final position (fifty moves, or a
    /// threefold repetition along the main line).
    #[serde(skip)]
    pub claimable: Option<DrawReason>,
    /// Everything found, in the order of the record.
    pub findings: Vec<Finding>,
}

impl Report {
    /// The report for a game whose text could not be read into a record.
    #[must_use]
    pub fn unreadable(error: &ParseError) -> Report {
        let finding = Finding::new(
            Severity::Error,
            FindingKind::Parse,
            error.message.clone(),
            error.span,
        );
        Report::not_replayed(error.game, finding)
    }

    /// The report for a game that could not be replayed at all, for one reason.
    fn not_replayed(game: usize, finding: Finding) -> Report {
        Report {
            game,
            variant: None,
            plies: 0,
            final_position: None,
            outcome: None,
            claimable: None,
            findings: vec![finding],
        }
    }

    /// True when nothing found is an error (warnings allowed) and the game is one pbem
    /// plays.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.variant.is_some() && self.errors().next().is_none()
    }

    /// True when the record names a game pbem does not play.
    #[must_use]
    pub fn is_unsupported(&self) -> bool {
        self.variant.is_none()
            && self
                .findings
                .iter()
                .any(|finding| finding.kind == FindingKind::UnsupportedVariant)
    }

    /// The findings that are errors.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|finding| finding.severity == Severity::Error)
    }
}

fn serialize_variant<S: serde::Serializer>(
    variant: &Option<Variant>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match variant {
        Some(variant) => serializer.serialize_str(variant.name()),
        None => serializer.serialize_none(),
    }
}

fn serialize_outcome<S: serde::Serializer>(
    outcome: &Option<Outcome>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match outcome {
        Some(outcome) => serializer.serialize_str(&outcome.to_string()),
        None => serializer.serialize_none(),
    }
}

/// The game a record is played in, chosen by its `[Variant]` tag (missing means orthodox
/// chess), or the unknown name.
pub fn variant_of(record: &Record) -> Result<Variant, String> {
    variant_named(record.tag("Variant"))
}

/// The game a `[Variant]` tag's value (`None` when there is none) names, as
/// [`variant_of`] reads it.
pub(crate) fn variant_named(value: Option<&str>) -> Result<Variant, String> {
    match value {
        None => Ok(Variant::Chess),
        Some(name) if name.trim().is_empty() => Ok(Variant::Chess),
        Some(name) => Variant::from_name(name).ok_or_else(|| name.to_owned()),
    }
}

/// Replays a record through the rules of the game its tags name.
#[must_use]
pub fn replay(record: &Record) -> Report {
    replay_with(record, Options::default())
}

/// [`replay`] with options.
#[must_use]
pub fn replay_with(record: &Record, options: Options) -> Report {
    match variant_of(record) {
        Ok(variant) => {
            crate::with_game!(variant, G => replay_game_with::<G>(record, options).report)
        }
        Err(name) => unsupported(record, &name),
    }
}

/// Replays a record and rewrites every turn that could be resolved into its canonical
/// form (the shortest unambiguous token, with its check marker). Turns that could not be
/// resolved, and everything after them in their line, are left as written.
///
/// Returns the report and how the writer numbers the first turn (from the starting
/// position; from the `[FEN]` tag when the game cannot be replayed).
pub fn canonicalize(record: &mut Record) -> (Report, Numbering) {
    canonicalize_with(record, Options::default())
}

/// [`canonicalize`] with options.
pub fn canonicalize_with(record: &mut Record, options: Options) -> (Report, Numbering) {
    let variant = match variant_of(record) {
        Ok(variant) => variant,
        Err(name) => return (unsupported(record, &name), Numbering::from_tags(record)),
    };
    crate::with_game!(variant, G => {
        let replayed = replay_inner::<G>(record, Tokens::Canonical, options);
        let numbering = match &replayed.start {
            Some(start) => Numbering {
                fullmove: start.fullmove_number(),
                side: start.side_to_move(),
            },
            None => Numbering::from_tags(record),
        };
        let mut tokens = replayed.canonical.into_iter();
        rewrite_line(&mut record.moves, &mut tokens);
        (replayed.report, numbering)
    })
}

fn rewrite_line(line: &mut Line, tokens: &mut impl Iterator<Item = Option<String>>) {
    // The same pre-order as `Replayer::line`: a turn's variations before the turn itself.
    for node in &mut line.turns {
        for variation in &mut node.variations {
            rewrite_line(variation, tokens);
        }
        match tokens.next() {
            Some(Some(token)) => node.token = token.into(),
            Some(None) => {}
            None => return,
        }
    }
}

fn unsupported(record: &Record, name: &str) -> Report {
    let span = record
        .tag_pair("Variant")
        .map_or(record.span, |tag| tag.span);
    let known: Vec<&str> = Variant::ALL.iter().map(|variant| variant.name()).collect();
    let finding = Finding::new(
        Severity::Error,
        FindingKind::UnsupportedVariant,
        format!(
            "unsupported variant \"{name}\" (pbem plays {})",
            known.join(", ")
        ),
        span,
    );
    Report::not_replayed(record.number, finding)
}

/// A record replayed in a known game, with the positions a caller may want next.
#[derive(Clone, Debug)]
pub struct Replayed<G: Game> {
    /// What was found.
    pub report: Report,
    /// The starting position, when the setup was valid.
    pub start: Option<G>,
    /// The main-line turns that were resolved, in order (all of them for a valid game).
    pub turns: Vec<G::Turn>,
    /// The position after the last resolved main-line turn.
    pub position: Option<G>,
    /// For each turn node in pre-order (variations before the turn they branch from), its
    /// canonical token, or `None` where it could not be resolved.
    canonical: Vec<Option<String>>,
}

/// Replays a record in the game `G`, whatever its `[Variant]` tag says.
#[must_use]
pub fn replay_game<G: Game>(record: &Record) -> Replayed<G> {
    replay_inner(record, Tokens::Keep, Options::default())
}

/// [`replay_game`] with options.
#[must_use]
pub fn replay_game_with<G: Game>(record: &Record, options: Options) -> Replayed<G> {
    replay_inner(record, Tokens::Keep, options)
}

/// Whether the replay also writes each turn's canonical token (which costs a check and
/// mate test per turn, so validation does without).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tokens {
    Keep,
    Canonical,
}

fn replay_inner<G: Game>(record: &Record, tokens: Tokens, options: Options) -> Replayed<G> {
    let mut report = Report {
        game: record.number,
        variant: Some(G::VARIANT),
        plies: 0,
        final_position: None,
        outcome: None,
        claimable: None,
        findings: Vec::new(),
    };
    check_tags(record, &mut report.findings);
    let start = match G::from_tags(record) {
        Ok(start) => start,
        Err(error) => {
            let span = record
                .tag_pair("FEN")
                .or_else(|| record.tag_pair("SetUp"))
                .map_or(record.span, |tag| tag.span);
            report.findings.push(Finding::new(
                Severity::Error,
                FindingKind::Setup,
                format!("invalid setup: {error}"),
                span,
            ));
            return Replayed {
                report,
                start: None,
                turns: Vec::new(),
                position: None,
                canonical: Vec::new(),
            };
        }
    };

    let mut replayer = Replayer::<G> {
        findings: Vec::new(),
        history: History::reused(),
        canonical: Vec::new(),
        tokens,
        buffer: Vec::new(),
        first_side: start.side_to_move(),
        first_number: start.fullmove_number(),
        played_on: if options.played_on.warns(record) {
            Severity::Warning
        } else {
            Severity::Error
        },
        by_origin: options.played_on == PlayedOn::ByOrigin,
    };
    let mut turns = Vec::with_capacity(record.moves.turns.len());
    let end = replayer.line(&record.moves, start.clone(), 0, false, Some(&mut turns));
    replayer.history.recycle();
    let mut findings = std::mem::take(&mut report.findings);
    findings.append(&mut replayer.findings);
    let outcome = end.outcome;
    check_result(record, &end, options, &mut findings);

    report.plies = u32::try_from(turns.len()).unwrap_or(u32::MAX);
    report.final_position = Some(end.position.position_string());
    report.outcome = outcome;
    report.claimable = end.claimable;
    report.findings = findings;
    Replayed {
        report,
        start: Some(start),
        turns,
        position: Some(end.position),
        canonical: replayer.canonical,
    }
}

/// The state at the end of a line.
struct LineEnd<G> {
    position: G,
    /// The outcome the rules (or repetition) impose there.
    outcome: Option<Outcome>,
    /// Whether the line was replayed to its end.
    complete: bool,
    /// A draw the side to move could claim there.
    claimable: Option<DrawReason>,
    /// How the game ended, by the rules or by an event (main line only): the first end.
    end: Option<End>,
}

struct Replayer<G: Game> {
    findings: Vec<Finding>,
    /// How often each position occurred on the current path.
    history: History<G>,
    canonical: Vec<Option<String>>,
    tokens: Tokens,
    buffer: Vec<G::Turn>,
    first_side: Color,
    first_number: u32,
    /// What a turn after an automatic draw is here ([`Options::played_on`]).
    played_on: Severity,
    /// Whether that was decided by the game's origin ([`PlayedOn::ByOrigin`]).
    by_origin: bool,
}

impl<G: Game> Replayer<G> {
    /// Replays `line` from `position`, which is `ply` turns after the start. Main-line
    /// turns are collected into `turns` when given.
    fn line(
        &mut self,
        line: &Line,
        mut position: G,
        mut ply: u32,
        in_variation: bool,
        mut turns: Option<&mut Vec<G::Turn>>,
    ) -> LineEnd<G> {
        let mut added: Vec<u64> = Vec::with_capacity(line.turns.len() + 1);
        let key = position.repetition_key();
        // How often the current position has occurred on this path, itself included. A
        // variation starts where its parent line stands, which the parent counted already.
        let mut occurrences = if in_variation {
            self.history.occurrences_of_key(key)
        } else {
            added.push(key);
            self.history.enter_key(key)
        };

        // Record events are judged along the main line only.
        let main = turns.is_some();
        let mut judge = Judge::default();
        self.events_at(&line.comments, &position, occurrences, main, &mut judge);

        let mut complete = true;
        // The first end a draw rule imposed while turns were still possible (a dead
        // position, the move-count rule, fivefold repetition). Records of real games go
        // on past such ends, so later turns are still replayed, with one finding.
        let mut drawn: Option<Outcome> = None;
        // Whether a turn after the end was reported (once per line).
        let mut after_end = false;
        for (index, node) in line.turns.iter().enumerate() {
            // Variations are alternatives to this turn: they start where it starts.
            for variation in &node.variations {
                self.line(variation, position.clone(), ply, true, None);
            }
            if node.number.is_written() {
                self.check_number(node, ply, in_variation);
            }
            let locate = |replayer: &Self, finding: Finding| Finding {
                token: Some(node.token.to_string()),
                ply: Some(ply + 1),
                move_number: Some(replayer.move_number(ply)),
                in_variation,
                ..finding
            };

            let syntax = match G::parse_turn(&node.token) {
                Ok(syntax) => syntax,
                Err(error) => {
                    let mut span = node.span;
                    span.offset += error.offset;
                    span.column +=
                        u32::try_from(node.token[..error.offset].chars().count()).unwrap_or(0);
                    let finding = Finding::new(
                        Severity::Error,
                        FindingKind::Syntax,
                        format!("cannot read \"{}\": {}", node.token, error.message),
                        span,
                    );
                    let finding = locate(self, finding);
                    self.findings.push(finding);
                    self.skip_rest(line, index);
                    complete = false;
                    break;
                }
            };
            let turn = match position.resolve_except(&syntax, self.history.forbidden()) {
                Ok(turn) => turn,
                Err(error) => {
                    // With no legal turn at all the game ended (by mate or stalemate, or
                    // because the history forbids every turn): that, not the token, is
                    // what is wrong.
                    self.buffer.clear();
                    position.legal_turns_except(self.history.forbidden(), &mut self.buffer);
                    let ended = if self.buffer.is_empty() {
                        position
                            .outcome()
                            .or_else(|| self.history.every_turn_forbidden(&position))
                    } else {
                        None
                    };
                    let finding = match ended {
                        Some(outcome) => Finding::new(
                            Severity::Error,
                            FindingKind::AfterEnd,
                            format!("the game was already over ({outcome})"),
                            node.span,
                        ),
                        None => self.illegal(&position, &node.token, &error, node.span),
                    };
                    let finding = locate(self, finding);
                    self.findings.push(finding);
                    self.skip_rest(line, index);
                    complete = false;
                    break;
                }
            };
            if !after_end {
                // A turn resolved, so the position had a legal turn: only the ends that
                // leave legal turns are possible here.
                if judge.end.is_none()
                    && let Some(outcome) = repetition_end::<G>(occurrences)
                        .or_else(|| position.outcome_with_legal_turn())
                {
                    judge.end = Some(End::by_rule(outcome));
                }
                if let Some(end) = &judge.end {
                    after_end = true;
                    // Archives of real games go on past a dead position: a warning unless
                    // pbem conducted the game (or --strict). Nothing may follow a
                    // resignation or a draw.
                    let lenient = self.played_on == Severity::Warning && end.rule.is_some();
                    if let Some(outcome) = end.rule {
                        drawn = Some(outcome);
                    }
                    let (severity, rest) = match (lenient, self.by_origin) {
                        (true, true) => (
                            Severity::Warning,
                            "; the turns from here on do not count (a warning in a game pbem \
                             did not conduct; --strict makes it an error)",
                        ),
                        (true, false) => {
                            (Severity::Warning, "; the turns from here on do not count")
                        }
                        (false, _) => (Severity::Error, ""),
                    };
                    let finding = Finding::new(
                        severity,
                        FindingKind::AfterEnd,
                        format!("the game was already over ({}){rest}", end.what),
                        node.span,
                    );
                    let finding = locate(self, finding);
                    self.findings.push(finding);
                }
            }
            if self.tokens == Tokens::Canonical {
                self.canonical.push(Some(
                    position.write_turn_except(&turn, self.history.forbidden()),
                ));
            }
            position.play(&turn);
            ply += 1;
            if let Some(turns) = turns.as_deref_mut() {
                turns.push(turn);
            }
            if let Some(message) = position.annotation_mismatch(&syntax) {
                let finding =
                    Finding::new(Severity::Error, FindingKind::Annotation, message, node.span);
                // The finding is about the turn just played.
                self.findings.push(Finding {
                    ply: Some(ply),
                    move_number: Some(self.move_number(ply - 1)),
                    token: Some(node.token.to_string()),
                    in_variation,
                    ..finding
                });
            }

            let key = position.repetition_key();
            occurrences = self.history.enter_key(key);
            added.push(key);
            judge.turn_played();
            self.events_at(&node.comments, &position, occurrences, main, &mut judge);
        }

        if complete
            && let Some(message) = position.awaiting()
            && let Some(node) = line.turns.last()
        {
            self.findings.push(Finding {
                ply: Some(ply),
                move_number: Some(self.move_number(ply - 1)),
                token: Some(node.token.to_string()),
                in_variation,
                ..Finding::new(Severity::Warning, FindingKind::Awaiting, message, node.span)
            });
        }
        let outcome = if complete {
            drawn
                .or_else(|| repetition_end::<G>(occurrences))
                .or_else(|| position.outcome())
                .or_else(|| self.history.every_turn_forbidden(&position))
        } else {
            None
        };
        let claimable = position
            .claimable_draw()
            .or_else(|| self.history.claimable(&position));
        let end = if complete {
            judge.end.or_else(|| outcome.map(End::by_rule))
        } else {
            None
        };
        for key in added {
            self.history.leave_key(key);
        }
        LineEnd {
            position,
            outcome,
            complete,
            claimable,
            end,
        }
    }

    /// Judges the record events in the comments at one point of a line, where `position`
    /// has occurred `occurrences` times: along the main line by the rules, and in a
    /// variation, where no event belongs, as errors.
    fn events_at(
        &mut self,
        comments: &[Comment],
        position: &G,
        occurrences: u32,
        main: bool,
        judge: &mut Judge,
    ) {
        if !comments
            .iter()
            .any(|comment| !events::events_in(&comment.text).is_empty())
        {
            return;
        }
        if !main {
            for comment in comments {
                for event in events::events_in(&comment.text) {
                    self.findings.push(Finding {
                        token: Some(event.to_string()),
                        in_variation: true,
                        ..Finding::new(
                            Severity::Error,
                            FindingKind::Event,
                            "a record event inside a variation: events belong to the main line",
                            comment.span,
                        )
                    });
                }
            }
            return;
        }
        if judge.end.is_none()
            && let Some(outcome) = self.history.outcome(position)
        {
            judge.end = Some(End::by_rule(outcome));
        }
        judge.comments(comments, position, occurrences, &mut self.findings);
    }

    /// Keeps the canonical-token list aligned when a line stops early: every node left in
    /// it (with its variations) gets `None`.
    fn skip_rest(&mut self, line: &Line, from: usize) {
        if self.tokens == Tokens::Keep {
            return;
        }
        fn count(line: &Line) -> usize {
            line.turns
                .iter()
                .map(|node| 1 + node.variations.iter().map(count).sum::<usize>())
                .sum()
        }
        // The variations of node `from` were already replayed (they come first).
        let rest: usize = line.turns[from + 1..]
            .iter()
            .map(|node| 1 + node.variations.iter().map(count).sum::<usize>())
            .sum();
        self.canonical.extend(std::iter::repeat_n(None, rest + 1));
    }

    /// The finding for a token that does not resolve: the reason, and the turns that
    /// are legal (those the history forbids left out) with the closest one.
    fn illegal(
        &mut self,
        position: &G,
        token: &str,
        error: &crate::games::IllegalTurn,
        span: Span,
    ) -> Finding {
        illegal_finding(
            position,
            self.history.forbidden(),
            token,
            error,
            span,
            &mut self.buffer,
        )
    }

    /// Warns when the move number written before a turn is not the turn's own.
    fn check_number(&mut self, node: &TurnNode, ply: u32, in_variation: bool) {
        let written = node.number;
        let Some(message) = number_problem(self.first_side, self.first_number, written, ply) else {
            return;
        };
        let finding = Finding {
            token: Some(node.token.to_string()),
            ply: Some(ply + 1),
            move_number: Some(self.move_number(ply)),
            in_variation,
            ..Finding::new(
                Severity::Warning,
                FindingKind::MoveNumber,
                message,
                written.span,
            )
        };
        self.findings.push(finding);
    }

    fn move_number(&self, ply: u32) -> String {
        move_number_of(self.first_side, self.first_number, ply)
    }
}

/// The finding for a token that does not resolve in `position`: the reason, and the
/// turns that are legal (those `forbidden` by the history left out) with the closest one.
fn illegal_finding<G: Game>(
    position: &G,
    forbidden: &crate::games::Forbidden,
    token: &str,
    error: &crate::games::IllegalTurn,
    span: Span,
    buffer: &mut Vec<G::Turn>,
) -> Finding {
    let (legal, closest) = legal_and_closest(position, forbidden, token, buffer);
    let message = match error.kind {
        // The message names the turn already: no need to say "illegal turn" first.
        IllegalKind::Repetition => error.message.clone(),
        _ => format!("illegal turn \"{token}\": {}", error.message),
    };
    Finding {
        legal,
        closest,
        ..Finding::new(Severity::Error, FindingKind::Illegal, message, span)
    }
}

/// The turns legal in `position` (those `forbidden` left out), canonically written and
/// sorted, and the one closest to `token`.
fn legal_and_closest<G: Game>(
    position: &G,
    forbidden: &crate::games::Forbidden,
    token: &str,
    buffer: &mut Vec<G::Turn>,
) -> (Vec<String>, Option<String>) {
    buffer.clear();
    position.legal_turns_except(forbidden, buffer);
    let mut legal: Vec<String> = buffer
        .iter()
        .map(|turn| position.write_turn_except(turn, forbidden))
        .collect();
    legal.sort();
    let closest = closest_match(token, &legal);
    (legal, closest)
}

/// What is wrong with `token` typed as the next turn in `position` (reached with
/// `history`), told as `validate` tells it of a turn in a record: the reason (a token the
/// grammar cannot read, or a turn the rules or the history do not allow), with the legal
/// turns and the closest one, even for a token that does not read. The span is in the
/// token itself (line 1, column from 1); `None` when the token is a legal turn.
#[must_use]
pub fn diagnose_turn<G: Game>(position: &G, history: &History<G>, token: &str) -> Option<Finding> {
    let mut buffer = Vec::new();
    let forbidden = history.forbidden();
    let span = Span::START;
    let finding = match G::parse_turn(token) {
        Err(error) => {
            let offset = error.offset.min(token.len());
            let offset = (0..=offset)
                .rev()
                .find(|&at| token.is_char_boundary(at))
                .unwrap_or(0);
            let at = Span {
                offset,
                line: 1,
                column: 1 + u32::try_from(token[..offset].chars().count()).unwrap_or(0),
            };
            let (legal, closest) = legal_and_closest(position, forbidden, token, &mut buffer);
            Finding {
                legal,
                closest,
                ..Finding::new(
                    Severity::Error,
                    FindingKind::Syntax,
                    format!("cannot read \"{token}\": {}", error.message),
                    at,
                )
            }
        }
        Ok(syntax) => match position.resolve_except(&syntax, forbidden) {
            Ok(_) => return None,
            Err(error) => illegal_finding(position, forbidden, token, &error, span, &mut buffer),
        },
    };
    Some(Finding {
        token: Some(token.to_owned()),
        ..finding
    })
}

/// The move number of the turn `ply` turns after a start where `first_side` moves in move
/// `first_number`, as a reader would write it: `12.` or `12...`.
fn move_number_of(first_side: Color, first_number: u32, ply: u32) -> String {
    let offset = match first_side {
        Color::White => ply,
        Color::Black => ply + 1,
    };
    let number = first_number + offset / 2;
    if offset % 2 == 0 {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// What is wrong with the move number `written` before the turn `ply` turns after the
/// start (see [`move_number_of`]), if anything.
fn number_problem(
    first_side: Color,
    first_number: u32,
    written: WrittenNumber,
    ply: u32,
) -> Option<String> {
    let offset = match first_side {
        Color::White => ply,
        Color::Black => ply + 1,
    };
    let number = first_number.saturating_add(offset / 2);
    let second = offset % 2 == 1;
    let mover = if second { "Black" } else { "White" };
    let write = || move_number_of(first_side, first_number, ply);
    Some(match written.number {
        Some(given) if given != number => format!(
            "the move number {given} does not match the game: this turn is {}",
            write()
        ),
        Some(given) if second && !written.ellipsis => {
            format!("`{given}.` stands before {mover}'s turn: write {}", write())
        }
        _ if written.ellipsis && !second => {
            format!("`...` stands before {mover}'s turn: write {}", write())
        }
        _ => return None,
    })
}

/// Tags given twice: a warning with both places; two different values of a tag that
/// chooses the game or its start (`[Variant]`, `[FEN]`, `[SetUp]`) are an error, since
/// either could be meant (the first is the one used).
fn check_tags(record: &Record, findings: &mut Vec<Finding>) {
    for (index, tag) in record.tags.iter().enumerate() {
        let Some(first) = record.tags[..index]
            .iter()
            .find(|earlier| earlier.name == tag.name)
        else {
            continue;
        };
        let chooses = matches!(tag.name.as_str(), "Variant" | "FEN" | "SetUp");
        let (severity, message) = if chooses && first.value.trim() != tag.value.trim() {
            (
                Severity::Error,
                format!(
                    "two different [{}] tags: \"{}\" at line {} and \"{}\" here; pbem does \
                     not guess which is meant",
                    tag.name, first.value, first.span.line, tag.value
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "the tag [{}] is given twice (first at line {}): the first value, \"{}\", \
                     is used",
                    tag.name, first.span.line, first.value
                ),
            )
        };
        findings.push(Finding::new(severity, FindingKind::Tag, message, tag.span));
    }
}

/// Compares the record's result (tag and termination marker) with how the main line ends:
/// by the rules or by a record event. A game that has not ended may have any result
/// (time, or a resignation the record does not show).
fn check_result<G: Game>(
    record: &Record,
    end: &LineEnd<G>,
    options: Options,
    findings: &mut Vec<Finding>,
) {
    let tag = record.tag_pair("Result");
    let tag_result = tag.and_then(|tag| GameResult::from_token(tag.value.trim()));
    if let (Some(tag), None) = (tag, tag_result) {
        findings.push(Finding::new(
            Severity::Warning,
            FindingKind::Result,
            format!("unknown result \"{}\" in the Result tag", tag.value),
            tag.span,
        ));
    }
    if let (Some(tag_result), Some(marker)) = (tag_result, record.result)
        && tag_result != marker
    {
        findings.push(Finding::new(
            Severity::Error,
            FindingKind::Result,
            format!("the Result tag says {tag_result} but the movetext ends with {marker}"),
            record.result_span,
        ));
    }
    if !end.complete {
        return;
    }
    let (claimed, span) = match (record.result, tag_result) {
        (Some(marker), _) => (marker, record.result_span),
        (None, Some(result)) => (result, tag.map_or(record.span, |tag| tag.span)),
        (None, None) => return,
    };
    let Some(ended) = &end.end else {
        return;
    };
    if claimed == GameResult::Unknown {
        let severity = if options.lenient_results {
            Severity::Warning
        } else {
            Severity::Error
        };
        findings.push(Finding::new(
            severity,
            FindingKind::Result,
            format!("the result is * but the game is over: {}", ended.what),
            span,
        ));
    } else if claimed != ended.result {
        let message = match ended.rule {
            Some(outcome) => {
                format!("the result is {claimed} but the final position says {outcome}")
            }
            None => format!(
                "the result is {claimed}, but {}: the game ended {}",
                ended.what, ended.result
            ),
        };
        findings.push(Finding::new(
            Severity::Error,
            FindingKind::Result,
            message,
            span,
        ));
    }
}

/// The candidate with the smallest edit distance to `token`; among equals, one that
/// contains the token's characters in order (`Nd2` is closer to `Nbd2` than to `Bd2`),
/// then the first in order.
pub(crate) fn closest_match(token: &str, candidates: &[String]) -> Option<String> {
    candidates
        .iter()
        .min_by_key(|candidate| {
            (
                edit_distance(token, candidate),
                !is_subsequence(token, candidate),
            )
        })
        .cloned()
}

/// Whether the characters of `short` appear in `long` in the same order.
fn is_subsequence(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().all(|wanted| rest.any(|c| c == wanted))
}

/// Levenshtein distance over characters (strsim's).
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("Nf3", "Nf3"), 0);
        assert_eq!(edit_distance("Nf3", "Nd3"), 1);
        assert_eq!(edit_distance("e4", "e5"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("Nbd2", "Nd2"), 1);
    }

    #[test]
    fn closest_match_prefers_the_nearest_token() {
        let candidates = vec!["Nc3".to_owned(), "Nf3".to_owned(), "e4".to_owned()];
        assert_eq!(closest_match("Nf4", &candidates).as_deref(), Some("Nf3"));
        assert_eq!(closest_match("x", &[]), None);
        // Equally far, but one of them is the token with a disambiguation added.
        let candidates = vec!["Bd2".to_owned(), "Nbd2".to_owned(), "Nfd2".to_owned()];
        assert_eq!(closest_match("Nd2", &candidates).as_deref(), Some("Nbd2"));
    }
}
