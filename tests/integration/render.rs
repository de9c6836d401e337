//! Pictures: the SVG of a fixed position of every game (the final positions of the
//! records in `tests/data/render/`, their last turn marked) read back with usvg and
//! checked element by element, the PNG compared with the committed reference image
//! `tests/data/render/<game>.png` with a small tolerance, and a move mail with its
//! picture (MIME structure, and the record read back unchanged).
//!
//! After a deliberate change of the pictures, rewrite the reference images with
//! `PBEM_BLESS=1 cargo test --test integration render::` (and look at them).

use std::collections::BTreeSet;
use std::path::PathBuf;

use mail_parser::MimeHeaders;
use pbem::games::Game;
use pbem::mail::{
    Mailbox, Outgoing, compose, compose_with_picture, message_id, parse_mail, picture_id,
};
use pbem::notation::{Record, parse_record};
use pbem::render::{self, Render};
use pbem::replay::replay_game;
use resvg::tiny_skia::Pixmap;
use resvg::usvg;

/// The records drawn, by file name under `tests/data/render/`.
const GAMES: &[&str] = &[
    "chess",
    "wickets",
    "chesica",
    "african",
    "cascudo",
    "chesscala",
];

/// The size of the reference images (their longer side).
const REFERENCE_SIZE: u32 = 280;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/render")
        .join(name)
}

fn record(name: &str) -> Record {
    let path = data(&format!("{name}.pgn"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    parse_record(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A record's final position, the position before its last turn, and that turn.
fn ending<G: Game>(record: &Record) -> (G, G, G::Turn) {
    let replayed = replay_game::<G>(record);
    assert!(replayed.report.is_valid(), "{:?}", replayed.report.findings);
    let mut position = replayed.start.expect("a valid setup");
    let mut before = position.clone();
    for turn in &replayed.turns {
        before = position.clone();
        position.play(turn);
    }
    let last = replayed.turns.last().expect("a turn").clone();
    (position, before, last)
}

/// Every id in a usvg tree.
fn ids(tree: &usvg::Tree) -> Vec<String> {
    fn walk(group: &usvg::Group, out: &mut Vec<String>) {
        if !group.id().is_empty() {
            out.push(group.id().to_owned());
        }
        for node in group.children() {
            match node {
                usvg::Node::Group(inner) => walk(inner, out),
                other => {
                    if !other.id().is_empty() {
                        out.push(other.id().to_owned());
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree.root(), &mut out);
    out
}

/// The place names after a prefix (`piece-e4` gives `e4`).
fn with_prefix(ids: &[String], prefix: &str) -> BTreeSet<String> {
    ids.iter()
        .filter_map(|id| id.strip_prefix(prefix))
        .map(str::to_owned)
        .collect()
}

/// How the pictures name a place (the wickets stand at e0 and e9).
fn drawn_name(name: &str) -> String {
    match name {
        "w0" => "e0".to_owned(),
        "w9" => "e9".to_owned(),
        other => other.to_owned(),
    }
}

/// The structural checks of one game's final position.
fn check_structure<G: Render>(name: &str) -> String {
    let record = record(name);
    let (position, before, last) = ending::<G>(&record);
    let svg = render::svg(&position, Some((&before, &last)));
    assert_eq!(
        svg,
        render::svg(&position, Some((&before, &last))),
        "{name}: the same picture twice"
    );
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())
        .unwrap_or_else(|e| panic!("{name}: usvg reads the picture: {e}"));
    let size = tree.size();
    assert!(
        (300.0..=700.0).contains(&size.width()) && (400.0..=700.0).contains(&size.height()),
        "{name}: {size:?}"
    );
    let ids = ids(&tree);
    for group in ["squares", "coordinates", "pieces"] {
        assert!(
            ids.iter().any(|id| id == group),
            "{name}: no {group} in {ids:?}"
        );
    }
    // One piece group per place that holds a piece (Balls and Defender marks are marks).
    let snapshot = position.snapshot().expect("a snapshot");
    let occupied: BTreeSet<String> = snapshot
        .places
        .iter()
        .filter(|place| {
            place
                .pieces
                .iter()
                .any(|man| !matches!(man.kind.name, "Ball" | "Defender"))
        })
        .map(|place| drawn_name(&place.name))
        .collect();
    assert_eq!(with_prefix(&ids, "piece-"), occupied, "{name}: pieces");
    // The last turn and check, as the marks say.
    let marks = render::marks(&position, Some((&before, &last)));
    assert!(
        !marks.touched.is_empty(),
        "{name}: the last turn touched nothing"
    );
    let touched: BTreeSet<String> = marks.touched.iter().map(|n| drawn_name(n)).collect();
    assert_eq!(with_prefix(&ids, "last-"), touched, "{name}: last turn");
    let check: BTreeSet<String> = marks.check.iter().map(|n| drawn_name(n)).collect();
    assert_eq!(with_prefix(&ids, "check-"), check, "{name}: check");
    svg
}

#[test]
fn every_game_draws_its_board_pieces_last_turn_and_check() {
    use pbem::games::{African, Cascudo, Chesica, Chess, Chesscala, Wickets};
    check_structure::<Chess>("chess");
    check_structure::<Wickets>("wickets");
    check_structure::<Chesica>("chesica");
    check_structure::<African>("african");
    check_structure::<Cascudo>("cascudo");
    check_structure::<Chesscala>("chesscala");
}

#[test]
fn the_immortal_game_ends_with_the_black_king_in_check_and_the_bishop_move_marked() {
    let (position, before, last) = ending::<pbem::games::Chess>(&record("chess"));
    let marks = render::marks(&position, Some((&before, &last)));
    assert_eq!(marks.check, ["d8"]);
    assert_eq!(marks.touched, ["d6", "e7"]);
}

#[test]
fn a_multi_jump_marks_every_landing_and_every_piece_taken() {
    use pbem::games::Chesica;
    let record = record("chesica");
    let replayed = replay_game::<Chesica>(&record);
    let mut position = replayed.start.expect("start");
    let mut seen = 0;
    for turn in &replayed.turns {
        if turn.landings().len() >= 2 {
            let touched = position.touched(turn);
            for square in turn
                .landings()
                .iter()
                .chain(turn.jumped().collect::<Vec<_>>().iter())
            {
                assert!(
                    touched.contains(&square.to_string()),
                    "{square} in {touched:?}"
                );
            }
            assert!(touched.contains(&turn.from().to_string()));
            seen += 1;
        }
        position.play(turn);
    }
    assert!(seen > 0, "the Chesica record has a multi-jump");
}

#[test]
fn a_cascade_marks_every_link() {
    use pbem::games::Cascudo;
    let record = record("cascudo");
    let replayed = replay_game::<Cascudo>(&record);
    let mut position = replayed.start.expect("start");
    let mut seen = 0;
    for turn in &replayed.turns {
        if turn.links() >= 2 {
            let touched = position.touched(turn);
            for cell in turn.cells() {
                assert!(touched.contains(&cell.to_string()), "{cell} in {touched:?}");
            }
            seen += 1;
        }
        position.play(turn);
    }
    assert!(
        seen > 0,
        "the Cascudo record has a cascade of several links"
    );
}

#[test]
fn the_game_specific_marks_are_drawn() {
    // Chesica: a gold disc under each promoted piece.
    let (position, _, _) = ending::<pbem::games::Chesica>(&record("chesica"));
    let svg = render::svg(&position, None);
    let promoted = position
        .snapshot()
        .expect("snapshot")
        .places
        .iter()
        .flat_map(|place| &place.pieces)
        .filter(|man| man.kind.name.starts_with("Promoted"))
        .count();
    assert_eq!(svg.matches("class=\"promoted\"").count(), promoted);
    assert!(promoted > 0);

    // Chesscala: three circuits, and a control frame on each stack of several pieces.
    let (position, _, _) = ending::<pbem::games::Chesscala>(&record("chesscala"));
    let svg = render::svg(&position, None);
    let stacks = position
        .snapshot()
        .expect("snapshot")
        .places
        .iter()
        .filter(|place| place.pieces.len() > 1)
        .count();
    assert!(stacks > 0);
    assert_eq!(svg.matches("class=\"control-").count(), stacks);
    assert!(svg.contains("id=\"circuits\""));
    assert_eq!(svg.matches("stroke-opacity=\"0.55\"").count(), 3);

    // Chess with wickets: the Ball-havers, loose Balls and Defenders where the game has them.
    let (position, _, _) = ending::<pbem::games::Wickets>(&record("wickets"));
    let svg = render::svg(&position, None);
    for color in [pbem::games::Color::White, pbem::games::Color::Black] {
        for (what, place) in [
            ("haver", position.ball_haver(color)),
            ("loose", position.loose_ball(color)),
            ("defender", position.defender(color)),
        ] {
            if let Some(place) = place {
                assert!(
                    svg.contains(&format!("id=\"{what}-{place}\"")),
                    "{what}-{place}"
                );
            }
        }
    }

    // African Chess: a count per colour on each square with stones.
    let (position, _, _) = ending::<pbem::games::African>(&record("african"));
    let svg = render::svg(&position, None);
    let counts: usize = position
        .snapshot()
        .expect("snapshot")
        .places
        .iter()
        .map(|place| {
            let mut colours: Vec<_> = place.pieces.iter().map(|man| man.color).collect();
            colours.dedup();
            colours.len()
        })
        .sum();
    assert_eq!(svg.matches("class=\"count\"").count(), counts);

    // Cascudo: 44 cells, and the mated King in check even without the last turn's `#`.
    let (position, _, _) = ending::<pbem::games::Cascudo>(&record("cascudo"));
    let marks = render::marks(&position, None);
    assert_eq!(
        marks.check,
        render::kings(
            &position.snapshot().expect("snapshot"),
            position.side_to_move()
        )
    );
    assert_eq!(marks.check.len(), 1);
    let tree = usvg::Tree::from_str(&render::svg(&position, None), &usvg::Options::default())
        .expect("usvg");
    let squares = tree
        .root()
        .children()
        .iter()
        .find_map(|node| match node {
            usvg::Node::Group(group) if group.id() == "squares" => Some(group.children().len()),
            _ => None,
        })
        .expect("a squares group");
    assert_eq!(squares, 44);
}

/// The share of pixels that differ by more than a little, and the mean difference.
fn difference(a: &Pixmap, b: &Pixmap) -> (f64, f64) {
    let (mut differing, mut total) = (0usize, 0u64);
    for (x, y) in a.data().chunks(4).zip(b.data().chunks(4)) {
        let most = x
            .iter()
            .zip(y)
            .map(|(p, q)| p.abs_diff(*q))
            .max()
            .unwrap_or(0);
        total += u64::from(most);
        if most > 24 {
            differing += 1;
        }
    }
    let pixels = (a.data().len() / 4).max(1);
    (
        differing as f64 / pixels as f64,
        total as f64 / pixels as f64,
    )
}

#[test]
fn every_game_renders_like_its_reference_image() {
    let bless = std::env::var_os("PBEM_BLESS").is_some();
    for name in GAMES {
        let svg = render::final_svg(&record(name)).expect("a picture");
        let png = render::png(&svg, REFERENCE_SIZE).expect("png");
        let path = data(&format!("{name}.png"));
        if bless {
            std::fs::write(&path, &png).expect("write the reference image");
            continue;
        }
        let reference = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{path:?}: {e} (PBEM_BLESS=1 writes it)"));
        let expected = Pixmap::decode_png(&reference).expect("the reference decodes");
        let actual = Pixmap::decode_png(&png).expect("the png decodes");
        assert_eq!(
            (actual.width(), actual.height()),
            (expected.width(), expected.height()),
            "{name}: size"
        );
        assert!(actual.width().max(actual.height()) == REFERENCE_SIZE);
        let (share, mean) = difference(&actual, &expected);
        assert!(
            share < 0.005 && mean < 1.5,
            "{name}: {:.2}% of pixels differ, mean difference {mean:.2} \
             (PBEM_BLESS=1 rewrites the reference after a deliberate change)",
            share * 100.0
        );
    }
}

#[test]
fn a_differing_picture_is_caught() {
    let (position, before, last) = ending::<pbem::games::Chess>(&record("chess"));
    let marked = render::png(&render::svg(&position, Some((&before, &last))), 120).expect("png");
    let plain = render::png(&render::svg(&position, None), 120).expect("png");
    let (a, b) = (
        Pixmap::decode_png(&marked).expect("decode"),
        Pixmap::decode_png(&plain).expect("decode"),
    );
    let (share, _) = difference(&a, &b);
    assert!(share >= 0.005, "the last-turn highlight changes {share}");
}

fn mailbox(name: &str, address: &str) -> Mailbox {
    Mailbox {
        name: name.to_owned(),
        address: address.to_owned(),
    }
}

#[test]
fn a_move_mail_carries_the_picture_as_an_inline_png_of_an_html_alternative() {
    let record_text = std::fs::read_to_string(data("chess.pgn")).expect("read");
    let record = parse_record(&record_text).expect("parse");
    let text = pbem::correspondence::to_text(&record);
    let (position, _, _) = ending::<pbem::games::Chess>(&record);
    let png =
        render::png(&render::final_svg(&record).expect("svg"), render::PNG_SIZE).expect("png");
    let (from, to) = (
        mailbox("Adolf Anderssen", "anderssen@example.org"),
        mailbox("Lionel Kieseritzky", "kieseritzky@example.net"),
    );
    let outgoing = Outgoing {
        game_id: "g-1851-immortal",
        from: &from,
        to: &to,
        ply: 45,
        last_turn: Some("23. Be7#"),
        variant: "Chess",
        diagram: &position.diagram(),
        position: &position.position_string(),
        record: &text,
        secret: Some(b"a secret"),
        date: chrono::DateTime::from_timestamp(1_000_000_000, 0).expect("date"),
        note: Some("A fine game."),
        answer: None,
    };
    let mail = compose_with_picture(&outgoing, &png).expect("compose");
    assert_eq!(
        mail,
        compose_with_picture(&outgoing, &png).expect("again"),
        "deterministic"
    );

    let message = mail_parser::MessageParser::default()
        .parse(&mail)
        .expect("a mail");
    let kind = |part: &mail_parser::MessagePart| {
        part.content_type()
            .map(|t| format!("{}/{}", t.ctype(), t.subtype().unwrap_or("")))
            .unwrap_or_default()
    };
    let root = &message.parts[0];
    assert_eq!(kind(root), "multipart/alternative");
    let children = |part: &mail_parser::MessagePart| match &part.body {
        mail_parser::PartType::Multipart(ids) => ids.iter().map(|&i| i as usize).collect(),
        _ => Vec::new(),
    };
    let top = children(root);
    assert_eq!(top.len(), 2);
    assert_eq!(kind(&message.parts[top[0]]), "text/plain");
    let related = &message.parts[top[1]];
    assert_eq!(kind(related), "multipart/related");
    let inner = children(related);
    assert_eq!(inner.len(), 2);
    let (html, image) = (&message.parts[inner[0]], &message.parts[inner[1]]);
    assert_eq!(kind(html), "text/html");
    assert_eq!(kind(image), "image/png");
    let cid = picture_id(&message_id("g-1851-immortal", &record, 45));
    assert_eq!(image.content_id(), Some(cid.as_str()));
    assert_eq!(
        image.content_disposition().map(|d| d.ctype()),
        Some("inline")
    );
    assert_eq!(
        image.contents(),
        png.as_slice(),
        "the png travels unchanged"
    );
    let html_text = html.text_contents().expect("html text");
    assert!(
        html_text.contains(&format!("src=\"cid:{cid}\"")),
        "{html_text}"
    );

    // The text part is what `compose` writes without a picture, and reads back the same.
    let plain = compose(&outgoing).expect("compose");
    let plain_message = mail_parser::MessageParser::default()
        .parse(&plain)
        .expect("mail");
    // (The line break before the next boundary belongs to the boundary.)
    let content = |part: &mail_parser::MessagePart| {
        part.text_contents().map(|text| text.trim_end().to_owned())
    };
    assert_eq!(
        content(&message.parts[top[0]]),
        content(&plain_message.parts[0])
    );
    let incoming = parse_mail(&mail).expect("pbem reads the mail");
    assert_eq!(incoming.record, parse_mail(&plain).expect("plain").record);
    assert_eq!(incoming.record.trim_end(), text.trim_end());
    assert!(incoming.verify(Some(b"a secret")).is_ok());
}

fn pbem(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run pbem")
}

/// The example game of each game.
const EXAMPLES: &[&str] = &[
    "examples/immortal.pgn",
    "examples/wickets-cards.pgn",
    "examples/chesica.pgn",
    "examples/african-chess.pgn",
    "examples/cascudo.pgn",
    "examples/chesscala.pgn",
];

#[test]
fn show_writes_a_png_of_400_to_600_pixels_of_every_example() {
    let folder = std::env::temp_dir().join(format!("pbem-render-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("temp folder");
    for example in EXAMPLES {
        let target = folder.join("board.png");
        let target_text = target.to_string_lossy().into_owned();
        let output = pbem(&["show", "--format", "png", "-o", &target_text, example]);
        assert!(output.status.success(), "{example}: {output:?}");
        let bytes = std::fs::read(&target).expect("the png");
        let image = Pixmap::decode_png(&bytes).expect("a png");
        let longer = image.width().max(image.height());
        let shorter = image.width().min(image.height());
        assert!(
            (400..=600).contains(&longer) && shorter >= 300,
            "{example}: {longer}x{shorter}"
        );
        // The same picture on standard output.
        let output = pbem(&["show", "--format", "png", example]);
        assert_eq!(output.stdout, bytes, "{example}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn show_draws_a_position_string_and_a_ply_as_svg() {
    let output = pbem(&[
        "show",
        "--format",
        "svg",
        "--fen",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    ]);
    assert!(output.status.success(), "{output:?}");
    let svg = String::from_utf8(output.stdout).expect("utf-8");
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).expect("usvg");
    assert_eq!(
        with_prefix(&ids(&tree), "piece-"),
        ["e1", "e8", "h1"].map(str::to_owned).into_iter().collect()
    );
    assert!(with_prefix(&ids(&tree), "last-").is_empty());

    let output = pbem(&[
        "show",
        "--format",
        "svg",
        "--ply",
        "1",
        "examples/immortal.pgn",
    ]);
    let svg = String::from_utf8(output.stdout).expect("utf-8");
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).expect("usvg");
    assert_eq!(
        with_prefix(&ids(&tree), "last-"),
        ["e2", "e4"].map(str::to_owned).into_iter().collect()
    );

    // A position string that does not read is invalid input (see mistyped.rs).
    let output = pbem(&["show", "--variant", "cascudo", "--fen", "nonsense"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

#[test]
fn html_replays_every_game_of_the_files_in_one_page() {
    let output = pbem(&["html", "examples/mistakes.pgn", "examples/cascudo.pgn"]);
    assert!(output.status.success(), "{output:?}");
    let page = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(page.matches("<section class=\"game\"").count(), 4);
    assert!(!page.contains("<script src"));
    assert!(!page.contains("https://") && !page.contains("<link"));
    // Each game's data, with the picture's open tag once (the plies give only changes).
    assert_eq!(page.matches("class=\"frames\"").count(), 4);
    let cascudo = page.split("<section").nth(4).expect("the fourth game");
    assert_eq!(cascudo.matches("<svg ").count(), 1);
}

#[test]
fn the_config_turns_pictures_off() {
    let path = std::path::Path::new("/home/alice/.config/pbem/config.yaml");
    let base = "player:\n  name: Alice\n  email: alice@example.org\n";
    let on = pbem::config::Settings::from_yaml(base, path, None).expect("config");
    assert!(on.pictures);
    let off = pbem::config::Settings::from_yaml(&format!("{base}pictures: false\n"), path, None)
        .expect("config");
    assert!(!off.pictures);
}

#[test]
fn pbem_send_mails_the_picture_and_pbem_receive_takes_it_in() {
    use crate::support::homes::{Homes, ok};
    for (config, pictures) in [("", true), ("pictures: false\n", false)] {
        let homes = Homes::new(
            if pictures {
                "pictures-on"
            } else {
                "pictures-off"
            },
            config,
        );
        let id = homes.start("2026-11-01T09:00:00Z", &[]);
        ok(&homes
            .alice
            .run("2026-11-01T10:00:00Z", &["move", &id, "e4"]));
        let drafts = homes.alice.dir.join("drafts");
        let out = ok(&homes.alice.run(
            "2026-11-01T10:00:00Z",
            &["send", "--dry-run", drafts.to_str().unwrap(), &id],
        ));
        let path = PathBuf::from(out.trim());
        let mail = std::fs::read(&path).unwrap();
        let message = mail_parser::MessageParser::default()
            .parse(&mail)
            .expect("mail");
        let types = crate::support::mail::part_types(&message);
        if pictures {
            assert_eq!(types, crate::support::mail::WITH_PICTURE);
            let png = message.parts[4].contents();
            let image = Pixmap::decode_png(png).expect("the picture decodes");
            assert_eq!(image.width().max(image.height()), render::PNG_SIZE);
        } else {
            assert_eq!(types, ["text/plain"]);
        }
        let taken = ok(&homes
            .bob
            .run("2026-11-01T11:00:00Z", &["receive", path.to_str().unwrap()]));
        assert!(taken.contains("last turn 1. e4"), "{taken}");
    }
}

/// `pbem show --format svg` of a position string or a game file.
fn svg_shown(args: &[&str]) -> String {
    let mut all = vec!["show", "--format", "svg"];
    all.extend_from_slice(args);
    let output = pbem(&all);
    assert!(output.status.success(), "{all:?}: {output:?}");
    String::from_utf8(output.stdout).expect("utf-8")
}

#[test]
fn every_game_s_picture_shows_whose_turn_it_is() {
    let folder = std::env::temp_dir().join(format!("pbem-render-to-move-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("temp folder");
    let white = "id=\"to-move-white\"><circle ";
    let black = "id=\"to-move-black\"><circle ";
    for variant in pbem::games::Variant::ALL {
        let name = variant.name();
        // The start, White to move.
        let start = svg_shown(&["--variant", name, "--fen", "start"]);
        assert!(
            start.contains(white) && !start.contains(black),
            "{name}: White to move at the start"
        );
        // After White's first legal turn, Black to move.
        let legal = pbem(&["legal", "--variant", name]);
        let first = String::from_utf8(legal.stdout).expect("utf-8");
        let first = first
            .lines()
            .next()
            .unwrap_or_else(|| panic!("{name}: a turn"));
        let game = folder.join(format!("{}.pgn", name.replace(' ', "-")));
        std::fs::write(
            &game,
            format!("[Variant \"{name}\"]\n[Result \"*\"]\n\n1. {first} *\n"),
        )
        .expect("written");
        let after = svg_shown(&[game.to_str().expect("utf-8 path")]);
        assert!(
            after.contains(black) && !after.contains(white),
            "{name}: Black to move after 1. {first}"
        );
    }
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn the_wickets_picture_names_both_wickets() {
    let svg = svg_shown(&["--variant", "wickets", "--fen", "start"]);
    for wicket in ["w0", "w9"] {
        let label = format!("id=\"label-{wicket}\"><path d=\"M");
        assert!(svg.contains(&label), "{wicket}: {label}");
    }
    // Read back: each label is a stroke path of two glyphs, left of its wicket's patch.
    let tree = usvg::Tree::from_str(&svg, &usvg::Options::default()).expect("usvg");
    for wicket in ["w0", "w9"] {
        let node = tree
            .node_by_id(&format!("label-{wicket}"))
            .unwrap_or_else(|| panic!("label-{wicket}"));
        let bounds = node.abs_bounding_box();
        assert!(
            bounds.width() > 5.0 && bounds.height() > 5.0,
            "{wicket}: {bounds:?}"
        );
    }
}

/// The page of each game's long game: its bytes, written twice (to a file and to
/// standard output), which must be the same. The record must be valid to its end
/// (`pbem validate` finds no error in it).
fn long_game_page(folder: &std::path::Path, name: &str, text: &str) -> usize {
    let source = folder.join(format!("{name}.pgn"));
    std::fs::write(&source, text).expect("write the game");
    let page = folder.join(format!("{name}.html"));
    let (source, page_text) = (source.to_string_lossy(), page.to_string_lossy());
    let valid = pbem(&["validate", &source]);
    assert!(
        valid.status.success(),
        "{name}: the generated record is not valid: {}",
        String::from_utf8_lossy(&valid.stdout)
    );
    let written = pbem(&["html", &source, "-o", &page_text]);
    assert!(written.status.success(), "{name}: {written:?}");
    let bytes = std::fs::read(&page).expect("the page");
    let again = pbem(&["html", &source]);
    assert!(
        again.stdout == bytes,
        "{name}: the page is not the same bytes twice"
    );
    bytes.len()
}

/// The replay page of a long game in every game grows by at most a few hundred bytes a
/// ply (a whole picture a ply before, 10 to 100 KB): each ply carries only the parts of
/// its picture that change, and a piece's drawing travels once.
#[test]
fn the_replay_page_grows_by_a_few_hundred_bytes_a_ply_in_every_game() {
    use crate::support::playouts::LONG_GAMES;
    /// The most a ply may add to the page, over the whole page and between 1,000 and
    /// 2,000 plies (where the pieces' drawings and the squares are known).
    const PAGE_PER_PLY: usize = 400;
    const MORE_PER_PLY: usize = 300;
    let folder = std::env::temp_dir().join(format!("pbem-render-long-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("temp folder");
    let mut figures: Vec<String> = Vec::new();
    let mut pages: Vec<(usize, usize)> = Vec::new();
    for (name, long_game) in LONG_GAMES {
        let shorter = long_game_page(&folder, name, &long_game(1_000, 7));
        let longer = long_game_page(&folder, name, &long_game(2_000, 7));
        let (per_ply, more) = (longer / 2_000, (longer - shorter) / 1_000);
        figures.push(format!(
            "{name}: {per_ply} bytes a ply, {more} from 1,000 to 2,000"
        ));
        pages.push((per_ply, more));
    }
    eprintln!("{}", figures.join("\n"));
    assert!(
        pages
            .iter()
            .all(|&(per_ply, more)| per_ply <= PAGE_PER_PLY && more <= MORE_PER_PLY),
        "a page grows by more than {PAGE_PER_PLY} bytes a ply, or {MORE_PER_PLY} past 1,000 plies:\n{}",
        figures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&folder);
}
