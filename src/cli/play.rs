//! Playing by mail, locally: `pbem new`, `move`, `draw`, `resign`, `claim-time`, `fair`,
//! `secret` and `allow-typed`: their arguments, and what they print of what
//! [`crate::desk::play`] did.

use std::io::Write;

use super::home::{self, Home};
use super::{CliError, Status, parse_variant};
use crate::clock::TimeControl;
use crate::config::Player;
use crate::correspondence::{self, Event};
use crate::desk;
use crate::desk::play::{GameSetup, TurnOptions};
use crate::games::Variant;

pub(super) use crate::desk::play::{hand_line, own_hand};

/// Arguments of `pbem new`.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The game (a `[Variant]` name).
    #[arg(long, value_name = "NAME", value_parser = parse_variant, default_value = "Chess")]
    pub variant: Variant,
    /// Your opponent, as `"Bob <bob@example.org>"` (or the address alone); you are the
    /// player of your config file, White unless `--as black`.
    #[arg(long, value_name = "\"NAME <ADDR>\"", conflicts_with_all = ["white", "white_email", "black", "black_email"])]
    pub opponent: Option<String>,
    /// With --opponent: the side you play (White by default).
    #[arg(long = "as", value_enum, value_name = "SIDE", requires = "opponent")]
    pub side: Option<Side>,
    /// White's name (with --white-email; a side left out is you, from the config).
    #[arg(long, value_name = "NAME")]
    pub white: Option<String>,
    /// White's mail address.
    #[arg(long, value_name = "ADDR")]
    pub white_email: Option<String>,
    /// Black's name (with --black-email; a side left out is you, from the config).
    #[arg(long, value_name = "NAME")]
    pub black: Option<String>,
    /// Black's mail address.
    #[arg(long, value_name = "ADDR")]
    pub black_email: Option<String>,
    /// Start from this position (the game's position string) instead of the standard one;
    /// `start` is the standard one.
    #[arg(long, value_name = "POS")]
    pub fen: Option<String>,
    /// Correspondence time control: `10/50d` (10 turns in 50 days, carried over), `3d`
    /// (3 days a turn), optionally `+30d` leave days.
    #[arg(long, value_name = "TC")]
    pub time_control: Option<TimeControl>,
    /// Chess with wickets: how an attempt on a wicket is decided: Deterministic (the
    /// default), "Deterministic II", Dice, "Dice II", Cards or "Cards II" (also det,
    /// det2, dice, dice2, cards, cards2). Written as the game's `[Decision]` tag.
    #[arg(long, value_name = "MODE")]
    pub decision: Option<String>,
    /// Chess with wickets, Cards modes: no fair deal; the players write their cards
    /// themselves (the honour system), as `[Dealing "by hand"]`.
    #[arg(long)]
    pub cards_by_hand: bool,
    /// Give the game a shared secret: every mail then carries an authentication code.
    /// The secret is printed once (on standard error) for you to tell your opponent.
    #[arg(long)]
    pub secret: bool,
    /// With --secret: still take in turns your opponent types by hand in a reply (which
    /// carry no authentication code); without it such a reply is refused.
    #[arg(long, requires = "secret")]
    pub allow_typed: bool,
}

/// A side of the board, as `--as` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

/// Arguments of `pbem move`.
#[derive(Debug, clap::Args)]
pub struct MoveArgs {
    /// The game: its file, its id, or the start of its id.
    #[arg(value_name = "GAME")]
    pub game: String,
    /// Your turn, as the game's notation writes it (`Nf3`, `e2e4`, `O-O`...).
    #[arg(value_name = "TURN")]
    pub turn: String,
    /// Offer a draw with this turn.
    #[arg(long)]
    pub offer_draw: bool,
    /// Leave days taken while thinking about this turn (not counted as reflection time).
    #[arg(long, value_name = "DAYS", default_value_t = 0)]
    pub leave: u32,
}

/// What `pbem draw` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DrawAction {
    /// Offer a draw.
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Claim a draw by threefold repetition or the fifty-move rule.
    Claim,
}

/// Arguments of `pbem draw`.
#[derive(Debug, clap::Args)]
pub struct DrawArgs {
    /// Offer, accept or claim.
    #[arg(value_enum)]
    pub action: DrawAction,
    /// The game.
    #[arg(value_name = "GAME")]
    pub game: String,
}

/// Arguments of commands that name only a game.
#[derive(Debug, clap::Args)]
pub struct GameArg {
    /// The game: its file, its id, or the start of its id.
    #[arg(value_name = "GAME")]
    pub game: String,
}

/// Arguments of `pbem secret`.
#[derive(Debug, clap::Args)]
pub struct SecretArgs {
    /// The game's id (the game need not have arrived yet).
    #[arg(value_name = "GAME_ID")]
    pub game_id: String,
    /// The secret your opponent told you (hex, as `pbem new --secret` printed it).
    #[arg(value_name = "SECRET")]
    pub secret: String,
    /// Take in turns your opponent types by hand in a reply (which carry no
    /// authentication code); without it such a reply is refused.
    #[arg(long)]
    pub allow_typed: bool,
}

/// Arguments of `pbem allow-typed`.
#[derive(Debug, clap::Args)]
pub struct AllowTypedArgs {
    /// The game: its file, its id, or the start of its id.
    #[arg(value_name = "GAME")]
    pub game: String,
    /// Refuse typed turns again.
    #[arg(long)]
    pub off: bool,
}

/// The two players of a new game: `--opponent` (and `--as`) with the player of the
/// config, or the long options, a side left out being the player of the config.
fn players(args: &NewArgs, home: &Home) -> Result<(Player, Player), CliError> {
    let me = home.settings.player.clone();
    let usage = "`pbem new --opponent \"Bob <bob@example.org>\"` (you play White; `--as black` to play Black), \
                 or both players with `pbem new --white NAME --white-email ADDR --black NAME --black-email ADDR`";
    if let Some(opponent) = &args.opponent {
        let opponent = parse_opponent(opponent)?;
        if opponent.email.eq_ignore_ascii_case(&me.email) {
            return Err(CliError::Usage(format!(
                "--opponent {} is your own address (from {}): name the other player",
                opponent.email,
                home.path.display()
            )));
        }
        return Ok(match args.side.unwrap_or(Side::White) {
            Side::White => (me, opponent),
            Side::Black => (opponent, me),
        });
    }
    let side = |name: &Option<String>, email: &Option<String>, color: &str| match (name, email) {
        (Some(name), Some(email)) => Ok(Some(Player {
            name: name.trim().to_owned(),
            email: email.trim().to_owned(),
        })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(CliError::Usage(format!(
            "--{color} names {color} but --{color}-email is missing: give both, or neither to play {color} yourself"
        ))),
        (None, Some(_)) => Err(CliError::Usage(format!(
            "--{color}-email is given but --{color} (the name) is missing: give both, or neither to play {color} yourself"
        ))),
    };
    let white = side(&args.white, &args.white_email, "white")?;
    let black = side(&args.black, &args.black_email, "black")?;
    match (white, black) {
        (Some(white), Some(black)) => Ok((white, black)),
        (Some(white), None) => Ok((white, me)),
        (None, Some(black)) => Ok((me, black)),
        (None, None) => Err(CliError::Usage(format!(
            "whom do you play? name your opponent: {usage}"
        ))),
    }
}

/// `--opponent`'s value: `Name <address>`, or the address alone.
fn parse_opponent(text: &str) -> Result<Player, CliError> {
    desk::play::player_from(text).ok_or_else(|| {
        CliError::Usage(format!(
            "--opponent \"{text}\" is not a name and a mail address: write it as \"Bob <bob@example.org>\" (or bob@example.org)"
        ))
    })
}

/// What `pbem fair` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FairAction {
    /// Reveal your seed of the game's deal (then your opponent knows all your cards).
    Reveal,
}

/// Arguments of `pbem fair`.
#[derive(Debug, clap::Args)]
pub struct FairArgs {
    /// What to do.
    #[arg(value_enum)]
    pub action: FairAction,
    /// The game.
    #[arg(value_name = "GAME")]
    pub game: String,
}

/// Runs `pbem new`: prints the new game file's path.
pub fn new(args: &NewArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let (white, black) = players(args, home)?;
    let setup = GameSetup {
        variant: args.variant,
        position: args.fen.clone().filter(|text| text.trim() != super::START),
        time_control: args.time_control,
        decision: args.decision.clone(),
        cards_by_hand: args.cards_by_hand,
        secret: args.secret,
        allow_typed: args.allow_typed,
        ..GameSetup::new(white, black, home::now()?)
    };
    let created = desk::play::new_game(home, &setup)?;
    if let Some(secret) = &created.secret {
        let id = &created.id;
        eprintln!(
            "pbem: the game's secret is {secret}\n\
             pbem: tell it to your opponent by phone or in person (not by mail); they run\n\
             pbem:     pbem secret {id} {secret}\n\
             pbem: before they take in your first mail. It is kept in {}",
            home.games.dir().join(format!("{id}.state.yaml")).display()
        );
    }
    writeln!(out, "{}", created.path.display())?;
    if let Some(next) = first_step(home, &created)? {
        eprintln!("pbem: {next}");
    }
    Ok(Status::Ok)
}

/// What the player who started a game does next, told by `pbem new` on standard error
/// (its standard output is the game file's path alone, for scripts): play the first turn
/// and send it, or, when the opponent moves first, send the game, which the opponent
/// knows of only from that mail. `None` for a game the player does not play in.
fn first_step(home: &Home, created: &desk::play::Created) -> Result<Option<String>, CliError> {
    let record = home.games.load(&created.path)?;
    let Some(you) = correspondence::side_of(&record, &home.settings.player.email) else {
        return Ok(None);
    };
    let id = &created.id;
    let first = correspondence::state(&record)
        .map_err(|error| CliError::Usage(format!("{id}: {error}")))?
        .to_move;
    if first == you {
        return Ok(Some(format!(
            "your turn first: pbem move {id} TURN, then send it with: pbem send {id}"
        )));
    }
    let opponent = record
        .tag(first.name())
        .filter(|name| !name.trim().is_empty() && *name != "?")
        .map_or_else(
            || first.to_string(),
            |name| format!("{} ({first})", super::escape_controls(name)),
        );
    Ok(Some(format!(
        "{opponent} moves first and knows of the game only from your mail: send it with: pbem send {id}"
    )))
}

/// Runs `pbem move`.
pub fn make_move(args: &MoveArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let options = TurnOptions {
        offer_draw: args.offer_draw,
        leave_days: args.leave,
        now: home::now()?,
    };
    let played = desk::play::play_turn(home, &args.game, &args.turn, &options)?;
    let id = &played.id;
    let mut line = format!("{id}: {}", played.label);
    if played.offered_draw {
        line.push_str(", offering a draw");
    }
    if let Some(result) = &played.result {
        line.push_str(&format!(", game over: {result}"));
    }
    writeln!(out, "{line}")?;
    if let Some(chance) = &played.chance {
        writeln!(out, "{id}: {chance}")?;
    }
    if played.awaits_roll {
        writeln!(
            out,
            "your value for the roll is revealed in the mail; your opponent's pbem computes the roll from both values when it arrives"
        )?;
    }
    writeln!(out, "send it with: pbem send {id}")?;
    Ok(Status::Ok)
}

/// Runs `pbem fair reveal`: writes the player's seed into a Cards game with a fair deal.
pub fn fair_command(args: &FairArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let FairAction::Reveal = args.action;
    let (id, already) = desk::play::reveal_seed(home, &args.game)?;
    if already {
        writeln!(out, "{id}: your seed is already in the game")?;
        return Ok(Status::Ok);
    }
    writeln!(
        out,
        "{id}: your seed is revealed: with your opponent's, `pbem validate` proves the deal; \
         your opponent now knows all your cards"
    )?;
    writeln!(out, "send it with: pbem send {id}")?;
    Ok(Status::Ok)
}

/// Runs `pbem draw`.
pub fn draw(args: &DrawArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let event = match args.action {
        DrawAction::Offer => Event::OfferDraw,
        DrawAction::Accept => Event::AcceptDraw,
        DrawAction::Claim => Event::ClaimDraw,
    };
    event_command(&args.game, event, home, out)
}

/// Runs `pbem resign`.
pub fn resign(args: &GameArg, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    event_command(&args.game, Event::Resign, home, out)
}

/// Runs `pbem claim-time`.
pub fn claim_time(args: &GameArg, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    event_command(&args.game, Event::ClaimTime(home::now()?), home, out)
}

fn event_command(
    game: &str,
    event: Event,
    home: &Home,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let acted = desk::play::act(home, game, event)?;
    let (id, result) = (&acted.id, &acted.result);
    let what = match event {
        Event::OfferDraw => "draw offered".to_owned(),
        Event::AcceptDraw => "draw agreed: 1/2-1/2".to_owned(),
        Event::ClaimDraw => "draw claimed: 1/2-1/2".to_owned(),
        Event::Resign => format!("resigned: {result}"),
        Event::ClaimTime(_) => format!("claimed on time: {result}"),
    };
    writeln!(out, "{id}: {what}")?;
    if acted.seed_added {
        writeln!(out, "{id}: {}", desk::play::SEED_ADDED)?;
    }
    writeln!(out, "send it with: pbem send {id}")?;
    Ok(Status::Ok)
}

/// Runs `pbem secret`.
pub fn secret(args: &SecretArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    desk::play::set_secret(home, &args.game_id, &args.secret, args.allow_typed)?;
    writeln!(
        out,
        "{}: secret stored; mails of this game must now carry its code{}",
        args.game_id,
        if args.allow_typed {
            " (turns typed by hand in a reply are taken in too)"
        } else {
            ""
        }
    )?;
    Ok(Status::Ok)
}

/// Runs `pbem allow-typed`: in a game with a secret, takes in (or, with `--off`, refuses
/// again) turns typed by hand in a reply, without the secret being typed again.
pub fn allow_typed(
    args: &AllowTypedArgs,
    home: &Home,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let (id, has_secret) = desk::play::allow_typed(home, &args.game, !args.off)?;
    if !has_secret {
        writeln!(
            out,
            "{id}: the game has no secret here, so turns typed by hand in a reply are taken in already"
        )?;
    } else if args.off {
        writeln!(
            out,
            "{id}: turns typed by hand in a reply are refused again (`pbem allow-typed {id}` allows them)"
        )?;
    } else {
        writeln!(
            out,
            "{id}: turns typed by hand in a reply are taken in (they carry no authentication code; `pbem allow-typed {id} --off` refuses them again)"
        )?;
    }
    Ok(Status::Ok)
}
