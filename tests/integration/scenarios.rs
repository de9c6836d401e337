//! The scenario tables of the games (`tests/data/<game>/scenarios.txt`): one runner for
//! every game. Lines are `command | argument | ...`:
//!
//! ```text
//! position | POSITION                 the position the next lines use (canonically written)
//! line | TOKEN TOKEN ...              plays these turns from the position: the next lines
//!                                     use the position reached and its history (turns a
//!                                     repetition ban forbids are refused and not counted)
//! turn | TOKEN | AFTER [| CANONICAL]  TOKEN is legal; AFTER is the position it leads to;
//!                                     the turn is written canonically as CANONICAL (or TOKEN)
//! illegal | TOKEN | KIND | FRAGMENT   TOKEN reads but is illegal: KIND (other, no-such-piece,
//!                                     blocked, ambiguous, game-over, repetition), message
//!                                     has FRAGMENT
//! syntax | TOKEN | FRAGMENT           TOKEN does not read; the message has FRAGMENT
//! legal | TOKEN TOKEN ...             exactly these canonical turns are legal (or `none`)
//! count | N                           exactly N turns are legal (for long lists)
//! outcome | TEXT                      the rules' verdict on the position and its history
//!                                     (or `none`)
//! bad-position | POSITION | FRAGMENT  the position string is refused with FRAGMENT
//! ```
//!
//! Every legal turn is also written back and read again (it must resolve to itself).
//!
//! Also the random playouts every game runs ([`check_playout`]).

use std::collections::HashMap;
use std::path::Path;

use pbem::games::{DrawReason, Game, GameResult, IllegalKind, Outcome, RepetitionRule};
use pbem::notation::{Line, Numbering, Record, Span, Tag, TurnNode, parse_record, write_record};
use pbem::replay::{History, replay};
use proptest::prelude::*;

fn kind_name(kind: &IllegalKind) -> &'static str {
    match kind {
        IllegalKind::NoSuchPiece => "no-such-piece",
        IllegalKind::Blocked => "blocked",
        IllegalKind::LeavesKingInCheck => "leaves-king-in-check",
        IllegalKind::Ambiguous(_) => "ambiguous",
        IllegalKind::GameOver => "game-over",
        IllegalKind::Repetition => "repetition",
        _ => "other",
    }
}

/// Every legal turn the history allows, canonically written and sorted.
fn legal_tokens<G: Game>(position: &G, history: &History<G>) -> Vec<String> {
    let forbidden = history.forbidden();
    let mut turns = Vec::new();
    position.legal_turns_except(forbidden, &mut turns);
    let mut tokens: Vec<String> = turns
        .iter()
        .map(|t| position.write_turn_except(t, forbidden))
        .collect();
    tokens.sort();
    tokens
}

/// Runs one line of the table against the current position and its history; returns a
/// problem, if any.
fn run_line<G: Game>(
    fields: &[&str],
    position: &mut Option<G>,
    history: &mut History<G>,
) -> Result<(), String> {
    let current = || position.clone().ok_or("no position yet".to_owned());
    let forbidden = history.forbidden().clone();
    match fields {
        ["position", text] => {
            let p = G::from_position_string(text).map_err(|e| e.to_string())?;
            if p.position_string() != *text {
                return Err(format!("written back as {}", p.position_string()));
            }
            *history = History::starting_at(&p);
            *position = Some(p);
        }
        ["line", tokens] => {
            let mut p = current()?;
            for token in tokens.split_whitespace() {
                let syntax = G::parse_turn(token).map_err(|e| e.to_string())?;
                let turn = p
                    .resolve_except(&syntax, history.forbidden())
                    .map_err(|e| format!("{token}: {}", e.message))?;
                p.play(&turn);
                history.enter(&p);
            }
            *position = Some(p);
        }
        ["turn", token, after, canonical @ ..] => {
            let p = current()?;
            let syntax = G::parse_turn(token).map_err(|e| e.to_string())?;
            let turn = p
                .resolve_except(&syntax, &forbidden)
                .map_err(|e| e.message)?;
            let written = p.write_turn_except(&turn, &forbidden);
            let wanted = canonical.first().copied().unwrap_or(token);
            if written != wanted {
                return Err(format!("written as {written}, not {wanted}"));
            }
            let again = G::parse_turn(&written).map_err(|e| e.to_string())?;
            if p.resolve_except(&again, &forbidden).as_ref() != Ok(&turn) {
                return Err(format!("{written} does not resolve back to the turn"));
            }
            let mut next = p.clone();
            next.play(&turn);
            if next.position_string() != *after {
                return Err(format!("leads to {}", next.position_string()));
            }
        }
        ["illegal", token, kind, fragment] => {
            let p = current()?;
            let syntax = G::parse_turn(token).map_err(|e| e.to_string())?;
            match p.resolve_except(&syntax, &forbidden) {
                Ok(turn) => return Err(format!("legal: {}", p.write_turn(&turn))),
                Err(error) => {
                    if kind_name(&error.kind) != *kind || !error.message.contains(fragment) {
                        return Err(format!(
                            "got {} \"{}\"",
                            kind_name(&error.kind),
                            error.message
                        ));
                    }
                    if let IllegalKind::Ambiguous(paths) = &error.kind
                        && paths
                            .iter()
                            .any(|path| !error.message.contains(path.as_str()))
                    {
                        return Err(format!("the message does not list {paths:?}"));
                    }
                }
            }
        }
        ["syntax", token, fragment] => match G::parse_turn(token) {
            Ok(syntax) => return Err(format!("reads as {syntax}")),
            Err(error) if error.message.contains(fragment) => {}
            Err(error) => return Err(format!("got \"{}\"", error.message)),
        },
        ["legal", tokens] => {
            let mut wanted: Vec<String> = tokens.split_whitespace().map(str::to_owned).collect();
            if wanted == ["none"] {
                wanted.clear();
            }
            wanted.sort();
            let got = legal_tokens(&current()?, history);
            if got != wanted {
                return Err(format!("legal turns are {}", got.join(" ")));
            }
        }
        ["count", number] => {
            let wanted: usize = number.parse().map_err(|_| "count is not a number")?;
            let got = legal_tokens(&current()?, history).len();
            if got != wanted {
                return Err(format!("{got} turns are legal"));
            }
        }
        ["outcome", text] => {
            let got = history
                .outcome(&current()?)
                .map_or_else(|| "none".to_owned(), |outcome| outcome.to_string());
            if got != *text {
                return Err(format!("the outcome is {got}"));
            }
        }
        ["bad-position", text, fragment] => match G::from_position_string(text) {
            Ok(p) => return Err(format!("accepted as {}", p.position_string())),
            Err(error) if error.message.contains(fragment) => {}
            Err(error) => return Err(format!("got \"{error}\"")),
        },
        _ => return Err("malformed line".to_owned()),
    }
    Ok(())
}

/// Runs a game's scenario table (a file under `tests/data`, relative to the project) and
/// fails with every line that does not hold. At least `minimum` lines must be there.
pub fn run_table<G: Game>(relative: &str, minimum: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut position: Option<G> = None;
    let mut history = History::default();
    let mut problems = Vec::new();
    let mut lines = 0;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        lines += 1;
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        if let Err(problem) = run_line(&fields, &mut position, &mut history) {
            problems.push(format!("line {}: {line}\n    {problem}", index + 1));
        }
    }
    assert!(
        lines >= minimum,
        "the scenario table is missing ({lines} lines)"
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn tag(name: &str, value: &str) -> Tag {
    Tag {
        name: name.into(),
        value: value.into(),
        span: Span::default(),
    }
}

/// Plays random legal turns from `start` (never one a repetition ban forbids), checking
/// every token and position string on the way; returns the record.
pub fn playout<G: Game + PartialEq>(start: &G, choices: &[u32]) -> Result<Record, TestCaseError> {
    let ban = match G::REPETITION {
        RepetitionRule::IllegalAt(limit) => Some(limit),
        RepetitionRule::Draw { .. } => None,
    };
    let mut position = start.clone();
    let mut seen: HashMap<u64, u32> = HashMap::from([(position.repetition_key(), 1)]);
    let mut legal: Vec<G::Turn> = Vec::new();
    let mut nodes = Vec::new();
    let mut ended = None;
    // One round more than there are choices, to see whether the last position ended.
    for choice in choices.iter().copied().map(Some).chain([None]) {
        legal.clear();
        position.legal_turns(&mut legal);
        if let Some(limit) = ban {
            legal.retain(|turn| {
                let mut next = position.clone();
                next.play(turn);
                seen.get(&next.repetition_key()).copied().unwrap_or(0) + 1 < limit
            });
        }
        if legal.is_empty() {
            // Without a legal turn the rules end the game; under a repetition ban the
            // game also ends when every turn is banned.
            ended = position
                .outcome()
                .or_else(|| ban.map(|_| position.outcome_without_legal_turn()));
            prop_assert!(ended.is_some());
            break;
        }
        // Nothing may follow an end the rules impose while turns are still possible (a
        // dead position, a move-count rule, an automatic repetition draw).
        ended = position
            .outcome_with_legal_turn()
            .or_else(|| repetition_end::<G>(seen[&position.repetition_key()]));
        let Some(choice) = choice.filter(|_| ended.is_none()) else {
            break;
        };
        // A turn that then awaits a part from a player (a Cards attempt, whose cards are
        // added to its token by later acts) is left out: completing it is the work of the
        // by-mail and property tests. The playout stops, unfinished, when only such turns
        // remain.
        legal.retain(|turn| {
            let mut next = position.clone();
            next.play(turn);
            next.awaiting().is_none()
        });
        if legal.is_empty() {
            break;
        }
        let turn = legal[choice as usize % legal.len()].clone();
        let token = position.write_turn(&turn);
        let syntax =
            G::parse_turn(&token).map_err(|e| TestCaseError::fail(format!("{token}: {e}")))?;
        prop_assert_eq!(syntax.to_string(), token.clone());
        prop_assert_eq!(position.resolve(&syntax), Ok(turn.clone()), "{}", token);
        position.play(&turn);
        let text = position.position_string();
        let read = G::from_position_string(&text)
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&read, &position);
        *seen.entry(position.repetition_key()).or_insert(0) += 1;
        nodes.push(TurnNode::new(token));
    }
    let result = ended.map_or(GameResult::Unknown, |outcome| outcome.result());
    Ok(Record {
        tags: vec![
            tag("Event", "random"),
            tag("Result", result.as_str()),
            tag("Variant", G::VARIANT.name()),
            tag("SetUp", "1"),
            tag("FEN", &start.position_string()),
        ],
        moves: Line {
            comments: Vec::new(),
            turns: nodes,
        },
        result: Some(result),
        number: 1,
        ..Record::default()
    })
}

/// The draw an automatic repetition rule imposes on a position seen `count` times.
fn repetition_end<G: Game>(count: u32) -> Option<Outcome> {
    match G::REPETITION {
        RepetitionRule::Draw {
            automatic: Some(automatic),
            ..
        } if count >= automatic => Some(Outcome::Draw {
            reason: if automatic == 3 {
                DrawReason::ThreefoldRepetition
            } else {
                DrawReason::FivefoldRepetition
            },
        }),
        _ => None,
    }
}

/// A random game from `start` through the writer, the reader and the validator: it reads
/// back as the same record and validates.
pub fn check_playout<G: Game + PartialEq>(start: &G, choices: &[u32]) -> Result<(), TestCaseError> {
    let record = playout(start, choices)?;
    write_read_validate(start, &record)?;
    Ok(())
}

/// Writes `record`, numbered from `start`, reads the text back as the same record and
/// validates it; returns the text.
pub fn write_read_validate<G: Game>(start: &G, record: &Record) -> Result<String, TestCaseError> {
    let numbering = Numbering {
        fullmove: start.fullmove_number(),
        side: start.side_to_move(),
    };
    let mut text = String::new();
    write_record(record, numbering, &mut text);
    let parsed =
        parse_record(&text).map_err(|error| TestCaseError::fail(format!("{error}\n{text}")))?;
    prop_assert_eq!(&parsed, record, "{}", text);
    let report = replay(&parsed);
    prop_assert!(report.is_valid(), "{:?}\n{}", report.findings, text);
    Ok(text)
}

/// Runs the `pbem` binary in the project folder.
pub fn pbem(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("pbem runs")
}

/// An example game (a file relative to the project) is valid, played to its end, and its
/// result is the rules' verdict.
pub fn check_example_game(relative: &str) {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)).unwrap();
    let record = parse_record(&text).unwrap();
    let report = replay(&record);
    assert!(report.is_valid(), "{:?}", report.findings);
    let outcome = report
        .outcome
        .expect("the example game is played to its end");
    assert_eq!(Some(outcome.result()), record.result);
}
