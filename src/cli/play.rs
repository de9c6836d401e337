//! Playing by mail, locally: `pbem new`, `move`, `draw`, `resign` and `secret`.

use std::io::Write;

use super::home::{self, Home};
use super::{CliError, Status, diagnostic, parse_variant};
use crate::clock::{Stamp, TimeControl};
use crate::config::{Player, is_plausible_address};
use crate::correspondence::{self, Event, NewGame, PlayError};
use crate::fair::deal::Dealer;
use crate::fair::{self, Chain, Fairness};
use crate::games::Variant;
use crate::games::wickets::DecisionMode;
use crate::games::{Color, Game};
use crate::notation::{Record, Span};
use crate::replay::{Finding, FindingKind, Severity};
use crate::store::LocalState;

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

/// `--opponent`'s value: `Name <address>`, or the address alone (the name is then the
/// address's local part).
fn parse_opponent(text: &str) -> Result<Player, CliError> {
    let mailbox: lettre::message::Mailbox = text.trim().parse().map_err(|_| {
        CliError::Usage(format!(
            "--opponent \"{text}\" is not a name and a mail address: write it as \"Bob <bob@example.org>\" (or bob@example.org)"
        ))
    })?;
    let email = mailbox.email.to_string();
    let name = mailbox
        .name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or_default())
        .to_owned();
    Ok(Player { name, email })
}

/// Runs `pbem new`: prints the new game file's path.
pub fn new(args: &NewArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let (white, black) = players(args, home)?;
    for address in [&white.email, &black.email] {
        if !is_plausible_address(address) {
            return Err(CliError::Usage(format!(
                "\"{address}\" is not a mail address (expected name@domain)"
            )));
        }
    }
    // A start that does not read is told with the field it is wrong in.
    if let Some(text) = args.fen.as_deref().map(str::trim)
        && text != super::START
    {
        crate::with_game!(args.variant, G => G::from_position_string(text).map(|_| ())).map_err(
            |error| CliError::Reported(diagnostic::position_error("--fen", text, &error)),
        )?;
    }
    let now = home::now()?;
    let entropy = home::random_bytes(8)?;
    let entropy = u64::from_le_bytes(entropy.try_into().unwrap_or_default());
    let new_game = NewGame {
        variant: args.variant,
        white,
        black,
        position: args.fen.clone().filter(|text| text.trim() != super::START),
        time_control: args.time_control,
        game_id: correspondence::new_game_id(now, entropy),
        started: now,
    };
    let mut record = correspondence::new_record(&new_game)
        .map_err(|error| CliError::Usage(error.to_string()))?;
    if let Some(decision) = &args.decision {
        if args.variant != Variant::ChessWithWickets {
            return Err(CliError::Usage(format!(
                "--decision is for Chess with wickets, not {}",
                args.variant
            )));
        }
        let mode = DecisionMode::from_name(decision)
            .map_err(|error| CliError::Usage(error.to_string()))?;
        record.set_tag("Decision", mode.name());
        // The start must still be playable (a --fen's mode field must agree).
        correspondence::state(&record).map_err(|error| CliError::Usage(error.to_string()))?;
    }
    if args.cards_by_hand {
        if args.variant != Variant::ChessWithWickets {
            return Err(CliError::Usage(format!(
                "--cards-by-hand is for Chess with wickets, not {}",
                args.variant
            )));
        }
        record.set_tag(fair::cards::BY_HAND_TAG, fair::cards::BY_HAND);
    }
    let Some(you) = correspondence::side_of(&record, &home.settings.player.email) else {
        return Err(CliError::Usage(format!(
            "you ({}) are neither White nor Black in this game",
            home.settings.player.email
        )));
    };
    let id = new_game.game_id.as_str();
    let mut state = home.games.state(id)?;
    // Fair dice: the creator commits now, the opponent on its first receipt.
    ensure_committed(&mut record, you, &mut state)?;
    // Fair cards: White's first message of the deal.
    ensure_dealt(&mut record, you, &mut state)?;
    // The game "reaches" its creator now: their reflection time starts from here.
    state.received = Some(now);
    if args.secret {
        let secret = hex(&home::random_bytes(16)?);
        eprintln!(
            "pbem: the game's secret is {secret}\n\
             pbem: tell it to your opponent by phone or in person (not by mail); they run\n\
             pbem:     pbem secret {id} {secret}\n\
             pbem: before they take in your first mail. It is kept in {}",
            home.games.dir().join(format!("{id}.state.yaml")).display()
        );
        state.secret = Some(secret);
        state.allow_typed = args.allow_typed;
    }
    let path = home
        .games
        .commit(id, Some(&correspondence::to_text(&record)), Some(&state))?;
    writeln!(out, "{}", path.display())?;
    Ok(Status::Ok)
}

/// Runs `pbem move`.
pub fn make_move(args: &MoveArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let path = home.games.find(&args.game)?;
    let mut record = home.games.load(&path)?;
    let id = game_id_of(&record, &path)?;
    let mut state = home.games.state(&id)?;
    let stamp = Stamp {
        received: state.received,
        sent: Some(home::now()?),
        leave_days: args.leave,
    };
    let player = &home.settings.player.email;
    let you = correspondence::side_of(&record, player);
    let state_changed = match you {
        Some(you) => {
            ensure_committed(&mut record, you, &mut state)?
                | ensure_dealt(&mut record, you, &mut state)?
        }
        None => false,
    };
    let before = record.clone();
    let played = match correspondence::play(&mut record, player, &args.turn, stamp) {
        Ok(played) => played,
        // A mistyped or illegal turn is invalid input, told as `validate` tells it.
        Err(PlayError::Turn(reason)) => {
            return Err(refused_turn(&before, &id, home, &args.turn, &reason));
        }
        Err(error) => return Err(CliError::Usage(format!("{}: {error}", path.display()))),
    };
    let mut awaits_roll = false;
    if let Some(you) = you
        && fair::uses_dice(&record)
    {
        let chain = chance_chain(&mut state)?;
        fair::reveal_attempt(&mut record, you, &chain)
            .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
        awaits_roll = crate::replay::replay_game::<crate::games::wickets::Wickets>(&record)
            .position
            .is_some_and(|position| position.awaits_roll());
        if let Fairness::Broken { ply, reason } = fair::check(&record) {
            // A roll typed with the attempt: pbem draws it, so the attempt is typed bare.
            let typed = fair::as_typed(&played.token);
            let hint = if typed == played.token {
                String::new()
            } else {
                format!(
                    "; pbem draws the roll, so type the attempt without it: pbem move {id} {typed}"
                )
            };
            return Err(CliError::Usage(format!(
                "{}: refused, the game's dice are fair and this turn would break them: ply {ply}: {reason}{hint}",
                path.display()
            )));
        }
    }
    if let Some(you) = you
        && fair::uses_cards(&record)
    {
        let dealer = dealer(&mut state)?;
        fair::cards::after_move(&before, &mut record, you, &dealer).map_err(|error| {
            CliError::Usage(format!(
                "{}: refused, the game's cards are dealt fairly: {error}",
                path.display()
            ))
        })?;
    }
    if args.offer_draw {
        correspondence::record_event(&mut record, player, Event::OfferDraw)
            .map_err(|error| CliError::Usage(error.to_string()))?;
    }
    let owed = state.last_mail_owed;
    if let Some(you) = you {
        note_last_mail(&record, you, &mut state);
    }
    home.games.commit(
        &id,
        Some(&correspondence::to_text(&record)),
        (state_changed || owed != state.last_mail_owed).then_some(&state),
    )?;
    let mut line = format!("{}: {}", id, played.label);
    if args.offer_draw {
        line.push_str(", offering a draw");
    }
    if let Some(result) = played.result {
        line.push_str(&format!(", game over: {result}"));
    }
    writeln!(out, "{line}")?;
    if let Some(chance) = chance_outcome(&record) {
        writeln!(out, "{id}: {chance}")?;
    }
    if awaits_roll {
        writeln!(
            out,
            "your value for the roll is revealed in the mail; your opponent's pbem computes the roll from both values when it arrives"
        )?;
    }
    writeln!(out, "send it with: pbem send {id}")?;
    Ok(Status::Ok)
}

/// What chance decided in the last turn of a Chess with wickets game, in words (a roll
/// against what was needed, a card pair, a Cards II decline); `None` for another turn or
/// game, or while the roll or every pair is still awaited.
pub(super) fn chance_outcome(record: &Record) -> Option<String> {
    use crate::games::Game;
    use crate::games::wickets::Wickets;
    if crate::replay::variant_of(record).ok()? != Variant::ChessWithWickets {
        return None;
    }
    let mut before = record.clone();
    let last = before.moves.turns.pop()?;
    let position = crate::replay::replay_game::<Wickets>(&before).position?;
    let turn = position
        .resolve(&Wickets::parse_turn(&last.token).ok()?)
        .ok()?;
    position.chance_outcome(&turn)
}

/// The diagnostic for a turn `pbem move` refused (`reason`, as the game's rules gave it):
/// the reason, the turn typed with a caret, the closest legal turn and the legal turns
/// (as the player types them: a card of the hand when one is awaited, an attempt without
/// its roll in a game with fair dice), and the command that plays the closest.
fn refused_turn(record: &Record, id: &str, home: &Home, token: &str, reason: &str) -> CliError {
    let token = token.trim();
    let mut finding = turn_finding(record, home, token).unwrap_or_else(|| {
        Finding::new(Severity::Error, FindingKind::Illegal, reason, Span::START)
    });
    if fair::uses_dice(record) {
        finding.legal = fair::typed_turns(&finding.legal);
        finding.closest = crate::replay::closest_match(token, &finding.legal);
    }
    if let Ok(state) = correspondence::state(record) {
        finding.move_number = Some(state.next_number);
        finding.ply = Some(u32::try_from(record.moves.turns.len() + 1).unwrap_or(u32::MAX));
    }
    finding.token = Some(token.to_owned());
    let source = diagnostic::Source {
        path: "TURN",
        text: token,
        start: Span::START,
    };
    let mut text =
        diagnostic::render_about(&finding, Some(id), &source, diagnostic::stderr_styled());
    text.push_str(&format!("\npbem: {id} is unchanged"));
    if let Some(closest) = &finding.closest {
        text.push_str(&format!(
            "; to play the closest legal turn: pbem move {id} {closest}"
        ));
    }
    CliError::Reported(text)
}

/// What is wrong with `token` as the player's next act in the game: a turn that does not
/// read or is not legal (as `validate` would find it in the record), or not a part the
/// last turn awaits (then the parts the player may add are the legal list).
fn turn_finding(record: &Record, home: &Home, token: &str) -> Option<Finding> {
    let variant = crate::replay::variant_of(record).ok()?;
    crate::with_game!(variant, G => {
        let replayed = crate::replay::replay_game::<G>(record);
        let (start, position) = (replayed.start?, replayed.position?);
        if let Some(awaited) = position.awaiting() {
            let parts: Vec<String> = match own_hand(record, home) {
                Some((you, dealer, _)) => {
                    let mut parts: Vec<String> = fair::cards::may_play(record, you, &dealer)?
                        .iter()
                        .map(ToString::to_string)
                        .collect();
                    if fair::cards::may_decline(record) {
                        parts.push("-".to_owned());
                    }
                    parts
                }
                None => position.awaited_parts(),
            };
            let closest = crate::replay::closest_match(token, &parts);
            let example = parts.first().map_or_else(String::new, |part| format!(" (as {part})"));
            return Some(Finding {
                closest,
                legal: parts,
                ..Finding::new(
                    Severity::Error,
                    FindingKind::Illegal,
                    format!(
                        "{awaited}: type a card you may play{example}, or the whole turn with \
                         it added, not \"{token}\""
                    ),
                    Span::START,
                )
            });
        }
        let history = crate::replay::History::of_line(&start, &replayed.turns);
        crate::replay::diagnose_turn(&position, &history, token)
    })
}

/// The player's hash chain for fair dice, its seed drawn from the system's random
/// source the first time and kept in the game's private local state.
pub(super) fn chance_chain(state: &mut LocalState) -> Result<Chain, CliError> {
    if let Some(chain) = state.chance_seed.as_deref().and_then(Chain::from_hex) {
        return Ok(chain);
    }
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&home::random_bytes(32)?);
    let chain = Chain::from_seed(seed);
    state.chance_seed = Some(chain.seed_hex());
    Ok(chain)
}

/// The player's side of the fair deal (Cards modes), from the same secret seed as the
/// dice chain, kept in the game's private local state.
pub(super) fn dealer(state: &mut LocalState) -> Result<Dealer, CliError> {
    let chain = chance_chain(state)?;
    let mut seed = [0u8; 32];
    hex::decode_to_slice(chain.seed_hex(), &mut seed)
        .map_err(|error| CliError::Usage(format!("the local state's seed: {error}")))?;
    Ok(Dealer::from_seed(seed))
}

/// The player's own hand in a game with a fair deal, from its local state (read only:
/// without a seed there is no hand).
pub(super) fn own_hand(record: &Record, home: &Home) -> Option<(Color, Dealer, fair::cards::Hand)> {
    if !fair::uses_cards(record) {
        return None;
    }
    let you = correspondence::side_of(record, &home.settings.player.email)?;
    let state = home.games.state(correspondence::game_id(record)?).ok()?;
    let mut seed = [0u8; 32];
    hex::decode_to_slice(state.chance_seed.as_deref()?, &mut seed).ok()?;
    let dealer = Dealer::from_seed(seed);
    let hand = fair::cards::hand(record, you, &dealer)?;
    Some((you, dealer, hand))
}

/// What the player is told of its own hand (never mailed).
pub(super) fn hand_line(hand: &fair::cards::Hand) -> String {
    if !hand.dealt {
        return "your hand: not dealt yet (the deal rides in the first three mails of the game)"
            .to_owned();
    }
    let mut line = format!("your hand: {}", hand.text());
    if hand.pending > 0 {
        line.push_str(&format!(
            " (and {} drawn card{} that open{} with your opponent's next mail)",
            hand.pending,
            if hand.pending == 1 { "" } else { "s" },
            if hand.pending == 1 { "s" } else { "" }
        ));
    }
    line
}

/// In a game with fair cards, adds the steps of the deal the player can take now (its
/// messages, its keys for the other side's cards, its seed at the end); says whether the
/// local state changed (a new seed).
pub(super) fn ensure_dealt(
    record: &mut Record,
    you: Color,
    state: &mut LocalState,
) -> Result<bool, CliError> {
    if !fair::uses_cards(record) {
        return Ok(false);
    }
    let had_seed = state.chance_seed.is_some();
    let dealer = dealer(state)?;
    fair::cards::advance(record, you, &dealer)
        .map_err(|error| CliError::Usage(format!("the game's deal cannot go on: {error}")))?;
    Ok(!had_seed)
}

/// In a game with fair dice, writes the player's commitment when the record has none
/// from them yet; says whether the local state changed (a new seed).
pub(super) fn ensure_committed(
    record: &mut Record,
    you: Color,
    state: &mut LocalState,
) -> Result<bool, CliError> {
    if !fair::uses_dice(record) || fair::has_committed(record, you) {
        return Ok(false);
    }
    let had_seed = state.chance_seed.is_some();
    let chain = chance_chain(state)?;
    fair::commit(record, you, &chain);
    Ok(!had_seed)
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

/// Runs `pbem fair reveal`: writes the player's seed into a Cards game with a fair deal.
pub fn fair_command(args: &FairArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let FairAction::Reveal = args.action;
    let path = home.games.find(&args.game)?;
    let mut record = home.games.load(&path)?;
    let id = game_id_of(&record, &path)?;
    let mut state = home.games.state(&id)?;
    let Some(you) = correspondence::side_of(&record, &home.settings.player.email) else {
        return Err(CliError::Usage(format!(
            "you ({}) are neither White nor Black in this game",
            home.settings.player.email
        )));
    };
    if !fair::cards::has_deal(&record) {
        return Err(CliError::Usage(format!(
            "{}: the game has no fair deal to reveal",
            path.display()
        )));
    }
    if fair::cards::seed_revealed(&record, you) {
        writeln!(out, "{id}: your seed is already in the game")?;
        return Ok(Status::Ok);
    }
    if state.chance_seed.is_none() {
        return Err(CliError::Usage(format!(
            "{id}: no seed of yours in the local state"
        )));
    }
    let dealer = dealer(&mut state)?;
    fair::cards::reveal_seed(&mut record, you, &dealer);
    note_last_mail(&record, you, &mut state);
    home.games
        .commit(&id, Some(&correspondence::to_text(&record)), Some(&state))?;
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
    let path = home.games.find(game)?;
    let mut record = home.games.load(&path)?;
    let id = game_id_of(&record, &path)?;
    let mut state = home.games.state(&id)?;
    let player = &home.settings.player.email;
    correspondence::record_event(&mut record, player, event)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
    // An event that ends a game with a fair deal carries the player's seed, as a last
    // turn does (`record_event` checked that the player plays in the game).
    let seeded = match correspondence::side_of(&record, player) {
        Some(you) => {
            let had = fair::cards::seed_revealed(&record, you);
            ensure_dealt(&mut record, you, &mut state)?;
            note_last_mail(&record, you, &mut state);
            !had && fair::cards::seed_revealed(&record, you)
        }
        None => false,
    };
    home.games
        .commit(&id, Some(&correspondence::to_text(&record)), Some(&state))?;
    let what = match event {
        Event::OfferDraw => "draw offered".to_owned(),
        Event::AcceptDraw => "draw agreed: 1/2-1/2".to_owned(),
        Event::ClaimDraw => "draw claimed: 1/2-1/2".to_owned(),
        Event::Resign => format!("resigned: {}", record.tag("Result").unwrap_or("*")),
        Event::ClaimTime(_) => format!("claimed on time: {}", record.tag("Result").unwrap_or("*")),
    };
    writeln!(out, "{id}: {what}")?;
    if seeded {
        writeln!(out, "{id}: {SEED_ADDED}")?;
    }
    writeln!(out, "send it with: pbem send {id}")?;
    Ok(Status::Ok)
}

/// What the player is told when its pbem adds its seed at the end of a game.
pub(super) const SEED_ADDED: &str = "your seed of the deal is added to the game, which is \
    over: with your opponent's, `pbem validate` proves the deal";

/// Notes in the local state whether the game is over and the player acted last (its
/// result, or its seed of a fair deal added to the opponent's result): that last mail is
/// owed, and `pbem status` lists the game, until `pbem send` puts it in the outbox.
pub(super) fn note_last_mail(record: &Record, you: Color, state: &mut LocalState) {
    let over = !matches!(record.tag("Result").map(str::trim), None | Some("*"));
    state.last_mail_owed = over
        && correspondence::state(record)
            .is_ok_and(|game| correspondence::last_actor(record, &game.turns) == Some(you));
}

/// Runs `pbem secret`.
pub fn secret(args: &SecretArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let secret = args.secret.trim().to_ascii_lowercase();
    if secret.len() < 16
        || !secret.len().is_multiple_of(2)
        || !secret.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Err(CliError::Usage(
            "the secret is the hex string `pbem new --secret` printed (32 hex digits)".to_owned(),
        ));
    }
    let mut state = home.games.state(&args.game_id)?;
    state.secret = Some(secret);
    state.allow_typed = args.allow_typed;
    home.games.save_state(&args.game_id, &state)?;
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
    let path = home.games.find(&args.game)?;
    let record = home.games.load(&path)?;
    let id = game_id_of(&record, &path)?;
    let mut state = home.games.state(&id)?;
    if state.secret.is_none() {
        writeln!(
            out,
            "{id}: the game has no secret here, so turns typed by hand in a reply are taken in already"
        )?;
        return Ok(Status::Ok);
    }
    state.allow_typed = !args.off;
    home.games.save_state(&id, &state)?;
    if args.off {
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

/// The game's id from its `GameId` tag.
pub(super) fn game_id_of(
    record: &crate::notation::Record,
    path: &std::path::Path,
) -> Result<String, CliError> {
    correspondence::game_id(record)
        .map(str::to_owned)
        .ok_or_else(|| {
            CliError::Usage(format!(
                "{}: no GameId tag; this is not a game started with `pbem new`",
                path.display()
            ))
        })
}

/// Lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}
