//! Play without mail servers: `pbem send` delivers into the config's `shared_folder` and
//! `pbem sync` takes in from it (see `store::shared`). Two homes share one folder, so
//! each takes in only the mails addressed to its player and never its own; the others
//! are left for the other side, without a word.

use std::io::Write;
use std::path::Path;

use super::Run;
use crate::cli::home::{self, Home};
use crate::cli::{CliError, Status};
use crate::desk::inbox;
use crate::store::Pending;
use crate::store::shared::{Layout, SharedError, SharedFolder};

/// Delivers the outbox's `pending` mails into the shared folder, each removed from the
/// outbox once it is there. A mail that cannot be delivered stays in the outbox. A mail
/// found in the folder already is not delivered twice, and the player is told why it was
/// there: a mail that `waited` in the outbox before this run was delivered by an
/// interrupted pbem; one composed now (`pbem send GAME` once more), by an earlier send.
pub(super) fn send(
    pending: &[Pending],
    waited: &[Pending],
    folder: &Path,
    home: &Home,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let shared = SharedFolder::new(folder);
    let stamp = home::now()?.timestamp();
    let mut failed = 0;
    for (index, item) in pending.iter().enumerate() {
        let message = home.outbox.message(item)?;
        let label = format!(
            "{}.{}-to-{}",
            item.game_id,
            item.ply,
            item.to.first().map_or("", String::as_str)
        );
        match shared.deliver(&message, &label, stamp) {
            Ok(delivered) => {
                home.outbox.delivered(item)?;
                let interrupted = waited
                    .iter()
                    .any(|earlier| earlier.game_id == item.game_id && earlier.ply == item.ply);
                let (id, ply, to, shown) = (
                    &item.game_id,
                    item.ply,
                    item.to.join(", "),
                    folder.display(),
                );
                if !delivered.already {
                    writeln!(out, "delivered {id} (ply {ply}) to {to} in {shown}")?;
                } else if interrupted {
                    writeln!(
                        out,
                        "delivered {id} (ply {ply}) to {to} in {shown} (it was there already: an interrupted pbem had delivered it)"
                    )?;
                } else {
                    writeln!(
                        out,
                        "{id} (ply {ply}): already delivered to {to} in {shown} by an earlier pbem send; nothing was delivered twice"
                    )?;
                }
            }
            Err(error) => {
                let whole_folder = !matches!(error, SharedError::Io { .. });
                // When the folder itself is the trouble, no mail can go: say it once.
                let left = if whole_folder {
                    pending.len() - index
                } else {
                    1
                };
                failed += left;
                eprintln!(
                    "pbem: {} (ply {}) not delivered: {}\npbem: {} stays in {}; `pbem send --retry` (or `pbem sync`) delivers {} once that is mended",
                    item.game_id,
                    item.ply,
                    mend(&error, folder, home),
                    if left == 1 {
                        "the mail".to_owned()
                    } else {
                        format!("it and {} other mails", left - 1)
                    },
                    home.settings.outbox.display(),
                    if left == 1 { "it" } else { "them" }
                );
                if whole_folder {
                    break;
                }
            }
        }
    }
    super::sent_or_waiting(failed, "delivered")
}

/// What went wrong with the shared folder and how to mend it.
fn mend(error: &SharedError, folder: &Path, home: &Home) -> String {
    let config = home.path.display();
    let shown = folder.display();
    match error {
        SharedError::Missing(_) => format!(
            "{error}: if it is synced or mounted, start the sync or mount it; \
             else create it (`mkdir -p {shown}`) or correct shared_folder in {config}"
        ),
        SharedError::NotAFolder(_) => {
            format!("{error}: correct shared_folder in {config}")
        }
        SharedError::Link(_) => {
            format!("{error}; replace the link by a folder, or correct shared_folder in {config}")
        }
        SharedError::Io { .. } => {
            format!("{error} (check that you may write into {shown}: `ls -ld {shown}`)")
        }
    }
}

/// The shared-folder part of `pbem config check`: the folder, whether it is there, and
/// how it holds its mails.
pub(super) fn check(folder: &Path, home: &Home, out: &mut dyn Write) -> Result<(), CliError> {
    let layout = SharedFolder::new(folder)
        .layout()
        .map_err(|error| CliError::Usage(mend(&error, folder, home)))?;
    writeln!(
        out,
        "shared folder: {} ({}): `pbem send` delivers there and `pbem sync` takes in from there",
        folder.display(),
        layout.describe()
    )?;
    Ok(())
}

/// Takes in the mails of the shared folder addressed to the player: a Maildir's as
/// `receive --maildir` does, a plain folder's `.eml` files (left in place) judged the
/// same way through the mail ledger, each game's in the order they were sent
/// ([`inbox::in_sent_order`]).
pub(super) fn receive(
    folder: &Path,
    home: &Home,
    out: &mut dyn Write,
) -> Result<(Status, Vec<String>), CliError> {
    let shared = SharedFolder::new(folder);
    let nothing_taken = |error| {
        CliError::Usage(format!(
            "{}; nothing was taken in",
            mend(&error, folder, home)
        ))
    };
    let layout = shared.layout().map_err(nothing_taken)?;
    if layout == Layout::Maildir {
        return super::receive_maildir(folder, home, out, true);
    }
    let mails = shared.plain_mails().map_err(nothing_taken)?;
    let mut run = Run::new(home, true)?;
    let mut wanted = Vec::new();
    for (name, path) in mails {
        let Some(earlier) = run.reading.wants(&name) else {
            continue;
        };
        // Removed by the other side since the folder was listed.
        let Some(bytes) = super::read_mail(&path)? else {
            continue;
        };
        wanted.push((name, earlier, bytes));
    }
    for (name, earlier, bytes) in inbox::in_sent_order(wanted, |(_, _, bytes)| bytes) {
        run.judge(&bytes, &name, &name, earlier.as_ref(), out)?;
    }
    run.finish(out)
}
