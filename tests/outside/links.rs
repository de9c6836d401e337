//! Symbolic links planted by another user in a sticky folder anyone can write (`/tmp`):
//! pbem writes through a link only where the kernel's `fs.protected_symlinks` would
//! follow it for this user, whatever the sysctl says on this machine. The planted links
//! are real links owned by another user (`nobody`, uid 65534, given with `lchown`), so
//! the tests need root ([`Need::OtherOwner`]): elsewhere they show as ignored, and under
//! CI they fail. A config file of another user is refused here too, for the same reason.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::homes::{Homes, assert_error, game_path, ok};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::OtherOwner];
        a_link_planted_by_another_user_in_a_sticky_folder_is_never_written_through,
        links_the_kernel_would_follow_are_written_through,
        game_files_and_outbox_mails_are_not_written_through_a_planted_link,
        a_config_file_of_another_user_is_refused,
    ]
}

/// The other user who plants the links.
const NOBODY: u32 = 65534;

/// What pbem says when it refuses a planted link.
const REFUSAL: &str = "is a symbolic link owned by another user (uid 65534)";

/// What pbem says of a link where the outbox keeps a mail: it never follows one there.
const OUTBOX_REFUSAL: &str =
    "is a symbolic link (or not a regular file) where pbem keeps an outbox mail";

const GAME: &str = "[Event \"x\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1.e4   e5 2.Nf3 *\n";

/// A scratch folder holding a sticky folder anyone can write (`sticky`, mode 1777), an
/// open folder without the sticky bit (`open`, mode 0777) and the files links point to
/// (`victims`); removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("pbem-links-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (folder, mode) in [("sticky", 0o1777), ("open", 0o0777), ("victims", 0o0755)] {
            let path = root.join(folder);
            std::fs::create_dir_all(&path).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        Scratch(root)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether this process may give a file to another user (a link given to [`NOBODY`]).
pub fn probe() -> Result<(), String> {
    let scratch = Scratch::new("probe");
    let link = scratch.path("victims/probe");
    std::os::unix::fs::symlink("nowhere", &link).map_err(|error| error.to_string())?;
    std::os::unix::fs::lchown(&link, Some(NOBODY), Some(NOBODY)).map_err(|error| {
        format!("needs root, to give links and files to another user (uid {NOBODY}): {error}")
    })
}

/// Makes `link` point to `target`, owned by `owner` when given.
fn assert_still_a_link(link: &Path) {
    assert!(
        std::fs::symlink_metadata(link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "{} is no longer a link",
        link.display()
    );
}

fn plant(target: &Path, link: &Path, owner: Option<u32>) {
    std::os::unix::fs::symlink(target, link).unwrap();
    if let Some(owner) = owner {
        std::os::unix::fs::lchown(link, Some(owner), Some(owner))
            .unwrap_or_else(|error| panic!("lchown {}: {error}", link.display()));
    }
}

fn pbem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .env_remove("PBEM_CONFIG")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap()
}

/// Every command that writes a file it is given, with `LINK` for the link and `GAME` for
/// a game file.
const WRITERS: &[&[&str]] = &[
    &["show", "--format", "svg", "-o", "LINK", "GAME"],
    &["show", "--format", "png", "-o", "LINK", "GAME"],
    &["html", "GAME", "-o", "LINK"],
    &["convert", "GAME", "-o", "LINK"],
    &["fmt", "--in-place", "LINK"],
];

fn run_writer(writer: &[&str], link: &Path, game: &Path) -> Output {
    let args: Vec<&str> = writer
        .iter()
        .map(|arg| match *arg {
            "LINK" => link.to_str().unwrap(),
            "GAME" => game.to_str().unwrap(),
            other => other,
        })
        .collect();
    pbem(&args)
}

fn a_link_planted_by_another_user_in_a_sticky_folder_is_never_written_through() {
    let scratch = Scratch::new("writers");
    let game = scratch.path("victims/game.pgn");
    std::fs::write(&game, GAME).unwrap();
    for (index, writer) in WRITERS.iter().enumerate() {
        // The link points to an existing file (fmt's game, or a file that would be
        // overwritten) and, but for fmt, to one that does not exist (which would be created).
        let existing = scratch.path(&format!("victims/existing-{index}"));
        std::fs::write(&existing, GAME).unwrap();
        let missing = scratch.path(&format!("victims/missing-{index}"));
        let targets: &[&Path] = if writer[0] == "fmt" {
            &[&existing]
        } else {
            &[&existing, &missing]
        };
        for (case, target) in targets.iter().enumerate() {
            let link = scratch.path(&format!("sticky/planted-{index}-{case}"));
            plant(target, &link, Some(NOBODY));
            let output = run_writer(writer, &link, &game);
            assert_error(&output, REFUSAL);
            assert_error(&output, "fs.protected_symlinks");
            assert_eq!(
                std::fs::read_to_string(&existing).unwrap(),
                GAME,
                "{writer:?}"
            );
            assert!(
                !missing.exists(),
                "{writer:?} created {}",
                missing.display()
            );
            assert_still_a_link(&link);
        }
    }
}

fn links_the_kernel_would_follow_are_written_through() {
    let scratch = Scratch::new("followed");
    let game = scratch.path("victims/game.pgn");
    std::fs::write(&game, GAME).unwrap();
    // (folder, owner of the link): the user's own link in the sticky folder, another
    // user's link in a folder that is not sticky.
    let places = [("sticky", None), ("open", Some(NOBODY))];
    for (index, writer) in WRITERS.iter().enumerate() {
        for (folder, owner) in places {
            let target = scratch.path(&format!("victims/{folder}-{index}"));
            if writer[0] == "fmt" {
                std::fs::write(&target, GAME).unwrap();
            }
            let link = scratch.path(&format!("{folder}/link-{index}"));
            plant(&target, &link, owner);
            ok(&run_writer(writer, &link, &game));
            let written = std::fs::read(&target).unwrap();
            assert!(!written.is_empty(), "{writer:?} in {folder}");
            assert_still_a_link(&link);
        }
    }
}

fn game_files_and_outbox_mails_are_not_written_through_a_planted_link() {
    let homes = Homes::new("links-games", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let other = homes.start("2026-11-01T09:01:00Z", &[]);
    let games = homes.alice.dir.join("games");
    let outbox = homes.alice.dir.join("outbox");
    std::fs::create_dir_all(&outbox).unwrap();
    for folder in [&games, &outbox] {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o1777)).unwrap();
    }
    let victims = homes.root.join("victims");
    std::fs::create_dir_all(&victims).unwrap();

    // Alice moves; another user puts a link to a file of Alice's where `send` puts the
    // mail in the outbox.
    let victim = victims.join("notes.txt");
    std::fs::write(&victim, "kept").unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let mail = outbox.join(format!("{id}.1.eml"));
    plant(&victim, &mail, Some(NOBODY));
    let refused = homes.alice.run("2026-11-01T10:01:00Z", &["send", &id]);
    assert_error(&refused, OUTBOX_REFUSAL);
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "kept",
        "the outbox mail was written through the link"
    );
    std::fs::remove_file(&mail).unwrap();

    // Another user replaces the game file by a link to a copy elsewhere.
    let game = game_path(&homes.alice, &other);
    let copy = victims.join("game.pgn");
    std::fs::copy(&game, &copy).unwrap();
    let before = std::fs::read_to_string(&copy).unwrap();
    std::fs::remove_file(&game).unwrap();
    plant(&copy, &game, Some(NOBODY));
    let refused = homes
        .alice
        .run("2026-11-01T10:05:00Z", &["move", &other, "e4"]);
    assert_error(&refused, REFUSAL);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), before);
}

/// A config file that another user owns is refused: its `password_command` is theirs.
fn a_config_file_of_another_user_is_refused() {
    let scratch = Scratch::new("config-owner");
    let config = scratch.path("config.yaml");
    std::fs::write(
        &config,
        "player:\n  name: Alice\n  email: alice@example.org\nsmtp:\n  host: 127.0.0.1\n  user: alice\n  password_command: echo secret\n",
    )
    .unwrap();
    std::os::unix::fs::chown(&config, Some(NOBODY), Some(NOBODY)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("--config")
        .arg(&config)
        .arg("status")
        .env_remove("PBEM_CONFIG")
        .output()
        .unwrap();
    assert_error(&output, "belongs to another user (uid 65534)");
}
