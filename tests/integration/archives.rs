//! Whole archives as users bring them, through the real binary: compressed files and
//! streams, folders with symbolic links (a real loop), Windows-1252 bytes, garbage, games
//! too large, tags with terminal escapes, setups that cannot be, and the writers' limits.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn pbem(args: &[&str]) -> Output {
    pbem_with_stdin(args, None)
}

fn pbem_with_stdin(args: &[&str], input: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pbem runs");
    if let Some(input) = input {
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        // pbem may stop reading early (garbage is refused at once): a closed pipe is fine.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    child.wait_with_output().expect("pbem ends")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 output")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/archives")
        .join(name)
}

/// A scratch folder removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let path =
            std::env::temp_dir().join(format!("pbem-archives-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    fn file(&self, name: &str, contents: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 3).unwrap()
}

fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// `validate --json` of a file, with the file name taken out so that outputs compare.
fn findings(args: &[&str], path: &str, input: Option<&[u8]>) -> (Option<i32>, String) {
    let mut all = vec!["validate", "--json"];
    all.extend_from_slice(args);
    all.push(path);
    let output = pbem_with_stdin(&all, input);
    let shown = if path == "-" { "<stdin>" } else { path };
    (
        output.status.code(),
        stdout(&output).replace(&format!("\"file\":\"{shown}\""), "\"file\":\"F\""),
    )
}

#[test]
fn compressed_archives_give_the_findings_and_lines_of_the_plain_file() {
    let plain = std::fs::read("examples/mistakes.pgn").unwrap();
    let scratch = Scratch::new("compressed");
    let (code, expected) = findings(&[], "examples/mistakes.pgn", None);
    assert_eq!(code, Some(1));
    assert!(expected.contains("\"line\":19"), "{expected}");
    let cases = [
        ("games.pgn.gz", gzip(&plain)),
        ("games.pgn.zst", zstd(&plain)),
        ("games.pgn.bz2", bzip2(&plain)),
        // By the first bytes, whatever the name says.
        ("gzip-without-extension.pgn", gzip(&plain)),
        // Archives made by appending (`cat a.gz b.gz`) read whole.
        (
            "two-members.pgn.gz",
            [gzip(&plain[..200]), gzip(&plain[200..])].concat(),
        ),
    ];
    for (name, bytes) in &cases {
        let path = scratch.file(name, bytes);
        let path = path.display().to_string();
        assert_eq!(
            findings(&[], &path, None),
            (Some(1), expected.clone()),
            "{name}"
        );
        // Standard input is told apart by the same bytes.
        assert_eq!(
            findings(&[], "-", Some(bytes)),
            (Some(1), expected.clone()),
            "{name} on standard input"
        );
    }
    // A folder holds compressed game files too.
    let output = pbem(&["validate", "--quiet", &scratch.0.display().to_string()]);
    assert_eq!(
        stdout(&output).matches(": 3 games:").count(),
        5,
        "{}",
        stdout(&output)
    );

    // A name that promises a compression the bytes do not have is refused with the reason.
    let fake = scratch.file("fake.pgn.zst", &plain);
    let output = pbem(&["validate", &fake.display().to_string()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the name says .zst but the content is not zstd data"),
        "{}",
        stderr(&output)
    );
    // A truncated archive is an error of that file, not a silent end.
    let gz = gzip(&plain);
    let cut = scratch.file("cut.pgn.gz", &gz[..gz.len() / 2]);
    let output = pbem(&["validate", &cut.display().to_string()]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("cut.pgn.gz"),
        "{}",
        stderr(&output)
    );

    // fmt and convert read them too.
    let zst = scratch.path("games.pgn.zst");
    let output = pbem(&["fmt", &zst]);
    assert_eq!(
        stdout(&output),
        stdout(&pbem(&["fmt", "examples/mistakes.pgn"]))
    );
    let immortal = std::fs::read("examples/immortal.pgn").unwrap();
    let output = pbem_with_stdin(
        &["convert", "--to", "gamecourier", "-"],
        Some(&bzip2(&immortal)),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        stdout(&pbem(&[
            "convert",
            "--to",
            "gamecourier",
            "examples/immortal.pgn"
        ]))
    );
}

/// `fmt --in-place` on an archive cut short: the games before the cut are written to a
/// temporary file as they are read, then the read fails; the file stays as it was and
/// the temporary file is removed.
#[test]
fn fmt_in_place_that_fails_half_way_leaves_the_file_as_it_was() {
    let game = std::fs::read_to_string("examples/immortal.pgn").unwrap();
    let plain = vec![game; 400].join("\n").into_bytes();
    let gz = gzip(&plain);
    let cut = &gz[..gz.len() / 2];
    let scratch = Scratch::new("fmt-cut");
    let path = scratch.file("cut.pgn.gz", cut);
    // The games before the cut read: plenty were formatted before the error.
    let formatted = pbem(&["fmt", &scratch.path("cut.pgn.gz")]);
    assert!(stdout(&formatted).matches("[Event ").count() > 5);
    let output = pbem(&["fmt", "--in-place", &scratch.path("cut.pgn.gz")]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cut.pgn.gz"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&path).unwrap(), cut);
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn folders_are_walked_once_and_links_only_followed_when_asked() {
    use std::os::unix::fs::symlink;
    let game = std::fs::read("examples/immortal.pgn").unwrap();
    let scratch = Scratch::new("walk");
    let outside = Scratch::new("walk-outside");
    scratch.file("top/a.pgn", &game);
    scratch.file("top/sub/b.pgn", &game);
    scratch.file("top/notes.txt", b"not a game");
    let elsewhere = outside.file("c.pgn", &game);
    // A real loop: a link inside the folder back to the folder itself.
    symlink(scratch.0.join("top"), scratch.0.join("top/sub/loop")).unwrap();
    symlink(&elsewhere, scratch.0.join("top/linked.pgn")).unwrap();
    let top = scratch.path("top");

    let output = pbem(&["validate", "--quiet", &top]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("total: 2 games: 2 valid"), "{out}");
    assert!(!out.contains("linked.pgn"), "{out}");

    let output = pbem(&["validate", "--quiet", "--follow", &top]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("linked.pgn: 1 game"), "{out}");
    assert!(out.contains("total: 3 games: 3 valid"), "{out}");
    let err = stderr(&output);
    assert!(
        err.contains("loop: a symbolic link back to") && err.contains("not walked again"),
        "{err}"
    );
}

#[test]
fn windows_1252_archives_are_read_with_one_warning_a_file() {
    let path = data("windows-1252.pgn");
    let bytes = std::fs::read(&path).unwrap();
    assert!(
        std::str::from_utf8(&bytes).is_err(),
        "the fixture is not UTF-8"
    );
    let path = path.display().to_string();

    let output = pbem(&["validate", &path]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("(Müller, Jürgen - Désiré, Noël, Old archive 1998.??.??)"),
        "{}",
        stdout(&output)
    );
    let err = stderr(&output);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(
        err.contains("windows-1252.pgn:5:10: not utf-8 text (the byte 0xfc)"),
        "{err}"
    );
    assert!(err.contains("read as windows-1252"), "{err}");

    // fmt writes UTF-8.
    let output = pbem(&["fmt", &path]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("[White \"Müller, Jürgen\"]"), "{out}");
    assert!(out.contains("{très bien, 1½ pions}"), "{out}");

    // Another encoding on request; UTF-8 alone refuses the bytes, naming them.
    let output = pbem(&["fmt", "--encoding", "iso-8859-2", &path]);
    assert!(
        stdout(&output).contains("1\u{2dd} pions"),
        "{}",
        stdout(&output)
    );
    let output = pbem(&["validate", "--encoding", "utf-8", &path]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("expected utf-8 text, found the byte 0xfc"),
        "{}",
        stdout(&output)
    );
    let output = pbem(&["validate", "--encoding", "klingon", &path]);
    assert_eq!(output.status.code(), Some(2));

    // convert reads it too, as a foreign file and as a pbem file.
    let output = pbem(&["convert", &path]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("Müller"), "{}", stdout(&output));
}

#[test]
fn garbage_is_refused_with_the_reason() {
    let scratch = Scratch::new("garbage");
    let prose = scratch.file(
        "prose.txt",
        b"the quick brown fox jumps over the lazy dog\n",
    );
    let output = pbem(&["convert", &prose.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).contains("no game found: no move"),
        "{}",
        stderr(&output)
    );

    // A picture: binary data.
    let mut picture = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    picture.extend(std::iter::repeat_n(7u8, 1000));
    let picture = scratch.file("board.png", &picture);
    let output = pbem(&["convert", &picture.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).contains("binary data, not a game (a zero byte at offset 8)"),
        "{}",
        stderr(&output)
    );

    // Zero bytes on standard input: refused at once, not read to the end.
    let zeros = vec![0u8; 8 << 20];
    let output = pbem_with_stdin(&["convert", "-"], Some(&zeros));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("binary data"),
        "{}",
        stderr(&output)
    );

    let empty = scratch.file("empty.pgn", b"\n\n");
    let output = pbem(&["convert", &empty.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no game"), "{}", stderr(&output));
}

#[test]
fn convert_bounds_one_game_and_names_its_line() {
    let mut input = b"[Event \"small\"]\n\n1. e4 *\n\n[Event \"huge\"]\n\n1. e4 {".to_vec();
    input.extend(std::iter::repeat_n(b'a', (64 << 20) + 10));
    input.extend_from_slice(b"} *\n");
    let output = pbem_with_stdin(&["convert", "-"], Some(&input));
    assert_eq!(output.status.code(), Some(1));
    // The first game was written before the second was met.
    assert!(
        stdout(&output).contains("[Event \"small\"]"),
        "{}",
        stdout(&output)
    );
    assert!(
        stderr(&output).contains("<stdin>:5:1: game 2 cannot be read: game too large"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn terminal_escapes_in_tags_and_comments_are_shown_escaped() {
    let scratch = Scratch::new("escapes");
    let file = scratch.file(
        "escape.pgn",
        b"[Event \"x\"]\n[White \"\x1b[2J\x1b[31mRed\"]\n[Black \"B\"]\n[Variant \"Chess\x1b]0;owned\x07\"]\n\n1. e4 *\n",
    );
    let file = file.display().to_string();
    let output = pbem(&["validate", &file]);
    let out = stdout(&output);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("\\u{1b}[2J"), "{out}");
    let file = scratch.file(
        "escape-ok.pgn",
        b"[Event \"x\"]\n[White \"\x1b[31mRed\"]\n[Black \"B\"]\n\n1. e4 *\n",
    );
    let output = pbem(&["validate", &file.display().to_string()]);
    let out = stdout(&output);
    assert!(out.contains("(\\u{1b}[31mRed - B, x)"), "{out}");
}

#[test]
fn show_and_legal_name_the_file_and_line_of_a_bad_setup() {
    let scratch = Scratch::new("setup");
    let file = scratch.file(
        "setup.pgn",
        b"[Event \"nine pawns\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1\"]\n\n1. a4 *\n",
    );
    let file = file.display().to_string();
    for command in ["show", "legal"] {
        let output = pbem(&[command, &file]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert!(
            stderr(&output).contains(&format!(
                "{file}:3:1: game 1: invalid setup: 9 white pawns: a side has at most 8"
            )),
            "{command}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn the_typed_list_converter_stops_at_a_fivefold_repetition() {
    let mut list = String::new();
    for _ in 0..4 {
        list.push_str("Nf3 Nf6 Ng1 Ng8 ");
    }
    list.push_str("e4 e5\n");
    let output = pbem_with_stdin(&["convert", "--from", "text", "-"], Some(list.as_bytes()));
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let out = stdout(&output);
    assert!(out.contains("8. Ng1 Ng8 1/2-1/2"), "{out}");
    assert!(!out.contains("e4"), "{out}");
    assert!(
        stderr(&output).contains("a turn after the end of the game"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn fmt_keeps_every_embedded_command_on_one_line() {
    let scratch = Scratch::new("commands");
    let mut comment = String::new();
    for number in 1..12 {
        comment.push_str(&format!(
            " see[%csl Ra1][%cal Ra1a8, Gb2b4, Yc3c{}] and",
            number % 8 + 1
        ));
    }
    let file = scratch.file(
        "commands.pgn",
        format!("1. Nf3 {{{comment}}} 1... Nf6 *\n").as_bytes(),
    );
    let output = pbem(&["fmt", &file.display().to_string()]);
    let out = stdout(&output);
    assert_eq!(out.matches("[%cal Ra1a8, Gb2b4, Yc3c").count(), 11, "{out}");
    for line in out.lines() {
        assert_eq!(
            line.matches('[').count(),
            line.matches(']').count(),
            "{line}"
        );
    }
}

#[test]
fn a_typed_list_is_converted_as_a_stream() {
    // Megabytes of prose around a game, on standard input: read piece by piece, the
    // finding shown on its line however far in it is.
    let mut list = String::from("Our game, as promised.\n");
    list.push_str(&"the quick brown fox jumps over the lazy dog\n".repeat(100_000));
    list.push_str("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n");
    let output = pbem_with_stdin(&["convert", "--from", "text", "-"], Some(list.as_bytes()));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("4. Qxf7# 1-0"),
        "{}",
        stdout(&output)
    );

    let mut list = "the quick brown fox jumps over the lazy dog\n".repeat(100_000);
    list.push_str("1. e4 e5 2. Ke3 Nc6\n");
    let output = pbem_with_stdin(&["convert", "--from", "text", "-"], Some(list.as_bytes()));
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("<stdin>:100001:13"), "{err}");
    assert!(err.contains("1. e4 e5 2. Ke3 Nc6"), "{err}");
    assert!(
        stdout(&output).contains("1. e4 e5 *"),
        "{}",
        stdout(&output)
    );

    // A list that ends by repetition is not read past the end of the game.
    let list = "Nf3 Nf6 Ng1 Ng8 ".repeat(2_000_000);
    let output = pbem_with_stdin(&["convert", "--from", "text", "-"], Some(list.as_bytes()));
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("1/2-1/2"), "{}", stdout(&output));
}
