//! Files read whole: the lines of `pbem if GAME --file`, the games of `pbem book add` and
//! the game `pbem play FILE` plays are read as every command that reads games reads one
//! (Windows-1252 text, gzip), and a device, a folder or a file past the size cap is
//! refused at once, naming the file and the cause.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::homes::{Homes, ok, text};
use crate::support::page::Server;

/// One form a file comes in: its name's ending and its bytes from the UTF-8 text.
struct Form {
    name: &'static str,
    suffix: &'static str,
    bytes: fn(&str) -> Vec<u8>,
}

/// The text in Windows-1252 (every character of the tests' texts is in it).
fn windows_1252(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const FORMS: [Form; 4] = [
    Form {
        name: "utf-8",
        suffix: ".pgn",
        bytes: |text| text.as_bytes().to_vec(),
    },
    Form {
        name: "windows-1252",
        suffix: ".pgn",
        bytes: windows_1252,
    },
    Form {
        name: "gzip",
        suffix: ".pgn.gz",
        bytes: |text| gzip(text.as_bytes()),
    },
    Form {
        name: "gzip-windows-1252",
        suffix: ".pgn.gz",
        bytes: |text| gzip(&windows_1252(text)),
    },
];

const NOW: &str = "2026-11-01T10:00:00Z";

#[test]
fn lines_and_books_are_read_in_windows_1252_and_compressed() {
    let homes = Homes::new("files-forms", "");
    let alice = &homes.alice;
    for (index, form) in FORMS.iter().enumerate() {
        let id = homes.start(&format!("2026-11-01T09:00:0{index}Z"), &[]);
        ok(&alice.run(NOW, &["move", &id, "e4"]));
        let lines = homes
            .root
            .join(format!("lines-{}{}", form.name, form.suffix));
        std::fs::write(
            &lines,
            (form.bytes)("[Event \"Réti's café\"]\n\n1... e5 (1... c5 2. Nc3) 2. Nf3 *\n"),
        )
        .unwrap();
        let added = ok(&alice.run(NOW, &["if", &id, "--file", lines.to_str().unwrap()]));
        assert!(
            added.contains("2 conditional lines added"),
            "{}: {added}",
            form.name
        );
        let book = homes
            .root
            .join(format!("book-{}{}", form.name, form.suffix));
        std::fs::write(
            &book,
            (form.bytes)("[Event \"Répertoire\"]\n\n1. e4 e5 (1... c5 2. Nf3) 2. Nf3 *\n"),
        )
        .unwrap();
        let name = format!("b{index}");
        let added = ok(&alice.run(
            NOW,
            &["book", "add", book.to_str().unwrap(), "--name", &name],
        ));
        assert!(
            added.contains(&format!("book {name}: 2 conditional lines")),
            "{}: {added}",
            form.name
        );
        // Without --name, the book is named for its file, with no `.pgn` nor `.gz`.
        let added = ok(&alice.run(NOW, &["book", "add", book.to_str().unwrap()]));
        assert!(
            added.contains(&format!("book book-{}: 2 conditional lines", form.name)),
            "{}: {added}",
            form.name
        );
    }
}

/// `pbem play --no-open FILE` with a config that does not exist.
fn play_file(dir: &Path, file: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pbem"));
    command
        .args(["--config", dir.join("none.yaml").to_str().unwrap()])
        .args(["play", "--no-open", file.to_str().unwrap()]);
    command
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbem-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_windows_1252_game_is_played_locally_and_a_compressed_one_refused() {
    let dir = scratch("files-play");
    let game = "[Event \"Café\"]\n[White \"Réti\"]\n[Black \"?\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let file = dir.join("latin.pgn");
    std::fs::write(&file, windows_1252(game)).unwrap();
    let server = Server::start(play_file(&dir, &file));
    let played = server.post(
        "/api/game/local/move",
        &serde_json::json!({ "token": "e5" }).to_string(),
    );
    assert_eq!(played.json()["ok"], true, "{}", played.body);
    drop(server);
    // Written back in UTF-8, its name and event as they were.
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("[Event \"Café\"]"), "{saved}");
    assert!(saved.contains("[White \"Réti\"]"), "{saved}");
    assert!(saved.contains("1. e4 e5"), "{saved}");

    let compressed = dir.join("game.pgn.gz");
    std::fs::write(&compressed, gzip(game.as_bytes())).unwrap();
    let refused = play_file(&dir, &compressed).output().unwrap();
    let shown = compressed.display();
    assert_refused(
        &refused,
        2,
        &format!("{shown} is compressed (gzip)"),
        &format!("`gunzip {shown}`"),
    );
    assert_eq!(std::fs::read(&compressed).unwrap(), gzip(game.as_bytes()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Asserts that a run failed with `code`, its error saying `cause` and `mend`.
fn assert_refused(output: &Output, code: i32, cause: &str, mend: &str) {
    let said = text(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{said}");
    assert!(said.contains(cause), "{cause}: {said}");
    assert!(said.contains(mend), "{mend}: {said}");
}

#[test]
fn a_device_a_folder_or_a_file_past_the_cap_is_refused_at_once() {
    let homes = Homes::new("files-refused", "");
    let alice = &homes.alice;
    let id = homes.start("2026-11-01T09:00:00Z", &[]);
    // A file one byte past the 64 MB cap (sparse: nothing written) and one that passes
    // it only once decompressed.
    let large = homes.root.join("large.pgn");
    std::fs::File::create(&large)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let bomb = homes.root.join("bomb.pgn.gz");
    std::fs::write(&bomb, gzip(&vec![b' '; (64 << 20) + 1])).unwrap();
    let folder = homes.root.join("folder.pgn");
    std::fs::create_dir_all(&folder).unwrap();
    let (not_a_file, too_large) = ("give a file", "split it, or give the part you need");
    let cases: [(&Path, i32, &str, &str); 4] = [
        (
            Path::new("/dev/zero"),
            2,
            "is a device, not a regular file",
            not_a_file,
        ),
        (&folder, 2, "is a folder, not a regular file", not_a_file),
        (&large, 1, "is too large: more than 64 MB;", too_large),
        (
            &bomb,
            1,
            "is too large: more than 64 MB once decompressed",
            too_large,
        ),
    ];
    for (path, code, cause, mend) in cases {
        let shown = path.display().to_string();
        let cause = format!("{shown} {cause}");
        let runs = [
            alice.run(NOW, &["if", &id, "--file", &shown]),
            alice.run(NOW, &["book", "add", &shown, "--name", "x"]),
            play_file(&homes.root, path).output().unwrap(),
        ];
        for run in &runs {
            assert_refused(run, code, &cause, mend);
        }
    }
    let listed = ok(&alice.run(NOW, &["book", "list"]));
    assert!(!listed.contains("x:"), "{listed}");
}
