//! Every real PGN file of the shared data set: orthodox games validate, other variants
//! are reported as unsupported game by game, and nothing stops the rest. Four TWIC games
//! play one move past a dead position: valid with a warning by default (pbem did not
//! conduct them) and with `--lenient-results`, invalid with `--strict`. No game writes `*`
//! for a game the rules have ended.

use pbem::games::chess::Chess;
use pbem::notation::{ReadError, Reader, Record};
use pbem::replay::stream::Streamer;
use pbem::replay::{Finding, FindingKind, Options, Severity, replay_with};

use crate::{Need, Test};

pub fn tests() -> Vec<Test> {
    crate::tests![&[Need::SharedData];
        every_shared_pgn_file_is_judged_correctly,
        streamed_shared_games_get_the_full_replays_report]
}

/// The games (file, number in it) that go on past a dead position.
const PAST_THE_END: &[(&str, usize)] = &[
    ("twic1599_1000k.pgn", 2),
    ("twic1599_1000k.pgn", 67),
    ("twic1599_1000k.pgn", 828),
    ("twic1599_1000k.pgn", 871),
];

/// (file, games, valid, unsupported): what each shared file must give by default and
/// with `--lenient-results`; with `--strict` the games of [`PAST_THE_END`] are invalid.
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

/// Whether the findings warn of a turn after the game's end.
fn warns_after_end(findings: &[Finding]) -> bool {
    findings.iter().any(|finding| {
        finding.kind == FindingKind::AfterEnd && finding.severity == Severity::Warning
    })
}

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
    let (mut total, mut total_valid, mut total_invalid, mut total_unsupported) = (0, 0, 0, 0);
    for (name, games, valid, unsupported) in EXPECTED {
        let bytes = std::fs::read(folder.join(name)).unwrap();
        let (mut seen, mut ok, mut other) = (0, 0, 0);
        for item in Reader::new(&bytes[..]) {
            seen += 1;
            match item {
                Ok(record) => {
                    let by_default = replay_with(&record, Options::default());
                    let strict = replay_with(&record, Options::from_flags(false, true));
                    let lenient = replay_with(&record, Options::from_flags(true, false));
                    let past_the_end = PAST_THE_END.contains(&(name, seen));
                    total += 1;
                    if strict.is_valid() {
                        total_valid += 1;
                    } else if strict.is_unsupported() {
                        total_unsupported += 1;
                    } else {
                        total_invalid += 1;
                    }
                    if past_the_end {
                        // Exactly one error: the turn after the dead position.
                        let errors: Vec<_> = strict.errors().collect();
                        let expected = errors.len() == 1
                            && errors[0].kind == FindingKind::AfterEnd
                            && errors[0].message.contains("insufficient material");
                        if !expected {
                            problems.push(format!("{name}: game {seen}: {:?}", strict.findings));
                        }
                        if !warns_after_end(&lenient.findings) {
                            problems.push(format!(
                                "{name}: game {seen}, lenient: {:?}",
                                lenient.findings
                            ));
                        }
                        // By default the same warning (pbem did not conduct the game).
                        if !(by_default.is_valid() && warns_after_end(&by_default.findings)) {
                            problems.push(format!(
                                "{name}: game {seen}, by default: {:?}",
                                by_default.findings
                            ));
                        }
                    } else if strict != lenient || strict != by_default {
                        problems.push(format!(
                            "{name}: game {seen}: the options change {:?} / {:?}",
                            lenient.findings, by_default.findings
                        ));
                    }
                    if lenient.is_valid() {
                        ok += 1;
                    } else if lenient.is_unsupported() {
                        other += 1;
                    } else {
                        problems.push(format!("{name}: game {seen}: {:?}", lenient.findings));
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
    assert_eq!(
        (total, total_valid, total_invalid, total_unsupported),
        (1570, 1558, 4, 8),
        "games, valid, invalid and unsupported over every shared file, with --strict"
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The streamed path of `pbem validate` (`replay::stream`) against the full replay on
/// every shared game: a streamed game gets the full replay's report, and most orthodox
/// games are streamed.
fn streamed_shared_games_get_the_full_replays_report() {
    let folder = crate::shared_data().join("pgn");
    let (mut streamed, mut games) = (0, 0);
    for (name, ..) in EXPECTED {
        let bytes = std::fs::read(folder.join(name)).unwrap();
        let full: Vec<_> = Reader::new(&bytes[..]).collect();
        let mut reader = Reader::new(&bytes[..]);
        let mut streamer = Streamer::<Chess>::new();
        let mut tags = Record::default();
        let mut number = 0;
        while let Some(item) = reader.next_streamed(&mut tags, &mut streamer) {
            games += 1;
            number += 1;
            assert_eq!(number, reader.games_read(), "{name}");
            let expected = full[number - 1].as_ref().ok();
            match item {
                Ok(None) => {
                    streamed += 1;
                    let report = streamer.take_report(true).unwrap();
                    let record = expected.expect("the full reader reads a streamed game");
                    let full_report = replay_with(record, Options::default());
                    assert_eq!(report, full_report, "{name} game {number}");
                    assert_eq!(record.tags, tags.tags, "{name} game {number}");
                }
                Ok(Some(record)) => assert_eq!(Some(&record), expected, "{name} {number}"),
                Err(_) => assert!(expected.is_none(), "{name} game {number}"),
            }
        }
        assert_eq!(number, full.len(), "{name}: every game once");
    }
    assert!(streamed > 1400, "{streamed} of {games} games streamed");
}
