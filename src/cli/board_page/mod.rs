//! `pbem play`: a local web server on 127.0.0.1 with the play page, where a player clicks
//! a turn on the board (`crate::board` lists the turns and the places that build them).
//!
//! The server is axum on a current-thread tokio runtime that lives in this command only.
//! Every request must carry the token printed with the address (then a cookie), name this
//! server in its `Host` header (against DNS rebinding) and, when it changes something,
//! come from the page itself (`Origin`); every answer carries a content security policy
//! that allows only the page's own script and style (`security`). A change runs on a
//! blocking thread through exactly the command's path (`pbem move`, `draw`, `resign`,
//! `send`, `sync`), with the home opened, and so locked, for that request alone
//! (`api`). A file that is not a game of the home is played locally (`local`): no mail.

mod api;
mod local;
mod security;

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use super::home::Home;
use super::{CliError, Status};
use crate::render::svg::escape;

/// Arguments of `pbem play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A game of yours (its id, the start of its id, or its file), or any game file to
    /// play locally, both sides, without mail; none lists your games by mail.
    #[arg(value_name = "GAME|FILE")]
    pub game: Option<String>,
    /// Only print the address; do not open a browser.
    #[arg(long)]
    pub no_open: bool,
    /// The port to listen on (default: a free one).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Stop after this many minutes without a request (default: the config's
    /// `play.idle_minutes`, else 30; fractions allowed).
    #[arg(long, value_name = "MINUTES", value_parser = parse_minutes)]
    pub idle: Option<f64>,
}

fn parse_minutes(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|minutes| minutes.is_finite() && *minutes > 0.0)
        .ok_or_else(|| format!("\"{text}\" is not a number of minutes above 0 (as 30, or 0.5)"))
}

/// What the server plays.
#[derive(Clone, Debug)]
enum Target {
    /// The player's games by mail; `Some` when the command named one.
    Home(Option<String>),
    /// A game file played locally (no mail).
    Local(PathBuf),
}

/// What every request shares.
struct Shared {
    /// `--config`.
    config: Option<PathBuf>,
    target: Target,
    /// The secret the address carries.
    token: String,
    port: u16,
    /// When the server started, and the milliseconds since then of the last request.
    started: Instant,
    last_request: AtomicU64,
    /// Local play has no data lock: its changes are taken one at a time here.
    local_lock: std::sync::Mutex<()>,
}

type App = Arc<Shared>;

/// The id under which a local file's game is served.
const LOCAL: &str = "local";

/// Runs `pbem play`.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    let (target, idle_minutes) = target(args, config)?;
    let idle = Duration::from_secs_f64(60.0 * args.idle.unwrap_or(f64::from(idle_minutes)));
    let token = hex::encode(crate::desk::random_bytes(24)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| CliError::Usage(format!("cannot start the server: {error}")))?;
    runtime.block_on(async move {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port.unwrap_or(0)));
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|error| {
                CliError::Usage(format!(
                    "cannot listen on {address}: {error} (another port: `pbem play --port N`, or leave --port out for a free one)"
                ))
            })?;
        let port = listener
            .local_addr()
            .map_err(|error| CliError::Usage(format!("cannot listen on {address}: {error}")))?
            .port();
        let shared = Arc::new(Shared {
            config: config.map(Path::to_path_buf),
            target,
            token,
            port,
            started: Instant::now(),
            last_request: AtomicU64::new(0),
            local_lock: std::sync::Mutex::new(()),
        });
        let url = format!("http://127.0.0.1:{port}/?token={}", shared.token);
        writeln!(out, "pbem play: open {url}")?;
        out.flush()?;
        if !args.no_open {
            open_browser(&url);
        }
        let stopped = Arc::new(std::sync::Mutex::new(String::new()));
        let why = Arc::clone(&stopped);
        let watched = Arc::clone(&shared);
        axum::serve(listener, router(Arc::clone(&shared)))
            .with_graceful_shutdown(async move {
                let reason = tokio::select! {
                    _ = tokio::signal::ctrl_c() => "stopped (Ctrl-C)".to_owned(),
                    () = idle_for(&watched, idle) => format!(
                        "stopped after {} without a request",
                        minutes(idle)
                    ),
                };
                if let Ok(mut why) = why.lock() {
                    *why = reason;
                }
            })
            .await
            .map_err(|error| CliError::Usage(format!("the server failed: {error}")))?;
        let reason = stopped.lock().map(|why| why.clone()).unwrap_or_default();
        writeln!(out, "pbem play: {reason}")?;
        Ok(Status::Ok)
    })
}

/// "30 minutes", "1 minute", "0.05 minutes".
fn minutes(idle: Duration) -> String {
    let minutes = idle.as_secs_f64() / 60.0;
    if (minutes - 1.0).abs() < f64::EPSILON {
        "1 minute".to_owned()
    } else {
        format!("{minutes} minutes")
    }
}

/// Resolves once no request has come for `idle`.
async fn idle_for(shared: &Shared, idle: Duration) {
    loop {
        let last = Duration::from_millis(shared.last_request.load(Ordering::Relaxed));
        let quiet = shared.started.elapsed().saturating_sub(last);
        if quiet >= idle {
            return;
        }
        tokio::time::sleep(idle - quiet).await;
    }
}

/// What `pbem play GAME|FILE` plays, and the idle time of the config (30 minutes without
/// one). A game of the home is played by mail; any other file locally.
fn target(args: &Args, config: Option<&Path>) -> Result<(Target, u32), CliError> {
    let home = match (&args.game, Home::load(config)) {
        (_, Ok(home)) => Some(home),
        // A file to play locally needs no config (and one that cannot be played is told
        // as such by `local::load`).
        (Some(game), Err(_)) if Path::new(game).exists() => None,
        (Some(game), Err(_)) if crate::store::looks_like_a_path(game) => {
            return Err(crate::store::StoreError::NoFile(game.clone()).into());
        }
        (_, Err(error)) => return Err(error.into()),
    };
    let idle = home
        .as_ref()
        .map_or(30, |home| home.settings.play.idle_minutes);
    let Some(game) = &args.game else {
        return Ok((Target::Home(None), idle));
    };
    if let Some(home) = &home {
        match home.games.find(game) {
            Ok(path) if in_folder(&path, home.games.dir()) => {
                let record = home.games.load(&path)?;
                let id = crate::desk::home::game_id_of(&record, &path)?;
                return Ok((Target::Home(Some(id)), idle));
            }
            Ok(_) => {}
            Err(error) if !Path::new(game).exists() => return Err(error.into()),
            Err(_) => {}
        }
    }
    // A file that cannot be played is told now, not on the page.
    local::load(Path::new(game))?;
    Ok((Target::Local(PathBuf::from(game)), idle))
}

/// Whether `path` is a file of `folder`.
fn in_folder(path: &Path, folder: &Path) -> bool {
    let real = |path: &Path| std::fs::canonicalize(path).ok();
    match (path.parent().and_then(real), real(folder)) {
        (Some(parent), Some(folder)) => parent == folder,
        _ => false,
    }
}

/// Opens `url` in the system browser (`$BROWSER`, else `xdg-open` or `open`), saying what
/// to do when there is none.
fn open_browser(url: &str) {
    let browser = std::env::var("BROWSER").ok().and_then(|value| {
        value
            .split(':')
            .map(str::trim)
            .find(|entry| !entry.is_empty())
            .map(str::to_owned)
    });
    let (program, arguments): (String, Vec<String>) = match &browser {
        Some(command) => {
            let mut words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
            let program = words.remove(0);
            if words.iter().any(|word| word.contains("%s")) {
                for word in &mut words {
                    *word = word.replace("%s", url);
                }
            } else {
                words.push(url.to_owned());
            }
            (program, words)
        }
        None if cfg!(target_os = "macos") => ("open".to_owned(), vec![url.to_owned()]),
        None => ("xdg-open".to_owned(), vec![url.to_owned()]),
    };
    let failed = move |program: &str, why: String| {
        eprintln!("pbem play: no browser opened ({program}: {why}): open the address above");
    };
    match std::process::Command::new(&program)
        .args(&arguments)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Err(error) => failed(&program, error.to_string()),
        Ok(mut child) => {
            std::thread::spawn(move || match child.wait() {
                Ok(status) if !status.success() => failed(&program, status.to_string()),
                Err(error) => failed(&program, error.to_string()),
                Ok(_) => {}
            });
        }
    }
}

fn router(shared: App) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/game/{id}", get(page))
        .route("/page.js", get(script))
        .route("/page.css", get(style))
        .route("/api/game/{id}", get(api::view))
        .route("/api/game/{id}/{action}", post(api::act))
        .route("/api/sync", post(api::sync))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&shared),
            security::guard,
        ))
        .with_state(shared)
}

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_JS: &str = include_str!("page.js");
const PAGE_CSS: &str = include_str!("page.css");

/// `/`: the game of the command line, or the list of the player's games.
async fn index(State(shared): State<App>) -> Response {
    match &shared.target {
        Target::Local(_) => Redirect::to(&format!("/game/{LOCAL}")).into_response(),
        Target::Home(Some(id)) => Redirect::to(&format!("/game/{id}")).into_response(),
        Target::Home(None) => {
            let config = shared.config.clone();
            match tokio::task::spawn_blocking(move || games_page(config.as_deref())).await {
                Ok(Ok(html)) => Html(html).into_response(),
                Ok(Err(error)) => {
                    (StatusCode::INTERNAL_SERVER_ERROR, api::error_text(&error)).into_response()
                }
                Err(error) => {
                    (StatusCode::INTERNAL_SERVER_ERROR, error.to_string()).into_response()
                }
            }
        }
    }
}

/// The player's games as `pbem status` lists them, each game a link to its page, and a
/// Sync button (`page.js`: `pbem sync`, then the list again), since the first mail of a
/// game the opponent started has no page yet.
fn games_page(config: Option<&Path>) -> Result<String, CliError> {
    let home = Home::load(config)?;
    let args = super::status::Args { all: false };
    let listing = super::status::listing(&args, &home, None)?;
    let mut items = String::new();
    for game in &listing.games {
        // A game's page is named by its file (`/game/ID` serves `ID.pgn`).
        let id = game
            .file
            .file_stem()
            .and_then(|stem| stem.to_str())
            .filter(|_| game.reads);
        items.push_str(&match id {
            Some(id) => format!(
                "<li><a data-game=\"{id}\" href=\"/game/{id}\">{}</a></li>\n",
                escape(&game.line)
            ),
            None => format!("<li>{}</li>\n", escape(&game.line)),
        });
    }
    let mut after = Vec::new();
    super::status::after_games(&listing, &args, &home, &mut after)?;
    for line in String::from_utf8_lossy(&after).lines() {
        items.push_str(&format!("<li>{}</li>\n", escape(line)));
    }
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>pbem: your games</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/page.css\">\n\
         <script src=\"/page.js\" defer></script>\n</head>\n\
         <body>\n<h1>Your games</h1>\n<ul id=\"games\">\n{items}</ul>\n\
         <div id=\"actions\"><button type=\"button\" id=\"sync\">Sync</button></div>\n\
         <pre id=\"messages\"></pre>\n</body>\n</html>\n"
    ))
}

/// `/game/ID`: the play page (its script reads the game from the address).
async fn page(UrlPath(_id): UrlPath<String>) -> Html<&'static str> {
    Html(PAGE_HTML)
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        PAGE_JS,
    )
}

async fn style() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        PAGE_CSS,
    )
}
