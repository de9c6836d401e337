//! Playing without mail servers (issue 31): two homes share one folder (a plain folder
//! or a Maildir), `pbem send` delivers into it and `pbem sync` takes in from it; a
//! folder that is missing or unusable keeps the mail in the outbox; a delivery killed
//! half way is finished once; links planted in the folder redirect nothing.

use std::path::{Path, PathBuf};

use crate::support::homes::{Homes, Player, assert_error, count, game_path, kill_9, ok, text};
use crate::support::homes::{assert_taken_in_by_ply, two_mails_in_one_second};

/// How the shared folder of a test is made.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Plain,
    Maildir,
}

/// Two homes whose configs name `<root>/shared` (made as `layout` says, unless `None`):
/// Alice's with an smtp section too, which the shared folder wins over.
fn homes(name: &str, layout: Option<Layout>) -> (Homes, PathBuf) {
    let homes = Homes::new(name, "shared_folder: ../shared\n");
    let alice = std::fs::read_to_string(homes.alice.config()).unwrap();
    std::fs::write(
        homes.alice.config(),
        format!(
            "{alice}smtp:\n  host: 127.0.0.1\n  port: 9\n  security: plain\n  allow_plain: true\n"
        ),
    )
    .unwrap();
    let shared = homes.root.join("shared");
    match layout {
        Some(Layout::Plain) => std::fs::create_dir_all(&shared).unwrap(),
        Some(Layout::Maildir) => {
            for sub in ["new", "cur", "tmp"] {
                std::fs::create_dir_all(shared.join(sub)).unwrap();
            }
        }
        None => {}
    }
    (homes, shared)
}

/// The mails in the shared folder (a Maildir's `new/` and `cur/`), by name.
fn mails(shared: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for dir in [shared.to_path_buf(), shared.join("new"), shared.join("cur")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                let prefix = if dir == shared {
                    String::new()
                } else {
                    format!("{}/", dir.file_name().unwrap().to_string_lossy())
                };
                names.push(format!("{prefix}{}", entry.file_name().to_string_lossy()));
            }
        }
    }
    names.sort();
    names
}

/// `player` makes `turn` and sends it; returns what the send said.
fn play(player: &Player, now: &str, id: &str, turn: &str) -> String {
    ok(&player.run(now, &["move", id, turn]));
    ok(&player.run(now, &["send", id]))
}

#[test]
fn two_homes_play_several_turns_through_a_shared_folder() {
    for layout in [Layout::Plain, Layout::Maildir] {
        let (homes, shared) = homes(&format!("shared-play-{layout:?}"), Some(layout));
        let (alice, bob) = (&homes.alice, &homes.bob);
        let id = homes.start("2026-11-01T09:00:00Z", &[]);

        let check = ok(&alice.run("2026-11-01T09:00:00Z", &["config", "check"]));
        let kind = match layout {
            Layout::Plain => "a plain folder",
            Layout::Maildir => "a Maildir",
        };
        assert!(
            check.contains(&format!(
                "shared folder: {} ({kind}): `pbem send` delivers there",
                alice.dir.join("../shared").display()
            )),
            "{check}"
        );
        assert!(
            check.contains("smtp: 127.0.0.1:9, not used: the shared folder wins"),
            "{check}"
        );

        let sent = play(alice, "2026-11-01T10:00:00Z", &id, "e4");
        assert!(
            sent.contains(&format!("delivered {id} (ply 1) to bob@example.org in ")),
            "{sent}"
        );
        assert_eq!(mails(&shared).len(), 1, "{:?}", mails(&shared));
        assert_eq!(count(&alice.dir.join("outbox")), 0);

        // Alice's own mail waits in the folder for Bob: her sync neither takes it in nor
        // reports it.
        let own = alice.run("2026-11-01T10:05:00Z", &["sync"]);
        assert_eq!(
            text(&own.stdout),
            "the outbox is empty\nno new moves\n",
            "{}",
            text(&own.stderr)
        );
        assert_eq!(own.status.code(), Some(0));

        let taken = ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
        assert!(
            taken.contains(&format!(
                "{id}: new game from alice@example.org, last turn 1. e4"
            )),
            "{taken}"
        );
        assert!(taken.ends_with(&format!("changed: {id}\n")), "{taken}");
        // Taken in once: a second sync has nothing new.
        let again = ok(&bob.run("2026-11-01T11:01:00Z", &["sync"]));
        assert_eq!(again, "the outbox is empty\nno new moves\n");
        if let Layout::Maildir = layout {
            // Bob's pbem moved the mail it took in to cur/, flagged seen.
            let names = mails(&shared);
            assert!(
                names.len() == 1 && names[0].starts_with("cur/") && names[0].ends_with(":2,S"),
                "{names:?}"
            );
        }

        // `send --dry-run DIR` still only writes the mail there.
        ok(&bob.run("2026-11-01T12:00:00Z", &["move", &id, "e5"]));
        let drafts = bob.dir.join("drafts");
        ok(&bob.run(
            "2026-11-01T12:00:00Z",
            &["send", "--dry-run", drafts.to_str().unwrap(), &id],
        ));
        assert_eq!(count(&drafts), 1);
        assert_eq!(mails(&shared).len(), 1, "{:?}", mails(&shared));
        let sent = ok(&bob.run("2026-11-01T12:01:00Z", &["send", &id]));
        assert!(
            sent.contains(&format!("delivered {id} (ply 2) to alice@example.org")),
            "{sent}"
        );
        let taken = ok(&alice.run("2026-11-01T13:00:00Z", &["sync"]));
        assert!(
            taken.contains(&format!("{id}: bob@example.org played 1... e5")),
            "{taken}"
        );
        let sent = play(alice, "2026-11-01T14:00:00Z", &id, "Nf3");
        assert!(sent.contains(&format!("delivered {id} (ply 3)")), "{sent}");
        let taken = ok(&bob.run("2026-11-01T15:00:00Z", &["sync"]));
        assert!(
            taken.contains(&format!("{id}: alice@example.org played 2. Nf3")),
            "{taken}"
        );
        let sent = play(bob, "2026-11-01T16:00:00Z", &id, "Nc6");
        assert!(sent.contains(&format!("delivered {id} (ply 4)")), "{sent}");
        let taken = ok(&alice.run("2026-11-01T17:00:00Z", &["sync"]));
        assert!(taken.contains("played 2... Nc6"), "{taken}");

        // Both copies are the same game; nobody has a refused mail.
        assert_eq!(
            std::fs::read_to_string(game_path(alice, &id)).unwrap(),
            std::fs::read_to_string(game_path(bob, &id)).unwrap()
        );
        assert_eq!(mails(&shared).len(), 4, "{:?}", mails(&shared));
        for player in [alice, bob] {
            let status = ok(&player.run("2026-11-01T18:00:00Z", &["status"]));
            assert!(!status.contains("refused"), "{status}");
        }
    }
}

#[test]
fn two_mails_of_a_game_delivered_in_one_second_are_taken_in_by_ply() {
    for layout in [Layout::Plain, Layout::Maildir] {
        let (homes, shared) = homes(&format!("shared-order-{layout:?}"), Some(layout));
        let (id, reply) = two_mails_in_one_second(&homes);
        if let Layout::Plain = layout {
            // Named alike up to the ply, the ply 10 mail sorts first.
            let names = mails(&shared);
            let at = |ply: &str| names.iter().position(|name| name.contains(ply)).unwrap();
            assert!(at(".10-to-alice") < at(".9-to-alice"), "{names:?}");
        }
        let taken = ok(&homes.alice.run("2026-11-10T13:00:00Z", &["sync"]));
        assert_taken_in_by_ply(&taken, &reply);
        assert_eq!(
            std::fs::read_to_string(game_path(&homes.alice, &id)).unwrap(),
            std::fs::read_to_string(game_path(&homes.bob, &id)).unwrap()
        );
    }
}

#[test]
fn a_missing_or_unusable_shared_folder_keeps_the_mail_in_the_outbox() {
    let (homes, shared) = homes("shared-missing", None);
    let alice = &homes.alice;
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&alice.run("2026-11-01T10:00:00Z", &["move", &id, "d4"]));
    let outbox = alice.dir.join("outbox");

    // Missing: a share not mounted or synced yet is not made by pbem.
    let shown = alice.dir.join("../shared").display().to_string();
    let missing = alice.run("2026-11-01T10:00:00Z", &["send", &id]);
    assert_error(
        &missing,
        &format!(
            "{id} (ply 1) not delivered: the shared folder {shown} does not exist: if it is synced or mounted, start the sync or mount it; else create it (`mkdir -p {shown}`) or correct shared_folder in {}",
            alice.config().display()
        ),
    );
    assert_error(
        &missing,
        "1 mail could not be delivered and waits in the outbox",
    );
    assert!(!shared.exists());
    assert_eq!(count(&outbox), 2);
    let sync = alice.run("2026-11-01T10:01:00Z", &["sync"]);
    assert_error(&sync, "does not exist");
    assert_error(&sync, "nothing was taken in");
    assert_eq!(count(&outbox), 2);
    let check = alice.run("2026-11-01T10:01:00Z", &["config", "check"]);
    assert_error(&check, &format!("the shared folder {shown} does not exist"));

    // A file where the folder should be.
    std::fs::write(&shared, "not a folder").unwrap();
    let file = alice.run("2026-11-01T10:02:00Z", &["send", "--retry"]);
    assert_error(&file, &format!("the shared folder {shown} is not a folder"));
    assert_eq!(count(&outbox), 2);
    std::fs::remove_file(&shared).unwrap();

    // A folder nobody may write into, root included: sysfs (on Linux).
    if cfg!(target_os = "linux") && Path::new("/sys/kernel").is_dir() {
        let config = std::fs::read_to_string(alice.config()).unwrap();
        std::fs::write(
            alice.config(),
            config.replace("shared_folder: ../shared", "shared_folder: /sys"),
        )
        .unwrap();
        let denied = alice.run("2026-11-01T10:02:30Z", &["send", "--retry"]);
        assert_error(&denied, "not delivered: /sys: Permission denied");
        assert_error(
            &denied,
            "(check that you may write into /sys: `ls -ld /sys`)",
        );
        assert_eq!(count(&outbox), 2);
        std::fs::write(alice.config(), config).unwrap();
    }

    // A folder whose permissions forbid writing (they do not hold for root: then this
    // part has nothing more to show).
    std::fs::create_dir(&shared).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o555)).unwrap();
        let enforced = std::fs::write(shared.join("probe"), "x").is_err();
        let _ = std::fs::remove_file(shared.join("probe"));
        if enforced {
            let denied = alice.run("2026-11-01T10:03:00Z", &["send", "--retry"]);
            assert_error(&denied, "check that you may write into");
            assert_eq!(count(&outbox), 2);
        }
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // Once the folder is there, `sync` delivers the mail and empties the outbox.
    let retry = ok(&alice.run("2026-11-01T10:04:00Z", &["sync"]));
    assert!(
        retry.starts_with(&format!(
            "delivered {id} (ply 1) to bob@example.org in {shown}\n"
        )),
        "{retry}"
    );
    assert!(retry.ends_with("no new moves\n"), "{retry}");
    assert_eq!(count(&outbox), 0);
    let taken = ok(&homes.bob.run("2026-11-01T11:00:00Z", &["sync"]));
    assert!(taken.contains("last turn 1. d4"), "{taken}");
}

#[test]
fn a_delivery_killed_before_the_outbox_is_cleared_is_made_once() {
    for layout in [Layout::Plain, Layout::Maildir] {
        let (homes, shared) = homes(&format!("shared-kill-{layout:?}"), Some(layout));
        let id = homes.start("2026-11-01T09:00:00Z", &[]);
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "c4"]));
        // Killed once the mail is in the folder and before it leaves the outbox.
        let (child, _flag) =
            homes
                .alice
                .spawn_paused("2026-11-01T10:00:00Z", &["send", &id], &[], "delivered");
        kill_9(child);
        assert_eq!(mails(&shared).len(), 1);
        assert_eq!(count(&homes.alice.dir.join("outbox")), 2);
        let retry = ok(&homes
            .alice
            .run("2026-11-01T10:10:00Z", &["send", "--retry"]));
        assert!(
            retry.contains("it was there already: an interrupted pbem had delivered it"),
            "{retry}"
        );
        assert_eq!(mails(&shared).len(), 1, "{:?}", mails(&shared));
        assert_eq!(count(&homes.alice.dir.join("outbox")), 0);
        let taken = ok(&homes.bob.run("2026-11-01T11:00:00Z", &["sync"]));
        assert!(taken.contains("last turn 1. c4"), "{taken}");
        assert_eq!(taken.matches("new game").count(), 1, "{taken}");
    }
}

#[cfg(unix)]
#[test]
fn links_planted_in_the_shared_folder_redirect_nothing() {
    use std::os::unix::fs::symlink;
    // A Maildir whose new/ someone replaced by a link to Bob's games folder.
    let (homes, shared) = homes("shared-links", Some(Layout::Maildir));
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let elsewhere = homes.root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::remove_dir(shared.join("new")).unwrap();
    symlink(&elsewhere, shared.join("new")).unwrap();
    let linked = homes.alice.run("2026-11-01T10:00:00Z", &["send", &id]);
    assert_error(&linked, "is a symbolic link: pbem does not follow links");
    assert_eq!(count(&elsewhere), 0);
    assert_eq!(count(&homes.alice.dir.join("outbox")), 2);

    // In a plain folder, an .eml link to a file elsewhere is not read as a mail.
    for sub in ["new", "cur", "tmp"] {
        let path = shared.join(sub);
        let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir(&path));
    }
    ok(&homes
        .alice
        .run("2026-11-01T10:01:00Z", &["send", "--retry"]));
    let delivered = mails(&shared);
    assert_eq!(delivered.len(), 1);
    let copy = elsewhere.join("copy.eml");
    std::fs::copy(shared.join(&delivered[0]), &copy).unwrap();
    std::fs::remove_file(shared.join(&delivered[0])).unwrap();
    symlink(&copy, shared.join(&delivered[0])).unwrap();
    let nothing = ok(&homes.bob.run("2026-11-01T11:00:00Z", &["sync"]));
    assert_eq!(nothing, "the outbox is empty\nno new moves\n");
}
