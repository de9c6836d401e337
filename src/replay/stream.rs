//! Validation of a plain game without a record: the main line streamed from the grammar
//! ([`crate::notation::Reader::next_streamed`]) and replayed as it comes.
//!
//! Almost every game of a real archive is plain and valid: tags, turns, comments, no
//! variation, nothing to report. For those, building a [`Record`] (owned tokens with their
//! spans, comments, the movetext tree) costs more than replaying them. A [`Streamer`]
//! replays the turns as the grammar reads them and makes the same checks as
//! [`replay_with`](super::replay_with) in the same order, but it reports nothing: at the
//! first thing the full replay would report (an error or a warning), and at anything it
//! does not follow (a variation, a record event), it gives the game up, and the reader
//! reads the game again into a record for the full replay. So a game streamed to the end
//! is one the full replay finds nothing in, and its [`Report`] is the one the full replay
//! makes (the tests compare both on every game of the test data).

use super::events::may_hold_event;
use super::history::repetition_end;
use super::{History, Report, variant_named};
use crate::games::{Chess, Color, Game, GameResult, Tags, Variant};
use crate::notation::{Record, Tag, Token, Visitor, WrittenNumber};

/// Replays the plain games of every game pbem plays, each with a [`Streamer`] of the game
/// its `Variant` tag names: orthodox chess (most games) with one kept here, called
/// directly; the others with one made for the first game of theirs. A game with chance
/// (Chess with Wickets with dice or cards) is given up at its tags, since its fairness is
/// checked on its record ([`crate::fair::check`]). Without this, a long game of another
/// game would be read whole into a record: its turns, with their spans, cost about 150
/// bytes a ply.
#[derive(Debug, Default)]
pub struct AnyStreamer {
    chess: Streamer<Chess>,
    other: Option<(Variant, Box<dyn Streaming>)>,
    /// Whether the game being read went to `other`.
    to_other: bool,
}

/// A [`Streamer`] of any game.
trait Streaming: Visitor + std::fmt::Debug {
    fn take_report(&mut self, final_position: bool) -> Option<Report>;
}

impl<G: Game> Streaming for Streamer<G> {
    fn take_report(&mut self, final_position: bool) -> Option<Report> {
        Streamer::take_report(self, final_position)
    }
}

impl AnyStreamer {
    /// A streamer with nothing replayed yet.
    #[must_use]
    pub fn new() -> AnyStreamer {
        AnyStreamer::default()
    }

    /// The report of the game last streamed to its end, as [`Streamer::take_report`].
    pub fn take_report(&mut self, final_position: bool) -> Option<Report> {
        match (&mut self.other, self.to_other) {
            (Some((_, streamer)), true) => streamer.take_report(final_position),
            _ => self.chess.take_report(final_position),
        }
    }
}

impl Visitor for AnyStreamer {
    fn tags(&mut self, record: &Record) -> bool {
        let variant = match variant_named(record.tag("Variant")) {
            Ok(Variant::Chess) | Err(_) => {
                // An unknown game is given up by the chess streamer.
                self.to_other = false;
                return self.chess.tags(record);
            }
            Ok(variant) => variant,
        };
        self.to_other = true;
        if crate::fair::has_chance(record) {
            return false;
        }
        let streamer = match &mut self.other {
            Some((kept, streamer)) if *kept == variant => streamer,
            other => {
                let made: Box<dyn Streaming> =
                    crate::with_game!(variant, G => Box::new(Streamer::<G>::new()));
                &mut other.insert((variant, made)).1
            }
        };
        streamer.tags(record)
    }

    #[inline(always)]
    fn token(&mut self, token: Token<'_>) -> bool {
        match &mut self.other {
            Some((_, streamer)) if self.to_other => streamer.token(token),
            _ => self.chess.token(token),
        }
    }

    fn end(&mut self, result: Option<GameResult>) -> bool {
        match &mut self.other {
            Some((_, streamer)) if self.to_other => streamer.end(result),
            _ => Visitor::end(&mut self.chess, result),
        }
    }
}

/// Replays plain games streamed to it, one after another (see the module documentation).
#[derive(Debug)]
pub struct Streamer<G: Game> {
    history: History<G>,
    /// The game being replayed: `None` before its tags, or once given up.
    game: Option<Playing<G>>,
    /// The report of the last game streamed to its end.
    report: Option<Report>,
    /// The key of each tag name of the game being started ([`name_key`]), reused.
    name_keys: Vec<u32>,
}

/// The tags [`Streamer::start`] reads, found in one pass: `Variant`, `FEN`, `SetUp` and
/// `Result`, the first of each; any other name is looked up in the record.
struct Found<'a> {
    record: &'a Record,
    values: [Option<&'a str>; 4],
}

impl Tags for Found<'_> {
    fn tag(&self, name: &str) -> Option<&str> {
        match name {
            "Variant" => self.values[0],
            "FEN" => self.values[1],
            "SetUp" => self.values[2],
            "Result" => self.values[3],
            _ => self.record.tag(name),
        }
    }
}

/// A key of a tag name: equal names have equal keys (its length, first, middle and last
/// bytes), so only names with equal keys need comparing.
#[inline]
fn name_key(name: &str) -> u32 {
    let bytes = name.as_bytes();
    match bytes {
        [] => 0,
        [first, ..] => {
            let length = bytes.len();
            (u32::from(*first) << 24)
                | (u32::from(bytes[length / 2]) << 16)
                | (u32::from(bytes[length - 1]) << 8)
                | (length as u32 & 0xFF)
        }
    }
}

/// Whether two of `tags` have the same name; `keys` are their names' keys, in order.
fn has_duplicate(tags: &[Tag], keys: &[u32]) -> bool {
    (1..keys.len()).any(|index| {
        let key = keys[index];
        keys[..index]
            .iter()
            .enumerate()
            .any(|(earlier, &other)| other == key && tags[earlier].name == tags[index].name)
    })
}

#[derive(Debug)]
struct Playing<G> {
    number: usize,
    position: G,
    first_side: Color,
    first_number: u32,
    ply: u32,
    /// How often the current position occurred, itself included.
    occurrences: u32,
    /// The result the `[Result]` tag gives, if any.
    tag_result: Option<GameResult>,
}

impl<G: Game> Default for Streamer<G> {
    fn default() -> Self {
        Streamer {
            history: History::default(),
            game: None,
            report: None,
            name_keys: Vec::new(),
        }
    }
}

impl<G: Game> Streamer<G> {
    /// A streamer with nothing replayed yet.
    #[must_use]
    pub fn new() -> Streamer<G> {
        Streamer::default()
    }

    /// The report of the game last streamed to its end, with its final position string
    /// when `final_position` is set (writing it is the one cost a caller may skip).
    pub fn take_report(&mut self, final_position: bool) -> Option<Report> {
        let mut report = self.report.take()?;
        if final_position && let Some(game) = &self.game {
            report.final_position = Some(game.position.position_string());
        }
        Some(report)
    }

    fn start(&mut self, record: &Record) -> Option<Playing<G>> {
        // One pass over the tags finds the ones the start needs (`Found`) and keys every
        // name for the duplicate test.
        let mut found = Found {
            record,
            values: [None; 4],
        };
        self.name_keys.clear();
        for tag in &record.tags {
            let name = tag.name.as_str();
            self.name_keys.push(name_key(name));
            let slot = match name {
                "Variant" => 0,
                "FEN" => 1,
                "SetUp" => 2,
                "Result" => 3,
                _ => continue,
            };
            found.values[slot].get_or_insert(tag.value.as_str());
        }
        // A tag given twice is reported (`check_tags`).
        if has_duplicate(&record.tags, &self.name_keys) {
            return None;
        }
        if variant_named(found.values[0]).ok()? != G::VARIANT {
            return None;
        }
        let start = G::from_tags(&found).ok()?;
        // An unknown result in the tag is reported (`check_result`).
        let tag_result = match found.values[3] {
            Some(value) => Some(GameResult::from_token(value.trim())?),
            None => None,
        };
        self.history.clear();
        let occurrences = self.history.enter_key(start.repetition_key());
        Some(Playing {
            number: record.number,
            first_side: start.side_to_move(),
            first_number: start.fullmove_number(),
            position: start,
            ply: 0,
            occurrences,
            tag_result,
        })
    }

    /// One turn, as `Replayer::line` replays it on the main line; `None` where that
    /// reports something. Not inlined into the grammar's loop, which calls it for every
    /// turn.
    #[inline(never)]
    fn turn(&mut self, token: &str, number: WrittenNumber) -> Option<()> {
        let game = self.game.as_mut()?;
        if number.is_written() && !number_fits(game.first_side, game.first_number, number, game.ply)
        {
            return None;
        }
        let syntax = G::parse_turn(token).ok()?;
        let turn = game
            .position
            .resolve_except(&syntax, self.history.forbidden())
            .ok()?;
        // The game had ended before this turn.
        if repetition_end::<G>(game.occurrences)
            .or_else(|| game.position.outcome_with_legal_turn())
            .is_some()
        {
            return None;
        }
        game.position.play(&turn);
        game.ply += 1;
        if game.position.annotation_mismatch(&syntax).is_some() {
            return None;
        }
        game.occurrences = self.history.enter_key(game.position.repetition_key());
        Some(())
    }

    /// The end of the main line, as `Replayer::line` and `check_result` judge it; `None`
    /// where they report something.
    fn end(&mut self, marker: Option<GameResult>) -> Option<Report> {
        let game = self.game.as_ref()?;
        let position = &game.position;
        if game.ply > 0 && position.awaiting().is_some() {
            return None;
        }
        let outcome = repetition_end::<G>(game.occurrences)
            .or_else(|| position.outcome())
            .or_else(|| self.history.every_turn_forbidden(position));
        let claimable = position
            .claimable_draw()
            .or_else(|| self.history.claimable(position));
        if let (Some(tag), Some(marker)) = (game.tag_result, marker)
            && tag != marker
        {
            return None;
        }
        if let (Some(claimed), Some(outcome)) = (marker.or(game.tag_result), outcome)
            && (claimed == GameResult::Unknown || claimed != outcome.result())
        {
            return None;
        }
        Some(Report {
            game: game.number,
            variant: Some(G::VARIANT),
            plies: game.ply,
            final_position: None,
            outcome,
            claimable,
            findings: Vec::new(),
        })
    }
}

/// Whether `number_problem` finds nothing wrong with a move number written before the
/// turn at `ply`: the same test, without making its message.
#[inline]
fn number_fits(first_side: Color, first_number: u32, written: WrittenNumber, ply: u32) -> bool {
    let offset = match first_side {
        Color::White => ply,
        Color::Black => ply + 1,
    };
    let second = offset % 2 == 1;
    let number_fits = written.number.is_none_or(|given| {
        given == first_number.saturating_add(offset / 2) && (written.ellipsis || !second)
    });
    number_fits && (second || !written.ellipsis)
}

impl<G: Game> Visitor for Streamer<G> {
    fn tags(&mut self, record: &Record) -> bool {
        self.report = None;
        self.game = self.start(record);
        self.game.is_some()
    }

    // Inlined into the grammar's loop: a comment or glyph is a test or two there.
    #[inline(always)]
    fn token(&mut self, token: Token<'_>) -> bool {
        let going = match token {
            // Record events are judged (`events_at`): left to the full replay.
            Token::Comment(text) => !may_hold_event(text),
            Token::Nag => true,
            Token::Turn(token, number) => self.turn(token, number).is_some(),
        };
        if !going {
            self.game = None;
        }
        going
    }

    fn end(&mut self, result: Option<GameResult>) -> bool {
        self.report = Streamer::end(self, result);
        self.report.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::Reader;
    use crate::replay::{Options, replay_with};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::with_cases(2000)
        })]

        /// The keyed duplicate test finds what comparing every pair of names finds (names
        /// from a small alphabet, so that keys often collide).
        #[test]
        fn the_keyed_duplicate_test_is_the_pairwise_one(
            names in proptest::collection::vec("[ab]{0,4}|WhiteElo|BlackElo|White|FEN", 0..12),
        ) {
            let tags: Vec<Tag> = (names.iter())
                .map(|name| Tag {
                    name: name.into(),
                    value: "v".into(),
                    span: crate::notation::Span::default(),
                })
                .collect();
            let keys: Vec<u32> = names.iter().map(|name| name_key(name)).collect();
            let pairwise = (0..names.len()).any(|i| names[..i].contains(&names[i]));
            proptest::prop_assert_eq!(has_duplicate(&tags, &keys), pairwise);
        }
    }

    /// A streamed game is one the full replay finds nothing in, with the same report; and
    /// the games given up are read again, so the reader returns every game once.
    #[test]
    fn streamed_games_get_the_full_replays_report() {
        let files = walkdir::WalkDir::new(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
        )
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.expect("the test data is readable").into_path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "pgn"));
        let (mut streamed, mut given_up, mut other_games) = (0, 0, 0);
        for path in files {
            let bytes = std::fs::read(&path).expect("a readable file");
            let full: Vec<_> = Reader::new(&bytes[..]).collect();
            let mut reader = Reader::new(&bytes[..]);
            let mut streamer = AnyStreamer::new();
            let mut tags = Record::default();
            let mut number = 0;
            while let Some(item) = reader.next_streamed(&mut tags, &mut streamer) {
                let expected = &full[number];
                number += 1;
                let item = match item {
                    Ok(None) => {
                        streamed += 1;
                        let report = streamer.take_report(true).expect("a report");
                        let record = expected.as_ref().expect("the full reader reads it");
                        assert_eq!(record.tags, tags.tags, "{path:?} game {number}");
                        let full_report = replay_with(record, Options::default());
                        assert_eq!(report, full_report, "{path:?} game {number}");
                        assert_eq!(report.game, number);
                        if report.variant != Some(Variant::Chess) {
                            other_games += 1;
                        }
                        continue;
                    }
                    Ok(Some(record)) => Ok(record),
                    Err(error) => Err(error),
                };
                given_up += 1;
                match (item, expected) {
                    (Ok(record), Ok(expected)) => assert_eq!(&record, expected),
                    (Err(error), Err(expected)) => {
                        assert_eq!(error.to_string(), expected.to_string());
                    }
                    _ => panic!("{path:?} game {number}: read differently"),
                }
            }
            assert_eq!(number, full.len(), "{path:?}");
        }
        // The games of every game but orthodox chess are streamed too.
        assert!(
            streamed > 20 && given_up > 100 && other_games > 5,
            "{streamed} streamed ({other_games} not orthodox chess), {given_up} not"
        );
    }
}
