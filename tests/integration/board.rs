//! `pbem::board`: what a player can click (issue 34, the play page's contract 1).
//!
//! - The clicks of chosen turns of the examples, one a line of [`CLICKS`]: a promotion,
//!   castling, a Chesica multi-jump, an African sowing whose touchstone place is named, a
//!   Cascudo cascade of five moves, a Chesscala two-move turn with a sowing order, a
//!   wickets throw in each decision mode, a named Defender.
//! - For every ply of every game of `examples/`, the view's turns are what the real
//!   `pbem legal FILE --game G --ply N` prints (the awaited parts when a part is
//!   awaited, nothing and status 1 when the game is over).
//! - Over random playouts of every game (fixed seed): every legal turn has clicks, every
//!   click is a `data-place` of the view's picture, exactly once, and the view lists each
//!   legal token once; the tokens written from one list of the turns
//!   (`Game::write_turns_except`) are each turn's own (`Game::write_turn_except`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use pbem::board::{self, View};
use pbem::games::{African, Cascudo, Chesica, Chess, Chesscala, Game, Variant, Wickets};
use pbem::notation::{Reader, Record, parse_record};
use pbem::replay::History;
use proptest::prelude::*;
use proptest::test_runner::{FileFailurePersistence, RngSeed};

/// Chosen turns and their clicks: the game (an example file, or a position string after
/// `fen VARIANT:`), the ply, the turn's token as `pbem legal` lists it, the clicks.
const CLICKS: &str = "
# orthodox chess: a move, castling both ways, a promotion (the piece is the token's)
examples/immortal.pgn           | 0  | Nf3                  | g1 f3
fen Chess:r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 | 0 | O-O   | e1 g1
fen Chess:r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 | 0 | O-O-O | e1 c1
fen Chess:8/P6k/8/8/8/8/8/K7 w - - 0 1 | 0 | a8=N     | a7 a8
# Chesica: the first multi-jump of the example, each landing clicked
examples/chesica.pgn            | 14 | g3xe5xg7             | g3 e5 g7
examples/chesica.pgn            | 67 | Qg1+                 | h2 g1
# African Chess: a step, a sowing, a sowing whose touchstone place is named
examples/african-chess.pgn      | 0  | a1-b2                | a1 b2
examples/african-chess.pgn      | 12 | h3NW                 | h3 g4
examples/african-chess.pgn      | 52 | f2NW=d4              | f2 e3 d4
# Cascudo: a cascade of five moves, link by link
examples/cascudo.pgn            | 0  | Ra1-b1-e1-c1-d3xb5   | a1 b1 e1 c1 d3 b5
examples/cascudo.pgn            | 28 | Ke2-f2-e3-f4#        | e2 f2 e3 f4
# Chesscala: a capture then a sowing of four, each square a piece is laid on
examples/chesscala.pgn          | 1  | Bd7xHb5,e8:HONB      | d7 b5 e8 e7 e6 e5 e4
examples/chesscala.pgn          | 0  | b1:OBNH              | b1 b2 b3 b4 b5
examples/chesscala.pgn          | 10 | Rb5xPb8,Pd2xHe3+     | b5 b8 d2 e3
# Chess with wickets: a throw, and a scoring attempt in each decision mode
examples/wickets-deterministic.pgn | 2 | Ke2:f3            | e1 e2 f3
examples/wickets-deterministic.pgn | 6 | Nxe5:w9_sa2_sb2_sc2 | f3 e5 w9 a2 b2 c2
examples/wickets-dice.pgn       | 8  | Nxe5:w9              | f3 e5 w9
examples/wickets-dice.pgn       | 9  | Df8:Nxe4:w0          | f8 f6 e4 w0
examples/wickets-cards.pgn      | 8  | Nxe5:w9              | f3 e5 w9
";

/// The record a line of [`CLICKS`] names.
fn source(game: &str) -> Record {
    if let Some(rest) = game.strip_prefix("fen ") {
        let (variant, fen) = rest.split_once(':').expect("fen VARIANT:POSITION");
        return parse_record(&format!("[Variant \"{variant}\"]\n[FEN \"{fen}\"]\n\n*"))
            .expect("the record reads");
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(game);
    let text = std::fs::read_to_string(&path).expect("the example reads");
    parse_record(&text).expect("the example reads")
}

#[test]
fn chosen_turns_are_clicked_as_a_player_thinks_of_them() {
    let mut checked = 0;
    for line in CLICKS.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [game, ply, token, clicks] = fields[..] else {
            panic!("a line of four fields: {line}");
        };
        let ply: usize = ply.parse().expect("a ply");
        let view = board::view(&source(game), Some(ply)).expect("the view");
        let turn = view
            .turns
            .iter()
            .find(|turn| turn.token == token)
            .unwrap_or_else(|| {
                let tokens: Vec<&str> = view.turns.iter().map(|t| t.token.as_str()).collect();
                panic!("{game} ply {ply}: no turn {token} in {tokens:?}")
            });
        assert_eq!(turn.clicks.join(" "), clicks, "{game} ply {ply}: {token}");
        checked += 1;
    }
    assert_eq!(checked, 19);
}

/// The `data-place` names of a picture's hit areas, in order.
fn places(svg: &str) -> Vec<String> {
    svg.split("data-place=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').expect("a closed attribute")].to_owned())
        .collect()
}

#[test]
fn the_hit_areas_are_every_place_once_and_drawn_last() {
    for (game, count) in [
        ("examples/immortal.pgn", 64),
        ("examples/wickets-dice.pgn", 66),
        ("examples/chesica.pgn", 64),
        ("examples/african-chess.pgn", 64),
        ("examples/cascudo.pgn", 44),
        ("examples/chesscala.pgn", 48),
    ] {
        let view = board::view(&source(game), Some(0)).expect("the view");
        let names = places(&view.svg);
        let distinct: BTreeSet<&String> = names.iter().collect();
        assert_eq!((names.len(), distinct.len()), (count, count), "{game}");
        // The layer is the picture's last element, so that it is on top of the pieces.
        let layer = view.svg.find("<g id=\"places\"").expect("the hit layer");
        assert!(view.svg[layer..].ends_with("</g></svg>\n"), "{game}");
        assert_eq!(view.svg[layer..].matches("<g").count(), 1, "{game}");
    }
    let wickets = places(
        &board::view(&source("examples/wickets-dice.pgn"), None)
            .unwrap()
            .svg,
    );
    assert!(wickets.contains(&"w0".to_owned()) && wickets.contains(&"w9".to_owned()));
    // `pbem show` draws no hit area: its bytes are the pictures' of the mails and `html`.
    let shown = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(["show", "--format", "svg", "examples/cascudo.pgn"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("pbem runs");
    assert!(shown.status.success());
    assert!(!String::from_utf8_lossy(&shown.stdout).contains("data-place"));
}

#[test]
fn the_view_knows_where_it_is() {
    let immortal = source("examples/immortal.pgn");
    let end = board::view(&immortal, None).expect("the view");
    assert_eq!((end.ply, end.plies.len()), (45, 45));
    assert_eq!(end.plies[44], "Be7#");
    assert_eq!(end.outcome.as_deref(), Some("White wins by checkmate"));
    assert!(end.turns.is_empty());
    assert_eq!(end.side_to_move, "black");
    let start = board::view(&immortal, Some(0)).expect("the view");
    assert_eq!(
        (start.ply, start.side_to_move.as_str(), start.turns.len()),
        (0, "white", 20)
    );
    let past = board::view(&immortal, Some(46)).unwrap_err();
    assert_eq!(past.to_string(), "game 1 has 45 playable plies, not 46");
    let unknown = parse_record("[Variant \"Tic-tac-toe\"]\n\n*").unwrap();
    assert!(
        board::view(&unknown, None)
            .unwrap_err()
            .to_string()
            .starts_with("unknown variant \"Tic-tac-toe\""),
    );
    let broken = parse_record("[FEN \"not a position\"]\n\n*").unwrap();
    let error = board::view(&broken, None).unwrap_err().to_string();
    assert!(
        error.contains("game 1:") && error.contains("pbem validate"),
        "{error}"
    );
}

/// What `pbem legal FILE --game G --ply N` prints, and whether it succeeded; no config
/// is found, so no player's own hand is shown.
fn legal(file: &Path, game: usize, ply: usize) -> (Vec<String>, bool) {
    let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("legal")
        .arg(file)
        .args(["--game", &game.to_string(), "--ply", &ply.to_string()])
        .env("PBEM_CONFIG", file.with_extension("no-such-config"))
        .output()
        .expect("pbem runs");
    let text = String::from_utf8(output.stdout).expect("utf-8");
    (
        text.lines().map(str::to_owned).collect(),
        output.status.success(),
    )
}

#[test]
fn every_position_of_the_examples_lists_what_pbem_legal_lists() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .expect("the examples")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    files.sort();
    let mut positions = 0;
    for file in &files {
        let reader = Reader::new(std::io::BufReader::new(
            std::fs::File::open(file).expect("the example opens"),
        ));
        for record in reader {
            let record = record.expect("the example reads");
            let Ok(end) = board::view(&record, None) else {
                continue;
            };
            for ply in 0..=end.ply {
                let view = board::view(&record, Some(ply)).expect("the view");
                let (printed, ok) = legal(file, record.number, ply);
                let at = format!("{} game {} ply {ply}", file.display(), record.number);
                if view.stopped.is_some() {
                    // A record that stops early (`mistakes.pgn`) offers nothing to play on.
                    assert!(
                        view.turns.is_empty() && view.awaited_parts.is_empty(),
                        "{at}"
                    );
                } else if view.awaiting.is_some() {
                    assert_eq!(printed, view.awaited_parts, "{at}");
                } else if view.outcome.is_some() {
                    assert!(!ok && printed.is_empty(), "{at}: {printed:?}");
                } else {
                    let tokens: Vec<String> = view.turns.iter().map(|t| t.token.clone()).collect();
                    assert!(ok, "{at}");
                    assert_eq!(printed, tokens, "{at}");
                }
                positions += 1;
            }
        }
    }
    assert!(positions > 300, "{positions} positions");
}

/// `cases` cases from a fixed seed (`PROPTEST_RNG_SEED` chooses another); failures are
/// saved under `target/`.
fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    ProptestConfig {
        cases,
        rng_seed: match base.rng_seed {
            RngSeed::Random => RngSeed::Fixed(34),
            chosen => chosen,
        },
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "target/proptest-regressions/board.txt",
        ))),
        ..base
    }
}

/// Plays `choices` as a random walk from `head`'s position in `G` (each choice picks one
/// of the turns the history allows), writing the record as it goes, then checks the
/// view at its end and at a ply in the middle.
fn check_playout<G: Game>(head: &str, start: G, choices: &[u32]) -> Result<(), TestCaseError> {
    let mut position = start;
    let mut history = History::starting_at(&position);
    let mut text = head.to_owned();
    for (index, choice) in choices.iter().enumerate() {
        if history.outcome(&position).is_some() || position.awaiting().is_some() {
            break;
        }
        let mut turns = Vec::new();
        position.legal_turns_except(history.forbidden(), &mut turns);
        let Some(turn) = turns.get(*choice as usize % turns.len().max(1)) else {
            break;
        };
        if index % 2 == 0 {
            text.push_str(&format!(" {}.", index / 2 + 1));
        }
        let token = position.write_turn_except(turn, history.forbidden());
        text.push_str(&format!(" {token}"));
        position.play(turn);
        history.enter(&position);
    }
    // The tokens written from one list of the turns are each turn's own token.
    let listed = history.legal_turns_written(&position);
    for (token, turn) in &listed {
        prop_assert_eq!(
            token,
            &position.write_turn_except(turn, history.forbidden())
        );
    }
    text.push_str(" *\n");
    let record = parse_record(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    let end =
        board::view(&record, None).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
    check_view(&end, &text)?;
    let middle =
        board::view(&record, Some(end.ply / 2)).map_err(|e| TestCaseError::fail(e.to_string()))?;
    check_view(&middle, &text)
}

/// Every turn has clicks, every click names a place of the picture, and every token
/// comes once (turns that share their clicks are told apart by it).
fn check_view(view: &View, text: &str) -> Result<(), TestCaseError> {
    let names = places(&view.svg);
    let distinct: BTreeSet<&String> = names.iter().collect();
    prop_assert_eq!(
        names.len(),
        distinct.len(),
        "a place has two hit areas: {}",
        text
    );
    let mut tokens = BTreeSet::new();
    for turn in &view.turns {
        prop_assert!(
            !turn.clicks.is_empty(),
            "{} has no clicks: {}",
            turn.token,
            text
        );
        for click in &turn.clicks {
            prop_assert!(
                distinct.contains(click),
                "{}: {} is no place of the picture ({})",
                turn.token,
                click,
                text
            );
        }
        prop_assert!(
            tokens.insert(turn.token.clone()),
            "{} twice: {}",
            turn.token,
            text
        );
    }
    Ok(())
}

/// The record's head for a game of `variant` (from `fen` if given).
fn head(variant: Variant, fen: Option<&str>, extra: &str) -> String {
    let mut head = format!("[Variant \"{}\"]\n{extra}", variant.name());
    if let Some(fen) = fen {
        head.push_str(&format!("[FEN \"{fen}\"]\n"));
    }
    head.push('\n');
    head
}

/// A wickets game's start in each decision mode, with its tag.
const WICKETS_MODES: [&str; 6] = [
    "Deterministic",
    "Deterministic II",
    "Dice",
    "Dice II",
    "Cards",
    "Cards II",
];

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn chess_turns_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_playout(&head(Variant::Chess, None, ""), Chess::start(), &choices)?;
    }

    #[test]
    fn chesica_turns_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..160)) {
        check_playout(&head(Variant::Chesica, None, ""), Chesica::start(), &choices)?;
    }

    #[test]
    fn african_turns_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..160)) {
        check_playout(&head(Variant::AfricanChess, None, ""), African::start(), &choices)?;
    }

    #[test]
    fn cascudo_turns_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..80)) {
        check_playout(&head(Variant::Cascudo, None, ""), Cascudo::start(), &choices)?;
    }

    #[test]
    fn chesscala_turns_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..60)) {
        check_playout(&head(Variant::Chesscala, None, ""), Chesscala::start(), &choices)?;
    }

    #[test]
    fn chesscala_long_games_are_clickable(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        let fen = crate::support::playouts::CHESSCALA_LONG;
        let start = Chesscala::from_position_string(fen).expect("the position reads");
        check_playout(&head(Variant::Chesscala, Some(fen), ""), start, &choices)?;
    }

    #[test]
    fn wickets_turns_are_clickable(
        mode in 0..WICKETS_MODES.len(),
        choices in prop::collection::vec(any::<u32>(), 0..160),
    ) {
        let tag = format!("[Decision \"{}\"]\n", WICKETS_MODES[mode]);
        let record = parse_record(&format!("{}*", head(Variant::ChessWithWickets, None, &tag)))
            .expect("the head reads");
        let start = pbem::replay::replay_game::<Wickets>(&record)
            .start
            .expect("the start");
        check_playout(&head(Variant::ChessWithWickets, None, &tag), start, &choices)?;
    }
}
