//! The shared data set's sample files through the reader and the converters: every real
//! PGN file is read and written as a fixed point, and the Zillions saved games are read
//! and reported as games pbem does not know.

use std::path::PathBuf;
use std::process::Command;

use pbem::convert::{self, Format, Options};
use pbem::replay::FindingKind;

use crate::support::records::assert_fixed_point;
use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::SharedData];
        every_shared_pgn_file_is_read_and_written_as_a_fixed_point,
        zillions_samples_read_and_are_reported_as_unknown_games,
        the_twic_sample_is_valid_with_turns_after_a_dead_position_as_warnings,
    ]
}

/// The TWIC sample (over-the-board games) has four games whose players made one more
/// move after a dead position: the record as played, so `validate` finds them valid with
/// a warning each, and invalid with `--strict` (issue 31, point 11).
fn the_twic_sample_is_valid_with_turns_after_a_dead_position_as_warnings() {
    let path = crate::shared_data().join("pgn/twic1599_1000k.pgn");
    let validate = |options: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("validate")
            .args(["--quiet", "--color", "never"])
            .args(options)
            .arg(&path)
            .output()
            .expect("pbem runs")
    };
    let output = validate(&[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.ends_with(": 1110 games: 1110 valid\n"), "{said}");
    let warnings: Vec<&str> = said
        .lines()
        .filter(|line| line.starts_with("warning: game "))
        .collect();
    assert_eq!(warnings.len(), 4, "{said}");
    for warning in &warnings {
        assert!(
            warning.contains(
                "the game was already over (draw by insufficient material); the turns from \
                 here on do not count (a warning in a game pbem did not conduct; --strict \
                 makes it an error)"
            ),
            "{warning}"
        );
    }
    let strict = validate(&["--strict"]);
    let said = String::from_utf8_lossy(&strict.stdout);
    assert_eq!(strict.status.code(), Some(1), "{said}");
    assert!(
        said.ends_with(": 1110 games: 1106 valid, 4 invalid\n"),
        "{said}"
    );
}

fn every_shared_pgn_file_is_read_and_written_as_a_fixed_point() {
    let dir = crate::shared_data();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir.join("pgn"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10);
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let records = assert_fixed_point(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        match name.as_ref() {
            "lichess_db_1000k.pgn" => assert_eq!(records.len(), 438),
            "twic1599_1000k.pgn" => assert_eq!(records.len(), 1110),
            "kasparov-deep-blue-1997.pgn" => assert_eq!(records.len(), 6),
            "utf8-bom.pgn" => assert_eq!(records[0].tag("Event"), Some("A")),
            "saturs-jannlee-zh-lichess.pgn" => {
                assert_eq!(records[0].moves.turns[21].token, "B@b6");
            }
            _ => {}
        }
    }
}

fn zillions_samples_read_and_are_reported_as_unknown_games() {
    let dir = crate::shared_data();
    let names = [
        "Dameo",
        "DoubutsuShogi",
        "Persian-Checkers",
        "Russian-Draughts",
        "Thai-Checkers",
        "simple",
    ];
    for name in names {
        let path = dir.join("zsg").join(format!("{name}.zsg"));
        let bytes = std::fs::read(&path).expect("the sample");
        let text = String::from_utf8_lossy(&bytes);
        assert_eq!(Format::guess(&text), Format::Zillions, "{name}");
        let foreign = convert::read(Format::Zillions, &text);
        assert!(
            foreign.findings.is_empty(),
            "{name}: {:?}",
            foreign.findings
        );
        let game = foreign.game.clone().expect("a VariantName");
        let rules = foreign.rules_file.clone().expect("a RulesFile");
        assert!(
            !foreign.turns.is_empty() || !foreign.edits.is_empty(),
            "{name}: nothing read"
        );
        let converted = convert::to_pbem(&foreign, &Options::default());
        assert!(converted.text.is_empty());
        let [finding] = converted.findings.as_slice() else {
            panic!("{name}: {:?}", converted.findings);
        };
        assert_eq!(finding.kind, FindingKind::UnsupportedVariant);
        assert!(
            finding.message.contains(&game) && finding.message.contains(&rules),
            "{}",
            finding.message
        );

        let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
            .args(["convert".as_ref(), path.as_os_str()])
            .output()
            .expect("pbem runs");
        assert_eq!(output.status.code(), Some(1), "{name}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("which pbem does not know"));
    }
    // In Dameo, Black's 31st and 42nd turns and White's 52nd are each one turn in two
    // partial lines, the second from where the first ended.
    let text = std::fs::read_to_string(dir.join("zsg/Dameo.zsg")).expect("the sample");
    let foreign = convert::read(Format::Zillions, &text);
    let last = foreign.turns.last().expect("turns");
    match &last.body {
        convert::TurnBody::Ops(ops) => assert_eq!(ops.len(), 4, "{ops:?}"),
        other => panic!("a saved game gives operations, not {other:?}"),
    }
    let move_lines = text
        .lines()
        .filter(|line| line.starts_with(char::is_numeric))
        .count();
    assert_eq!(foreign.turns.len(), move_lines - 3);
    // The Shashki sample is setup edits only.
    let text = std::fs::read_to_string(dir.join("zsg/Russian-Draughts.zsg")).expect("sample");
    let foreign = convert::read(Format::Zillions, &text);
    assert_eq!((foreign.edits.len(), foreign.turns.len()), (25, 0));
}
