//! Nothing lost, nothing overwritten (issue 21): mail in a real Maildir tree as mail
//! clients leave it, refused mails remembered, replies typed above the quote, the outbox,
//! a real SIGKILL of pbem at named write points (the `PBEM_PAUSE_AT` hook), a real
//! second pbem process on the same data, game ids for `show` and `legal`, and files
//! written through symlinks, next to FIFOs and hard links.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use crate::support::homes::{
    Homes, after_e4, game_path, game_words, hand_over, kill_9, mail_of, maildir, ok,
    spawn_command_paused, text,
};
use crate::support::homes::{assert_error, assert_refused};

/// The names and contents of every file in a folder, sorted by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn names(dir: &Path) -> Vec<String> {
    snapshot(dir).into_iter().map(|(name, _)| name).collect()
}

/// A plain mail that is not for pbem.
fn other_mail(subject: &str) -> Vec<u8> {
    format!(
        "From: Carol <carol@example.org>\r\nTo: bob@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <{subject}@example.org>\r\n\r\nSee you on Sunday.\r\n"
    )
    .into_bytes()
}

/// Lets a paused pbem go on and returns what it printed.
fn resume(child: Child, flag: &Path) -> Output {
    std::fs::remove_file(flag).unwrap();
    child.wait_with_output().unwrap()
}

fn secret_of(output: &Output) -> String {
    let stderr = text(&output.stderr);
    stderr
        .lines()
        .find_map(|line| line.strip_prefix("pbem: the game's secret is "))
        .unwrap_or_else(|| panic!("{stderr}"))
        .trim()
        .to_owned()
}

#[test]
fn pbem_mail_in_new_and_cur_is_taken_in_and_other_mail_is_left_byte_for_byte() {
    let (homes, id) = after_e4("lost-maildir");
    let mail = mail_of(&homes.alice, "2026-11-01T10:00:00Z", &id);
    let bob_box = maildir(&homes.bob);
    // The mail client has shown Alice's mail: it sits in cur/ with the Seen flag.
    let seen = "1762000001.M1P1.host:2,S";
    std::fs::copy(&mail, bob_box.join("cur").join(seen)).unwrap();
    // Mail that is not for pbem, new, shown, flagged and replied to.
    std::fs::write(bob_box.join("new/1762000000.M0P0.host"), other_mail("a")).unwrap();
    std::fs::write(bob_box.join("cur/1762000002.M2P2.host:2,"), other_mail("b")).unwrap();
    std::fs::write(
        bob_box.join("cur/1762000003.M3P3.host:2,FRS"),
        other_mail("c"),
    )
    .unwrap();
    let new_before = snapshot(&bob_box.join("new"));
    let cur_before = snapshot(&bob_box.join("cur"));

    let maildir_arg = bob_box.to_str().unwrap();
    let taken = ok(&homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", "--maildir", maildir_arg],
    ));
    assert!(taken.contains("last turn 1. e4"), "{taken}");
    assert!(game_path(&homes.bob, &id).is_file());
    // Nothing in the Maildir changed: not the other mails, not the one the client shows.
    assert_eq!(snapshot(&bob_box.join("new")), new_before);
    assert_eq!(snapshot(&bob_box.join("cur")), cur_before);

    // Nothing new: exit 0, nothing reported again, nothing touched.
    let again = ok(&homes.bob.run(
        "2026-11-01T11:30:00Z",
        &["receive", "--maildir", maildir_arg],
    ));
    assert_eq!(again.trim(), "no new moves");
    assert_eq!(snapshot(&bob_box.join("new")), new_before);
    assert_eq!(snapshot(&bob_box.join("cur")), cur_before);

    // A pbem mail still in new/ moves to cur/ with the Seen flag once taken in.
    ok(&homes.bob.run("2026-11-01T12:00:00Z", &["move", &id, "e5"]));
    let reply = mail_of(&homes.bob, "2026-11-01T12:00:00Z", &id);
    let alice_box = maildir(&homes.alice);
    std::fs::copy(&reply, alice_box.join("new/1762000009.M9P9.host")).unwrap();
    std::fs::write(alice_box.join("new/1762000008.M8P8.host"), other_mail("d")).unwrap();
    let taken = ok(&homes.alice.run(
        "2026-11-01T13:00:00Z",
        &["receive", "--maildir", alice_box.to_str().unwrap()],
    ));
    assert!(taken.contains("played 1... e5"), "{taken}");
    assert_eq!(names(&alice_box.join("new")), vec!["1762000008.M8P8.host"]);
    assert_eq!(
        names(&alice_box.join("cur")),
        vec!["1762000009.M9P9.host:2,S"]
    );
}

#[test]
fn a_refused_mail_is_reported_once_listed_until_dismissed_and_never_deleted() {
    let homes = Homes::new("lost-refused", "");
    let output = homes.run_new("2026-11-01T09:00:00Z", &["--secret"]);
    ok(&output);
    let secret = secret_of(&output);
    let path = PathBuf::from(text(&output.stdout).trim());
    let id = path.file_stem().unwrap().to_str().unwrap().to_owned();
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "d4"]));
    let mail = mail_of(&homes.alice, "2026-11-01T10:00:00Z", &id);
    let bob_box = maildir(&homes.bob);
    let name = "1762000001.M1P1.host";
    std::fs::copy(&mail, bob_box.join("new").join(name)).unwrap();
    let arg = bob_box.to_str().unwrap();

    // Bob has not stored the secret yet: refused, with the reason, exit 1.
    let refused = homes
        .bob
        .run("2026-11-01T11:00:00Z", &["receive", "--maildir", arg]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    let said = text(&refused.stdout);
    assert!(said.contains(&format!("{name}: refused:")), "{said}");
    assert!(said.contains("pbem secret"), "{said}");
    // Left where it was, byte for byte.
    assert_eq!(
        std::fs::read(bob_box.join("new").join(name)).unwrap(),
        std::fs::read(&mail).unwrap()
    );
    // Reported once: the next receive has nothing new and exits 0.
    let quiet = ok(&homes
        .bob
        .run("2026-11-01T11:10:00Z", &["receive", "--maildir", arg]));
    assert_eq!(quiet.trim(), "no new moves");
    let status = ok(&homes.bob.run("2026-11-01T11:20:00Z", &["status"]));
    assert!(status.contains("refused mail "), "{status}");
    assert!(status.contains(name), "{status}");
    // Once the secret is stored, the remembered mail is taken in.
    ok(&homes
        .bob
        .run("2026-11-01T11:30:00Z", &["secret", &id, &secret]));
    let taken = ok(&homes
        .bob
        .run("2026-11-01T11:40:00Z", &["receive", "--maildir", arg]));
    assert!(taken.contains("last turn 1. d4"), "{taken}");
    let status = ok(&homes.bob.run("2026-11-01T11:50:00Z", &["status"]));
    assert!(!status.contains("refused mail"), "{status}");

    // A forged mail (another sender): refused once, listed, then dismissed.
    let original = std::fs::read_to_string(&mail).unwrap();
    let newline = if original.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let forged = original
        .replace("alice@example.org", "mallory@example.org")
        .lines()
        .map(|line| {
            if line.to_ascii_lowercase().starts_with("message-id:") {
                "Message-ID: <forged@pbem.invalid>"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join(newline);
    let forged_name = "1762000005.M5P5.host";
    std::fs::write(bob_box.join("new").join(forged_name), &forged).unwrap();
    let refused = homes
        .bob
        .run("2026-11-01T12:00:00Z", &["receive", "--maildir", arg]);
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stdout);
    let handle = said
        .split("pbem dismiss ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("{said}"))
        .to_owned();
    assert_eq!(
        ok(&homes
            .bob
            .run("2026-11-01T12:10:00Z", &["receive", "--maildir", arg]))
        .trim(),
        "no new moves"
    );
    let status = ok(&homes.bob.run("2026-11-01T12:20:00Z", &["status"]));
    assert!(
        status.contains(&format!("refused mail {handle}")),
        "{status}"
    );
    let dismissed = ok(&homes.bob.run("2026-11-01T12:30:00Z", &["dismiss", &handle]));
    assert!(dismissed.contains("dismissed 1"), "{dismissed}");
    let status = ok(&homes.bob.run("2026-11-01T12:40:00Z", &["status"]));
    assert!(!status.contains("refused mail"), "{status}");
    // Never deleted.
    assert_eq!(
        std::fs::read_to_string(bob_box.join("new").join(forged_name)).unwrap(),
        forged
    );
    let unknown = homes
        .bob
        .run("2026-11-01T12:50:00Z", &["dismiss", "00000000"]);
    assert_eq!(unknown.status.code(), Some(2));
}

/// A reply written in a mail client: `typed` above the quoted record of `game`.
fn reply_above_quote(typed: &str, record: &str) -> String {
    let mut body = format!(
        "{typed}\n\nOn Sunday, Bob <bob@example.org> wrote:\n> pbem game\n>\n> -----BEGIN PBEM RECORD-----\n"
    );
    for line in record.lines() {
        body.push_str(&format!("> {line}\n"));
    }
    body.push_str("> -----END PBEM RECORD-----\n");
    format!(
        "From: Alice <alice@example.org>\nTo: bob@example.org\nSubject: Re: your move\n\
         Message-ID: <reply-{}@client.example.org>\nContent-Type: text/plain; charset=utf-8\n\n{body}",
        typed.len()
    )
}

#[test]
fn a_turn_typed_above_the_quote_is_taken_in_and_other_text_refused_not_dropped() {
    let (homes, id) = after_e4("lost-typed");
    hand_over(
        &homes.alice,
        &homes.bob,
        "2026-11-01T10:00:00Z",
        "2026-11-01T11:00:00Z",
        &id,
    );
    ok(&homes.bob.run("2026-11-01T11:30:00Z", &["move", &id, "e5"]));
    let bobs = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();

    // Alice answers Bob's mail from her mail client: "Nf3" above Bob's quoted record.
    // It is her turn, typed by hand (issue 14): taken in, never "already known".
    let bob_box = maildir(&homes.bob);
    std::fs::write(
        bob_box.join("new/1762000010.M1P1.host"),
        reply_above_quote("Nf3", &bobs),
    )
    .unwrap();
    let arg = bob_box.to_str().unwrap();
    let taken = ok(&homes
        .bob
        .run("2026-11-01T12:00:00Z", &["receive", "--maildir", arg]));
    assert!(
        taken.contains("alice@example.org played 2. Nf3 (typed by hand)"),
        "{taken}"
    );
    assert!(!taken.contains("already known"), "{taken}");
    let after = std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap();
    let words = after.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("2. Nf3 {[%sent "), "{after}");
    assert_eq!(
        ok(&homes
            .bob
            .run("2026-11-01T12:20:00Z", &["receive", "--maildir", arg]))
        .trim(),
        "no new moves"
    );
    // Text that is not one turn is refused (exit 1) with what it says, listed by
    // status, and changes nothing.
    let file = homes.bob.dir.join("reply.eml");
    std::fs::write(&file, reply_above_quote("2. Nf3 Nc6?", &bobs)).unwrap();
    let refused = homes
        .bob
        .run("2026-11-01T12:30:00Z", &["receive", file.to_str().unwrap()]);
    assert_refused(&refused, "\"2. Nf3 Nc6?\"");
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap(),
        after
    );
    let status = ok(&homes.bob.run("2026-11-01T12:40:00Z", &["status"]));
    assert!(status.contains("\"2. Nf3 Nc6?\""), "{status}");
}

#[test]
fn send_on_your_own_turn_has_nothing_to_send_and_status_shows_the_outbox() {
    let (homes, id) = after_e4("lost-send");
    // No smtp settings: the mail waits in the outbox, and status says so.
    let unsent = homes.alice.run("2026-11-01T10:00:00Z", &["send", &id]);
    assert_eq!(unsent.status.code(), Some(2));
    let status = ok(&homes.alice.run("2026-11-01T10:05:00Z", &["status"]));
    assert!(
        status.contains(&format!(
            "outbox: {id} (ply 1) to bob@example.org waits to be sent"
        )),
        "{status}"
    );
    hand_over(
        &homes.alice,
        &homes.bob,
        "2026-11-01T10:00:00Z",
        "2026-11-01T11:00:00Z",
        &id,
    );
    // Bob's turn: nothing to send (Alice's e4 is not mailed back to her).
    let drafts = homes.bob.dir.join("drafts");
    let nothing = ok(&homes.bob.run(
        "2026-11-01T11:05:00Z",
        &["send", "--dry-run", drafts.to_str().unwrap(), &id],
    ));
    assert!(
        nothing.contains(&format!("{id}: nothing to send")),
        "{nothing}"
    );
    assert!(nothing.contains("1. e4"), "{nothing}");
    assert!(!drafts.exists());
    let nothing = ok(&homes.bob.run("2026-11-01T11:05:00Z", &["send", &id]));
    assert!(nothing.contains("nothing to send"), "{nothing}");
    assert_eq!(
        crate::support::homes::count(&homes.bob.dir.join("outbox")),
        0
    );
    // After his turn there is something to send.
    ok(&homes.bob.run("2026-11-01T11:10:00Z", &["move", &id, "c5"]));
    let reply = mail_of(&homes.bob, "2026-11-01T11:10:00Z", &id);
    assert!(
        std::fs::read_to_string(reply)
            .unwrap()
            .contains("Move: 1... c5")
    );
    // A draw offer on one's own turn is sent; then the turn is the opponent's to answer.
    ok(&homes
        .alice
        .run("2026-11-01T10:10:00Z", &["draw", "offer", &id]));
    let offer = mail_of(&homes.alice, "2026-11-01T10:10:00Z", &id);
    assert!(
        std::fs::read_to_string(offer)
            .unwrap()
            .contains("[%draw offer]")
    );
}

#[test]
fn a_turn_killed_between_game_file_and_state_is_finished_at_the_next_start() {
    let (homes, id) = after_e4("lost-kill-state");
    hand_over(
        &homes.alice,
        &homes.bob,
        "2026-11-01T10:00:00Z",
        "2026-11-01T11:00:00Z",
        &id,
    );
    ok(&homes.bob.run("2026-11-01T12:00:00Z", &["move", &id, "e5"]));
    hand_over(
        &homes.bob,
        &homes.alice,
        "2026-11-01T12:00:00Z",
        "2026-11-01T13:00:00Z",
        &id,
    );
    ok(&homes
        .alice
        .run("2026-11-01T14:00:00Z", &["move", &id, "Nf3"]));
    let third = mail_of(&homes.alice, "2026-11-01T14:00:00Z", &id);

    // Bob takes in Nf3 at 15:00 and is killed after the game file, before the state.
    let (child, _flag) = homes.bob.spawn_paused(
        "2026-11-01T15:00:00Z",
        &["receive", third.to_str().unwrap()],
        &[],
        "game",
    );
    kill_9(child);
    let games = homes.bob.dir.join("games");
    assert!(
        std::fs::read_to_string(game_path(&homes.bob, &id))
            .unwrap()
            .contains("Nf3")
    );
    assert!(games.join(format!("{id}.journal")).is_file());
    // The next pbem finishes the step: Bob's clock runs from 15:00, not from 11:00.
    let status = homes.bob.run("2026-11-01T16:00:00Z", &["status"]);
    let shown = ok(&status);
    assert!(
        text(&status.stderr).contains(&format!("{id}: finished saving a turn")),
        "{}",
        text(&status.stderr)
    );
    assert!(
        shown.contains("your turn since 2026-11-01 15:00 UTC"),
        "{shown}"
    );
    assert!(!games.join(format!("{id}.journal")).exists());
    // Killed after the journal, before anything else: the same.
    ok(&homes.bob.run("2026-11-01T17:00:00Z", &["move", &id, "Nc6"]));
    let (child, _flag) = homes.bob.spawn_paused(
        "2026-11-01T17:00:00Z",
        &["draw", "offer", &id],
        &[],
        "journal",
    );
    kill_9(child);
    assert!(
        !std::fs::read_to_string(game_path(&homes.bob, &id))
            .unwrap()
            .contains("draw offer")
    );
    ok(&homes.bob.run("2026-11-01T17:10:00Z", &["status"]));
    let words = game_words(&homes.bob, &id);
    assert!(words.contains("{black [%draw offer]}"), "{words}");
}

#[test]
fn a_mail_and_temporary_files_left_by_a_kill_are_found_at_the_next_start() {
    let (homes, id) = after_e4("lost-kill-outbox");
    // Killed after the outbox message, before its envelope.
    let (child, _flag) =
        homes
            .alice
            .spawn_paused("2026-11-01T10:00:00Z", &["send", &id], &[], "outbox");
    kill_9(child);
    let outbox = homes.alice.dir.join("outbox");
    assert_eq!(names(&outbox), vec![format!("{id}.1.eml")]);
    let retry = homes
        .alice
        .run("2026-11-01T10:10:00Z", &["send", "--retry"]);
    let stderr = text(&retry.stderr);
    assert!(
        stderr.contains(&format!(
            "{id} (ply 1): a mail an interrupted pbem was putting in the outbox waits there again"
        )),
        "{stderr}"
    );
    // Without smtp settings it cannot go, but it is there, not "the outbox is empty".
    assert_eq!(retry.status.code(), Some(2));
    assert!(!text(&retry.stdout).contains("empty"));
    assert!(stderr.contains("1 mail waits in"), "{stderr}");
    assert_eq!(
        names(&outbox),
        vec![format!("{id}.1.eml"), format!("{id}.1.envelope")]
    );
    let status = ok(&homes.alice.run("2026-11-01T10:20:00Z", &["status"]));
    assert!(
        status.contains(&format!("outbox: {id} (ply 1)")),
        "{status}"
    );

    // Killed while a temporary file holds the new game text: it is removed at the next
    // start, and the game file is the old one until then.
    let before = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    let (child, _flag) =
        homes
            .alice
            .spawn_paused("2026-11-01T10:30:00Z", &["resign", &id], &[], "temporary");
    kill_9(child);
    let games = homes.alice.dir.join("games");
    let stale: Vec<String> = names(&games)
        .into_iter()
        .filter(|name| name.starts_with(".pbem-") && name.ends_with(".tmp"))
        .collect();
    assert_eq!(stale.len(), 1, "{:?}", names(&games));
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
        before
    );
    let status = homes.alice.run("2026-11-01T10:40:00Z", &["status"]);
    ok(&status);
    assert!(
        text(&status.stderr).contains("removed 1 temporary file left by an interrupted pbem"),
        "{}",
        text(&status.stderr)
    );
    assert!(!games.join(&stale[0]).exists());
}

/// Whether `path` is still a symbolic link.
#[cfg(unix)]
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_symlink())
}

#[cfg(unix)]
#[test]
fn links_planted_in_the_outbox_are_told_once_never_followed_and_the_real_mail_waits() {
    let (homes, id) = after_e4("lost-outbox-links");
    // No smtp settings: the mail of 1. e4 waits in the outbox.
    homes.alice.run("2026-11-01T10:01:00Z", &["send", &id]);
    let outbox = homes.alice.dir.join("outbox");
    let mail = outbox.join(format!("{id}.1.eml"));
    let real_mail = std::fs::read(&mail).unwrap();
    let victims = homes.root.join("victims");
    std::fs::create_dir_all(&victims).unwrap();
    let missing = victims.join("missing");
    // A mail of someone else's, with addresses: adopted, it would be sent by a retry.
    let foreign = victims.join("foreign.eml");
    std::fs::write(&foreign, &real_mail).unwrap();
    let planted = [
        (outbox.join("gone.1.eml"), &missing),
        (outbox.join("foreign.2.eml"), &foreign),
        (outbox.join("gone.3.envelope"), &missing),
        (outbox.join(format!("{id}.7.envelope")), &foreign),
    ];
    for (link, target) in &planted {
        std::os::unix::fs::symlink(target, link).unwrap();
    }
    // Every start works, tells each link once with the command that removes it, and the
    // real mail still waits.
    for now in ["2026-11-01T10:02:00Z", "2026-11-01T10:03:00Z"] {
        let status = homes.alice.run(now, &["status"]);
        let stdout = ok(&status);
        let stderr = text(&status.stderr);
        for (link, _) in &planted {
            let told = format!("{}: ignored: named like an outbox mail", link.display());
            assert_eq!(stderr.matches(&told).count(), 1, "{stderr}");
            assert!(
                stderr.contains(&format!("rm '{}'", link.display())),
                "{stderr}"
            );
            assert!(is_link(link), "{} was removed", link.display());
        }
        assert!(stdout.contains(&format!("{id}  vs Bob")), "{stdout}");
        assert_eq!(stdout.matches("outbox: ").count(), 1, "{stdout}");
        assert!(
            stdout.contains(&format!("outbox: {id} (ply 1)")),
            "{stdout}"
        );
    }
    assert!(!missing.exists(), "a dangling link was written through");
    assert_eq!(std::fs::read(&foreign).unwrap(), real_mail);
    assert!(!outbox.join("foreign.2.envelope").exists());
    assert_eq!(std::fs::read(&mail).unwrap(), real_mail);

    // A link where `send` puts a mail is refused, not written through; once removed as
    // told, the mail goes in.
    let other = homes.start("2026-11-01T11:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T11:01:00Z", &["move", &other, "e4"]));
    let link = outbox.join(format!("{other}.1.eml"));
    std::os::unix::fs::symlink(&missing, &link).unwrap();
    let refused = homes.alice.run("2026-11-01T11:02:00Z", &["send", &other]);
    assert_error(&refused, &format!("{} is a symbolic link", link.display()));
    assert_error(&refused, &format!("rm '{}'", link.display()));
    assert!(!missing.exists(), "the mail was written through the link");
    assert!(is_link(&link));
    std::fs::remove_file(&link).unwrap();
    homes.alice.run("2026-11-01T11:03:00Z", &["send", &other]);
    let status = ok(&homes.alice.run("2026-11-01T11:04:00Z", &["status"]));
    assert!(
        status.contains(&format!("outbox: {other} (ply 1)")),
        "{status}"
    );
    assert!(
        status.contains(&format!("outbox: {id} (ply 1)")),
        "{status}"
    );
}

#[test]
fn a_second_pbem_waits_for_the_lock_then_says_plainly_that_another_is_working() {
    let homes = Homes::new("lost-lock", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    // A pbem holds Alice's data (a cron `status`, paused once it has the lock).
    let before = std::fs::read(game_path(&homes.alice, &id)).unwrap();
    let (holder, flag) =
        homes
            .alice
            .spawn_paused("2026-11-01T10:00:00Z", &["status"], &[], "locked");
    let busy = homes.alice.run_with(
        "2026-11-01T10:00:00Z",
        &["move", &id, "e4"],
        &[("PBEM_LOCK_WAIT", "0.3")],
    );
    assert_eq!(busy.status.code(), Some(2));
    let stderr = text(&busy.stderr);
    assert!(
        stderr.contains(&format!(
            "another pbem (process {}) is working on",
            holder.id()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("try again when it has finished"),
        "{stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
    // The refused move changed nothing (the file is compared whole: a random game id
    // or secret may itself contain "e4").
    assert_eq!(std::fs::read(game_path(&homes.alice, &id)).unwrap(), before);
    ok(&resume(holder, &flag));

    // A second pbem that starts while the first works waits for it, then does its work.
    let (holder, flag) =
        homes
            .alice
            .spawn_paused("2026-11-01T10:00:00Z", &["status"], &[], "locked");
    let mover = homes
        .alice
        .command("2026-11-01T10:00:00Z", &["move", &id, "e4"])
        .env("PBEM_LOCK_WAIT", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    ok(&resume(holder, &flag));
    let moved = mover.wait_with_output().unwrap();
    assert!(ok(&moved).contains("1. e4"));
}

#[test]
fn two_receives_at_once_on_one_maildir_both_finish_cleanly() {
    for round in 0..5 {
        let homes = Homes::new(&format!("lost-race-{round}"), "");
        let id = homes.start("2026-11-01T09:00:00Z", &[]);
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
        let mail = mail_of(&homes.alice, "2026-11-01T10:00:00Z", &id);
        let bob_box = maildir(&homes.bob);
        std::fs::copy(&mail, bob_box.join("new/1762000001.M1P1.host")).unwrap();
        let spawn = || {
            homes
                .bob
                .command(
                    "2026-11-01T11:00:00Z",
                    &["receive", "--maildir", bob_box.to_str().unwrap()],
                )
                .env("PBEM_LOCK_WAIT", "60")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (spawn(), spawn());
        let outputs = [
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        ];
        let said: String = outputs.iter().map(ok).collect();
        assert_eq!(said.matches("last turn 1. e4").count(), 1, "{said}");
        assert!(said.contains("no new moves"), "{said}");
        assert_eq!(
            names(&bob_box.join("cur")),
            vec!["1762000001.M1P1.host:2,S"]
        );
    }
}

#[test]
fn show_and_legal_take_a_game_id() {
    let (homes, id) = after_e4("lost-show");
    let shown = ok(&homes.alice.run("2026-11-01T10:00:00Z", &["show", &id]));
    assert!(shown.contains("after ply 1: Black to move"), "{shown}");
    let prefix = &id[..id.len() - 3];
    let legal = ok(&homes.alice.run("2026-11-01T10:00:00Z", &["legal", prefix]));
    assert_eq!(legal.lines().count(), 20, "{legal}");
    assert!(legal.lines().any(|line| line == "e5"), "{legal}");
    let at_start = ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["show", "--ply", "0", &id]));
    assert!(
        at_start.contains("after ply 0: White to move"),
        "{at_start}"
    );
    // The file still works, and a name that is neither says so.
    let path = game_path(&homes.alice, &id);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["show", path.to_str().unwrap()]));
    let missing = homes
        .alice
        .run("2026-11-01T10:00:00Z", &["show", "g-nothing"]);
    assert_error(&missing, "no file or game \"g-nothing\"");
}

fn pbem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .env_remove("PBEM_CONFIG")
        .output()
        .unwrap()
}

/// `fmt --in-place` killed with SIGKILL once the new text is in its temporary file, before
/// the rename: the file keeps its old text whole; the next `fmt` replaces it.
#[test]
fn fmt_in_place_killed_before_the_rename_leaves_the_old_file() {
    let dir = std::env::temp_dir().join(format!("pbem-lost-fmt-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.pgn");
    let old = UNFORMATTED.repeat(200);
    std::fs::write(&path, &old).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbem"));
    command.args(["fmt", "--in-place", path.to_str().unwrap()]);
    let child = spawn_command_paused(command, "temporary", &dir.join("paused"));
    kill_9(child);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
    ok(&pbem(&["fmt", "--in-place", path.to_str().unwrap()]));
    let new = std::fs::read_to_string(&path).unwrap();
    assert_eq!(new.matches("1. e4 e5 2. Nf3 *\n").count(), 200, "{new}");
    let _ = std::fs::remove_dir_all(&dir);
}

const UNFORMATTED: &str = "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1.e4   e5 2.Nf3 *\n";

#[cfg(unix)]
#[test]
fn fmt_in_place_writes_through_symlinks_keeps_modes_and_refuses_fifos_and_hard_links() {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    let dir = std::env::temp_dir().join(format!("pbem-lost-fmt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("real")).unwrap();
    let target = dir.join("real/game.pgn");
    std::fs::write(&target, UNFORMATTED).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.join("link.pgn");
    std::os::unix::fs::symlink("real/game.pgn", &link).unwrap();

    ok(&pbem(&["fmt", "--in-place", link.to_str().unwrap()]));
    // The link is still a link, its target has the canonical text and its mode.
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("1. e4 e5 2. Nf3 *"), "{written}");
    assert_eq!(
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    assert_eq!(names(&dir.join("real")), vec!["game.pgn"]);

    // A FIFO is refused (not read, which would block, nor replaced) and stays a FIFO;
    // so is a device node.
    let fifo = dir.join("pipe.pgn");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let refused = pbem(&["fmt", "--in-place", fifo.to_str().unwrap()]);
    assert_error(&refused, "is a FIFO (named pipe), not a regular file");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let null = pbem(&["fmt", "--in-place", "/dev/null"]);
    assert_error(&null, "is a device node, not a regular file");
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );

    // A hard-linked file is refused, both names keep the same (old) content.
    let first = dir.join("first.pgn");
    let second = dir.join("second.pgn");
    std::fs::write(&first, UNFORMATTED).unwrap();
    std::fs::hard_link(&first, &second).unwrap();
    let refused = pbem(&["fmt", "--in-place", first.to_str().unwrap()]);
    assert_error(&refused, "has 2 hard links");
    assert_eq!(std::fs::metadata(&first).unwrap().nlink(), 2);
    assert_eq!(std::fs::read_to_string(&second).unwrap(), UNFORMATTED);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn game_files_and_the_config_are_written_through_symlinks_and_never_over_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let homes = Homes::new("lost-links", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    // Alice keeps the game file elsewhere and links it into her games folder.
    let elsewhere = homes.root.join("kept");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let real = elsewhere.join("game.pgn");
    std::fs::rename(game_path(&homes.alice, &id), &real).unwrap();
    std::os::unix::fs::symlink(&real, game_path(&homes.alice, &id)).unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    assert!(
        std::fs::symlink_metadata(game_path(&homes.alice, &id))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read_to_string(&real).unwrap().contains("1. e4"));

    // The config file through a symlink, then a FIFO in its place.
    let config_real = homes.root.join("kept/config.yaml");
    let config_link = homes.root.join("config-link.yaml");
    std::os::unix::fs::symlink(&config_real, &config_link).unwrap();
    let init = |config: &Path| {
        pbem(&[
            "--config",
            config.to_str().unwrap(),
            "config",
            "init",
            "--force",
            "--name",
            "Carol",
            "--email",
            "carol@example.org",
        ])
    };
    ok(&init(&config_link));
    assert!(
        std::fs::symlink_metadata(&config_link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&config_real)
            .unwrap()
            .contains("Carol")
    );
    let fifo = homes.root.join("config-fifo.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let refused = init(&fifo);
    assert_error(&refused, "not a regular file");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn config_init_writes_names_with_control_characters_that_read_back() {
    let dir = std::env::temp_dir().join(format!("pbem-lost-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (index, name) in [
        "Bell\u{7}Alice",
        "Tab\tand: #colon",
        "two\nlines",
        "\"quoted\" 'x' \\ {y}",
    ]
    .into_iter()
    .enumerate()
    {
        let config = dir.join(format!("{index}/config.yaml"));
        let config = config.to_str().unwrap();
        ok(&pbem(&[
            "--config",
            config,
            "config",
            "init",
            "--name",
            name,
            "--email",
            "alice@example.org",
        ]));
        let checked = ok(&pbem(&["--config", config, "config", "check"]));
        assert!(
            checked.contains(&format!("player: {name} <alice@example.org>")),
            "{name:?}: {checked}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn new_picks_the_decision_mode_of_chess_with_wickets() {
    let homes = Homes::new("lost-decision", "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "dice 2"],
    );
    let record = std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap();
    assert!(record.contains("[Decision \"Dice II\"]"), "{record}");
    let shown = ok(&homes.alice.run("2026-11-01T09:00:00Z", &["show", &id]));
    assert!(shown.contains(" dice2 "), "{shown}");
    for (extra, message) in [
        (
            &["--decision", "dice"][..],
            "--decision is for Chess with wickets",
        ),
        (
            &["--variant", "wickets", "--decision", "coin"][..],
            "unknown decision mode \"coin\"",
        ),
    ] {
        let refused = homes.run_new("2026-11-01T09:00:00Z", extra);
        assert_error(&refused, message);
    }
}
