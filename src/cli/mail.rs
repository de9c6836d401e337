//! `pbem send`, `pbem receive` and the SMTP part of `pbem config check`: the edge where
//! game files meet mail.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::home::{self, Home};
use super::{CliError, Status};
use crate::config::{PasswordSource, SecurityMode, SmtpConfig};
use crate::correspondence::{self, Comparison};
use crate::games::Color;
use crate::mail::{self, Mailbox, Outgoing, Password, Security, SmtpSettings};
use crate::notation::{Record, parse_record};
use crate::replay;
use crate::store::Pending;

/// Arguments of `pbem send`.
#[derive(Debug, clap::Args)]
pub struct SendArgs {
    /// Write the mail as an .eml file into this folder instead of sending it.
    #[arg(long, value_name = "DIR")]
    pub dry_run: Option<PathBuf>,
    /// Deliver every mail waiting in the outbox (after a failed send).
    #[arg(long)]
    pub retry: bool,
    /// The game whose latest turn (or start, or event) to mail.
    #[arg(value_name = "GAME", required_unless_present = "retry")]
    pub game: Option<String>,
}

/// Arguments of `pbem receive`.
#[derive(Debug, clap::Args)]
pub struct ReceiveArgs {
    /// Take in every new message of this Maildir (handled ones move to its cur/ folder).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    pub maildir: Option<PathBuf>,
    /// A mail file (`-` reads standard input).
    #[arg(value_name = "FILE", required_unless_present = "maildir")]
    pub file: Option<PathBuf>,
}

/// Runs `pbem send`.
pub fn send(args: &SendArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut only: Option<String> = None;
    if let Some(game) = &args.game {
        let (id, ply, message) = compose_latest(game, home)?;
        if let Some(dir) = &args.dry_run {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Io {
                path: dir.display().to_string(),
                source,
            })?;
            let path = dir.join(format!("{id}.{ply}.eml"));
            crate::store::write_atomically(&path, &message.bytes).map_err(|source| {
                CliError::Io {
                    path: path.display().to_string(),
                    source,
                }
            })?;
            writeln!(out, "{}", path.display())?;
            return Ok(Status::Ok);
        }
        home.outbox.put(
            &id,
            ply,
            &message.from,
            std::slice::from_ref(&message.to),
            &message.bytes,
        )?;
        only = Some(id);
    }
    let pending: Vec<Pending> = home
        .outbox
        .pending()?
        .into_iter()
        .filter(|pending| only.as_ref().is_none_or(|id| &pending.game_id == id))
        .collect();
    if pending.is_empty() {
        writeln!(out, "the outbox is empty")?;
        return Ok(Status::Ok);
    }
    let Some(smtp) = &home.settings.smtp else {
        return Err(CliError::Usage(format!(
            "no smtp section in {}: {} mail{} wait in {} (add smtp settings, then run `pbem send --retry`)",
            home.path.display(),
            pending.len(),
            if pending.len() == 1 { "" } else { "s" },
            home.settings.outbox.display()
        )));
    };
    let settings = smtp_settings(smtp)?;
    let mut failed = 0;
    for item in &pending {
        let message = home.outbox.message(item)?;
        let to: Vec<&str> = item.to.iter().map(String::as_str).collect();
        match mail::send(&settings, &item.from, &to, &message) {
            Ok(()) => {
                home.outbox.delivered(item)?;
                writeln!(
                    out,
                    "sent {} (ply {}) to {}",
                    item.game_id,
                    item.ply,
                    item.to.join(", ")
                )?;
            }
            Err(error) => {
                failed += 1;
                eprintln!(
                    "pbem: {} (ply {}) not sent: {error}\npbem: the mail stays in {}; `pbem send --retry` sends it later",
                    item.game_id,
                    item.ply,
                    home.settings.outbox.display()
                );
            }
        }
    }
    if failed > 0 {
        return Err(CliError::Usage(format!(
            "{failed} mail{} could not be sent and wait in the outbox",
            if failed == 1 { "" } else { "s" }
        )));
    }
    Ok(Status::Ok)
}

/// A composed mail with its envelope.
struct Composed {
    from: String,
    to: String,
    bytes: Vec<u8>,
}

/// Composes the mail for a game's current state.
fn compose_latest(game: &str, home: &Home) -> Result<(String, u32, Composed), CliError> {
    let path = home.games.find(game)?;
    let record = home.games.load(&path)?;
    let id = super::play::game_id_of(&record, &path)?;
    let me = &home.settings.player;
    let you = correspondence::side_of(&record, &me.email).ok_or_else(|| {
        CliError::Usage(format!(
            "{}: you ({}) do not play in this game",
            path.display(),
            me.email
        ))
    })?;
    let state = correspondence::state(&record)
        .map_err(|error| CliError::Usage(format!("{}: {error}", path.display())))?;
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
    let secret = secret_bytes(home, &id)?;
    let text = correspondence::to_text(&record);
    let ply = u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX);
    let variant = record.tag("Variant").unwrap_or("Chess").to_owned();
    let outgoing = Outgoing {
        game_id: &id,
        from: &sender,
        to: &opponent,
        ply,
        last_turn: state.last_turn.as_deref(),
        variant: &variant,
        diagram: &state.diagram,
        position: &state.position,
        record: &text,
        secret: secret.as_deref(),
        date: home::now()?,
        note: None,
    };
    // The picture of the position, unless the config turns pictures off.
    let picture = home
        .settings
        .pictures
        .then(|| crate::render::final_svg(&record))
        .flatten()
        .and_then(|svg| crate::render::png(&svg, crate::render::PNG_SIZE).ok());
    let bytes = match &picture {
        Some(png) => mail::compose_with_picture(&outgoing, png),
        None => mail::compose(&outgoing),
    }
    .map_err(|error| CliError::Usage(error.to_string()))?;
    Ok((
        id,
        ply,
        Composed {
            from: sender.address,
            to: opponent.address,
            bytes,
        },
    ))
}

fn secret_bytes(home: &Home, id: &str) -> Result<Option<Vec<u8>>, CliError> {
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
        CliError::Usage(format!(
            "the stored secret of {id} is not hex; set it again with `pbem secret`"
        ))
    })
}

/// The transport settings from the config, with the password fetched now.
fn smtp_settings(smtp: &SmtpConfig) -> Result<SmtpSettings, CliError> {
    let password = match &smtp.password {
        PasswordSource::None => None,
        PasswordSource::Environment(variable) => {
            Some(Password::new(std::env::var(variable).map_err(|_| {
                CliError::Usage(format!(
                    "smtp.password_env names {variable}, which is not set in the environment"
                ))
            })?))
        }
        PasswordSource::Command(command) => Some(Password::new(run_password_command(command)?)),
    };
    Ok(SmtpSettings {
        host: smtp.host.clone(),
        port: smtp.port,
        security: match smtp.security {
            SecurityMode::Starttls => Security::StartTls,
            SecurityMode::Tls => Security::Tls,
            SecurityMode::Plain => Security::Plain,
        },
        user: smtp.user.clone(),
        password,
        ca_file: smtp.ca_file.clone(),
        timeout: smtp.timeout,
        allow_plain: smtp.allow_plain,
    })
}

/// Runs the password command and takes its first line. Its output is never shown.
fn run_password_command(command: &str) -> Result<String, CliError> {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| CliError::Usage(format!("cannot run smtp.password_command: {error}")))?;
    if !output.status.success() {
        return Err(CliError::Usage(format!(
            "smtp.password_command failed ({})",
            output.status
        )));
    }
    let text = String::from_utf8(output.stdout).map_err(|_| {
        CliError::Usage("smtp.password_command printed something that is not UTF-8".to_owned())
    })?;
    let password = text.lines().next().unwrap_or("").to_owned();
    if password.is_empty() {
        return Err(CliError::Usage(
            "smtp.password_command printed nothing".to_owned(),
        ));
    }
    Ok(password)
}

/// The SMTP part of `pbem config check`.
pub fn check_smtp(home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let Some(smtp) = &home.settings.smtp else {
        writeln!(
            out,
            "smtp: not configured (mails wait in the outbox; `pbem send --dry-run DIR` writes them as files)"
        )?;
        return Ok(Status::Ok);
    };
    writeln!(
        out,
        "smtp: {}:{} ({:?})",
        smtp.host, smtp.port, smtp.security
    )?;
    let settings = smtp_settings(smtp)?;
    mail::check(&settings)
        .map_err(|error| CliError::Usage(format!("smtp check failed: {error}")))?;
    writeln!(
        out,
        "smtp: connected{}",
        if smtp.user.is_some() {
            " and logged in"
        } else {
            ""
        }
    )?;
    Ok(Status::Ok)
}

/// What taking in one mail did.
enum Taken {
    /// A new game, or new turns or events: saved.
    Saved(String),
    /// Nothing new.
    Nothing(String),
}

/// Runs `pbem receive`.
pub fn receive(args: &ReceiveArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    if let Some(maildir) = &args.maildir {
        return receive_maildir(maildir, home, out);
    }
    let path = args.file.as_deref().unwrap_or(Path::new("-"));
    let bytes = read_input(path)?;
    match take_in(&bytes, home) {
        Ok(Taken::Saved(text) | Taken::Nothing(text)) => {
            writeln!(out, "{text}")?;
            Ok(Status::Ok)
        }
        Err(Refusal::NotPbem(reason) | Refusal::Refused(reason)) => {
            writeln!(out, "{}: refused: {reason}", path.display())?;
            Ok(Status::Invalid)
        }
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    let result = if path.as_os_str() == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut file| file.read_to_end(&mut bytes).map(|_| ()))
    };
    result.map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })?;
    Ok(bytes)
}

/// Every message in `new/`, oldest name first. A handled message (taken in, already
/// known, or not pbem mail at all) moves to `cur/`; a refused pbem mail stays in `new/`,
/// so that it is looked at again (after `pbem secret`, say) and never lost.
fn receive_maildir(maildir: &Path, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let new = maildir.join("new");
    let cur = maildir.join("cur");
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CliError::Io { path, source }
    };
    let mut names: Vec<PathBuf> = std::fs::read_dir(&new)
        .map_err(io(&new))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .map_err(io(&new))?;
    names.retain(|path| path.is_file());
    names.sort();
    std::fs::create_dir_all(&cur).map_err(io(&cur))?;
    let mut status = Status::Ok;
    let mut taken = 0;
    for path in names {
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("mail")
            .to_owned();
        let handled = match take_in(&bytes, home) {
            Ok(Taken::Saved(text)) => {
                taken += 1;
                writeln!(out, "{text}")?;
                true
            }
            Ok(Taken::Nothing(text)) => {
                writeln!(out, "{name}: {text}")?;
                true
            }
            Err(Refusal::NotPbem(reason)) => {
                writeln!(out, "{name}: skipped: {reason}")?;
                true
            }
            Err(Refusal::Refused(reason)) => {
                writeln!(out, "{name}: refused (left in new/): {reason}")?;
                status = Status::Invalid;
                false
            }
        };
        if handled {
            let target = cur.join(format!("{name}:2,S"));
            std::fs::rename(&path, &target).map_err(io(&path))?;
        }
    }
    if taken == 0 && status == Status::Ok {
        writeln!(out, "no new moves")?;
    }
    Ok(status)
}

/// Why a mail was not taken in.
enum Refusal {
    /// Not a pbem mail at all.
    NotPbem(String),
    /// A pbem mail that cannot be accepted.
    Refused(String),
}

/// Takes in one mail: checks it and saves what it adds.
fn take_in(bytes: &[u8], home: &Home) -> Result<Taken, Refusal> {
    let incoming = mail::parse_mail(bytes).map_err(|error| {
        if matches!(error, mail::MailError::NotPbem | mail::MailError::NoText) {
            Refusal::NotPbem(error.to_string())
        } else {
            Refusal::Refused(error.to_string())
        }
    })?;
    let refused = |text: String| Refusal::Refused(text);
    let store = |error: crate::store::StoreError| Refusal::Refused(error.to_string());
    let record = parse_record(&incoming.record).map_err(|error| {
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
    let secret = secret_bytes(home, &id).map_err(|error| refused(error.to_string()))?;
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
    let opponent = record.tag(opponent_tag).unwrap_or_default();
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
    let added = match &local {
        None => record.moves.turns.len(),
        Some(local) => match correspondence::compare(local, &record) {
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
    if let Some(local) = &local {
        // Only the opponent's turns may be new: the player's own come from here.
        let start = local.moves.turns.len();
        let first_new = game.turns.get(start).map(|(color, _)| *color);
        if added > 1 || first_new.is_some_and(|color| color == you) {
            return Err(refused(format!(
                "{id}: the mail adds {added} turns starting with one of yours; only your opponent's next turn can come by mail"
            )));
        }
    }
    home.games
        .save(&id, &correspondence::to_text(&record))
        .map_err(store)?;
    let now = home::now().map_err(|error| refused(error.to_string()))?;
    let mut state = state;
    if added > 0 || local.is_none() {
        state.received = Some(now);
    }
    home.games.save_state(&id, &state).map_err(store)?;

    let mut text = match (&local, game.last_turn.as_deref()) {
        (None, Some(last)) => format!("{id}: new game from {opponent}, last turn {last}"),
        (None, None) => format!("{id}: new game from {opponent}"),
        (Some(_), Some(last)) if added > 0 => format!("{id}: {opponent} played {last}"),
        (Some(_), _) => format!("{id}: {opponent} updated the game"),
    };
    let result = record.tag("Result").unwrap_or("*");
    if result != "*" {
        text.push_str(&format!("; the game is over: {result}"));
    } else if let Some(offer) = correspondence::standing_offer(&record)
        && offer != you
    {
        text.push_str(&format!(
            "; {offer} offers a draw (`pbem draw accept {id}`)"
        ));
    }
    text.push('\n');
    text.push_str(&game.diagram);
    if result == "*" {
        text.push_str(
            &(if game.to_move == you {
                format!("your turn: {}", game.next_number)
            } else {
                format!("{}'s turn", game.to_move)
            })
            .to_string(),
        );
    }
    Ok(Taken::Saved(text))
}
