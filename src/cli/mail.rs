//! `pbem send`, `pbem receive`, `pbem sync` and the mail parts of `pbem config check`:
//! their arguments, the mailboxes read (a file, a Maildir, an IMAP folder, the shared
//! folder) and what the player is told. The mail is composed by [`crate::desk::outbox`]
//! and judged and taken in by [`crate::desk::inbox`].

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::home::{self, Home};
use super::{CliError, Status};
use crate::config::{AfterTaken, ImapConfig};
use crate::desk::inbox::{self, Listed, Refusal, Taken};
use crate::desk::outbox::{self, Latest};
use crate::mail;
use crate::store::{Entry, Outcome, Pending};

mod folder;

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
    let now = home::now()?;
    // The mails that waited in the outbox before this run (a mail composed now that is
    // found delivered already was delivered by an earlier send; one that waited, by an
    // interrupted one).
    let waited = home.outbox.pending()?;
    let latest = match (&args.refusal, &args.game) {
        (Some(handle), _) => Some(outbox::compose_refusal(handle, home, now)?),
        (None, Some(game)) => Some(outbox::compose_latest(game, home, now)?),
        (None, None) => None,
    };
    if let Some(latest) = latest {
        let message = match latest {
            Latest::Mail(message) => message,
            Latest::Nothing { id, why } => {
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
            let path = dir.join(format!("{}.{}.eml", message.id, message.ply));
            crate::store::write_atomically(&path, &message.bytes).map_err(|source| {
                CliError::Io {
                    path: path.display().to_string(),
                    source,
                }
            })?;
            writeln!(out, "{}", path.display())?;
            if let Some(handle) = &args.refusal {
                dismiss_refused(handle, home, out)?;
            }
            return Ok(Status::Ok);
        }
        // The last mail of a finished game is on its way too; a refusal (sent now, or
        // from the outbox later) deals with the refused mail.
        outbox::queue(home, &message, args.refusal.is_none())?;
        if let Some(handle) = &args.refusal {
            dismiss_refused(handle, home, out)?;
        }
        only = Some(message.id);
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
        return folder::send(&pending, &waited, folder, home, out);
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
    let settings = Home::smtp_settings(smtp)?;
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

/// Dismisses the refused mail `pbem send --refusal` answered, and says so.
fn dismiss_refused(handle: &str, home: &Home, out: &mut dyn Write) -> Result<(), CliError> {
    if outbox::dismiss_refused(handle, home)? {
        writeln!(
            out,
            "refused mail {} dismissed: the refusal answers it",
            handle.trim()
        )?;
    }
    Ok(())
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
    let settings = Home::smtp_settings(smtp)?;
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
    let now = home::now()?;
    let judged = inbox::judge(&bytes, home, now);
    let file = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    let status = match &judged.result {
        Ok(taken) => {
            writeln!(out, "{}", taken.text())?;
            Status::Ok
        }
        Err(Refusal::NotPbem(reason)) => {
            writeln!(out, "{}: refused: {reason}", path.display())?;
            return Ok(Status::Invalid);
        }
        Err(Refusal::Refused(reason)) => {
            let handle = judged.entry(file.clone(), now).handle();
            writeln!(
                out,
                "{}: refused: {reason}\n`pbem status` lists it until `pbem dismiss {handle}`",
                path.display()
            )?;
            Status::Invalid
        }
    };
    inbox::remember(home, &judged, file, now)?;
    Ok(status)
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

/// Takes in the pbem mails of a Maildir, in `new/` and in `cur/` alike: what is new is
/// decided by the mail ledger (see [`inbox::Reading`]), not by folder or Seen flag. Mail
/// that is not pbem mail is left exactly as it is (folder, name, flags, content). A pbem
/// mail taken in (or holding nothing new) that is still in `new/` moves to `cur/` with
/// the Seen flag, as a mail client does once it has shown it; a refused one stays where
/// it is, is reported once, and is listed by `pbem status` until dismissed (it is judged
/// again, quietly, on each run, so it is taken in once it can be: after `pbem secret`,
/// say). With `shared` (a Maildir shared with the opponent), a mail not addressed to the
/// player, or sent by them, is left for the other side, unread and unreported. Each
/// game's mails are judged in the order they were sent ([`inbox::in_sent_order`]).
fn receive_maildir(
    maildir: &Path,
    home: &Home,
    out: &mut dyn Write,
    shared: bool,
) -> Result<(Status, Vec<String>), CliError> {
    let mails = inbox::maildir_mails(maildir)?;
    let mut run = Run::new(home, shared)?;
    let mut wanted = Vec::new();
    for mail in mails {
        let Some(earlier) = run.reading.wants(&mail.unique) else {
            continue;
        };
        // Moved or removed by a mail client since the folder was listed.
        let Some(bytes) = read_mail(&mail.path)? else {
            continue;
        };
        wanted.push((mail, earlier, bytes));
    }
    for (mail, earlier, bytes) in inbox::in_sent_order(wanted, |(_, _, bytes)| bytes) {
        let listed = run.judge(&bytes, &mail.unique, &mail.name, earlier.as_ref(), out)?;
        if mail.is_new && listed == Kind::Done {
            inbox::mark_seen(maildir, &mail).map_err(|source| CliError::Io {
                path: mail.path.display().to_string(),
                source,
            })?;
        }
    }
    run.finish(out)
}

/// A mail of a mailbox folder, or `None` when it has gone since the folder was listed
/// (a mail client moved it, the other side removed it).
fn read_mail(path: &Path) -> Result<Option<Vec<u8>>, CliError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(CliError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// What became of one mail of a mailbox, for what is done with it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Not a pbem mail: left alone for good.
    Skipped,
    /// Taken in, or nothing new in it.
    Done,
    /// Refused (and left where it is).
    Refused,
}

/// One reading of a mailbox (a Maildir or an IMAP folder) as the player is told it: its
/// exit status, how many mails were taken in, and the games they changed.
struct Run<'h> {
    reading: inbox::Reading<'h>,
    status: Status,
    taken: usize,
    changed: Vec<String>,
}

impl<'h> Run<'h> {
    fn new(home: &'h Home, shared: bool) -> Result<Run<'h>, CliError> {
        Ok(Run {
            reading: inbox::Reading::new(home, home::now()?, shared)?,
            status: Status::Ok,
            taken: 0,
            changed: Vec::new(),
        })
    }

    /// Judges one mail of the mailbox, named `unique` in the ledger and `name` in what is
    /// printed ([`inbox::Reading::judge`]), tells what became of it, and remembers it.
    fn judge(
        &mut self,
        bytes: &[u8],
        unique: &str,
        name: &str,
        earlier: Option<&Entry>,
        out: &mut dyn Write,
    ) -> Result<Kind, CliError> {
        let (judged, kind) = match self.reading.judge(bytes, unique, earlier)? {
            Listed::Skipped => return Ok(Kind::Skipped),
            Listed::Done(judged) => {
                match &judged.result {
                    Ok(Taken::Saved(saved)) => {
                        self.taken += 1;
                        if !self.changed.contains(&saved.game) {
                            self.changed.push(saved.game.clone());
                        }
                        writeln!(out, "{}", saved.text)?;
                    }
                    Ok(Taken::Nothing(text)) => writeln!(out, "{name}: {text}")?,
                    Err(_) => {}
                }
                (judged, Kind::Done)
            }
            Listed::Refused {
                judged,
                handle,
                first,
            } => {
                if first && let Err(refusal) = &judged.result {
                    writeln!(
                        out,
                        "{name}: refused: {}\n{name}: left where it is; `pbem status` lists it until `pbem dismiss {handle}`",
                        refusal.reason()
                    )?;
                    self.status = Status::Invalid;
                }
                (judged, Kind::Refused)
            }
        };
        self.reading.remember(&judged, unique)?;
        Ok(kind)
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
/// says; a refused one is left exactly as it is. The mails to judge are fetched first to
/// put each game's in the order they were sent ([`inbox::in_sent_order`]): UIDs follow
/// the order mails reached the server, and a relay may have held the first back. Each is
/// fetched again when it is judged, so one deleted on the server meanwhile is passed over.
/// An error stops the run with what was done so far kept: the next run goes on from there.
fn receive_imap(home: &Home, out: &mut dyn Write) -> Result<(Status, Vec<String>), CliError> {
    let Some(imap) = &home.settings.imap else {
        return Err(CliError::Usage(format!(
            "no imap section in {}: add one (host, user, password_env) to read mail over IMAP",
            home.path.display()
        )));
    };
    let settings = Home::imap_settings(imap)?;
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
    let mut run = Run::new(home, false)?;
    // The folder's mails by user, host (not port: tls and starttls reach the same
    // mailbox), folder, UIDVALIDITY and UID.
    let prefix = format!(
        "imap:{}@{}/{};{}",
        imap.user,
        imap.host,
        imap.folder,
        mailbox.uid_validity()
    );
    let mut wanted = Vec::new();
    for uid in uids {
        let unique = format!("{prefix}/{uid}");
        let ledger = run.reading.ledger();
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
        wanted.push((uid, unique, earlier, bytes));
    }
    let in_order: Vec<_> = inbox::in_sent_order(wanted, |(_, _, _, bytes)| bytes)
        .into_iter()
        .map(|(uid, unique, earlier, _)| (uid, unique, earlier))
        .collect();
    for (uid, unique, earlier) in in_order {
        // Fetched again when its turn comes: one deleted on the server meanwhile (while
        // an earlier mail was judged) is passed over.
        let Some(bytes) = mailbox.fetch(uid).map_err(failed)? else {
            continue;
        };
        let name = format!("{} uid {uid}", imap.folder);
        let listed = run.judge(&bytes, &unique, &name, earlier.as_ref(), out)?;
        if listed == Kind::Done {
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
    let settings = Home::imap_settings(imap)?;
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
