//! Taking in mail: [`judge`] reads one mail (a pbem mail, or a reply typed by hand to
//! one), checks it against the game it names and takes in what it adds, and says what it
//! did as a [`Judged`]: taken in ([`Taken::Saved`], with the words the player reads),
//! nothing new ([`Taken::Nothing`]), or refused and why ([`Refusal`]). A mail is taken in
//! only when its record replays, carries the game's code when the game has a secret,
//! comes from the opponent, adds only the opponent's next turn (or a part the last turn
//! awaited) to the local game, and keeps the game's fair chance fair; then this side's
//! steps of fair chance are added (its commitment, the roll it computes, its messages
//! and keys of the deal, its seed at the end) and the game file is saved with the time
//! it arrived, as one step. A refused mail changes nothing.
//!
//! A mailbox (a Maildir, an IMAP folder, a shared folder) is read through the mail
//! ledger ([`Reading`]): each pbem mail is judged once (by its Message-ID and the game's
//! turns), a refusal is told once and tried again quietly, and mail that is not pbem's
//! (or, in a shared folder, not for this player) is remembered as such and left alone.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::typed;
use super::{DeskError, Home, play};
use crate::correspondence::{self, Comparison};
use crate::fair::{self, Fairness};
use crate::games::Color;
use crate::mail;
use crate::notation::{Record, parse_record};
use crate::replay;
use crate::store::{Entry, Ledger, Outcome};

/// What taking in one mail did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Taken {
    /// A new game, or new turns or events: saved.
    Saved(Saved),
    /// Nothing new (a repeated delivery, an older mail, a refusal of the player's own
    /// mail mailed back): the words that say so.
    Nothing(String),
}

impl Taken {
    /// What the player is told.
    #[must_use]
    pub fn text(&self) -> &str {
        match self {
            Taken::Saved(saved) => &saved.text,
            Taken::Nothing(text) => text,
        }
    }
}

/// A mail taken in and saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Saved {
    /// The game's id.
    pub game: String,
    /// Whether the game is new here.
    pub new_game: bool,
    /// How many turns the mail added.
    pub added: usize,
    /// The game's last turn now, with its number (`1. e4`).
    pub last_turn: Option<String>,
    /// What the player is told: who played what, the game's end or a draw offer, the
    /// board, whose turn it is, a last mail owed, the player's hand.
    pub text: String,
}

/// Why a mail was not taken in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a pbem mail at all.
    NotPbem(String),
    /// A pbem mail that cannot be accepted.
    Refused(String),
}

impl Refusal {
    /// Why, in words.
    #[must_use]
    pub fn reason(&self) -> &str {
        match self {
            Refusal::NotPbem(reason) | Refusal::Refused(reason) => reason,
        }
    }
}

/// A mail judged: its ledger key, the game it names, and what was done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// The mail's key in the ledger: its Message-ID, or a hash of its bytes.
    pub key: String,
    /// The game it names, when it names one.
    pub game: Option<String>,
    /// What was done.
    pub result: Result<Taken, Refusal>,
}

impl Judged {
    /// The ledger's entry for this mail, read from `file` at `at`.
    #[must_use]
    pub fn entry(&self, file: String, at: DateTime<Utc>) -> Entry {
        let (outcome, reason) = match &self.result {
            Ok(taken @ Taken::Saved(_)) => (Outcome::Taken, first_line(taken.text())),
            Ok(taken @ Taken::Nothing(_)) => (Outcome::Known, first_line(taken.text())),
            Err(refusal) => (Outcome::Refused, refusal.reason().to_owned()),
        };
        Entry {
            key: self.key.clone(),
            file,
            game: self.game.clone(),
            outcome,
            reason,
            at,
            dismissed: false,
        }
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
}

/// Writes in the ledger what was done with a mail read from `file` (a path given to
/// `pbem receive`), so that the same mail is not taken twice.
pub fn remember(
    home: &Home,
    judged: &Judged,
    file: String,
    now: DateTime<Utc>,
) -> Result<(), DeskError> {
    crate::store::hook::pause_at("taken");
    let mut ledger = Ledger::load(home.games.dir())?;
    ledger.record(judged.entry(file, now));
    ledger.save(home.games.dir())?;
    Ok(())
}

/// What became of one mail of a mailbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listed {
    /// Not a pbem mail, or (in a shared folder) not for this player: left alone for good.
    Skipped,
    /// Taken in, or nothing new in it.
    Done(Judged),
    /// Refused (and left where it is). `first` says whether this is the first time it
    /// is refused (a refusal is told once); `handle` is what `pbem dismiss` takes.
    Refused {
        /// The mail judged.
        judged: Judged,
        /// Its handle in the ledger.
        handle: String,
        /// Whether it was refused for the first time now.
        first: bool,
    },
}

/// One reading of a mailbox (a Maildir, an IMAP folder, a shared folder) through the
/// mail ledger. For each mail the caller asks [`Reading::wants`] (judged before and not
/// an open refusal, or not pbem's: no), reads it, [`Reading::judge`]s it, tells the
/// player, and lets the reading [`Reading::remember`] it.
pub struct Reading<'h> {
    home: &'h Home,
    ledger: Ledger,
    now: DateTime<Utc>,
    shared: bool,
}

impl<'h> Reading<'h> {
    /// Starts reading a mailbox at `now`; `shared` for a mailbox shared with the opponent
    /// (a mail not addressed to the player, or sent by them, is left for the other side).
    pub fn new(home: &'h Home, now: DateTime<Utc>, shared: bool) -> Result<Reading<'h>, DeskError> {
        Ok(Reading {
            ledger: Ledger::load(home.games.dir())?,
            home,
            now,
            shared,
        })
    }

    /// The ledger as this reading has it.
    #[must_use]
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Whether the mail named `unique` is to be read: `None` when it is known not to be
    /// pbem's or was judged before (and is not an open refusal, which is tried again),
    /// else its earlier entry, if any.
    #[must_use]
    pub fn wants(&self, unique: &str) -> Option<Option<Entry>> {
        if self.ledger.skipped.contains(unique) {
            return None;
        }
        let earlier = self.ledger.by_file(unique).cloned();
        if earlier.as_ref().is_some_and(|entry| !entry.open_refusal()) {
            return None;
        }
        Some(earlier)
    }

    /// Judges the mail named `unique` in the ledger (`earlier`: its entry, from
    /// [`Reading::wants`]): a mail that is not pbem's, or not for this player, is
    /// remembered as skipped; a pbem mail taken in before under another name is a
    /// repeated delivery.
    pub fn judge(
        &mut self,
        bytes: &[u8],
        unique: &str,
        earlier: Option<&Entry>,
    ) -> Result<Listed, DeskError> {
        if self.shared && !addressed_to(bytes, &self.home.settings.player.email) {
            return self.skip(unique);
        }
        let mut judged = judge(bytes, self.home, self.now);
        if let Err(Refusal::NotPbem(_)) = judged.result {
            return self.skip(unique);
        }
        if earlier.is_none()
            && let Some(seen) = self.ledger.by_key(&judged.key)
            && seen.outcome != Outcome::Refused
        {
            judged.result = Ok(Taken::Nothing(format!(
                "{}: already taken in from {} (a repeated delivery)",
                seen.game.as_deref().unwrap_or("?"),
                seen.file
            )));
        }
        Ok(match judged.result {
            Ok(_) => Listed::Done(judged),
            Err(_) => Listed::Refused {
                handle: judged.entry(unique.to_owned(), self.now).handle(),
                first: earlier.is_none(),
                judged,
            },
        })
    }

    fn skip(&mut self, unique: &str) -> Result<Listed, DeskError> {
        self.ledger.skipped.insert(unique.to_owned());
        self.ledger.save(self.home.games.dir())?;
        Ok(Listed::Skipped)
    }

    /// Writes in the ledger what was done with the mail `unique`, once the player is told.
    pub fn remember(&mut self, judged: &Judged, unique: &str) -> Result<(), DeskError> {
        crate::store::hook::pause_at("taken");
        self.ledger
            .record(judged.entry(unique.to_owned(), self.now));
        self.ledger.save(self.home.games.dir())?;
        Ok(())
    }
}

/// Puts a mailbox's mails in the order their sender sent them, game by game: the mails of
/// one game by the turns their records hold (`bytes` gives a mail's bytes), each taking
/// the place one of that game's mails had; a mail that names no game, or whose record does
/// not read, stays where it is, and so do mails of one game with as many turns (in their
/// given order). Neither names nor arrival say the order: two mails delivered into a
/// shared folder in one second are named alike up to the ply (and `10` sorts before `9`),
/// a Maildir's names order them by process, and a mail server files them as they arrive
/// (a relay may hold the first back). A later mail taken in first would make the earlier
/// one an older mail, ignored, and what it said (the cards that decided an attempt) would
/// never be told.
pub fn in_sent_order<T>(mails: Vec<T>, bytes: impl Fn(&T) -> &[u8]) -> Vec<T> {
    let places: Vec<Option<(String, usize)>> = mails
        .iter()
        .map(|mail| {
            let incoming = mail::parse_mail(bytes(mail)).ok()?;
            let record = parse_record(&incoming.record).ok()?;
            Some((incoming.game_id, record.moves.turns.len()))
        })
        .collect();
    let mut games: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (index, place) in places.iter().enumerate() {
        if let Some((game, _)) = place {
            games.entry(game).or_default().push(index);
        }
    }
    let mut order: Vec<usize> = (0..mails.len()).collect();
    for slots in games.values() {
        let mut by_turns = slots.clone();
        by_turns.sort_by_key(|&index| places[index].as_ref().map(|(_, turns)| *turns));
        for (&slot, index) in slots.iter().zip(by_turns) {
            order[slot] = index;
        }
    }
    let mut mails: Vec<Option<T>> = mails.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|index| mails[index].take())
        .collect()
}

/// Whether a mail of a shared folder is for `me`: addressed to me, and not from me
/// (the mails I delivered for my opponent wait there too).
#[must_use]
pub fn addressed_to(bytes: &[u8], me: &str) -> bool {
    let Some((from, to)) = crate::mail::envelope_of(bytes) else {
        return false;
    };
    let me = me.trim();
    !from.trim().eq_ignore_ascii_case(me)
        && to
            .iter()
            .any(|address| address.trim().eq_ignore_ascii_case(me))
}

/// Reads one mail (a pbem mail, or a reply typed by hand to one of the player's games),
/// takes in what it adds at `now`, and says what was done. The ledger is not written:
/// [`remember`] (or [`Reading::remember`]) does that once the player is told.
pub fn judge(bytes: &[u8], home: &Home, now: DateTime<Utc>) -> Judged {
    let key = |incoming: Option<&mail::Incoming>| {
        incoming
            .and_then(|incoming| incoming.message_id.clone())
            .unwrap_or_else(|| crate::store::content_key(bytes))
    };
    match mail::parse_mail(bytes) {
        Err(error) => {
            // Not a pbem mail: perhaps a reply typed by hand to one.
            if matches!(
                error,
                mail::MailError::NotPbem | mail::MailError::NoText | mail::MailError::HtmlOnly
            ) && let Some(judged) = typed::judge_reply(bytes, home, now)
            {
                return judged;
            }
            Judged {
                key: key(None),
                game: None,
                result: Err(
                    if matches!(error, mail::MailError::NotPbem | mail::MailError::NoText) {
                        Refusal::NotPbem(error.to_string())
                    } else {
                        Refusal::Refused(error.to_string())
                    },
                ),
            }
        }
        Ok(incoming) => Judged {
            key: key(Some(&incoming)),
            game: Some(incoming.game_id.clone()),
            result: take_in(&incoming, bytes, home, now),
        },
    }
}

/// Takes in one mail: checks it and saves what it adds.
fn take_in(
    incoming: &mail::Incoming,
    bytes: &[u8],
    home: &Home,
    now: DateTime<Utc>,
) -> Result<Taken, Refusal> {
    let refused = |text: String| Refusal::Refused(text);
    let store = |error: crate::store::StoreError| Refusal::Refused(error.to_string());
    let mut record = parse_record(&incoming.record).map_err(|error| {
        refused(format!(
            "the record in the mail does not read: line {}: {}",
            error.span.line, error.message
        ))
    })?;
    let id = incoming.game_id.clone();
    if correspondence::game_id(&record) != Some(id.as_str()) {
        return Err(refused(format!(
            "the mail names game {id} but its record is another game"
        )));
    }
    let me = &home.settings.player.email;
    let Some(you) = correspondence::side_of(&record, me) else {
        return Err(refused(format!(
            "game {id} is not yours: you ({me}) are neither White nor Black"
        )));
    };
    // Trust: with a secret, only a mail with the right code; the sender's address must
    // be the opponent's in any case.
    let state = home.games.state(&id).map_err(store)?;
    let secret =
        super::outbox::secret_bytes(home, &id).map_err(|error| refused(error.to_string()))?;
    if secret.is_none() && incoming.authentication.is_some() {
        return Err(refused(format!(
            "the mail carries an authentication code but you have no secret for {id}: \
             run `pbem secret {id} SECRET` with the secret your opponent told you, then receive it again"
        )));
    }
    incoming
        .verify(secret.as_deref())
        .map_err(|error| refused(error.to_string()))?;
    let opponent_tag = match you {
        Color::White => "BlackNA",
        Color::Black => "WhiteNA",
    };
    let opponent = record.tag(opponent_tag).unwrap_or_default().to_owned();
    if let Some(from) = &incoming.from
        && !from.trim().eq_ignore_ascii_case(opponent.trim())
    {
        return Err(refused(format!(
            "the mail comes from {from}, but your opponent in {id} is {opponent}"
        )));
    }
    // The record must replay, and agree with the position check the mail states.
    let report = replay::replay(&record);
    if let Some(error) = report.errors().next() {
        return Err(refused(format!(
            "the record in the mail is not valid: line {}: {}",
            error.span.line, error.message
        )));
    }
    // (`parse_mail` has already compared the mail's position check with the record.)
    let game = correspondence::state(&record).map_err(|error| refused(error.to_string()))?;
    let local_path = home.games.path(&id).map_err(store)?;
    let local: Option<Record> = if local_path.is_file() {
        Some(home.games.load(&local_path).map_err(store)?)
    } else {
        None
    };
    let refusal = refusal_note(incoming);
    let added = match &local {
        None => record.moves.turns.len(),
        Some(local) => match correspondence::compare(local, &record) {
            // A reply that quotes the record: the replier's own first line may be a
            // turn typed by hand.
            Comparison::Same | Comparison::Older if incoming.typed.is_some() => {
                if let Ok(reply) = mail::parse_reply(bytes) {
                    return typed::take_typed(&reply, &id, home, now);
                }
                let typed = incoming.typed.as_deref().unwrap_or_default();
                return Err(refused(format!(
                    "{id}: a reply that quotes a record you already have ({} turns) and says \"{}\" above or below the quote; \
                     pbem takes turns only from the record a pbem mail carries, so nothing was changed: \
                     if it is a turn, ask {opponent} to make it with pbem and send it",
                    record.moves.turns.len(),
                    typed.lines().next().unwrap_or_default()
                )));
            }
            // A refusal of the player's mail, mailed back: its note says why.
            Comparison::Same | Comparison::Older if refusal.is_some() => {
                return Ok(Taken::Nothing(format!(
                    "{id}: {}; your game is as it was",
                    refusal.as_deref().unwrap_or_default()
                )));
            }
            Comparison::Same => {
                return Ok(Taken::Nothing(format!(
                    "{id}: already known (a repeated delivery)"
                )));
            }
            Comparison::Older => {
                return Ok(Taken::Nothing(format!(
                    "{id}: an older mail of this game ({} turns; you have {}): ignored",
                    record.moves.turns.len(),
                    local.moves.turns.len()
                )));
            }
            Comparison::Conflict {
                ply,
                local,
                incoming,
            } => {
                return Err(refused(format!(
                    "{id}: the mail's history differs from yours at ply {ply} (yours: {}, the mail's: {}); nothing was changed",
                    local.as_deref().unwrap_or("-"),
                    incoming.as_deref().unwrap_or("-")
                )));
            }
            Comparison::Newer { turns } => turns,
        },
    };
    let mut completed = false;
    let mut own_typed = Vec::new();
    if let Some(local) = &local {
        // A part that completes the last turn (a card answered) is the opponent's, one at
        // a time.
        completed = correspondence::completes_last(local, &record, you.other())
            .map_err(|error| refused(format!("{id}: {error}")))?;
        // Only the opponent's turns may be new: the player's own come from here, or, typed
        // by hand in a reply, as the opponent's pbem recorded them.
        let start = local.moves.turns.len();
        let own: Vec<usize> = (start..game.turns.len())
            .filter(|&index| game.turns[index].0 == you)
            .collect();
        if own.is_empty() && added > 1 {
            return Err(refused(format!(
                "{id}: the mail adds {added} turns of your opponent's; only your opponent's next turn can come by mail"
            )));
        }
        own_typed = typed::own_typed_turns(
            &record,
            &own,
            added,
            &id,
            me,
            secret.is_some() && !state.allow_typed,
        )?;
    }
    // Fair dice: the mail's transcript must hold; this side commits on its first receipt
    // and computes the roll of an attempt that awaits it.
    let mut state = state;
    let mut rolled = None;
    if fair::uses_dice(&record) {
        if let Fairness::Broken { ply, reason } = fair::check(&record) {
            return Err(refused(format!(
                "{id}: the mail's dice are not fair: ply {ply}: {reason}; nothing was changed"
            )));
        }
        let fail = |error: DeskError| refused(error.to_string());
        play::ensure_committed(&mut record, you, &mut state).map_err(fail)?;
        let chain = play::chance_chain(&mut state).map_err(fail)?;
        rolled = fair::complete(&mut record, you, &chain)
            .map_err(|error| refused(format!("{id}: {error}; nothing was changed")))?;
    }
    // Fair cards: the mail's deal must hold, as far as this side sees it (its own cards
    // against the cards played: no card dealt twice); this side adds the steps it can
    // take now (its message of the deal, its keys for the other side's cards, its seed at
    // the end).
    if fair::uses_cards(&record) {
        let dealer = play::dealer(&mut state).map_err(|error| refused(error.to_string()))?;
        if let Fairness::Broken { ply, reason } = fair::cards::check_as(&record, you, &dealer) {
            return Err(refused(format!(
                "{id}: the mail's cards are not fair: ply {ply}: {reason}; nothing was changed"
            )));
        }
        play::ensure_dealt(&mut record, you, &mut state)
            .map_err(|error| refused(format!("{id}: {error}; nothing was changed")))?;
    }
    // The end of the game by the opponent: this side's seed (or a roll that ended it),
    // added now, is its last mail to send.
    let had_seed = local
        .as_ref()
        .is_some_and(|local| fair::cards::seed_revealed(local, you));
    let seeded = !had_seed && fair::cards::seed_revealed(&record, you);
    play::note_last_mail(&record, you, &mut state);
    let game = correspondence::state(&record).map_err(|error| refused(error.to_string()))?;
    if added > 0 || completed || local.is_none() {
        state.received = Some(now);
    }
    // The turn and the time it arrived, as one step.
    home.games
        .commit(&id, Some(&correspondence::to_text(&record)), Some(&state))
        .map_err(store)?;

    let head = match (&local, game.last_turn.as_deref()) {
        (None, Some(last)) => format!("{id}: new game from {opponent}, last turn {last}"),
        (None, None) => format!("{id}: new game from {opponent}"),
        (Some(_), Some(last)) if !own_typed.is_empty() => {
            let yours = format!(
                "your turn{} {}, typed in a mail, as your opponent's pbem recorded it",
                if own_typed.len() == 1 { "" } else { "s" },
                own_typed.join(", ")
            );
            if game.turns.last().is_some_and(|(color, _)| *color == you) {
                format!("{id}: {opponent} updated the game after {yours}")
            } else {
                format!("{id}: {opponent} played {last} (after {yours})")
            }
        }
        (Some(_), Some(last)) if added > 0 => format!("{id}: {opponent} played {last}"),
        (Some(_), _) => format!("{id}: {opponent} updated the game"),
    };
    let mut head = head;
    // What chance decided in the turn that is news here: a roll computed now, or a roll or
    // card pair the opponent's mail brought.
    let chance = (rolled.is_some() || added > 0 || completed)
        .then(|| play::chance_outcome(&record))
        .flatten();
    if let Some(rolled) = &rolled {
        let rolls: Vec<String> = rolled.rolls.iter().map(u8::to_string).collect();
        match &chance {
            Some(chance) => head.push_str(&format!(
                "; {chance} (rolled from both players' values: {})",
                rolled.token
            )),
            None => head.push_str(&format!(
                "; the roll{} {} {} (from both players' values): {}",
                if rolls.len() == 1 { "" } else { "s" },
                if rolls.len() == 1 { "is" } else { "are" },
                rolls.join(" then "),
                rolled.token
            )),
        }
    } else if let Some(chance) = &chance {
        head.push_str(&format!("; {chance}"));
    }
    // The player's own last turn, completed by this mail (its roll drawn by the
    // opponent's pbem) before the opponent's next turn: what chance decided there.
    if let Some(local) = &local
        && added > 0
        && let Some(own) = local.moves.turns.len().checked_sub(1)
        && local.moves.turns[own].token != record.moves.turns[own].token
        && let Some(outcome) = play::chance_outcome_at(&record, own)
    {
        let label = correspondence::turn_label(&record, own)
            .unwrap_or_else(|| record.moves.turns[own].token.to_string());
        head.push_str(&format!("; in your {label}, {outcome}"));
    }
    let mut text = saved_text(head, &id, &record, &game, you);
    if state.last_mail_owed {
        text.push_str(&format!(
            "\n{id}: {}send your last mail: pbem send {id}",
            if seeded {
                format!("{}; ", play::SEED_ADDED)
            } else {
                String::new()
            }
        ));
    }
    if let Some(refusal) = &refusal {
        text.push_str(&format!("\n{id}: {refusal}"));
    }
    if let Some((_, _, hand)) = play::own_hand(&record, home) {
        text.push('\n');
        text.push_str(&play::hand_line(&hand));
    }
    Ok(Taken::Saved(Saved {
        new_game: local.is_none(),
        added,
        last_turn: game.last_turn.clone(),
        text,
        game: id,
    }))
}

/// A side with its player's name: `Bob (Black)`.
fn player_of(record: &Record, side: Color) -> String {
    let name = record
        .tag(side.name())
        .filter(|name| !name.trim().is_empty() && *name != "?");
    match name {
        Some(name) => format!("{} ({side})", super::escape_controls(name)),
        None => side.to_string(),
    }
}

/// How a game that has a result ended, in words: who resigned, or accepted or claimed a
/// draw (the last event of the record), or what the rules decided, and the result:
/// `Bob (Black) resigned: Alice (White) wins, 1-0`. `outcome`: what the rules decided at
/// the record's end, if anything.
pub(crate) fn ending(
    record: &Record,
    outcome: Option<crate::games::Outcome>,
    result: &str,
) -> String {
    use crate::replay::events::{Action, events_in, final_comments};
    let event = final_comments(record)
        .iter()
        .flat_map(|comment| events_in(&comment.text))
        .rfind(|event| !matches!(event.action, Action::Offer | Action::Unknown(_)));
    let winner = |side: Color| format!("{} wins, {result}", player_of(record, side));
    let drawn = format!("the game is drawn, {result}");
    let by_rule = |reason: String| format!("{reason}, {result}");
    match event.and_then(|event| event.side.map(|side| (side, event.action))) {
        Some((side, Action::Resign)) => {
            format!(
                "{} resigned: {}",
                player_of(record, side),
                winner(side.other())
            )
        }
        Some((side, Action::Timeout(_))) => format!(
            "{} claimed the game on time: {}",
            player_of(record, side),
            winner(side)
        ),
        Some((side, Action::Agree)) => format!(
            "{} accepted the draw offer: {drawn}",
            player_of(record, side)
        ),
        Some((side, Action::Claim(reason))) => format!(
            "{} claimed a draw by {}: {drawn}",
            player_of(record, side),
            crate::replay::events::ClaimReason::from_name(reason).map_or_else(
                || reason.to_owned(),
                |claim| claim.draw_reason().to_string()
            )
        ),
        _ => match outcome {
            Some(crate::games::Outcome::Win {
                winner: side,
                reason,
            }) => by_rule(format!("{} wins by {reason}", player_of(record, side))),
            Some(crate::games::Outcome::Draw { reason }) => {
                by_rule(format!("the game is drawn by {reason}"))
            }
            None => format!("the game is over: {result}"),
        },
    }
}

/// The reason of a refusal mailed back by the opponent's `pbem send --refusal`, on one
/// line (without the advice for a player without pbem that follows it).
fn refusal_note(incoming: &mail::Incoming) -> Option<String> {
    if !incoming.is_refusal() {
        return None;
    }
    let note = incoming.note.as_deref()?;
    let reason = note.split("\nIt is your turn").next().unwrap_or(note);
    Some(reason.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// What `receive` prints for a game it saved: `head`, then the result or a standing
/// draw offer, the diagram, and whose turn it is.
pub(super) fn saved_text(
    head: String,
    id: &str,
    record: &Record,
    game: &correspondence::State,
    you: Color,
) -> String {
    let mut text = head;
    let result = record.tag("Result").unwrap_or("*");
    if result != "*" {
        text.push_str(&format!(
            "; {}",
            ending(record, game.report.outcome, result)
        ));
    } else if let Some(offer) = correspondence::standing_offer(record)
        && offer != you
    {
        text.push_str(&format!(
            "; {} offers a draw (`pbem draw accept {id}` accepts it, or play on)",
            player_of(record, offer)
        ));
    }
    text.push('\n');
    text.push_str(&game.diagram);
    if result == "*" {
        text.push_str(&match game.awaited {
            Some(awaited) if awaited == you => {
                format!("your card: `pbem legal {id}` lists them, `pbem move {id} CARD` plays one")
            }
            Some(awaited) => format!("{awaited}'s {}", game.awaited_part),
            None if game.to_move == you => format!("your turn: {}", game.next_number),
            None => format!("{}'s turn", game.to_move),
        });
    }
    text
}

/// A Maildir message: where it is, its name, and its unique part (the name without the
/// `:2,` flags, which clients change when they show or flag a mail).
pub struct MaildirMail {
    /// Where it is.
    pub path: PathBuf,
    /// Its file name.
    pub name: String,
    /// Its name without the flags.
    pub unique: String,
    /// Whether it is in `new/`.
    pub is_new: bool,
}

/// The messages of a Maildir's `new/` and `cur/`, oldest unique name first.
pub fn maildir_mails(maildir: &Path) -> Result<Vec<MaildirMail>, DeskError> {
    let mut mails = Vec::new();
    for (sub, is_new) in [("new", true), ("cur", false)] {
        let folder = maildir.join(sub);
        let io = |source| DeskError::Io {
            path: folder.display().to_string(),
            source,
        };
        for item in std::fs::read_dir(&folder).map_err(io)? {
            let item = item.map_err(io)?;
            let Ok(name) = item.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') || !item.file_type().map_err(io)?.is_file() {
                continue;
            }
            let unique = name.split(':').next().unwrap_or(&name).to_owned();
            mails.push(MaildirMail {
                path: item.path(),
                name,
                unique,
                is_new,
            });
        }
    }
    mails.sort_by(|a, b| a.unique.cmp(&b.unique));
    Ok(mails)
}

/// Moves a message from `new/` to `cur/` with the Seen flag added to its flags.
pub fn mark_seen(maildir: &Path, mail: &MaildirMail) -> std::io::Result<()> {
    let flags = mail
        .name
        .split_once(":2,")
        .map(|(_, flags)| flags)
        .unwrap_or_default();
    let mut flags: Vec<char> = flags.chars().chain(['S']).collect();
    flags.sort_unstable();
    flags.dedup();
    let flags: String = flags.into_iter().collect();
    let target = maildir
        .join("cur")
        .join(format!("{}:2,{flags}", mail.unique));
    match std::fs::rename(&mail.path, target) {
        // A mail client moved it first: it is where a shown mail belongs anyway.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}
