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
use crate::desk::outbox::Latest;
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
    /// Drop the lines that go through each LINE's turns (typed as for adding, from your
    /// opponent's next turn), keeping the others.
    #[arg(long, requires = "lines", conflicts_with_all = ["clear", "file"])]
    pub drop: bool,
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
    if let Some(result) = record.tag("Result").filter(|result| result.trim() != "*") {
        let asked = !args.lines.is_empty() || args.file.is_some();
        return over(home, &id, (&tree, result.trim()), asked, out);
    }
    // Lines the game has left are of no use any more.
    tree.lines = conditional::prune(variant, &tree.lines, &history).kept;
    let mut typed: Vec<(String, Vec<String>)> = args
        .lines
        .iter()
        .map(|line| (line.clone(), conditional::read_line(line)))
        .collect();
    if args.drop {
        return drop_lines(args, home, (&record, &id), tree, you, out);
    }
    if let Some(file) = &args.file {
        typed.extend(lines_in_file(file, &record)?);
    }
    if typed.is_empty() {
        list(&record, &id, &tree, &history, you, out)?;
        books_here(&record, variant, you, &history, home, out)?;
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
    let stored = tree.lines.clone();
    for (text, tokens) in typed {
        // A line typed from the game's start goes on from its last turn; else its move
        // number, if it has one, must be the game's next.
        let tokens = match conditional::past_history(&record, &tokens) {
            Some(rest) => rest,
            None => {
                check_number(&text, &game, &id)?;
                tokens
            }
        };
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
        let mut trimmed = false;
        for mut whole in branches {
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
            // An opponent's turn at the end has no reply: it is not kept.
            if conditional::trim_theirs(variant, &mut whole, history.len(), &mine) && !trimmed {
                trimmed = true;
                writeln!(
                    out,
                    "{id}: the line \"{text}\" ends with your opponent's turn, which has no reply of yours: kept up to your last reply"
                )?;
            }
            check_own_card(home, (&record, &id), &text, &whole, &mine)?;
            if let Some(at) = conditional::conflict(variant, &tree.lines, &whole, &mine) {
                let lines = (&tree.lines[..], &stored[..]);
                return Err(conflict_error(&record, &id, &text, lines, &whole, at));
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

/// Refuses a typed line whose first move number is not the game's next turn (`3.` where
/// the game is at `2...`): the rules would only say that its first turn is illegal.
fn check_number(text: &str, game: &correspondence::State, id: &str) -> Result<(), CliError> {
    let written = |(number, black): (u32, bool)| {
        format!(
            "{number}{} ({}'s turn)",
            if black { "..." } else { "." },
            if black { "Black" } else { "White" }
        )
    };
    let (Some(typed), Some(next)) = (
        conditional::first_number(text),
        conditional::first_number(&game.next_number),
    ) else {
        return Ok(());
    };
    if typed == next || game.awaited.is_some() {
        return Ok(());
    }
    Err(CliError::Invalid(format!(
        "{id}: the line \"{text}\" starts at {}, but the game's next turn is {}, your opponent's: a line starts there (or at the game's first move, with every turn since); nothing was added",
        written(typed),
        written(next)
    )))
}

/// `pbem if` on a finished game (its result `result`): no line can be due any more, so
/// the tree's lines are dropped (and counted), and lines to add or drop are refused.
fn over(
    home: &Home,
    id: &str,
    (tree, result): (&Tree, &str),
    asked: bool,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    if !tree.is_empty() {
        save_tree(home, id, &Tree::default())?;
    }
    let dropped = match tree.lines.len() {
        0 => String::new(),
        stale => format!("; its {} dropped", lines_word(stale)),
    };
    let over = format!("{id}: the game is over ({result}){dropped}");
    if asked {
        return Err(CliError::Usage(format!(
            "{over}: no conditional lines can be added or dropped"
        )));
    }
    writeln!(out, "{over}: no conditional lines are kept")?;
    Ok(Status::Ok)
}

/// `pbem if GAME --drop LINE...`: drops the lines that go through each line's turns
/// (read and checked as lines to add are), says how many and lists the others.
fn drop_lines(
    args: &IfArgs,
    home: &Home,
    (record, id): (&Record, &str),
    mut tree: Tree,
    you: Color,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let variant = crate::replay::variant_of(record)
        .map_err(|name| CliError::Usage(format!("{id}: unsupported variant \"{name}\"")))?;
    let mut dropped = 0;
    for text in &args.lines {
        let branches =
            conditional::extend(record, &conditional::read_line(text)).map_err(|error| {
                CliError::Invalid(format!(
                    "{id}: the line \"{text}\": {error}; nothing was dropped"
                ))
            })?;
        let before = tree.lines.len();
        tree.lines.retain(|line| {
            !branches
                .iter()
                .any(|turns| conditional::goes_through(variant, line, turns))
        });
        if tree.lines.len() == before {
            return Err(CliError::Invalid(format!(
                "{id}: no conditional line goes through \"{text}\" (`pbem if {id}` lists them); nothing was dropped"
            )));
        }
        dropped += before - tree.lines.len();
    }
    save_tree(home, id, &tree)?;
    writeln!(out, "{id}: {} dropped", lines_word(dropped))?;
    list(record, id, &tree, &conditional::history(record), you, out)?;
    Ok(Status::Ok)
}

/// In the Cards modes: refuses the line `text` (its whole history `whole`) when the first
/// card it plays for the player, which comes from the hand held now (see
/// [`conditional::first_own_card`]), is not in that hand, or does not follow the lead's
/// suit though the hand holds that suit. Nothing to check while the hand is not dealt
/// or a drawn card of it is not open yet.
fn check_own_card(
    home: &Home,
    (record, id): (&Record, &str),
    text: &str,
    whole: &[String],
    mine: impl Fn(usize) -> bool,
) -> Result<(), CliError> {
    use crate::games::wickets::Card;
    let Some((_, _, hand)) = super::play::own_hand(record, home) else {
        return Ok(());
    };
    let Ok(variant) = crate::replay::variant_of(record) else {
        return Ok(());
    };
    let history = conditional::history(record);
    if !hand.dealt || hand.pending > 0 {
        return Ok(());
    }
    let Some((at, card, lead)) = conditional::first_own_card(variant, whole, &history, mine) else {
        return Ok(());
    };
    let Some(played) = Card::from_name(&card) else {
        return Ok(());
    };
    let turn = label(record, whole, at);
    let refused = |why: String| {
        Err(CliError::Invalid(format!(
            "{id}: the line \"{text}\" plays {card} in {turn}, {why} (`pbem legal {id}` shows your hand); nothing was added"
        )))
    };
    if !hand.cards.iter().any(|&(_, held)| held == played) {
        return refused(format!(
            "which is not in your hand ({}): you play it from the hand you hold now",
            hand.text()
        ));
    }
    let lead = lead.as_deref().and_then(Card::from_name);
    if let Some(lead) = lead
        && !crate::fair::cards::playable(&hand, Some(lead)).contains(&played)
    {
        return refused(format!(
            "but your hand ({}) holds {}'s suit, which you must follow",
            hand.text(),
            lead
        ));
    }
    Ok(())
}

/// Why the line `text` (its whole history `whole`) cannot be added: at its turn `at` it
/// answers otherwise than one of `lines` (the tree's, then this command's): a line
/// stored before (of `lines.1`), which `--drop` drops, or another line of this command.
fn conflict_error(
    record: &Record,
    id: &str,
    text: &str,
    (lines, stored): (&[Vec<String>], &[Vec<String>]),
    whole: &[String],
    at: usize,
) -> CliError {
    let ours = label(record, whole, at);
    let Some(other) = lines
        .iter()
        .find(|line| line.len() > at && line[..at] == whole[..at] && line[at] != whole[at])
    else {
        return CliError::Invalid(format!(
            "{id}: the line \"{text}\" answers with {ours} where another line answers otherwise (one reply to each turn); nothing was added"
        ));
    };
    let theirs = &other[at];
    if !stored.contains(other) {
        return CliError::Invalid(format!(
            "{id}: the line \"{text}\" answers with {ours} where another line of this command answers with {theirs} (one reply to each turn); nothing was added"
        ));
    }
    // The stored line up to its reply, as the player types it: from the turn that
    // parts from the game's history (the last one when the line completes it).
    let history = conditional::history(record);
    let from = other
        .iter()
        .zip(&history)
        .position(|(a, b)| a != b)
        .unwrap_or(history.len());
    // Numbered as the list shows it: Black's turn after White's goes without its number.
    let branch: Vec<String> = (from..=at)
        .map(|index| match label(record, other, index) {
            numbered if index > from && numbered.contains("...") => other[index].clone(),
            numbered => numbered,
        })
        .collect();
    CliError::Invalid(format!(
        "{id}: the line \"{text}\" answers with {ours} where your lines answer with {theirs} (one reply to each turn): `pbem if {id}` lists them, `pbem if {id} --drop \"{}\"` drops the lines that answer so (then add yours); nothing was added",
        branch.join(" ")
    ))
}

/// Runs `pbem book`.
pub fn run_book(
    command: &BookCommand,
    home: &Home,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let dir = books_dir(home);
    match command {
        BookCommand::Add(args) => add_book(args, home, &dir, out),
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

fn add_book(
    args: &BookAddArgs,
    home: &Home,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let shown = args.file.display().to_string();
    let text = super::input::read_text(&args.file)?.text;
    // `najdorf.pgn.gz` is the book `najdorf`, as `najdorf.pgn` is.
    let stem = args
        .file
        .file_name()
        .and_then(|name| name.to_str())
        .map(|name| {
            let name = [".gz", ".zst", ".bz2"]
                .iter()
                .find_map(|suffix| name.strip_suffix(suffix))
                .unwrap_or(name);
            name.strip_suffix(".pgn").unwrap_or(name)
        })
        .filter(|stem| !stem.is_empty())
        .unwrap_or("book");
    let name = book_name(args.name.as_deref().unwrap_or(stem))?;
    let side = match args.side.unwrap_or(Side::White) {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let mut book: Option<Book> = None;
    // The first game's start, to number turns in messages, and the side to move there.
    let mut labels: Option<(Record, Color)> = None;
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
        // The side's turns; a book never plays the game's first turn (a reply needs a
        // turn before it), so lines that begin differently are branches, not replies.
        let mine = move |at: usize| at > 0 && at.is_multiple_of(2) == (side == first);
        labels.get_or_insert_with(|| (empty.clone(), first));
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
            for whole in branches {
                if let Some(at) = conditional::conflict(variant, &book.lines, &whole, mine) {
                    let other = book
                        .lines
                        .iter()
                        .find(|other| other.len() > at && other[..at] == whole[..at])
                        .map_or_else(String::new, |other| label(&empty, other, at));
                    let hint = if args.side.is_none() {
                        " (if the book is Black's, add `--as black`)"
                    } else {
                        ""
                    };
                    return Err(CliError::Invalid(format!(
                        "{shown}: game {}: the line \"{}\" plays {} where an earlier line plays {other} (a book gives one reply to each turn){hint}; no book was added",
                        number + 1,
                        line.join(" "),
                        label(&empty, &whole, at)
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
    let replaced = path.exists();
    crate::store::write_private(&path, yaml.as_bytes()).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })?;
    writeln!(
        out,
        "book {name}: {} of {} for {} (kept in {}; never mailed){}",
        lines_word(book.lines.len()),
        played_in(&book),
        book.side,
        path.display(),
        if replaced {
            "; it replaces the book of that name"
        } else {
            ""
        }
    )?;
    if let Some((record, first)) = &labels {
        let mine = |at: usize| at > 0 && at.is_multiple_of(2) == (side == *first);
        overlaps(&name, &book, record, mine, home, out)?;
    }
    Ok(Status::Ok)
}

/// What a mail brought is in: in every game where the opponent acted last and the tree
/// (or else a book) answers their turn, plays the reply as `pbem move` does, puts its
/// mail in the outbox and says so; drops the lines the game has left and says so. With
/// `send`, sends the outbox afterwards (`pbem sync`).
pub fn answer(home: &Home, out: &mut dyn Write, send: bool) -> Result<(), CliError> {
    drop_left_lines(home, out)?;
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
                .filter(|reply| !tree.was_refused(&history, reply))
                .map(|reply| (reply, "conditional reply".to_owned()))
                .or_else(book)
            else {
                if pruned.dropped > 0 || stale {
                    save_tree(home, &id, &tree)?;
                }
                break;
            };
            // A draw offer is the player's to answer: a reply would decline it unseen.
            if let Some(offer) =
                crate::replay::events::standing_offer(&record).filter(|side| *side != you)
            {
                let line = [history.as_slice(), std::slice::from_ref(&reply)].concat();
                let label = label(&record, &line, history.len());
                tree.refused.push(line);
                save_tree(home, &id, &tree)?;
                writeln!(
                    out,
                    "{id}: {} offers a draw, so your {from} {label} was not played: \
                     `pbem draw accept {id}` accepts the draw, `pbem move {id} {reply}` plays on",
                    offer.name()
                )?;
                break;
            }
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
            let mut said = Vec::new();
            if let Err(error) = super::play::make_move(&args, home, &mut said) {
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
            mail_reply(home, &id)?;
            tree.playing = None;
            tree.playing_last = None;
            tree.lines =
                conditional::prune(variant, &tree.lines, &conditional::history(&after)).kept;
            save_tree(home, &id, &tree)?;
            let label = correspondence::turn_label(&after, ply - 1).unwrap_or_else(|| turn.clone());
            // `pbem move`'s own words for a turn that ended the game.
            let over = String::from_utf8_lossy(&said)
                .lines()
                .next()
                .and_then(|line| line.split_once(", game over: "))
                .map(|(_, result)| format!(", game over: {result}"))
                .unwrap_or_default();
            if ply == history.len() {
                writeln!(out, "{id}: played your {from} {shown} in {label}{over}")?;
            } else {
                writeln!(out, "{id}: played your {from} {label}{over}")?;
            }
            played += 1;
            if !correspondence::state(&after).is_ok_and(|game| acts_now(&after, &game, you)) {
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

/// In every running game where the player does not act now (the replies below skip
/// it), drops the lines the game has left and says where it parted from them, when it
/// happens: a card in answer other than the line's arrives with no turn of the player's
/// after it, or the player's own turn by hand left them.
fn drop_left_lines(home: &Home, out: &mut dyn Write) -> Result<(), CliError> {
    // The games that have a tree, not every game.
    for (id, _) in yaml_files(&trees_dir(home)) {
        let id = id.as_str();
        // A tree that does not read, or a reply being played, is left to the rest.
        let Ok(mut tree) = load_tree(home, id) else {
            continue;
        };
        if tree.lines.is_empty() || tree.playing.is_some() {
            continue;
        }
        let Ok(record) = home.games.path(id).and_then(|path| home.games.load(&path)) else {
            continue;
        };
        let open = record
            .tag("Result")
            .is_none_or(|result| result.trim() == "*");
        let (Some(you), Ok(variant)) = (
            correspondence::side_of(&record, &home.settings.player.email),
            crate::replay::variant_of(&record),
        ) else {
            continue;
        };
        if !open || answers_now(&record, you) {
            continue;
        }
        let history = conditional::history(&record);
        let pruned = conditional::prune(variant, &tree.lines, &history);
        if pruned.dropped > 0 {
            dropped_note(&record, id, &history, &pruned, out)?;
            tree.lines = pruned.kept;
            save_tree(home, id, &tree)?;
        }
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
            mail_reply(home, &id)?;
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
        && acts_now(record, &game, you)
        && match correspondence::last_actor(record, &game.turns) {
            Some(side) if side == you => answered_their_turn,
            side => side.is_some(),
        }
}

/// Whether the game (`game`, its replayed state) is open and waits for the player: its
/// turn, or its card.
fn acts_now(record: &Record, game: &correspondence::State, you: Color) -> bool {
    let open = record
        .tag("Result")
        .is_none_or(|result| result.trim() == "*");
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

/// Tells the player which of a game's lines the history has left, and where: the turn
/// the game made instead of the one they expected, or, when it is the same turn, its roll
/// or card (`in 4. Nxe5:w9 the roll was 5 where they expected 1 or 2`).
fn dropped_note(
    record: &Record,
    id: &str,
    history: &[String],
    pruned: &conditional::Pruned,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let mut places: std::collections::BTreeMap<usize, Vec<&String>> = Default::default();
    for (at, token) in &pruned.expected {
        places.entry(*at).or_default().push(token);
    }
    let parted: Vec<String> = places
        .into_iter()
        .flat_map(|(at, expected)| parted_words(record, history, at, &expected))
        .collect();
    writeln!(
        out,
        "{id}: {} no longer match{} the game and {} dropped{}",
        lines_word(pruned.dropped),
        if pruned.dropped == 1 { "es" } else { "" },
        if pruned.dropped == 1 { "is" } else { "are" },
        if parted.is_empty() {
            String::new()
        } else {
            format!(" ({})", parted.join("; "))
        }
    )?;
    Ok(())
}

/// Where the game's turn at index `at` parted from the lines that expected `expected`
/// there, in words: each a turn the game made instead, or a roll or card of the same turn.
fn parted_words(
    record: &Record,
    history: &[String],
    at: usize,
    expected: &[&String],
) -> Vec<String> {
    let Some(went) = history.get(at) else {
        return Vec::new();
    };
    let numbered = |turn: &str| label(record, &[&history[..at], &[turn.to_owned()]].concat(), at);
    let variant = crate::replay::variant_of(record).ok();
    // The turn's maker: the thrower of an attempt, whose cards are the 1st, 3rd...
    let maker = correspondence::state(record)
        .ok()
        .and_then(|game| game.turns.get(at).map(|(side, _)| *side));
    let mut turns = Vec::new();
    let mut parts: std::collections::BTreeMap<(String, String, Option<bool>), Vec<String>> =
        Default::default();
    for token in expected {
        match variant.and_then(|variant| conditional::parting(variant, went, token, at, |_| true)) {
            Some(parting) => parts
                .entry((parting.shared, parting.went, parting.owner))
                .or_default()
                .push(part_name(&parting.expected)),
            None => turns.push(numbered(token)),
        }
    }
    let mut words = Vec::new();
    if !turns.is_empty() {
        words.push(format!(
            "the game went {} where they expected {}",
            label(record, history, at),
            either(&turns)
        ));
    }
    for ((shared, part, owner), expected) in parts {
        let what = match (owner, maker) {
            (None, _) => format!("the roll was {}", part_name(&part)),
            (Some(thrower), Some(maker)) => {
                let side = if thrower { maker } else { maker.other() };
                let verb = match (
                    part.as_str(),
                    format!("{shared}{part}").matches("_c").count(),
                ) {
                    ("_c-", _) => "declined the second pair".to_owned(),
                    (_, 1) => format!("led {}", part_name(&part)),
                    (_, count) if count % 2 == 0 => format!("answered {}", part_name(&part)),
                    _ => format!("played {}", part_name(&part)),
                };
                format!("{side} {verb}")
            }
            (Some(_), None) => format!("the game went {}", part_name(&part)),
        };
        words.push(format!(
            "in {} {what} where they expected {}",
            numbered(&shared),
            either(&expected)
        ));
    }
    words
}

/// A part of a turn as a player names it: a roll's number, a card (`H6`), a decline.
fn part_name(part: &str) -> String {
    match part.trim_start_matches("_r").trim_start_matches("_c") {
        "-" => "a decline".to_owned(),
        name => name.to_owned(),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn either(items: &[String]) -> String {
    match items.split_last() {
        Some((last, before)) if !before.is_empty() => format!("{} or {last}", before.join(", ")),
        _ => items.join(""),
    }
}

/// Names the books that give replies in this game from here (after its own lines).
fn books_here(
    record: &Record,
    variant: Variant,
    you: Color,
    history: &[String],
    home: &Home,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let Some((start, _)) = conditional::start_of(record) else {
        return Ok(());
    };
    let id = correspondence::game_id(record).unwrap_or_default();
    for (name, book) in load_books(home) {
        let follows = book.is_ok_and(|book| {
            book.plays(variant, you, &start)
                && book
                    .lines
                    .iter()
                    .any(|line| line.len() > history.len() && line.starts_with(history))
        });
        if follows {
            writeln!(
                out,
                "{id}: book {name} gives replies here too, while the game follows it (the game's own lines come first)"
            )?;
        }
    }
    Ok(())
}

/// Warns when another book for the same games (variant, side, start) answers a turn
/// differently: in a game that follows both, the first by name answers.
fn overlaps(
    name: &str,
    book: &Book,
    record: &Record,
    mine: impl Fn(usize) -> bool,
    home: &Home,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let Some(variant) = Variant::from_name(&book.variant) else {
        return Ok(());
    };
    for (other_name, other) in load_books(home) {
        let Ok(other) = other else { continue };
        let same_games =
            other.variant == book.variant && other.side == book.side && other.start == book.start;
        if other_name == name || !same_games {
            continue;
        }
        let Some((line, at)) = book.lines.iter().find_map(|line| {
            conditional::conflict(variant, &other.lines, line, &mine).map(|at| (line, at))
        }) else {
            continue;
        };
        let theirs = other
            .lines
            .iter()
            .find(|theirs| theirs.len() > at && theirs[..at] == line[..at])
            .map_or_else(String::new, |theirs| label(record, theirs, at));
        let first = if other_name.as_str() < name {
            other_name.as_str()
        } else {
            name
        };
        writeln!(
            out,
            "warning: book {name} plays {} where book {other_name} plays {theirs}: in a game that follows both, book {first} answers (the first by name; `pbem book remove NAME` drops one)",
            label(record, line, at)
        )?;
    }
    Ok(())
}

/// Puts the mail of the game's current state (the reply just played) in the outbox,
/// composed as `pbem send` composes it; the last mail of a game the reply ended (a
/// mate) is then no longer owed.
fn mail_reply(home: &Home, id: &str) -> Result<(), CliError> {
    let now = super::home::now()?;
    match crate::desk::outbox::compose_latest(id, home, now)? {
        Latest::Mail(composed) => crate::desk::outbox::queue(home, &composed, true)?,
        Latest::Nothing { why, .. } => {
            return Err(CliError::Usage(format!(
                "{id}: the reply's mail was not composed: {why}"
            )));
        }
    }
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

/// The lines of a PGN with variations for the game `game`, each with its text for messages.
fn lines_in_file(file: &Path, game: &Record) -> Result<Vec<(String, Vec<String>)>, CliError> {
    let shown = file.display().to_string();
    let text = super::input::read_text(file)?.text;
    let record = parse_record(&text).map_err(|error| {
        CliError::Invalid(format!(
            "{shown}:{}:{}: {}; nothing was added",
            error.span.line, error.span.column, error.message
        ))
    })?;
    file_is_for(game, &record, &shown)?;
    Ok(conditional::lines_of(&record.moves)
        .into_iter()
        .map(|line| (format!("{shown}: {}", line.join(" ")), line))
        .collect())
}

/// Refuses a tree file (`tree`, read from `shown`) made for another game: its
/// `[Variant]`, where it has one, must be the game's, and its `[FEN]`, where it has one,
/// the game's start or its position now (where the file's lines begin).
fn file_is_for(game: &Record, tree: &Record, shown: &str) -> Result<(), CliError> {
    let refused = |what: String| {
        Err(CliError::Invalid(format!(
            "{shown}: {what}: the file is for another game; nothing was added"
        )))
    };
    let variant = crate::replay::variant_of(game).map_err(|name| {
        CliError::Usage(format!("the game's variant \"{name}\" is not supported"))
    })?;
    if let Some(named) = tree.tag("Variant")
        && crate::replay::variant_of(tree).ok() != Some(variant)
    {
        return refused(format!(
            "its [Variant \"{named}\"] is not the game's, {}",
            variant.name()
        ));
    }
    let Some(fen) = tree.tag("FEN") else {
        return Ok(());
    };
    let mut as_game = tree.clone();
    as_game.set_tag("Variant", variant.name());
    let start = conditional::start_of(game).map(|(start, _)| start);
    let now = conditional::position_of(game);
    let read = conditional::start_of(&as_game).map(|(start, _)| start);
    // The same men on the same squares and the same side to move: the fields after them
    // (an en-passant square written or not) do not make another game.
    let placed = |position: &Option<String>| {
        position.as_deref().map(|text| {
            text.split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        })
    };
    if read.is_none() || (placed(&read) != placed(&start) && placed(&read) != placed(&now)) {
        return refused(format!(
            "its [FEN \"{fen}\"] is neither the game's start, \"{}\", nor its position now, \"{}\"",
            start.unwrap_or_default(),
            now.unwrap_or_default()
        ));
    }
    Ok(())
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
