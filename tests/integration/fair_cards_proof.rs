//! The proof that rides with message 3 of a deal (issue 32; `notation/fair-chance.md`,
//! "The proof of message 3"): White, holding Black's keys for its own hand before it writes
//! message 3, deals itself a card of its choice there; Black's pbem refuses that mail,
//! saying why, and changes nothing, and `validate` says the record is broken at that
//! ply. A verifier written from the page checks the proof of the bundled Cards game.

use crate::fair_cards::{page_scalar, unbase64};
use crate::support::homes::{Homes, Player, deliver, game_path, mail_of, ok, text, validate};
use crate::support::homes::{assert_refused, play_by_maildir};

fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The player's seed, from its private state (`chance_seed`, hex).
fn seed_of(player: &Player, id: &str) -> [u8; 32] {
    let state = player.dir.join("games").join(format!("{id}.state.yaml"));
    let state = std::fs::read_to_string(state).unwrap();
    let hex = state
        .lines()
        .find_map(|line| line.trim().strip_prefix("chance_seed:"))
        .unwrap_or_else(|| panic!("{state}"))
        .trim()
        .trim_matches(['"', '\'']);
    hex::decode(hex).unwrap().try_into().unwrap()
}

/// The words of the record's first `[%deal WHAT ...]` command, after `WHAT`.
fn command<'a>(record: &'a str, what: &str) -> Vec<&'a str> {
    let start = record
        .find(&format!("[%deal {what} "))
        .unwrap_or_else(|| panic!("no {what}: {record}"));
    let rest = &record[start..];
    rest[..rest.find(']').unwrap()]
        .split_whitespace()
        .skip(2)
        .collect()
}

#[test]
fn a_card_white_deals_itself_in_message_3_is_refused_at_the_mail() {
    let homes = Homes::new("fair-cards-forged-3", "");
    let id = homes.start(
        "2026-11-01T09:00:00Z",
        &["--variant", "wickets", "--decision", "Cards II"],
    );
    // Mail 1 (White's message 1) and mail 2 (Black's message 2 and its keys for White's
    // hand): White's pbem writes message 3 on taking mail 2 in.
    play_by_maildir(&homes, &id, 0, "e4");
    play_by_maildir(&homes, &id, 1, "e5");
    let (alice, bob) = (&homes.alice, &homes.bob);
    ok(&alice.run("2026-11-03T10:00:00Z", &["move", &id, "Ke2:f3"]));
    let file = game_path(alice, &id);
    let record = std::fs::read_to_string(&file).unwrap();
    // The attack: White's key and Black's revealed key for position 3 of White's hand,
    // and the point of a card White was not dealt (the first not in its hand).
    let white_key = page_scalar("pbem deal card", &seed_of(alice, &id), 3);
    let keys = command(&record, "keys");
    let black_key = keys
        .chunks(2)
        .find(|pair| pair[0] == "3")
        .map(|pair| curve25519_dalek::Scalar::from_canonical_bytes(unbase64(pair[1])).unwrap())
        .unwrap();
    let shown = ok(&alice.run("2026-11-03T10:00:00Z", &["show", &id]));
    let held = shown
        .lines()
        .find_map(|line| line.strip_prefix("your hand: "))
        .unwrap_or_else(|| panic!("{shown}"));
    let index = ["C", "D", "H", "S"]
        .iter()
        .flat_map(|suit| (1..=10).map(move |value| format!("{suit}{value}")))
        .position(|card| !held.split_whitespace().any(|h| h == card))
        .unwrap();
    let forged_point = (white_key * black_key * pbem::fair::deal::card_point(index)).compress();
    let mask3 = command(&record, "mask3");
    let forged = record.replacen(mask3[3], &base64(forged_point.as_bytes()), 1);
    assert_ne!(forged, record);
    // The proof as written, and the proof left out.
    let without = match forged.find(" proof ") {
        Some(at) => {
            let end = at + forged[at..].find(']').unwrap();
            format!("{}{}", &forged[..at], &forged[end..])
        }
        None => forged.clone(),
    };
    let bob_file = game_path(bob, &id);
    let before = std::fs::read(&bob_file).unwrap();
    for (name, forged, says) in [
        (
            "kept",
            &forged,
            "message 3 of the deal: its proof of its factors over message 2 does not hold",
        ),
        (
            "dropped",
            &without,
            "message 3 of the deal: it carries no proof that its writer knows its factors",
        ),
    ] {
        std::fs::write(&file, forged).unwrap();
        let bytes = std::fs::read(mail_of(alice, "2026-11-03T10:30:00Z", &id)).unwrap();
        let out = deliver(bob, "2026-11-03T11:00:00Z", &bytes, name);
        let said = text(&out.stdout) + &text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {said}");
        assert!(
            said.contains("not fair: ply 2: ") && said.contains(says),
            "{name}: {said}"
        );
        assert_eq!(
            std::fs::read(&bob_file).unwrap(),
            before,
            "{name}: nothing changed"
        );
        // The forged record: validate says broken at that ply, and fails.
        let copy = file.with_file_name(format!("forged-{name}.pgn"));
        std::fs::write(&copy, forged).unwrap();
        let out = validate(&copy);
        assert_refused(&out, "chance broken at ply 2: ");
        assert!(text(&out.stdout).contains(says), "{}", text(&out.stdout));
    }
    // The true mail is still taken in.
    std::fs::write(&file, &record).unwrap();
    let bytes = std::fs::read(mail_of(alice, "2026-11-03T12:00:00Z", &id)).unwrap();
    ok(&deliver(bob, "2026-11-03T12:30:00Z", &bytes, "true"));
    assert_ne!(std::fs::read(&bob_file).unwrap(), before);
}

/// The proof of message 3 as `notation/fair-chance.md` ("The proof of message 3")
/// defines it, checked from the page alone on the bundled Cards game: `R_i = s_i · M2[i] −
/// e · M3[i]`, and `e` the SHA-512 of the label, the size, M2, M3 and the `R_i`.
#[test]
fn the_page_s_proof_of_message_3_checks_the_example() {
    use sha2::{Digest, Sha512};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("notation/fair-chance.md")).unwrap();
    let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for formula in [
        "`e` = `SHA-512(\"pbem rekey proof v1\" ‖ n as 8 bytes big-endian ‖ M2 ‖ M3 ‖ R_0 ‖ \
         ... ‖ R_n−1)`",
        "`R_i = s_i · M2[i] − e · M3[i]`",
        "[%deal mask3 E0 ... E39 proof E S0 ... S39]",
    ] {
        assert!(page.contains(formula), "the page states {formula}");
    }
    let game = std::fs::read_to_string(root.join("examples/wickets-cards.pgn")).unwrap();
    let point = |word: &str| {
        curve25519_dalek::ristretto::CompressedRistretto(unbase64(word))
            .decompress()
            .expect("an element")
    };
    let scalar = |word: &str| {
        curve25519_dalek::Scalar::from_canonical_bytes(unbase64(word)).expect("a scalar")
    };
    let m2 = command(&game, "mask2");
    let words = command(&game, "mask3");
    let at = words.iter().position(|w| *w == "proof").expect("a proof");
    let (m3, proof) = (&words[..at], &words[at + 1..]);
    assert_eq!((m2.len(), m3.len(), proof.len()), (40, 40, 41));
    let e = scalar(proof[0]);
    let check = |m3: &[&str], e: curve25519_dalek::Scalar| {
        let mut hash = Sha512::new();
        hash.update(b"pbem rekey proof v1");
        hash.update(40u64.to_be_bytes());
        for word in m2.iter().chain(m3) {
            hash.update(unbase64(word));
        }
        for i in 0..40 {
            let r = scalar(proof[i + 1]) * point(m2[i]) - e * point(m3[i]);
            hash.update(r.compress().as_bytes());
        }
        curve25519_dalek::Scalar::from_bytes_mod_order_wide(&hash.finalize().into()) == e
    };
    assert!(check(m3, e), "the example's proof holds");
    let mut swapped = m3.to_vec();
    swapped.swap(0, 1);
    assert!(!check(&swapped, e), "and fails for another message 3");
}
