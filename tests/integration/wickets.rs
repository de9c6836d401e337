//! Chess with wickets: the scenario table (`tests/data/wickets/scenarios.txt`: a position,
//! a token, its verdict or resulting position, for every numbered rule of the page and
//! every ruling), perft, and random playouts whose every turn writes and re-reads to
//! itself.

use pbem::games::wickets::{Card, Decision, Turn};
use pbem::games::{Color, Game, Outcome, Wickets, WinReason};
use proptest::prelude::*;

fn position(text: &str) -> Wickets {
    Wickets::from_position_string(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn the_ends_of_the_wicket_rules() {
    // Rule 12: a side that must name a Defender and has only its Ball-haver loses.
    let p = position("7k/8/8/8/8/8/4K3/3Q4 b - - -,o -,h8 d1,- det 1 1");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::NoDefender
        })
    );
    // Rule 13: the King Defender's wicket taken.
    let p = position("O7/8/8/8/8/8/4K3/3Q4 b - - -,o -,- d1,- det 1 1");
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: WinReason::KingDefenderTaken
        })
    );
    assert!(
        position("3Rk3/7p/8/8/8/8/8/4K2Q b - - -,- e1,e8 h1,- det 0 1")
            .outcome()
            .is_none()
    );
}

#[test]
fn a_check_given_from_a_wicket_is_no_check() {
    // Black's Ball-haver queen enters White's wicket next to the white king: no check.
    let p = position("3rk3/8/8/8/q7/8/8/Q3K3 b - - -,- e1,a4 a1,d8 det 0 1");
    let syntax = Wickets::parse_turn("Qw0+").unwrap();
    let turn = p.resolve(&syntax).unwrap();
    let mut next = p.clone();
    next.play(&turn);
    assert!(!next.in_check(Color::White));
    let complaint = next
        .annotation_mismatch(&syntax)
        .expect("a false check claim");
    assert!(complaint.contains("wicket"), "{complaint}");
    assert_eq!(p.write_turn(&turn), "Qw0");
}

#[test]
fn perft_counts() {
    // Hand-counted: pawns g2-g3, g2-g4, h2-h3, h2-h4 (the h2 pawn is the Defender); Kg1
    // alone, or throwing along the first rank (a1-f1, h1: 7), to the g2 pawn (a pass), or
    // along the diagonal f2-b6 (5, stopped by the a7 pawn): 4 + 1 + 7 + 1 + 5 = 18.
    let p = position("k7/p7/8/8/8/8/6PP/7K w - - -,- h1,a8 h2,a7 det 0 1");
    assert_eq!(p.perft(1), 18);
    let start = Wickets::start();
    // The orthodox 20 and Qw0: the Queen Defender may step into its own wicket at once.
    assert_eq!(start.perft(1), 21);
    assert_eq!(start.perft(2), 441);
    assert_eq!(start.perft(3), 11_908);
    let rich: [(&str, [u64; 2]); 3] = [
        // Castling with the King Ball-haver, both pieces throwing.
        (
            "r3k3/8/8/8/8/8/8/R2QK2R w KQ - -,- e1,e8 d1,a8 det 0 1",
            [152, 12_819],
        ),
        // A seen wicket: a failed attempt or three sacrifices out of three pawns.
        (
            "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 det 0 1",
            [103, 6_195],
        ),
        // The same in Dice II: six rolls, then a sacrifice and six more after a failure.
        (
            "5b1k/8/8/8/8/8/PPP5/3QK3 w - - -,- e1,h8 d1,f8 dice2 0 1",
            [179, 9_488],
        ),
    ];
    for (fen, counts) in rich {
        let p = position(fen);
        for (depth, expected) in (1..).zip(counts) {
            assert_eq!(p.perft(depth), expected, "{fen} depth {depth}");
        }
    }
}

/// Writes `turn`, reads the token back to the same turn and the same text, plays it, and
/// reads the new position string back to the same string; returns the position read back
/// and its string.
fn play_and_reread(p: &mut Wickets, turn: &Turn) -> Result<(Wickets, String), TestCaseError> {
    let token = p.write_turn(turn);
    let syntax =
        Wickets::parse_turn(&token).map_err(|e| TestCaseError::fail(format!("{token}: {e}")))?;
    let again = p
        .resolve(&syntax)
        .map_err(|e| TestCaseError::fail(format!("{token}: {}", e.message)))?;
    prop_assert_eq!(&again, turn, "{}", token);
    prop_assert_eq!(syntax.to_string(), token.clone());
    p.play(turn);
    let text = p.position_string();
    let back = Wickets::from_position_string(&text)
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(back.position_string(), text.clone());
    Ok((back, text))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_playouts_write_and_reread_every_turn(choices in prop::collection::vec(any::<u32>(), 1..60), mode in 0usize..4) {
        let modes = ["det", "det2", "dice", "dice2"];
        let fen = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8 {} 0 1", modes[mode]);
        let mut p = position(&fen);
        let mut turns = Vec::new();
        for choice in choices {
            turns.clear();
            p.legal_turns(&mut turns);
            if turns.is_empty() || p.outcome().is_some() {
                break;
            }
            let turn = turns[choice as usize % turns.len()].clone();
            play_and_reread(&mut p, &turn)?;
        }
    }
}

/// Completes a Cards-mode scoring attempt listed without its cards: `count` cards not in
/// the discards, shortened two at a time until the validator takes them (a prefix of one
/// or two cards always is: the reply is awaited, or the pair decides or ties).
fn with_cards(p: &Wickets, turn: &Turn, count: usize, seed: u32) -> Turn {
    let discarded: Vec<Card> = p.discards().collect();
    let mut free: Vec<Card> = ['C', 'D', 'H', 'S']
        .into_iter()
        .flat_map(|suit| (1..=10).filter_map(move |value| Card::new(suit, value)))
        .filter(|card| !discarded.contains(card))
        .collect();
    let mut state = seed;
    let mut chosen = Vec::new();
    while chosen.len() < count && !free.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
        chosen.push(free.swap_remove((state >> 8) as usize % free.len()));
    }
    loop {
        let candidate = Turn {
            decision: chosen.iter().map(|&c| Decision::Card(c)).collect(),
            ..turn.clone()
        };
        let token = p.write_turn(&candidate);
        if Wickets::parse_turn(&token).is_ok_and(|s| p.resolve(&s).is_ok()) || chosen.len() <= 1 {
            return candidate;
        }
        chosen.truncate(chosen.len().saturating_sub(2).max(1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn random_playouts_in_the_cards_modes_write_and_reread_every_turn(choices in prop::collection::vec(any::<u32>(), 1..60), second in any::<bool>(), rich in any::<bool>()) {
        let mode = if second { "cards2" } else { "cards" };
        let fen = if rich {
            format!("2r3k1/1p4p1/8/8/8/8/1P4P1/2RQK3 w - - -,- e1,g8 d1,c8 {mode} 0 1")
        } else {
            format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -,- e1,e8 d1,d8 {mode} 0 1")
        };
        let mut p = position(&fen);
        let mut turns = Vec::new();
        for choice in choices {
            turns.clear();
            p.legal_turns(&mut turns);
            if turns.is_empty() || p.outcome().is_some() {
                break;
            }
            let wicket = if p.side_to_move() == Color::White { "w9" } else { "w0" };
            let attempts: Vec<&Turn> = turns.iter().filter(|t| t.throw.is_some_and(|w| w.to_string() == wicket)).collect();
            let mut turn = if choice % 3 == 0 && !attempts.is_empty() {
                attempts[choice as usize / 3 % attempts.len()].clone()
            } else {
                turns[choice as usize % turns.len()].clone()
            };
            if turn.throw.is_some_and(|w| w.to_string() == wicket) && choice % 7 != 0 {
                turn = with_cards(&p, &turn, 1 + choice as usize % 6, choice);
            }
            let (back, text) = play_and_reread(&mut p, &turn)?;
            prop_assert_eq!(back.awaiting(), p.awaiting(), "{}", text);
        }
    }
}

#[test]
fn the_example_games_are_valid_without_warnings() {
    for name in [
        "wickets-deterministic.pgn",
        "wickets-dice.pgn",
        "wickets-cards.pgn",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let record = pbem::notation::parse_record(&text).unwrap();
        let report = pbem::replay::replay(&record);
        assert!(report.is_valid(), "{name}: {:?}", report.findings);
        assert!(report.findings.is_empty(), "{name}: {:?}", report.findings);
    }
}

#[test]
fn show_says_which_card_a_record_awaits() {
    let path = std::env::temp_dir().join(format!("pbem-wickets-awaits-{}.pgn", std::process::id()));
    std::fs::write(
        &path,
        "[Variant \"wickets\"]\n[Decision \"Cards\"]\n[SetUp \"1\"]\n\
         [FEN \"7k/8/8/8/8/8/PPP5/3QK2b w - - -,- e1,h8 d1,h1 cards 0 1\"]\n[Result \"*\"]\n\n\
         1. Ke2:w9_cD10 *\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("show")
        .arg(&path)
        .output()
        .expect("pbem runs");
    std::fs::remove_file(&path).unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("cards/D10/D10 1 1\nafter ply 1: the scoring attempt awaits Black's card in reply to White's D10"),
        "{out}"
    );
}

/// `pbem legal` on a record whose last turn awaits a card: what is awaited goes to
/// standard error, the cards the awaited player may play to standard output. With the
/// deal, those of its hand, following suit when it can.
#[test]
fn legal_lists_the_cards_the_awaited_player_may_play() {
    let deal = "C1 C2 C3 C4 C5 S1 S2 S3 S4 S5 D1 D2 D3 D4 D5 S6 S7 S8 S9 S10 \
                C6 C7 C8 C9 C10 D6 D7 D8 D9 D10 H1 H2 H3 H4 H5 H6 H7 H8 H9 H10";
    let legal = |mode: &str, turn: &str, with_deal: bool| {
        let path = std::env::temp_dir().join(format!(
            "pbem-wickets-legal-{}-{mode}-{}-{with_deal}.pgn",
            std::process::id(),
            turn.len()
        ));
        let deal_tag = if with_deal {
            format!("[Deal \"{deal}\"]\n")
        } else {
            String::new()
        };
        std::fs::write(
            &path,
            format!(
                "[Variant \"wickets\"]\n{deal_tag}[SetUp \"1\"]\n\
                 [FEN \"r6k/8/8/8/8/8/8/3QK3 w - - -,- e1,h8 d1,a8 {mode} 0 1\"]\n\
                 [Result \"*\"]\n\n1. {turn} *\n"
            ),
        )
        .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("legal")
            .arg(&path)
            .output()
            .expect("pbem runs");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(output.status.code(), Some(0), "{turn}");
        (
            String::from_utf8_lossy(&output.stdout)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // Black holds spades: it must follow White's S1.
    let (cards, said) = legal("cards", "Ke2:w9_cS1", true);
    assert_eq!(cards, "S6 S7 S8 S9 S10");
    assert!(
        said.contains("awaits Black's card in reply to White's S1"),
        "{said}"
    );
    // No clubs in Black's hand: any of its ten cards.
    let (cards, _) = legal("cards", "Ke2:w9_cC1", true);
    assert_eq!(cards, "D1 D2 D3 D4 D5 S6 S7 S8 S9 S10");
    // After a tie (Black has no clubs), the thrower's hand: its C5 replaced by the deck's
    // first card, C6.
    let (cards, said) = legal("cards", "Ke2:w9_cC5_cD5", true);
    assert_eq!(cards, "C1 C2 C3 C4 C6 S1 S2 S3 S4 S5");
    assert!(said.contains("awaits White's"), "{said}");
    // Cards II, a failing first pair: White's next card or `-`, declining; without a deal
    // every card not discarded.
    let (parts, said) = legal("cards2", "Ke2:w9_cS2_cS9", false);
    assert_eq!(parts.split(' ').count(), 39, "{parts}");
    assert!(
        parts.ends_with(" -") && !parts.contains("S2 ") && !parts.contains("S9 "),
        "{parts}"
    );
    assert!(
        said.contains("awaits White's card for a second pair, or _c-"),
        "{said}"
    );
}

#[test]
fn scenario_table() {
    crate::scenarios::run_table::<Wickets>("tests/data/wickets/scenarios.txt", 150);
}

/// A throw the Ball could make but that leaves the thrower's King in check (issue 31,
/// point 14): `pbem validate` gives the check as the reason, not a blocked flight.
#[test]
fn a_throw_that_leaves_the_king_in_check_says_so() {
    let path = std::env::temp_dir().join(format!("pbem-wickets-throw-{}.pgn", std::process::id()));
    std::fs::write(
        &path,
        "[Variant \"wickets\"]\n[Decision \"Dice\"]\n[SetUp \"1\"]\n\
         [FEN \"6qk/8/8/8/8/Q7/8/K3R2r w - - -,- e1,h8 a3,g8 dice 0 1\"]\n[Result \"*\"]\n\n\
         1. Re2:e4 *\n",
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(["validate", "--color", "never"])
        .arg(&path)
        .output()
        .expect("pbem runs");
    std::fs::remove_file(&path).unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            "illegal turn \"Re2:e4\": the throw to e4 leaves the white king in check: a Ball \
             there does not block the check; a throw to one of d1, e1, f1 would block it"
        ),
        "{out}"
    );
    assert!(!out.contains("blocked"), "{out}");
}
