//! `pbem status`: the player's games, whose turn it is, and how much time is left; the
//! mails waiting in the outbox; the mails `pbem receive` refused, until dismissed
//! (`pbem dismiss`).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::home::{self, Home};
use super::{CliError, Status};
use crate::clock::{self, PlayerTime};
use crate::correspondence;
use crate::fair::{self, Fairness};
use crate::games::Color;
use crate::notation::Record;
use crate::store::Ledger;

/// Arguments of `pbem status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also list finished games.
    #[arg(long)]
    pub all: bool,
}

/// Arguments of `pbem dismiss`.
#[derive(Debug, clap::Args)]
pub struct DismissArgs {
    /// Dismiss every refused mail listed.
    #[arg(long, conflicts_with = "handles")]
    pub all: bool,
    /// The handles `pbem status` shows for refused mails.
    #[arg(value_name = "HANDLE", required_unless_present = "all")]
    pub handles: Vec<String>,
}

/// Runs `pbem dismiss`.
pub fn dismiss(args: &DismissArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut ledger = Ledger::load(home.games.dir())?;
    let mut dismissed = 0;
    if args.all {
        dismissed = ledger.dismiss(None);
    } else {
        for handle in &args.handles {
            let count = ledger.dismiss(Some(handle.trim()));
            if count == 0 {
                return Err(CliError::Usage(format!(
                    "no refused mail with handle {handle} (`pbem status` lists them)"
                )));
            }
            dismissed += count;
        }
    }
    ledger.save(home.games.dir())?;
    writeln!(
        out,
        "dismissed {dismissed} refused mail{}",
        if dismissed == 1 { "" } else { "s" }
    )?;
    Ok(Status::Ok)
}

/// The outbox and the refused mails, as `pbem status` lists them after the games.
fn mail_lines(home: &Home, out: &mut dyn Write) -> Result<(), CliError> {
    for pending in home.outbox.pending()? {
        writeln!(
            out,
            "outbox: {} (ply {}) to {} waits to be sent (`pbem send --retry`)",
            pending.game_id,
            pending.ply,
            pending.to.join(", ")
        )?;
    }
    let ledger = Ledger::load(home.games.dir())?;
    for entry in ledger.open_refusals() {
        writeln!(
            out,
            "refused mail {} ({}{}, {}): {} (`pbem dismiss {}` once dealt with)",
            entry.handle(),
            entry.file,
            entry
                .game
                .as_deref()
                .map(|game| format!(", game {game}"))
                .unwrap_or_default(),
            entry.at.format("%Y-%m-%d %H:%M UTC"),
            entry.reason,
            entry.handle()
        )?;
    }
    Ok(())
}

/// A game as `pbem status` lists it.
pub struct Listed {
    /// Its file in the games folder.
    pub file: PathBuf,
    /// Whether the file reads as a game (else `line` says why not).
    pub reads: bool,
    /// Its line.
    pub line: String,
}

/// The games `pbem status` lists, each with its file, and how many are overdue.
pub struct Listing {
    /// The games, in the order of their files.
    pub games: Vec<Listed>,
    /// How many of them are overdue.
    pub overdue: usize,
}

/// Runs `pbem status`.
pub fn run(args: &Args, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let listing = listing(args, home, None)?;
    for game in &listing.games {
        writeln!(out, "{}", game.line)?;
    }
    after_games(&listing, args, home, out)?;
    Ok(Status::Ok)
}

/// What `pbem status` prints after the games: that there are none, or how many are
/// overdue, then the outbox and the refused mails.
pub fn after_games(
    listing: &Listing,
    args: &Args,
    home: &Home,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    // A file that does not read is told, but is no game.
    if listing.games.iter().all(|game| !game.reads) {
        writeln!(
            out,
            "no {}games in {}",
            if args.all { "" } else { "running " },
            home.games.dir().display()
        )?;
    } else if listing.overdue > 0 {
        writeln!(
            out,
            "{} game{} overdue",
            listing.overdue,
            if listing.overdue == 1 { "" } else { "s" }
        )?;
    }
    mail_lines(home, out)
}

/// The games `pbem status` lists (the finished ones too with `--all`), or only the game
/// of the file `only`.
pub fn listing(args: &Args, home: &Home, only: Option<&Path>) -> Result<Listing, CliError> {
    let now = home::now()?;
    let me = &home.settings.player.email;
    let mut listing = Listing {
        games: Vec::new(),
        overdue: 0,
    };
    let files = match only {
        Some(file) => vec![file.to_path_buf()],
        None => home.games.list()?,
    };
    for path in files {
        let record = match home.games.load(&path) {
            Ok(record) => record,
            Err(error) => {
                listing.games.push(Listed {
                    file: path,
                    reads: false,
                    line: error.to_string(),
                });
                continue;
            }
        };
        let finished = !matches!(record.tag("Result").map(str::trim), None | Some("*"));
        let id = correspondence::game_id(&record).unwrap_or("?").to_owned();
        let state = home.games.state(&id)?;
        // A finished game is listed while its last mail (the player's result or seed) is
        // not sent.
        if finished && !args.all && !state.last_mail_owed {
            continue;
        }
        let line = match correspondence::state(&record) {
            Err(error) => format!("{id}: {error}"),
            Ok(game) => {
                let you = correspondence::side_of(&record, me);
                let waiting = if finished {
                    None
                } else {
                    correspondence::waiting_since(&game, you, state.received)
                };
                let times = clock::clocks(
                    correspondence::time_control(&record),
                    &game.acts,
                    waiting,
                    now,
                );
                let line = describe(
                    &record,
                    &game,
                    you,
                    finished,
                    &times,
                    waiting.map(|(_, since)| since),
                );
                let mut line = line;
                if finished {
                    if state.last_mail_owed {
                        line.push_str(&format!("; your last mail is not sent yet: pbem send {id}"));
                    }
                    let fairness = fair::check(&record);
                    if fairness != Fairness::NoChance {
                        line.push_str(&format!("; {fairness}"));
                    }
                }
                if !finished && let Some((_, _, hand)) = super::play::own_hand(&record, home) {
                    line.push_str(&format!("; {}", super::play::hand_line(&hand)));
                }
                if !finished && let Some(note) = super::conditional::waiting_note(&record, home) {
                    line.push_str(&format!("; {note}"));
                }
                if !finished && times.iter().any(PlayerTime::overdue) {
                    listing.overdue += 1;
                }
                line
            }
        };
        let line = match (&state.secret, finished) {
            (Some(_), false) if state.allow_typed => {
                format!("{line}; with a secret, typed turns allowed")
            }
            (Some(_), false) => format!(
                "{line}; with a secret, typed turns refused (`pbem allow-typed {id}` allows them)"
            ),
            _ => line,
        };
        listing.games.push(Listed {
            file: path,
            reads: true,
            line,
        });
    }
    Ok(listing)
}

fn describe(
    record: &Record,
    game: &correspondence::State,
    you: Option<Color>,
    finished: bool,
    times: &[PlayerTime; 2],
    since: Option<chrono::DateTime<chrono::Utc>>,
) -> String {
    let id = correspondence::game_id(record).unwrap_or("?");
    let name = |tag: &str| super::escape_controls(record.tag(tag).unwrap_or("?")).into_owned();
    let opponent = match you {
        Some(Color::White) => format!("vs {} (you play White)", name("Black")),
        Some(Color::Black) => format!("vs {} (you play Black)", name("White")),
        None => format!("{} - {}", name("White"), name("Black")),
    };
    let variant = super::escape_controls(record.tag("Variant").unwrap_or("Chess"));
    let mut line = format!("{id}  {opponent}, {variant}");
    if finished {
        line.push_str(&format!(
            ", finished {}",
            record.tag("Result").unwrap_or("?")
        ));
        return line;
    }
    let whose = match game.awaited {
        Some(awaited) if Some(awaited) == you => format!("your {} awaited", game.awaited_part),
        Some(awaited) => format!("{awaited}'s {} awaited", game.awaited_part),
        None if Some(game.to_move) == you => "your turn".to_owned(),
        None => format!("{}'s turn", game.to_move),
    };
    line.push_str(&format!(", move {}, {whose}", game.next_number));
    if let Some(since) = since {
        line.push_str(&format!(" since {}", since.format("%Y-%m-%d %H:%M UTC")));
    }
    if let Some(offer) = correspondence::standing_offer(record) {
        line.push_str(&format!(", {offer} offers a draw"));
    }
    for (color, time) in [(Color::White, &times[0]), (Color::Black, &times[1])] {
        line.push_str(&format!("; {color} used {}", clock::describe(time.used)));
        if let Some(left) = time.left {
            line.push_str(&format!(", left {}", clock::describe(left)));
            if time.overdue() {
                line.push_str(" OVERDUE");
                // The side waiting for an overdue opponent may claim the game.
                if you == Some(color.other()) && game.awaited.unwrap_or(game.to_move) == color {
                    line.push_str(&format!(" (`pbem claim-time {id}` claims the game)"));
                }
            }
        }
    }
    line
}
