use super::*;
use crate::correspondence;
pub(super) use crate::fair::fixtures::{chains, game_to_attempt, stamp, wickets_record};

fn completed(mode: &str, attempt: &str) -> (Record, Completed) {
    let (_, black) = chains();
    let mut record = game_to_attempt(mode, attempt);
    let done = complete(&mut record, Color::Black, &black)
        .unwrap()
        .expect("the attempt awaits Black's roll");
    (record, done)
}

/// Rewrites the first comment containing `find`.
fn edit(record: &mut Record, find: &str, change: impl Fn(&str) -> String) {
    let comment = record
        .moves
        .turns
        .iter_mut()
        .flat_map(|turn| turn.comments.iter_mut())
        .find(|comment| comment.text.contains(find))
        .expect("the comment");
    comment.text = change(&comment.text).into();
}

#[test]
fn each_chain_value_hashes_to_the_one_before_it() {
    let (white, _) = chains();
    assert_eq!(sha256(&white.value(1).unwrap()), white.tip());
    assert_eq!(sha256(&white.value(7).unwrap()), white.value(6).unwrap());
    assert_eq!(white.value(CHAIN_LENGTH), Some([1; 32]));
    assert_eq!(white.value(CHAIN_LENGTH + 1), None);
    assert_eq!(
        Chain::from_hex(&white.seed_hex()).unwrap().tip(),
        white.tip()
    );
    assert!(!format!("{white:?}").contains("0101"));
}

#[test]
fn rolls_are_one_to_six_and_evenly_spread() {
    let (white, black) = chains();
    let mut counts = [0u32; 6];
    for event in 0..6000 {
        let r = roll(
            "g-1",
            event,
            &white.value(1).unwrap(),
            &black.value(1).unwrap(),
        );
        counts[usize::from(r - 1)] += 1;
    }
    // 1000 expected each; a fair die stays within 10% here (fixed inputs, so the
    // counts are the same on every run).
    assert!(
        counts.iter().all(|&c| (900..1100).contains(&c)),
        "{counts:?}"
    );
    // Every input counts: the game, the event and both values.
    let base = |id: &str, event, w: u32, b: u32| {
        roll(
            id,
            event,
            &white.value(w).unwrap(),
            &black.value(b).unwrap(),
        )
    };
    let rolls: Vec<u8> = (0..20).map(|e| base("g-1", e, 1, 1)).collect();
    assert_ne!(
        rolls,
        (0..20).map(|e| base("g-2", e, 1, 1)).collect::<Vec<_>>()
    );
    assert_ne!(
        rolls,
        (0..20).map(|e| base("g-1", e, 2, 1)).collect::<Vec<_>>()
    );
    assert_ne!(
        rolls,
        (0..20).map(|e| base("g-1", e, 1, 2)).collect::<Vec<_>>()
    );
}

#[test]
fn a_dice_attempt_is_sent_without_its_roll_and_completed_by_the_opponent() {
    let record = game_to_attempt("Dice", "Nxe5:w9");
    assert_eq!(check(&record), Fairness::Proven { rolls: 0 });
    let replayed = replay::replay_game::<Wickets>(&record);
    let position = replayed.position.unwrap();
    assert!(position.awaits_roll());
    let text = position.position_string();
    assert!(text.contains(" dice/? "), "{text}");
    assert_eq!(Wickets::from_position_string(&text).unwrap(), position);
    assert!(replay::replay(&record).is_valid());
    // White cannot complete its own roll; Black's pbem does.
    let (white, black) = chains();
    let mut copy = record.clone();
    assert_eq!(complete(&mut copy, Color::White, &white), Ok(None));
    let mut record = record;
    let done = complete(&mut record, Color::Black, &black)
        .unwrap()
        .unwrap();
    assert_eq!(done.rolls.len(), 1);
    assert_eq!(done.token, format!("Nxe5:w9_r{}", done.rolls[0]));
    assert_eq!(check(&record), Fairness::Proven { rolls: 1 });
    assert!(replay::replay(&record).is_valid());
    // The copy the thrower had is completed by the opponent's: news, not a conflict.
    assert_eq!(
        correspondence::compare(&copy, &record),
        correspondence::Comparison::Newer { turns: 0 }
    );
}

#[test]
fn a_dice_two_attempt_names_its_sacrifice_in_advance() {
    let record = game_to_attempt("Dice II", "Nxe5:w9_sa2");
    let position = replay::replay_game::<Wickets>(&record).position.unwrap();
    let text = position.position_string();
    assert!(text.contains(" dice2/?a2 "), "{text}");
    assert_eq!(Wickets::from_position_string(&text).unwrap(), position);
    let (record, done) = completed("Dice II", "Nxe5:w9_sa2");
    // 5 or 6 is needed (the Queen on d8 sees w9); a failure rolls again.
    let expected = if done.rolls[0] >= 5 {
        format!("Nxe5:w9_r{}", done.rolls[0])
    } else {
        format!("Nxe5:w9_r{}_sa2_r{}", done.rolls[0], done.rolls[1])
    };
    assert_eq!(done.token, expected);
    assert_eq!(
        check(&record),
        Fairness::Proven {
            rolls: done.rolls.len()
        }
    );
    // A sacrifice that cannot buy a second roll is refused, as in Dice mode at all.
    let mut bad = game_to_attempt("Dice II", "Nxe5:w9");
    bad.moves.turns.pop();
    let error =
        correspondence::play(&mut bad, "alice@example.org", "Nxe5:w9_se1", stamp()).unwrap_err();
    assert!(
        error.to_string().contains("cannot buy a second roll"),
        "{error}"
    );
}

#[test]
fn an_edited_reveal_is_caught_with_its_ply() {
    let (mut record, _) = completed("Dice", "Nxe5:w9");
    edit(&mut record, "black [%chance reveal", |text| {
        // Change the value's last hex digit.
        let mut text = text.to_owned();
        let at = text.len() - 2;
        let digit = if &text[at..at + 1] == "0" { "1" } else { "0" };
        text.replace_range(at..at + 1, digit);
        text
    });
    match check(&record) {
        Fairness::Broken { ply, reason } => {
            assert_eq!(ply, 7);
            assert!(
                reason.contains("Black's value for event 1 does not match its commitment"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_replayed_or_renumbered_reveal_is_caught() {
    let (record, _) = completed("Dice II", "Nxe5:w9_sa2");
    let white_reveal = |record: &Record| {
        record.moves.turns[6]
            .comments
            .iter()
            .find(|c| c.text.starts_with("white [%chance reveal"))
            .unwrap()
            .text
            .to_string()
    };
    let text = white_reveal(&record);
    let words: Vec<&str> = text.trim_end_matches(']').split_whitespace().collect();
    // `white [%chance reveal 1 V1 V2`: the first value again for event 2.
    let (v1, v2) = (words[4], words[5]);
    let mut replayed = record.clone();
    edit(&mut replayed, "white [%chance reveal", |t| {
        t.replace(v2, v1)
    });
    match check(&replayed) {
        Fairness::Broken { ply: 7, reason } => assert!(
            reason.contains("White's value for event 2 does not match its commitment"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
    let mut renumbered = record.clone();
    edit(&mut renumbered, "white [%chance reveal", |t| {
        t.replace("reveal 1 ", "reveal 2 ")
    });
    match check(&renumbered) {
        Fairness::Broken { ply: 7, reason } => {
            assert!(reason.contains("a replayed or skipped value"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // The commitment itself replaced by the first value: the chain no longer holds.
    let mut early = record;
    let tip = hex(&chains().0.tip());
    let first = hex(&chains().0.value(1).unwrap());
    early.moves.comments[0].text = early.moves.comments[0].text.replace(&tip, &first).into();
    assert!(matches!(check(&early), Fairness::Broken { ply: 7, .. }));
}

#[test]
fn a_roll_the_values_do_not_give_is_caught() {
    let (mut record, done) = completed("Dice", "Nxe5:w9");
    let other = done.rolls[0] % 6 + 1;
    let node = record.moves.turns.last_mut().unwrap();
    node.token = format!("Nxe5:w9_r{other}").into();
    match check(&record) {
        Fairness::Broken { ply: 7, reason } => assert_eq!(
            reason,
            format!(
                "roll 1 is {other}, but the revealed values give {}",
                done.rolls[0]
            )
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_dropped_second_roll_and_a_roll_typed_by_hand_are_caught() {
    // A failed first roll must be followed by the named sacrifice's second roll.
    // These seeds roll a 3 (5 was needed), then a 2.
    let (mut record, done) = completed("Dice II", "Nxe5:w9_sa2");
    assert_eq!(done.rolls, [3, 2]);
    assert_eq!(done.token, "Nxe5:w9_r3_sa2_r2");
    record.moves.turns.last_mut().unwrap().token = "Nxe5:w9_r3".into();
    match check(&record) {
        Fairness::Broken { ply: 7, reason } => {
            assert!(reason.contains("is not followed by it"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // A roll written by the thrower in a game with a transcript.
    let mut typed = game_to_attempt("Dice", "Nxe5:w9");
    typed.moves.turns.last_mut().unwrap().token = "Nxe5:w9_r6".into();
    typed.moves.turns.last_mut().unwrap().comments.clear();
    match check(&typed) {
        Fairness::Broken { ply: 7, reason } => {
            assert!(reason.contains("written by hand"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn records_without_a_transcript_are_not_proven_and_other_games_have_no_chance() {
    let text = "[Variant \"Chess with wickets\"]\n[Decision \"Dice\"]\n\n\
                1. e4 e5 2. Ke2:f3 Ke7 3. Nxf3 Kd6 4. Nxe5:w9_r5 *\n";
    let record = crate::notation::parse_record(text).unwrap();
    assert!(matches!(check(&record), Fairness::NotProven(_)));
    let chess = crate::notation::parse_record("1. e4 e5 *\n").unwrap();
    assert_eq!(check(&chess), Fairness::NoChance);
    let det = crate::notation::parse_record("[Variant \"wickets\"]\n\n1. e4 *\n").unwrap();
    assert_eq!(check(&det), Fairness::NoChance);
}
