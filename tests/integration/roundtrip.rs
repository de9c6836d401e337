//! Random games through the whole path: play random legal turns, write the record, read
//! it back, replay it. `parse(write(game)) == game`, the written text is a fixed point of
//! `fmt`, and every written game validates.

use pbem::games::{Chess, Color, Game, GameResult};
use pbem::notation::write_record;
use pbem::notation::{Comment, Line, Nag, Record, Span, Tag, TurnNode};
use pbem::replay::canonicalize;
use proptest::prelude::*;

use crate::scenarios::write_read_validate;

/// What to hang on a turn, chosen by the random input.
#[derive(Clone, Debug)]
struct Choice {
    turn: u32,
    nag: Option<u8>,
    comment: Option<String>,
    variation: Option<u32>,
}

fn choice() -> impl Strategy<Value = Choice> {
    (
        any::<u32>(),
        prop::option::weighted(0.1, 1u8..=255),
        prop::option::weighted(0.1, "[a-zA-Z0-9 .,%\\[\\]:-]{1,30}"),
        prop::option::weighted(0.1, any::<u32>()),
    )
        .prop_map(|(turn, nag, comment, variation)| Choice {
            turn,
            nag,
            comment: comment
                .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|text| !text.is_empty()),
            variation,
        })
}

fn tag(name: &str, value: &str) -> Tag {
    Tag {
        name: name.into(),
        value: value.into(),
        span: Span::default(),
    }
}

/// A random game of chess from `start`, following `choices` until they run out or the
/// game ends.
fn random_record(start: &Chess, fen: Option<&str>, choices: &[Choice]) -> Record {
    let mut position = start.clone();
    let mut turns = Vec::new();
    let mut legal = Vec::new();
    for choice in choices {
        legal.clear();
        position.legal_turns(&mut legal);
        if legal.is_empty() || position.outcome().is_some() {
            break;
        }
        let turn = legal[choice.turn as usize % legal.len()];
        let mut node = TurnNode::new(position.write_turn(&turn));
        node.nags.extend(choice.nag.map(Nag));
        if let Some(text) = &choice.comment {
            node.comments.push(Comment {
                text: text.as_str().into(),
                span: Span::default(),
            });
        }
        if let Some(pick) = choice.variation {
            let other = legal[pick as usize % legal.len()];
            node.variations.push(Line {
                comments: Vec::new(),
                turns: vec![TurnNode::new(position.write_turn(&other))],
            });
        }
        position.play(&turn);
        turns.push(node);
    }
    let result = match position.outcome() {
        Some(outcome) => outcome.result(),
        None => GameResult::Unknown,
    };
    let mut tags = vec![
        tag("Event", "Random \"quoted\" \\ game"),
        tag("Site", "?"),
        tag("Date", "2026.11.22"),
        tag("Round", "1"),
        tag("White", "White"),
        tag("Black", "Black"),
        tag("Result", result.as_str()),
    ];
    if let Some(fen) = fen {
        tags.push(tag("SetUp", "1"));
        tags.push(tag("FEN", fen));
    }
    Record {
        tags,
        moves: Line {
            comments: Vec::new(),
            turns,
        },
        result: Some(result),
        number: 1,
        ..Record::default()
    }
}

fn check(start: &Chess, fen: Option<&str>, choices: &[Choice]) -> Result<(), TestCaseError> {
    let record = random_record(start, fen, choices);
    // It reads back as the same record and validates.
    let text = write_read_validate(start, &record)?;

    let mut canonical = record.clone();
    let (_, numbering_again) = canonicalize(&mut canonical);
    prop_assert_eq!(&canonical, &record);
    let mut again = String::new();
    write_record(&canonical, numbering_again, &mut again);
    prop_assert_eq!(again, text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_round_trip_from_the_start(choices in prop::collection::vec(choice(), 0..160)) {
        check(&Chess::start(), None, &choices)?;
    }

    #[test]
    fn random_games_round_trip_from_a_set_up_position(choices in prop::collection::vec(choice(), 0..80)) {
        // Black to move at move 17: numbering starts with "17...".
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 3 17";
        let start = Chess::from_position_string(fen).unwrap();
        prop_assert_eq!(start.side_to_move(), Color::Black);
        check(&start, Some(fen), &choices)?;
    }
}
