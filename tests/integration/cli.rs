//! The `pbem` binary as scripts call it: output shapes and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pbem(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("pbem runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 output")
}

/// A scratch folder removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("pbem-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    fn file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn validate_reports_the_bundled_game_valid() {
    let output = pbem(&["validate", "examples/immortal.pgn"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("game 1 (Anderssen, Adolf - Kieseritzky, Lionel"),
        "{out}"
    );
    assert!(
        out.contains("valid, 45 plies, 1-0 (White wins by checkmate)"),
        "{out}"
    );
    assert!(
        out.ends_with("examples/immortal.pgn: 1 game: 1 valid\n"),
        "{out}"
    );
}

#[test]
fn validate_locates_each_mistake_with_a_caret_and_alternatives() {
    let output = pbem(&["validate", "--color", "never", "examples/mistakes.pgn"]);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    // The ambiguous knight move, located and underlined, with both readings.
    assert!(out.contains("examples/mistakes.pgn:9:24"), "{out}");
    assert!(out.contains("1. Nf3 d5 2. d3 Nf6 3. Nd2 *"), "{out}");
    assert!(out.contains("                       ^^^"), "{out}");
    assert!(out.contains("Nbd2") && out.contains("Nfd2"), "{out}");
    assert!(out.contains("legal turns ("), "{out}");
    // The king walking into check, and the wrong result.
    assert!(out.contains("\"Kxf7\""), "{out}");
    assert!(out.contains("the result is 1-0"), "{out}");
    assert!(
        out.contains("examples/mistakes.pgn: 3 games: 0 valid, 3 invalid"),
        "{out}"
    );
}

#[test]
fn validate_json_gives_one_object_per_line() {
    let output = pbem(&[
        "validate",
        "--json",
        "examples/mistakes.pgn",
        "examples/immortal.pgn",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    let games: Vec<&serde_json::Value> =
        lines.iter().filter(|line| line["type"] == "game").collect();
    assert_eq!(games.len(), 4);
    assert_eq!(games[3]["status"], "valid");
    assert_eq!(games[3]["file"], "examples/immortal.pgn");
    let ambiguous = lines
        .iter()
        .find(|line| line["type"] == "finding" && line["game"] == 1)
        .expect("a finding for game 1");
    assert_eq!(ambiguous["line"], 9);
    assert_eq!(ambiguous["column"], 24);
    assert_eq!(ambiguous["kind"], "illegal");
    assert_eq!(ambiguous["token"], "Nd2");
    assert_eq!(ambiguous["ply"], 5);
    assert!(ambiguous["legal"].as_array().unwrap().len() > 10);
}

#[test]
fn validate_exit_codes_for_usage_and_io_errors() {
    let output = pbem(&["validate", "no/such/file.pgn"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no/such/file.pgn"),
        "{}",
        stderr(&output)
    );
    assert_eq!(pbem(&["validate"]).status.code(), Some(2));
    assert_eq!(pbem(&["no-such-command"]).status.code(), Some(2));
    assert_eq!(pbem(&["--help"]).status.code(), Some(0));
}

#[test]
fn show_prints_the_diagram_and_position_string() {
    let output = pbem(&["show", "examples/immortal.pgn"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("r1bk3r/p2pBpNp/n4n2/1p1NP2P/6P1/3P4/P1P1K3/q5b1 b - - 1 23"),
        "{out}"
    );
    assert!(out.contains("White wins by checkmate"), "{out}");

    let start = stdout(&pbem(&["show", "--ply", "0", "examples/immortal.pgn"]));
    assert!(
        start.contains("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        "{start}"
    );
    let after = stdout(&pbem(&["show", "--ply", "2", "examples/immortal.pgn"]));
    assert!(
        after.contains("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq"),
        "{after}"
    );

    let too_far = pbem(&["show", "--ply", "46", "examples/immortal.pgn"]);
    assert_eq!(too_far.status.code(), Some(2));
    assert!(
        stderr(&too_far).contains("45 playable plies"),
        "{}",
        stderr(&too_far)
    );
}

#[test]
fn legal_lists_one_canonical_turn_per_line() {
    let start = stdout(&pbem(&["legal"]));
    assert_eq!(start.lines().count(), 20);
    assert!(start.lines().any(|line| line == "Nf3"));

    let castle = stdout(&pbem(&["legal", "--fen", "5k2/8/8/8/8/8/8/4K2R w K - 0 1"]));
    assert!(castle.lines().any(|line| line == "O-O+"), "{castle}");

    // A decided position has no turn to list: the reason on standard error, exit 1.
    let mated = pbem(&["legal", "examples/immortal.pgn"]);
    assert_eq!(mated.status.code(), Some(1));
    assert_eq!(stdout(&mated), "");
    assert!(
        stderr(&mated).contains("the game is over (White wins by checkmate)"),
        "{}",
        stderr(&mated)
    );

    let after = stdout(&pbem(&["legal", "--ply", "1", "examples/immortal.pgn"]));
    assert_eq!(after.lines().count(), 20);
    assert!(after.lines().any(|line| line == "e5"));

    // A position string that does not read is invalid input (see mistyped.rs).
    let bad = pbem(&["legal", "--fen", "not a position"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("invalid position"),
        "{}",
        stderr(&bad)
    );
    assert_eq!(
        pbem(&["legal", "--variant", "nonsense"]).status.code(),
        Some(2)
    );
}

#[test]
fn perft_prints_the_count_on_the_last_line() {
    let output = pbem(&["perft", "3"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output).lines().last(), Some("8902"));

    let divided = stdout(&pbem(&["perft", "--divide", "2"]));
    let lines: Vec<&str> = divided.lines().collect();
    assert_eq!(lines.len(), 21);
    assert!(lines.contains(&"Nf3: 20"));
    assert_eq!(lines.last(), Some(&"400"));

    let kiwipete = stdout(&pbem(&[
        "perft",
        "--variant",
        "CHESS",
        "--fen",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
        "3",
    ]));
    assert_eq!(kiwipete.lines().last(), Some("97862"));
}

#[test]
fn bench_measures_each_path_and_validate_on_one_core_and_on_all() {
    // Two games of 3 and 4 plies, the second with a comment.
    let scratch = Scratch::new("bench");
    let file = scratch.file(
        "two.pgn",
        "[White \"A\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[White \"B\"]\n\n1. d4 {x} d5 2. c4 e6 *\n",
    );
    let output = pbem(&["bench", "--seconds", "0.01", text(&file)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let printed = stdout(&output);
    let rows: Vec<Vec<&str>> = printed
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect())
        .collect();
    let paths: Vec<String> = rows
        .iter()
        .map(|row| row[1..row.len() - 4].join(" "))
        .collect();
    assert_eq!(
        paths[..4],
        ["parse", "replay", "parse+replay", "validate --jobs 1"]
    );
    for row in &rows {
        // Every path saw both games, at a plies/s rate 3.5 times its games/s: the rates
        // are printed rounded to whole numbers, so within 3.5 * 0.5 + 0.5 of it (on a
        // busy machine a path printed 128 games/s and 446 plies/s: 127.5 and 446.25).
        assert_eq!(row.last(), Some(&"2"), "{printed}");
        let games: f64 = row[row.len() - 3].parse().unwrap();
        let plies: f64 = row[row.len() - 2].parse().unwrap();
        assert!((plies - 3.5 * games).abs() <= 2.25, "{printed}");
    }
}

const MESSY: &str = "[Black \"Kieseritzky\"] [White \"Anderssen\"]\r\n\
[Result \"1-0\"]\r\n\r\n1.e4 e5 2.f4 exf4 3.Bc4 Qh4 4.Kf1 b5 ;gambit\r\n\
5.Bxb5 Nf6 6.Ng1-f3 Qh6 7.d3 Nh5 8.Nh4 Qg5 9.Nf5 c6 10.g4 Nf6 11.Rg1 cxb5 12.h4 \
Qg6 13.h5 Qg5 14.Qf3 Ng8 15.Bxf4 Qf6 16.Nc3 Bc5 17.Nd5 Qxb2 18.Bd6 Bxg1 19.e5 \
Qxa1 20.Ke2 Na6 21.Nxg7 Kd8 22.Qf6 Nxf6 23.Be7 1-0\r\n";

#[test]
fn fmt_writes_canonical_text_and_is_a_fixed_point() {
    let scratch = Scratch::new("fmt");
    let messy = scratch.file("messy.pgn", MESSY);
    let output = pbem(&["fmt", text(&messy)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let once = stdout(&output);
    assert!(once.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Anderssen\"]\n[Black \"Kieseritzky\"]\n[Result \"1-0\"]\n"), "{once}");
    assert!(once.contains("3. Bc4 Qh4+ 4. Kf1"), "{once}");
    assert!(once.contains("6. Nf3"), "{once}");
    assert!(once.contains("23. Be7# 1-0"), "{once}");
    assert!(once.lines().all(|line| line.chars().count() < 80), "{once}");

    let canonical = scratch.file("canonical.pgn", &once);
    let twice = stdout(&pbem(&["fmt", text(&canonical)]));
    assert_eq!(once, twice);

    let output = pbem(&["fmt", "--in-place", text(&messy)]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&messy).unwrap(), once);
    // Nothing but the game file is left in the folder.
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 2);
}

/// Three games, the second of which cannot be read (its comment is never closed; the
/// third game's tag line ends it).
const BROKEN_IN_THE_MIDDLE: [&str; 3] = [
    "[Event \"a\"]\n\n1.e4   e5 *\n",
    "[Event \"b\"]\n\n1. e4 { never closed\n",
    "[Event \"c\"]\n\n1.d4 d5 2.c4 *\n",
];

#[test]
fn fmt_in_place_leaves_a_file_with_an_unreadable_game_untouched() {
    let scratch = Scratch::new("fmt-broken");
    let contents = BROKEN_IN_THE_MIDDLE.join("\n");
    let path = scratch.file("broken.pgn", &contents);
    let output = pbem(&["fmt", "--in-place", text(&path)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("left unchanged"),
        "{}",
        stderr(&output)
    );
    // The first game was written to a temporary file before the second failed: the file
    // is as it was, and the temporary file is gone.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), contents);
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 1);
}

#[test]
fn fmt_writes_the_games_around_an_unreadable_one_as_it_writes_them_alone() {
    let scratch = Scratch::new("fmt-middle");
    let broken = scratch.file("broken.pgn", &BROKEN_IN_THE_MIDDLE.join("\n"));
    let readable = [BROKEN_IN_THE_MIDDLE[0], BROKEN_IN_THE_MIDDLE[2]].join("\n");
    let readable = scratch.file("readable.pgn", &readable);
    let output = pbem(&["fmt", text(&broken)]);
    assert_eq!(output.status.code(), Some(1));
    let alone = pbem(&["fmt", text(&readable)]);
    assert_eq!(alone.status.code(), Some(0), "{}", stderr(&alone));
    assert_eq!(stdout(&output), stdout(&alone));
    assert!(stdout(&output).contains("1. e4 e5 *\n\n[Event \"c\"]"));
    assert_eq!(
        stderr(&output),
        format!(
            "{0}:7:7: game 2 cannot be read: unterminated comment: expected `}}` before the \
             end of the game\n\
             {0}: 1 game could not be read; they are left out of the output\n",
            text(&broken)
        )
    );
}

/// `fmt` writes each game as soon as it has read it: the first game of standard input
/// comes out while the second is still being typed. (A deadline only keeps a `fmt` that
/// waits for the end of its input from hanging the test.)
#[test]
fn fmt_writes_each_game_before_reading_the_next() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(["fmt", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pbem runs");
    let mut input = child.stdin.take().unwrap();
    let mut output = child.stdout.take().unwrap();
    // The second game's tag line tells the reader the first game has ended.
    input
        .write_all(b"[Event \"one\"]\n\n1.e4 e5 *\n\n[Event \"two\"]\n")
        .unwrap();
    input.flush().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let reading = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buffer = [0; 4096];
        loop {
            let read = output.read(&mut buffer).unwrap();
            seen.extend_from_slice(&buffer[..read]);
            if read == 0 || seen.ends_with(b"1. e4 e5 *\n") {
                let _ = sender.send(seen.clone());
            }
            if read == 0 {
                return seen;
            }
        }
    });
    let first = receiver.recv_timeout(std::time::Duration::from_secs(120));
    let first = match first {
        Ok(first) => String::from_utf8(first).unwrap(),
        Err(_) => {
            child.kill().unwrap();
            panic!("pbem fmt wrote nothing before the end of its input");
        }
    };
    assert!(
        first.starts_with("[Event \"one\"]\n") && first.ends_with("\n\n1. e4 e5 *\n"),
        "{first}"
    );
    input.write_all(b"\n1.d4 *\n").unwrap();
    drop(input);
    let all = String::from_utf8(reading.join().unwrap()).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(all.matches("[Event ").count(), 2, "{all}");
    assert!(all.ends_with("1. e4 e5 *\n\n[Event \"two\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n1. d4 *\n"), "{all}");
}

#[test]
fn completions_are_generated() {
    let output = pbem(&["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("validate"));
}

#[test]
fn fmt_separates_games_and_files_by_one_blank_line_and_keeps_invalid_games() {
    let output = pbem(&["fmt", "examples/mistakes.pgn", "examples/immortal.pgn"]);
    // The mistakes are reported, and the games are written all the same.
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("examples/mistakes.pgn:9:24: game 1"),
        "{}",
        stderr(&output)
    );
    let out = stdout(&output);
    assert_eq!(out.matches("[Event ").count(), 4, "{out}");
    assert!(!out.contains("\n\n\n"), "{out}");
    assert_eq!(out.matches("\n\n[Event ").count(), 3, "{out}");
    assert!(out.contains("3. Nd2 *"), "{out}");
}

#[test]
fn show_warns_when_the_game_stops_early() {
    let output = pbem(&["show", "--game", "2", "examples/mistakes.pgn"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stderr(&output).contains("examples/mistakes.pgn:19:")
            && stderr(&output).contains("game 2 stops here"),
        "{}",
        stderr(&output)
    );
    assert!(
        stdout(&output).contains("after ply 11: Black to move"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn validate_reads_every_pgn_file_in_a_folder() {
    let scratch = Scratch::new("folder");
    std::fs::create_dir_all(scratch.0.join("deeper")).unwrap();
    scratch.file("a.pgn", "1. e4 e5 *\n");
    scratch.file("deeper/b.PGN", "[Variant \"Crazyhouse\"]\n\n1. e4 *\n");
    scratch.file("notes.txt", "not a game");
    let output = pbem(&["validate", text(&scratch.0)]);
    assert_eq!(output.status.code(), Some(1));
    let out = stdout(&output);
    assert!(out.contains("a.pgn: 1 game: 1 valid"), "{out}");
    assert!(
        out.contains("b.PGN:1:1: game 1: unsupported variant \"Crazyhouse\""),
        "{out}"
    );
    assert!(
        out.ends_with("total: 2 games: 1 valid, 1 unsupported\n"),
        "{out}"
    );

    let empty = Scratch::new("empty-folder");
    let output = pbem(&["validate", text(&empty.0)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no .pgn files"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn validate_output_is_the_same_on_one_core_and_on_several() {
    // Every case file, and one long file of them all (many batches for the pool), with
    // a missing file at the end: everything before it is written, in order, either way.
    let scratch = Scratch::new("jobs");
    let mut all = String::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir("tests/data/validate")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    cases.sort();
    for _ in 0..6 {
        for case in &cases {
            all.push_str(&std::fs::read_to_string(case).unwrap());
            all.push('\n');
        }
    }
    // Chunks of two games each (a tagged game whose movetext goes on with a game without
    // tags): the pool guesses one game a chunk, so the game numbers after them are fixed
    // up; then a game that is not UTF-8.
    for number in 0..150 {
        all.push_str(&format!(
            "[Event \"two in one {number}\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 1-0\n\n\
             1. d4 d5 2. Kd2 Kd7 3. Kxd5 *\n\n"
        ));
    }
    let mut bytes = all.into_bytes();
    bytes
        .extend_from_slice(b"[Event \"caf\xe9\"]\n\n1. e4 e5 *\n\n[Event \"after\"]\n\n1. Nf3 *\n");
    let long = scratch.0.join("long.pgn");
    std::fs::write(&long, &bytes).unwrap();
    let missing = scratch.0.join("missing.pgn");
    for mode in [&[][..], &["--json"], &["--quiet"], &["--lenient-results"]] {
        for files in [
            vec!["tests/data", text(&long)],
            vec![text(&long), text(&missing), "tests/data"],
        ] {
            let run = |jobs: &str| {
                let mut args = vec!["validate", "--color", "never", "--jobs", jobs];
                args.extend_from_slice(mode);
                args.extend_from_slice(&files);
                pbem(&args)
            };
            let one = run("1");
            assert!(one.stdout.len() > 10_000, "{}", stderr(&one));
            assert_more_jobs_write_the_same(mode, &one, run);
        }
    }
    assert_eq!(
        pbem(&["validate", "--jobs", "0", "tests/data"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn validate_spreads_games_without_tags_and_writes_what_one_core_writes() {
    // Runs of games without tags: the reader takes each run as one chunk, which the pool
    // cuts into parts at lines that begin with `1.` after a line that ends with a result. Here such a line is also inside a comment (so a part starts in the middle of
    // a game), games go without a result (the next goes on with them), and the second run
    // has a parse error in its middle, which takes the rest of its chunk.
    let games = [
        "{opening} 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0",
        "{main line} 1. d4 d5 2. c4 e6 0-1",
        "1. e4 {a comment\nover two lines} c5 2. Nf3 d6 1/2-1/2",
        "{x} 1. e4 {won 1-0\n1. e4 was the move} e5 *",
        "{y} 1. f3 e5 2. g4 Qh4# 0-1",
        "% an escape line\n1. c4 e5 *",
        "{z} 1. e4 e5 2. Ke3 *",
        "{w} 1. d4 Nf6",
    ];
    let run = |count: usize, error_at: Option<usize>| -> String {
        let games: Vec<&str> = (0..count)
            .map(|n| {
                if Some(n) == error_at {
                    "1. e4 ( e5 *"
                } else {
                    games[(n * 7 + n / 5) % games.len()]
                }
            })
            .collect();
        games.join("\n\n")
    };
    let mut all = run(30_000, None);
    all.push_str("\n\n[Event \"between\"]\n\n1. e4 *\n\n");
    all.push_str(&run(20_000, Some(10_000)));
    all.push_str("\n\n[Event \"after\"]\n\n1. d4 *\n\n");
    all.push_str(&run(10_000, None));
    let scratch = Scratch::new("tagless");
    let file = scratch.file("tagless.pgn", &all);
    for mode in [&[][..], &["--json"], &["--quiet"]] {
        let run = |jobs: &str| {
            let mut args = vec!["validate", "--color", "never", "--jobs", jobs];
            args.extend_from_slice(mode);
            args.push(text(&file));
            pbem(&args)
        };
        let one = run("1");
        // 45,003 games: the parse error took 10,000 with it.
        assert!(stdout(&one).contains("45003"), "{}", stderr(&one));
        assert_more_jobs_write_the_same(mode, &one, run);
    }
}

#[test]
fn fen_start_is_the_start_in_every_game() {
    for variant in [
        "chess",
        "chesica",
        "wickets",
        "african",
        "cascudo",
        "chesscala",
    ] {
        let plain = pbem(&["legal", "--variant", variant]);
        let start = pbem(&["legal", "--variant", variant, "--fen", "start"]);
        assert_eq!(
            start.status.code(),
            Some(0),
            "{variant}: {}",
            stderr(&start)
        );
        assert_eq!(stdout(&start), stdout(&plain), "{variant}");
        let perft = pbem(&["perft", "--variant", variant, "--fen", "start", "1"]);
        assert_eq!(
            stdout(&perft).trim(),
            stdout(&plain).lines().count().to_string(),
            "{variant}"
        );
    }
}

/// A turn after an automatic draw (issue 31, point 11): a warning in a game pbem did not
/// conduct, an error in one it did and with --strict, in text and in JSON.
#[test]
fn a_turn_after_a_dead_position_is_a_warning_unless_pbem_conducted_the_game() {
    let scratch = Scratch::new("played-on");
    let game = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/3p4/4K2B w - - 0 1\"]\n\
                [Result \"1/2-1/2\"]\n\n1. Kxd2 Kd7 1/2-1/2\n";
    let board = scratch.file("board.pgn", game);
    let by_pbem = scratch.file(
        "by-pbem.pgn",
        &format!("[Mode \"EM\"]\n[GameId \"g-20261101-0a1b2c3d\"]\n{game}"),
    );
    let wrong = scratch.file("wrong.pgn", &game.replace("1/2-1/2", "1-0"));
    let run = |options: &[&str], path: &Path| {
        let mut args = vec!["validate", "--color", "never"];
        args.extend_from_slice(options);
        args.push(text(path));
        pbem(&args)
    };
    let found = "game 1, 1... (ply 2): the game was already over (draw by insufficient material)";
    let output = run(&[], &board);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains(&format!("warning: {found}; the turns from here on do not count (a warning in a game pbem did not conduct; --strict makes it an error)")), "{}", stdout(&output));
    for (options, path) in [(&["--strict"][..], &board), (&[][..], &by_pbem)] {
        let output = run(options, path);
        assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
        assert!(
            stdout(&output).contains(&format!("error: {found}\n")),
            "{}",
            stdout(&output)
        );
    }
    let output = run(&["--lenient-results"], &by_pbem);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // The result must still be the draw.
    let output = run(&[], &wrong);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains(
            "the result is 1-0 but the final position says draw by insufficient material"
        ),
        "{}",
        stdout(&output)
    );
    let json = stdout(&run(&["--json"], &board));
    assert!(
        json.contains("\"severity\":\"warning\",\"kind\":\"after-end\""),
        "{json}"
    );
    assert!(
        json.contains("\"status\":\"valid\"") && json.contains("\"warnings\":1"),
        "{json}"
    );
    let json = stdout(&run(&["--json", "--strict"], &board));
    assert!(
        json.contains("\"severity\":\"error\",\"kind\":\"after-end\""),
        "{json}"
    );
    assert!(json.contains("\"status\":\"invalid\""), "{json}");
    // The two flags say opposite things.
    assert_eq!(
        run(&["--strict", "--lenient-results"], &board)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn lenient_results_turns_only_the_result_mismatches_into_warnings() {
    let scratch = Scratch::new("lenient");
    let unknown = scratch.file("unknown.pgn", "[Result \"*\"]\n\n1. f3 e5 2. g4 Qh4# *\n");
    let wrong = scratch.file(
        "wrong.pgn",
        "[Result \"1-0\"]\n\n1. e4 e5 {white [%resign]} 1-0\n",
    );
    let strict = pbem(&["validate", "--color", "never", text(&unknown)]);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    assert!(stdout(&strict).contains("error: game 1: the result is * but the game is over"));
    let lenient = pbem(&["validate", "--lenient-results", text(&unknown)]);
    assert_eq!(lenient.status.code(), Some(0), "{}", stdout(&lenient));
    assert!(stdout(&lenient).contains("warning: game 1: the result is *"));
    let lenient = pbem(&["validate", "--lenient-results", text(&wrong)]);
    assert_eq!(lenient.status.code(), Some(1), "{}", stdout(&lenient));
    assert!(stdout(&lenient).contains("but White resigned: the game ended 0-1"));
    let formatted = pbem(&["fmt", text(&unknown)]);
    assert_eq!(formatted.status.code(), Some(1));
    let formatted = pbem(&["fmt", "--lenient-results", text(&unknown)]);
    assert_eq!(formatted.status.code(), Some(0), "{}", stderr(&formatted));
}

/// `run(jobs)` with 2 and 3 jobs exits, writes and says on stderr what `one` (its run with
/// one job) did, byte for byte.
fn assert_more_jobs_write_the_same(mode: &[&str], one: &Output, run: impl Fn(&str) -> Output) {
    for jobs in ["2", "3"] {
        let several = run(jobs);
        assert_eq!(several.status.code(), one.status.code(), "{mode:?} {jobs}");
        assert!(
            several.stdout == one.stdout,
            "{mode:?} --jobs {jobs}: the output differs from --jobs 1"
        );
        assert_eq!(stderr(&several), stderr(one), "{mode:?} {jobs}");
    }
}

/// The commands a `--help` lists under "Commands:", without clap's own `help`.
fn commands_listed(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command `pbem --help` lists, and every command under those, as the words that
/// name it (`["config", "init"]`), with its `--help` text.
fn every_command_help() -> Vec<(Vec<String>, String)> {
    let top = pbem(&["--help"]);
    assert_eq!(top.status.code(), Some(0), "{}", stderr(&top));
    let mut waiting: Vec<Vec<String>> = commands_listed(&stdout(&top))
        .into_iter()
        .map(|name| vec![name])
        .collect();
    assert!(waiting.len() >= 20, "{}", stdout(&top));
    let mut found = Vec::new();
    while let Some(words) = waiting.pop() {
        let mut args: Vec<&str> = words.iter().map(String::as_str).collect();
        args.push("--help");
        let output = pbem(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            stderr(&output)
        );
        let help = stdout(&output);
        for inner in commands_listed(&help) {
            let mut deeper = words.clone();
            deeper.push(inner);
            waiting.push(deeper);
        }
        found.push((words, help));
    }
    found
}

#[test]
fn every_command_s_help_shows_examples_of_itself() {
    let mut missing = Vec::new();
    for (words, help) in every_command_help() {
        let command = format!("pbem {}", words.join(" "));
        let examples: Vec<&str> = help
            .lines()
            .skip_while(|line| *line != "Examples:")
            .skip(1)
            .take_while(|line| !line.trim().is_empty())
            .collect();
        let shown = examples.iter().any(|line| {
            line.match_indices(&command).any(|(at, _)| {
                line[at + command.len()..]
                    .chars()
                    .next()
                    .is_none_or(|next| next == ' ')
            })
        });
        if !shown {
            missing.push(command);
        }
    }
    assert!(
        missing.is_empty(),
        "no \"Examples:\" section using the command in the --help of: {missing:?}"
    );
}

#[test]
fn the_readme_command_list_names_every_command_of_the_help() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    // The command list: the first text block under "## What it does".
    let section = &readme[readme.find("## What it does").expect("the section")..];
    let start = section.find("```text\n").expect("the command list") + "```text\n".len();
    let list = &section[start..start + section[start..].find("```").expect("its end")];
    // What follows each `pbem ` in the list: `draw offer|accept|claim GAME, ...`.
    let after_pbem: Vec<&str> = list
        .match_indices("pbem ")
        .map(|(at, _)| &list[at + "pbem ".len()..])
        .collect();
    let mut missing = Vec::new();
    for (words, _) in every_command_help() {
        let named = after_pbem.iter().any(|rest| {
            let mut parts = rest.split_whitespace();
            let first = parts.next().unwrap_or("");
            match words.as_slice() {
                [command] => first == command,
                // `pbem config init|check`: the inner commands after the outer one.
                [command, inner] => {
                    first == command
                        && parts
                            .next()
                            .is_some_and(|alternatives| alternatives.split('|').any(|a| a == inner))
                }
                _ => false,
            }
        });
        if !named {
            missing.push(words.join(" "));
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's command list does not name: {missing:?}"
    );
}

#[test]
fn every_bundled_example_validates_and_the_chance_games_are_proven_fair() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut games = 0;
    for entry in std::fs::read_dir(&folder).expect("examples/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|extension| extension != "pgn") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let output = pbem(&["validate", text(&path)]);
        let said = stdout(&output);
        if name == "mistakes.pgn" {
            // The example of what the validator reports: three invalid games.
            assert_eq!(output.status.code(), Some(1), "{said}");
            assert!(said.ends_with(": 3 games: 0 valid, 3 invalid\n"), "{said}");
            continue;
        }
        assert_eq!(output.status.code(), Some(0), "{name}: {said}");
        assert!(said.ends_with(": 1 game: 1 valid\n"), "{name}: {said}");
        games += 1;
    }
    assert!(games >= 8, "{games} examples");
    // The Chess with wickets games decided by chance were played through pbem by mail
    // (examples/make-chance-games.sh), so their chance is proven, not merely written.
    for (name, proof) in [
        ("wickets-dice.pgn", "; chance proven fair (2 rolls)"),
        ("wickets-cards.pgn", "; chance proven fair (the deal and "),
    ] {
        let said = stdout(&pbem(&["validate", text(&folder.join(name))]));
        assert!(said.contains(proof), "{name}: {said}");
        assert!(
            said.contains(", 1-0"),
            "{name}: the game ends in a result: {said}"
        );
    }
}
