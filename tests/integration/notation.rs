//! The notation layer: fixtures under tests/data/notation, the shared PGN files, a large
//! generated stream, and property tests of the reader and the writer.

use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use pbem::games::{Color, GameResult};
use pbem::notation::{
    Comment, Line, Nag, Numbering, ReadError, Reader, Record, Span, Tag, TurnNode, complete_roster,
    parse_record, read_str, record_to_string,
};
use proptest::prelude::*;

use crate::support::records::{assert_fixed_point, canonical, read_all, write_all};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/notation")
        .join(name)
}

#[test]
fn lenient_input_is_read_and_written_canonically() {
    let input = std::fs::read_to_string(fixture("lenient.pgn")).unwrap();
    let expected = std::fs::read_to_string(fixture("lenient.expected.pgn")).unwrap();
    let records = assert_fixed_point(&input);
    assert_eq!(write_all(&records), expected);
    assert_eq!(records.len(), 4);
    // Every line of the canonical output is under 80 characters.
    assert!(expected.lines().all(|line| line.chars().count() < 80));
    // The same input with CRLF line ends gives the same records.
    let crlf = input.replace('\n', "\r\n");
    assert_eq!(read_all(&crlf), records);
}

#[test]
fn lenient_input_has_the_expected_structure() {
    let input = std::fs::read_to_string(fixture("lenient.pgn")).unwrap();
    let records = read_all(&input);
    let first = &records[0];
    assert_eq!(first.tag("Event"), Some("Lenient \"quoted\" \\ back"));
    assert_eq!(first.result, Some(GameResult::WhiteWins));
    assert_eq!(
        first.moves.comments[0].text,
        "A comment before the first move, over two lines."
    );
    let turns = &first.moves.turns;
    let tokens: Vec<&str> = turns.iter().map(|turn| turn.token.as_str()).collect();
    assert_eq!(
        tokens,
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"
        ]
    );
    assert_eq!(turns[3].nags, [Nag(5)]);
    assert_eq!(turns[4].nags, [Nag(13)]);
    assert_eq!(turns[5].nags, [Nag(2)]);
    assert_eq!(turns[5].comments[0].text, "after a move number");
    assert_eq!(turns[6].comments[0].text, "to the end of the line");
    let variation = &turns[7].variations[0];
    assert_eq!(variation.turns[1].token, "Bb3");
    assert_eq!(
        variation.turns[1].variations[0].turns[0].nags,
        [Nag(6), Nag(2)]
    );
    // The tagless game after the first result is a game of its own.
    assert!(records[1].tags.is_empty());
    assert_eq!(records[1].result, Some(GameResult::BlackWins));
    // A variation before the first turn is an alternative to that turn.
    assert_eq!(records[2].moves.turns[0].variations[0].turns[0].token, "c4");
    assert_eq!(records[2].moves.turns[1].token, "N@f3");
    assert_eq!(records[3].result, None);
    // Spans: line and column from 1, in the whole file (after the byte order mark).
    assert_eq!(
        (first.span.line, first.span.column, first.span.offset),
        (2, 1, 42)
    );
    assert_eq!((turns[0].span.line, turns[0].span.column), (11, 24));
    assert_eq!((turns[5].span.line, turns[5].span.column), (11, 79));
    assert_eq!(
        (
            turns[6].comments[0].span.line,
            turns[6].comments[0].span.column
        ),
        (13, 30)
    );
    assert_eq!((first.result_span.line, first.result_span.column), (14, 46));
    assert_eq!((records[1].span.line, records[1].span.column), (16, 1));
    assert_eq!(
        records.iter().map(|r| r.number).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
}

/// One case of `malformed.txt`.
struct Case {
    name: String,
    expect: Vec<String>,
    input: String,
}

fn malformed_cases() -> Vec<Case> {
    let table = std::fs::read_to_string(fixture("malformed.txt")).unwrap();
    let mut cases = Vec::new();
    for block in table.split("\n=== ").skip(1) {
        let (head, input) = block.split_once("\n---\n").expect("a case has a --- line");
        let mut head_lines = head.lines();
        let name = head_lines.next().unwrap().to_owned();
        let expect = head_lines
            .map(|line| {
                line.strip_prefix("expect: ")
                    .expect("expect: line")
                    .to_owned()
            })
            .collect();
        cases.push(Case {
            name,
            expect,
            input: input.to_owned(),
        });
    }
    assert!(cases.len() >= 10, "the table was not read");
    cases
}

/// What the reader says about each game, in the table's words.
fn outcomes(input: &str) -> Vec<String> {
    read_str(input)
        .map(|game| match game {
            Ok(_) => "ok".to_owned(),
            Err(ReadError::Parse(error)) => format!(
                "error {}:{} {}",
                error.span.line, error.span.column, error.message
            ),
            Err(ReadError::Io(error)) => format!("io {error}"),
        })
        .collect()
}

#[test]
fn malformed_inputs_give_located_errors_and_reading_goes_on() {
    let mut failures = Vec::new();
    for case in malformed_cases() {
        let got = outcomes(&case.input);
        let matches = got.len() == case.expect.len()
            && got
                .iter()
                .zip(&case.expect)
                .all(|(got, expected)| got.starts_with(expected.as_str()));
        if !matches {
            failures.push(format!(
                "{}:\n  expected {:?}\n  got      {:?}",
                case.name, case.expect, got
            ));
        }
        for game in read_str(&case.input) {
            if let Err(ReadError::Parse(error)) = game {
                assert!(error.message.chars().next().unwrap().is_lowercase());
                assert!(!error.message.ends_with('.'));
                assert!(error.span.offset <= case.input.len());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn game_text_shows_the_source_line_of_an_error() {
    let input = "[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. e4 e5 2. Nf3 $999 *\n";
    let mut reader = read_str(input);
    assert!(reader.next().unwrap().is_ok());
    let Some(Err(ReadError::Parse(error))) = reader.next() else {
        panic!("expected an error in game 2")
    };
    assert_eq!(error.game, 2);
    let (text, start) = reader.game_text();
    assert_eq!(start.line, 5);
    assert_eq!(&input[start.offset..start.offset + text.len()], text);
    let line_in_game = (error.span.line - start.line) as usize;
    let source_line = text.lines().nth(line_in_game).unwrap();
    assert_eq!(source_line, "1. e4 e5 2. Nf3 $999 *");
    let caret = format!("{}^", " ".repeat(error.span.column as usize - 1));
    assert_eq!(&source_line[caret.len() - 1..caret.len() + 3], "$999");
    assert!(reader.next().is_none());
}

#[test]
fn invalid_utf8_is_a_located_error_and_the_next_game_is_read() {
    let mut input = b"[Event \"a\"]\n\n1. e4 {caf".to_vec();
    input.extend_from_slice(&[0xC3, 0x28]);
    input.extend_from_slice(b"} *\n\n[Event \"b\"]\n\n1. d4 *\n");
    let games: Vec<_> = Reader::new(&input[..]).collect();
    assert_eq!(games.len(), 2);
    match &games[0] {
        Err(ReadError::Parse(error)) => {
            assert_eq!(error.message, "expected utf-8 text, found the byte 0xc3");
            assert_eq!((error.span.line, error.span.column), (3, 11));
            assert_eq!(error.span.offset, 23);
        }
        other => panic!("expected a utf-8 error, got {other:?}"),
    }
    assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("b"));
}

#[test]
fn a_game_over_the_size_limit_is_an_error_and_the_next_game_is_read() {
    let long_comment = "x ".repeat(600);
    let input = format!(
        "[Event \"a\"]\n\n1. e4 *\n\n[Event \"big\"]\n\n1. e4 {{{long_comment}}} *\n\n[Event \"c\"]\n\n1. d4 *\n"
    );
    let games: Vec<_> = Reader::new(input.as_bytes())
        .with_max_game_bytes(1000)
        .collect();
    assert_eq!(games.len(), 3);
    assert!(games[0].is_ok());
    match &games[1] {
        Err(ReadError::Parse(error)) => {
            assert!(
                error.message.starts_with("game too large"),
                "{}",
                error.message
            );
            assert_eq!((error.span.line, error.span.column), (5, 1));
            assert_eq!(error.game, 2);
        }
        other => panic!("expected a size error, got {other:?}"),
    }
    assert_eq!(games[2].as_ref().unwrap().tag("Event"), Some("c"));
}

#[test]
fn an_io_error_is_returned_and_ends_reading() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    let mut reader = Reader::new(BufReader::new(Failing));
    assert!(matches!(reader.next(), Some(Err(ReadError::Io(_)))));
    assert!(reader.next().is_none());
}

#[test]
fn parse_record_wants_exactly_one_game() {
    assert!(parse_record("1. e4 *").is_ok());
    let error = parse_record("  \n").unwrap_err();
    assert_eq!(error.message, "expected a game, found the end of the input");
    assert_eq!((error.span.line, error.span.column), (2, 1));
    let error = parse_record("1. e4 *\n[Event \"x\"]\n1. d4 *").unwrap_err();
    assert!(error.message.contains("found another game"));
    assert_eq!(error.span.line, 2);
}

#[test]
fn a_carriage_return_in_a_tag_value_is_read_as_a_space() {
    // The writer writes a line break in a value as a space; reading a bare carriage
    // return as one keeps the value the same after `fmt` (found by the validate fuzz
    // target: a Chesscala `[Array]` with carriage returns inside was valid before `fmt`
    // and invalid after it).
    let text = "[Array \"o\r\r\rrthodox\tarmy\"]\r\n[Site \"a\\\r\"]\r\n\r\n*\r\n";
    let record = parse_record(text).unwrap();
    assert_eq!(record.tag("Array"), Some("o   rthodox\tarmy"));
    assert_eq!(record.tag("Site"), Some("a\\ "));
    let written = record_to_string(&record, Numbering::default());
    assert_eq!(
        written,
        "[Site \"a\\\\ \"]\n[Array \"o   rthodox\tarmy\"]\n\n*\n"
    );
    let again = parse_record(&written).unwrap();
    for name in ["Array", "Site"] {
        assert_eq!(again.tag(name), record.tag(name));
    }
}

#[test]
fn numbering_comes_from_the_fen_tag() {
    let record = parse_record(
        "[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7\"]\n\ne5 Nf3 *",
    )
    .unwrap();
    let numbering = Numbering::from_tags(&record);
    assert_eq!(
        numbering,
        Numbering {
            fullmove: 7,
            side: Color::Black
        }
    );
    assert!(record_to_string(&record, numbering).ends_with("\n\n7... e5 8. Nf3 *\n"));
    let odd = parse_record("[FEN \"8/8 w\"]\n\n*").unwrap();
    assert_eq!(Numbering::from_tags(&odd), Numbering::default());
}

#[test]
fn complete_roster_fills_the_seven_tags_and_the_result() {
    let mut record = parse_record("[Result \"1/2-1/2\"]\n[Annotator \"me\"]\n\n1. e4").unwrap();
    complete_roster(&mut record);
    assert_eq!(record.result, Some(GameResult::Draw));
    let names: Vec<&str> = record.tags.iter().map(|tag| tag.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "Annotator"
        ]
    );
    assert_eq!(record.tag("Date"), Some("????.??.??"));
    assert_eq!(record.tag("Result"), Some("1/2-1/2"));
    let text = record_to_string(&record, Numbering::default());
    assert_eq!(parse_record(&text).unwrap(), record);

    let mut bare = parse_record("1. e4 e5 0-1").unwrap();
    complete_roster(&mut bare);
    assert_eq!(bare.tag("Result"), Some("0-1"));
    let mut nothing = parse_record("1. e4").unwrap();
    complete_roster(&mut nothing);
    assert_eq!(nothing.result, Some(GameResult::Unknown));
    assert_eq!(nothing.tag("Result"), Some("*"));
}

#[test]
fn comments_with_braces_are_written_as_line_comments() {
    let mut record = parse_record("1. e4 *").unwrap();
    record.moves.turns[0].comments.push(Comment {
        text: "a } b".into(),
        span: Span::default(),
    });
    record.moves.turns[0].variations.push(Line {
        comments: vec![Comment {
            text: "x}".into(),
            span: Span::default(),
        }],
        turns: Vec::new(),
    });
    let text = record_to_string(&record, Numbering::default());
    assert_eq!(text, "1. e4 ; a } b\n(; x}\n) *\n");
    assert_eq!(parse_record(&text).unwrap(), record);
}

/// An endless `Read` of one game repeated, up to a number of bytes.
struct Repeat {
    game: &'static [u8],
    position: usize,
    left: usize,
}

impl Read for Repeat {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < buf.len() && self.left > 0 {
            let chunk = &self.game[self.position..];
            let n = chunk.len().min(buf.len() - written).min(self.left);
            buf[written..written + n].copy_from_slice(&chunk[..n]);
            written += n;
            self.left -= n;
            self.position = (self.position + n) % self.game.len();
        }
        Ok(written)
    }
}

const REPEATED_GAME: &str = "[Event \"Stream\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n\
1. e4 {[%clk 0:05:00]} e5 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 4. O-O) 4. Ba4 Nf6\n\
5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 1-0\n\n";

#[test]
fn a_large_stream_is_read_in_flat_memory() {
    let game = REPEATED_GAME.as_bytes();
    // About 100 MB of whole games.
    let bytes = (100 << 20) / game.len() * game.len();
    let source = Repeat {
        game,
        position: 0,
        left: bytes,
    };
    let mut games = 0;
    let mut last_offset = 0;
    for (index, record) in Reader::new(BufReader::new(source)).enumerate() {
        match record {
            Ok(record) => {
                games += 1;
                assert_eq!(record.number, index + 1);
                last_offset = record.span.offset;
            }
            Err(error) => panic!("game {}: {error}", index + 1),
        }
    }
    assert_eq!(games, bytes / game.len());
    assert_eq!(last_offset, (games - 1) * game.len());
}

#[test]
fn arbitrary_garbage_never_panics() {
    let mut garbage: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    garbage.extend_from_slice(b"{{{(((([[[\"\\");
    garbage.extend(std::iter::repeat_n(b'(', 10_000));
    for (index, game) in Reader::new(&garbage[..]).enumerate() {
        if let Err(ReadError::Parse(error)) = game {
            assert!(error.span.offset <= garbage.len());
            assert_eq!(error.game, index + 1);
        }
    }
    let deep = format!("1. e4 {}", "(1. d4 ".repeat(1000));
    let error = parse_record(&deep).unwrap_err();
    assert!(
        error.message.contains("nested too deeply"),
        "{}",
        error.message
    );
}

// ---- Property tests ----

/// Characters for tag values and comment text, with the awkward ones well represented.
fn text_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => proptest::char::range('a', 'z'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('{'),
        1 => Just('}'),
        1 => Just(';'),
        1 => Just('%'),
        1 => Just('['),
        1 => Just(']'),
        1 => Just('é'),
        1 => Just('('),
        1 => Just('$'),
    ]
}

fn tag() -> impl Strategy<Value = Tag> {
    let names = prop_oneof![
        Just("Event".to_owned()),
        Just("Site".to_owned()),
        Just("Date".to_owned()),
        Just("Result".to_owned()),
        Just("White".to_owned()),
        "[A-Za-z][A-Za-z0-9_+#=:-]{0,10}",
    ];
    let value = proptest::collection::vec(
        prop_oneof![8 => text_char(), 2 => Just(' '), 1 => Just('\t')],
        0..20,
    )
    .prop_map(|chars| chars.into_iter().collect::<String>());
    (names, value).prop_map(|(name, value)| Tag {
        name: name.into(),
        value: value.into(),
        span: Span::default(),
    })
}

/// Comment text with odd spacing: the reader collapses it, so records are compared in
/// canonical form.
fn comment() -> impl Strategy<Value = Comment> {
    let space = prop_oneof![Just(" "), Just("  "), Just("\n"), Just("\t "), Just("\r\n")];
    let word = proptest::collection::vec(text_char(), 1..12)
        .prop_map(|chars| chars.into_iter().collect::<String>());
    proptest::collection::vec((space, word), 0..20).prop_map(|parts| {
        let mut text = String::new();
        for (space, word) in parts {
            text.push_str(space);
            text.push_str(&word);
        }
        Comment {
            text: text.into(),
            span: Span::default(),
        }
    })
}

fn token() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_+#=:-]{1,10}".prop_filter("not a result", |token| {
        GameResult::from_token(token).is_none()
    })
}

fn turn(depth: u32) -> BoxedStrategy<TurnNode> {
    let nags = proptest::collection::vec(any::<u8>().prop_map(Nag), 0..3);
    let comments = proptest::collection::vec(comment(), 0..2);
    let variations = if depth == 0 {
        Just(Vec::new()).boxed()
    } else {
        proptest::collection::vec(line(depth - 1), 0..2).boxed()
    };
    (token(), nags, comments, variations)
        .prop_map(|(token, nags, comments, variations)| TurnNode {
            token: token.into(),
            span: Span::default(),
            number: Default::default(),
            nags,
            comments,
            variations,
        })
        .boxed()
}

fn line(depth: u32) -> BoxedStrategy<Line> {
    (
        proptest::collection::vec(comment(), 0..2),
        proptest::collection::vec(turn(depth), 0..6),
    )
        .prop_map(|(comments, turns)| Line { comments, turns })
        .boxed()
}

fn record() -> impl Strategy<Value = Record> {
    let result = proptest::option::of(prop_oneof![
        Just(GameResult::WhiteWins),
        Just(GameResult::BlackWins),
        Just(GameResult::Draw),
        Just(GameResult::Unknown),
    ]);
    (proptest::collection::vec(tag(), 0..6), line(3), result)
        .prop_map(|(tags, moves, result)| Record {
            tags,
            moves,
            result,
            number: 1,
            ..Record::default()
        })
        .prop_filter("the empty record writes nothing", |record| {
            !(record.tags.is_empty()
                && record.moves.comments.is_empty()
                && record.moves.turns.is_empty()
                && record.result.is_none())
        })
}

fn numbering() -> impl Strategy<Value = Numbering> {
    (
        1u32..200,
        prop_oneof![Just(Color::White), Just(Color::Black)],
    )
        .prop_map(|(fullmove, side)| Numbering { fullmove, side })
}

/// PGN-ish text: a soup of the pieces movetext and tags are made of.
fn pgnish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[Event \"x\"]\n".to_owned()),
        Just("[Site \"a \\\" b\"]".to_owned()),
        Just("1.".to_owned()),
        Just("1...".to_owned()),
        Just(" e4".to_owned()),
        Just(" N@f3".to_owned()),
        Just("!?".to_owned()),
        Just(" $12".to_owned()),
        Just(" {".to_owned()),
        Just("}".to_owned()),
        Just(" (".to_owned()),
        Just(")".to_owned()),
        Just(";c".to_owned()),
        Just("\n".to_owned()),
        Just("\n%".to_owned()),
        Just(" 1-0".to_owned()),
        Just(" *".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\t".to_owned()),
        Just("[Array \"o\r\rrthodox army\"]".to_owned()),
        Just("[".to_owned()),
        Just("\"".to_owned()),
        "[ -~]{1,4}",
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

fn check_errors_are_located(input: &[u8]) {
    let mut games = 0;
    for game in Reader::new(input) {
        games += 1;
        match game {
            Ok(record) => {
                assert!(record.span.offset <= input.len());
                assert_eq!(record.number, games);
            }
            Err(ReadError::Parse(error)) => {
                assert!(error.span.offset <= input.len(), "{error}");
                assert!(error.span.line >= 1 && error.span.column >= 1);
                assert_eq!(error.game, games);
                assert!(!error.message.is_empty());
            }
            Err(ReadError::Io(error)) => panic!("{error}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn written_records_read_back_the_same(record in record(), numbering in numbering()) {
        let text = record_to_string(&record, numbering);
        let read = parse_record(&text);
        prop_assert!(read.is_ok(), "{:?} in:\n{}", read, text);
        let read = read.unwrap();
        prop_assert_eq!(&read, &canonical(&record), "text:\n{}", text);
        prop_assert_eq!(record_to_string(&read, numbering), text.clone());
        for line in text.lines() {
            // Only a long word, a tag pair, a `;` comment or a word that may not start
            // a line (`%...`, `[` and a letter) makes a line long.
            let long_word = line.split(' ').any(|word| {
                let bytes = word.as_bytes();
                word.chars().count() >= 40
                    || word.starts_with('%')
                    || (bytes.first() == Some(&b'[') && bytes.get(1).is_some_and(u8::is_ascii_alphabetic))
            });
            let unbreakable = line.starts_with('[') || line.contains("; ");
            prop_assert!(line.chars().count() < 80 || long_word || unbreakable,
                "line too long: {}", line);
        }
    }

    #[test]
    fn reading_then_writing_is_a_fixed_point(text in pgnish()) {
        // A game of nothing but move numbers reads as the empty record, which writes as
        // nothing: the one record that does not come back.
        let empty = Record::default();
        for record in read_str(&text).filter_map(Result::ok) {
            if (Record { number: 0, ..record.clone() }) == empty {
                continue;
            }
            let numbering = Numbering::from_tags(&record);
            let written = record_to_string(&record, numbering);
            let mut again = parse_record(&written)
                .map_err(|error| TestCaseError::fail(format!("{error} in:\n{written}")))?;
            // The number says where the game was in its file, like a span.
            again.number = record.number;
            prop_assert_eq!(&again, &canonical(&record));
            prop_assert_eq!(record_to_string(&again, numbering), written);
        }
    }

    #[test]
    fn pgnish_text_never_panics_and_errors_are_located(text in pgnish()) {
        check_errors_are_located(text.as_bytes());
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_errors_are_located(
        bytes in proptest::collection::vec(any::<u8>(), 0..600)
    ) {
        check_errors_are_located(&bytes);
    }
}

#[test]
fn the_export_format_example_is_canonical() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("notation/export.md"))
            .unwrap();
    let (_, rest) = page
        .split_once("```pgn\n")
        .expect("an example in export.md");
    let (example, _) = rest.split_once("```").unwrap();
    let record = parse_record(example).unwrap();
    assert_eq!(record_to_string(&record, Numbering::default()), example);
}

#[test]
fn reading_one_byte_at_a_time_gives_the_same_games() {
    let input = std::fs::read(fixture("lenient.pgn")).unwrap();
    let malformed = std::fs::read(fixture("malformed.txt")).unwrap();
    for bytes in [&input, &malformed] {
        let whole: Vec<String> = Reader::new(&bytes[..])
            .map(|game| format!("{game:?}"))
            .collect();
        let trickle: Vec<String> = Reader::new(BufReader::with_capacity(1, &bytes[..]))
            .map(|game| format!("{game:?}"))
            .collect();
        assert_eq!(trickle, whole);
    }
}
