//! Every real PGN file of the shared data set: orthodox games validate, other variants
//! are reported as unsupported game by game, and nothing stops the rest.

use pbem::notation::{ReadError, Reader};
use pbem::replay::replay;

use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::SharedData]; every_shared_pgn_file_is_judged_correctly]
}

/// (file, games, valid, unsupported): what each shared file must give.
const EXPECTED: &[(&str, usize, usize, usize)] = &[
    ("anastasian-lewis.pgn", 1, 1, 0),
    ("antichess-programfox.pgn", 2, 0, 2),
    ("chessbase-empty-line.pgn", 1, 1, 0),
    ("cutechess-fischerrandom.pgn", 4, 0, 4),
    ("kasparov-deep-blue-1997.pgn", 6, 6, 0),
    ("knightvuillaume-jannlee-zh-lichess.pgn", 1, 0, 1),
    ("lichess_db_1000k.pgn", 438, 438, 0),
    ("molinari-bordais-1979.pgn", 1, 1, 0),
    ("nepomniachtchi-liren-game1.pgn", 1, 1, 0),
    ("saturs-jannlee-zh-lichess.pgn", 1, 0, 1),
    ("stockfish-learning.pgn", 1, 1, 0),
    ("twic1599_1000k.pgn", 1110, 1110, 0),
    ("uci-moves.pgn", 1, 1, 0),
    ("utf8-bom.pgn", 2, 2, 0),
];

fn every_shared_pgn_file_is_judged_correctly() {
    let data = crate::shared_data();
    let folder = data.join("pgn");
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".pgn"))
        .collect();
    names.sort();
    let listed: Vec<&str> = EXPECTED.iter().map(|(name, ..)| *name).collect();
    assert_eq!(names, listed, "the shared PGN files changed");

    let mut problems = Vec::new();
    for (name, games, valid, unsupported) in EXPECTED {
        let bytes = std::fs::read(folder.join(name)).unwrap();
        let (mut seen, mut ok, mut other) = (0, 0, 0);
        for item in Reader::new(&bytes[..]) {
            seen += 1;
            match item {
                Ok(record) => {
                    let report = replay(&record);
                    if report.is_valid() {
                        ok += 1;
                    } else if report.is_unsupported() {
                        other += 1;
                    } else {
                        problems.push(format!("{name}: game {seen}: {:?}", report.findings));
                    }
                }
                Err(ReadError::Parse(error)) => {
                    problems.push(format!("{name}: game {seen} unreadable: {error}"));
                }
                Err(ReadError::Io(error)) => panic!("{name}: {error}"),
            }
        }
        if (seen, ok, other) != (*games, *valid, *unsupported) {
            problems.push(format!(
                "{name}: {seen} games, {ok} valid, {other} unsupported; expected {games}, {valid}, {unsupported}"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
