//! Malformed games of every kind through the whole validator (reader, replay,
//! canonical rewrite, writer): never a panic, every finding located inside the input,
//! and whatever validates still validates after `fmt`.

use pbem::notation::{ReadError, Reader, record_to_string};
use pbem::replay::{Report, canonicalize, replay};
use proptest::prelude::*;

/// Tokens that look like chess turns, legal or not, and some that do not.
fn turn_token() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec!["", "", "", "N", "B", "R", "Q", "K", "P"]);
    let file = prop::sample::select(vec!["", "", "", "a", "d", "e", "h"]);
    let rank = prop::sample::select(vec!["", "", "", "1", "2", "7", "8"]);
    let capture = prop::sample::select(vec!["", "", "x", "-", ":"]);
    let square = ("[a-h]", "[1-8]").prop_map(|(file, rank)| format!("{file}{rank}"));
    let promotion = prop::sample::select(vec!["", "", "", "=Q", "=N", "K", "(R)"]);
    let marker = prop::sample::select(vec!["", "", "", "+", "#", "++"]);
    let composed = (piece, file, rank, capture, square, promotion, marker).prop_map(
        |(piece, file, rank, capture, square, promotion, marker)| {
            format!("{piece}{file}{rank}{capture}{square}{promotion}{marker}")
        },
    );
    let special = prop::sample::select(vec![
        "O-O", "O-O-O", "0-0", "O-O+", "--", "Z0", "0000", "e.p.", "N@f3", "e2e4", "e7e8q", "Xx9",
        "~", "=", "+", "e", "exd", "Kg1", "Ke1-g1", "e1h1",
    ])
    .prop_map(str::to_owned);
    prop_oneof![4 => composed, 1 => special]
}

/// Movetext: turns with move numbers, glyphs, comments and (possibly broken) variations.
fn movetext() -> impl Strategy<Value = String> {
    let element = prop_oneof![
        8 => turn_token(),
        1 => "[0-9]{1,2}\\.{1,3}".prop_map(|number| number),
        1 => prop::sample::select(vec!["!", "?!", "$1", "$255", "{comment}", "; rest\n", "(", ")", "{", "}", "1-0", "*", "1/2-1/2"]).prop_map(str::to_owned),
    ];
    prop::collection::vec(element, 0..60).prop_map(|elements| elements.join(" "))
}

fn tags() -> impl Strategy<Value = String> {
    let fen = prop::sample::select(vec![
        "",
        "[FEN \"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\"]\n",
        "[SetUp \"1\"]\n[FEN \"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1\"]\n",
        "[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 149 80\"]\n",
        "[FEN \"4k3/1P6/8/8/8/8/8/4K3 b - - 0 1\"]\n",
        "[FEN \"not a fen\"]\n",
        "[SetUp \"1\"]\n",
        "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n",
    ]);
    let variant = prop::sample::select(vec![
        "",
        "",
        "[Variant \"Standard\"]\n",
        "[Variant \"Crazyhouse\"]\n",
    ]);
    let result = prop::sample::select(vec![
        "",
        "[Result \"1-0\"]\n",
        "[Result \"*\"]\n",
        "[Result \"draw\"]\n",
    ]);
    (fen, variant, result)
        .prop_map(|(fen, variant, result)| format!("[Event \"x\"]\n{fen}{variant}{result}\n"))
}

fn check(input: &str) -> Result<(), TestCaseError> {
    for item in Reader::new(input.as_bytes()) {
        let mut record = match item {
            Ok(record) => record,
            Err(ReadError::Parse(error)) => {
                prop_assert!(error.span.offset <= input.len());
                continue;
            }
            Err(ReadError::Io(error)) => return Err(TestCaseError::fail(error.to_string())),
        };
        let report: Report = replay(&record);
        for finding in &report.findings {
            prop_assert!(finding.span.offset <= input.len(), "{finding:?}");
            prop_assert!(finding.span.line >= 1, "{finding:?}");
        }
        let (canonical_report, numbering) = canonicalize(&mut record);
        prop_assert_eq!(canonical_report.is_valid(), report.is_valid());
        let text = record_to_string(&record, numbering);
        if report.is_valid() && !text.is_empty() {
            let again: Vec<_> = Reader::new(text.as_bytes()).collect();
            prop_assert_eq!(again.len(), 1, "{}", text);
            let again = again
                .into_iter()
                .next()
                .unwrap()
                .map_err(|error| TestCaseError::fail(format!("{error}\n{text}")))?;
            prop_assert!(replay(&again).is_valid(), "{}", text);
        }
    }
    Ok(())
}

/// The tags that choose a game and its setup, for every game, with odd white space and
/// control characters put anywhere in their values: whatever validates must validate
/// after `fmt` (the validate fuzz target found a Chesscala `[Array "o\r\r…rthodox army"]`
/// that was valid before `fmt` and invalid after it).
fn setup_tags() -> impl Strategy<Value = String> {
    let pair = prop::sample::select(vec![
        ("Array", "orthodox army"),
        ("Array", "rooks' rearguard"),
        ("Array", "standard"),
        ("Draws", "no"),
        ("Draws", "yes"),
        ("SetUp", "1"),
        ("FEN", "k(BBBB)4/6/6/N5/2p1p1/6/6/RQ3K w - - 0/0 - 1"),
        ("FEN", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
        ("Variant", "Chesscala"),
        ("Variant", "African Chess"),
        ("Variant", "Chess with wickets"),
    ]);
    let blank = prop::sample::select(vec![
        " ", "  ", "\t", "\r", "\r\r\r", "\u{b}", "\u{c}", "\u{a0}", "\u{1b}",
    ]);
    let blanks = prop::collection::vec((any::<prop::sample::Index>(), blank), 0..3);
    let tag = (pair, blanks).prop_map(|((name, value), blanks)| {
        let mut value = value.to_owned();
        for (at, blank) in blanks {
            let at = at.index(value.len() + 1);
            if value.is_char_boundary(at) {
                value.insert_str(at, blank);
            }
        }
        format!("[{name} \"{value}\"]\n")
    });
    prop::collection::vec(tag, 1..4).prop_map(|tags| tags.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chess_like_games_never_panic_and_findings_are_located(tags in tags(), moves in movetext()) {
        check(&format!("{tags}{moves}"))?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        check(&text)?;
    }
}

proptest! {
    // Small games: many cases, so that the rarer combinations come up in every run.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn setup_tags_validate_the_same_after_fmt(
        variant in prop::sample::select(vec!["Chesscala", "African Chess", "Cascudo", "Chesica", "Chess with wickets", "Chess"]),
        tags in setup_tags(),
        result in prop::sample::select(vec!["*", "1-0", ""]),
    ) {
        check(&format!("[Variant \"{variant}\"]\n{tags}\n{result}\n"))?;
    }
}

/// A random legal game with one token replaced: the validator finds nothing before the
/// replaced turn, and if the game is invalid, the first error is at or after it.
fn corrupted_game() -> impl Strategy<Value = (String, usize, String)> {
    (
        prop::collection::vec(any::<u32>(), 1..80),
        any::<prop::sample::Index>(),
        turn_token(),
    )
        .prop_map(|(choices, which, replacement)| {
            use pbem::games::{Chess, Game};
            let mut position = Chess::start();
            let mut tokens = Vec::new();
            let mut legal = Vec::new();
            for choice in choices {
                legal.clear();
                position.legal_turns(&mut legal);
                if legal.is_empty() || position.outcome().is_some() {
                    break;
                }
                let turn = legal[choice as usize % legal.len()];
                tokens.push(position.write_turn(&turn));
                position.play(&turn);
            }
            let index = which
                .index(tokens.len().max(1))
                .min(tokens.len().saturating_sub(1));
            (tokens.join(" "), index, replacement)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_corrupted_turn_is_found_where_it_is((moves, index, replacement) in corrupted_game()) {
        let mut tokens: Vec<&str> = moves.split(' ').collect();
        if tokens.is_empty() || tokens[0].is_empty() {
            return Ok(());
        }
        tokens[index] = &replacement;
        let input = format!("[Event \"x\"]\n\n{} *\n", tokens.join(" "));
        check(&input)?;
        let record = pbem::notation::parse_record(&input)
            .map_err(|error| TestCaseError::fail(format!("{error}\n{input}")))?;
        let report = replay(&record);
        let corrupted_ply = u32::try_from(index + 1).unwrap();
        for finding in report.errors() {
            let ply = finding.ply.unwrap_or(u32::MAX);
            prop_assert!(ply >= corrupted_ply, "{finding:?} before ply {corrupted_ply}\n{input}");
        }
        prop_assert!(report.plies >= corrupted_ply - 1, "{}", input);
    }
}
