//! Correspondence games: the record conventions of a game played by mail, and the
//! operations on it (start, move, record events, compare with a copy that came by mail).
//!
//! Everything here works on [`Record`]s and instants passed in; the files, the mail and
//! the clock are the caller's. The conventions are specified in
//! `notation/correspondence.md`:
//!
//! - tags: the Seven Tag Roster, `WhiteNA`/`BlackNA` (the players' addresses), `Mode "EM"`,
//!   `GameId` (unique), `TimeControlCorr` when there is a time control, `Variant` for
//!   games other than chess, `SetUp`/`FEN` for another start;
//! - every turn carries a comment its player wrote with the stamps of [`Stamp`];
//! - record events (draw offer, acceptance, claim, resignation) are comment commands:
//!   `[%draw offer]`, `[%draw agree]`, `[%draw claim threefold]`, `[%resign]`.
//!
//! # How it is built
//!
//! `config` turns the player's YAML file into validated `Settings` (player, games folder,
//! outbox, whether mails carry pictures, optional SMTP relay with a `PasswordSource`: an environment variable or a command,
//! never the file; optional IMAP server, Maildir, and `shared_folder`, which wins over the
//! mail servers for `send` and `sync`); reading the file is the command line's job. `clock` is correspondence
//! time: `TimeControl` (`10/50d`, `3d`, `+30d` leave), the `Stamp` each turn carries
//! (`[%received]`, `[%sent]`, `[%leave]`) and each part that completed a turn by mail
//! carries in its own comment (`black [%sent ...]`, `Stamp::of_part`), the `Act`s they
//! make, and `clocks`, which computes each side's used and remaining reflection time at a
//! `now` passed in (no wall clock). `correspondence` is the
//! game-by-mail record: `new_record` (tags `WhiteNA`/`BlackNA`/`Mode`/`GameId`/
//! `TimeControlCorr`), `play` (the player's turn, checked and stamped), `record_event`
//! (draw offer, acceptance, claim, resignation as comment commands), `compare`, which
//! says whether a mailed copy is the same, older, newer (only the opponent's next turn or
//! events, or a part completing the last turn) or in conflict at a ply, `completes_last`
//! (a completion is one part, by the side awaited, with its stamp) and `last_actor`.
//!
//! Invariants: each comment is written only by its own player (a turn's stamp by the
//! turn's, a part's stamp by the part's), so both copies of a game are the same text;
//! nothing here does I/O.

use chrono::{DateTime, Utc};

use crate::clock::commands;
use crate::clock::{Act, Stamp, TimeControl};
use crate::config::Player;
use crate::games::{Color, DrawReason, Game, GameResult, Variant};
use crate::notation::{
    Comment, Numbering, Record, Span, Tag, TurnNode, complete_roster, record_to_string,
};
pub use crate::replay::events::standing_offer;
use crate::replay::events::{self, ClaimReason};
use crate::replay::{self, History, Report};

/// The tag that holds the game's unique id.
pub const GAME_ID_TAG: &str = "GameId";
/// The tag that holds the correspondence time control (`10/50d`, `3d+30d`).
pub const TIME_CONTROL_TAG: &str = "TimeControlCorr";

/// What `pbem new` needs to start a game.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The game.
    pub variant: Variant,
    /// White's player.
    pub white: Player,
    /// Black's player.
    pub black: Player,
    /// Another starting position (the game's position string), if any.
    pub position: Option<String>,
    /// The time control, if any.
    pub time_control: Option<TimeControl>,
    /// The game's unique id.
    pub game_id: String,
    /// When the game starts.
    pub started: DateTime<Utc>,
}

/// Why a turn or an event cannot be added to a game.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The record itself does not replay.
    #[error("the game file does not replay: {0}")]
    Invalid(String),
    /// The game has a result already.
    #[error("the game is over ({0})")]
    Over(String),
    /// It is the other side's turn.
    #[error("it is {to_move}'s turn, and you play {you}")]
    NotYourTurn {
        /// The side to move.
        to_move: Color,
        /// The player's side.
        you: Color,
    },
    /// The player is not one of the game's players.
    #[error("{0} does not play in this game (neither WhiteNA nor BlackNA)")]
    NotAPlayer(String),
    /// The turn cannot be read or is not legal.
    #[error("{0}")]
    Turn(String),
    /// The event is not possible now.
    #[error("{0}")]
    Event(String),
    /// The setup is not a valid position.
    #[error("invalid setup: {0}")]
    Setup(String),
}

/// A record event: something a player does that is not a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Offer a draw (with the player's turn, or on its own).
    OfferDraw,
    /// Accept the opponent's standing offer.
    AcceptDraw,
    /// Claim a draw the rules allow now (threefold repetition, fifty moves).
    ClaimDraw,
    /// Resign.
    Resign,
    /// Claim the game on time at this instant: the opponent, whose act is awaited, is
    /// over its time under the game's time control.
    ClaimTime(DateTime<Utc>),
}

/// A new game's id: `g-YYYYMMDD-` and eight hex digits of `entropy`.
#[must_use]
pub fn new_game_id(started: DateTime<Utc>, entropy: u64) -> String {
    format!(
        "g-{}-{:08x}",
        started.format("%Y%m%d"),
        entropy & 0xffff_ffff
    )
}

/// The record of a new game, checked: its setup must be a valid position of its game.
pub fn new_record(new: &NewGame) -> Result<Record, PlayError> {
    let mut record = Record::default();
    let mut tag = |name: &str, value: String| {
        record.tags.push(Tag {
            name: name.into(),
            value: value.into(),
            span: Span::default(),
        });
    };
    tag("Event", "Correspondence game".to_owned());
    tag("Site", "pbem".to_owned());
    tag("Date", new.started.format("%Y.%m.%d").to_string());
    tag("Round", "-".to_owned());
    tag("White", new.white.name.clone());
    tag("Black", new.black.name.clone());
    tag("Result", "*".to_owned());
    tag("WhiteNA", new.white.email.clone());
    tag("BlackNA", new.black.email.clone());
    tag("Mode", "EM".to_owned());
    tag(GAME_ID_TAG, new.game_id.clone());
    if new.variant != Variant::Chess {
        tag("Variant", new.variant.name().to_owned());
    }
    if let Some(control) = new.time_control {
        tag(TIME_CONTROL_TAG, control.to_string());
    }
    if let Some(position) = &new.position {
        tag("SetUp", "1".to_owned());
        tag("FEN", position.clone());
    }
    record.result = Some(GameResult::Unknown);
    record.number = 1;
    // The start itself must be playable.
    crate::with_game!(new.variant, G => G::from_tags(&record).map(|_| ()))
        .map_err(|error| PlayError::Setup(error.to_string()))?;
    Ok(record)
}

/// The record as its game file holds it: the canonical text, numbered from the game's
/// starting position.
#[must_use]
pub fn to_text(record: &Record) -> String {
    let numbering = replay::variant_of(record)
        .ok()
        .and_then(|variant| {
            crate::with_game!(variant, G => G::from_tags(record).ok().map(|start| Numbering {
                fullmove: start.fullmove_number(),
                side: start.side_to_move(),
            }))
        })
        .unwrap_or_else(|| Numbering::from_tags(record));
    record_to_string(record, numbering)
}

/// The game's id.
#[must_use]
pub fn game_id(record: &Record) -> Option<&str> {
    record.tag(GAME_ID_TAG)
}

/// The side the player with this address plays, from the `WhiteNA`/`BlackNA` tags
/// (compared without regard to case).
#[must_use]
pub fn side_of(record: &Record, address: &str) -> Option<Color> {
    let matches = |tag: &str| {
        record
            .tag(tag)
            .is_some_and(|value| value.trim().eq_ignore_ascii_case(address.trim()))
    };
    if matches("WhiteNA") {
        Some(Color::White)
    } else if matches("BlackNA") {
        Some(Color::Black)
    } else {
        None
    }
}

/// The time control of a game, if it has a readable one.
#[must_use]
pub fn time_control(record: &Record) -> Option<TimeControl> {
    record.tag(TIME_CONTROL_TAG)?.parse().ok()
}

/// A replay of the game that must be valid, with the side to move.
pub struct State {
    /// The replay's report.
    pub report: Report,
    /// The side to move after the main line.
    pub to_move: Color,
    /// The number of the next turn, as a reader writes it (`12.` or `12...`).
    pub next_number: String,
    /// The main line's turns: who made each, and its stamp.
    pub turns: Vec<(Color, Stamp)>,
    /// The main line's stamped acts in order: each turn, then the parts that completed it
    /// by mail (a card answered), each with its own player and stamp.
    pub acts: Vec<Act>,
    /// The side whose part the last turn awaits (a card, in Chess with wickets' Cards
    /// modes), if it awaits one: then that side acts next, not the side to move.
    pub awaited: Option<Color>,
    /// What the awaited side adds, in a word ([`Game::awaited_part`]): `card`, `roll`.
    pub awaited_part: &'static str,
    /// A draw the side to move may claim now.
    pub claimable: Option<DrawReason>,
    /// The ASCII diagram of the current position.
    pub diagram: String,
    /// The current position string.
    pub position: String,
    /// The latest turn with its number (`12... Nf6`), if there is one.
    pub last_turn: Option<String>,
}

/// Replays a game and says where it stands; an invalid record is an error.
pub fn state(record: &Record) -> Result<State, PlayError> {
    let variant = replay::variant_of(record)
        .map_err(|name| PlayError::Invalid(format!("unsupported variant \"{name}\"")))?;
    crate::with_game!(variant, G => state_in::<G>(record))
}

fn state_in<G: Game>(record: &Record) -> Result<State, PlayError> {
    let replayed = replay::replay_game::<G>(record);
    if let Some(error) = replayed.report.errors().next() {
        return Err(PlayError::Invalid(format!(
            "line {}: {}",
            error.span.line, error.message
        )));
    }
    let (Some(start), Some(position)) = (replayed.start, replayed.position) else {
        return Err(PlayError::Invalid("no playable start".to_owned()));
    };
    let mut side = start.side_to_move();
    let last_turn = record.moves.turns.last().map(|node| {
        let plies = u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX) - 1;
        let offset = plies + u32::from(start.side_to_move() == Color::Black);
        let number = start.fullmove_number() + offset / 2;
        let dots = if offset % 2 == 0 { "." } else { "..." };
        format!("{number}{dots} {}", node.token)
    });
    let mut acts = Vec::new();
    let turns = record
        .moves
        .turns
        .iter()
        .map(|node| {
            let entry = (side, Stamp::from_comments(&node.comments));
            acts.push(Act::turn(side, entry.1));
            acts.extend(node.comments.iter().filter_map(|comment| {
                Stamp::of_part(&comment.text).map(|(color, stamp)| Act {
                    color,
                    stamp,
                    part: true,
                })
            }));
            side = side.other();
            entry
        })
        .collect();
    let to_move = position.side_to_move();
    let number = position.fullmove_number();
    Ok(State {
        claimable: replayed.report.claimable,
        next_number: match to_move {
            Color::White => format!("{number}."),
            Color::Black => format!("{number}..."),
        },
        to_move,
        turns,
        acts,
        awaited: position.awaited_side(),
        awaited_part: position.awaited_part(),
        diagram: position.diagram(),
        position: position.position_string(),
        last_turn,
        report: replayed.report,
    })
}

/// The label of the main line's turn at `index` (from 0), as a reader writes it with its
/// number (`12. Nf3`, `12... Nf6`), counted from the game's start; `None` past the end
/// or when the start does not read.
#[must_use]
pub fn turn_label(record: &Record, index: usize) -> Option<String> {
    let node = record.moves.turns.get(index)?;
    let variant = replay::variant_of(record).ok()?;
    let (fullmove, side) = crate::with_game!(variant, G => G::from_tags(record)
        .ok()
        .map(|start| (start.fullmove_number(), start.side_to_move())))?;
    let offset = u32::try_from(index).ok()? + u32::from(side == Color::Black);
    let dots = if offset % 2 == 0 { "." } else { "..." };
    Some(format!("{}{dots} {}", fullmove + offset / 2, node.token))
}

/// The command that marks a turn typed by hand in a reply to pbem's mail, written by the
/// receiver's pbem into the stamp it writes for that turn, with the address the reply
/// came from: `{[%sent T] [%typed bob@example.org]}`.
pub const TYPED_COMMAND: &str = "typed";

/// Marks the turn as typed by hand in a reply from `address` (see [`TYPED_COMMAND`]): the
/// command goes into the turn's stamp comment, or a comment of its own when it has none.
pub fn mark_typed(node: &mut TurnNode, address: &str) {
    let command = format!("[%{TYPED_COMMAND} {}]", address.trim());
    match node
        .comments
        .iter_mut()
        .find(|comment| Stamp::of_part(&comment.text).is_none())
    {
        Some(stamp) => stamp.text = format!("{} {command}", stamp.text).into(),
        None => node.comments.push(comment(&command)),
    }
}

/// The address a turn was typed from, when the pbem that took it in marked it typed by
/// hand ([`TYPED_COMMAND`]); the stamps of parts are not the turn's.
#[must_use]
pub fn typed_by(node: &TurnNode) -> Option<&str> {
    node.comments
        .iter()
        .filter(|comment| Stamp::of_part(&comment.text).is_none())
        .flat_map(|comment| commands(&comment.text))
        .find(|(name, _)| *name == TYPED_COMMAND)
        .map(|(_, address)| address)
}

/// A turn added to a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The canonical token.
    pub token: String,
    /// The turn with its number, as a reader writes it (`12. Nf3`, `12... Nf6`).
    pub label: String,
    /// Turns in the main line now.
    pub ply: u32,
    /// The result, if the turn ended the game by rule.
    pub result: Option<GameResult>,
}

/// Adds the player's turn to the game: checks that it is their turn and that the turn is
/// legal, writes it canonically with its stamp, and sets the result when the turn ends
/// the game by rule.
pub fn play(
    record: &mut Record,
    player: &str,
    token: &str,
    stamp: Stamp,
) -> Result<Played, PlayError> {
    let variant = replay::variant_of(record)
        .map_err(|name| PlayError::Invalid(format!("unsupported variant \"{name}\"")))?;
    crate::with_game!(variant, G => play_in::<G>(record, player, token, stamp))
}

fn play_in<G: Game>(
    record: &mut Record,
    player: &str,
    token: &str,
    stamp: Stamp,
) -> Result<Played, PlayError> {
    let you = side_of(record, player).ok_or_else(|| PlayError::NotAPlayer(player.to_owned()))?;
    let state = state_in::<G>(record)?;
    check_open(record)?;
    if let Some(awaited) = state.awaited {
        if awaited != you {
            return Err(PlayError::NotYourTurn {
                to_move: awaited,
                you,
            });
        }
        check_leave(record, &state, you, stamp)?;
        return complete_last::<G>(record, you, token, stamp, &state);
    }
    if state.to_move != you {
        return Err(PlayError::NotYourTurn {
            to_move: state.to_move,
            you,
        });
    }
    check_leave(record, &state, you, stamp)?;
    let replayed = replay::replay_game::<G>(record);
    let (Some(start), Some(mut position)) = (replayed.start, replayed.position) else {
        return Err(PlayError::Invalid("no playable position".to_owned()));
    };
    // The rules and the history (a repetition ban) decide together.
    let mut history = History::of_line(&start, &replayed.turns);
    if let Some(outcome) = history.outcome(&position) {
        return Err(PlayError::Over(outcome.to_string()));
    }
    let syntax = G::parse_turn(token)
        .map_err(|error| PlayError::Turn(format!("cannot read \"{token}\": {}", error.message)))?;
    let turn = position
        .resolve_except(&syntax, history.forbidden())
        .map_err(|error| PlayError::Turn(format!("illegal turn \"{token}\": {}", error.message)))?;
    let canonical = position.write_turn_except(&turn, history.forbidden());
    position.play(&turn);
    history.enter(&position);
    let mut node = TurnNode::new(&canonical);
    let stamp_text = stamp.to_comment();
    if !stamp_text.is_empty() {
        node.comments.push(comment(&stamp_text));
    }
    record.moves.turns.push(node);
    let result = history.outcome(&position).map(|outcome| outcome.result());
    if let Some(result) = result {
        set_result(record, result);
    }
    Ok(Played {
        label: format!("{} {canonical}", state.next_number),
        token: canonical,
        ply: u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX),
        result,
    })
}

/// Refuses leave days beyond what the time control leaves the player, counted over all
/// of their acts (turns and parts).
fn check_leave(record: &Record, state: &State, you: Color, stamp: Stamp) -> Result<(), PlayError> {
    if stamp.leave_days == 0 {
        return Ok(());
    }
    let allowed = time_control(record).map_or(0, |control| control.leave_days);
    let taken: u32 = state
        .acts
        .iter()
        .filter(|act| act.color == you)
        .map(|act| act.stamp.leave_days)
        .sum();
    if taken + stamp.leave_days > allowed {
        return Err(PlayError::Turn(format!(
            "{} leave days asked, but {} of the game's {allowed} are left",
            stamp.leave_days,
            allowed.saturating_sub(taken)
        )));
    }
    Ok(())
}

/// The legal turns of the side to move at the end of the main line, written canonically
/// (among the turns the history allows) and sorted: what a refused turn is answered with.
/// When the last turn awaits a part (a card), the parts the awaited side may add.
pub fn legal_turns(record: &Record) -> Result<Vec<String>, PlayError> {
    let variant = replay::variant_of(record)
        .map_err(|name| PlayError::Invalid(format!("unsupported variant \"{name}\"")))?;
    crate::with_game!(variant, G => legal_turns_in::<G>(record))
}

fn legal_turns_in<G: Game>(record: &Record) -> Result<Vec<String>, PlayError> {
    let replayed = replay::replay_game::<G>(record);
    let (Some(start), Some(position)) = (replayed.start, replayed.position) else {
        return Err(PlayError::Invalid("no playable position".to_owned()));
    };
    if position.awaiting().is_some() {
        return Ok(position.awaited_parts());
    }
    Ok(History::of_line(&start, &replayed.turns).legal_tokens(&position))
}

/// Completes the last turn with the part the awaited side (`you`) adds (a card in reply,
/// in Chess with wickets' Cards modes): the token is rewritten whole, canonically, from
/// the position before it. The turn keeps its player's stamp; the part gets its own,
/// `you`'s, in a comment after the turn's others (`black [%received T] [%sent T]`), so
/// its time is counted and the game shows who acted last.
fn complete_last<G: Game>(
    record: &mut Record,
    you: Color,
    part: &str,
    stamp: Stamp,
    state: &State,
) -> Result<Played, PlayError> {
    let last = record
        .moves
        .turns
        .last()
        .map(|node| node.token.to_string())
        .ok_or_else(|| PlayError::Invalid("no turn awaits a part".to_owned()))?;
    let token = match G::complete_token(&last, part) {
        Some(token) => token,
        // The whole turn typed with the part added (`Nxe5:w9_cS5` for `S5`): the rules
        // and, in a fair deal, the hand judge the part as if typed alone.
        None if G::completes(&last, part.trim()) => part.trim().to_owned(),
        None => {
            let example = replay::replay_game::<G>(record)
                .position
                .and_then(|position| position.awaited_parts().into_iter().next())
                .map_or_else(String::new, |part| format!(" (as {part})"));
            return Err(PlayError::Turn(format!(
                "the last turn {last} awaits your card{example}, not \"{part}\""
            )));
        }
    };
    let mut before = record.clone();
    before.moves.turns.pop();
    let Some(mut position) = replay::replay_game::<G>(&before).position else {
        return Err(PlayError::Invalid("no playable position".to_owned()));
    };
    let syntax = G::parse_turn(&token)
        .map_err(|error| PlayError::Turn(format!("cannot read \"{token}\": {}", error.message)))?;
    let turn = position
        .resolve(&syntax)
        .map_err(|error| PlayError::Turn(format!("illegal card \"{part}\": {}", error.message)))?;
    let canonical = position.write_turn(&turn);
    position.play(&turn);
    if let Some(node) = record.moves.turns.last_mut() {
        node.token = canonical.as_str().into();
        node.comments.push(comment(&stamp.to_part_comment(you)));
    }
    let result = position.outcome().map(|outcome| outcome.result());
    if let Some(result) = result {
        set_result(record, result);
    }
    let label = state.last_turn.as_deref().map_or_else(
        || canonical.clone(),
        |label| label.replacen(last.as_str(), &canonical, 1),
    );
    Ok(Played {
        label,
        token: canonical,
        ply: u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX),
        result,
    })
}

/// Records an event of the player's. Offers and claims are the side to move's (a claim
/// is checked against the rules); accepting needs the opponent's standing offer;
/// resigning is possible at any time.
pub fn record_event(record: &mut Record, player: &str, event: Event) -> Result<(), PlayError> {
    let you = side_of(record, player).ok_or_else(|| PlayError::NotAPlayer(player.to_owned()))?;
    let state = state(record)?;
    check_open(record)?;
    let text = match event {
        Event::Resign => {
            set_result(
                record,
                match you {
                    Color::White => GameResult::BlackWins,
                    Color::Black => GameResult::WhiteWins,
                },
            );
            "[%resign]".to_owned()
        }
        Event::OfferDraw => "[%draw offer]".to_owned(),
        Event::AcceptDraw => {
            if standing_offer(record) != Some(you.other()) {
                return Err(PlayError::Event(format!(
                    "there is no draw offer from {} to accept",
                    you.other()
                )));
            }
            set_result(record, GameResult::Draw);
            "[%draw agree]".to_owned()
        }
        Event::ClaimDraw => {
            if state.to_move != you {
                return Err(PlayError::Event(
                    "a draw is claimed on one's own turn".to_owned(),
                ));
            }
            let Some(reason) = state.claimable else {
                return Err(PlayError::Event(
                    "no draw can be claimed here: the position has not occurred three times \
                     and the fifty-move rule does not apply"
                        .to_owned(),
                ));
            };
            set_result(record, GameResult::Draw);
            let reason = ClaimReason::ALL
                .into_iter()
                .find(|claim| claim.draw_reason() == reason)
                .unwrap_or(ClaimReason::Threefold);
            format!("[%draw claim {}]", reason.name())
        }
        Event::ClaimTime(now) => {
            overdue_opponent(record, &state, you, now)?;
            set_result(
                record,
                match you {
                    Color::White => GameResult::WhiteWins,
                    Color::Black => GameResult::BlackWins,
                },
            );
            format!("[%timeout {}]", crate::clock::format_instant(now))
        }
    };
    let target = match record.moves.turns.last_mut() {
        Some(turn) => &mut turn.comments,
        None => &mut record.moves.comments,
    };
    target.push(comment(&format!(
        "{} {text}",
        you.name().to_ascii_lowercase()
    )));
    Ok(())
}

/// Who acted last in the game: the side of the last event (offer, acceptance, claim,
/// resignation, a fair deal's seed) or part (a card answered by mail, with its own stamp)
/// written after the last turn, else the side that made the last turn; `None` before any
/// turn or event. A fair-dice command (`[%chance commit]`, `[%chance reveal]`) is written
/// by a player's pbem on receipt and is not that player's act, unless the roll it gives
/// ended the game (then the result is that player's to mail). `turns` is
/// [`State::turns`].
#[must_use]
pub fn last_actor(record: &Record, turns: &[(Color, Stamp)]) -> Option<Color> {
    let comments = match record.moves.turns.last() {
        Some(turn) => &turn.comments,
        None => &record.moves.comments,
    };
    let over = check_open(record).is_err();
    comments
        .iter()
        .flat_map(|comment| {
            let text = &comment.text;
            let part = Stamp::of_part(text).map(|(side, _)| side);
            // The game's events (offer, acceptance, claims, resignation, a claim on time)
            // through the replay's one reader of them; a fair-chance act beside them.
            let acts = events::events_in(text).len() + fair_acts(text, over);
            let side = events::comment_side(text).unwrap_or(Color::White);
            std::iter::repeat_n(side, acts).chain(part)
        })
        .next_back()
        .or_else(|| turns.last().map(|(color, _)| *color))
}

/// How many fair-chance commands in a comment are its writer's acts: a seed revealed
/// for the fair deal (to be mailed), and, once the game is over, a die's commit or
/// reveal (the roll it gave ended the game, so the result is that player's to mail).
fn fair_acts(text: &str, over: bool) -> usize {
    commands(text)
        .filter(|(name, value)| {
            (over && *name == "chance") || (*name == "deal" && value.starts_with("seed"))
        })
        .count()
}

/// The side whose act is awaited (the side to move, or the side whose part the last
/// turn awaits: a card, a roll) and since when its clock runs: for the player's own act,
/// when the opponent's last act arrived (`received`, from the local state); for the
/// opponent's, when the player's last act was made (its stamp), which is the best this
/// side knows. `pbem status` shows this wait, and a claim on time is judged by it.
#[must_use]
pub fn waiting_since(
    game: &State,
    you: Option<Color>,
    received: Option<DateTime<Utc>>,
) -> Option<(Color, DateTime<Utc>)> {
    let to_act = game.awaited.unwrap_or(game.to_move);
    let since = if Some(to_act) == you {
        received
    } else {
        game.acts.last().and_then(|act| act.stamp.sent).or(received)
    };
    since.map(|since| (to_act, since))
}

/// For a claim on time by `you` at `now`: the opponent's act must be awaited, the game
/// have a time control, and the opponent be over its time by the clocks `pbem status`
/// shows; why not otherwise.
fn overdue_opponent(
    record: &Record,
    game: &State,
    you: Color,
    now: DateTime<Utc>,
) -> Result<(), PlayError> {
    let Some(control) = time_control(record) else {
        return Err(PlayError::Event(
            "the game has no time control ([TimeControlCorr]), so no claim on time".to_owned(),
        ));
    };
    let waiting = waiting_since(game, Some(you), None);
    let Some((to_act, _)) = waiting.filter(|(to_act, _)| *to_act != you) else {
        return Err(PlayError::Event(
            "your own act is awaited: only the side waiting for the other's act claims on \
             time"
                .to_owned(),
        ));
    };
    let times = crate::clock::clocks(Some(control), &game.acts, waiting, now);
    let time = times[usize::from(to_act == Color::Black)];
    if time.overdue() {
        return Ok(());
    }
    Err(PlayError::Event(format!(
        "{to_act} is not over its time: {} left under {control}; claim again once \
         `pbem status` shows it OVERDUE",
        time.left
            .map_or_else(|| "time".to_owned(), crate::clock::describe)
    )))
}

fn check_open(record: &Record) -> Result<(), PlayError> {
    match record.tag("Result").map(str::trim) {
        None | Some("*") => Ok(()),
        Some(result) => Err(PlayError::Over(result.to_owned())),
    }
}

fn set_result(record: &mut Record, result: GameResult) {
    record.set_tag("Result", result.as_str());
    record.result = Some(result);
    complete_roster(record);
}

fn comment(text: &str) -> Comment {
    Comment {
        text: text.into(),
        span: Span::default(),
    }
}

/// How a copy of a game that came by mail relates to the local one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// The same record: a repeated delivery.
    Same,
    /// The mail is an older state of the game (fewer turns, or a result the local file
    /// already has beyond).
    Older,
    /// The mail is the local record plus what the other side did: `turns` new turns
    /// (maybe 0 when only an event was added).
    Newer {
        /// How many turns the mail adds.
        turns: usize,
    },
    /// The two histories differ at this ply (from 1).
    Conflict {
        /// The first ply where they differ.
        ply: usize,
        /// The local turn there (None when the local record ends earlier but differs in
        /// what it holds).
        local: Option<String>,
        /// The mail's turn there.
        incoming: Option<String>,
    },
}

/// Compares the local record with the one a mail carries, turn by turn (tokens and the
/// comments their players wrote), then tags and events.
#[must_use]
pub fn compare(local: &Record, incoming: &Record) -> Comparison {
    let mine = &local.moves.turns;
    let theirs = &incoming.moves.turns;
    let completes = |earlier: &str, later: &str| {
        replay::variant_of(local)
            .is_ok_and(|variant| crate::with_game!(variant, G => G::completes(earlier, later)))
    };
    for (index, (a, b)) in mine.iter().zip(theirs).enumerate() {
        // The last local turn completed by the mail (a card in reply) is news.
        if a.token != b.token && !(index + 1 == mine.len() && completes(&a.token, &b.token)) {
            return Comparison::Conflict {
                ply: index + 1,
                local: Some(a.token.to_string()),
                incoming: Some(b.token.to_string()),
            };
        }
    }
    if theirs.len() < mine.len() {
        return Comparison::Older;
    }
    // Tags other than the result must agree: they are the game.
    for tag in &local.tags {
        if tag.name == "Result" {
            continue;
        }
        if incoming.tag(&tag.name) != Some(tag.value.as_str()) {
            return Comparison::Conflict {
                ply: 0,
                local: Some(format!("[{} \"{}\"]", tag.name, tag.value)),
                incoming: incoming
                    .tag(&tag.name)
                    .map(|value| format!("[{} \"{value}\"]", tag.name)),
            };
        }
    }
    let added = theirs.len() - mine.len();
    let local_open = is_open(local);
    if added == 0 {
        if local == incoming {
            return Comparison::Same;
        }
        if extends(local, incoming) {
            return Comparison::Newer { turns: 0 };
        }
        if extends(incoming, local) {
            return Comparison::Older;
        }
        return Comparison::Conflict {
            ply: mine.len(),
            local: local.tag("Result").map(str::to_owned),
            incoming: incoming.tag("Result").map(str::to_owned),
        };
    }
    if !local_open {
        return Comparison::Conflict {
            ply: mine.len() + 1,
            local: local.tag("Result").map(str::to_owned),
            incoming: theirs.get(mine.len()).map(|node| node.token.to_string()),
        };
    }
    Comparison::Newer { turns: added }
}

/// Whether a mail's record (`incoming`, from `from`, already compared as newer)
/// completes the local record's last turn with a part (a card answered). Such a mail
/// must add exactly one part, the one the local game awaits from `from`, with `from`'s
/// own stamp; anything else is refused with the reason.
pub fn completes_last(local: &Record, incoming: &Record, from: Color) -> Result<bool, PlayError> {
    let at = local.moves.turns.len();
    let (Some(mine), Some(theirs)) = (
        local.moves.turns.last(),
        at.checked_sub(1).and_then(|i| incoming.moves.turns.get(i)),
    ) else {
        return Ok(false);
    };
    if mine.token == theirs.token {
        return Ok(false);
    }
    let refuse = |why: String| {
        Err(PlayError::Turn(format!(
            "the mail completes turn {at} ({} becomes {}), but {why}",
            mine.token, theirs.token
        )))
    };
    match state(local)?.awaited {
        Some(awaited) if awaited == from => {}
        Some(awaited) => return refuse(format!("the part is {awaited}'s to add")),
        None => return refuse("that turn awaits nothing".to_owned()),
    }
    let variant = replay::variant_of(local)
        .map_err(|name| PlayError::Invalid(format!("unsupported variant \"{name}\"")))?;
    let bare = |token: &str| token.trim_end_matches(['+', '#']).to_owned();
    let (before, after) = (bare(&mine.token), bare(&theirs.token));
    let one_part = after.strip_prefix(before.as_str()).is_some_and(|part| {
        crate::with_game!(variant, G => G::complete_token(&before, part))
            .is_some_and(|token| bare(&token) == after)
    });
    if !one_part {
        // A Dice attempt sent without its roll is completed by the awaited side's pbem
        // from both players' revealed values (src/fair.rs), not typed: the mail's
        // transcript and the replay check that token, and it carries no stamp of its own.
        if crate::fair::uses_dice(local)
            && crate::with_game!(variant, G => G::completes(&before, &after))
        {
            return Ok(true);
        }
        return refuse("a mail adds one part at a time".to_owned());
    }
    let grown = theirs.comments.len() >= mine.comments.len()
        && theirs.comments[..mine.comments.len()] == mine.comments[..];
    let parts: Vec<Color> = theirs.comments[mine.comments.len().min(theirs.comments.len())..]
        .iter()
        .filter_map(|comment| Stamp::of_part(&comment.text).map(|(side, _)| side))
        .collect();
    if !grown || parts != [from] {
        return refuse(format!(
            "its comments are not yours plus {from}'s one stamp for the part"
        ));
    }
    Ok(true)
}

/// Whether the game has no result yet.
fn is_open(record: &Record) -> bool {
    matches!(record.tag("Result").map(str::trim), None | Some("*"))
}

/// Whether `later` is `earlier` with only comments (events) added at the ends of its
/// comment lists and, if `earlier` was open, a result set. Both have the same turns.
fn extends(earlier: &Record, later: &Record) -> bool {
    let grows = |a: &[Comment], b: &[Comment]| b.len() >= a.len() && b[..a.len()] == a[..];
    let turns_grow = earlier
        .moves
        .turns
        .iter()
        .zip(&later.moves.turns)
        .all(|(a, b)| grows(&a.comments, &b.comments));
    turns_grow
        && grows(&earlier.moves.comments, &later.moves.comments)
        && (is_open(earlier) || earlier.tag("Result") == later.tag("Result"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::parse_instant;

    fn player(name: &str) -> Player {
        Player {
            name: name.to_owned(),
            email: format!("{}@example.org", name.to_ascii_lowercase()),
        }
    }

    fn game() -> Record {
        new_record(&NewGame {
            variant: Variant::Chess,
            white: player("Alice"),
            black: player("Bob"),
            position: None,
            time_control: Some("10/50d".parse().unwrap()),
            game_id: "g-20261122-00000001".to_owned(),
            started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
        })
        .unwrap()
    }

    fn stamp() -> Stamp {
        Stamp {
            received: parse_instant("2026-11-22T10:00:00Z"),
            sent: parse_instant("2026-11-23T10:00:00Z"),
            leave_days: 0,
        }
    }

    #[test]
    fn a_new_game_has_the_mail_tags_and_validates() {
        let record = game();
        assert_eq!(record.tag("WhiteNA"), Some("alice@example.org"));
        assert_eq!(record.tag("Mode"), Some("EM"));
        assert_eq!(record.tag(TIME_CONTROL_TAG), Some("10/50d"));
        assert_eq!(game_id(&record), Some("g-20261122-00000001"));
        assert!(replay::replay(&record).is_valid());
        assert_eq!(side_of(&record, "BOB@example.org"), Some(Color::Black));
        assert_eq!(side_of(&record, "eve@example.org"), None);
    }

    #[test]
    fn a_bad_setup_is_refused() {
        let error = new_record(&NewGame {
            position: Some("8/8/8/8/8/8/8/8 w - - 0 1".to_owned()),
            ..NewGame {
                variant: Variant::Chess,
                white: player("A"),
                black: player("B"),
                position: None,
                time_control: None,
                game_id: "g".to_owned(),
                started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
            }
        })
        .unwrap_err();
        assert!(error.to_string().contains("missing white king"), "{error}");
    }

    #[test]
    fn turns_are_checked_written_canonically_and_stamped() {
        let mut record = game();
        let played = play(&mut record, "alice@example.org", "e2e4", stamp()).unwrap();
        assert_eq!(played.label, "1. e4");
        assert_eq!(played.ply, 1);
        let stamped = Stamp::from_comments(&record.moves.turns[0].comments);
        assert_eq!(stamped, stamp());
        let error = play(&mut record, "alice@example.org", "d4", stamp()).unwrap_err();
        assert!(error.to_string().contains("it is Black's turn"), "{error}");
        let error = play(&mut record, "bob@example.org", "e4", stamp()).unwrap_err();
        assert!(error.to_string().contains("illegal turn \"e4\""), "{error}");
        let error = play(&mut record, "eve@example.org", "e5", stamp()).unwrap_err();
        assert!(matches!(error, PlayError::NotAPlayer(_)), "{error}");
        assert_eq!(
            play(&mut record, "bob@example.org", "e5", stamp())
                .unwrap()
                .label,
            "1... e5"
        );
    }

    #[test]
    fn leave_days_are_limited_by_the_time_control() {
        let mut record = game();
        record.set_tag(TIME_CONTROL_TAG, "10/50d+5d");
        let with_leave = |days| Stamp {
            leave_days: days,
            ..stamp()
        };
        play(&mut record, "alice@example.org", "e4", with_leave(3)).unwrap();
        play(&mut record, "bob@example.org", "e5", stamp()).unwrap();
        let error = play(&mut record, "alice@example.org", "Nf3", with_leave(3)).unwrap_err();
        assert!(
            error.to_string().contains("2 of the game's 5 are left"),
            "{error}"
        );
        play(&mut record, "alice@example.org", "Nf3", with_leave(2)).unwrap();
        let mut record = game();
        let error = play(&mut record, "alice@example.org", "e4", with_leave(1)).unwrap_err();
        assert!(error.to_string().contains("0 of the game's 0"), "{error}");
    }

    #[test]
    fn a_mating_turn_sets_the_result() {
        let mut record = game();
        for (player, token) in [("alice", "f3"), ("bob", "e5"), ("alice", "g4")] {
            play(
                &mut record,
                &format!("{player}@example.org"),
                token,
                stamp(),
            )
            .unwrap();
        }
        let played = play(&mut record, "bob@example.org", "Qh4", stamp()).unwrap();
        assert_eq!(played.token, "Qh4#");
        assert_eq!(played.result, Some(GameResult::BlackWins));
        assert_eq!(record.tag("Result"), Some("0-1"));
        let error = play(&mut record, "alice@example.org", "a3", stamp()).unwrap_err();
        assert!(matches!(error, PlayError::Over(_)), "{error}");
    }

    #[test]
    fn draw_offers_are_accepted_only_when_standing() {
        let mut record = game();
        play(&mut record, "alice@example.org", "e4", stamp()).unwrap();
        let error = record_event(&mut record, "bob@example.org", Event::AcceptDraw).unwrap_err();
        assert!(
            error.to_string().contains("no draw offer from White"),
            "{error}"
        );
        record_event(&mut record, "alice@example.org", Event::OfferDraw).unwrap();
        assert_eq!(standing_offer(&record), Some(Color::White));
        record_event(&mut record, "bob@example.org", Event::AcceptDraw).unwrap();
        assert_eq!(record.tag("Result"), Some("1/2-1/2"));
        assert!(replay::replay(&record).is_valid());
    }

    #[test]
    fn claims_are_checked_and_resignation_ends_the_game() {
        let mut record = game();
        let error = record_event(&mut record, "alice@example.org", Event::ClaimDraw).unwrap_err();
        assert!(
            error.to_string().contains("no draw can be claimed"),
            "{error}"
        );
        for (index, token) in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]
            .iter()
            .enumerate()
        {
            let player = if index % 2 == 0 { "alice" } else { "bob" };
            play(
                &mut record,
                &format!("{player}@example.org"),
                token,
                stamp(),
            )
            .unwrap();
        }
        record_event(&mut record, "alice@example.org", Event::ClaimDraw).unwrap();
        assert_eq!(record.tag("Result"), Some("1/2-1/2"));
        // The validator judges the claim by the same rules.
        let report = replay::replay(&record);
        assert!(report.is_valid(), "{:?}", report.findings);

        let mut record = game();
        record_event(&mut record, "bob@example.org", Event::Resign).unwrap();
        assert_eq!(record.tag("Result"), Some("1-0"));
        assert!(replay::replay(&record).is_valid());
    }

    #[test]
    fn an_automatic_repetition_draw_sets_the_result() {
        let mut record = game();
        let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"];
        for (index, token) in shuffle.iter().cycle().take(16).enumerate() {
            let player = if index % 2 == 0 { "alice" } else { "bob" };
            let played = play(
                &mut record,
                &format!("{player}@example.org"),
                token,
                stamp(),
            )
            .unwrap();
            let expected = (index == 15).then_some(GameResult::Draw);
            assert_eq!(played.result, expected, "after {token} ({index})");
        }
        assert_eq!(record.tag("Result"), Some("1/2-1/2"));
        assert!(replay::replay(&record).is_valid());
    }

    #[test]
    fn a_card_answered_by_mail_is_its_players_act_with_its_own_stamp() {
        let mut record = new_record(&NewGame {
            variant: Variant::ChessWithWickets,
            white: player("Alice"),
            black: player("Bob"),
            position: Some("7k/7p/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1".to_owned()),
            time_control: None,
            game_id: "g-20261122-00000002".to_owned(),
            started: parse_instant("2026-11-22T10:00:00Z").unwrap(),
        })
        .unwrap();
        play(&mut record, "alice@example.org", "Ke2:w9_cH5", stamp()).unwrap();
        let local = record.clone();
        let before = state(&record).unwrap();
        assert_eq!(before.awaited, Some(Color::Black));
        assert_eq!(last_actor(&record, &before.turns), Some(Color::White));
        let error = play(&mut record, "alice@example.org", "H9", stamp()).unwrap_err();
        assert!(error.to_string().contains("it is Black's turn"), "{error}");
        let answer = Stamp {
            received: parse_instant("2026-11-23T11:00:00Z"),
            sent: parse_instant("2026-11-24T10:00:00Z"),
            leave_days: 0,
        };
        let played = play(&mut record, "bob@example.org", "S9", answer).unwrap();
        assert_eq!(played.token, "Ke2:w9_cH5_cS9");
        let after = state(&record).unwrap();
        assert_eq!(after.awaited, None);
        // The turn keeps White's stamp; Black's answer is Black's act.
        assert_eq!(after.turns, [(Color::White, stamp())]);
        assert_eq!(after.acts.len(), 2);
        assert_eq!(
            (after.acts[1].color, after.acts[1].stamp, after.acts[1].part),
            (Color::Black, answer, true)
        );
        assert_eq!(last_actor(&record, &after.turns), Some(Color::Black));
        // White takes it in as news: one part, Black's, with Black's stamp.
        assert_eq!(compare(&local, &record), Comparison::Newer { turns: 0 });
        assert!(completes_last(&local, &record, Color::Black).unwrap());
        assert!(completes_last(&local, &record, Color::White).is_err());
        // A mail that would also play White's next card, or strip the stamp, is refused.
        let mut forged = record.clone();
        forged.moves.turns[0].token = "Ke2:w9_cH5_cS5_cH9".into();
        assert!(completes_last(&local, &forged, Color::Black).is_err());
        let mut unstamped = record.clone();
        unstamped.moves.turns[0].comments.pop();
        assert!(completes_last(&local, &unstamped, Color::Black).is_err());
        assert!(!completes_last(&record, &record, Color::Black).unwrap());
    }

    #[test]
    fn comparing_copies_finds_repeats_news_and_conflicts() {
        let mut local = game();
        play(&mut local, "alice@example.org", "e4", stamp()).unwrap();
        let mut incoming = local.clone();
        assert_eq!(compare(&local, &incoming), Comparison::Same);
        play(&mut incoming, "bob@example.org", "c5", stamp()).unwrap();
        assert_eq!(compare(&local, &incoming), Comparison::Newer { turns: 1 });
        assert_eq!(compare(&incoming, &local), Comparison::Older);

        let mut other = game();
        play(&mut other, "alice@example.org", "d4", stamp()).unwrap();
        play(&mut other, "bob@example.org", "d5", stamp()).unwrap();
        assert_eq!(
            compare(&local, &other),
            Comparison::Conflict {
                ply: 1,
                local: Some("e4".to_owned()),
                incoming: Some("d4".to_owned())
            }
        );

        let mut resigned = local.clone();
        record_event(&mut resigned, "bob@example.org", Event::Resign).unwrap();
        assert_eq!(compare(&local, &resigned), Comparison::Newer { turns: 0 });
        assert_eq!(compare(&resigned, &local), Comparison::Older);

        // An offer that arrives before the move-only mail it followed: the later mail
        // is older.
        let mut offered = local.clone();
        record_event(&mut offered, "alice@example.org", Event::OfferDraw).unwrap();
        assert_eq!(compare(&offered, &local), Comparison::Older);
        // Two different events on the same turn cannot both stand.
        assert!(matches!(
            compare(&offered, &resigned),
            Comparison::Conflict { .. }
        ));
    }
}
