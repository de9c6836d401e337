//! The converters, driven by fixture files: every `tests/data/convert/*.{zsg,gc,txt}` is
//! converted by `pbem convert`, and the output must be the `.pgn` beside it (none when
//! nothing converts). An optional `.expect` beside it gives the arguments, the exit
//! status and the diagnostics:
//!
//! ```text
//! arg ARGUMENT          one command-line argument (spaces kept), in order
//! exit N                the exit status (0 when absent, and then stderr is empty)
//! stderr FRAGMENT       a fragment that standard error must contain
//! ```
//!
//! Adding a case is adding files. Besides: round trips of every fixture through each
//! writer, the Zillions samples of the shared data (read, and reported as games pbem does
//! not know), and random games of every game through each writer and back.

use std::path::{Path, PathBuf};
use std::process::Command;

use pbem::convert::ops::{self, Dialect, Op};
use pbem::convert::{self, Format, Options};
use pbem::games::{African, Cascudo, Chesica, Chess, Chesscala, Game, Wickets};
use pbem::notation::{Numbering, Record, parse_record, write_record};
use pbem::replay::replay;
use proptest::prelude::*;

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/convert")
}

fn inputs() -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("the fixture folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "zsg" || ext == "gc" || ext == "txt")
        })
        .collect();
    inputs.sort();
    inputs
}

struct Expect {
    args: Vec<String>,
    exit: i32,
    stderr: Vec<String>,
}

fn expect_for(input: &Path) -> Expect {
    let mut expect = Expect {
        args: Vec::new(),
        exit: 0,
        stderr: Vec::new(),
    };
    let Ok(text) = std::fs::read_to_string(input.with_extension("expect")) else {
        return expect;
    };
    for line in text.lines() {
        if let Some(arg) = line.strip_prefix("arg ") {
            expect.args.push(arg.to_owned());
        } else if let Some(code) = line.strip_prefix("exit ") {
            expect.exit = code.trim().parse().expect("an exit status");
        } else if let Some(fragment) = line.strip_prefix("stderr ") {
            expect.stderr.push(fragment.to_owned());
        } else if !line.trim().is_empty() {
            panic!("{}: cannot read the expect line {line:?}", input.display());
        }
    }
    expect
}

fn expected_pbem(input: &Path) -> String {
    std::fs::read_to_string(input.with_extension("pgn")).unwrap_or_default()
}

#[test]
fn every_fixture_converts_to_its_expected_record_and_diagnostics() {
    let inputs = inputs();
    // Three readers for each of the six games, and the damaged inputs.
    assert!(inputs.len() >= 24, "only {} fixtures", inputs.len());
    for input in &inputs {
        let expect = expect_for(input);
        let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("convert")
            .args(&expect.args)
            .arg(input)
            .env("NO_COLOR", "1")
            .output()
            .expect("pbem runs");
        let name = input.display();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(expect.exit),
            "{name}: exit status\n{stderr}"
        );
        assert_eq!(stdout, expected_pbem(input), "{name}: output\n{stderr}");
        if expect.exit == 0 {
            assert!(
                stderr.is_empty(),
                "{name}: unexpected diagnostics\n{stderr}"
            );
        }
        for fragment in &expect.stderr {
            assert!(
                stderr.contains(fragment.as_str()),
                "{name}: diagnostics lack {fragment:?}\n{stderr}"
            );
        }
        // What was converted is a valid game, even when not everything was.
        if !stdout.is_empty() {
            let record = parse_record(&stdout).expect("the output reads");
            let report = replay(&record);
            assert!(report.is_valid(), "{name}: {:?}", report.findings);
        }
    }
}

/// A pbem record through a writer and the matching reader, back to pbem text.
fn through(record: &Record, format: Format) -> convert::Converted {
    let dialect = match format {
        Format::Zillions => Dialect::WithChange,
        _ => Dialect::WithoutChange,
    };
    let exported = convert::export(record, dialect).expect("a valid record exports");
    let written = match format {
        Format::Zillions => convert::zillions::write(&exported),
        _ => convert::gamecourier::write(&exported),
    };
    assert_eq!(Format::guess(&written), format, "{written}");
    convert::to_pbem(&convert::read(format, &written), &Options::default())
}

#[test]
fn every_converted_fixture_round_trips_through_each_writer() {
    let mut checked = 0;
    for input in inputs() {
        let expected = expected_pbem(&input);
        if expect_for(&input).exit != 0 || expected.is_empty() {
            continue;
        }
        let record = parse_record(&expected).expect("the fixture reads");
        for format in [Format::Zillions, Format::GameCourier] {
            let back = through(&record, format);
            assert!(
                back.is_complete(),
                "{}: {:?}",
                input.display(),
                back.findings
            );
            assert_eq!(back.text, expected, "{} via {format}", input.display());
            checked += 1;
        }
    }
    assert!(checked >= 36, "{checked} round trips");
}

#[test]
fn convert_writes_atomically_with_output_and_refuses_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("pbem-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let target = dir.join("game.zsg");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/immortal.pgn");
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("convert")
            .args(args)
            .output()
            .expect("pbem runs")
    };
    let output = run(&[
        "--to".as_ref(),
        "zillions".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        target.as_os_str(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
    let written = std::fs::read_to_string(&target).expect("the output file");
    assert!(written.starts_with("Zillions Save Game File"));
    assert!(written.contains("\n1. Pawn e2 - e4\n1. Pawn e7 - e5\n"));
    // And back, the format guessed from the content.
    let output = run(&[target.as_os_str()]);
    assert_eq!(output.status.code(), Some(0));
    let back = String::from_utf8_lossy(&output.stdout);
    assert!(back.contains("1. e4 e5 2. f4 exf4 3. Bc4 Qh4+"), "{back}");

    for bad in [
        vec!["--to", "text"],
        vec!["--from", "chessbase"],
        vec!["--variant", "crazyhouse"],
        vec!["--variant", "chess"],
    ] {
        let mut args: Vec<&std::ffi::OsStr> = bad.iter().map(|arg| arg.as_ref()).collect();
        args.push(input.as_os_str());
        assert_eq!(run(&args).status.code(), Some(2), "{bad:?}");
    }
    let missing = dir.join("missing.zsg");
    assert_eq!(run(&[missing.as_os_str()]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Every example game through the binary to each writer and back: the same turns and
/// result as `pbem fmt` gives (tags other than the game, its start and the result are
/// not carried).
#[test]
fn every_example_converts_to_each_format_and_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pbem = |args: &[&std::ffi::OsStr]| {
        let output = Command::new(env!("CARGO_BIN_EXE_pbem"))
            .args(args)
            .output()
            .expect("pbem runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("utf-8")
    };
    let dir = std::env::temp_dir().join(format!("pbem-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let examples = [
        "immortal.pgn",
        "chesica.pgn",
        "african-chess.pgn",
        "wickets-cards.pgn",
        "chesscala.pgn",
        "cascudo.pgn",
    ];
    for example in examples {
        let path = root.join("examples").join(example);
        let original = parse_record(&pbem(&["fmt".as_ref(), path.as_os_str()])).expect("reads");
        for (format, extension) in [("zillions", "zsg"), ("gamecourier", "gc")] {
            let foreign = dir.join(format!("{example}.{extension}"));
            let written = pbem(&[
                "convert".as_ref(),
                "--to".as_ref(),
                format.as_ref(),
                path.as_os_str(),
            ]);
            std::fs::write(&foreign, written).expect("written");
            let back =
                parse_record(&pbem(&["convert".as_ref(), foreign.as_os_str()])).expect("reads");
            let tokens = |record: &Record| -> Vec<String> {
                record
                    .moves
                    .turns
                    .iter()
                    .map(|node| node.token.to_string())
                    .collect()
            };
            assert_eq!(tokens(&back), tokens(&original), "{example} via {format}");
            assert_eq!(back.result, original.result, "{example} via {format}");
            assert!(replay(&back).is_valid(), "{example} via {format}");
        }
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Every cascade of the Cascudo example is written as moves (and a promotion's change
/// of kind) without removals, one per link at most (a link whose token leaves a cell to an identical one does not
/// show), in an order the other program can play; every turn's operations give its
/// board exactly.
#[test]
fn a_cascade_is_written_as_its_moves() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cascudo.pgn");
    let record = parse_record(&std::fs::read_to_string(path).expect("the example")).expect("reads");
    let mut position = Cascudo::start();
    let mut chains = 0;
    for node in &record.moves.turns {
        let token = node.token.to_string();
        let syntax = Cascudo::parse_turn(&token).expect("a token");
        let turn = position.resolve(&syntax).expect("legal");
        let mover = position.side_to_move();
        let before = position.snapshot().expect("a board");
        position.play(&turn);
        let after = position.snapshot().expect("a board");
        for dialect in [Dialect::WithChange, Dialect::WithoutChange] {
            let ops = ops::derive(&before, &after, Cascudo::PIECE_KINDS, mover, dialect);
            let mut replayed = before.clone();
            ops::apply(&mut replayed, Cascudo::PIECE_KINDS, mover, &ops).expect("applies");
            assert_eq!(replayed, after, "{token}: {ops:?}");
            // A promotion adds a change of kind (a drop in Game Courier).
            let links = token.matches(['-', 'x']).count() + token.matches('=').count();
            assert!((1..=links).contains(&ops.len()), "{token}: {ops:?}");
            assert!(
                ops.iter().all(|op| !matches!(op, Op::Remove { .. })),
                "{token}: {ops:?}"
            );
            chains += 1;
        }
    }
    assert!(chains >= 50, "{chains}");
}

/// A random game from `start` through each writer and back: the same record, every turn
/// converted. Adding a game is one line below.
pub fn check_convert_roundtrip<G: Game + PartialEq>(
    start: &G,
    choices: &[u32],
) -> Result<(), TestCaseError> {
    let mut record = crate::scenarios::playout(start, choices)?;
    // Canonical text, as pbem_text writes it, to compare with.
    let tokens: Vec<String> = record
        .moves
        .turns
        .iter()
        .map(|node| node.token.to_string())
        .collect();
    let result = record.result.expect("a result");
    let standard = start.position_string() == G::start().position_string();
    let expected = convert::pbem_text(start, !standard, &tokens, result);
    if standard {
        record
            .tags
            .retain(|tag| tag.name != "FEN" && tag.name != "SetUp");
    }
    let mut text = String::new();
    write_record(&record, Numbering::default(), &mut text);
    let record = parse_record(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    for format in [Format::Zillions, Format::GameCourier] {
        let back = through(&record, format);
        prop_assert!(
            back.is_complete(),
            "{:?} via {}\n{}",
            back.findings,
            format,
            text
        );
        prop_assert_eq!(&back.text, &expected, "via {}", format);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_chess_games_survive_each_writer(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_convert_roundtrip(&Chess::start(), &choices)?;
    }

    #[test]
    fn random_chesica_games_survive_each_writer(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_convert_roundtrip(&Chesica::start(), &choices)?;
    }

    #[test]
    fn random_african_games_survive_each_writer(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_convert_roundtrip(&African::start(), &choices)?;
    }

    #[test]
    fn random_chesscala_games_survive_each_writer(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_convert_roundtrip(&Chesscala::start(), &choices)?;
    }

    #[test]
    fn random_cascudo_games_survive_each_writer(choices in prop::collection::vec(any::<u32>(), 0..120)) {
        check_convert_roundtrip(&Cascudo::start(), &choices)?;
    }

    #[test]
    fn random_wickets_games_survive_each_writer(
        choices in prop::collection::vec(any::<u32>(), 0..120),
        mode in 0..6usize,
    ) {
        let modes = ["det", "det2", "dice", "dice2", "cards", "cards2"];
        let start = Wickets::from_position_string(&format!(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8 {} 0 1",
            modes[mode]
        ))
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_convert_roundtrip(&start, &choices)?;
    }
}

/// Runs every reader and the conversion on a text: nothing panics, and every finding
/// with a place names the line and column of its byte offset.
fn check_any_text(text: &str) -> Result<(), TestCaseError> {
    for format in [Format::Zillions, Format::GameCourier, Format::Text] {
        let converted = convert::to_pbem(&convert::read(format, text), &Options::default());
        for finding in &converted.findings {
            let span = finding.span;
            if span.line == 0 {
                continue;
            }
            let before = text.get(..span.offset);
            prop_assert!(before.is_some(), "{:?} inside a character", finding);
            let before = before.unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |at| at + 1);
            let column = before[line_start..].chars().count() + 1;
            prop_assert_eq!(
                (span.line as usize, span.column as usize),
                (line, column),
                "{:?}",
                finding
            );
        }
        if !converted.text.is_empty() {
            let record =
                parse_record(&converted.text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(replay(&record).is_valid(), "{}", converted.text);
        }
    }
    Ok(())
}

fn fragments() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "1. ",
        "2... ",
        "3) ",
        "P ",
        "p ",
        "N ",
        "e2-e4",
        "e7-e5",
        "g1-f3",
        "e4-",
        "@-e5",
        "Q*e8",
        "; ",
        "Pawn e2 - e4",
        "Knight g8 - f6",
        " x e5",
        " = Queen",
        " on d8",
        "partial 2 ",
        "(x a2)",
        "(White Queen d4)",
        "{",
        "}",
        "(",
        ")",
        "é",
        "♘f3",
        "0-0",
        "e4",
        "Nf3",
        "1-0",
        "*",
        "// pbem turn e4",
        "; pbem result 1-0",
        "\n",
        "Zillions Save Game File Version 0.02 HH\n",
        "VariantName=Chesica\n",
        "Pass",
        "?Dice ",
        "capture e2 ",
        "  ",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_text_never_panics_and_findings_are_located(text in "\\PC{0,200}") {
        check_any_text(&text)?;
    }

    #[test]
    fn format_like_text_never_panics_and_findings_are_located(text in fragments()) {
        check_any_text(&text)?;
    }
}
