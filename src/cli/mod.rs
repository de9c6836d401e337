//! The `pbem` command line: clap definitions, one module per command, and the edge where
//! files, the terminal and exit codes meet the library.
//!
//! Exit codes: 0 when everything is valid, 1 when some input is invalid, 2 on usage or
//! I/O errors.
//!
//! # How it is built
//!
//! clap 4 derive definitions and one module per command or group: `validate`, `show`
//! (text, SVG or PNG), `html`, `legal`, `fmt`, `convert`, `perft`, `bench`; `board_page`
//! (`pbem play`: the local web server of the play page, see its text); `play` (`new`,
//! `move`, `draw`, `resign`, `secret`, `allow-typed`: their arguments, a call to
//! `desk::play`, and what it did, printed), `status` (and `dismiss`), `mail` (`send`,
//! `receive`: a file, a Maildir's `new/` and `cur/`, or an IMAP folder, each mail judged
//! by `desk::inbox` through the mail ledger; `sync`; the SMTP and IMAP halves of `config
//! check`; `mail::folder`: `send` and `sync` through the shared folder, each home taking in
//! only the mails addressed to its player and not from them, through the same ledger and
//! `Run` as a Maildir), `conditional` (`if`,
//! `book`, and the replies `receive` and `sync` play from them once the mails are in),
//! `config_cmd` (`config init`, `config check`); completions come
//! from clap_complete. `home` opens the player's home (`desk::Home`: the config from
//! `--config`, `$PBEM_CONFIG` or the per-user place, refused, as ssh does, when another
//! user owns it or others can write it or its folder, since its `password_command` runs;
//! the data lock; the repair of what a killed pbem left, which `home` tells), and gives `now`
//! (the wall clock, or `PBEM_NOW` for tests); `show`, `html` and `legal` take
//! a game id through the config's games folder; `input` is the one place that opens what a
//! user names: files and standard input, plain or compressed (gzip, zstd, bzip2, by their
//! first bytes; decompressed on a thread of its own that hands buffers to the reader through
//! a bounded pipe, so decompressing and reading overlap), folders walked once with walkdir (links followed only with `--follow`,
//! loops skipped), text that is not UTF-8 decoded by
//! `notation::Reader::with_fallback_encoding` (Windows-1252 unless `--encoding` says
//! otherwise, one warning a file), and the progress bar (indicatif, on standard error when
//! it is a terminal and not `--quiet`, moved game by game, or block by block with `--jobs N`,
//! by the bytes on disk each ends at, so games without tags move it smoothly); `convert`
//! streams a pbem input game by game (64 MB a game at most) and a typed list piece by piece;
//! `validate --jobs N` (default: one per core) reads the files in order on one thread, in
//! blocks of raw bytes (256 KiB) cut at the last game boundary in each: a tag line after a
//! line that begins with movetext, found by looking back from the block's end, is a
//! boundary whatever came before it; where there is none, the reader's splitter
//! (`notation::Boundaries`) finds the boundaries. That thread counts each block's newlines
//! and hands the blocks to a pool of workers over a bounded channel (four blocks per worker
//! ahead of the output); each worker reads its block with a reader of its own that starts there
//! (`Reader::at`: the records, findings and spans of one reader of the whole file) and
//! replays the games (streamed where plain, as with `--jobs 1`). The lines about games
//! write a game's number through `Lines`, so a worker leaves the numbers' places
//! (`Numbered`) and the writing thread fills in the count of the games before when it
//! writes the output in file order. A chunk larger than a block (games without tags one
//! after another, which the reader takes as one chunk up to the next tag section) is cut
//! into parts at lines that begin with `1.` after a line that ends with a result; a worker
//! reads the games that start in its part from a copy of it and 16 KiB more, and the
//! writing thread reads again, from the whole rest of the chunk, a game the copy was too
//! short to be sure of (a parse error takes the rest of its chunk) and a part whose first
//! game did not start where the games before it ended, so the output is that of
//! `--jobs 1`; a chunk over the size limit is one game that cannot be read, as with one
//! reader. `--jobs 1` reads and replays on one thread.
//! `diagnostic` renders findings with annotate-snippets: those of a file (`render`), and
//! those of an argument (`render_about`), where the argument is the source line: a turn
//! `pbem move` refused (`replay::diagnose_turn` finds it as the replay would in a record, with
//! the legal turns and the closest, even for a token that does not read; while a card is
//! awaited the cards of the player's hand are the legal list) and a `--fen` that does not
//! read (`position_error`, the caret under the `SetupError`'s field). Both are
//! `CliError::Reported`: written as they are, exit 1. Arguments become library calls;
//! exit codes: 0 valid, 1 invalid (an invalid game, a refused mail, a mistyped turn or
//! position), 2 usage or environment error (a missing config, a mail that could not be sent
//! and waits in the outbox).

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::games::Variant;

mod bench;
mod board_page;
mod conditional;
mod config_cmd;
mod convert;
mod diagnostic;
mod fmt;
mod home;
mod html;
mod input;
mod legal;
mod mail;
mod perft;
mod play;
mod show;
mod status;
mod validate;

/// What a command ended with; becomes the process exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: everything valid.
    Ok,
    /// Exit 1: some input is invalid.
    Invalid,
}

impl Status {
    /// The worse of two statuses.
    #[must_use]
    pub fn worst(self, other: Status) -> Status {
        if self == Status::Invalid || other == Status::Invalid {
            Status::Invalid
        } else {
            Status::Ok
        }
    }
}

/// A usage or environment error: exit 2.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The arguments do not make sense together.
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// The input is not what the command reads (garbage, binary data, no game): exit 1,
    /// like an invalid game.
    #[error("{0}")]
    Invalid(String),
    /// Invalid input already told as a diagnostic (a mistyped turn, a position string
    /// that does not read): written as it is to standard error, exit 1.
    #[error("{0}")]
    Reported(String),
    /// Writing to standard output failed (other than a closed pipe).
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
}

impl From<crate::batch::Error> for CliError {
    fn from(error: crate::batch::Error) -> CliError {
        use crate::batch::Error;
        match error {
            Error::Read { path, source } => CliError::Io { path, source },
            Error::Output(error) => CliError::Output(error),
            error @ (Error::NotCompressed { .. } | Error::NoGameFiles(_)) => {
                CliError::Usage(error.to_string())
            }
        }
    }
}

const EXAMPLES: &str = "\
Examples:
  pbem validate examples/immortal.pgn        replay every game, report what is wrong
  pbem validate --json games/*.pgn            the same findings as JSON lines
  pbem show --ply 20 examples/immortal.pgn    the position after White's 10th move
  pbem legal --fen '8/8/8/8/8/8/4k3/4K2R w K - 0 1'
  pbem fmt --in-place mygame.pgn              rewrite a file in canonical form
  pbem perft --fen 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -' 4
  pbem completions bash > /etc/bash_completion.d/pbem

Playing by email (see README.md):
  pbem config init --name Alice --email alice@example.org
  pbem new --opponent \"Bob <bob@example.org>\"   you play White; --as black for Black
  pbem move GAME e4 && pbem send GAME
  pbem sync && pbem status                    send the outbox, take in new mail, list your games

Exit status: 0 all valid, 1 some input invalid, 2 usage or I/O error.";

/// Play chess variants by email: validate, show, format and explore game records.
#[derive(Debug, Parser)]
#[command(name = "pbem", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// The config file (default: $PBEM_CONFIG, else ~/.config/pbem/config.yaml).
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game (and variation) and report each illegal or unreadable turn.
    #[command(after_help = "\
Each problem is shown as file:line:column with the line and a caret under the token, the
reason, and the legal turns or the closest legal match. The Result tag is checked against
the final position. Games in variants pbem does not play are reported as unsupported.

A turn played after an automatic draw (a dead position, fivefold repetition, seventy-five
moves) is part of the record as played: a warning in a game pbem did not conduct (no
[Mode \"EM\"] with a [GameId]), whose result must still be the draw; an error in a game
pbem conducted by mail, and in every game with --strict. --lenient-results makes it a
warning in every game, and `*` on an ended game too. Turns after mate, stalemate, a
resignation or an agreement are always errors. --json gives each as a finding of kind
after-end with its severity.

Exit status: 0 every game valid, 1 any game invalid or unsupported, 2 usage or I/O error.

Examples:
  pbem validate examples/immortal.pgn
  pbem validate --quiet archive/*.pgn
  cat game.pgn | pbem validate -")]
    Validate(validate::Args),
    /// Show the position after a game (or after ply N) as a diagram and position string.
    #[command(after_help = "\
Examples:
  pbem show examples/immortal.pgn
  pbem show --ply 0 examples/immortal.pgn     the starting position
  pbem show --game 3 --ply 12 archive.pgn
  pbem show --format png -o board.png examples/cascudo.pgn
  pbem show --format svg --fen '4k3/8/8/8/8/8/8/4K2R w K - 0 1' > board.svg")]
    Show(show::Args),
    /// Write a self-contained HTML page that replays the games of the given files.
    #[command(after_help = "\
Examples:
  pbem html examples/cascudo.pgn -o cascudo.html
  pbem html --title 'Club games' a.pgn b.pgn > club.html")]
    Html(html::Args),
    /// List the legal turns in a position, one canonical turn per line.
    #[command(after_help = "\
Examples:
  pbem legal                                  the start position of chess
  pbem legal --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
  pbem legal --ply 4 examples/immortal.pgn    after the first two moves of the game")]
    Legal(legal::Args),
    /// Write game files in canonical form (to standard output unless --in-place).
    #[command(after_help = "\
The canonical form: the Seven Tag Roster first, turns in their shortest unambiguous form
with check markers, annotation glyphs as $n, movetext lines under 80 characters.
fmt of fmt is fmt. A game with errors is written too: its turns up to the first error
canonically, the rest as written; the errors go to standard error and the exit status
is 1. With --in-place a file is replaced atomically, and only when every game in it
could be read.

Examples:
  pbem fmt game.pgn
  pbem fmt --in-place games/*.pgn")]
    Fmt(fmt::Args),
    /// Convert between pbem, Zillions saved games, Game Courier move lists and typed lists.
    #[command(after_help = "\
Formats: pbem, zillions (.zsg), gamecourier (move lists), text (typed move lists, read
only). --from is guessed from the content when left out; --to is pbem by default. Every
turn read is matched against the legal turns of its position, so the output is always a
legal, canonical game; a turn that cannot be matched is shown at its place with the
candidates, and the game is converted up to there. Inputs that do not name the game are
Chess unless --variant says otherwise; --setup gives their starting position.

Exit status: 0 all converted, 1 something not converted or invalid, 2 usage or I/O error.

Examples:
  pbem convert game.zsg -o game.pgn
  pbem convert --variant chesica forum-post.txt
  pbem convert --to gamecourier examples/chesica.pgn")]
    Convert(convert::Args),
    /// Count the leaf positions DEPTH turns deep (the last line is the count).
    #[command(after_help = "\
Examples:
  pbem perft 5                                4865609
  pbem perft --divide 2
  pbem perft --fen '8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -' 6")]
    Perft(perft::Args),
    /// Measure reading and validating speed on game files (MB/s, games/s, plies/s).
    #[command(after_help = "\
Examples:
  pbem bench ../shared/data/pgn/lichess_db_1000k.pgn
  pbem bench --seconds 5 big.pgn")]
    Bench(bench::Args),
    /// Start a game by mail; prints the new game file's path.
    #[command(after_help = "\
You are the player of your config file: name your opponent with --opponent (you play
White, or Black with --as black), or name both players with the long options (a side
left out is you). The game file's path is printed alone; what to do next goes to
standard error: your first turn, or, when your opponent moves first, `pbem send GAME`
(your opponent knows of the game only from that mail).

Examples:
  pbem new --opponent \"Bob <bob@example.org>\"
  pbem new --opponent bob@example.org --as black --time-control 10/50d+30d --secret
  pbem new --white Alice --white-email alice@example.org --black Bob --black-email bob@example.org")]
    New(play::NewArgs),
    /// Make your turn in a game (checked, stamped and saved; `pbem send` mails it).
    #[command(
        name = "move",
        after_help = "\
A turn that does not read or is not legal is refused as `pbem validate` reports one in a
file: the reason, the turn with a caret, the closest legal turn and the legal turns (while
a card is awaited, the cards of your hand); the game is unchanged and the exit status is 1.

Examples:
  pbem move g-20261122-1a2b3c4d e4
  pbem move g-2026 Nf3 --offer-draw"
    )]
    Move(play::MoveArgs),
    /// Offer, accept or claim a draw.
    #[command(after_help = "\
An offer stands until the other side's next turn; a claim names the reason that holds
(threefold repetition, the fifty-move rule) and is checked by the rules. `pbem send`
mails the event like a move.

Examples:
  pbem draw offer g-2026
  pbem draw accept g-20261122-1a2b3c4d
  pbem draw claim g-2026")]
    Draw(play::DrawArgs),
    /// Resign a game.
    #[command(after_help = "\
Examples:
  pbem resign g-2026 && pbem send g-2026")]
    Resign(play::GameArg),
    /// Claim a game on time: your opponent, whose act you wait for, is over its time.
    #[command(after_help = "\
The game needs a time control (`pbem new --time-control`), and your opponent's act must be
awaited (its turn, or the card or the roll your last turn waits for) past its deadline by
the clocks `pbem status` shows (OVERDUE). The claim ends the game in your favour, and
`pbem send` mails it like a move.

Examples:
  pbem claim-time g-2026 && pbem send g-2026")]
    ClaimTime(play::GameArg),
    /// Fair chance: `pbem fair reveal GAME` adds your seed to a Cards game with a fair
    /// deal (at the end, or for an arbiter), so that `pbem validate` can prove the deal.
    #[command(after_help = "\
Examples:
  pbem fair reveal g-2026                     then `pbem send g-2026` mails it")]
    Fair(play::FairArgs),
    /// Store the shared secret your opponent told you for a game.
    #[command(after_help = "\
The secret is the hex string `pbem new --secret` printed on your opponent's side; tell
it by phone or in person, not by mail. Store it before you take in the game's first mail.

Examples:
  pbem secret g-20261122-1a2b3c4d 5f1c09be2a8d4e7f93c6b1a0d2e4f687
  pbem secret g-20261122-1a2b3c4d 5f1c09be2a8d4e7f93c6b1a0d2e4f687 --allow-typed")]
    Secret(play::SecretArgs),
    /// In a game with a secret, take in turns your opponent types by hand in a reply
    /// (which carry no authentication code); `--off` refuses them again.
    #[command(
        name = "allow-typed",
        after_help = "\
Examples:
  pbem allow-typed g-20261122-1a2b3c4d
  pbem allow-typed g-2026 --off"
    )]
    AllowTyped(play::AllowTypedArgs),
    /// Play from the board: a local web page (on 127.0.0.1) where you click your turns.
    #[command(after_help = "\
Prints `pbem play: open http://127.0.0.1:PORT/?token=TOKEN` and opens it in the browser
($BROWSER, else xdg-open or open) unless --no-open; then serves until Ctrl-C or until
--idle minutes pass without a request from its page (the config's play.idle_minutes, 30
by default). The address's token is the key to the page: only this machine's browser
with it may use the server (its cookie is named for the port, so two servers at once
keep theirs). Every change goes through the command that makes it (`pbem move`, `draw`,
`resign`, `send`, `sync`), with your data locked for it. A game of yours is played by
mail (a turn is mailed by the send button, or at once with `play: { send: auto }` in the
config); any other game file is played locally, both sides, without mail.

Examples:
  pbem play                                   your games by mail (Sync takes in new ones); pick one
  pbem play g-2026                            that game's page
  pbem play --no-open --port 8765 g-2026      print the address only, on a fixed port
  pbem play analysis.pgn                      a game file played locally, no mail")]
    Play(board_page::Args),
    /// Mail the latest turn of a game to the opponent (through the outbox).
    #[command(after_help = "\
The mail names the game and the turn in its subject, holds the turn, a diagram, a
position check and the full record, and threads with the game's earlier mails. If it
cannot be sent it waits in the outbox; the move itself is already in the game file.
With `shared_folder` in the config, the mail is delivered into that folder instead of
being sent by SMTP (the shared folder wins over the smtp section).

Examples:
  pbem send g-20261122-1a2b3c4d
  pbem send --dry-run /tmp/mails g-2026
  pbem send --retry")]
    Send(mail::SendArgs),
    /// Take in your opponent's mail: check it, save the new turn, show the position.
    #[command(after_help = "\
Examples:
  pbem receive reply.eml
  pbem receive - < reply.eml
  pbem receive --maildir ~/Maildir
  pbem receive --imap                  the folder of the config's imap section")]
    Receive(mail::ReceiveArgs),
    /// Send what waits in the outbox, take in new mail (from the config's shared folder,
    /// else IMAP, else the config's Maildir) and show the games that changed: one command
    /// to run by hand or from cron.
    #[command(after_help = "\
Examples:
  pbem sync
  */15 * * * * pbem sync >> ~/pbem-sync.log 2>&1     (a crontab line)")]
    Sync(mail::SyncArgs),
    /// Add conditional lines to a game (replies played for you when your opponent's turn
    /// matches), list them, or drop them.
    #[command(
        name = "if",
        after_help = "\
A line starts with your opponent's next turn and alternates with your replies, in the
game's notation (move numbers may be written or not; a number written must be the
game's next turn's, or the line may start at the game's first move, with every turn
since). Each line is checked through the rules when it is added. Result words (`1-0`,
`0-1`, `1/2-1/2`, `*`) are skipped: the rules say how a game ends. A turn of your
opponent's at the end of a line has no reply and is not kept. A tree file's `[Variant]`
and `[FEN]`, where it has them, must be the game's (its FEN the game's start or its
position now). Once the game is over, `pbem if GAME` says so and drops the lines left.
When `pbem receive` or `pbem sync` takes in a turn of your opponent's that a line
expects, pbem plays your reply at once as `pbem move` does (sync sends it too), unless
that turn offers a draw (you are told, and answer it yourself); lines the game has left
are dropped, and you are told. The lines stay in your games folder: never in the record
nor in any mail.

Chess with wickets: a line names your opponent's attempt with its roll or cards
(`4. Nxe5:w9_r5`, `4. Nxe5:w9_cD10`); in the Cards modes your card in answer follows
alone (`S5`), played only if it is in your hand then (your first card in a line comes
from the hand you hold now: one it does not hold, or that does not follow a suit it
holds, is refused), and the line goes on to your next turn; in the Dice modes a line may go past your own attempt typed without its roll
(`4. Nxe5:w9 Kxe5 5. d4`), on each roll's branch on which the rest is legal. While your
sent attempt awaits your opponent's card, a line starts with that card (`C4 4... Kxe5 5.
d4`); while it awaits its roll, with their next turn, on each roll's branch.

Examples:
  pbem if g-2026 \"12... Nf6 13. e5 Nd5 14. c4\"
  pbem if g-2026 \"Nf6 e5\" \"Nc6 d5\"       two lines: one reply to each
  pbem if g-2026 --file tree.pgn           a PGN with variations
  pbem if g-2026 \"4. Nxe5:w9_cD4 D9 4... Kxe5\"   a card in answer, then a turn
  pbem if g-2026                           list the lines
  pbem if g-2026 --drop \"12... Nd7 13. Qd2\"  drop the lines through these turns
  pbem if g-2026 --clear                   drop them"
    )]
    If(conditional::IfArgs),
    /// Opening books: repertoires (PGN with variations) whose replies are played as
    /// conditional moves in every game that follows them.
    #[command(
        subcommand,
        after_help = "\
In every game of the book's variant and start (the file's `[FEN]`; in Chess with wickets
its mode too: `--decision`, else the file's `[Decision]`, else Deterministic) in which you
play the book's side and whose turns so far are a line of the book, the book's reply to
your opponent's turn is played as a conditional move (a game's own `pbem if` lines come
first). Books stay in your games folder: never in a record nor in any mail.

Examples:
  pbem book add najdorf.pgn --as black
  pbem book list
  pbem book remove najdorf"
    )]
    Book(conditional::BookCommand),
    /// List your games (opponent, whose turn, card or roll is awaited and since when,
    /// time used and left), mails waiting in the outbox and refused mails.
    #[command(after_help = "\
A finished game is listed while your last mail of it (your result, or your seed of a
fair deal) is not sent; with --all every finished game, with its chance (proven fair, or
whose seed is missing). An opponent over its time is marked OVERDUE, with the command
that claims the game on time.

Examples:
  pbem status                                 the games that are still on
  pbem status --all                           finished games too")]
    Status(status::Args),
    /// Dismiss refused mails that `pbem status` lists, once you have dealt with them.
    #[command(after_help = "\
Examples:
  pbem dismiss 3fa2b1c0        the refusal `pbem status` lists with this handle
  pbem dismiss --all")]
    Dismiss(status::DismissArgs),
    /// Create or check the config file.
    #[command(
        subcommand,
        after_help = "\
Examples:
  pbem config init --name Alice --email alice@example.org
  pbem config check"
    )]
    Config(config_cmd::ConfigCommand),
    /// Print a shell completion script.
    #[command(after_help = "\
Examples:
  pbem completions bash > ~/.local/share/bash-completion/completions/pbem
  pbem completions zsh > ~/.zfunc/_pbem")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Runs the command line with these arguments and returns the exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = execute(cli.command, cli.config.as_deref(), &mut out).and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Invalid) => ExitCode::from(1),
        Err(CliError::Output(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(CliError::Reported(diagnostic)) => {
            let _ = writeln!(io::stderr(), "{diagnostic}");
            ExitCode::from(1)
        }
        Err(CliError::Invalid(message)) => {
            let _ = writeln!(io::stderr(), "pbem: error: {}", escape_controls(&message));
            ExitCode::from(1)
        }
        Err(error) => {
            let _ = writeln!(
                io::stderr(),
                "pbem: error: {}",
                escape_controls(&error.to_string())
            );
            ExitCode::from(2)
        }
    }
}

/// `pbem sync` (and the play page's Sync): the mail in and out, then the conditional
/// replies the new turns made due, played and sent in the same run.
fn sync(args: &mail::SyncArgs, home: &home::Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let synced = mail::sync(args, home, out);
    conditional::answer(home, out, true)?;
    synced
}

/// Runs one command with the given `--config`, writing its output to `out`.
pub fn execute(
    command: Command,
    config: Option<&Path>,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let home = || home::open(config);
    match command {
        Command::New(args) => play::new(&args, &home()?, out),
        Command::Move(args) => play::make_move(&args, &home()?, out),
        Command::Draw(args) => play::draw(&args, &home()?, out),
        Command::Resign(args) => play::resign(&args, &home()?, out),
        Command::ClaimTime(args) => play::claim_time(&args, &home()?, out),
        Command::Fair(args) => play::fair_command(&args, &home()?, out),
        Command::Secret(args) => play::secret(&args, &home()?, out),
        Command::AllowTyped(args) => play::allow_typed(&args, &home()?, out),
        Command::Status(args) => status::run(&args, &home()?, out),
        Command::Play(args) => board_page::run(&args, config, out),
        Command::Send(args) => mail::send(&args, &home()?, out),
        Command::Receive(args) => {
            let home = home()?;
            let status = mail::receive(&args, &home, out)?;
            conditional::answer(&home, out, false)?;
            Ok(status)
        }
        Command::Sync(args) => sync(&args, &home()?, out),
        Command::If(args) => conditional::run_if(&args, &home()?, out),
        Command::Book(command) => conditional::run_book(&command, &home()?, out),
        Command::Dismiss(args) => status::dismiss(&args, &home()?, out),
        Command::Config(command) => config_cmd::run(&command, config, out),
        Command::Validate(args) => validate::run(&args, out),
        Command::Show(args) => show::run(&args, config, out),
        Command::Html(args) => html::run(&args, config, out),
        Command::Legal(args) => legal::run(&args, config, out),
        Command::Fmt(args) => fmt::run(&args, out),
        Command::Convert(args) => convert::run(&args, out),
        Command::Perft(args) => perft::run(&args, out),
        Command::Bench(args) => bench::run(&args, out),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "pbem", out);
            Ok(Status::Ok)
        }
    }
}

/// Reads a `--variant` value: a `[Variant]` name or alias, case-insensitive, spaces and
/// hyphens alike.
fn parse_variant(name: &str) -> Result<Variant, String> {
    Variant::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Variant::ALL.iter().map(|variant| variant.name()).collect();
        format!("unknown variant \"{name}\" (known: {})", known.join(", "))
    })
}

/// The game a record names, or a usage error for one pbem does not play.
fn record_variant(record: &crate::notation::Record) -> Result<Variant, CliError> {
    crate::replay::variant_of(record)
        .map_err(|name| CliError::Usage(format!("unsupported variant \"{name}\"")))
}

/// A position from `--fen` (the game's position string, or `start` for the game's
/// standard start, in every game), or the game's start. A string that does not read is
/// invalid input (exit 1), told with the field it is wrong in.
fn position_from<G: crate::games::Game>(fen: Option<&str>) -> Result<G, CliError> {
    match fen.map(str::trim) {
        Some(START) | None => Ok(G::start()),
        Some(text) => G::from_position_string(text)
            .map_err(|error| CliError::Reported(diagnostic::position_error("--fen", text, &error))),
    }
}

/// What `--fen` takes for the game's standard start, in every game.
const START: &str = "start";

pub(crate) use crate::desk::escape_controls;

/// A file argument: a path, or `-` for standard input.
fn display_path(path: &Path) -> String {
    crate::batch::display_name(path)
}

/// Replaces the file at `path` atomically ([`crate::store::write_atomically_with`]) with
/// what `fill` writes as it goes. `fill` returns its outcome and whether to keep what it
/// wrote; when it says not to, or fails, the file is left as it was.
fn write_file_with<T>(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(T, bool), CliError>,
) -> Result<T, CliError> {
    let mut outcome = None;
    let written = crate::store::write_atomically_with(path, |sink| {
        let result = fill(sink);
        let keep = matches!(result, Ok((_, true)));
        outcome = Some(result);
        if keep {
            Ok(())
        } else {
            // Leaves the target as it was.
            Err(io::Error::other("not kept"))
        }
    });
    let io_error = |source| CliError::Io {
        path: display_path(path),
        source,
    };
    match outcome {
        // Not kept, as `fill` chose.
        Some(Ok((value, false))) => Ok(value),
        Some(Ok((value, true))) => written.map(|()| value).map_err(io_error),
        // A write into the temporary file failed.
        Some(Err(CliError::Output(source))) => Err(io_error(source)),
        Some(Err(error)) => Err(error),
        // No temporary file could be made, so `fill` never ran.
        None => {
            Err(io_error(written.err().unwrap_or_else(|| {
                io::Error::other("the file was not written")
            })))
        }
    }
}
