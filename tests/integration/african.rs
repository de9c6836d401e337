//! African Chess: the scenario table (`tests/data/african/scenarios.txt`, one rule or
//! ruling a block), perft from the start and from crowded positions, and random playouts
//! whose every turn writes, reads back and resolves to itself, whose position strings
//! round-trip, and whose records replay as valid games.

use std::path::Path;

use pbem::games::Game;
use pbem::games::african::African;
use proptest::prelude::*;

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<African>("tests/data/african/scenarios.txt", 101);
}

#[test]
fn perft_from_the_start_and_from_crowded_positions() {
    let cases: [(&str, &[u64]); 5] = [
        // 94 single-stone steps a side; the sides cannot touch for two turns.
        (
            "pppptppp/pppppppp/8/8/8/8/PPPPPPPP/PPPPTPPP w 1",
            &[94, 8836, 799_658],
        ),
        // A touchstone in a group of three: 5 steps out and 15 sowings (north, east, west,
        // north-east and north-west, three places each); Black's lone touchstone then has
        // 3 steps after every one of them.
        ("7t/8/8/8/8/8/8/3(TPP)4 w 1", &[20, 60, 1050, 6252]),
        // A guarded touchstone inside a group of three (the scenario table lists the 22).
        ("8/8/8/3(tpp)4/3P4/8/8/T7 b 1", &[22, 215, 3923]),
        // Groups of every size on the back ranks: 5 touchstone steps, 14 sowings from d1,
        // 5 from b1, 5 from f1, 3 from h1 and 27 single steps.
        (
            "(pppp)1(ppp)1(tpp)1(pp)1/pppp4/8/8/8/8/4PPPP/1(PP)1(TPP)1(PPP)1(PPPP) w 1",
            &[59, 3465, 196_658],
        ),
        // Mixed squares in the middle, touchstones among enemy stones.
        (
            "4t3/8/2(pp)(PP)(pp)3/2(Pp)(TPpp)(pp)3/2(PPp)(pP)(PPP)3/8/8/8 w 1",
            &[38, 1520, 54_739],
        ),
    ];
    for (text, counts) in cases {
        let position = African::from_position_string(text).unwrap();
        for (depth, &expected) in (1..).zip(counts) {
            assert_eq!(position.perft(depth), expected, "{text} depth {depth}");
        }
    }
}

use crate::scenarios::{check_example_game, check_playout, pbem};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_playouts_round_trip_from_the_start(choices in prop::collection::vec(any::<u32>(), 0..300)) {
        check_playout(&African::start(), &choices)?;
    }

    #[test]
    fn random_playouts_round_trip_among_groups(choices in prop::collection::vec(any::<u32>(), 0..200)) {
        // Groups of every size, mixed squares and both touchstones inside groups.
        let start = African::from_position_string("(pppp)1(ppp)1(tpp)1(pp)1/pppp4/8/8/8/8/4PPPP/1(PP)1(TPP)1(PPP)1(PPPP) w 1").unwrap();
        check_playout(&start, &choices)?;
    }
}

#[test]
fn the_example_game_is_valid_and_ends_as_its_result_says() {
    check_example_game("examples/african-chess.pgn");
}

#[test]
fn the_commands_play_african_chess() {
    let output = pbem(&["validate", "examples/african-chess.pgn"]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains("valid, 82 plies, 0-1 (Black wins by touch)"),
        "{out}"
    );

    let output = pbem(&["perft", "--variant", "african", "2"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "8836\n");

    let output = pbem(&["fmt", "examples/african-chess.pgn"]);
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/african-chess.pgn"),
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), text);
}

/// A long game (the touchstones shuttling back and forth: African Chess has no automatic
/// draw) is replayed as it is read, and says what the full replay says: valid to its end,
/// and with a wrong turn at its end, that turn's place and reason. `benches/memory.sh`
/// measures its memory with a million plies.
#[test]
fn a_long_game_validates_to_its_end() {
    let dir = std::env::temp_dir().join(format!("pbem-african-long-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut movetext = String::new();
    for pair in 1..=5_000 {
        movetext += &format!(
            "{}. Te1-d2 Te8-d7 {}. Td2-e1 Td7-e8\n",
            2 * pair - 1,
            2 * pair
        );
    }
    let game = format!("[Variant \"African Chess\"]\n[Result \"*\"]\n\n{movetext}*\n");
    let valid = dir.join("long.pgn");
    std::fs::write(&valid, &game).unwrap();
    let output = pbem(&["validate", valid.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "{0}: game 1: valid, 20000 plies, *\n{0}: 1 game: 1 valid\n",
            valid.display()
        )
    );
    let json = pbem(&["validate", "--json", valid.to_str().unwrap()]);
    let json = String::from_utf8_lossy(&json.stdout);
    assert!(json.contains("\"plies\":20000"), "{json}");
    assert!(json.contains("\"final_position\":\""), "{json}");

    let wrong = dir.join("wrong.pgn");
    std::fs::write(&wrong, game.replace("\n*\n", "\nTe1-e3 *\n")).unwrap();
    let output = pbem(&["validate", wrong.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("illegal turn \"Te1-e3\""), "{out}");
    assert!(
        out.contains(&format!("--> {}:5004:1", wrong.display())),
        "{out}"
    );
    assert!(
        out.contains("game 1: invalid, 20000 plies (1 error)"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
