//! `pbem if` (a game's conditional lines) and `pbem book` (opening books), and the step
//! `receive` and `sync` take once the opponent's mails are in: a reply the tree or a book
//! gives is played through `pbem move`'s own path and its mail put in the outbox.
//!
//! Trees live in the games folder's `conditional/` (one YAML file a game), books in its
//! `books/`: in the player's home, never in a record or a mail.
//!
//! Crash safety: before a reply is played the tree is saved with a marker (the number of
//! turns before the reply); the reply is committed by `pbem move`'s journal, its mail put
//! in the outbox, and only then the marker cleared. [`repair`], which runs at every
//! start before anything is sent, finds a marker left by a killed pbem: if the reply is
//! in the game and its mail is not waiting in the outbox, the mail is put there now;
//! either way the marker goes. The tree matches whole histories, so a reply already
//! played is never played again.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::home::Home;
use super::mail::SendArgs;
use super::play::{MoveArgs, Side};
use super::{CliError, Status, parse_variant};
use crate::conditional::{self, Book, Tree};
use crate::correspondence;
use crate::games::{Color, Variant};
use crate::notation::{Record, TurnNode, parse_record};

/// Arguments of `pbem if`.
#[derive(Debug, clap::Args)]
pub struct IfArgs {
    /// The game: its file, its id, or the start of its id.
    #[arg(value_name = "GAME")]
    pub game: String,
    /// Lines to add, each one argument: your opponent's next turn, your reply, their
    /// turn after it, and so on (`"12... Nf6 13. e5 Nd5 14. c4"`).
    #[arg(value_name = "LINE", conflicts_with = "clear")]
    pub lines: Vec<String>,
    /// Add the lines of a PGN with variations (its movetext starts with your
    /// opponent's next turn).
    #[arg(long, value_name = "FILE", conflicts_with = "clear")]
    pub file: Option<PathBuf>,
    /// Drop the game's conditional lines.
    #[arg(long)]
    pub clear: bool,
}

/// `pbem book`'s commands.
#[derive(Debug, clap::Subcommand)]
pub enum BookCommand {
    /// Keep a PGN with variations as a book.
    #[command(after_help = "\
Examples:
  pbem book add najdorf.pgn --as black
  pbem book add ruy.pgn --name ruy --as white --variant Chess
  pbem book add attempts.pgn --variant wickets --decision cards --as black")]
    Add(BookAddArgs),
    /// List the books.
    #[command(after_help = "\
Examples:
  pbem book list")]
    List,
    /// Remove a book.
    #[command(after_help = "\
Examples:
  pbem book remove najdorf")]
    Remove(BookRemoveArgs),
}

/// Arguments of `pbem book add`.
#[derive(Debug, clap::Args)]
pub struct BookAddArgs {
    /// The repertoire: a PGN file whose games (with their variations) start from the
    /// game's start.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The game the book is for (else the file's `[Variant]` tag, else Chess).
    #[arg(long, value_name = "NAME", value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The side the book plays (White unless `--as black`).
    #[arg(long = "as", value_enum, value_name = "SIDE")]
    pub side: Option<Side>,
    /// Chess with wickets: the decision mode of the games the book plays in (else the
    /// file's `[Decision]` tag, else Deterministic), as `pbem new --decision` takes it.
    #[arg(long, value_name = "MODE")]
    pub decision: Option<String>,
    /// The book's name (else the file's name without `.pgn`).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
}

/// Arguments of `pbem book remove`.
#[derive(Debug, clap::Args)]
pub struct BookRemoveArgs {
    /// The book's name, as `pbem book list` shows it.
    #[arg(value_name = "NAME")]
    pub name: String,
}

/// Runs `pbem if`.
pub fn run_if(args: &IfArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let (path, record, id) = home.game(&args.game)?;
    let you = correspondence::side_of(&record, &home.settings.player.email).ok_or_else(|| {
        CliError::Usage(format!(
            "{}: you ({}) do not play in this game",
            path.display(),
            home.settings.player.email
        ))
    })?;
    let history = conditional::history(&record);
    let variant = crate::replay::variant_of(&record).map_err(|name| {
        CliError::Usage(format!(
            "{}: unsupported variant \"{name}\"",
            path.display()
        ))
    })?;
    if args.clear {
        // Also the mend of a tree file that does not read: it goes unread.
        let dropped = load_tree(home, &id).map_or_else(
            |_| "its conditional lines file, which did not read, is".to_owned(),
            |tree| lines_word(tree.lines.len()),
        );
        save_tree(home, &id, &Tree::default())?;
        writeln!(out, "{id}: {dropped} dropped")?;
        return Ok(Status::Ok);
    }
    let mut tree = load_tree(home, &id)?;
    // Lines the game has left are of no use any more.
    tree.lines = conditional::prune(variant, &tree.lines, &history).kept;
    let mut typed: Vec<(String, Vec<String>)> = args
        .lines
        .iter()
        .map(|line| (line.clone(), conditional::read_line(line)))
        .collect();
    if let Some(file) = &args.file {
        typed.extend(lines_in_file(file)?);
    }
    if typed.is_empty() {
        list(&record, &id, &tree, &history, you, out)?;
        return Ok(Status::Ok);
    }
    let game = correspondence::state(&record)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    let open = record
        .tag("Result")
        .is_none_or(|result| result.trim() == "*");
    if !open {
        return Err(CliError::Usage(format!("{id}: the game is over")));
    }
    match game.awaited {
        // A line then starts with the part awaited (their card), or goes on from the
        // roll on each roll's branch.
        Some(side) if side != you => {}
        Some(_) => {
            return Err(CliError::Usage(format!(
                "{id}: the last turn awaits your card: play it first (`pbem legal {id}` lists them), then add lines that start with your opponent's next turn"
            )));
        }
        None if game.to_move == you => {
            return Err(CliError::Usage(format!(
                "{id}: it is your turn: play it first (`pbem move {id} TURN`), then add lines that start with your opponent's reply"
            )));
        }
        None => {}
    }
    let mine = sides(&record, you);
    let mut added = 0;
    for (text, tokens) in typed {
        if tokens.len() < 2 {
            return Err(CliError::Invalid(format!(
                "{id}: the line \"{text}\" needs your opponent's turn and your reply to it; nothing was added"
            )));
        }
        let branches = conditional::extend(&record, &tokens).map_err(|error| {
            CliError::Invalid(format!(
                "{id}: the line \"{text}\": {error}; nothing was added"
            ))
        })?;
        for whole in branches {
            if conditional::waiting(variant, std::slice::from_ref(&whole), &history, &mine) == 0 {
                return Err(CliError::Invalid(format!(
                    "{id}: the line \"{text}\" has no reply of yours: write your opponent's {} and your reply to it; nothing was added",
                    if game.awaited.is_some() {
                        format!("{} and next turn", game.awaited_part)
                    } else {
                        "turn".to_owned()
                    }
                )));
            }
            if let Some(at) = conditional::conflict(variant, &tree.lines, &whole, &mine) {
                let other = tree
                    .lines
                    .iter()
                    .find(|line| line.len() > at && line[..at] == whole[..at])
                    .map_or("", |line| line[at].as_str());
                return Err(CliError::Invalid(format!(
                    "{id}: the line \"{text}\" answers with {} where your lines answer with {other} (one reply to each turn): `pbem if {id}` lists them, `pbem if {id} --clear` drops them; nothing was added",
                    label(&record, &whole, at)
                )));
            }
            if !tree.lines.iter().any(|line| line.starts_with(&whole)) {
                tree.lines.retain(|line| !whole.starts_with(line));
                tree.lines.push(whole);
                added += 1;
            }
        }
    }
    save_tree(home, &id, &tree)?;
    writeln!(out, "{id}: {} added", lines_word(added))?;
    list(&record, &id, &tree, &history, you, out)?;
    Ok(Status::Ok)
}

/// Runs `pbem book`.
pub fn run_book(
    command: &BookCommand,
    home: &Home,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let dir = books_dir(home);
    match command {
        BookCommand::Add(args) => add_book(args, &dir, out),
        BookCommand::List => {
            let books = load_books(home);
            if books.is_empty() {
                writeln!(
                    out,
                    "no books in {} (`pbem book add FILE.pgn` adds one)",
                    dir.display()
                )?;
            }
            for (name, book) in books {
                match book {
                    Ok(book) => writeln!(
                        out,
                        "{name}: {}, plays {}, {}",
                        played_in(&book),
                        book.side,
                        lines_word(book.lines.len())
                    )?,
                    Err(error) => writeln!(out, "{name}: not used: {error}")?,
                }
            }
            Ok(Status::Ok)
        }
        BookCommand::Remove(args) => {
            let path = dir.join(format!("{}.yaml", book_name(&args.name)?));
            match std::fs::remove_file(&path) {
                Ok(()) => {
                    writeln!(out, "book {} removed", args.name)?;
                    Ok(Status::Ok)
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(CliError::Usage(
                    format!("no book named {} (`pbem book list` lists them)", args.name),
                )),
                Err(source) => Err(CliError::Io {
                    path: path.display().to_string(),
                    source,
                }),
            }
        }
    }
}

fn add_book(args: &BookAddArgs, dir: &Path, out: &mut dyn Write) -> Result<Status, CliError> {
    let shown = args.file.display().to_string();
    let text = super::input::read_text(&args.file)?.text;
    let stem = args
        .file
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("book");
    let name = book_name(args.name.as_deref().unwrap_or(stem))?;
    let side = match args.side.unwrap_or(Side::White) {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let mut book: Option<Book> = None;
    for (number, game) in crate::notation::read_str(&text).enumerate() {
        let mut game = game
            .map_err(|error| CliError::Invalid(format!("{shown}: game {}: {error}", number + 1)))?;
        if let Some(variant) = args.variant {
            game.set_tag("Variant", variant.name());
        }
        let variant = crate::replay::variant_of(&game).map_err(|name| {
            CliError::Invalid(format!("{shown}: unsupported variant \"{name}\""))
        })?;
        if let Some(decision) = &args.decision {
            if variant != Variant::ChessWithWickets {
                return Err(CliError::Usage(format!(
                    "--decision is for Chess with wickets, not {} (`--variant wickets`)",
                    variant.name()
                )));
            }
            let mode = crate::games::wickets::DecisionMode::from_name(decision)
                .map_err(|error| CliError::Usage(format!("--decision: {}", error.message)))?;
            game.set_tag("Decision", mode.name());
        }
        let (start, first) = conditional::start_of(&game).ok_or_else(|| {
            CliError::Invalid(format!(
                "{shown}: game {}: its start does not read",
                number + 1
            ))
        })?;
        let lines = conditional::lines_of(&game.moves);
        let mut empty = game.clone();
        empty.moves.turns.clear();
        let book = book.get_or_insert_with(|| Book {
            variant: variant.name().to_owned(),
            side: side.name().to_owned(),
            start: start.clone(),
            mode: conditional::mode_of(&game).map(str::to_owned),
            lines: Vec::new(),
        });
        if book.variant != variant.name() || book.start != start {
            return Err(CliError::Invalid(format!(
                "{shown}: game {} is of another game or start than the first: a book is one variant from one start",
                number + 1
            )));
        }
        for line in lines {
            let branches = conditional::extend(&empty, &line).map_err(|error| {
                CliError::Invalid(format!(
                    "{shown}: game {}, the line \"{}\": {error}; no book was added",
                    number + 1,
                    line.join(" ")
                ))
            })?;
            let mine = |at: usize| at.is_multiple_of(2) == (side == first);
            for whole in branches {
                if let Some(at) = conditional::conflict(variant, &book.lines, &whole, mine) {
                    return Err(CliError::Invalid(format!(
                        "{shown}: game {}: the line \"{}\" gives another reply than an earlier line at its turn {} (a book gives one reply to each turn); no book was added",
                        number + 1,
                        line.join(" "),
                        at + 1
                    )));
                }
                book.lines.push(whole);
            }
        }
    }
    let Some(book) = book.filter(|book| !book.lines.is_empty()) else {
        return Err(CliError::Invalid(format!("{shown}: no lines in it")));
    };
    let yaml = serde_yaml::to_string(&book).map_err(|error| CliError::Usage(error.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let path = dir.join(format!("{name}.yaml"));
    crate::store::write_private(&path, yaml.as_bytes()).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })?;
    writeln!(
        out,
        "book {name}: {} of {} for {} (kept in {}; never mailed)",
        lines_word(book.lines.len()),
        played_in(&book),
        book.side,
        path.display()
    )?;
    Ok(Status::Ok)
}

/// What a mail brought is in: in every game where the opponent acted last and the tree
/// (or else a book) answers their turn, plays the reply as `pbem move` does, puts its
/// mail in the outbox and says so; drops the lines the game has left and says so. With
/// `send`, sends the outbox afterwards (`pbem sync`).
pub fn answer(home: &Home, out: &mut dyn Write, send: bool) -> Result<(), CliError> {
    // A book that does not read is left out (and said), the others answer.
    let mut books = Vec::new();
    for (name, book) in load_books(home) {
        match book {
            Ok(book) => books.push((name, book)),
            Err(error) => writeln!(out, "book {name} is not used: {error}")?,
        }
    }
    let mut played = 0;
    for path in home.games.list()? {
        let Ok(record) = home.games.load(&path) else {
            continue;
        };
        let Some(id) = correspondence::game_id(&record).map(str::to_owned) else {
            continue;
        };
        // A tree that does not read is left out: every start's repair says so.
        let Ok(mut tree) = load_tree(home, &id) else {
            continue;
        };
        if tree.lines.is_empty() && books.is_empty() {
            continue;
        }
        let Some(you) = correspondence::side_of(&record, &home.settings.player.email) else {
            continue;
        };
        if !answers_now(&record, you) {
            continue;
        }
        let Ok(variant) = crate::replay::variant_of(&record) else {
            continue;
        };
        let start = conditional::start_of(&record).map(|(start, _)| start);
        let mut record = record;
        // A reply, then (a card answered, the attempt decided) the player's next turn.
        for first in [true].into_iter().chain(std::iter::repeat(false)) {
            let history = conditional::history(&record);
            let pruned = conditional::prune(variant, &tree.lines, &history);
            if first && pruned.dropped > 0 {
                dropped_note(&record, &id, &history, &pruned, out)?;
            }
            tree.lines = pruned.kept;
            // A book's reply refused here is not given again; refusals of the past go.
            let refusals = tree.refused.len();
            tree.refused
                .retain(|refused| refused.split_last().is_some_and(|(_, at)| at == history));
            let stale = tree.refused.len() < refusals;
            let book = || {
                books.iter().find_map(|(name, book)| {
                    let plays = start
                        .as_deref()
                        .is_some_and(|start| book.plays(variant, you, start));
                    plays
                        .then(|| conditional::reply(variant, &book.lines, &history))
                        .flatten()
                        .filter(|reply| !tree.was_refused(&history, reply))
                        .map(|reply| (reply, format!("book {name}'s reply")))
                })
            };
            let Some((reply, from)) = conditional::reply(variant, &tree.lines, &history)
                .map(|reply| (reply, "conditional reply".to_owned()))
                .or_else(book)
            else {
                if pruned.dropped > 0 || stale {
                    save_tree(home, &id, &tree)?;
                }
                break;
            };
            tree.playing = Some(history.len());
            tree.playing_last = history.last().cloned();
            save_tree(home, &id, &tree)?;
            // pbem draws a Dice attempt's roll: the line's roll is the branch it is on.
            let turn = if crate::fair::uses_dice(&record) {
                crate::fair::as_typed(&reply)
            } else {
                reply.clone()
            };
            let args = MoveArgs {
                game: id.clone(),
                turn: turn.clone(),
                offer_draw: false,
                leave: 0,
            };
            let awaited = correspondence::state(&record).is_ok_and(|game| game.awaited.is_some());
            // A part as the player types it: the card alone (`S5`), `-` for a decline.
            let shown = if awaited {
                turn.trim_start_matches('_').trim_start_matches('c')
            } else {
                turn.as_str()
            };
            if let Err(error) = super::play::make_move(&args, home, &mut Vec::new()) {
                // Never played: the lines that give it go; a book's is not given again here.
                let given = tree.lines.len();
                tree.lines.retain(|line| {
                    conditional::reply(variant, std::slice::from_ref(line), &history).as_ref()
                        != Some(&reply)
                });
                if tree.lines.len() == given {
                    tree.refused
                        .push([history.as_slice(), std::slice::from_ref(&reply)].concat());
                }
                tree.playing = None;
                tree.playing_last = None;
                save_tree(home, &id, &tree)?;
                let reason = error.to_string();
                writeln!(
                    out,
                    "{id}: your {from} {shown} is not legal now and was not played ({}); {}",
                    reason.lines().next().unwrap_or_default().trim(),
                    if awaited {
                        format!(
                            "your card is awaited: pbem move {id} CARD (`pbem legal {id}` lists them)"
                        )
                    } else {
                        format!("it is your turn: pbem move {id} TURN")
                    }
                )?;
                break;
            }
            crate::store::hook::pause_at("conditional");
            let after = home.games.load(&path)?;
            let ply = after.moves.turns.len();
            mail_reply(home, &id, ply)?;
            tree.playing = None;
            tree.playing_last = None;
            tree.lines =
                conditional::prune(variant, &tree.lines, &conditional::history(&after)).kept;
            save_tree(home, &id, &tree)?;
            let label = correspondence::turn_label(&after, ply - 1).unwrap_or_else(|| turn.clone());
            if ply == history.len() {
                writeln!(out, "{id}: played your {from} {} in {label}", shown)?;
            } else {
                writeln!(out, "{id}: played your {from} {label}")?;
            }
            played += 1;
            if !acts_now(&after, you) {
                break;
            }
            record = after;
        }
    }
    if played == 0 {
        return Ok(());
    }
    if send {
        let retry = SendArgs {
            dry_run: None,
            retry: true,
            refusal: None,
            game: None,
        };
        super::mail::send(&retry, home, out)?;
    } else {
        writeln!(
            out,
            "the repl{} wait{} in the outbox: `pbem send --retry` (or `pbem sync`) sends {}",
            if played == 1 { "y" } else { "ies" },
            if played == 1 { "s" } else { "" },
            if played == 1 { "it" } else { "them" }
        )?;
    }
    Ok(())
}

/// Finishes what a killed pbem left of a conditional reply (see the module's text): the
/// reply's mail is put in the outbox once, unless it waits there already.
pub fn repair(home: &Home) -> Result<(), CliError> {
    for (id, _) in yaml_files(&trees_dir(home)) {
        let mut tree = match load_tree(home, &id) {
            Ok(tree) => tree,
            Err(error) => {
                eprintln!("pbem: warning: {error}; its lines are not played");
                continue;
            }
        };
        let Some(before) = tree.playing else {
            continue;
        };
        let game_path = home.games.path(&id)?;
        let record = home.games.load(&game_path)?;
        let ply = record.moves.turns.len();
        let waiting = home
            .outbox
            .pending()?
            .iter()
            .any(|pending| pending.game_id == id && pending.ply as usize == ply);
        // A card answered completes the last turn: the ply stays, its token changes.
        let played = ply > before
            || (ply == before
                && conditional::history(&record).last() != tree.playing_last.as_ref());
        if played && !waiting {
            mail_reply(home, &id, ply)?;
            eprintln!(
                "pbem: {id}: the conditional reply an interrupted pbem played waits in the outbox now; `pbem send --retry` (or `pbem sync`) sends it"
            );
        }
        tree.playing = None;
        tree.playing_last = None;
        if let Ok(variant) = crate::replay::variant_of(&record) {
            tree.lines =
                conditional::prune(variant, &tree.lines, &conditional::history(&record)).kept;
        }
        save_tree(home, &id, &tree)?;
    }
    Ok(())
}

/// What `pbem status` adds for a running game: how many conditional replies wait.
pub fn waiting_note(record: &Record, home: &Home) -> Option<String> {
    let id = correspondence::game_id(record)?;
    let you = correspondence::side_of(record, &home.settings.player.email)?;
    let tree = load_tree(home, id).ok()?;
    let history = conditional::history(record);
    let variant = crate::replay::variant_of(record).ok()?;
    let count = conditional::waiting(variant, &tree.lines, &history, sides(record, you));
    (count > 0).then(|| {
        format!(
            "{count} conditional repl{} wait{} (`pbem if {id}` lists them)",
            if count == 1 { "y" } else { "ies" },
            if count == 1 { "s" } else { "" }
        )
    })
}

/// Whether the game waits for the player's act (a turn, or the card the last turn
/// awaits) after one of the opponent's, which a conditional reply may answer: the
/// opponent acted last, or the opponent made the last turn and the player's last act
/// was a part that completed it (a card in answer, played by a line that goes on with
/// the player's next turn, by hand or by a pbem killed before it played that turn).
fn answers_now(record: &Record, you: Color) -> bool {
    let Ok(game) = correspondence::state(record) else {
        return false;
    };
    let answered_their_turn = game.turns.last().is_some_and(|(side, _)| *side != you)
        && game
            .acts
            .last()
            .is_some_and(|act| act.part && act.color == you);
    // A conditional move is a reply: the player's first turn is their own to play.
    !record.moves.turns.is_empty()
        && acts_now(record, you)
        && match correspondence::last_actor(record, &game.turns) {
            Some(side) if side == you => answered_their_turn,
            side => side.is_some(),
        }
}

/// Whether the game is open and waits for the player: its turn, or its card.
fn acts_now(record: &Record, you: Color) -> bool {
    let open = record
        .tag("Result")
        .is_none_or(|result| result.trim() == "*");
    let Ok(game) = correspondence::state(record) else {
        return false;
    };
    open && match game.awaited {
        Some(side) => side == you,
        None => game.to_move == you,
    }
}

/// Whether the turn at an index of a line from this game is `you`'s: the record's turns
/// by who made them, the line's after them every other one.
fn sides(record: &Record, you: Color) -> impl Fn(usize) -> bool + use<> {
    let game = correspondence::state(record).ok();
    let made: Vec<Color> = game
        .as_ref()
        .map(|game| game.turns.iter().map(|(side, _)| *side).collect())
        .unwrap_or_default();
    let first = game.map_or(Color::White, |game| game.to_move);
    move |at: usize| {
        let side = match (made.get(at), made.last()) {
            (Some(side), _) => *side,
            (None, Some(last)) if (at - made.len()).is_multiple_of(2) => last.other(),
            (None, Some(last)) => *last,
            (None, None) if at.is_multiple_of(2) => first,
            (None, None) => first.other(),
        };
        side == you
    }
}

/// Tells the player which of a game's lines the history has left.
fn dropped_note(
    record: &Record,
    id: &str,
    history: &[String],
    pruned: &conditional::Pruned,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let expected: Vec<String> = pruned
        .expected
        .iter()
        .map(|(at, token)| {
            label(
                record,
                &[&history[..*at], std::slice::from_ref(token)].concat(),
                *at,
            )
        })
        .collect();
    writeln!(
        out,
        "{id}: {} no longer match{} the game and {} dropped{}",
        lines_word(pruned.dropped),
        if pruned.dropped == 1 { "es" } else { "" },
        if pruned.dropped == 1 { "is" } else { "are" },
        if expected.is_empty() {
            String::new()
        } else {
            format!(
                " (the game went {} where they expected {})",
                label(record, history, history.len() - 1),
                expected.join(" or ")
            )
        }
    )?;
    Ok(())
}

/// Puts the mail of the game's current state (the reply just played, `ply` turns) in the
/// outbox, composed as `pbem send` composes it.
fn mail_reply(home: &Home, id: &str, ply: usize) -> Result<(), CliError> {
    let dir = trees_dir(home).join("mail");
    let compose = SendArgs {
        dry_run: Some(dir.clone()),
        retry: false,
        refusal: None,
        game: Some(id.to_owned()),
    };
    super::mail::send(&compose, home, &mut Vec::new())?;
    let file = dir.join(format!("{id}.{ply}.eml"));
    let io = |source| CliError::Io {
        path: file.display().to_string(),
        source,
    };
    let bytes = std::fs::read(&file).map_err(io)?;
    let (from, to) = crate::mail::envelope_of(&bytes).ok_or_else(|| {
        CliError::Usage(format!(
            "{}: the reply's mail has no addresses",
            file.display()
        ))
    })?;
    let ply = u32::try_from(ply).unwrap_or(u32::MAX);
    home.outbox.put(id, ply, &from, &to, &bytes)?;
    std::fs::remove_file(&file).map_err(io)?;
    Ok(())
}

/// Prints the lines of the tree from the current position on.
fn list(
    record: &Record,
    id: &str,
    tree: &Tree,
    history: &[String],
    you: Color,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    if tree.lines.is_empty() {
        writeln!(
            out,
            "{id}: no conditional lines (add one: pbem if {id} \"THEIR-TURN YOUR-REPLY ...\")"
        )?;
        return Ok(());
    }
    writeln!(out, "{id}: your conditional lines, as {you}:")?;
    for line in &tree.lines {
        let mut words = Vec::new();
        // The last turn still awaiting a part (a card, a roll): the line's, completed.
        let first = match history.len().checked_sub(1) {
            Some(last) if line.get(last) != history.get(last) => last,
            _ => history.len(),
        };
        for at in first..line.len() {
            let label = label(record, line, at);
            let number_first = at == first || !label.contains("...");
            words.push(if number_first {
                label
            } else {
                line[at].clone()
            });
        }
        writeln!(out, "  {}", words.join(" "))?;
    }
    Ok(())
}

/// The turn `line[at]` with its number, as a reader writes it (`13... Nd5`).
fn label(record: &Record, line: &[String], at: usize) -> String {
    let mut numbered = record.clone();
    numbered.moves.turns = line[..=at].iter().map(TurnNode::new).collect();
    correspondence::turn_label(&numbered, at).unwrap_or_else(|| line[at].clone())
}

/// The lines of a PGN with variations, each with its text for messages.
fn lines_in_file(file: &Path) -> Result<Vec<(String, Vec<String>)>, CliError> {
    let shown = file.display().to_string();
    let text = super::input::read_text(file)?.text;
    let record = parse_record(&text).map_err(|error| {
        CliError::Invalid(format!(
            "{shown}:{}:{}: {}; nothing was added",
            error.span.line, error.span.column, error.message
        ))
    })?;
    Ok(conditional::lines_of(&record.moves)
        .into_iter()
        .map(|line| (format!("{shown}: {}", line.join(" ")), line))
        .collect())
}

/// The games a book plays in: its variant, and its mode where the variant has modes
/// (`Chess with wickets (Cards)`).
fn played_in(book: &Book) -> String {
    match &book.mode {
        Some(mode) => format!("{} ({mode})", book.variant),
        None => book.variant.clone(),
    }
}

fn lines_word(count: usize) -> String {
    format!(
        "{count} conditional line{}",
        if count == 1 { "" } else { "s" }
    )
}

fn trees_dir(home: &Home) -> PathBuf {
    home.games.dir().join("conditional")
}

fn books_dir(home: &Home) -> PathBuf {
    home.games.dir().join("books")
}

/// A book's name as a file name: letters, digits, `.`, `_`, `-`.
fn book_name(name: &str) -> Result<String, CliError> {
    let name = name.trim();
    if name.is_empty()
        || name.starts_with('.')
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    {
        return Err(CliError::Usage(format!(
            "\"{name}\" cannot name a book: use letters, digits, '.', '_' and '-' (`--name NAME`)"
        )));
    }
    Ok(name.to_owned())
}

/// A game's tree (empty when it has none). One that does not read (not UTF-8, not the
/// tree's YAML, not a file) is an error that names the file and the command that drops it.
fn load_tree(home: &Home, id: &str) -> Result<Tree, CliError> {
    let path = trees_dir(home).join(format!("{id}.yaml"));
    let cause = match std::fs::read_to_string(&path) {
        Ok(text) => match serde_yaml::from_str(&text) {
            Ok(tree) => return Ok(tree),
            Err(error) => error.to_string(),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Tree::default());
        }
        Err(error) => error.to_string(),
    };
    Err(CliError::Usage(format!(
        "{}: {cause} (`pbem if {id} --clear` drops the game's conditional lines)",
        path.display()
    )))
}

fn save_tree(home: &Home, id: &str, tree: &Tree) -> Result<(), CliError> {
    let dir = trees_dir(home);
    let path = dir.join(format!("{id}.yaml"));
    let io = |source| CliError::Io {
        path: path.display().to_string(),
        source,
    };
    if tree.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io(error)),
            _ => Ok(()),
        };
    }
    std::fs::create_dir_all(&dir).map_err(|source| CliError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let yaml = serde_yaml::to_string(tree).map_err(|error| CliError::Usage(error.to_string()))?;
    crate::store::write_private(&path, yaml.as_bytes()).map_err(io)
}

/// The books, by name; one that does not read is an error that names the file and the
/// command that mends it.
fn load_books(home: &Home) -> Vec<(String, Result<Book, CliError>)> {
    yaml_files(&books_dir(home))
        .into_iter()
        .map(|(name, path)| {
            let book = std::fs::read_to_string(&path)
                .map_err(|error| error.to_string())
                .and_then(|text| serde_yaml::from_str(&text).map_err(|error| error.to_string()))
                .map_err(|cause| {
                    CliError::Usage(format!(
                        "{}: {cause} (`pbem book remove {name}`, then add it again)",
                        path.display()
                    ))
                });
            (name, book)
        })
        .collect()
}

/// The `NAME.yaml` files of a folder (none when it does not exist), by name.
fn yaml_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(".yaml")?
                .to_owned();
            Some((name, path))
        })
        .collect();
    files.sort();
    files
}
