//! The player's own acts on a game in the home: a new game ([`new_game`]), a turn
//! ([`play_turn`]), an event ([`act`]: a draw offered, accepted or claimed, a
//! resignation, a claim on time), the seed of a fair deal revealed ([`reveal_seed`]), a
//! game's secret ([`set_secret`], [`allow_typed`]). Each checks the act against the game
//! (`correspondence`), takes the steps of the game's fair chance that fall to the player
//! (its commitment to the dice, its value of a roll, its messages and keys of the deal,
//! its seed at the end), notes whether the game's last mail is owed, and saves the game
//! file and its local state as one step. The mail goes out through [`super::outbox`].

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{DeskError, Home};
use crate::clock::{Stamp, TimeControl};
use crate::config::{Player, is_plausible_address};
use crate::correspondence::{self, Event, NewGame, PlayError};
use crate::fair::deal::Dealer;
use crate::fair::{self, Chain, Fairness};
use crate::games::wickets::DecisionMode;
use crate::games::{Color, Game, Variant};
use crate::notation::{Record, Span};
use crate::replay::{Finding, FindingKind, Severity};
use crate::store::LocalState;

/// How a turn is played: with a draw offer, after leave days, at a time.
#[derive(Clone, Copy, Debug)]
pub struct TurnOptions {
    /// Offer a draw with the turn.
    pub offer_draw: bool,
    /// Leave days taken while thinking about this turn (not counted as reflection time).
    pub leave_days: u32,
    /// When the turn is played (its stamp's `sent`).
    pub now: DateTime<Utc>,
}

impl TurnOptions {
    /// A turn played at `now`, without a draw offer or leave.
    #[must_use]
    pub fn at(now: DateTime<Utc>) -> TurnOptions {
        TurnOptions {
            offer_draw: false,
            leave_days: 0,
            now,
        }
    }
}

/// A turn played and saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game's id.
    pub id: String,
    /// The turn with its number, as written in the record (`12. Nf3`).
    pub label: String,
    /// Whether a draw was offered with it.
    pub offered_draw: bool,
    /// The result, when the turn ended the game by rule.
    pub result: Option<String>,
    /// What chance decided in the turn, in words (a roll, a card pair), when it is known.
    pub chance: Option<String>,
    /// Whether the turn awaits a roll the opponent's pbem computes from both values.
    pub awaits_roll: bool,
}

/// An event recorded and saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acted {
    /// The game's id.
    pub id: String,
    /// The event.
    pub event: Event,
    /// The game's result after it (`*` while it goes on).
    pub result: String,
    /// Whether the player's seed of a fair deal was added to the game, which is over.
    pub seed_added: bool,
}

/// A new game: the players, the game and its options.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The game.
    pub variant: Variant,
    /// White's player.
    pub white: Player,
    /// Black's player.
    pub black: Player,
    /// Another start (the game's position string), if any.
    pub position: Option<String>,
    /// The correspondence time control, if any.
    pub time_control: Option<TimeControl>,
    /// Chess with wickets: the decision mode's name (`[Decision]`).
    pub decision: Option<String>,
    /// Chess with wickets, Cards modes: the players write their cards themselves.
    pub cards_by_hand: bool,
    /// Give the game a shared secret (every mail then carries an authentication code).
    pub secret: bool,
    /// With a secret: still take in turns typed by hand in a reply.
    pub allow_typed: bool,
    /// When the game starts.
    pub now: DateTime<Utc>,
}

impl GameSetup {
    /// A game of chess from the standard start between `white` and `black`, without
    /// options, started at `now`.
    #[must_use]
    pub fn new(white: Player, black: Player, now: DateTime<Utc>) -> GameSetup {
        GameSetup {
            variant: Variant::Chess,
            white,
            black,
            position: None,
            time_control: None,
            decision: None,
            cards_by_hand: false,
            secret: false,
            allow_typed: false,
            now,
        }
    }
}

/// A new game saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Created {
    /// The game's id.
    pub id: String,
    /// Its game file.
    pub path: PathBuf,
    /// The game's secret (hex), when it has one: for the player to tell the opponent.
    pub secret: Option<String>,
}

/// Starts a game in the home: checks the players, the start and the options, writes the record (the
/// creator's commitment to fair dice, White's first message of a fair deal), and saves it.
pub fn new_game(home: &Home, setup: &GameSetup) -> Result<Created, DeskError> {
    for address in [&setup.white.email, &setup.black.email] {
        if !is_plausible_address(address) {
            return Err(DeskError::Cannot(format!(
                "\"{address}\" is not a mail address (expected name@domain)"
            )));
        }
    }
    if let Some(text) = setup.position.as_deref().map(str::trim) {
        crate::with_game!(setup.variant, G => G::from_position_string(text).map(|_| ())).map_err(
            |error| DeskError::Position {
                text: text.to_owned(),
                error,
            },
        )?;
    }
    let now = setup.now;
    let entropy = super::random_bytes(8)?;
    let entropy = u64::from_le_bytes(entropy.try_into().unwrap_or_default());
    let new_game = NewGame {
        variant: setup.variant,
        white: setup.white.clone(),
        black: setup.black.clone(),
        position: setup.position.clone(),
        time_control: setup.time_control,
        game_id: correspondence::new_game_id(now, entropy),
        started: now,
    };
    let cannot = |error: &dyn std::fmt::Display| DeskError::Cannot(error.to_string());
    let mut record = correspondence::new_record(&new_game).map_err(|error| cannot(&error))?;
    if let Some(decision) = &setup.decision {
        if setup.variant != Variant::ChessWithWickets {
            return Err(DeskError::Cannot(format!(
                "--decision is for Chess with wickets, not {}",
                setup.variant
            )));
        }
        let mode = DecisionMode::from_name(decision).map_err(|error| cannot(&error))?;
        record.set_tag("Decision", mode.name());
        // The start must still be playable (a --fen's mode field must agree).
        correspondence::state(&record).map_err(|error| cannot(&error))?;
    }
    if setup.cards_by_hand {
        if setup.variant != Variant::ChessWithWickets {
            return Err(DeskError::Cannot(format!(
                "--cards-by-hand is for Chess with wickets, not {}",
                setup.variant
            )));
        }
        record.set_tag(fair::cards::BY_HAND_TAG, fair::cards::BY_HAND);
    }
    let you = your_side(&record, home)?;
    let id = new_game.game_id.as_str();
    let mut state = home.games.state(id)?;
    // Fair dice: the creator commits now, the opponent on its first receipt.
    ensure_committed(&mut record, you, &mut state)?;
    // Fair cards: White's first message of the deal.
    ensure_dealt(&mut record, you, &mut state)?;
    // The game "reaches" its creator now: their reflection time starts from here.
    state.received = Some(now);
    let mut secret = None;
    if setup.secret {
        let text = hex::encode(super::random_bytes(16)?);
        state.secret = Some(text.clone());
        state.allow_typed = setup.allow_typed;
        secret = Some(text);
    }
    let path = home
        .games
        .commit(id, Some(&correspondence::to_text(&record)), Some(&state))?;
    Ok(Created {
        id: id.to_owned(),
        path,
        secret,
    })
}

/// A player as a mail address names them: `Name <address>`, or the address alone (the
/// name is then the address's local part); `None` for text that is not a mail address.
#[must_use]
pub fn player_from(text: &str) -> Option<Player> {
    let mailbox: lettre::message::Mailbox = text.trim().parse().ok()?;
    let email = mailbox.email.to_string();
    let name = mailbox
        .name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| email.split('@').next().unwrap_or_default())
        .to_owned();
    Some(Player { name, email })
}

/// The player's side in the game, or why they cannot act in it.
fn your_side(record: &Record, home: &Home) -> Result<Color, DeskError> {
    correspondence::side_of(record, &home.settings.player.email).ok_or_else(|| {
        DeskError::Cannot(format!(
            "you ({}) are neither White nor Black in this game",
            home.settings.player.email
        ))
    })
}

/// Plays the player's turn `token` in `game` (its file, its id, or the start of its id),
/// with the steps of fair chance that go with it, and saves it. A turn that does not read
/// or is not legal is [`DeskError::Turn`], with the legal turns; the game is unchanged.
pub fn play_turn(
    home: &Home,
    game: &str,
    token: &str,
    options: &TurnOptions,
) -> Result<Played, DeskError> {
    let (path, mut record, id) = home.game(game)?;
    let mut state = home.games.state(&id)?;
    let stamp = Stamp {
        received: state.received,
        sent: Some(options.now),
        leave_days: options.leave_days,
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
    let at =
        |error: &dyn std::fmt::Display| DeskError::Cannot(format!("{}: {error}", path.display()));
    let played = match correspondence::play(&mut record, player, token, stamp) {
        Ok(played) => played,
        // A mistyped or illegal turn is invalid input, told as `validate` tells it.
        Err(PlayError::Turn(reason)) => {
            return Err(refused_turn(&before, &id, home, token, &reason));
        }
        Err(error) => return Err(at(&error)),
    };
    let mut awaits_roll = false;
    if let Some(you) = you
        && fair::uses_dice(&record)
    {
        let chain = chance_chain(&mut state)?;
        fair::reveal_attempt(&mut record, you, &chain).map_err(|error| at(&error))?;
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
            return Err(DeskError::Cannot(format!(
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
            DeskError::Cannot(format!(
                "{}: refused, the game's cards are dealt fairly: {error}",
                path.display()
            ))
        })?;
    }
    if options.offer_draw {
        correspondence::record_event(&mut record, player, Event::OfferDraw)
            .map_err(|error| DeskError::Cannot(error.to_string()))?;
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
    Ok(Played {
        label: played.label,
        offered_draw: options.offer_draw,
        result: played.result.map(|result| result.to_string()),
        chance: chance_outcome(&record),
        awaits_roll,
        id,
    })
}

/// Records the player's `event` in `game` and saves it; an event that ends a game with a
/// fair deal carries the player's seed, as a last turn does.
pub fn act(home: &Home, game: &str, event: Event) -> Result<Acted, DeskError> {
    let (path, mut record, id) = home.game(game)?;
    let mut state = home.games.state(&id)?;
    let player = &home.settings.player.email;
    correspondence::record_event(&mut record, player, event)
        .map_err(|error| DeskError::Cannot(format!("{}: {error}", path.display())))?;
    // `record_event` checked that the player plays in the game.
    let seed_added = match correspondence::side_of(&record, player) {
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
    Ok(Acted {
        id,
        event,
        result: record.tag("Result").unwrap_or("*").to_owned(),
        seed_added,
    })
}

/// Writes the player's seed into a Cards game with a fair deal (then the opponent knows
/// all the player's cards); returns the game's id and whether the seed was there already.
pub fn reveal_seed(home: &Home, game: &str) -> Result<(String, bool), DeskError> {
    let (path, mut record, id) = home.game(game)?;
    let mut state = home.games.state(&id)?;
    let you = your_side(&record, home)?;
    if !fair::cards::has_deal(&record) {
        return Err(DeskError::Cannot(format!(
            "{}: the game has no fair deal to reveal",
            path.display()
        )));
    }
    if fair::cards::seed_revealed(&record, you) {
        return Ok((id, true));
    }
    if state.chance_seed.is_none() {
        return Err(DeskError::Cannot(format!(
            "{id}: no seed of yours in the local state"
        )));
    }
    let dealer = dealer(&mut state)?;
    fair::cards::reveal_seed(&mut record, you, &dealer);
    note_last_mail(&record, you, &mut state);
    home.games
        .commit(&id, Some(&correspondence::to_text(&record)), Some(&state))?;
    Ok((id, false))
}

/// Stores the game's shared secret (the hex string `pbem new --secret` gave the
/// opponent), for a game that need not have arrived yet; with `allow_typed`, turns typed
/// by hand in a reply are taken in too.
pub fn set_secret(home: &Home, id: &str, secret: &str, allow_typed: bool) -> Result<(), DeskError> {
    let secret = secret.trim().to_ascii_lowercase();
    if secret.len() < 16
        || !secret.len().is_multiple_of(2)
        || !secret.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Err(DeskError::Cannot(
            "the secret is the hex string `pbem new --secret` printed (32 hex digits)".to_owned(),
        ));
    }
    let mut state = home.games.state(id)?;
    state.secret = Some(secret);
    state.allow_typed = allow_typed;
    home.games.save_state(id, &state)?;
    Ok(())
}

/// In a game with a secret, takes in (`allow`) or refuses again turns typed by hand in a
/// reply. Returns the game's id and whether it has a secret (without one, typed turns are
/// taken in anyway and nothing changes).
pub fn allow_typed(home: &Home, game: &str, allow: bool) -> Result<(String, bool), DeskError> {
    let (_, _, id) = home.game(game)?;
    let mut state = home.games.state(&id)?;
    if state.secret.is_none() {
        return Ok((id, false));
    }
    state.allow_typed = allow;
    home.games.save_state(&id, &state)?;
    Ok((id, true))
}

/// The refusal of a turn `pbem move` was given (`reason`, as the game's rules gave it):
/// the finding with the turn, the closest legal turn and the legal turns (as the player
/// types them: a card of the hand when one is awaited, an attempt without its roll in a
/// game with fair dice).
fn refused_turn(record: &Record, id: &str, home: &Home, token: &str, reason: &str) -> DeskError {
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
    DeskError::Turn {
        id: id.to_owned(),
        finding: Box::new(finding),
    }
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
pub fn chance_chain(state: &mut LocalState) -> Result<Chain, DeskError> {
    if let Some(chain) = state.chance_seed.as_deref().and_then(Chain::from_hex) {
        return Ok(chain);
    }
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&super::random_bytes(32)?);
    let chain = Chain::from_seed(seed);
    state.chance_seed = Some(chain.seed_hex());
    Ok(chain)
}

/// The player's side of the fair deal (Cards modes), from the same secret seed as the
/// dice chain, kept in the game's private local state.
pub fn dealer(state: &mut LocalState) -> Result<Dealer, DeskError> {
    let chain = chance_chain(state)?;
    let mut seed = [0u8; 32];
    hex::decode_to_slice(chain.seed_hex(), &mut seed)
        .map_err(|error| DeskError::Cannot(format!("the local state's seed: {error}")))?;
    Ok(Dealer::from_seed(seed))
}

/// The player's own hand in a game with a fair deal, from its local state (read only:
/// without a seed there is no hand).
pub fn own_hand(record: &Record, home: &Home) -> Option<(Color, Dealer, fair::cards::Hand)> {
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
pub fn hand_line(hand: &fair::cards::Hand) -> String {
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
pub fn ensure_dealt(
    record: &mut Record,
    you: Color,
    state: &mut LocalState,
) -> Result<bool, DeskError> {
    if !fair::uses_cards(record) {
        return Ok(false);
    }
    let had_seed = state.chance_seed.is_some();
    let dealer = dealer(state)?;
    fair::cards::advance(record, you, &dealer)
        .map_err(|error| DeskError::Cannot(format!("the game's deal cannot go on: {error}")))?;
    Ok(!had_seed)
}

/// In a game with fair dice, writes the player's commitment when the record has none
/// from them yet; says whether the local state changed (a new seed).
pub fn ensure_committed(
    record: &mut Record,
    you: Color,
    state: &mut LocalState,
) -> Result<bool, DeskError> {
    if !fair::uses_dice(record) || fair::has_committed(record, you) {
        return Ok(false);
    }
    let had_seed = state.chance_seed.is_some();
    let chain = chance_chain(state)?;
    fair::commit(record, you, &chain);
    Ok(!had_seed)
}

/// What the player is told when its pbem adds its seed at the end of a game.
pub const SEED_ADDED: &str = "your seed of the deal is added to the game, which is \
    over: with your opponent's, `pbem validate` proves the deal";

/// Notes in the local state whether the game is over and the player acted last (its
/// result, or its seed of a fair deal added to the opponent's result): that last mail is
/// owed, and `pbem status` lists the game, until `pbem send` puts it in the outbox.
pub fn note_last_mail(record: &Record, you: Color, state: &mut LocalState) {
    let over = !matches!(record.tag("Result").map(str::trim), None | Some("*"));
    state.last_mail_owed = over
        && correspondence::state(record)
            .is_ok_and(|game| correspondence::last_actor(record, &game.turns) == Some(you));
}

/// What chance decided in the last turn of a Chess with wickets game, in words (a roll
/// against what was needed, a card pair, a Cards II decline); `None` for another turn or
/// game, or while the roll or every pair is still awaited.
pub fn chance_outcome(record: &Record) -> Option<String> {
    chance_outcome_at(record, record.moves.turns.len().checked_sub(1)?)
}

/// [`chance_outcome`] of the turn at index `at` of the main line (from 0).
pub fn chance_outcome_at(record: &Record, at: usize) -> Option<String> {
    use crate::games::Game;
    use crate::games::wickets::Wickets;
    if crate::replay::variant_of(record).ok()? != Variant::ChessWithWickets {
        return None;
    }
    let token = record.moves.turns.get(at)?.token.clone();
    let mut before = record.clone();
    before.moves.turns.truncate(at);
    let position = crate::replay::replay_game::<Wickets>(&before).position?;
    let turn = position.resolve(&Wickets::parse_turn(&token).ok()?).ok()?;
    position.chance_outcome(&turn)
}
