//! The JSON of the play page: the view of a game at a ply (`GET /api/game/ID`) and the
//! changes (`POST /api/game/ID/ACTION`), each through the command that makes it.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::super::home::Home;
use super::super::mail::{SendArgs, SyncArgs};
use super::super::play::{self, DrawAction, DrawArgs, GameArg, MoveArgs};
use super::super::{CliError, Status, status};
use super::{App, LOCAL, Target, local};
use crate::correspondence;
use crate::desk::play::{hand_line, own_hand};
use crate::games::Color;
use crate::notation::Record;
use crate::store::Ledger;

/// `?ply=K` (the end when left out) and `?since=VERSION` (nothing but the version when the
/// game is still at that version: what the page's polling asks).
#[derive(Debug, Deserialize)]
pub(super) struct ViewQuery {
    ply: Option<usize>,
    since: Option<u64>,
}

/// Contract 1's view of the position, and what the player's side of the game adds.
#[derive(Serialize)]
struct GameView {
    #[serde(flatten)]
    board: crate::board::View,
    /// The game's id (`local` for a file played locally).
    id: String,
    /// A file played locally: no mail, both sides.
    local: bool,
    /// The side the player plays in a game by mail.
    you: Option<&'static str>,
    /// Whose turn, in words.
    turn: String,
    /// The player's hand in the Cards modes, as `pbem status` tells it.
    hand: Option<String>,
    /// The game's line of `pbem status`: whose turn and the clocks.
    clocks: Option<String>,
    /// The refused mails of this game (until dismissed).
    refused: Vec<String>,
    /// Changes whenever the game's files change.
    version: u64,
    /// Whether a turn is mailed as soon as it is played (config `play.send: auto`).
    auto_send: bool,
}

/// What a change answers.
#[derive(Serialize)]
struct Acted {
    ok: bool,
    /// What the command printed, its error included.
    output: String,
    version: u64,
}

/// `GET /api/game/ID`.
pub(super) async fn view(
    State(shared): State<App>,
    UrlPath(id): UrlPath<String>,
    Query(query): Query<ViewQuery>,
) -> Response {
    let answer = tokio::task::spawn_blocking(move || game_view(&shared, &id, &query)).await;
    match answer {
        Ok(Ok(json)) => json.into_response(),
        Ok(Err((code, error))) => (code, error_text(&error)).into_response(),
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}

type Refusal = (StatusCode, CliError);

fn not_found(id: &str) -> Refusal {
    (
        StatusCode::NOT_FOUND,
        CliError::Usage(format!(
            "no game \"{id}\" here (the games are listed at /, or by `pbem status`)"
        )),
    )
}

/// Where a game of the server is: its file, and the other files whose change changes it.
fn files_of(shared: &App, id: &str) -> Result<(PathBuf, Vec<PathBuf>), Refusal> {
    match &shared.target {
        Target::Local(path) if id == LOCAL => Ok((path.clone(), vec![path.clone()])),
        Target::Local(_) => Err(not_found(id)),
        Target::Home(_) => {
            let home = Home::load(shared.config.as_deref())
                .map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error.into()))?;
            let path = home.games.path(id).map_err(|_| not_found(id))?;
            if !path.is_file() {
                return Err(not_found(id));
            }
            let dir = home.games.dir();
            let watched = vec![
                path.clone(),
                dir.join(format!("{id}.state.yaml")),
                dir.join(crate::store::LEDGER_FILE),
                home.settings.outbox.clone(),
            ];
            Ok((path, watched))
        }
    }
}

/// A number that changes whenever one of `files` changes (its length or time).
fn version_of(files: &[PathBuf]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    for file in files {
        match std::fs::metadata(file) {
            Ok(metadata) => {
                metadata.len().hash(&mut hasher);
                metadata.modified().ok().hash(&mut hasher);
            }
            Err(_) => 0u8.hash(&mut hasher),
        }
    }
    // JavaScript's numbers hold 53 bits exactly.
    hasher.finish() & ((1 << 53) - 1)
}

fn game_view(
    shared: &App,
    id: &str,
    query: &ViewQuery,
) -> Result<Json<serde_json::Value>, Refusal> {
    let (path, watched) = files_of(shared, id)?;
    let version = version_of(&watched);
    if query.since == Some(version) {
        return Ok(Json(
            serde_json::json!({ "version": version, "unchanged": true }),
        ));
    }
    let bad = |error: CliError| (StatusCode::UNPROCESSABLE_ENTITY, error);
    let home = match shared.target {
        Target::Local(_) => None,
        Target::Home(_) => Some(
            Home::load(shared.config.as_deref())
                .map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error.into()))?,
        ),
    };
    let record = match &home {
        Some(home) => home.games.load(&path).map_err(|error| bad(error.into()))?,
        None => local::load(&path).map_err(bad)?,
    };
    let mut board = crate::board::view(&record, query.ply)
        .map_err(|error| bad(CliError::Invalid(format!("{}: {error}", path.display()))))?;
    let you = home
        .as_ref()
        .and_then(|home| correspondence::side_of(&record, &home.settings.player.email));
    // A part awaited of the opponent is not the player's to add.
    if home.is_some()
        && board.awaiting.is_some()
        && you.map(color_name) != Some(board.side_to_move.as_str())
    {
        board.awaited_parts.clear();
    }
    let mut hand = None;
    if let Some(home) = &home
        && let Some((side, dealer, cards)) = own_hand(&record, home)
    {
        hand = Some(hand_line(&cards));
        // The cards the player may play while one is awaited of them, rather than every
        // card of the game.
        if board.awaiting.is_some()
            && let Some(playable) = crate::fair::cards::may_play(&record, side, &dealer)
        {
            board.awaited_parts = playable.iter().map(ToString::to_string).collect();
            if crate::fair::cards::may_decline(&record) {
                board.awaited_parts.push("-".to_owned());
            }
        }
    }
    let (clocks, refused) = match &home {
        Some(home) => (
            status_line(home, id).map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error))?,
            refusals(home, id).map_err(|error| (StatusCode::INTERNAL_SERVER_ERROR, error))?,
        ),
        None => (None, Vec::new()),
    };
    let turn = match &board.stopped {
        Some(stop) => stopped(stop, &path),
        // Turns are built here as anywhere (to try them), but played only at the end.
        None if board.ply < board.plies_total => format!(
            "ply {} of {}: the game goes on after it (go to its end to play)",
            board.ply, board.plies_total
        ),
        None => whose_turn(&board, you, home.is_none()),
    };
    let view = GameView {
        board,
        id: id.to_owned(),
        local: home.is_none(),
        you: you.map(color_name),
        turn,
        hand,
        clocks,
        refused,
        version,
        auto_send: home
            .as_ref()
            .is_some_and(|home| home.settings.play.auto_send),
    };
    serde_json::to_value(view).map(Json).map_err(|error| {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            CliError::Usage(error.to_string()),
        )
    })
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// What the page says of a record that stops before its end: where, why, and how to mend
/// it.
fn stopped(stop: &crate::board::Stop, path: &std::path::Path) -> String {
    let file = super::super::display_path(path);
    format!(
        "the record stops after ply {}: {} at line {}, column {} does not replay: {}; the \
         page shows the position before it and plays nothing on from there, since the turns \
         after it would be lost (`pbem validate {file}` shows the legal turns there; mend \
         the file, then reload the page)",
        stop.plies, stop.turn, stop.line, stop.column, stop.reason
    )
}

/// Whose turn, in words: the outcome of a game that is over, the part awaited, or the
/// side to move (the player's turn, or its opponent's).
fn whose_turn(board: &crate::board::View, you: Option<Color>, local: bool) -> String {
    let side = match board.side_to_move.as_str() {
        "white" => "White",
        _ => "Black",
    };
    if let Some(outcome) = &board.outcome {
        return format!("game over: {outcome}");
    }
    let yours = you.map(color_name) == Some(board.side_to_move.as_str());
    match (&board.awaiting, yours, local) {
        (Some(awaited), true, _) => format!("your part is awaited ({side}): {awaited}"),
        (Some(awaited), false, _) => format!("{side}'s part is awaited: {awaited}"),
        (None, _, true) => format!("{side} to move"),
        (None, true, false) => format!("your turn ({side})"),
        (None, false, false) => format!("{side} to move (your opponent)"),
    }
}

/// The game's line of `pbem status --all` (whose turn, since when, the clocks): the
/// line of its file, the other games left alone.
fn status_line(home: &Home, id: &str) -> Result<Option<String>, CliError> {
    let file = home.games.path(id)?;
    let listing = status::listing(&status::Args { all: true }, home, Some(&file))?;
    Ok(listing
        .games
        .into_iter()
        .find(|game| game.reads)
        .map(|game| game.line))
}

/// The refused mails of the game that the player has not dismissed.
fn refusals(home: &Home, id: &str) -> Result<Vec<String>, CliError> {
    let ledger = Ledger::load(home.games.dir())?;
    Ok(ledger
        .open_refusals()
        .filter(|entry| entry.game.as_deref() == Some(id))
        .map(|entry| {
            format!(
                "{} ({}, {}): {} (`pbem dismiss {}` once dealt with)",
                entry.handle(),
                entry.file,
                entry.at.format("%Y-%m-%d %H:%M UTC"),
                entry.reason,
                entry.handle()
            )
        })
        .collect())
}

/// The body of a change: `{"token": T, "ply": K}` for a move, `{"action": A}` for a
/// draw.
#[derive(Debug, Default, Deserialize)]
struct Body {
    token: Option<String>,
    action: Option<String>,
    /// The plies of the position the turn was built on (the page sends the one it
    /// shows): the move is played only if the game is still there, under the lock that
    /// plays it, so that neither an earlier ply looked at nor a turn that came in
    /// meanwhile (a `pbem sync` from cron) gets it played elsewhere.
    ply: Option<usize>,
}

/// Refuses a move built on the position after `shown` plies when the game has another
/// number of plies now.
fn still_at(record: &Record, shown: Option<usize>) -> Result<(), CliError> {
    let plies = record.moves.turns.len();
    match shown {
        Some(shown) if shown != plies => Err(CliError::Usage(format!(
            "the turn was built on the position after ply {shown}, but the game is at ply {plies}{}: nothing was played (play it at the game's end)",
            if shown < plies {
                format!(" (its last turn: {})", record.moves.turns[plies - 1].token)
            } else {
                String::new()
            }
        ))),
        _ => Ok(()),
    }
}

/// `POST /api/game/ID/ACTION`.
pub(super) async fn act(
    State(shared): State<App>,
    UrlPath((id, action)): UrlPath<(String, String)>,
    body: Bytes,
) -> Response {
    let body: Body = if body.iter().all(u8::is_ascii_whitespace) {
        Body::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(body) => body,
            Err(error) => {
                return (
                    StatusCode::BAD_REQUEST,
                    format!("pbem play: the request's body is not the JSON expected: {error}\n"),
                )
                    .into_response();
            }
        }
    };
    let answer = tokio::task::spawn_blocking(move || change(&shared, &id, &action, &body)).await;
    match answer {
        Ok(Ok(acted)) => Json(acted).into_response(),
        Ok(Err((code, error))) => (code, error_text(&error)).into_response(),
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}

fn change(shared: &App, id: &str, action: &str, body: &Body) -> Result<Acted, Refusal> {
    let (path, watched) = files_of(shared, id)?;
    let usage = |message: String| (StatusCode::BAD_REQUEST, CliError::Usage(message));
    let token = || {
        body.token
            .as_deref()
            .map(str::to_owned)
            .ok_or_else(|| usage("a move needs {\"token\": TURN}".to_owned()))
    };
    let mut out = Vec::new();
    let result = match &shared.target {
        Target::Local(_) => {
            if action != "move" {
                return Err(usage(format!(
                    "\"{action}\" is for a game by mail; {} is played locally (moves only)",
                    path.display()
                )));
            }
            let _one_at_a_time = shared.local_lock.lock();
            let token = token()?;
            local::load(&path)
                .and_then(|record| still_at(&record, body.ply))
                .and_then(|()| local::play(&path, &token, &mut out))
        }
        Target::Home(_) => {
            let draw = match body.action.as_deref() {
                Some("offer") => Some(DrawAction::Offer),
                Some("accept") => Some(DrawAction::Accept),
                Some("claim") => Some(DrawAction::Claim),
                _ => None,
            };
            if action == "draw" && draw.is_none() {
                return Err(usage(
                    "a draw needs {\"action\": \"offer\"|\"accept\"|\"claim\"}".to_owned(),
                ));
            }
            if !["move", "draw", "resign", "send", "sync"].contains(&action) {
                return Err((
                    StatusCode::NOT_FOUND,
                    CliError::Usage(format!(
                        "no action \"{action}\" (move, draw, resign, send, sync)"
                    )),
                ));
            }
            let turn = if action == "move" {
                Some(token()?)
            } else {
                None
            };
            by_mail(
                shared,
                id,
                action,
                turn.map(|turn| (turn, body.ply)),
                draw,
                &mut out,
            )
        }
    };
    let (ok, output) = told(result, &out);
    Ok(Acted {
        ok,
        output,
        version: version_of(&watched),
    })
}

/// `POST /api/sync`: `pbem sync` from the list of games (`/`), which a game the opponent
/// started is not on before its first mail is taken in. Not for a file played locally.
pub(super) async fn sync(State(shared): State<App>) -> Response {
    if let Target::Local(path) = &shared.target {
        let refusal = CliError::Usage(format!(
            "{} is played locally: there is no mail to sync",
            path.display()
        ));
        return (StatusCode::BAD_REQUEST, error_text(&refusal)).into_response();
    }
    let answer = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        let result = super::super::home::open(shared.config.as_deref())
            .and_then(|home| super::super::sync(&SyncArgs {}, &home, &mut out));
        let (ok, output) = told(result, &out);
        let ledger = Home::load(shared.config.as_deref())
            .map(|home| home.games.dir().join(crate::store::LEDGER_FILE))
            .ok();
        Acted {
            ok,
            output,
            version: version_of(ledger.as_slice()),
        }
    })
    .await;
    match answer {
        Ok(acted) => Json(acted).into_response(),
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response(),
    }
}

/// A change of a game by mail, through its command, with the home opened (and so the
/// player's data locked) for it alone.
fn by_mail(
    shared: &App,
    id: &str,
    action: &str,
    turn: Option<(String, Option<usize>)>,
    draw: Option<DrawAction>,
    out: &mut Vec<u8>,
) -> Result<Status, CliError> {
    let home = super::super::home::open(shared.config.as_deref())?;
    let game = id.to_owned();
    let send = SendArgs {
        dry_run: None,
        retry: false,
        refusal: None,
        game: Some(game.clone()),
    };
    match (action, turn, draw) {
        ("move", Some((turn, shown)), _) => {
            // Checked with the player's data locked: the game cannot move on meanwhile.
            let (_, record, _) = home.game(&game)?;
            still_at(&record, shown)?;
            let args = MoveArgs {
                game,
                turn,
                offer_draw: false,
                leave: 0,
            };
            let status = play::make_move(&args, &home, out)?;
            if status == Status::Ok && home.settings.play.auto_send {
                return super::super::mail::send(&send, &home, out);
            }
            Ok(status)
        }
        ("draw", _, Some(action)) => play::draw(&DrawArgs { action, game }, &home, out),
        ("resign", _, _) => play::resign(&GameArg { game }, &home, out),
        ("send", _, _) => super::super::mail::send(&send, &home, out),
        _ => super::super::sync(&SyncArgs {}, &home, out),
    }
}

/// Whether a command succeeded, and what it printed with its error, as a terminal would
/// show them (without colours).
fn told(result: Result<Status, CliError>, out: &[u8]) -> (bool, String) {
    let mut text = String::from_utf8_lossy(out).into_owned();
    let ok = match result {
        Ok(status) => status == Status::Ok,
        Err(error) => {
            text.push_str(&error_text(&error));
            text.push('\n');
            false
        }
    };
    (ok, without_colours(&text))
}

/// An error as `pbem` prints it on standard error.
pub(super) fn error_text(error: &CliError) -> String {
    match error {
        CliError::Reported(diagnostic) => diagnostic.clone(),
        error => format!(
            "pbem: error: {}",
            super::super::escape_controls(&error.to_string())
        ),
    }
}

/// `text` without its terminal colour sequences (`ESC [ ... m`).
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Up to and including the sequence's final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
