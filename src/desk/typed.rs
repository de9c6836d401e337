//! Taking in turns typed by hand: a reply to pbem's mail, written in an ordinary mail
//! client by an opponent who does not run pbem (or is away from it), whose first own line
//! is a turn.
//!
//! Such a reply is taken in like a turn from pbem: it must come from the opponent's
//! address, be their turn, and be legal where the local game file stands (the rest of the
//! record comes from that file). An illegal or ambiguous turn is refused with the legal
//! turns listed, and `pbem send --refusal HANDLE` mails the refusal back. With a game
//! secret, a typed turn (which carries no code) is refused unless the game allows it.

use chrono::{DateTime, Utc};

use super::Home;
use super::inbox::{Judged, Refusal, Saved, Taken, saved_text};
use crate::clock::Stamp;
use crate::correspondence::{self, PlayError};
use crate::games::Color;
use crate::mail::{self, Reply};
use crate::notation::Record;
use crate::store::StoreError;

/// At most this many legal turns are listed in a refusal.
const LEGAL_LISTED: usize = 100;

/// Judges a mail that is not a pbem mail as a reply typed by hand, when it answers one
/// of the player's games (by its subject, `References` or `In-Reply-To`); `None` for any
/// other mail.
pub(super) fn judge_reply(bytes: &[u8], home: &Home, now: DateTime<Utc>) -> Option<Judged> {
    let reply = mail::parse_reply(bytes).ok()?;
    if reply.carries_record {
        return None;
    }
    let id = reply.game_id.clone()?;
    if !home.games.path(&id).ok()?.is_file() {
        return None;
    }
    let key = reply
        .message_id
        .clone()
        .unwrap_or_else(|| crate::store::content_key(bytes));
    Some(Judged {
        key,
        game: Some(id.clone()),
        result: take_typed(&reply, &id, home, now),
    })
}

/// The address tag of the side's opponent.
fn opponent_tag(you: Color) -> &'static str {
    match you {
        Color::White => "BlackNA",
        Color::Black => "WhiteNA",
    }
}

/// Takes in the turn typed at the top of a reply to game `id`, checked against the local
/// game file.
pub(super) fn take_typed(
    reply: &Reply,
    id: &str,
    home: &Home,
    now: DateTime<Utc>,
) -> Result<Taken, Refusal> {
    let refused = Refusal::Refused;
    let store = |error: StoreError| Refusal::Refused(error.to_string());
    let path = home.games.path(id).map_err(store)?;
    let local = home.games.load(&path).map_err(store)?;
    let me = &home.settings.player.email;
    let Some(you) = correspondence::side_of(&local, me) else {
        return Err(refused(format!(
            "game {id} is not yours: you ({me}) are neither White nor Black"
        )));
    };
    let opponent = local.tag(opponent_tag(you)).unwrap_or_default().to_owned();
    match &reply.from {
        Some(from) if from.trim().eq_ignore_ascii_case(opponent.trim()) => {}
        Some(from) => {
            return Err(refused(format!(
                "the mail comes from {from}, but your opponent in {id} is {opponent}"
            )));
        }
        None => {
            return Err(refused(format!(
                "a reply in game {id} without a From address; your opponent is {opponent}"
            )));
        }
    }
    let Some(line) = reply.line.as_deref() else {
        return Err(refused(format!(
            "{id}: a reply from {opponent} with no line of its own (no turn typed); nothing was changed"
        )));
    };
    let Some(token) = mail::typed_turn(line) else {
        return Err(refused(format!(
            "{id}: a reply from {opponent} whose first line, \"{line}\", is not one turn \
             (a turn typed by hand goes alone on the first line: `Nf3` or `12... Nf3`); nothing was changed"
        )));
    };
    let mut state = home.games.state(id).map_err(store)?;
    if state.secret.is_some() && !state.allow_typed {
        return Err(refused(format!(
            "{id}: \"{line}\" is a turn typed by hand, which carries no authentication code, \
             and the game has a secret: its turns come only from pbem's signed mails \
             (`pbem allow-typed {id}` takes typed turns too); nothing was changed"
        )));
    }
    let have = local.moves.turns.len();
    if let Some(ply) = reply.answers_ply
        && ply != have
    {
        if let Some(node) = local.moves.turns.get(ply)
            && node.token.as_str() == token
        {
            return Ok(Taken::Nothing(format!(
                "{id}: already known (the turn {token} typed by {opponent})"
            )));
        }
        return Err(refused(format!(
            "{id}: \"{line}\" answers your mail of ply {ply}, but the game is at ply {have} now; nothing was changed"
        )));
    }
    let stamp = Stamp {
        received: None,
        sent: Some(reply.date.filter(|date| *date <= now).unwrap_or(now)),
        leave_days: 0,
    };
    let mut record = local.clone();
    let played = match correspondence::play(&mut record, &opponent, &token, stamp) {
        Ok(played) => played,
        Err(PlayError::Turn(reason)) => {
            let legal = correspondence::legal_turns(&local).unwrap_or_default();
            let listed = legal
                .iter()
                .take(LEGAL_LISTED)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" ");
            let more = if legal.len() > LEGAL_LISTED {
                format!(" and {} more", legal.len() - LEGAL_LISTED)
            } else {
                String::new()
            };
            return Err(refused(format!(
                "{id}: the turn {opponent} typed, \"{line}\", is refused: {reason}; legal turns ({}): {listed}{more}",
                legal.len()
            )));
        }
        Err(PlayError::NotYourTurn { to_move, .. }) => {
            return Err(refused(format!(
                "{id}: {opponent} typed \"{line}\", but it is {to_move}'s turn, yours; nothing was changed"
            )));
        }
        Err(error) => {
            return Err(refused(format!(
                "{id}: the turn {opponent} typed, \"{line}\", cannot be taken: {error}"
            )));
        }
    };
    // A new turn is marked typed, with the address it came from: the opponent's pbem
    // then knows it for their own when this side's next mail carries it.
    if record.moves.turns.len() > local.moves.turns.len()
        && let Some(node) = record.moves.turns.last_mut()
    {
        correspondence::mark_typed(node, &opponent);
    }
    // A card typed by hand carries no opening key of the fair deal (only pbem's mail
    // does), so in a dealt game it would leave the record unprovable: refused.
    if let crate::fair::Fairness::Broken { ply, reason } = crate::fair::check(&record)
        && !matches!(
            crate::fair::check(&local),
            crate::fair::Fairness::Broken { .. }
        )
    {
        return Err(refused(format!(
            "{id}: the turn {opponent} typed, \"{line}\", is refused: the game's cards are dealt \
             fairly and a card typed by hand carries no key to open it (only {opponent}'s pbem \
             can send it), ply {ply}: {reason}; nothing was changed"
        )));
    }
    let game = correspondence::state(&record).map_err(|error| refused(error.to_string()))?;
    state.received = Some(now);
    home.games
        .commit(id, Some(&correspondence::to_text(&record)), Some(&state))
        .map_err(store)?;
    let head = format!("{id}: {opponent} played {} (typed by hand)", played.label);
    Ok(Taken::Saved(Saved {
        game: id.to_owned(),
        new_game: false,
        added: record
            .moves
            .turns
            .len()
            .saturating_sub(local.moves.turns.len()),
        last_turn: game.last_turn.clone(),
        text: saved_text(head, id, &record, &game, you),
    }))
}

/// The reader's own turns among the new turns of a pbem mail (`own`, indices into the
/// mail's `record`, which adds `added` turns): each must be a turn typed by hand in a
/// reply from the reader's address (`me`), as the opponent's pbem recorded it (marked
/// `[%typed ADDRESS]`), and the game must take typed turns (`refuses_typed`: it has a
/// secret and does not allow them). The record replays and, with a secret, carries the
/// opponent's valid code (both checked before). Returns the turns' labels; a refusal
/// names the command that mends it.
pub(super) fn own_typed_turns(
    record: &Record,
    own: &[usize],
    added: usize,
    id: &str,
    me: &str,
    refuses_typed: bool,
) -> Result<Vec<String>, Refusal> {
    let mut labels = Vec::new();
    for &index in own {
        let Some(node) = record.moves.turns.get(index) else {
            continue;
        };
        let label =
            correspondence::turn_label(record, index).unwrap_or_else(|| node.token.to_string());
        let token = node.token.trim_end_matches(['+', '#']);
        let mend = format!(
            "if you made {label} yourself, enter it with `pbem move {id} {token}` (there is no need to send it), then receive this mail again"
        );
        match correspondence::typed_by(node) {
            Some(address) if address.trim().eq_ignore_ascii_case(me.trim()) => {}
            Some(address) => {
                return Err(Refusal::Refused(format!(
                    "{id}: the mail adds {added} turns, among them your {label}, which your opponent's pbem \
                     recorded as typed in a mail from {address}, not from you ({me}); only your opponent's \
                     next turn can come by mail, so nothing was changed: {mend}"
                )));
            }
            None => {
                return Err(Refusal::Refused(format!(
                    "{id}: the mail adds {added} turns, among them your {label}, which your opponent's pbem \
                     did not record as typed by you in a mail; only your opponent's next turn can come \
                     by mail, so nothing was changed: {mend}"
                )));
            }
        }
        if refuses_typed {
            return Err(Refusal::Refused(format!(
                "{id}: the mail carries your turn {label}, typed in a mail, as your opponent's pbem \
                 recorded it, but the game has a secret and your pbem takes no typed turns in it; \
                 nothing was changed: `pbem allow-typed {id}` allows them, then receive this mail again \
                 (or, {mend})"
            )));
        }
        labels.push(label);
    }
    Ok(labels)
}
