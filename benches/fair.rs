//! Fair chance by mail (issue 16): the cost of a player's hash chain (a value is up to
//! 1000 SHA-256 from the seed), of a roll, and of checking a game's transcript from the
//! record alone; and the mail bytes the transcript adds (printed once). For the Cards
//! deal: the bytes and time of each of its steps, and of checking it with the seeds; the
//! same for a reshuffle of the discards when the deck runs out; and the size and time of
//! the proof of each shuffle that was studied and left out (`fair::proof`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../src/fair/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use pbem::clock::Stamp;
use pbem::correspondence;
use pbem::fair::{self, Chain};
use pbem::games::Color;
use pbem::notation::Record;

/// A Dice II game to a completed attempt with a named sacrifice, and the same game
/// without the transcript (rolls as the completed token has them).
fn games() -> (Record, Record) {
    let (_, black) = fixtures::chains();
    let mut record = fixtures::game_to_attempt("Dice II", "Nxe5:w9_sa2");
    let done = fair::complete(&mut record, Color::Black, &black)
        .unwrap()
        .unwrap();
    let mut plain = fixtures::wickets_record("Dice II", None, fixtures::GAME_ID);
    let turns = fixtures::BEFORE_ATTEMPT.iter().copied();
    for (i, token) in turns.chain([done.token.as_str()]).enumerate() {
        fixtures::play(&mut plain, i, token);
    }
    (record, plain)
}

fn dice(c: &mut Criterion) {
    let chain = Chain::from_seed([7; 32]);
    c.bench_function("fair chain value 1 (1000 SHA-256)", |b| {
        b.iter(|| black_box(&chain).value(1))
    });
    let (w, v) = (chain.value(1).unwrap(), chain.value(2).unwrap());
    c.bench_function("fair roll", |b| {
        b.iter(|| fair::roll(black_box("g-20261122-0000000f"), 1, &w, &v))
    });
    let (record, plain) = games();
    assert_eq!(fair::check(&record), fair::Fairness::Proven { rolls: 2 });
    let with = correspondence::to_text(&record).len();
    let without = correspondence::to_text(&plain).len();
    println!(
        "fair dice transcript: {with} bytes of record with it, {without} without: {} bytes for \
         two commitments and one Dice II attempt's reveals",
        with - without
    );
    c.bench_function("fair check of a Dice II game (8 plies, 2 rolls)", |b| {
        b.iter(|| fair::check(black_box(&record)))
    });
}

/// A new Cards II game between Alice and Bob, and the stamp of its turns.
fn cards_game() -> (Stamp, Record) {
    let record = fixtures::wickets_record("Cards II", None, fixtures::GAME_ID);
    (fixtures::stamp(), record)
}

/// The mental-poker deal of the Cards modes as the record carries it (`fair::cards`):
/// the mail bytes each step of the deal adds to the game file, and to a card play, printed
/// once; the time of each step, and of checking the whole transcript with both seeds.
fn deal(c: &mut Criterion) {
    use pbem::fair::cards;
    use pbem::fair::deal::Dealer;
    let (white, black) = (Dealer::from_seed([3; 32]), Dealer::from_seed([4; 32]));
    let (stamp, mut record) = cards_game();
    let size = |r: &Record| correspondence::to_text(r).len();
    let mut sizes = Vec::new();
    let mut step = |r: &mut Record, side: Color, dealer: &Dealer| {
        let before = size(r);
        cards::advance(r, side, dealer).unwrap();
        sizes.push(size(r) - before);
    };
    step(&mut record, Color::White, &white);
    let start = record.clone();
    let address = |side: Color| match side {
        Color::White => "alice@example.org",
        Color::Black => "bob@example.org",
    };
    for (i, token) in ["e4", "e5", "Ke2:f3", "Ke7", "Nxf3", "Kd6"]
        .iter()
        .enumerate()
    {
        let side = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        correspondence::play(&mut record, address(side), token, stamp).unwrap();
        let other = side.other();
        step(
            &mut record,
            other,
            if other == Color::White {
                &white
            } else {
                &black
            },
        );
    }
    let lead = cards::hand(&record, Color::White, &white).unwrap().cards[0].1;
    let before = record.clone();
    let text_before = size(&record);
    correspondence::play(
        &mut record,
        address(Color::White),
        &format!("Nxe5:w9_c{lead}"),
        stamp,
    )
    .unwrap();
    let token = format!("Nxe5:w9_c{lead}").len() + 4;
    cards::after_move(&before, &mut record, Color::White, &white).unwrap();
    let play = size(&record) - text_before - token;
    cards::reveal_seed(&mut record, Color::White, &white);
    cards::reveal_seed(&mut record, Color::Black, &black);
    let seeds = size(&record) - text_before - token - play;
    let deal: usize = sizes.iter().sum();
    println!(
        "deal mail bytes (base64 in the game file): White's message 1 {}, Black's message 2 \
         with its keys for White's hand {}, White's message 3 with its keys for Black's hand \
         {}: {deal} in all; a card play adds {play} (its opening key and the key of the \
         reply's replacement, beside the stamp), both seeds {seeds}",
        sizes[0], sizes[1], sizes[2]
    );
    println!("verdict: {}", fair::check(&record));
    let mut group = c.benchmark_group("fair deal");
    group.sample_size(10);
    group.bench_function("message 1 (White: mask and shuffle 40)", |b| {
        b.iter(|| {
            let mut r = start.clone();
            r.moves.comments.clear();
            cards::advance(black_box(&mut r), Color::White, &white).unwrap()
        })
    });
    let mut after_first = start.clone();
    correspondence::play(&mut after_first, address(Color::White), "e4", stamp).unwrap();
    group.bench_function(
        "message 2 (Black: shuffle, mask, keys for White's hand)",
        |b| {
            b.iter(|| {
                let mut r = after_first.clone();
                cards::advance(black_box(&mut r), Color::Black, &black).unwrap()
            })
        },
    );
    let mut after_second = after_first.clone();
    cards::advance(&mut after_second, Color::Black, &black).unwrap();
    correspondence::play(&mut after_second, address(Color::Black), "e5", stamp).unwrap();
    group.bench_function("message 3 (White: rekey, keys for Black's hand)", |b| {
        b.iter(|| {
            let mut r = after_second.clone();
            cards::advance(black_box(&mut r), Color::White, &white).unwrap()
        })
    });
    let mut dealt = after_second.clone();
    cards::advance(&mut dealt, Color::White, &white).unwrap();
    group.bench_function("a hand opened (10 cards)", |b| {
        b.iter(|| cards::hand(black_box(&dealt), Color::Black, &black).unwrap())
    });
    group.bench_function("check with both seeds (deal verified, 1 card)", |b| {
        b.iter(|| fair::check(black_box(&record)))
    });
    group.finish();
}

/// A Cards II game by the library's steps (`correspondence::play`, `cards::after_move`,
/// `cards::advance` as `pbem move` and `pbem receive` call them), both Rooks attempting in
/// turn on the e-file (the replies' bonus makes them fail mostly) until the deck ran out,
/// was reshuffled and `cards` cards were played.
fn reshuffled_game(dealers: &[pbem::fair::deal::Dealer; 2], cards: usize) -> Record {
    use pbem::fair::cards;
    let stamp = fixtures::stamp();
    let address = |side: Color| match side {
        Color::White => "alice@example.org",
        Color::Black => "bob@example.org",
    };
    let index = |side: Color| usize::from(side == Color::Black);
    let mut record = fixtures::wickets_record(
        "Cards II",
        Some("3q3k/5ppp/4R3/8/8/4r3/PPP5/K2Q4 w - - -,- e6,e3 d1,d8 cards2 0 1"),
        "g-20261122-0000001f",
    );
    cards::advance(&mut record, Color::White, &dealers[0]).unwrap();
    let play = |record: &mut Record, side: Color, token: &str| -> bool {
        let dealer = &dealers[index(side)];
        cards::advance(record, side, dealer).unwrap();
        let before = record.clone();
        if correspondence::play(record, address(side), token, stamp).is_err() {
            return false;
        }
        cards::after_move(&before, record, side, dealer).unwrap();
        cards::advance(record, side.other(), &dealers[index(side.other())]).unwrap();
        true
    };
    let opening = [
        (Color::White, "Kb1"),
        (Color::Black, "Kg8"),
        (Color::White, "Ka1"),
        (Color::Black, "Kh8"),
    ];
    let cycle = [
        (Color::White, "Re7:w9"),
        (Color::Black, "Re2:w0"),
        (Color::White, "Rxw9"),
        (Color::Black, "Rxw0"),
    ];
    for &(side, token) in opening.iter().chain(cycle.iter().cycle().take(400)) {
        let text = correspondence::to_text(&record);
        if text.contains("reshuffle 1 mask3") && text.matches("[%deal open").count() >= cards {
            return record;
        }
        let dealer = &dealers[index(side)];
        let token = if token.contains(":w") {
            let hand = cards::hand(&record, side, dealer).unwrap();
            let low = hand.cards.iter().min_by_key(|(_, c)| c.value()).unwrap().1;
            format!("{token}_c{low}")
        } else {
            token.to_owned()
        };
        let named = ["", "Da2:", "Db2:", "Dc2:", "Dh7:", "Dg7:", "Df7:"]
            .iter()
            .any(|name| play(&mut record, side, &format!("{name}{token}")));
        assert!(named, "{token}");
        while let Some(side) = correspondence::state(&record).unwrap().awaited {
            let dealer = &dealers[index(side)];
            let mut may = cards::may_play(&record, side, dealer).unwrap();
            may.sort_by_key(|c| 10 - c.value());
            assert!(play(&mut record, side, &may[0].to_string()));
        }
    }
    panic!("no reshuffle");
}

/// The reshuffle of the discards when the deck runs out: the bytes each of its three
/// messages adds to the mails, printed once; the time of each step and of checking a game
/// through it with both seeds.
fn reshuffle(c: &mut Criterion) {
    use pbem::fair::cards;
    use pbem::fair::deal::{self, Dealer};
    let dealers = [Dealer::from_seed([3; 32]), Dealer::from_seed([4; 32])];
    let mut record = reshuffled_game(&dealers, 30);
    let comments: Vec<String> = record
        .moves
        .turns
        .iter()
        .flat_map(|turn| turn.comments.iter())
        .map(|comment| comment.text.to_string())
        .collect();
    let bytes = |find: &str| {
        comments
            .iter()
            .find(|text| text.contains(find))
            .map_or(0, |text| text.len() + 3)
    };
    let key = comments
        .iter()
        .find(|text| text.contains("[%deal keys 4"))
        .map_or(0, |text| text.len() + 3);
    cards::reveal_seed(&mut record, Color::White, &dealers[0]);
    cards::reveal_seed(&mut record, Color::Black, &dealers[1]);
    println!(
        "reshuffle mail bytes (base64 in the game file): message 1 {}, message 2 {}, message 3 \
         {} (each beside the keys its writer then owes for reshuffled places, one key \
         command such as {key} bytes); the game has {} cards played",
        bytes("reshuffle 1 mask1"),
        bytes("reshuffle 1 mask2"),
        bytes("reshuffle 1 mask3"),
        correspondence::to_text(&record)
            .matches("[%deal open")
            .count()
    );
    println!("verdict: {}", fair::check(&record));
    let discards: Vec<usize> = (0..21).map(|i| i * 19 % 40).collect();
    let (first, second) = (dealers[0].reshuffle(1), dealers[1].reshuffle(1));
    let m1 = first.mask_cards(&discards);
    let m2 = second.shuffle_deck(&m1, 21).unwrap();
    let m3 = first.rekey_deck(&m2, 21).unwrap();
    let mut group = c.benchmark_group("fair reshuffle");
    group.sample_size(10);
    group.bench_function("message 1 (mask and shuffle the 21 discards)", |b| {
        b.iter(|| first.mask_cards(black_box(&discards)))
    });
    group.bench_function("message 2 (shuffle, mask with card keys)", |b| {
        b.iter(|| second.shuffle_deck(black_box(&m1), 21).unwrap())
    });
    group.bench_function("message 3 (rekey)", |b| {
        b.iter(|| first.rekey_deck(black_box(&m2), 21).unwrap())
    });
    group.bench_function("verify with both seeds (21 cards opened)", |b| {
        b.iter(|| {
            deal::verify_cards(&first, &second, &[&m1, &m2, &m3], black_box(&discards)).unwrap()
        })
    });
    group.bench_function("check a game through the reshuffle with both seeds", |b| {
        b.iter(|| fair::check(black_box(&record)))
    });
    group.finish();
}

/// The proof of each shuffle (issue 32, point 3; `fair::proof`, measured and not in the
/// protocol): its bytes, raw and in the record's base64, for the deal's 40 cards and a
/// reshuffle's 21, and the record each deal mail would carry with the proofs in, printed
/// once; the time to prove and to verify messages 1 and 2.
/// The decks the proofs are measured on: the deal (40 cards) and reshuffle 1 (21
/// discards), each with its first and second player's dealer.
fn proof_cases(
    white: &pbem::fair::deal::Dealer,
    black: &pbem::fair::deal::Dealer,
) -> [(
    &'static str,
    Vec<usize>,
    pbem::fair::deal::Dealer,
    pbem::fair::deal::Dealer,
); 2] {
    [
        ("deal", (0..40).collect(), white.clone(), black.clone()),
        (
            "reshuffle",
            (0..21).map(|i| i * 19 % 40).collect(),
            white.reshuffle(1),
            black.reshuffle(1),
        ),
    ]
}

fn shuffle_proof(c: &mut Criterion) {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use pbem::fair::cards;
    use pbem::fair::deal::Dealer;
    use pbem::fair::proof;
    // A proof as a comment command would carry it: `{white [%deal proof1 P]} `.
    let command = |p: &proof::Proof| URL_SAFE_NO_PAD.encode(p.to_bytes()).len() + 24;
    let (white, black) = (Dealer::from_seed([3; 32]), Dealer::from_seed([4; 32]));
    let mut group = c.benchmark_group("fair shuffle proof");
    group.sample_size(10);
    let mut commands = Vec::new();
    for (name, cards, first, second) in proof_cases(&white, &black) {
        let cards = &cards;
        let size = cards.len();
        let from = proof::card_deck(cards);
        let m1 = first.mask_cards(cards);
        let m2 = second.shuffle_deck(&m1, size).unwrap();
        let (p1, p2) = (
            proof::prove_first(&first, cards).unwrap(),
            proof::prove_second(&second, &m1).unwrap(),
        );
        for (message, p) in [(1, &p1), (2, &p2)] {
            println!(
                "shuffle proof of the {name}'s message {message} ({size} elements): {} bytes, \
                 {} as a comment command in base64",
                p.to_bytes().len(),
                command(p)
            );
        }
        commands.push((command(&p1), command(&p2)));
        group.bench_function(format!("prove message 1 ({name}, {size})"), |b| {
            b.iter(|| proof::prove_first(&first, black_box(cards)).unwrap())
        });
        group.bench_function(format!("verify message 1 ({name}, {size})"), |b| {
            b.iter(|| proof::verify(&from, black_box(&m1), &p1).unwrap())
        });
        group.bench_function(format!("prove message 2 ({name}, {size})"), |b| {
            b.iter(|| proof::prove_second(&second, black_box(&m1)).unwrap())
        });
        group.bench_function(format!("verify message 2 ({name}, {size})"), |b| {
            b.iter(|| proof::verify(&m1, black_box(&m2), &p2).unwrap())
        });
    }
    group.finish();
    // The record at each mail of the deal, as `pbem` writes it today and with the proofs
    // of messages 1 and 2 in (each mail carries the whole record so far).
    let (stamp, mut record) = cards_game();
    let size = |r: &Record| correspondence::to_text(r).len();
    cards::advance(&mut record, Color::White, &white).unwrap();
    let mail1 = size(&record);
    correspondence::play(&mut record, "alice@example.org", "e4", stamp).unwrap();
    cards::advance(&mut record, Color::Black, &black).unwrap();
    let mail2 = size(&record);
    correspondence::play(&mut record, "bob@example.org", "e5", stamp).unwrap();
    cards::advance(&mut record, Color::White, &white).unwrap();
    let mail3 = size(&record);
    let (deal1, deal2) = commands[0];
    let (reshuffle1, reshuffle2) = commands[1];
    println!(
        "record at each deal mail, today and with the proofs of messages 1 and 2: mail 1 \
         {mail1} and {}, mail 2 {mail2} and {}, mail 3 {mail3} and {} (before message 3's own \
         proof); each reshuffle adds {} to the record for good",
        mail1 + deal1,
        mail2 + deal1 + deal2,
        mail3 + deal1 + deal2,
        reshuffle1 + reshuffle2
    );
}

/// The proof that rides with message 3 (`fair::factors`): its size and its time for the
/// deal (40 positions) and a reshuffle (21).
fn message_3_proof(c: &mut Criterion) {
    use pbem::fair::deal::Dealer;
    use pbem::fair::factors;
    let (white, black) = (Dealer::from_seed([3; 32]), Dealer::from_seed([4; 32]));
    let mut group = c.benchmark_group("fair message 3 proof");
    for (name, cards, first, second) in proof_cases(&white, &black) {
        let cards = &cards;
        let size = cards.len();
        let m2 = second.shuffle_deck(&first.mask_cards(cards), size).unwrap();
        let (m3, proof) = factors::rekey_and_prove(&first, &m2, size).unwrap();
        // As written after message 3's elements: ` proof E S0 ...`, 43 characters each.
        let written = " proof".len() + proof.scalars().count() * 44;
        println!(
            "message 3 proof of the {name} ({size} elements): {} bytes, {written} in the record",
            proof.scalars().count() * 32
        );
        group.bench_function(format!("message 3 alone ({name}, {size})"), |b| {
            b.iter(|| first.rekey_deck(black_box(&m2), size).unwrap())
        });
        group.bench_function(format!("message 3 and its proof ({name}, {size})"), |b| {
            b.iter(|| factors::rekey_and_prove(&first, black_box(&m2), size).unwrap())
        });
        group.bench_function(format!("verify ({name}, {size})"), |b| {
            b.iter(|| factors::verify(&m2, black_box(&m3), Some(&proof)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    dice,
    deal,
    reshuffle,
    shuffle_proof,
    message_3_proof
);
criterion_main!(benches);
