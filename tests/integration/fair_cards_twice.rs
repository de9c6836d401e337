//! A card dealt twice (issue 32, point 1; `notation/fair-chance.md`, "Cards", "Security").
//! Black's message 2 of the deal carries one masked card under two of Black's keys, built
//! here as a cheater would: from the library's deal functions, Black's seed in its state
//! file and the message its pbem wrote, hand-edited into Bob's game file before his first
//! mail. Nothing shows when that mail arrives (the message is still 40 different group
//! elements); the card shows twice later, and the mail that shows it is refused where it
//! can be seen: by White's pbem when the card is White's (drawn after Black played it, or
//! held when Black plays it), and by every pbem and `pbem validate` when it is played
//! twice. Each refusal names the ply and the card, and leaves the game file as it was.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use curve25519_dalek::ristretto::CompressedRistretto;
use pbem::fair::deal::{self, Dealer};

use crate::support::homes::{
    Homes, Player, TO_THE_ATTEMPT, deliver, game_path, mail_of, ok, play_by_maildir, post, text,
    validate,
};

/// The start of a game where Black can make a scoring attempt as soon as its hand is
/// dealt (`Re2:w0` at ply 4), as in `fair_cards.rs`.
const LONG_FEN: &str = "3q3k/5ppp/4R3/8/8/4r3/PPP5/K2Q4 w - - -,- e6,e3 d1,d8 cards2 0 1";

/// A card's name from its deal index (suit × 10 + value − 1, suits C, D, H, S).
fn card_name(index: usize) -> String {
    format!("{}{}", ["C", "D", "H", "S"][index / 10], index % 10 + 1)
}

/// The player's dealer, from the seed in its state file.
fn dealer_of(player: &Player, id: &str) -> Dealer {
    let state =
        std::fs::read_to_string(player.dir.join("games").join(format!("{id}.state.yaml"))).unwrap();
    let seed = state
        .lines()
        .find_map(|line| line.strip_prefix("chance_seed:"))
        .unwrap_or_else(|| panic!("{state}"))
        .trim()
        .trim_matches(['"', '\'']);
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(seed, &mut bytes).unwrap();
    Dealer::from_seed(bytes)
}

/// The 40 elements of the record's `[%deal mask2 ...]`, as written.
fn mask2_words(record: &str) -> Vec<String> {
    let words: Vec<&str> = record.split_whitespace().collect();
    let at = words
        .windows(2)
        .position(|w| w == ["[%deal", "mask2"])
        .unwrap_or_else(|| panic!("{record}"));
    words[at + 2..at + 42]
        .iter()
        .map(|word| word.trim_end_matches([']', '}']).to_owned())
        .collect()
}

fn point(word: &str) -> CompressedRistretto {
    CompressedRistretto(B64.decode(word).unwrap().try_into().unwrap())
}

/// Alice starts a Cards II game (from `fen`, if any) and mails her first move; Bob's
/// pbem writes message 2 of the deal on receipt. Then Bob cheats: `choose`, given the
/// honest deal (each position's card, which the test knows from both seeds and the
/// players do not), names a position `t` and a position `s`, and position `t` of message 2
/// becomes `times · b_t · b_s⁻¹ · M2[s]` (Black's key for `t` over its key for `s`): with
/// `times` 1 both open to the card of `s`, with another number `t` opens to no card (one
/// of Black's making). Returns the homes, the id and each position's card after the
/// forgery (`usize::MAX` for none).
fn forged_deal(
    name: &str,
    fen: Option<&str>,
    first: &str,
    times: u8,
    choose: impl Fn(&[usize]) -> (usize, usize),
) -> (Homes, String, Vec<usize>) {
    let homes = Homes::new(name, "");
    let mut args = vec!["--variant", "wickets", "--decision", "Cards II"];
    if let Some(fen) = fen {
        args.extend(["--fen", fen]);
    }
    let id = homes.start("2026-11-01T09:00:00Z", &args);
    play_by_maildir(&homes, &id, 0, first);
    let path = game_path(&homes.bob, &id);
    let record = std::fs::read_to_string(&path).unwrap();
    let words = mask2_words(&record);
    let mut m2: Vec<CompressedRistretto> = words.iter().map(|w| point(w)).collect();
    let (white, black) = (dealer_of(&homes.alice, &id), dealer_of(&homes.bob, &id));
    let deal_of = |m2: &[CompressedRistretto]| -> Vec<usize> {
        let m3 = white.rekey(m2).unwrap();
        (0..40)
            .map(|i| {
                deal::open(&m3, i, &white.card_key(i), &black.card_key(i)).unwrap_or(usize::MAX)
            })
            .collect()
    };
    let (target, source) = choose(&deal_of(&m2));
    let masked = m2[source].decompress().unwrap();
    let factor = curve25519_dalek::Scalar::from(times);
    m2[target] =
        (factor * black.card_key(target) * black.card_key(source).invert() * masked).compress();
    let forged = record.replacen(&words[target], &B64.encode(m2[target].as_bytes()), 1);
    assert_ne!(forged, record);
    std::fs::write(&path, forged).unwrap();
    let cards = deal_of(&m2);
    assert_eq!(cards[target] == cards[source], times == 1);
    (homes, id, cards)
}

/// Delivers `from`'s latest mail of the game to `to`, which must refuse it (exit 1) and
/// leave its game file as it was; returns what it said.
fn refused(from: &Player, to: &Player, now: &str, id: &str, name: &str) -> String {
    let before = std::fs::read(game_path(to, id)).unwrap();
    let bytes = std::fs::read(mail_of(from, now, id)).unwrap();
    let out = deliver(to, now, &bytes, name);
    let said = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(
        std::fs::read(game_path(to, id)).unwrap(),
        before,
        "the game file is unchanged"
    );
    said
}

/// A game from [`LONG_FEN`] whose position 21 (White's replacement for its first reply)
/// is forged from Black's position 10 as [`forged_deal`] does (`times`), played by
/// Maildir to Black's scoring attempt at ply 4, which leads the card of position 10:
/// White's pbem refuses that mail. Returns the homes, the id, the card led and what
/// White's pbem said.
fn black_leads_its_copied_card(name: &str, times: u8) -> (Homes, String, String, String) {
    let (homes, id, cards) = forged_deal(name, Some(LONG_FEN), "Kb1", times, |_| (21, 10));
    let (alice, bob) = (&homes.alice, &homes.bob);
    // The forged message 2 rides in Bob's first mail and is taken in: nothing shows yet.
    play_by_maildir(&homes, &id, 1, "Kg8");
    play_by_maildir(&homes, &id, 2, "Ka1");
    let card = card_name(cards[10]);
    ok(&bob.run(
        "2026-11-04T10:00:00Z",
        &["move", &id, &format!("Re2:w0_c{card}")],
    ));
    let said = refused(bob, alice, "2026-11-04T11:00:00Z", &id, "lead");
    (homes, id, card, said)
}

/// The attack: Black's card shows again among the cards White draws. Black
/// leads it in its scoring attempt; the replacement White draws with its reply (position
/// 21, whose key the lead's mail carries) is the same card: White's pbem refuses that
/// mail. A third party, who sees the played cards only, cannot tell.
#[test]
fn a_card_drawn_after_it_was_played_is_refused_at_the_mail_that_opens_it() {
    let (homes, id, card, said) = black_leads_its_copied_card("twice-drawn", 1);
    let (alice, bob) = (&homes.alice, &homes.bob);
    assert!(
        said.contains(&format!(
            "the mail's cards are not fair: ply 4: position 21, drawn into White's hand, \
             opens to {card}, which Black played at ply 4 since the deal: a card dealt twice"
        )),
        "{said}"
    );
    // The record alone shows nothing wrong: the card was played once, and no third party
    // can open White's cards.
    let path = game_path(bob, &id);
    let out = validate(&path);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("chance not proven"), "{said}");
    // White gives an arbiter the refused mail's record and its own seed (whatever Black
    // does with its own): `pbem validate` opens White's cards and says broken at that ply.
    let record = std::fs::read_to_string(&path).unwrap();
    let end = record.rfind('*').unwrap();
    let seed = B64.encode(dealer_of(alice, &id).seed());
    let arbiter = path.with_file_name("arbiter.pgn");
    std::fs::write(
        &arbiter,
        format!(
            "{}{{white [%deal seed {seed}]}} {}",
            &record[..end],
            &record[end..]
        ),
    )
    .unwrap();
    let out = validate(&arbiter);
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "chance broken at ply 4: position 21, drawn into White's hand, opens to {card}, \
             which Black played at ply 4 since the deal: a card dealt twice"
        )),
        "{said}"
    );
}

/// Black's card is White's replacement (position 20, drawn with White's lead); Black
/// then answers the lead with that card: White's pbem refuses the reply, whose mail opens
/// position 20 to White, naming the card.
#[test]
fn a_card_the_opponent_plays_while_the_reader_holds_it_is_refused() {
    // Black copies one of its cards whose suit White holds, so that White can lead that
    // suit and Black answer with the card.
    let (homes, id, cards) = forged_deal("twice-held", None, TO_THE_ATTEMPT[0], 1, |deal| {
        let source = (10..20)
            .find(|&s| deal[..10].iter().any(|&w| w / 10 == deal[s] / 10))
            .unwrap();
        (20, source)
    });
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (ply, token) in TO_THE_ATTEMPT.iter().enumerate().skip(1) {
        play_by_maildir(&homes, &id, ply, token);
    }
    let copied = cards[20];
    let card = card_name(copied);
    let lead = card_name(
        *cards[..10]
            .iter()
            .find(|&&w| w / 10 == copied / 10)
            .unwrap(),
    );
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["move", &id, &format!("Nxe5:w9_c{lead}")],
    ));
    post(alice, bob, "2026-11-07T10:01:00Z", &id, "lead");
    ok(&bob.run("2026-11-08T10:00:00Z", &["move", &id, &card]));
    let said = refused(bob, alice, "2026-11-08T11:00:00Z", &id, "reply");
    assert!(
        said.contains(&format!(
            "the mail's cards are not fair: ply 7: Black plays {card}, but White holds {card} \
             (position 20): a card dealt twice"
        )),
        "{said}"
    );
}

/// The mirror: Black copies White's first card into its own hand (position 12). When
/// White leads that card, Black's own pbem refuses the lead: White plays a card Black
/// holds. (Answering it by hand would play the card twice since the last reshuffle,
/// which the replay of the record refuses, as any card played twice in a deck period.)
#[test]
fn a_lead_of_a_card_the_reader_holds_is_refused_by_the_readers_pbem() {
    let (homes, id, cards) = forged_deal("twice-lead", None, TO_THE_ATTEMPT[0], 1, |_| (12, 0));
    let (alice, bob) = (&homes.alice, &homes.bob);
    for (ply, token) in TO_THE_ATTEMPT.iter().enumerate().skip(1) {
        play_by_maildir(&homes, &id, ply, token);
    }
    let card = card_name(cards[0]);
    ok(&alice.run(
        "2026-11-07T10:00:00Z",
        &["move", &id, &format!("Nxe5:w9_c{card}")],
    ));
    let said = refused(alice, bob, "2026-11-07T11:00:00Z", &id, "lead");
    assert!(
        said.contains(&format!(
            "the mail's cards are not fair: ply 7: White plays {card}, but Black holds {card} \
             (position 12): a card dealt twice"
        )),
        "{said}"
    );
    // Taking the lead in by hand does not help: Black's `pbem move` refuses to play on.
    std::fs::copy(game_path(alice, &id), game_path(bob, &id)).unwrap();
    let awaited = bob.run("2026-11-08T10:00:00Z", &["legal", &id]);
    let reply = text(&awaited.stdout)
        .lines()
        .next()
        .unwrap_or("-")
        .to_owned();
    let out = bob.run("2026-11-08T10:00:00Z", &["move", &id, &reply]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!(
            "ply 7: White plays {card}, but Black holds {card} (position 12): a card dealt \
             twice"
        )),
        "{said}"
    );
}

/// A card of Black's making (a masked card times a number of its own) among White's
/// draws: a group element like any other in message 2, it opens to no card, and White's
/// pbem refuses the mail whose key should open it, at its ply.
#[test]
fn a_card_not_of_the_deck_is_refused_when_it_is_drawn() {
    let (_homes, _, _, said) = black_leads_its_copied_card("made-up", 2);
    assert!(
        said.contains(
            "the mail's cards are not fair: ply 4: Black's key for position 21, one of White's \
             cards, opens no card"
        ),
        "{said}"
    );
}
