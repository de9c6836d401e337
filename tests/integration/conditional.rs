//! Conditional moves and opening books (issue 35), between two homes that share a folder:
//! the player runs nothing but `pbem sync` and its replies are played and sent; lines the
//! game leaves are dropped and the player told; a tree from a PGN with variations; a book
//! used in two games at once; a reply that is not legal never played; a pbem killed
//! between the reply and its mail sends it once; nothing of a tree or a book in any mail
//! or record. With chance: a branch on the roll, a card answered from the hand and the
//! line on to the next turn, a card not in the hand never played, a Dice line past the
//! player's own attempt, a pbem killed after a card in answer (the line goes on), lines
//! added while the opponent's card or roll is awaited; a book from a start where Black
//! moves first; a tree or book file that does not read, left out and named; a book in
//! both Cards modes that answers with a card only from the hand.

use std::path::PathBuf;

use crate::support::homes::{Homes, Player, game_path, game_words, kill_9, ok, roll_in, text};

/// Two homes playing through `<root>/shared`.
fn homes(name: &str) -> Homes {
    let homes = Homes::new(name, "shared_folder: ../shared\n");
    std::fs::create_dir_all(homes.root.join("shared")).unwrap();
    homes
}

/// The mails in the shared folder, oldest name first, with their text.
fn mails(homes: &Homes) -> Vec<(String, String)> {
    let mut mails: Vec<(String, String)> = std::fs::read_dir(homes.root.join("shared"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                // The text of the mail, without the picture's base64.
                text(&std::fs::read(&path).unwrap())
                    .split("Content-Type: image/")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect();
    mails.sort();
    mails
}

/// How many of the shared folder's mails carry the record ending at this turn label
/// (their subject names it).
fn mails_of_turn(homes: &Homes, label: &str) -> usize {
    mails(homes)
        .iter()
        .filter(|(_, mail)| {
            mail.lines()
                .any(|line| line.starts_with("Subject:") && line.contains(label))
        })
        .count()
}

/// `player` plays `turn` and sends it.
fn play(player: &Player, now: &str, id: &str, turn: &str) {
    ok(&player.run(now, &["move", id, turn]));
    ok(&player.run(now, &["send", id]));
}

/// Bob takes in what waits for him on day `day` of November and plays `turn` in game
/// `id`; then Alice, an hour later, runs nothing but `pbem sync`: returns what it said.
fn bob_plays(homes: &Homes, day: u32, id: &str, turn: &str) -> String {
    let now = format!("2026-11-{day:02}T10:00:00Z");
    ok(&homes.bob.run(&now, &["sync"]));
    play(&homes.bob, &now, id, turn);
    ok(&homes
        .alice
        .run(&format!("2026-11-{day:02}T11:00:00Z"), &["sync"]))
}

/// A game in which Alice has played and sent 1. e4; returns the homes and its id.
fn after_e4(name: &str) -> (Homes, String) {
    let homes = homes(name);
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    play(&homes.alice, "2026-11-01T10:00:00Z", &id, "e4");
    (homes, id)
}

/// The main line of a player's copy of the game: its movetext without the comments.
fn main_line(player: &Player, id: &str) -> String {
    let record = std::fs::read_to_string(game_path(player, id)).unwrap();
    // The tags, up to the movetext (whose comments may hold lines that start with '[').
    let movetext: String = record
        .lines()
        .skip_while(|line| line.starts_with('[') || line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut plain = String::new();
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    // Tokens only: no move numbers, no result.
    plain
        .split_whitespace()
        .filter(|word| *word != "*" && !word.ends_with('.'))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that no mail in the shared folder and no game file of either player holds
/// any of `secrets` (turns of conditional lines or books never played) or the word
/// "conditional".
fn assert_never_mailed(homes: &Homes, id: &str, secrets: &[&str]) {
    let mut texts: Vec<(String, String)> = mails(homes);
    for player in [&homes.alice, &homes.bob] {
        let path = game_path(player, id);
        texts.push((
            path.display().to_string(),
            std::fs::read_to_string(&path).unwrap(),
        ));
    }
    for (name, body) in texts {
        assert!(
            !body.to_lowercase().contains("conditional"),
            "{name}: {body}"
        );
        for secret in secrets {
            assert!(!body.contains(secret), "{name} holds {secret}: {body}");
        }
    }
}

/// Asserts that what a run said holds each of `lines`.
fn assert_says(said: &str, lines: &[String]) {
    for line in lines {
        assert!(said.contains(line.as_str()), "{line}: {said}");
    }
}

fn tree_file(player: &Player, id: &str) -> PathBuf {
    player
        .dir
        .join("games")
        .join("conditional")
        .join(format!("{id}.yaml"))
}

#[test]
fn three_turns_each_answered_by_sync_alone() {
    let homes = homes("cond-three");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    play(alice, "2026-11-01T10:00:00Z", &id, "e4");
    ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));

    // Alice's tree: the Ruy Lopez if Bob plays e5, and a reply to the Sicilian.
    let added = ok(&alice.run(
        "2026-11-01T12:00:00Z",
        &[
            "if",
            &id,
            "1... e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4",
            "1...c5 2.Qh5",
        ],
    ));
    assert!(added.contains("2 conditional lines added"), "{added}");
    assert!(
        added.contains("1... e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4"),
        "{added}"
    );
    let status = ok(&alice.run("2026-11-01T12:00:00Z", &["status"]));
    assert!(status.contains("4 conditional replies wait"), "{status}");

    for (day, (theirs, mine)) in [("e5", "2. Nf3"), ("Nc6", "3. Bb5"), ("a6", "4. Ba4")]
        .into_iter()
        .enumerate()
    {
        let now = format!("2026-11-0{}T10:00:00Z", day + 2);
        // Bob takes in Alice's last turn and plays.
        ok(&bob.run(&now, &["sync"]));
        play(bob, &now, &id, theirs);
        // Alice runs nothing but sync: her reply is played and sent.
        let synced = ok(&alice.run(&now, &["sync"]));
        assert!(
            synced.contains(&format!("{id}: played your conditional reply {mine}")),
            "{synced}"
        );
        assert!(synced.contains("delivered"), "{synced}");
        assert_eq!(mails_of_turn(&homes, mine), 1, "{:?}", mails(&homes));
    }
    let synced = ok(&bob.run("2026-11-05T10:00:00Z", &["sync"]));
    assert!(synced.contains("played 4. Ba4"), "{synced}");
    for player in [alice, bob] {
        assert!(
            main_line(player, &id) == "e4 e5 Nf3 Nc6 Bb5 a6 Ba4",
            "{}",
            main_line(player, &id)
        );
    }
    // Reflection time zero for each conditional reply: sent when it was received.
    let words = game_words(alice, &id);
    assert!(
        words.contains("Nf3 {[%received 2026-11-02T10:00:00Z] [%sent 2026-11-02T10:00:00Z]}"),
        "{words}"
    );
    // The tree is used up: nothing waits, and the Sicilian line never left Alice's home.
    let status = ok(&alice.run("2026-11-05T10:00:00Z", &["status"]));
    assert!(!status.contains("conditional"), "{status}");
    assert!(!tree_file(alice, &id).exists());
    assert_never_mailed(&homes, &id, &["Qh5"]);
}

#[test]
fn a_turn_no_line_expects_drops_the_lines_and_says_so() {
    let (homes, id) = after_e4("cond-drop");
    let alice = &homes.alice;
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3", "c5 Nc3"]));
    let synced = bob_plays(&homes, 2, &id, "d5");
    assert!(
        synced.contains(&format!(
            "{id}: 2 conditional lines no longer match the game and are dropped (the game went 1... d5 where they expected 1... c5 or 1... e5)"
        )),
        "{synced}"
    );
    assert!(!synced.contains("played your"), "{synced}");
    let listed = ok(&alice.run("2026-11-02T11:00:00Z", &["if", &id]));
    assert!(listed.contains("no conditional lines"), "{listed}");
    // Nothing was played for Alice: it is her turn, and only Bob's mail is new.
    assert!(
        main_line(alice, &id) == "e4 d5",
        "{}",
        main_line(alice, &id)
    );
    assert_never_mailed(&homes, &id, &["Nf3", "Nc3"]);
}

#[test]
fn a_tree_from_a_pgn_with_variations() {
    let (homes, id) = after_e4("cond-pgn");
    let alice = &homes.alice;
    let tree = homes.root.join("tree.pgn");
    std::fs::write(
        &tree,
        "1... e5 (1... c5 2. Nc3 Nc6 (2... d6 3. d4) 3. Bc4) 2. Nf3 *\n",
    )
    .unwrap();
    let added = ok(&alice.run(
        "2026-11-01T10:00:00Z",
        &["if", &id, "--file", tree.to_str().unwrap()],
    ));
    assert!(added.contains("3 conditional lines added"), "{added}");
    for line in [
        "1... c5 2. Nc3 Nc6 3. Bc4",
        "1... c5 2. Nc3 d6 3. d4",
        "1... e5 2. Nf3",
    ] {
        assert!(added.contains(line), "{line}: {added}");
    }
    let synced = bob_plays(&homes, 2, &id, "c5");
    assert!(
        synced.contains("played your conditional reply 2. Nc3"),
        "{synced}"
    );
    assert!(
        synced.contains("1 conditional line no longer matches"),
        "{synced}"
    );
    let synced = bob_plays(&homes, 3, &id, "d6");
    assert!(
        synced.contains("played your conditional reply 3. d4"),
        "{synced}"
    );
    assert_never_mailed(&homes, &id, &["Bc4", "Nf3"]);

    // A line the rules refuse is told with its place, and nothing is added.
    std::fs::write(&tree, "3... cxd4 (3... Nf6 4. Ke3) 4. Qxd4 *\n").unwrap();
    let refused = alice.run(
        "2026-11-03T11:00:00Z",
        &["if", &id, "--file", tree.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stdout));
    assert!(
        text(&refused.stderr).contains("turn 2 of the line, \"Ke3\""),
        "{}",
        text(&refused.stderr)
    );
    assert!(!tree_file(alice, &id).exists());
}

#[test]
fn a_book_answers_in_two_games_at_once() {
    let homes = homes("cond-book");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let book = homes.root.join("open-games.pgn");
    std::fs::write(
        &book,
        "[Event \"Alice's repertoire\"]\n\n1. e4 e5 (1... c5 2. Nf3 d6 3. Bc4) 2. Nf3 Nc6 3. Bb5 *\n",
    )
    .unwrap();
    let added = ok(&alice.run(
        "2026-11-01T09:00:00Z",
        &["book", "add", book.to_str().unwrap(), "--as", "white"],
    ));
    assert!(
        added.contains("book open-games: 2 conditional lines of Chess for White"),
        "{added}"
    );
    let listed = ok(&alice.run("2026-11-01T09:00:00Z", &["book", "list"]));
    assert!(
        listed.contains("open-games: Chess, plays White, 2 conditional lines"),
        "{listed}"
    );

    let first = homes.start("2026-11-01T09:00:00Z", &[]);
    let second = homes.start("2026-11-01T09:00:01Z", &[]);
    for id in [&first, &second] {
        play(alice, "2026-11-01T10:00:00Z", id, "e4");
    }
    ok(&bob.run("2026-11-02T10:00:00Z", &["sync"]));
    play(bob, "2026-11-02T10:00:00Z", &first, "e5");
    play(bob, "2026-11-02T10:00:00Z", &second, "c5");
    let synced = ok(&alice.run("2026-11-02T11:00:00Z", &["sync"]));
    for id in [&first, &second] {
        assert!(
            synced.contains(&format!("{id}: played your book open-games's reply 2. Nf3")),
            "{synced}"
        );
    }
    ok(&bob.run("2026-11-03T10:00:00Z", &["sync"]));
    play(bob, "2026-11-03T10:00:00Z", &first, "Nc6");
    play(bob, "2026-11-03T10:00:00Z", &second, "Nc6");
    let synced = ok(&alice.run("2026-11-03T11:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!(
            "{first}: played your book open-games's reply 3. Bb5"
        )),
        "{synced}"
    );
    // Out of the book in the second game: nothing is played there.
    assert!(!synced.contains(&format!("{second}: played")), "{synced}");
    for id in [&first, &second] {
        assert_never_mailed(&homes, id, &["Bc4", "Alice's repertoire", "open-games"]);
    }
    ok(&alice.run("2026-11-03T11:00:00Z", &["book", "remove", "open-games"]));
    let listed = ok(&alice.run("2026-11-03T11:00:00Z", &["book", "list"]));
    assert!(listed.contains("no books"), "{listed}");
}

#[test]
fn a_reply_that_is_not_legal_is_never_played() {
    let (homes, id) = after_e4("cond-illegal");
    let alice = &homes.alice;
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3"]));
    // The tree is the player's own file: one edited by hand (or by an older pbem) may
    // hold a reply the rules refuse by the time it is due.
    let path = tree_file(alice, &id);
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("Nf3", "Nf4");
    std::fs::write(&path, edited).unwrap();
    let synced = bob_plays(&homes, 2, &id, "e5");
    assert!(
        synced.contains(&format!(
            "{id}: your conditional reply Nf4 is not legal now and was not played"
        )),
        "{synced}"
    );
    assert!(
        main_line(alice, &id) == "e4 e5",
        "{}",
        main_line(alice, &id)
    );
    assert!(!path.exists());
    assert_eq!(mails(&homes).len(), 2, "{:?}", mails(&homes));
}

/// Alice's sync is killed at `point`, after her conditional reply is in her game file;
/// the next sync sends the reply exactly once and plays nothing more.
fn killed_between_the_reply_and_its_mail(point: &str) {
    let (homes, id) = after_e4(&format!("cond-crash-{point}"));
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3 Nc6 Bb5"]));
    ok(&bob.run("2026-11-02T10:00:00Z", &["sync"]));
    play(bob, "2026-11-02T10:00:00Z", &id, "e5");

    let (child, _flag) = alice.spawn_paused("2026-11-02T11:00:00Z", &["sync"], &[], point);
    kill_9(child);
    assert!(
        main_line(alice, &id) == "e4 e5 Nf3",
        "{}",
        main_line(alice, &id)
    );
    assert_eq!(mails_of_turn(&homes, "2. Nf3"), 0);

    let again = alice.run("2026-11-02T12:00:00Z", &["sync"]);
    let said = ok(&again);
    assert!(
        text(&again.stderr)
            .contains("the conditional reply an interrupted pbem played waits in the outbox now")
            || point == "outbox",
        "{}",
        text(&again.stderr)
    );
    assert!(!said.contains("played your"), "{said}");
    assert_eq!(mails_of_turn(&homes, "2. Nf3"), 1, "{:?}", mails(&homes));
    // Once more: nothing is sent twice, no second reply.
    let third = ok(&alice.run("2026-11-02T13:00:00Z", &["sync"]));
    assert!(third.contains("the outbox is empty"), "{third}");
    assert_eq!(mails_of_turn(&homes, "2. Nf3"), 1, "{:?}", mails(&homes));
    assert!(
        main_line(alice, &id) == "e4 e5 Nf3",
        "{}",
        main_line(alice, &id)
    );
    let synced = ok(&bob.run("2026-11-03T10:00:00Z", &["sync"]));
    assert!(synced.contains("played 2. Nf3"), "{synced}");
    let status = ok(&alice.run("2026-11-03T10:00:00Z", &["status"]));
    assert!(status.contains("1 conditional reply waits"), "{status}");
}

#[test]
fn a_pbem_killed_after_the_reply_sends_its_mail_once() {
    killed_between_the_reply_and_its_mail("conditional");
}

#[test]
fn a_pbem_killed_while_the_reply_enters_the_outbox_sends_it_once() {
    killed_between_the_reply_and_its_mail("outbox");
}

#[test]
fn a_dice_branch_is_chosen_by_the_roll() {
    use crate::support::homes::wickets_to_the_attempt;
    use crate::support::homes::{assert_the_roll_s_reply_played, lines_for_each_roll, other_rolls};
    let (homes, id) = wickets_to_the_attempt("cond-dice", "dice");
    let (alice, bob) = (&homes.alice, &homes.bob);
    crate::fair_cards::through_a_shared_folder(&homes);
    // Bob answers White's attempt on his wicket by its roll.
    let lines = lines_for_each_roll();
    let args: Vec<&str> = ["if", id.as_str()]
        .into_iter()
        .chain(lines.iter().map(String::as_str))
        .collect();
    let added = ok(&bob.run("2026-11-07T09:00:00Z", &args));
    assert!(added.contains("6 conditional lines added"), "{added}");

    ok(&alice.run("2026-11-07T10:00:00Z", &["move", &id, "Nxe5:w9"]));
    ok(&alice.run("2026-11-07T10:00:00Z", &["send", &id]));
    let synced = ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    let (roll, reply) = assert_the_roll_s_reply_played(bob, &id, &synced);
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(synced.contains(&format!("played 4... {reply}")), "{synced}");
    // The branches of the other rolls never left Bob's home.
    let others = other_rolls(roll);
    let others: Vec<&str> = others.iter().map(String::as_str).collect();
    assert_never_mailed(&homes, &id, &others);
}

#[test]
fn receive_plays_the_reply_and_leaves_its_mail_in_the_outbox() {
    use crate::support::homes::{after_e4, post};
    let (homes, id) = after_e4("cond-receive");
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3"]));
    post(alice, bob, "2026-11-01T11:00:00Z", &id, "m0");
    ok(&bob.run("2026-11-02T10:00:00Z", &["move", &id, "e5"]));
    let taken = post(bob, alice, "2026-11-02T11:00:00Z", &id, "m1");
    assert!(
        taken.contains(&format!("{id}: played your conditional reply 2. Nf3")),
        "{taken}"
    );
    assert!(
        taken.contains(
            "the reply waits in the outbox: `pbem send --retry` (or `pbem sync`) sends it"
        ),
        "{taken}"
    );
    let status = ok(&alice.run("2026-11-02T11:00:00Z", &["status"]));
    assert!(
        status.contains(&format!(
            "outbox: {id} (ply 3) to bob@example.org waits to be sent"
        )),
        "{status}"
    );
    // Taking the same mail in again plays nothing more.
    let again = post(bob, alice, "2026-11-02T12:00:00Z", &id, "m1-again");
    assert!(!again.contains("played your"), "{again}");
    assert_eq!(main_line(alice, &id), "e4 e5 Nf3");
}

#[test]
fn lines_that_cannot_be_added_say_why_and_change_nothing() {
    use crate::support::homes::assert_error;
    let (homes, id) = after_e4("cond-refused");
    let (alice, bob) = (&homes.alice, &homes.bob);
    // A line starts with the opponent's turn: Bob plays his own first.
    ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
    let mine = bob.run("2026-11-01T11:00:00Z", &["if", &id, "e5 Nf3 Nc6"]);
    assert_error(
        &mine,
        &format!(
            "{id}: it is your turn: play it first (`pbem move {id} TURN`), then add lines that start with your opponent's reply"
        ),
    );
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3"]));
    let short = alice.run("2026-11-01T10:00:00Z", &["if", &id, "1... c5"]);
    assert_eq!(short.status.code(), Some(1), "{}", text(&short.stderr));
    assert!(
        text(&short.stderr).contains("the line \"1... c5\" needs your opponent's turn and your reply to it; nothing was added"),
        "{}",
        text(&short.stderr)
    );
    let other = alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Bc4"]);
    assert_eq!(other.status.code(), Some(1), "{}", text(&other.stderr));
    assert!(
        text(&other.stderr).contains(&format!(
            "the line \"e5 Bc4\" answers with 2. Bc4 where your lines answer with Nf3 (one reply to each turn): `pbem if {id}` lists them"
        )),
        "{}",
        text(&other.stderr)
    );
    let listed = ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id]));
    assert!(listed.contains("  1... e5 2. Nf3\n"), "{listed}");
    assert!(!listed.contains("Bc4"), "{listed}");
    let dropped = ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "--clear"]));
    assert!(
        dropped.contains(&format!("{id}: 1 conditional line dropped")),
        "{dropped}"
    );
}

#[test]
fn a_book_for_black_answers_white_s_first_move() {
    let homes = homes("cond-black-book");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let book = homes.root.join("defences.pgn");
    std::fs::write(&book, "1. e4 (1. d4 Nf6 2. c4 e6) 1... c5 *\n").unwrap();
    let moded = bob.run(
        "2026-11-01T09:00:00Z",
        &["book", "add", book.to_str().unwrap(), "--decision", "cards"],
    );
    assert_eq!(moded.status.code(), Some(2), "{}", text(&moded.stderr));
    assert!(
        text(&moded.stderr)
            .contains("--decision is for Chess with wickets, not Chess (`--variant wickets`)"),
        "{}",
        text(&moded.stderr)
    );
    let added = ok(&bob.run(
        "2026-11-01T09:00:00Z",
        &[
            "book",
            "add",
            book.to_str().unwrap(),
            "--as",
            "black",
            "--name",
            "mine",
        ],
    ));
    assert!(
        added.contains("book mine: 2 conditional lines of Chess for Black"),
        "{added}"
    );
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    play(alice, "2026-11-01T10:00:00Z", &id, "d4");
    let synced = ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!("{id}: played your book mine's reply 1... Nf6")),
        "{synced}"
    );
    let synced = ok(&alice.run("2026-11-01T12:00:00Z", &["sync"]));
    assert!(synced.contains("played 1... Nf6"), "{synced}");
    assert_never_mailed(&homes, &id, &["mine", "defences"]);
}

/// A Chess with wickets game in the Cards mode with a fair deal, by Maildir to White's
/// scoring attempt on w9 (4. Nxe5:w9), then through a shared folder; returns the homes,
/// the id, and Alice's (White's) and Bob's hands.
fn dealt_to_the_attempt(name: &str) -> (Homes, String, Vec<String>, Vec<String>) {
    let (homes, id) = crate::support::homes::wickets_to_the_attempt(name, "Cards");
    crate::fair_cards::through_a_shared_folder(&homes);
    let white = crate::fair_cards::hand(&homes.alice, &id);
    let black = crate::fair_cards::hand(&homes.bob, &id);
    (homes, id, white, black)
}

/// [`dealt_to_the_attempt`], then Alice plays and sends the attempt led with her first
/// card (`white[0]`), which awaits Bob's card.
fn led_to_the_attempt(name: &str) -> (Homes, String, Vec<String>, Vec<String>) {
    let (homes, id, white, black) = dealt_to_the_attempt(name);
    let lead = format!("Nxe5:w9_c{}", white[0]);
    play(&homes.alice, "2026-11-07T10:00:00Z", &id, &lead);
    (homes, id, white, black)
}

/// A card's value (`S10` is 10).
fn value(card: &str) -> f32 {
    card[1..].parse().unwrap()
}

/// The card of `hand` Black may answer `lead` with that does not tie it (following suit
/// when he holds one), and Black's next turn once the attempt is decided by it: his
/// Defender sees w9, so White takes it only with more than the reply plus 2.5, and Black
/// then names the g8 Knight his Defender first.
fn answer(hand: &[String], lead: &str) -> (String, &'static str) {
    let suited: Vec<&String> = hand.iter().filter(|card| card[..1] == lead[..1]).collect();
    let from = if suited.is_empty() {
        hand.iter().collect()
    } else {
        suited
    };
    let card = from
        .into_iter()
        .find(|card| value(card) != value(lead))
        .unwrap_or_else(|| panic!("no answer to {lead} in {hand:?}"))
        .clone();
    let taken = value(lead) > value(&card) + 2.5;
    (card, if taken { "Dg8:Kxe5" } else { "Kxe5" })
}

#[test]
fn a_card_is_answered_from_the_hand_and_the_line_goes_on() {
    let (homes, id, white, black) = dealt_to_the_attempt("cond-cards");
    let (alice, bob) = (&homes.alice, &homes.bob);
    // Bob's lines branch on the card White leads: to each lead its answer, then his turn.
    let (lead, other) = (&white[0], &white[1]);
    let (card, next) = answer(&black, lead);
    let (other_card, other_next) = answer(&black, other);
    let added = ok(&bob.run(
        "2026-11-07T09:00:00Z",
        &[
            "if",
            &id,
            &format!("4. Nxe5:w9_c{lead} {card} 4... {next}"),
            &format!("4. Nxe5:w9_c{other} c{other_card} {other_next}"),
        ],
    ));
    assert!(added.contains("2 conditional lines added"), "{added}");
    let status = ok(&bob.run("2026-11-07T09:00:00Z", &["status"]));
    assert!(status.contains("4 conditional replies wait"), "{status}");

    play(
        alice,
        "2026-11-07T10:00:00Z",
        &id,
        &format!("Nxe5:w9_c{lead}"),
    );
    // Bob runs nothing but sync: his card, then his turn, each in its own mail.
    let synced = ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    assert_says(
        &synced,
        &[
            format!("{id}: played your conditional reply {card} in 4. Nxe5:w9_c{lead}_c{card}"),
            format!("{id}: played your conditional reply 4... {next}"),
            "1 conditional line no longer matches the game".to_owned(),
        ],
    );
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(synced.contains(&format!("played 4... {next}")), "{synced}");
    for player in [alice, bob] {
        assert_eq!(
            main_line(player, &id),
            format!("e4 e5 Ke2:f3 Ke7 Nxf3 Kd6 Nxe5:w9_c{lead}_c{card} {next}")
        );
    }
    assert!(!tree_file(bob, &id).exists());
    // The other branch never left Bob's home.
    assert_never_mailed(&homes, &id, &[&format!("Nxe5:w9_c{other}_c{other_card}")]);
}

#[test]
fn a_card_not_in_the_hand_is_never_played() {
    let (homes, id, white, black) = dealt_to_the_attempt("cond-cards-held");
    let (alice, bob) = (&homes.alice, &homes.bob);
    // Bob's line answers the lead with a card of Alice's hand: `pbem if` refuses it now
    // (see a_card_the_hand_does_not_hold_is_refused_when_added), so it is in a tree
    // kept by an earlier pbem; his pbem never plays it.
    let (lead, theirs) = (&white[0], &white[1]);
    // The turn as it would be written had the card been played (the card alone could be
    // part of another card, D1 of D10, or of the deal's base64).
    let never = format!("Nxe5:w9_c{lead}_c{theirs}");
    let mut tree = String::from("lines:\n");
    for token in main_line(bob, &id)
        .split_whitespace()
        .chain([never.as_str()])
    {
        let indent = if tree.ends_with(":\n") {
            "- - "
        } else {
            "  - "
        };
        tree.push_str(&format!("{indent}{token}\n"));
    }
    std::fs::create_dir_all(tree_file(bob, &id).parent().unwrap()).unwrap();
    std::fs::write(tree_file(bob, &id), tree).unwrap();
    let listed = ok(&bob.run("2026-11-07T09:00:00Z", &["if", &id]));
    assert!(listed.contains(&format!("  4. {never}\n")), "{listed}");
    play(
        alice,
        "2026-11-07T10:00:00Z",
        &id,
        &format!("Nxe5:w9_c{lead}"),
    );
    let before = std::fs::read_to_string(game_path(bob, &id)).unwrap_or_default();
    let synced = ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    assert_says(
        &synced,
        &[
            format!("{id}: your conditional reply {theirs} is not legal now and was not played"),
            format!("you do not hold {theirs}"),
            format!("your card is awaited: pbem move {id} CARD"),
        ],
    );
    assert!(!synced.contains("played your"), "{synced}");
    // Nothing played, the line dropped, his card still awaited from his hand.
    let record = std::fs::read_to_string(game_path(bob, &id)).unwrap();
    assert!(record.contains(&format!("Nxe5:w9_c{lead} ")), "{record}");
    assert!(!record.contains(&never), "{record}");
    assert!(!before.contains(&never));
    assert!(!tree_file(bob, &id).exists());
    let (card, _) = answer(&black, lead);
    ok(&bob.run("2026-11-07T12:00:00Z", &["move", &id, &card]));
    assert_never_mailed(&homes, &id, &[&never]);
}

#[test]
fn a_dice_line_goes_past_the_player_s_own_attempt_on_each_roll() {
    use crate::support::homes::{TO_THE_ATTEMPT, play_by_maildir};
    let homes = Homes::new("cond-dice-past", "");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "dice"],
    );
    for (ply, token) in TO_THE_ATTEMPT[..5].iter().enumerate() {
        play_by_maildir(&homes, &id, ply, token);
    }
    crate::fair_cards::through_a_shared_folder(&homes);
    // Alice answers 3... Kd6 with her attempt, whose roll nobody knows yet, and goes on
    // after it: on a failure (1 to 4) Black's King takes the Knight and she plays d4; on
    // a success Black names his g8 Knight Defender first and she plays d3.
    let added = ok(&alice.run(
        "2026-11-06T09:00:00Z",
        &[
            "if",
            &id,
            "3... Kd6 4. Nxe5:w9 Kxe5 5. d4",
            "3... Kd6 4. Nxe5:w9 Dg8:Kxe5 5. d3",
        ],
    ));
    assert!(added.contains("6 conditional lines added"), "{added}");
    let synced = bob_plays(&homes, 6, &id, "Kd6");
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 4. Nxe5:w9")),
        "{synced}"
    );
    // Bob's pbem draws the roll as it takes the attempt in.
    ok(&bob.run("2026-11-07T10:00:00Z", &["sync"]));
    let roll = roll_in(bob, &id);
    let (theirs, mine) = if roll <= 4 {
        ("Kxe5", "d4")
    } else {
        ("Dg8:Kxe5", "d3")
    };
    let synced = bob_plays(&homes, 7, &id, theirs);
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 5. {mine}")),
        "roll {roll}: {synced}"
    );
    let synced = ok(&bob.run("2026-11-08T10:00:00Z", &["sync"]));
    assert!(synced.contains(&format!("played 5. {mine}")), "{synced}");
    let other = if mine == "d4" { "d3" } else { "d4" };
    assert_never_mailed(&homes, &id, &[&format!("5. {other}")]);
}

/// How many of the shared folder's mails carry `text`.
fn mails_with(homes: &Homes, text: &str) -> usize {
    mails(homes)
        .iter()
        .filter(|(_, mail)| mail.contains(text))
        .count()
}

#[test]
fn a_pbem_killed_after_a_card_in_answer_mails_it_once_and_the_line_goes_on() {
    let (homes, id, white, black) = dealt_to_the_attempt("cond-cards-crash");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let lead = &white[0];
    let (card, next) = answer(&black, lead);
    ok(&bob.run(
        "2026-11-07T09:00:00Z",
        &["if", &id, &format!("4. Nxe5:w9_c{lead} {card} 4... {next}")],
    ));
    play(
        alice,
        "2026-11-07T10:00:00Z",
        &id,
        &format!("Nxe5:w9_c{lead}"),
    );
    let answered = format!("Nxe5:w9_c{lead}_c{card}");

    // Killed once the card is played, before its mail and before the turn after it.
    let (child, _flag) = bob.spawn_paused("2026-11-07T11:00:00Z", &["sync"], &[], "conditional");
    kill_9(child);
    assert!(
        main_line(bob, &id).ends_with(&answered),
        "{}",
        main_line(bob, &id)
    );
    assert_eq!(mails_with(&homes, &answered), 0);
    // The card completes the last turn (the number of turns stays): the next pbem still
    // knows it played and mails it, once; then the line goes on with Bob's turn after
    // it, though Bob acted last.
    let again = bob.run("2026-11-07T12:00:00Z", &["sync"]);
    assert!(
        text(&again.stderr)
            .contains("the conditional reply an interrupted pbem played waits in the outbox now"),
        "{}",
        text(&again.stderr)
    );
    let synced = ok(&again);
    assert!(!synced.contains(&format!("reply {card}")), "{synced}");
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 4... {next}")),
        "{synced}"
    );
    assert_eq!(mails_of_turn(&homes, &format!("4. {answered}")), 1);
    let third = ok(&bob.run("2026-11-07T13:00:00Z", &["sync"]));
    assert!(third.contains("the outbox is empty"), "{third}");
    assert!(!third.contains("played your"), "{third}");
    assert_eq!(mails_of_turn(&homes, &format!("4. {answered}")), 1);
    assert_eq!(mails_of_turn(&homes, &format!("4... {next}")), 1);
    ok(&alice.run("2026-11-07T14:00:00Z", &["sync"]));
    let whole = format!("{answered} {next}");
    assert!(
        main_line(alice, &id).ends_with(&whole),
        "{}",
        main_line(alice, &id)
    );
}

#[test]
fn lines_wait_for_the_opponent_s_card_and_show_it_due() {
    let (homes, id, white, black) = led_to_the_attempt("cond-cards-awaited");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let lead = &white[0];
    // Alice's attempt awaits Bob's card: her lines start with it (she guesses his hand).
    let (card, next) = answer(&black, lead);
    let alone = alice.run(
        "2026-11-07T10:00:00Z",
        &["if", &id, &format!("{card} 4... {next}")],
    );
    assert_eq!(alone.status.code(), Some(1), "{}", text(&alone.stderr));
    assert!(
        text(&alone.stderr).contains("has no reply of yours: write your opponent's card and next turn and your reply to it; nothing was added"),
        "{}",
        text(&alone.stderr)
    );
    let added = ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["if", &id, &format!("{card} 4... {next} 5. d4")],
    ));
    assert!(added.contains("1 conditional line added"), "{added}");
    // The list shows the card still due, in the turn it completes.
    assert!(
        added.contains(&format!("  4. Nxe5:w9_c{lead}_c{card} {next} 5. d4+\n")),
        "{added}"
    );
    ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    ok(&bob.run("2026-11-07T11:00:00Z", &["move", &id, &card]));
    play(bob, "2026-11-07T11:00:00Z", &id, next);
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 5. d4")),
        "{synced}"
    );
    ok(&bob.run("2026-11-07T13:00:00Z", &["sync"]));
    assert!(
        main_line(bob, &id).ends_with(&format!("_c{card} {next} d4+")),
        "{}",
        main_line(bob, &id)
    );
}

#[test]
fn lines_past_the_player_s_own_attempt_wait_for_its_roll() {
    use crate::support::homes::wickets_to_the_attempt;
    let (homes, id) = wickets_to_the_attempt("cond-dice-awaited", "dice");
    let (alice, bob) = (&homes.alice, &homes.bob);
    crate::fair_cards::through_a_shared_folder(&homes);
    play(alice, "2026-11-07T10:00:00Z", &id, "Nxe5:w9");
    // Alice's attempt awaits its roll: her lines go on on each roll's branch.
    let added = ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["if", &id, "4... Kxe5 5. d4", "4... Dg8:Kxe5 5. d3"],
    ));
    assert!(added.contains("6 conditional lines added"), "{added}");
    assert!(added.contains("  4. Nxe5:w9_r1 Kxe5 5. d4+\n"), "{added}");
    assert!(
        added.contains("  4. Nxe5:w9_r6 Dg8:Kxe5 5. d3\n"),
        "{added}"
    );
    let status = ok(&alice.run("2026-11-07T10:00:00Z", &["status"]));
    assert!(status.contains("6 conditional replies wait"), "{status}");
    ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    let roll = roll_in(bob, &id);
    let (theirs, mine) = if roll <= 4 {
        ("Kxe5", "d4")
    } else {
        ("Dg8:Kxe5", "d3")
    };
    play(bob, "2026-11-07T11:00:00Z", &id, theirs);
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 5. {mine}")),
        "roll {roll}: {synced}"
    );
    // She is told what her roll decided, though Bob's pbem drew it.
    assert!(
        synced.contains(&format!(
            "; in your 4. Nxe5:w9_r{roll}, the roll is {roll}: the attempt {}",
            if roll <= 4 { "fails" } else { "succeeds" }
        )),
        "roll {roll}: {synced}"
    );
    assert_eq!(roll_in(alice, &id), roll);
}

#[test]
fn a_book_from_a_start_where_black_moves_first() {
    let homes = homes("cond-black-first");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let book = homes.root.join("after-e4.pgn");
    std::fs::write(
        &book,
        format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1... e5 (1... c5 2. c3) 2. Nf3 *\n"),
    )
    .unwrap();
    // The book plays White, whose turns are the second, fourth... from this start: two
    // answers to Black's first turn are two branches, not two replies to one turn.
    let added = ok(&alice.run(
        "2026-11-01T09:00:00Z",
        &["book", "add", book.to_str().unwrap(), "--name", "e4"],
    ));
    assert!(
        added.contains("book e4: 2 conditional lines of Chess for White"),
        "{added}"
    );
    let id = homes.start("2026-11-01T09:00:00Z", &["--fen", fen]);
    ok(&alice.run("2026-11-01T09:00:00Z", &["send", &id]));
    ok(&bob.run("2026-11-01T10:00:00Z", &["sync"]));
    play(bob, "2026-11-01T10:00:00Z", &id, "c5");
    let synced = ok(&alice.run("2026-11-01T11:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!("{id}: played your book e4's reply 2. c3")),
        "{synced}"
    );
}

#[test]
fn a_tree_or_a_book_that_does_not_read_is_named_and_left_out() {
    let (homes, id) = after_e4("cond-unreadable");
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3"]));
    // A tree file that is not UTF-8 and a book that is not a book's YAML.
    let tree = tree_file(alice, &id);
    std::fs::write(&tree, b"lines: [\xff\xfe").unwrap();
    let books = alice.dir.join("games").join("books");
    std::fs::create_dir_all(&books).unwrap();
    std::fs::write(books.join("broken.yaml"), "lines: [").unwrap();
    let hint = format!(
        "{}: stream did not contain valid UTF-8 (`pbem if {id} --clear` drops the game's conditional lines); its lines are not played",
        tree.display()
    );
    // Every command still works, and says which file is left out and how to mend it.
    let status = alice.run("2026-11-01T10:30:00Z", &["status"]);
    assert!(ok(&status).contains(&id));
    assert!(
        text(&status.stderr).contains(&hint),
        "{}",
        text(&status.stderr)
    );
    ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
    play(bob, "2026-11-01T11:00:00Z", &id, "e5");
    let synced = alice.run("2026-11-01T12:00:00Z", &["sync"]);
    let said = ok(&synced);
    assert!(said.contains(&format!("changed: {id}")), "{said}");
    assert!(!said.contains("played your"), "{said}");
    assert!(
        said.contains("book broken is not used: ")
            && said.contains("(`pbem book remove broken`, then add it again)"),
        "{said}"
    );
    let listed = ok(&alice.run("2026-11-01T12:00:00Z", &["book", "list"]));
    assert!(listed.contains("broken: not used: "), "{listed}");
    // The mends named work without reading the files.
    let cleared = ok(&alice.run("2026-11-01T12:00:00Z", &["if", &id, "--clear"]));
    assert!(
        cleared.contains(&format!(
            "{id}: its conditional lines file, which did not read, is dropped"
        )),
        "{cleared}"
    );
    ok(&alice.run("2026-11-01T12:00:00Z", &["book", "remove", "broken"]));
    let status = alice.run("2026-11-01T12:00:00Z", &["status"]);
    ok(&status);
    assert!(
        !text(&status.stderr).contains("warning"),
        "{}",
        text(&status.stderr)
    );
    assert!(!tree.exists());
}

/// An opening book in the Cards modes: Bob's book for Black, from the start of a game of
/// the mode (its `[Decision]` tag), answers in two dealt games at once, played through the
/// shared folder from their start: a plain reply to White's turn in both; then to White's
/// lead in the first game its card, which Bob holds there, and his next turn once the
/// attempt is decided; to the lead in the second game a card of Alice's hand, which is
/// never played: Bob is told, and his card is awaited from his hand.
#[test]
fn a_book_answers_in_a_cards_game_with_a_card_only_from_the_hand() {
    for mode in ["Cards", "Cards II"] {
        a_book_answers_in_a_cards_game(mode);
    }
}

fn a_book_answers_in_a_cards_game(mode: &str) {
    let homes = homes(&format!("cond-book-{}", mode.replace(' ', "")));
    let (alice, bob) = (&homes.alice, &homes.bob);
    let cards = ["--variant", "wickets", "--decision", mode];
    let games = [
        homes.start("2026-11-01T09:00:00Z", &cards),
        homes.start("2026-11-01T09:00:01Z", &cards),
    ];
    // The deal rides in the first three mails: then each side reads its hand.
    for (day, (white, black)) in [("e4", "e5"), ("Ke2:f3", "Ke7")].into_iter().enumerate() {
        let now = format!("2026-11-0{}T10:00:00Z", day + 1);
        ok(&alice.run(&now, &["sync"]));
        for id in &games {
            play(alice, &now, id, white);
        }
        ok(&bob.run(&now, &["sync"]));
        for id in &games {
            play(bob, &now, id, black);
        }
    }
    let (first, second) = (&games[0], &games[1]);
    let hand = crate::fair_cards::hand;
    // In the first game Alice leads her first card and Bob's book answers from his hand;
    // in the second she leads another card, which the book answers with one of hers.
    let lead = &hand(alice, first)[0];
    let (card, next) = answer(&hand(bob, first), lead);
    // A failing first pair decides nothing yet in Cards II: the thrower's choice comes
    // before Bob's turn, so there the line stops at the card.
    let next = (mode == "Cards" || next == "Dg8:Kxe5").then_some(next);
    let second_white = hand(alice, second);
    let mut others = second_white.iter().filter(|other| *other != lead);
    let (other_lead, theirs) = (others.next().unwrap(), others.next().unwrap());
    // The turn as it would be written had the card been played (the card alone could
    // be part of another card, D1 of D10, or of the deal's base64).
    let never = format!("Nxe5:w9_c{other_lead}_c{theirs}");
    // The mode comes from the file's `[Decision]` tag, or (Cards II) from `--decision`.
    let (tag, option) = if mode == "Cards" {
        (format!("[Decision \"{mode}\"]\n\n"), None)
    } else {
        (String::new(), Some(["--decision", "cards2"]))
    };
    let book = homes.root.join("wickets-cards.pgn");
    std::fs::write(
        &book,
        format!(
            "{tag}1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6 \
             4. Nxe5:w9_c{lead}_c{card} (4. Nxe5:w9_c{other_lead}_c{theirs}) {} *\n",
            next.map_or(String::new(), |next| format!("4... {next}"))
        ),
    )
    .unwrap();
    let args: Vec<&str> = [
        "book",
        "add",
        book.to_str().unwrap(),
        "--variant",
        "wickets",
        "--as",
        "black",
    ]
    .into_iter()
    .chain(option.into_iter().flatten())
    .collect();
    let added = ok(&bob.run("2026-11-03T11:00:00Z", &args));
    assert!(
        added.contains(&format!(
            "book wickets-cards: 2 conditional lines of Chess with wickets ({mode}) for Black"
        )),
        "{added}"
    );

    // A plain reply to White's turn, in both games.
    ok(&alice.run("2026-11-04T10:00:00Z", &["sync"]));
    for id in &games {
        play(alice, "2026-11-04T10:00:00Z", id, "Nxf3");
    }
    let synced = ok(&bob.run("2026-11-04T11:00:00Z", &["sync"]));
    let replies: Vec<String> = games
        .iter()
        .map(|id| format!("{id}: played your book wickets-cards's reply 3... Kd6"))
        .collect();
    assert_says(&synced, &replies);

    // The leads: the card Bob holds is played, then his turn; the one he does not hold
    // never is.
    ok(&alice.run("2026-11-05T10:00:00Z", &["sync"]));
    for (id, lead) in [(first, lead), (second, other_lead)] {
        play(
            alice,
            "2026-11-05T10:00:00Z",
            id,
            &format!("Nxe5:w9_c{lead}"),
        );
    }
    let synced = ok(&bob.run("2026-11-05T11:00:00Z", &["sync"]));
    let answered = format!("Nxe5:w9_c{lead}_c{card}");
    let mut said = vec![
        format!("{first}: played your book wickets-cards's reply {card} in 4. {answered}"),
        format!(
            "{second}: your book wickets-cards's reply {theirs} is not legal now and was not played"
        ),
        format!("you do not hold {theirs}"),
        format!("your card is awaited: pbem move {second} CARD"),
    ];
    said.extend(
        next.map(|next| format!("{first}: played your book wickets-cards's reply 4... {next}")),
    );
    assert_says(&synced, &said);
    assert!(!synced.contains(&format!("{second}: played")), "{synced}");
    if next.is_none() {
        assert!(!synced.contains("4... "), "{synced}");
    }
    let record = std::fs::read_to_string(game_path(bob, second)).unwrap();
    assert!(
        record.contains(&format!("Nxe5:w9_c{other_lead} ")),
        "{record}"
    );
    assert!(!record.contains(&never), "{record}");
    // Nor on a later sync, which does not tell it again; his card is awaited from his
    // hand.
    let again = ok(&bob.run("2026-11-05T11:30:00Z", &["sync"]));
    assert!(!again.contains("played your"), "{again}");
    assert!(!again.contains("not legal now"), "{again}");
    let legal = bob.run("2026-11-05T11:30:00Z", &["legal", second]);
    assert!(
        text(&legal.stderr).contains("from your hand"),
        "{}",
        text(&legal.stderr)
    );
    let listed: Vec<String> = text(&legal.stdout).lines().map(str::to_owned).collect();
    let held = hand(bob, second);
    assert!(
        !listed.is_empty() && listed.iter().all(|card| held.contains(card)),
        "{listed:?} {held:?}"
    );
    ok(&alice.run("2026-11-05T12:00:00Z", &["sync"]));
    let line = format!("e4 e5 Ke2:f3 Ke7 Nxf3 Kd6 {answered}");
    for player in [alice, bob] {
        assert_eq!(
            main_line(player, first),
            next.map_or(line.clone(), |next| format!("{line} {next}"))
        );
    }
    for id in &games {
        assert_never_mailed(&homes, id, &["wickets-cards", &never]);
    }
}

/// Bob takes in what waits for him on day `day` of November and plays `turn` offering a
/// draw; then Alice, an hour later, runs `pbem sync`: returns what it said.
fn bob_offers(homes: &Homes, day: u32, id: &str, turn: &str) -> String {
    let now = format!("2026-11-{day:02}T10:00:00Z");
    ok(&homes.bob.run(&now, &["sync"]));
    ok(&homes.bob.run(&now, &["move", id, turn, "--offer-draw"]));
    ok(&homes.bob.run(&now, &["send", id]));
    ok(&homes
        .alice
        .run(&format!("2026-11-{day:02}T11:00:00Z"), &["sync"]))
}

#[test]
fn a_draw_offer_holds_the_reply_back_and_the_line_stays() {
    let (homes, id) = after_e4("cond-offer");
    let alice = &homes.alice;
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "e5 Nf3 Nc6 Bb5"]));
    // A reply would decline the offer unseen: it waits, and Alice is told once.
    let synced = bob_offers(&homes, 2, &id, "e5");
    assert!(
        synced.contains(&format!(
            "{id}: Black offers a draw, so your conditional reply 2. Nf3 was not played: `pbem draw accept {id}` accepts the draw, `pbem move {id} Nf3` plays on"
        )),
        "{synced}"
    );
    assert!(!synced.contains("played your"), "{synced}");
    let again = ok(&alice.run("2026-11-02T12:00:00Z", &["sync"]));
    assert!(!again.contains("offers a draw, so"), "{again}");
    assert!(!again.contains("played your"), "{again}");
    assert_eq!(main_line(alice, &id), "e4 e5");
    // She plays on by hand (declining); the rest of the line still answers for her.
    play(alice, "2026-11-02T12:00:00Z", &id, "Nf3");
    let synced = bob_plays(&homes, 3, &id, "Nc6");
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 3. Bb5")),
        "{synced}"
    );
}

#[test]
fn a_conditional_mate_ends_the_game_and_owes_no_mail() {
    let (homes, id) = after_e4("cond-mate");
    let alice = &homes.alice;
    ok(&alice.run(
        "2026-11-01T10:00:00Z",
        &["if", &id, "1... e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#"],
    ));
    for (day, turn) in [(2, "e5"), (3, "Nc6")] {
        bob_plays(&homes, day, &id, turn);
    }
    let synced = bob_plays(&homes, 4, &id, "Nf6");
    assert!(
        synced.contains(&format!(
            "{id}: played your conditional reply 4. Qxf7#, game over: 1-0"
        )),
        "{synced}"
    );
    let status = ok(&alice.run("2026-11-04T12:00:00Z", &["status", "--all"]));
    assert!(status.contains(&id), "{status}");
    assert!(
        !status.contains("your last mail is not sent yet"),
        "{status}"
    );
}

#[test]
fn a_line_typed_from_the_game_s_start_or_with_a_wrong_number() {
    let (homes, id) = after_e4("cond-numbers");
    let alice = &homes.alice;
    bob_plays(&homes, 2, &id, "e5");
    play(alice, "2026-11-02T12:00:00Z", &id, "Nf3");
    // The game is at 2... (Black's turn): a line that starts at 3. says so.
    let wrong = alice.run("2026-11-02T12:00:00Z", &["if", &id, "3. Bb5 a6"]);
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong.stderr));
    assert!(
        text(&wrong.stderr).contains(&format!(
            "{id}: the line \"3. Bb5 a6\" starts at 3. (White's turn), but the game's next turn is 2... (Black's turn), your opponent's"
        )),
        "{}",
        text(&wrong.stderr)
    );
    // From the game's start, with its turns, and with the marks a phone or a book adds.
    let added = ok(&alice.run(
        "2026-11-02T12:00:00Z",
        &[
            "if",
            &id,
            "1. e4 e5 2. Nf3 Nc6 3. Bb5",
            "2\u{2026} Nf6! 3 Nxe5?!",
        ],
    ));
    assert!(added.contains("2 conditional lines added"), "{added}");
    assert!(added.contains("  2... Nc6 3. Bb5\n"), "{added}");
    assert!(added.contains("  2... Nf6 3. Nxe5\n"), "{added}");
}

#[test]
fn books_that_disagree_or_replace_are_named() {
    let homes = homes("cond-books-named");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let write = |name: &str, text: &str| {
        let path = homes.root.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    // A White repertoire with two first moves: branches, since a book never plays the
    // first move.
    let two = write("two.pgn", "1. e4 (1. d4 d5 2. c4) 1... e5 2. Nf3 *\n");
    let added = ok(&alice.run("2026-11-01T09:00:00Z", &["book", "add", &two]));
    assert!(
        added.contains("book two: 2 conditional lines of Chess for White"),
        "{added}"
    );
    // A Black repertoire added without --as: the message numbers the turns and hints.
    let sicilian = write("sicilian.pgn", "1. e4 c5 2. Nf3 (2. c3 Nf6) 2... d6 *\n");
    let refused = bob.run("2026-11-01T09:00:00Z", &["book", "add", &sicilian]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains(
            "plays 2. Nf3 where an earlier line plays 2. c3 (a book gives one reply to each turn) (if the book is Black's, add `--as black`); no book was added"
        ),
        "{}",
        text(&refused.stderr)
    );
    let black = ["--as", "black", "--name"];
    let zeta = [&["book", "add", &sicilian][..], &black, &["zeta"]].concat();
    ok(&bob.run("2026-11-01T09:00:00Z", &zeta));
    let open = write("open.pgn", "1. e4 e5 *\n");
    let alpha = [&["book", "add", &open][..], &black, &["alpha"]].concat();
    let added = ok(&bob.run("2026-11-01T09:00:00Z", &alpha));
    assert!(
        added.contains(
            "warning: book alpha plays 1... e5 where book zeta plays 1... c5: in a game that follows both, book alpha answers"
        ),
        "{added}"
    );
    let again = ok(&bob.run("2026-11-01T09:00:00Z", &alpha));
    assert!(
        again.contains("; it replaces the book of that name"),
        "{again}"
    );
    // In a game, `pbem if` names the books that answer there: Alice's after her 1. e4.
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    play(alice, "2026-11-01T10:00:00Z", &id, "e4");
    let listed = ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id]));
    assert!(
        listed.contains(&format!(
            "{id}: book two gives replies here too, while the game follows it"
        )),
        "{listed}"
    );
    // Bob's books both follow 1. e4; the first by name answers.
    let synced = ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!("{id}: played your book alpha's reply 1... e5")),
        "{synced}"
    );
}

#[test]
fn one_line_is_dropped_and_a_conflict_names_the_drop() {
    let (homes, id) = after_e4("cond-drop-one");
    let alice = &homes.alice;
    let now = "2026-11-01T10:00:00Z";
    ok(&alice.run(
        now,
        &["if", &id, "1... e5 2. Nf3 Nc6 3. Bb5", "1... c5 2. Nf3"],
    ));
    // Another reply to a turn a stored line answers: the message names the command that
    // drops that line alone.
    let other = alice.run(now, &["if", &id, "1... e5 2. Nf3 Nc6 3. Bc4"]);
    assert_eq!(other.status.code(), Some(1), "{}", text(&other.stderr));
    let drop = "1... e5 2. Nf3 Nc6 3. Bb5";
    assert!(
        text(&other.stderr).contains(&format!(
            "answers with 3. Bc4 where your lines answer with Bb5 (one reply to each turn): `pbem if {id}` lists them, `pbem if {id} --drop \"{drop}\"` drops the lines that answer so (then add yours); nothing was added"
        )),
        "{}",
        text(&other.stderr)
    );
    let dropped = ok(&alice.run(now, &["if", &id, "--drop", drop]));
    assert!(
        dropped.contains(&format!("{id}: 1 conditional line dropped")),
        "{dropped}"
    );
    assert!(dropped.contains("  1... c5 2. Nf3\n"), "{dropped}");
    assert!(!dropped.contains("Bb5"), "{dropped}");
    let added = ok(&alice.run(now, &["if", &id, "1... e5 2. Nf3 Nc6 3. Bc4"]));
    assert!(added.contains("1 conditional line added"), "{added}");
    // A turn no line goes through drops nothing and says so.
    let none = alice.run(now, &["if", &id, "--drop", "1... d5"]);
    assert_eq!(none.status.code(), Some(1), "{}", text(&none.stderr));
    assert!(
        text(&none.stderr).contains(&format!(
            "{id}: no conditional line goes through \"1... d5\" (`pbem if {id}` lists them); nothing was dropped"
        )),
        "{}",
        text(&none.stderr)
    );
    // Two lines of one command that answer one turn two ways: nothing was stored, so
    // the message names the other line of the command.
    let both = alice.run(now, &["if", &id, "1... d5 2. exd5", "1... d5 2. Nc3"]);
    assert_eq!(both.status.code(), Some(1), "{}", text(&both.stderr));
    assert!(
        text(&both.stderr).contains(
            "answers with 2. Nc3 where another line of this command answers with exd5 (one reply to each turn); nothing was added"
        ),
        "{}",
        text(&both.stderr)
    );
    // Dropping a branch keeps the rest of the tree: the turn the two lines share.
    let dropped = ok(&alice.run(now, &["if", &id, "--drop", "1... e5"]));
    assert!(
        dropped.contains(&format!("{id}: 1 conditional line dropped")),
        "{dropped}"
    );
    let listed = ok(&alice.run(now, &["if", &id]));
    assert_eq!(
        listed,
        format!("{id}: your conditional lines, as White:\n  1... c5 2. Nf3\n")
    );
}

#[test]
fn a_card_the_hand_does_not_hold_is_refused_when_added() {
    let (homes, id, white, black) = dealt_to_the_attempt("cond-cards-refused");
    let bob = &homes.bob;
    let now = "2026-11-07T09:00:00Z";
    let refused = |line: String, says: &[String]| {
        let out = bob.run(now, &["if", &id, &line]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_says(&text(&out.stderr), says);
        assert!(!tree_file(bob, &id).exists());
    };
    // A card of Alice's hand, which Bob cannot hold: no card of his is played before
    // it, so it would have to be in the hand he holds now.
    let (lead, theirs) = (&white[0], &white[1]);
    let mut says = vec![
        format!("plays {theirs} in 4. Nxe5:w9_c{lead}_c{theirs}, which is not in your hand ("),
        format!("(`pbem legal {id}` shows your hand); nothing was added"),
    ];
    says.extend(black.iter().cloned());
    refused(format!("4. Nxe5:w9_c{lead} {theirs}"), &says);
    // A card he holds of another suit than a lead whose suit he holds: he must follow.
    let suit = |card: &String| card[..1].to_owned();
    let (lead, off) = white
        .iter()
        .find_map(|lead| {
            let follows = black.iter().any(|card| suit(card) == suit(lead));
            let off = black.iter().find(|card| suit(card) != suit(lead));
            follows.then_some(off).flatten().map(|off| (lead, off))
        })
        .expect("a lead whose suit Bob holds, and a card of his of another suit");
    refused(
        format!("4. Nxe5:w9_c{lead} {off}"),
        &[
            format!("plays {off} in 4. Nxe5:w9_c{lead}_c{off}, but your hand ("),
            format!(") holds {lead}'s suit, which you must follow"),
        ],
    );
    // The card he may play is taken.
    let (card, next) = answer(&black, lead);
    let added = ok(&bob.run(
        now,
        &["if", &id, &format!("4. Nxe5:w9_c{lead} {card} 4... {next}")],
    ));
    assert!(added.contains("1 conditional line added"), "{added}");
}

#[test]
fn dropped_lines_are_told_the_card_that_parted_from_them() {
    let (homes, id, white, black) = led_to_the_attempt("cond-cards-parted");
    let (alice, bob) = (&homes.alice, &homes.bob);
    let lead = &white[0];
    // Alice expects a card Bob cannot hold (one of her own), and his turn after it.
    let (card, next) = answer(&black, lead);
    let expected = white[1..]
        .iter()
        .find(|other| value(other) != value(lead))
        .unwrap();
    let after = if value(lead) > value(expected) + 2.5 {
        "Dg8:Kxe5"
    } else {
        "Kxe5"
    };
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["if", &id, &format!("{expected} 4... {after} 5. d4")],
    ));
    ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    play(bob, "2026-11-07T11:00:00Z", &id, &card);
    // The line parted from the game at Bob's card: Alice is told when it arrives, though
    // Bob's turn after it is still to come.
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!(
            "{id}: 1 conditional line no longer matches the game and is dropped (in 4. Nxe5:w9_c{lead} Black answered {card} where they expected {expected})\n"
        )),
        "{synced}"
    );
    assert!(!tree_file(alice, &id).exists());
    play(bob, "2026-11-07T13:00:00Z", &id, next);
    let synced = ok(&alice.run("2026-11-07T14:00:00Z", &["sync"]));
    assert!(!synced.contains("conditional"), "{synced}");
}

#[test]
fn dropped_lines_are_told_the_roll_that_parted_from_them() {
    use crate::support::homes::wickets_to_the_attempt;
    let (homes, id) = wickets_to_the_attempt("cond-dice-parted", "dice");
    let (alice, bob) = (&homes.alice, &homes.bob);
    crate::fair_cards::through_a_shared_folder(&homes);
    play(alice, "2026-11-07T10:00:00Z", &id, "Nxe5:w9");
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["if", &id, "4... Kxe5 5. d4", "4... Dg8:Kxe5 5. d3"],
    ));
    ok(&bob.run("2026-11-07T11:00:00Z", &["sync"]));
    let roll = roll_in(bob, &id);
    play(
        bob,
        "2026-11-07T11:00:00Z",
        &id,
        if roll <= 4 { "Kxe5" } else { "Dg8:Kxe5" },
    );
    // The five other rolls' lines parted from the game at the roll of her attempt.
    let others: Vec<String> = (1..=6)
        .filter(|other| *other != roll)
        .map(|other| other.to_string())
        .collect();
    let synced = ok(&alice.run("2026-11-07T12:00:00Z", &["sync"]));
    assert!(
        synced.contains(&format!(
            "{id}: 5 conditional lines no longer match the game and are dropped (in 4. Nxe5:w9 the roll was {roll} where they expected {} or {})\n",
            others[..4].join(", "),
            others[4]
        )),
        "{synced}"
    );
}

#[test]
fn a_trailing_turn_a_result_word_and_a_file_for_another_game() {
    let (homes, id) = after_e4("cond-consistent");
    let alice = &homes.alice;
    let now = "2026-11-01T10:00:00Z";
    // A result word is skipped, as `pbem if --help` says: the rules end the game.
    let help = ok(&alice.run(now, &["if", "--help"]));
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "Result words (`1-0`, `0-1`, `1/2-1/2`, `*`) are skipped: the rules say how a game ends."
        ),
        "{help}"
    );
    let mate = ok(&alice.run(
        now,
        &["if", &id, "1... e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1"],
    ));
    assert!(
        mate.contains("  1... e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#\n"),
        "{mate}"
    );
    ok(&alice.run(now, &["if", &id, "--clear"]));
    // A line ending with Bob's turn is kept up to Alice's last reply, and said so.
    let added = ok(&alice.run(now, &["if", &id, "1... e5 2. Nf3 Nc6"]));
    assert!(
        added.contains(&format!(
            "{id}: the line \"1... e5 2. Nf3 Nc6\" ends with your opponent's turn, which has no reply of yours: kept up to your last reply\n"
        )),
        "{added}"
    );
    assert!(
        added.ends_with(&format!(
            "{id}: your conditional lines, as White:\n  1... e5 2. Nf3\n"
        )),
        "{added}"
    );
    // A tree file for another game is refused, naming its tag and the game's.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let other = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
    for (tags, says) in [
        (
            format!("[FEN \"{other}\"]"),
            format!(
                "its [FEN \"{other}\"] is neither the game's start, \"{start}\", nor its position now, \"{after_e4}\": the file is for another game; nothing was added"
            ),
        ),
        (
            "[Variant \"Chess with wickets\"]".to_owned(),
            "its [Variant \"Chess with wickets\"] is not the game's, Chess: the file is for another game; nothing was added".to_owned(),
        ),
    ] {
        let file = homes.root.join("other.pgn");
        std::fs::write(&file, format!("{tags}\n\n1... c5 2. Nf3 *\n")).unwrap();
        let refused = alice.run(now, &["if", &id, "--file", file.to_str().unwrap()]);
        assert_eq!(refused.status.code(), Some(1), "{}", text(&refused.stderr));
        assert!(text(&refused.stderr).contains(&says), "{}", text(&refused.stderr));
    }
    // One from the game's position now (or its start) is taken.
    let file = homes.root.join("now.pgn");
    let without_e3 = after_e4.replace(" e3 ", " - ");
    std::fs::write(
        &file,
        format!("[FEN \"{without_e3}\"]\n\n1... c5 2. Nf3 *\n"),
    )
    .unwrap();
    let taken = ok(&alice.run(now, &["if", &id, "--file", file.to_str().unwrap()]));
    assert!(taken.contains("1 conditional line added"), "{taken}");
    assert!(taken.contains("  1... c5 2. Nf3\n"), "{taken}");
}

#[test]
fn on_a_finished_game_the_lines_are_dropped_and_none_added() {
    let (homes, id) = after_e4("cond-over");
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-01T10:00:00Z", &["if", &id, "1... e5 2. Nf3"]));
    ok(&bob.run("2026-11-01T11:00:00Z", &["sync"]));
    ok(&bob.run("2026-11-01T11:00:00Z", &["resign", &id]));
    ok(&bob.run("2026-11-01T11:00:00Z", &["send", &id]));
    ok(&alice.run("2026-11-01T12:00:00Z", &["sync"]));
    // The line is stale: listing says the game is over and drops it.
    let listed = ok(&alice.run("2026-11-01T12:00:00Z", &["if", &id]));
    assert_eq!(
        listed,
        format!(
            "{id}: the game is over (1-0); its 1 conditional line dropped: no conditional lines are kept\n"
        )
    );
    assert!(!tree_file(alice, &id).exists());
    let again = ok(&alice.run("2026-11-01T12:00:00Z", &["if", &id]));
    assert_eq!(
        again,
        format!("{id}: the game is over (1-0): no conditional lines are kept\n")
    );
    // Nothing suggests adding a line, and adding one says why it cannot be.
    let added = alice.run("2026-11-01T12:00:00Z", &["if", &id, "1... e5 2. Nf3"]);
    assert_eq!(added.status.code(), Some(2), "{}", text(&added.stderr));
    assert!(
        text(&added.stderr).contains(&format!(
            "{id}: the game is over (1-0): no conditional lines can be added or dropped"
        )),
        "{}",
        text(&added.stderr)
    );
    assert!(!tree_file(alice, &id).exists());
}
