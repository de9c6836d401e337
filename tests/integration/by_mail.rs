//! Mail without a server: the outbox and `send --dry-run`, replies as mail clients quote
//! them, and mails that arrive out of order, taken in from Maildirs.

use std::path::PathBuf;

use crate::play::{Homes, ok, text};
use crate::support::homes::count;

#[test]
fn send_dry_run_writes_the_mail_to_a_folder() {
    let homes = Homes::new("dry-run", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "Nf3"]));
    let dir = homes.alice.dir.join("drafts");
    let out = ok(&homes.alice.run(
        "2026-11-01T10:00:00Z",
        &["send", "--dry-run", dir.to_str().unwrap(), &id],
    ));
    let path = PathBuf::from(out.trim());
    let mail = std::fs::read_to_string(&path).unwrap();
    assert!(
        mail.contains(&format!("Message-ID: <{id}.1@pbem.invalid>")),
        "{mail}"
    );
    assert!(
        mail.contains(&format!("In-Reply-To: <{id}.0@pbem.invalid>")),
        "{mail}"
    );
    assert!(mail.contains("1. Nf3"), "{mail}");
    assert_eq!(count(&homes.alice.dir.join("outbox")), 0);
    // Bob takes the file in directly.
    let taken = ok(&homes
        .bob
        .run("2026-11-01T11:00:00Z", &["receive", path.to_str().unwrap()]));
    assert!(
        taken.contains("new game from alice@example.org, last turn 1. Nf3"),
        "{taken}"
    );
    // Without smtp settings a send keeps the mail in the outbox and says so.
    let kept = homes.bob.run("2026-11-01T12:00:00Z", &["move", &id, "d5"]);
    ok(&kept);
    let unsent = homes.bob.run("2026-11-01T12:00:00Z", &["send", &id]);
    assert_eq!(unsent.status.code(), Some(2));
    assert!(
        text(&unsent.stderr).contains("no smtp section"),
        "{}",
        text(&unsent.stderr)
    );
    assert_eq!(count(&homes.bob.dir.join("outbox")), 2);
}

/// A mail as a reply quotes it: the record between the markers, every line after `> `.
fn quoted_reply(record: &str, from: &str, keep_end: bool) -> String {
    let mut body =
        String::from("On Sunday you wrote:\n> pbem game\n>\n> -----BEGIN PBEM RECORD-----\n");
    for line in record.lines() {
        body.push_str(&format!("> {line}\n"));
    }
    if keep_end {
        body.push_str("> -----END PBEM RECORD-----\n");
    } else {
        // Cut off in the middle of the movetext.
        body.truncate(body.len() - 20);
        body.push('\n');
    }
    format!(
        "From: Alice <{from}>\nTo: bob@example.org\nSubject: Re: your move\nContent-Type: text/plain; charset=utf-8\n\n{body}"
    )
}

#[test]
fn quoted_replies_are_taken_in_and_truncated_mails_refused() {
    let homes = Homes::new("quoted", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "Nf3"]));
    let record =
        std::fs::read_to_string(homes.alice.dir.join("games").join(format!("{id}.pgn"))).unwrap();

    let truncated = homes.bob.dir.join("truncated.eml");
    std::fs::write(
        &truncated,
        quoted_reply(&record, "alice@example.org", false),
    )
    .unwrap();
    let refused = homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", truncated.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stdout).contains("truncated"),
        "{}",
        text(&refused.stdout)
    );
    assert!(
        !homes
            .bob
            .dir
            .join("games")
            .join(format!("{id}.pgn"))
            .exists()
    );

    let stranger = homes.bob.dir.join("stranger.eml");
    std::fs::write(
        &stranger,
        quoted_reply(&record, "mallory@example.org", true),
    )
    .unwrap();
    let refused = homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", stranger.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stdout).contains("comes from mallory@example.org"),
        "{}",
        text(&refused.stdout)
    );

    let quoted = homes.bob.dir.join("quoted.eml");
    std::fs::write(&quoted, quoted_reply(&record, "alice@example.org", true)).unwrap();
    let input = std::fs::read(&quoted).unwrap();
    let taken = ok(&homes
        .bob
        .run_with_stdin("2026-11-01T11:00:00Z", &["receive", "-"], &input));
    assert!(taken.contains("last turn 1. Nf3"), "{taken}");
    let bobs =
        std::fs::read_to_string(homes.bob.dir.join("games").join(format!("{id}.pgn"))).unwrap();
    assert_eq!(bobs, record);
}

#[test]
fn mails_that_arrive_out_of_order_do_not_undo_newer_ones() {
    let homes = Homes::new("reordered", "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let drafts = homes.alice.dir.join("drafts");
    let drafts_arg = drafts.to_str().unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    let first = PathBuf::from(
        ok(&homes.alice.run(
            "2026-11-01T10:00:00Z",
            &["send", "--dry-run", drafts_arg, &id],
        ))
        .trim(),
    );
    let first_copy = homes.bob.dir.join("first.eml");
    std::fs::copy(&first, &first_copy).unwrap();
    ok(&homes
        .alice
        .run("2026-11-01T10:30:00Z", &["draw", "offer", &id]));
    let second = PathBuf::from(
        ok(&homes.alice.run(
            "2026-11-01T10:30:00Z",
            &["send", "--dry-run", drafts_arg, &id],
        ))
        .trim(),
    );

    // The offer arrives first, then the move alone.
    let taken = ok(&homes.bob.run(
        "2026-11-01T11:00:00Z",
        &["receive", second.to_str().unwrap()],
    ));
    assert!(taken.contains("White offers a draw"), "{taken}");
    let late = ok(&homes.bob.run(
        "2026-11-01T11:05:00Z",
        &["receive", first_copy.to_str().unwrap()],
    ));
    assert!(late.contains("an older mail"), "{late}");
    let status = ok(&homes.bob.run("2026-11-01T11:10:00Z", &["status"]));
    assert!(status.contains("White offers a draw"), "{status}");
    ok(&homes
        .bob
        .run("2026-11-01T11:10:00Z", &["draw", "accept", &id]));
}
