//! `pbem send`, `pbem receive` and the SMTP part of `pbem config check`: the edge where
//! game files meet mail.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::home::{self, Home};
use super::{CliError, Status};
use crate::config::{
    AfterTaken, ImapConfig, ImapSecurityMode, PasswordSource, SecurityMode, SmtpConfig,
};
use crate::correspondence::{self, Comparison};
use crate::fair::{self, Fairness};
use crate::games::Color;
use crate::mail::{self, Mailbox, Outgoing, Password, Security, SmtpSettings};
use crate::notation::{Record, parse_record};
use crate::replay;
use crate::store::{Entry, Ledger, Outcome, Pending};

mod folder;
mod typed;

/// Arguments of `pbem send`.
#[derive(Debug, clap::Args)]
pub struct SendArgs {
    /// Write the mail as an .eml file into this folder instead of sending it (nothing
    /// goes to the outbox or the shared folder).
    #[arg(long, value_name = "DIR")]
    pub dry_run: Option<PathBuf>,
    /// Deliver every mail waiting in the outbox (after a failed send).
    #[arg(long)]
    pub retry: bool,
    /// Mail a refusal back: the game's current state, with why `pbem receive` refused
    /// the opponent's mail (a turn typed by hand that is illegal, say) and the legal
    /// turns. HANDLE is what `pbem status` shows for the refused mail.
    #[arg(long, value_name = "HANDLE", conflicts_with_all = ["retry", "game"])]
    pub refusal: Option<String>,
    /// The game whose latest turn (or start, or event) to mail.
    #[arg(value_name = "GAME", required_unless_present_any = ["retry", "refusal"])]
    pub game: Option<String>,
}

/// Arguments of `pbem receive`.
#[derive(Debug, clap::Args)]
pub struct ReceiveArgs {
    /// Take in the pbem mails of this Maildir that are new to pbem, in its new/ and cur/
    /// folders (other mail is left exactly as it is).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    pub maildir: Option<PathBuf>,
    /// Take in the pbem mails (and replies to them) that are new to pbem from the IMAP
    /// folder of the config's imap section (other mail is not even fetched).
    #[arg(long, conflicts_with_all = ["file", "maildir"])]
    pub imap: bool,
    /// A mail file (`-` reads standard input).
    #[arg(value_name = "FILE", required_unless_present_any = ["maildir", "imap"])]
    pub file: Option<PathBuf>,
}

/// Arguments of `pbem sync` (none).
#[derive(Debug, clap::Args)]
pub struct SyncArgs {}

/// Runs `pbem send`.
pub fn send(args: &SendArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut only: Option<String> = None;
    let latest = match (&args.refusal, &args.game) {
        (Some(handle), _) => Some(typed::compose_refusal(handle, home)?),
        (None, Some(game)) => Some(compose_latest(game, home)?),
        (None, None) => None,
    };
    if let Some(latest) = latest {
        let (id, ply, message) = match latest {
            Latest::Mail(id, ply, message) => (id, ply, message),
            Latest::Nothing(id, why) => {
                writeln!(out, "{id}: nothing to send: {why}")?;
                let waiting = home
                    .outbox
                    .pending()?
                    .iter()
                    .filter(|pending| pending.game_id == id)
                    .count();
                if waiting > 0 {
                    writeln!(
                        out,
                        "{id}: {waiting} earlier mail{} of this game wait{} in the outbox (`pbem send --retry` sends {})",
                        if waiting == 1 { "" } else { "s" },
                        if waiting == 1 { "s" } else { "" },
                        if waiting == 1 { "it" } else { "them" }
                    )?;
                }
                return Ok(Status::Ok);
            }
        };
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
            if let Some(handle) = &args.refusal {
                typed::dismiss_refused(handle, home, &mut *out)?;
            }
            return Ok(Status::Ok);
        }
        home.outbox.put(
            &id,
            ply,
            &message.from,
            std::slice::from_ref(&message.to),
            &message.bytes,
        )?;
        // The refusal is on its way (sent now, or from the outbox later): the refused
        // mail is dealt with.
        if let Some(handle) = &args.refusal {
            typed::dismiss_refused(handle, home, &mut *out)?;
        } else {
            // The last mail of a finished game is on its way too.
            let mut state = home.games.state(&id)?;
            if state.last_mail_owed {
                state.last_mail_owed = false;
                home.games.commit(&id, None, Some(&state))?;
            }
        }
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
    // A shared folder wins over the smtp section (see `config`).
    if let Some(folder) = &home.settings.shared_folder {
        return folder::send(&pending, folder, home, out);
    }
    let Some(smtp) = &home.settings.smtp else {
        return Err(CliError::Usage(format!(
            "no smtp section and no shared_folder in {}: {} in {} (add smtp settings, or a shared_folder to play through, then run `pbem send --retry`)",
            home.path.display(),
            if pending.len() == 1 {
                "1 mail waits".to_string()
            } else {
                format!("{} mails wait", pending.len())
            },
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
    sent_or_waiting(failed, "sent")
}

/// How `pbem send` ends once it has tried every pending mail: ok when none failed, else
/// a usage error counting the mails that could not be `done` ("sent", "delivered") and
/// wait in the outbox. Sending by SMTP and delivering into a shared folder end alike.
fn sent_or_waiting(failed: usize, done: &str) -> Result<Status, CliError> {
    if failed == 0 {
        return Ok(Status::Ok);
    }
    Err(CliError::Usage(format!(
        "{failed} {} could not be {done} and {} in the outbox",
        if failed == 1 { "mail" } else { "mails" },
        if failed == 1 { "waits" } else { "wait" }
    )))
}

/// A composed mail with its envelope.
struct Composed {
    from: String,
    to: String,
    bytes: Vec<u8>,
}

/// What `pbem send GAME` has to send.
enum Latest {
    /// The mail of the game's current state: id, ply, mail.
    Mail(String, u32, Composed),
    /// Nothing: the opponent acted last (id, why).
    Nothing(String, String),
}

/// Composes the mail for a game's current state, unless the opponent acted last (then
/// the current state is theirs, and mailing it would send them their own turn back).
fn compose_latest(game: &str, home: &Home) -> Result<Latest, CliError> {
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
        return Ok(Latest::Nothing(id, format!("{what}{next}")));
    }
    let ply = u32::try_from(record.moves.turns.len()).unwrap_or(u32::MAX);
    let composed = compose_state(&record, &id, you, &state, home, None)?;
    Ok(Latest::Mail(id, ply, composed))
}

/// Composes the mail of a game's current state, with a note from the player if any.
fn compose_state(
    record: &Record,
    id: &str,
    you: Color,
    state: &correspondence::State,
    home: &Home,
    note: Option<&str>,
) -> Result<Composed, CliError> {
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
        date: home::now()?,
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
    .map_err(|error| CliError::Usage(error.to_string()))?;
    Ok(Composed {
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
) -> Result<Option<String>, CliError> {
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
        PasswordSource::Command(command) => {
            Some(Password::new(run_password_command("smtp", command)?))
        }
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
fn run_password_command(section: &str, command: &str) -> Result<String, CliError> {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| {
            CliError::Usage(format!("cannot run {section}.password_command: {error}"))
        })?;
    if !output.status.success() {
        return Err(CliError::Usage(format!(
            "{section}.password_command failed ({})",
            output.status
        )));
    }
    let text = String::from_utf8(output.stdout).map_err(|_| {
        CliError::Usage(format!(
            "{section}.password_command printed something that is not UTF-8"
        ))
    })?;
    let password = text.lines().next().unwrap_or("").to_owned();
    if password.is_empty() {
        return Err(CliError::Usage(format!(
            "{section}.password_command printed nothing"
        )));
    }
    Ok(password)
}

/// The shared-folder part of `pbem config check` (nothing without one).
pub fn check_shared(home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    if let Some(shared) = &home.settings.shared_folder {
        folder::check(shared, home, out)?;
    }
    Ok(Status::Ok)
}

/// The SMTP part of `pbem config check`. With a shared folder the relay is not used, so
/// it is not tried either.
pub fn check_smtp(home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    if home.settings.shared_folder.is_some() {
        match &home.settings.smtp {
            Some(smtp) => writeln!(
                out,
                "smtp: {}:{}, not used: the shared folder wins (remove shared_folder to send by mail)",
                smtp.host, smtp.port
            )?,
            None => writeln!(
                out,
                "smtp: not configured (not needed with a shared folder)"
            )?,
        }
        return Ok(Status::Ok);
    }
    let Some(smtp) = &home.settings.smtp else {
        writeln!(
            out,
            "smtp: not configured (mails wait in the outbox; `pbem send --dry-run DIR` writes them as files)"
        )?;
        return Ok(Status::Ok);
    };
    writeln!(
        out,
        "smtp: {}:{} ({})",
        smtp.host,
        smtp.port,
        format!("{:?}", smtp.security).to_ascii_lowercase()
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

/// A mail judged: its ledger key, the game it names, and what was done.
struct Judged {
    key: String,
    game: Option<String>,
    result: Result<Taken, Refusal>,
}

/// Runs `pbem receive`.
pub fn receive(args: &ReceiveArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    if let Some(maildir) = &args.maildir {
        return receive_maildir(maildir, home, out, false).map(|(status, _)| status);
    }
    if args.imap {
        return receive_imap(home, out).map(|(status, _)| status);
    }
    let path = args.file.as_deref().unwrap_or(Path::new("-"));
    let bytes = read_input(path)?;
    let judged = judge(&bytes, home);
    let file = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    let mut ledger = Ledger::load(home.games.dir())?;
    let status = match &judged.result {
        Ok(Taken::Saved(text) | Taken::Nothing(text)) => {
            writeln!(out, "{text}")?;
            Status::Ok
        }
        Err(Refusal::NotPbem(reason)) => {
            writeln!(out, "{}: refused: {reason}", path.display())?;
            return Ok(Status::Invalid);
        }
        Err(Refusal::Refused(reason)) => {
            let handle = entry(&judged, file.clone())?.handle();
            writeln!(
                out,
                "{}: refused: {reason}\n`pbem status` lists it until `pbem dismiss {handle}`",
                path.display()
            )?;
            Status::Invalid
        }
    };
    crate::store::hook::pause_at("taken");
    ledger.record(entry(&judged, file)?);
    ledger.save(home.games.dir())?;
    Ok(status)
}

/// The ledger entry of a judged mail.
fn entry(judged: &Judged, file: String) -> Result<Entry, CliError> {
    let (outcome, reason) = match &judged.result {
        Ok(Taken::Saved(text)) => (Outcome::Taken, first_line(text)),
        Ok(Taken::Nothing(text)) => (Outcome::Known, first_line(text)),
        Err(Refusal::Refused(reason) | Refusal::NotPbem(reason)) => {
            (Outcome::Refused, reason.clone())
        }
    };
    Ok(Entry {
        key: judged.key.clone(),
        file,
        game: judged.game.clone(),
        outcome,
        reason,
        at: home::now()?,
        dismissed: false,
    })
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_owned()
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

/// A Maildir message: where it is, its name, and its unique part (the name without the
/// `:2,` flags, which clients change when they show or flag a mail).
struct MaildirMail {
    path: PathBuf,
    name: String,
    unique: String,
    is_new: bool,
}

/// The messages of a Maildir's `new/` and `cur/`, oldest unique name first.
fn maildir_mails(maildir: &Path) -> Result<Vec<MaildirMail>, CliError> {
    let mut mails = Vec::new();
    for (sub, is_new) in [("new", true), ("cur", false)] {
        let folder = maildir.join(sub);
        let io = |source| CliError::Io {
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

/// Takes in the pbem mails of a Maildir, in `new/` and in `cur/` alike: what is new is
/// decided by the mail ledger (each pbem mail is judged once, by its Message-ID and the
/// game's turns), not by folder or Seen flag. Mail that is not pbem mail is left exactly
/// as it is (folder, name, flags, content). A pbem mail taken in (or holding nothing
/// new) that is still in `new/` moves to `cur/` with the Seen flag, as a mail client
/// does once it has shown it; a refused one stays where it is, is reported once, and is
/// listed by `pbem status` until dismissed (it is judged again, quietly, on each run, so
/// it is taken in once it can be: after `pbem secret`, say). With `shared` (a Maildir
/// shared with the opponent), a mail not addressed to the player, or sent by them, is
/// left for the other side, unread and unreported.
fn receive_maildir(
    maildir: &Path,
    home: &Home,
    out: &mut dyn Write,
    shared: bool,
) -> Result<(Status, Vec<String>), CliError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| CliError::Io { path, source }
    };
    let mails = maildir_mails(maildir)?;
    let mut ledger = Ledger::load(home.games.dir())?;
    let mut run = Run::default();
    for mail in mails {
        if ledger.skipped.contains(&mail.unique) {
            continue;
        }
        let earlier = ledger.by_file(&mail.unique).cloned();
        if earlier.as_ref().is_some_and(|entry| !entry.open_refusal()) {
            continue;
        }
        let bytes = match std::fs::read(&mail.path) {
            Ok(bytes) => bytes,
            // Moved or removed by a mail client since the folder was listed.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(io(&mail.path)(error)),
        };
        if shared && !folder::addressed_to(&bytes, &home.settings.player.email) {
            ledger.skipped.insert(mail.unique);
            ledger.save(home.games.dir())?;
            continue;
        }
        let listed = run.judge(
            &bytes,
            &mail.unique,
            &mail.name,
            earlier.as_ref(),
            &mut ledger,
            home,
            out,
        )?;
        if mail.is_new && listed == Listed::Done {
            mark_seen(maildir, &mail).map_err(io(&mail.path))?;
        }
    }
    run.finish(out)
}

/// What became of one mail of a mailbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    /// Not a pbem mail: left alone for good.
    Skipped,
    /// Taken in, or nothing new in it.
    Done,
    /// Refused (and left where it is).
    Refused,
}

/// One reading of a mailbox (a Maildir or an IMAP folder): its exit status, how many
/// mails were taken in, and the games they changed.
struct Run {
    status: Status,
    taken: usize,
    changed: Vec<String>,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            status: Status::Ok,
            taken: 0,
            changed: Vec::new(),
        }
    }
}

impl Run {
    /// Judges one mail of the mailbox, named `unique` in the ledger and `name` in what is
    /// printed, through the ledger: each pbem mail is judged once (by its Message-ID and
    /// the game's turns), a refusal is reported once and tried again quietly, and mail
    /// that is not pbem mail is remembered as such.
    #[allow(clippy::too_many_arguments)]
    fn judge(
        &mut self,
        bytes: &[u8],
        unique: &str,
        name: &str,
        earlier: Option<&Entry>,
        ledger: &mut Ledger,
        home: &Home,
        out: &mut dyn Write,
    ) -> Result<Listed, CliError> {
        let mut judged = judge(bytes, home);
        if let Err(Refusal::NotPbem(_)) = judged.result {
            ledger.skipped.insert(unique.to_owned());
            ledger.save(home.games.dir())?;
            return Ok(Listed::Skipped);
        }
        if earlier.is_none()
            && let Some(seen) = ledger.by_key(&judged.key)
            && seen.outcome != Outcome::Refused
        {
            judged.result = Ok(Taken::Nothing(format!(
                "{}: already taken in from {} (a repeated delivery)",
                seen.game.as_deref().unwrap_or("?"),
                seen.file
            )));
        }
        match &judged.result {
            Ok(Taken::Saved(text)) => {
                self.taken += 1;
                if let Some(game) = &judged.game
                    && !self.changed.contains(game)
                {
                    self.changed.push(game.clone());
                }
                writeln!(out, "{text}")?;
            }
            Ok(Taken::Nothing(text)) => writeln!(out, "{name}: {text}")?,
            Err(Refusal::Refused(reason) | Refusal::NotPbem(reason)) => {
                if earlier.is_none() {
                    let handle = entry(&judged, unique.to_owned())?.handle();
                    writeln!(
                        out,
                        "{name}: refused: {reason}\n{name}: left where it is; `pbem status` lists it until `pbem dismiss {handle}`"
                    )?;
                    self.status = Status::Invalid;
                }
            }
        }
        crate::store::hook::pause_at("taken");
        let refused = judged.result.is_err();
        ledger.record(entry(&judged, unique.to_owned())?);
        ledger.save(home.games.dir())?;
        Ok(if refused {
            Listed::Refused
        } else {
            Listed::Done
        })
    }

    /// Says `no new moves` when nothing was taken in and nothing refused.
    fn finish(self, out: &mut dyn Write) -> Result<(Status, Vec<String>), CliError> {
        if self.taken == 0 && self.status == Status::Ok {
            writeln!(out, "no new moves")?;
        }
        Ok((self.status, self.changed))
    }
}

/// Takes in the pbem mails of the config's IMAP folder, as a Maildir's are taken in (the
/// same judging through the mail ledger, each mail named by the folder's UIDVALIDITY and
/// its UID). Only mails that may be pbem's are fetched (see `mail::imap::pbem_search`),
/// with `BODY.PEEK[]`, so no flag changes on a mail that is not taken in. A mail taken
/// in (or holding nothing new) is then flagged seen, moved or left, as `imap.after`
/// says; a refused one is left exactly as it is. An error stops the run with what was
/// done so far kept: the next run goes on from there.
fn receive_imap(home: &Home, out: &mut dyn Write) -> Result<(Status, Vec<String>), CliError> {
    let Some(imap) = &home.settings.imap else {
        return Err(CliError::Usage(format!(
            "no imap section in {}: add one (host, user, password_env) to read mail over IMAP",
            home.path.display()
        )));
    };
    let settings = imap_settings(imap)?;
    let failed = |error: mail::ImapError| {
        CliError::Usage(format!(
            "{error}\nwhat was taken in before is kept; the next `pbem receive --imap` (or `pbem sync`) goes on from there"
        ))
    };
    let mut mailbox = mail::imap::Mailbox::open(&settings).map_err(failed)?;
    let uids = mailbox.search().map_err(failed)?;
    // With `after: seen`, a mail judged before that is still unseen was taken in by a run
    // stopped before it could flag it: this run flags it.
    let unseen = if imap.after == AfterTaken::Seen {
        mailbox.unseen().map_err(failed)?
    } else {
        Vec::new()
    };
    let mut ledger = Ledger::load(home.games.dir())?;
    let mut run = Run::default();
    // The folder's mails by user, host (not port: tls and starttls reach the same
    // mailbox), folder, UIDVALIDITY and UID.
    let prefix = format!(
        "imap:{}@{}/{};{}",
        imap.user,
        imap.host,
        imap.folder,
        mailbox.uid_validity()
    );
    for uid in uids {
        let unique = format!("{prefix}/{uid}");
        if ledger.skipped.contains(&unique) {
            continue;
        }
        let earlier = ledger.by_file(&unique).cloned();
        if let Some(entry) = &earlier
            && !entry.open_refusal()
        {
            // Judged before; a flag or a move a stopped run did not make is made now.
            let unfinished = match imap.after {
                AfterTaken::Move => true,
                AfterTaken::Seen => unseen.binary_search(&uid).is_ok(),
                AfterTaken::Leave => false,
            };
            if entry.outcome != Outcome::Refused && unfinished {
                dispose(&mut mailbox, uid, imap).map_err(failed)?;
            }
            continue;
        }
        let Some(bytes) = mailbox.fetch(uid).map_err(failed)? else {
            // Deleted on the server since the search.
            continue;
        };
        let name = format!("{} uid {uid}", imap.folder);
        let listed = run.judge(
            &bytes,
            &unique,
            &name,
            earlier.as_ref(),
            &mut ledger,
            home,
            out,
        )?;
        if listed == Listed::Done {
            dispose(&mut mailbox, uid, imap).map_err(failed)?;
        }
    }
    mailbox.logout();
    run.finish(out)
}

/// Does with a mail taken in what `imap.after` says.
fn dispose(
    mailbox: &mut mail::imap::Mailbox,
    uid: u32,
    imap: &ImapConfig,
) -> Result<(), mail::ImapError> {
    match imap.after {
        AfterTaken::Leave => Ok(()),
        AfterTaken::Seen => mailbox.mark_seen(uid),
        AfterTaken::Move => mailbox.move_to(uid, imap.move_to.as_deref().unwrap_or("pbem")),
    }
}

/// The IMAP settings from the config, with the password fetched now.
fn imap_settings(imap: &ImapConfig) -> Result<mail::ImapSettings, CliError> {
    let password = match &imap.password {
        PasswordSource::Environment(variable) => std::env::var(variable).map_err(|_| {
            CliError::Usage(format!(
                "imap.password_env names {variable}, which is not set in the environment"
            ))
        })?,
        PasswordSource::Command(command) => run_password_command("imap", command)?,
        PasswordSource::None => String::new(),
    };
    Ok(mail::ImapSettings {
        host: imap.host.clone(),
        port: imap.port,
        security: match imap.security {
            ImapSecurityMode::Tls => mail::ImapSecurity::Tls,
            ImapSecurityMode::Starttls => mail::ImapSecurity::StartTls,
        },
        user: imap.user.clone(),
        password: Password::new(password),
        ca_file: imap.ca_file.clone(),
        timeout: imap.timeout,
        folder: imap.folder.clone(),
    })
}

/// The IMAP part of `pbem config check`.
pub fn check_imap(home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let Some(imap) = &home.settings.imap else {
        writeln!(
            out,
            "imap: not configured (`pbem receive` reads a file or a Maildir)"
        )?;
        return Ok(Status::Ok);
    };
    if home.settings.shared_folder.is_some() {
        writeln!(
            out,
            "imap: not read by `pbem sync`: the shared folder wins (`pbem receive --imap` still reads it)"
        )?;
    }
    let settings = imap_settings(imap)?;
    writeln!(
        out,
        "imap: {} ({}), folder {}",
        settings.server(),
        format!("{:?}", imap.security).to_ascii_lowercase(),
        imap.folder
    )?;
    mail::imap::check(&settings)
        .map_err(|error| CliError::Usage(format!("imap check failed: {error}")))?;
    writeln!(
        out,
        "imap: logged in as {} and opened {}",
        imap.user, imap.folder
    )?;
    Ok(Status::Ok)
}

/// Runs `pbem sync`: sends what waits in the outbox, takes in new mail (from the shared
/// folder when the config names one, else over IMAP when the config has an imap section,
/// else from its Maildir), and lists the games that changed. A failed send leaves its
/// mail in the outbox and does not stop the receiving.
pub fn sync(_args: &SyncArgs, home: &Home, out: &mut dyn Write) -> Result<Status, CliError> {
    let waiting = home.outbox.pending()?.len();
    let sent = if waiting == 0 {
        writeln!(out, "the outbox is empty")?;
        Ok(Status::Ok)
    } else {
        let retry = SendArgs {
            dry_run: None,
            retry: true,
            refusal: None,
            game: None,
        };
        send(&retry, home, out)
    };
    let (status, changed) = if let Some(shared) = &home.settings.shared_folder {
        folder::receive(shared, home, out)?
    } else if home.settings.imap.is_some() {
        receive_imap(home, out)?
    } else if let Some(maildir) = &home.settings.maildir {
        receive_maildir(maildir, home, out, false)?
    } else {
        return Err(CliError::Usage(format!(
            "no imap section, no maildir and no shared_folder in {}: pbem sync has no mail to read",
            home.path.display()
        )));
    };
    if !changed.is_empty() {
        writeln!(out, "changed: {}", changed.join(", "))?;
    }
    match sent {
        Err(error) => Err(error),
        Ok(_) => Ok(status),
    }
}

/// Moves a message from `new/` to `cur/` with the Seen flag added to its flags.
fn mark_seen(maildir: &Path, mail: &MaildirMail) -> std::io::Result<()> {
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

/// Why a mail was not taken in.
enum Refusal {
    /// Not a pbem mail at all.
    NotPbem(String),
    /// A pbem mail that cannot be accepted.
    Refused(String),
}

/// Reads and takes in one mail, and says what it was for the ledger.
fn judge(bytes: &[u8], home: &Home) -> Judged {
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
            ) && let Some(judged) = typed::judge_reply(bytes, home)
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
            result: take_in(&incoming, bytes, home),
        },
    }
}

/// Takes in one mail: checks it and saves what it adds.
fn take_in(incoming: &mail::Incoming, bytes: &[u8], home: &Home) -> Result<Taken, Refusal> {
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
                    return typed::take_typed(&reply, &id, home);
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
        let fail = |error: CliError| refused(error.to_string());
        super::play::ensure_committed(&mut record, you, &mut state).map_err(fail)?;
        let chain = super::play::chance_chain(&mut state).map_err(fail)?;
        rolled = fair::complete(&mut record, you, &chain)
            .map_err(|error| refused(format!("{id}: {error}; nothing was changed")))?;
    }
    // Fair cards: the mail's deal must hold, as far as this side sees it (its own cards
    // against the cards played: no card dealt twice); this side adds the steps it can
    // take now (its message of the deal, its keys for the other side's cards, its seed at
    // the end).
    if fair::uses_cards(&record) {
        let dealer = super::play::dealer(&mut state).map_err(|error| refused(error.to_string()))?;
        if let Fairness::Broken { ply, reason } = fair::cards::check_as(&record, you, &dealer) {
            return Err(refused(format!(
                "{id}: the mail's cards are not fair: ply {ply}: {reason}; nothing was changed"
            )));
        }
        super::play::ensure_dealt(&mut record, you, &mut state)
            .map_err(|error| refused(format!("{id}: {error}; nothing was changed")))?;
    }
    // The end of the game by the opponent: this side's seed (or a roll that ended it),
    // added now, is its last mail to send.
    let had_seed = local
        .as_ref()
        .is_some_and(|local| fair::cards::seed_revealed(local, you));
    let seeded = !had_seed && fair::cards::seed_revealed(&record, you);
    super::play::note_last_mail(&record, you, &mut state);
    let game = correspondence::state(&record).map_err(|error| refused(error.to_string()))?;
    let now = home::now().map_err(|error| refused(error.to_string()))?;
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
        .then(|| super::play::chance_outcome(&record))
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
    let mut text = saved_text(head, &id, &record, &game, you);
    if state.last_mail_owed {
        text.push_str(&format!(
            "\n{id}: {}send your last mail: pbem send {id}",
            if seeded {
                format!("{}; ", super::play::SEED_ADDED)
            } else {
                String::new()
            }
        ));
    }
    if let Some(refusal) = &refusal {
        text.push_str(&format!("\n{id}: {refusal}"));
    }
    if let Some((_, _, hand)) = super::play::own_hand(&record, home) {
        text.push('\n');
        text.push_str(&super::play::hand_line(&hand));
    }
    Ok(Taken::Saved(text))
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
/// `Bob (Black) resigned: Alice (White) wins, 1-0`.
fn ending(record: &Record, game: &correspondence::State, result: &str) -> String {
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
        _ => match game.report.outcome {
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
fn saved_text(
    head: String,
    id: &str,
    record: &Record,
    game: &correspondence::State,
    you: Color,
) -> String {
    let mut text = head;
    let result = record.tag("Result").unwrap_or("*");
    if result != "*" {
        text.push_str(&format!("; {}", ending(record, game, result)));
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
