//! Players' homes for tests that play by mail: a folder per player with a config file,
//! pbem run with that config and an injected clock (`PBEM_NOW`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One player's home: a folder with their config file.
pub struct Player {
    pub dir: PathBuf,
}

impl Player {
    pub fn config(&self) -> PathBuf {
        self.dir.join("config.yaml")
    }

    /// Runs pbem with this player's config at the given instant.
    pub fn run(&self, now: &str, args: &[&str]) -> Output {
        self.run_with(now, args, &[])
    }

    /// Runs pbem with `input` on its standard input.
    pub fn run_with_stdin(&self, now: &str, args: &[&str], input: &[u8]) -> Output {
        use std::io::Write;
        let mut child = self
            .command(now, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pbem runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("input written");
        child.wait_with_output().expect("pbem ends")
    }

    pub fn run_with(&self, now: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = self.command(now, args);
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("pbem runs")
    }

    /// pbem with this player's config at the given instant, not started yet.
    pub fn command(&self, now: &str, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pbem"));
        command
            .arg("--config")
            .arg(self.config())
            .args(args)
            .env("PBEM_NOW", now)
            .env_remove("PBEM_CONFIG");
        command
    }

    /// pbem with this player's config and `env`, started in the background with the pause
    /// hook set at `point`; returns once it has reached the point (it then waits there
    /// until the returned file is removed).
    pub fn spawn_paused(
        &self,
        now: &str,
        args: &[&str],
        env: &[(&str, &str)],
        point: &str,
    ) -> (Child, PathBuf) {
        let flag = self.dir.join(format!("paused-{point}"));
        let mut command = self.command(now, args);
        for (name, value) in env {
            command.env(name, value);
        }
        (spawn_command_paused(command, point, &flag), flag)
    }

    /// Sets the player's config to `sections` (smtp, imap) after the player part.
    pub fn set_sections(&self, sections: &str) {
        let config = std::fs::read_to_string(self.config()).unwrap();
        let kept: String = config
            .lines()
            .take_while(|line| !line.starts_with("smtp:") && !line.starts_with("imap:"))
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(self.config(), format!("{kept}{sections}")).unwrap();
    }
}

/// `command` (a pbem) started in the background with the pause hook set at `point` and
/// signalling through the file `flag`; returns once it has reached the point (it then
/// waits there until `flag` is removed).
pub fn spawn_command_paused(mut command: Command, point: &str, flag: &Path) -> Child {
    let _ = std::fs::remove_file(flag);
    let mut child = command
        .env("PBEM_PAUSE_AT", point)
        .env("PBEM_PAUSE_FILE", flag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pbem runs");
    let until = Instant::now() + Duration::from_secs(60);
    while !flag.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            panic!(
                "pbem {:?} ended ({status}) before reaching {point}: {}{}",
                command.get_args().collect::<Vec<_>>(),
                text(&output.stdout),
                text(&output.stderr)
            );
        }
        assert!(Instant::now() < until, "pbem never reached {point}");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// Kills a paused pbem with SIGKILL (what `kill -9` sends).
pub fn kill_9(mut child: Child) {
    child.kill().unwrap();
    let status = child.wait().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "{status}");
    }
}

/// Two homes in a scratch folder, removed on drop.
pub struct Homes {
    pub root: PathBuf,
    pub alice: Player,
    pub bob: Player,
}

impl Homes {
    pub fn new(name: &str, smtp: &str) -> Homes {
        let root = std::env::temp_dir().join(format!("pbem-homes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let make = |who: &str| {
            let dir = root.join(who);
            std::fs::create_dir_all(&dir).unwrap();
            let email = format!("{who}@example.org");
            let name = format!("{}{}", who[..1].to_uppercase(), &who[1..]);
            std::fs::write(
                dir.join("config.yaml"),
                format!("player:\n  name: {name}\n  email: {email}\n{smtp}"),
            )
            .unwrap();
            Player { dir }
        };
        Homes {
            alice: make("alice"),
            bob: make("bob"),
            root,
        }
    }

    /// Who moves at ply `ply` (0 is White's first, Alice's) and the other.
    pub fn mover_and_other(&self, ply: usize) -> (&Player, &Player) {
        if ply.is_multiple_of(2) {
            (&self.alice, &self.bob)
        } else {
            (&self.bob, &self.alice)
        }
    }

    /// Alice runs `pbem new` with White Alice and Black Bob ([`ALICE_AND_BOB`]) and
    /// `extra`; returns the run, whatever it gave.
    pub fn run_new(&self, now: &str, extra: &[&str]) -> Output {
        let args = [&["new"][..], &ALICE_AND_BOB, extra].concat();
        self.alice.run(now, &args)
    }

    /// Alice starts a game against Bob; returns its id.
    pub fn start(&self, now: &str, extra: &[&str]) -> String {
        let output = self.run_new(now, extra);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let path = PathBuf::from(text(&output.stdout).trim());
        assert!(path.is_file(), "{}", path.display());
        path.file_stem().unwrap().to_str().unwrap().to_owned()
    }
}

/// The options of `pbem new` that make Alice White and Bob Black.
pub const ALICE_AND_BOB: [&str; 8] = [
    "--white",
    "Alice",
    "--white-email",
    "alice@example.org",
    "--black",
    "Bob",
    "--black-email",
    "bob@example.org",
];

/// The six plies after which White may attempt to score in Wickets (4. Nxe5:w9).
pub const TO_THE_ATTEMPT: [&str; 6] = ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"];

/// Black's reply to White's attempt 4. Nxe5:w9 (after [`TO_THE_ATTEMPT`]) in the Dice
/// modes, by its roll: the King takes the Knight after a failure (1 to 4), and after a
/// success (5 or 6, his Defender sees the wicket) he first names the g8 Knight his new
/// Defender.
pub fn reply_to_the_roll(roll: u8) -> &'static str {
    if roll <= 4 { "Kxe5" } else { "Dg8:Kxe5" }
}

/// Black's conditional lines for White's attempt in the Dice modes, one for each roll
/// with its reply ([`reply_to_the_roll`]): `4. Nxe5:w9_r1 Kxe5` ... `4. Nxe5:w9_r6
/// Dg8:Kxe5`.
pub fn lines_for_each_roll() -> Vec<String> {
    (1..=6)
        .map(|roll| format!("4. Nxe5:w9_r{roll} {}", reply_to_the_roll(roll)))
        .collect()
}

/// The attempt with each roll but `roll` (`Nxe5:w9_r1` ...): the branches of the other
/// rolls, which must never leave their player's home.
pub fn other_rolls(roll: u8) -> Vec<String> {
    (1..=6)
        .filter(|other| *other != roll)
        .map(|other| format!("Nxe5:w9_r{other}"))
        .collect()
}

/// The roll `player`'s copy of game `id` has for the attempt `Nxe5:w9`.
pub fn roll_in(player: &Player, id: &str) -> u8 {
    let record = std::fs::read_to_string(game_path(player, id)).unwrap();
    record
        .split_whitespace()
        .find_map(|word| word.strip_prefix("Nxe5:w9_r"))
        .and_then(|rest| rest[..1].parse().ok())
        .unwrap_or_else(|| panic!("{record}"))
}

/// The roll Bob's pbem drew for White's attempt in game `id`, and Black's reply to it:
/// asserts that Bob's run that took the attempt in, which said `synced`, played that reply
/// from his lines for each roll ([`lines_for_each_roll`]) and dropped the other five.
pub fn assert_the_roll_s_reply_played(bob: &Player, id: &str, synced: &str) -> (u8, &'static str) {
    let roll = roll_in(bob, id);
    let reply = reply_to_the_roll(roll);
    assert!(
        synced.contains(&format!("{id}: played your conditional reply 4... {reply}")),
        "roll {roll}: {synced}"
    );
    assert!(
        synced.contains("5 conditional lines no longer match"),
        "{synced}"
    );
    (roll, reply)
}

/// Each player's copy of game `id` validates (exit 0) saying `says` (as `; chance proven
/// fair (`), and the two copies are the same.
pub fn assert_proven_fair_on_both_sides(homes: &Homes, id: &str, says: &str) {
    for player in [&homes.alice, &homes.bob] {
        let out = validate(&game_path(player, id));
        let said = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(said.contains(says), "{said}");
    }
    assert_eq!(
        std::fs::read_to_string(game_path(&homes.alice, id)).unwrap(),
        std::fs::read_to_string(game_path(&homes.bob, id)).unwrap()
    );
}

/// Plays ply `ply` (0 is White's first) of game `id` by Maildir: its mover moves `token`
/// on day `ply + 1` and mails it to the other's Maildir, who takes it in. Returns the
/// mover and the other.
pub fn play_by_maildir<'a>(
    homes: &'a Homes,
    id: &str,
    ply: usize,
    token: &str,
) -> (&'a Player, &'a Player) {
    let now = format!("2026-11-0{}T10:00:00Z", ply + 1);
    let (from, to) = homes.mover_and_other(ply);
    ok(&from.run(&now, &["move", id, token]));
    post(from, to, &now, id, &format!("m{ply}"));
    (from, to)
}

/// A Wickets game with the decision mode `decision` started by Alice and played by
/// Maildir up to White's scoring attempt ([`TO_THE_ATTEMPT`]); returns the homes and the id.
pub fn wickets_to_the_attempt(name: &str, decision: &str) -> (Homes, String) {
    let homes = Homes::new(name, "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", decision],
    );
    for (ply, token) in TO_THE_ATTEMPT.iter().enumerate() {
        play_by_maildir(&homes, &id, ply, token);
    }
    (homes, id)
}

/// A Chess with wickets game in the Cards mode played through the homes' shared folder
/// (each turn sent, then taken in by the other's `pbem sync`) to White's scoring attempt
/// at ply 9, which Bob answers with a card (ply 9) and then his next turn (ply 10), both
/// sent in the same second: two mails for Alice that she has not taken in. Returns the
/// game's id and Bob's turn.
pub fn two_mails_in_one_second(homes: &Homes) -> (String, String) {
    let (alice, bob) = (&homes.alice, &homes.bob);
    let play = |player: &Player, now: &str, id: &str, turn: &str| {
        ok(&player.run(now, &["move", id, turn]));
        ok(&player.run(now, &["send", id]))
    };
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Cards"],
    );
    // Two turns before the six to the attempt make it ply 9.
    for (ply, token) in ["a3", "a6"].iter().chain(&TO_THE_ATTEMPT).enumerate() {
        let (mover, other) = homes.mover_and_other(ply);
        let now = format!("2026-11-0{}T10:00:00Z", ply + 1);
        play(mover, &now, &id, token);
        ok(&other.run(&now, &["sync"]));
    }
    // Alice attempts to score, leading a card of her hand.
    let lead = first_card(&ok(&alice.run("2026-11-10T10:00:00Z", &["show", &id])));
    play(
        alice,
        "2026-11-10T10:00:00Z",
        &id,
        &format!("Nxe5:w9_c{lead}"),
    );
    ok(&bob.run("2026-11-10T11:00:00Z", &["sync"]));
    // Bob answers with a card of another value (no tie: the attempt is decided), and
    // plays his next turn in the same second.
    let now = "2026-11-10T12:00:00Z";
    let legal = ok(&bob.run(now, &["legal", &id]));
    let card = legal
        .lines()
        .find(|card| *card != "-" && card[1..] != lead[1..])
        .unwrap_or_else(|| panic!("{legal}"))
        .to_owned();
    let sent = play(bob, now, &id, &card);
    assert!(sent.contains(&format!("{id} (ply 9)")), "{sent}");
    let legal = ok(&bob.run(now, &["legal", &id]));
    let reply = legal
        .lines()
        .next()
        .unwrap_or_else(|| panic!("{legal}"))
        .to_owned();
    let sent = play(bob, now, &id, &reply);
    assert!(sent.contains(&format!("{id} (ply 10)")), "{sent}");
    (id, reply)
}

/// The first card of the hand `pbem show` printed (its `your hand: ` line).
pub fn first_card(shown: &str) -> String {
    shown
        .lines()
        .find_map(|line| line.strip_prefix("your hand: "))
        .and_then(|hand| hand.split_whitespace().next())
        .unwrap_or_else(|| panic!("{shown}"))
        .to_owned()
}

/// Asserts that what Alice's pbem said on taking in the two mails of
/// [`two_mails_in_one_second`] tells what the cards decided, then Bob's turn `reply`, and
/// calls neither an older mail.
pub fn assert_taken_in_by_ply(taken: &str, reply: &str) {
    assert!(!taken.contains("older mail"), "{taken}");
    let decided = taken
        .find("the attempt")
        .unwrap_or_else(|| panic!("{taken}"));
    let played = taken
        .find(&format!("played 5... {reply}"))
        .unwrap_or_else(|| panic!("{taken}"));
    assert!(decided < played, "{taken}");
}

/// A Chess with wickets game in the Cards mode `mode` (`cards` or `cards2`, cards by
/// hand) started by Alice one throw from a scoring attempt on w9, with nineteen cards
/// discarded so that the twenty-first card played is the reshuffle; returns its id.
pub fn start_before_the_reshuffle(homes: &Homes, mode: &str) -> String {
    let fen = format!(
        "7k/7p/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 \
         {mode}/C1C2C3C4C5C6C7C8C9C10D1D2D3D4D5D6D7D8D9 0 1"
    );
    homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--fen", &fen, "--cards-by-hand"],
    )
}

/// Asserts that `pbem show GAME` by `player` at `now` shows the position after the
/// attempt of [`start_before_the_reshuffle`] was decided by H5 S5 H9 S2 and Black's
/// Defender moved: the wicket taken, and after the reshuffle only H9 and S2 discarded.
pub fn assert_reshuffled(player: &Player, now: &str, game: &Path, mode: &str) {
    let shown = ok(&player.run(now, &["show", game.to_str().unwrap()]));
    assert!(
        shown.contains(&format!(
            "6k1/7p/8/8/8/8/PPP1K3/3Q4 w - - -,o -,g8 d1,h7 {mode}/H9S2 2 2"
        )),
        "{shown}"
    );
}

impl Drop for Homes {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn ok(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// Asserts that a pbem run refused what it was given (exit 1: a refused mail, an invalid
/// game) and that its report on stdout says `says`.
pub fn assert_refused(output: &Output, says: &str) {
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains(says),
        "{}",
        text(&output.stdout)
    );
}

/// Asserts that a pbem run failed (exit 2: a usage error or the outside world) and that
/// its error on stderr says `says`.
pub fn assert_error(output: &Output, says: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    assert!(
        text(&output.stderr).contains(says),
        "{}",
        text(&output.stderr)
    );
}

/// The player's Maildir (`<home>/Maildir`), made with its three folders.
pub fn maildir(player: &Player) -> PathBuf {
    let dir = player.dir.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    dir
}

/// The player's game file.
pub fn game_path(player: &Player, id: &str) -> PathBuf {
    player.dir.join("games").join(format!("{id}.pgn"))
}

/// The player's game file with line breaks and runs of spaces as single spaces.
pub fn game_words(player: &Player, id: &str) -> String {
    std::fs::read_to_string(game_path(player, id))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The mail of the player's latest state, written with `send --dry-run` into its
/// `drafts` folder.
pub fn mail_of(player: &Player, now: &str, id: &str) -> PathBuf {
    let drafts = player.dir.join("drafts");
    PathBuf::from(ok(&player.run(now, &["send", "--dry-run", drafts.to_str().unwrap(), id])).trim())
}

/// Delivers a mail's bytes into the player's Maildir and runs `receive --maildir`.
pub fn deliver(to: &Player, now: &str, bytes: &[u8], name: &str) -> Output {
    let dir = maildir(to);
    std::fs::write(dir.join("new").join(name), bytes).unwrap();
    to.run(now, &["receive", "--maildir", dir.to_str().unwrap()])
}

/// Mails `from`'s latest state of game `id` to `to`'s Maildir and takes it in there.
pub fn post(from: &Player, to: &Player, now: &str, id: &str, name: &str) -> String {
    let mail = mail_of(from, now, id);
    ok(&deliver(to, now, &std::fs::read(mail).unwrap(), name))
}

/// Mails `from`'s latest state of game `id` (`send --dry-run` at `sent`) and takes the
/// mail file in with `to`'s `receive FILE` at `now`; returns what the receive said.
pub fn hand_over(from: &Player, to: &Player, sent: &str, now: &str, id: &str) -> String {
    let mail = mail_of(from, sent, id);
    ok(&to.run(now, &["receive", mail.to_str().unwrap()]))
}

/// A new orthodox game between Alice and Bob (mail by files, no SMTP) in which Alice has
/// played 1. e4 and not mailed it yet; returns the homes and the game id.
pub fn after_e4(name: &str) -> (Homes, String) {
    let homes = Homes::new(name, "");
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    ok(&homes
        .alice
        .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
    (homes, id)
}

/// `pbem validate PATH`.
pub fn validate(path: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("validate")
        .arg(path)
        .output()
        .unwrap()
}

/// How many entries a folder has (0 when it does not exist).
pub fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| entries.count())
        .unwrap_or(0)
}
