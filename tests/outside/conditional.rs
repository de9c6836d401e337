//! Conditional moves through the test SMTP and IMAP servers (issue 35): Alice runs
//! nothing but `pbem sync`, and her conditional replies to three of Bob's turns are
//! played, sent by SMTP and taken in by Bob over IMAP; a turn no line expects drops the
//! lines and tells her; no mail holds a line she did not play.

use crate::imap::{self, relay};
use crate::smtp::{self, Options};
use crate::support::homes::{Homes, game_path, ok, text};
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::Imap, Need::Smtp];
        conditional_replies_travel_by_smtp_and_imap_with_nothing_but_sync,
    ]
}

fn conditional_replies_travel_by_smtp_and_imap_with_nothing_but_sync() {
    let imap = imap::start("conditional");
    let smtp = smtp::start("conditional", Options::default());
    let homes = Homes::new("imap-conditional", "");
    let smtp_section = smtp.config_section();
    for (player, user) in [
        (&homes.alice, "alice@example.org"),
        (&homes.bob, "bob@example.org"),
    ] {
        player.set_sections(&format!("{smtp_section}{}", imap.config(user, false, "")));
    }
    let env = [
        (imap::PASSWORD_VARIABLE, imap::PASSWORD),
        (smtp::PASSWORD_VARIABLE, smtp.password),
    ];
    let run = |player: &crate::support::homes::Player, now: &str, args: &[&str]| {
        ok(&player.run_with(now, args, &env))
    };
    let (alice, bob) = (&homes.alice, &homes.bob);
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    let mut relayed = 0;
    run(alice, "2026-11-01T10:00:00Z", &["move", &id, "e4"]);
    run(
        alice,
        "2026-11-01T10:00:00Z",
        &[
            "if",
            &id,
            "1... e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O",
            "1... c5 2. Qh5",
        ],
    );
    run(alice, "2026-11-01T10:00:00Z", &["send", &id]);
    relay(&smtp, &imap, &mut relayed);
    for (day, (theirs, mine)) in [("e5", "2. Nf3"), ("Nc6", "3. Bb5"), ("a6", "4. Ba4")]
        .into_iter()
        .enumerate()
    {
        let now = format!("2026-11-0{}T10:00:00Z", day + 2);
        let synced = run(bob, &now, &["sync"]);
        assert!(synced.contains(&format!("changed: {id}")), "{synced}");
        run(bob, &now, &["move", &id, theirs]);
        run(bob, &now, &["send", &id]);
        relay(&smtp, &imap, &mut relayed);
        let synced = run(alice, &now, &["sync"]);
        assert!(
            synced.contains(&format!("{id}: played your conditional reply {mine}")),
            "{synced}"
        );
        assert!(synced.contains(&format!("sent {id}")), "{synced}");
        relay(&smtp, &imap, &mut relayed);
    }
    // Bob leaves the line: Alice is told and nothing is played.
    let synced = run(bob, "2026-11-05T10:00:00Z", &["sync"]);
    assert!(synced.contains("played 4. Ba4"), "{synced}");
    run(bob, "2026-11-05T10:00:00Z", &["move", &id, "b5"]);
    run(bob, "2026-11-05T10:00:00Z", &["send", &id]);
    relay(&smtp, &imap, &mut relayed);
    let synced = run(alice, "2026-11-05T11:00:00Z", &["sync"]);
    assert!(
        synced.contains(&format!(
            "{id}: 1 conditional line no longer matches the game and is dropped (the game went 4... b5 where they expected 4... Nf6)"
        )),
        "{synced}"
    );
    assert!(!synced.contains("played your"), "{synced}");
    assert_eq!(relayed, 8);
    let alices = std::fs::read_to_string(game_path(alice, &id)).unwrap();
    let bobs = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    assert_eq!(alices, bobs);
    // What the SMTP server carried holds no line that was not played.
    for mail in smtp.delivered() {
        let mail = text(&mail);
        let body = mail
            .split("Content-Type: image/")
            .next()
            .unwrap_or_default();
        for secret in ["conditional", "Qh5", "Nf6", "O-O"] {
            assert!(!body.contains(secret), "{secret}: {body}");
        }
    }
}
