//! The mail that goes out: [`compose_latest`] writes the mail of a game's current state
//! (its record, the position check, the authentication code when the game has a secret,
//! the line that tells an opponent without pbem how to answer by hand, the picture unless
//! the config turns pictures off), unless the opponent acted last; [`compose_refusal`]
//! writes the mail that answers a refused mail with the reason; [`queue`] puts a mail in
//! the outbox, from where `pbem send` hands it to SMTP or the shared folder.

use chrono::{DateTime, Utc};

use super::{DeskError, Home};
use crate::correspondence;
use crate::fair;
use crate::games::Color;
use crate::mail::{self, Mailbox, Outgoing};
use crate::notation::Record;
use crate::store::Ledger;

/// A composed mail with its envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composed {
    /// The game's id.
    pub id: String,
    /// The ply of the state it carries.
    pub ply: u32,
    /// The sender's address.
    pub from: String,
    /// The recipient's address.
    pub to: String,
    /// The mail, as sent.
    pub bytes: Vec<u8>,
}

/// What a game has to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Latest {
    /// The mail of the game's current state.
    Mail(Composed),
    /// Nothing: the opponent acted last.
    Nothing {
        /// The game's id.
        id: String,
        /// Why, and what the player can do.
        why: String,
    },
}

/// Puts a composed mail in the outbox; when it carries the player's last act in a game
/// that is over (`last_mail`), the game no longer owes it.
pub fn queue(home: &Home, composed: &Composed, last_mail: bool) -> Result<(), DeskError> {
    home.outbox.put(
        &composed.id,
        composed.ply,
        &composed.from,
        std::slice::from_ref(&composed.to),
        &composed.bytes,
    )?;
    if last_mail {
        let mut state = home.games.state(&composed.id)?;
        if state.last_mail_owed {
            state.last_mail_owed = false;
            home.games.commit(&composed.id, None, Some(&state))?;
        }
    }
    Ok(())
}

/// Composes the mail for a game's current state, unless the opponent acted last (then
/// the current state is theirs, and mailing it would send them their own turn back).
pub fn compose_latest(game: &str, home: &Home, now: DateTime<Utc>) -> Result<Latest, DeskError> {
    let (path, record, id) = home.game(game)?;
    let me = &home.settings.player;
    let you = correspondence::side_of(&record, &me.email).ok_or_else(|| {
        DeskError::Cannot(format!(
            "{}: you ({}) do not play in this game",
            path.display(),
            me.email
        ))
    })?;
    let state = correspondence::state(&record)
        .map_err(|error| DeskError::Cannot(format!("{}: {error}", path.display())))?;
    if correspondence::last_actor(&record, &state.turns) == Some(you.other()) {
        let what = match &state.last_turn {
            Some(last) => format!("the latest turn, {last}, is your opponent's"),
            None => "the latest event is your opponent's".to_owned(),
        };
        let open = record
            .tag("Result")
            .is_none_or(|result| result.trim() == "*");
        let next = match state.awaited {
            Some(awaited) if open && awaited == you => format!(
                "; the last turn awaits your card: `pbem legal {id}` lists them, `pbem move {id} CARD` plays one, then `pbem send {id}`"
            ),
            None if open && state.to_move == you => {
                format!("; it is your turn: `pbem move {id} TURN`, then `pbem send {id}`")
            }
            _ => String::new(),
        };
        return Ok(Latest::Nothing {
            id,
            why: format!("{what}{next}"),
        });
    }
    Ok(Latest::Mail(compose_state(
        &record, &id, you, &state, home, None, now,
    )?))
}

/// Composes the mail of a game's current state, with a note from the player if any.
fn compose_state(
    record: &Record,
    id: &str,
    you: Color,
    state: &correspondence::State,
    home: &Home,
    note: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Composed, DeskError> {
    let me = &home.settings.player;
    let (name_tag, address_tag) = match you {
        Color::White => ("Black", "BlackNA"),
        Color::Black => ("White", "WhiteNA"),
    };
    let opponent = Mailbox {
        name: record.tag(name_tag).unwrap_or("?").to_owned(),
        address: record.tag(address_tag).unwrap_or_default().to_owned(),
    };
    let sender = Mailbox {
        name: me.name.clone(),
        address: me.email.clone(),
    };
    let secret = secret_bytes(home, id)?;
    // A refusal's note says how to answer already.
    let answer = if note.is_none() {
        answer_by_hand(record, you, state, home, id)?
    } else {
        None
    };
    let text = correspondence::to_text(record);
    let ply = u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX);
    let variant = record.tag("Variant").unwrap_or("Chess").to_owned();
    let outgoing = Outgoing {
        game_id: id,
        from: &sender,
        to: &opponent,
        ply,
        last_turn: state.last_turn.as_deref(),
        variant: &variant,
        diagram: &state.diagram,
        position: &state.position,
        record: &text,
        secret: secret.as_deref(),
        date: now,
        note,
        answer: answer.as_deref(),
    };
    // The picture of the position, unless the config turns pictures off.
    let picture = home
        .settings
        .pictures
        .then(|| crate::render::final_svg(record))
        .flatten()
        .and_then(|svg| crate::render::png(&svg, crate::render::PNG_SIZE).ok());
    let bytes = match &picture {
        Some(png) => mail::compose_with_picture(&outgoing, png),
        None => mail::compose(&outgoing),
    }
    .map_err(|error| DeskError::Cannot(error.to_string()))?;
    Ok(Composed {
        id: id.to_owned(),
        ply,
        from: sender.address,
        to: opponent.address,
        bytes,
    })
}

/// The line of a mail that tells an opponent without pbem how to answer by hand, when the
/// game takes typed turns (it has no secret, or allows them) and the opponent acts next:
/// a turn, or a card the last turn awaits unless the cards are dealt fairly (a card typed
/// by hand carries no key to open it).
fn answer_by_hand(
    record: &Record,
    you: Color,
    state: &correspondence::State,
    home: &Home,
    id: &str,
) -> Result<Option<String>, DeskError> {
    let local = home.games.state(id)?;
    let open = record
        .tag("Result")
        .is_none_or(|result| result.trim() == "*");
    if !open || (local.secret.is_some() && !local.allow_typed) {
        return Ok(None);
    }
    let them = you.other();
    let dealt = fair::uses_cards(record)
        && !record
            .tag(fair::cards::BY_HAND_TAG)
            .is_some_and(|value| value.trim().eq_ignore_ascii_case(fair::cards::BY_HAND));
    Ok(match state.awaited {
        Some(side) if side == them && !dealt => Some(
            "To answer without pbem, reply with your card (as S9) alone on the first line."
                .to_owned(),
        ),
        None if state.to_move == them => Some(format!(
            "To answer without pbem, reply with your turn ({}) alone on the first line.",
            state.next_number
        )),
        _ => None,
    })
}

/// The game's secret, as bytes, when it has one.
pub(super) fn secret_bytes(home: &Home, id: &str) -> Result<Option<Vec<u8>>, DeskError> {
    let Some(hex) = home.games.state(id)?.secret else {
        return Ok(None);
    };
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|at| {
            hex.get(at..at + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect();
    bytes.map(Some).ok_or_else(|| {
        DeskError::Cannot(format!(
            "the stored secret of {id} is not hex; set it again with `pbem secret`"
        ))
    })
}

/// The mail of `pbem send --refusal HANDLE`: the game's current state, with the reason
/// the refused mail was not taken in as the note, under a message id of its own (the
/// state's id with `-refused-HANDLE` after its hash, so a client does not take it for
/// the earlier mail of the same state, and a reply to it still names the game's ply).
pub fn compose_refusal(handle: &str, home: &Home, now: DateTime<Utc>) -> Result<Latest, DeskError> {
    let ledger = Ledger::load(home.games.dir())?;
    let handle = handle.trim();
    let entry = ledger
        .mails
        .iter()
        .rev()
        .find(|entry| entry.outcome == crate::store::Outcome::Refused && entry.handle() == handle)
        .ok_or_else(|| {
            DeskError::Cannot(format!(
                "no refused mail with handle {handle} (`pbem status` lists them)"
            ))
        })?;
    let id = entry.game.clone().ok_or_else(|| {
        DeskError::Cannot(format!(
            "the refused mail {handle} names no game: there is nobody to mail the refusal to"
        ))
    })?;
    let path = home.games.path(&id)?;
    let record = home.games.load(&path)?;
    let me = &home.settings.player.email;
    let you = correspondence::side_of(&record, me).ok_or_else(|| {
        DeskError::Cannot(format!(
            "{}: you ({me}) do not play in this game",
            path.display()
        ))
    })?;
    let state = correspondence::state(&record)
        .map_err(|error| DeskError::Cannot(format!("{}: {error}", path.display())))?;
    let mut note = format!(
        "{}\n",
        wrap(
            &refusal_headline(
                &home.settings.player.name,
                entry.reason.trim_start_matches(&format!("{id}: "))
            ),
            72
        )
    );
    if record
        .tag("Result")
        .is_none_or(|result| result.trim() == "*")
        && state.to_move != you
    {
        note.push_str(&format!(
            "It is your turn ({}): answer this mail with your turn\nalone on the first line.",
            state.next_number
        ));
    }
    let mut composed = compose_state(&record, &id, you, &state, home, Some(&note), now)?;
    composed.bytes = with_refusal_id(&composed.bytes, handle);
    Ok(Latest::Mail(composed))
}

/// Dismisses the refused mail whose refusal `pbem send --refusal` has written or queued,
/// so that `pbem status` no longer lists it; says whether there was one to dismiss.
pub fn dismiss_refused(handle: &str, home: &Home) -> Result<bool, DeskError> {
    let mut ledger = Ledger::load(home.games.dir())?;
    if ledger.dismiss(Some(handle.trim())) == 0 {
        return Ok(false);
    }
    ledger.save(home.games.dir())?;
    Ok(true)
}

/// The first sentence of a refusal mailed back, from the refused mail's `reason`:
/// "Alice's pbem refused your typed turn Rc8: why", or "Alice's pbem did not take in your
/// mail: reason" for a refusal of another kind.
fn refusal_headline(sender: &str, reason: &str) -> String {
    let typed = reason
        .strip_prefix("the turn ")
        .and_then(|rest| rest.split_once(" typed, \""))
        .and_then(|(_, rest)| rest.split_once("\", is refused: "));
    let Some((line, why)) = typed else {
        return format!("{sender}'s pbem did not take in your mail: {reason}");
    };
    // "illegal turn "Rc8": why" says the turn twice.
    let why = ["illegal turn \"", "cannot read \""]
        .iter()
        .find_map(|prefix| why.strip_prefix(prefix))
        .and_then(|rest| rest.split_once("\": ").map(|(_, why)| why))
        .unwrap_or(why);
    format!("{sender}'s pbem refused your typed turn {line}: {why}")
}

/// The message with `-refused-HANDLE` added to the local part of its Message-ID.
fn with_refusal_id(message: &[u8], handle: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(message);
    let mut out = String::with_capacity(text.len() + 20);
    let mut in_header = true;
    for line in text.split_inclusive('\n') {
        if in_header && line.trim_end().is_empty() {
            in_header = false;
        }
        if in_header
            && line.to_ascii_lowercase().starts_with("message-id:")
            && let Some(at) = line.find("@pbem.invalid>")
        {
            out.push_str(&line[..at]);
            out.push_str(&format!("-refused-{handle}"));
            out.push_str(&line[at..]);
        } else {
            out.push_str(line);
        }
    }
    out.into_bytes()
}

/// Text broken into lines of at most `width` characters at spaces (a longer word keeps
/// its own line), so that a mail of short lines stays readable as it is sent.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}
