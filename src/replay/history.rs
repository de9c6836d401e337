//! A game's history as the rules see it: how often each position has occurred along
//! the line played so far. A position does not know its past, so everything that
//! depends on it lives here: the turns a repetition ban forbids ([`Forbidden`]), and
//! the ends repetition imposes. The replay, `pbem legal`, `pbem move`, the converters
//! and the mail path all count through this one type.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::marker::PhantomData;

use super::KeyHasher;
use crate::games::{DrawReason, Forbidden, Game, Outcome, RepetitionRule};

/// How often each position (by [`Game::repetition_key`]) occurred on the current line,
/// and the turns that this forbids.
#[derive(Clone, Debug)]
pub struct History<G: Game> {
    counts: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    forbidden: Forbidden,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Default for History<G> {
    fn default() -> Self {
        History {
            counts: HashMap::default(),
            forbidden: Forbidden::none(),
            game: PhantomData,
        }
    }
}

/// The counts of a history, kept from one replay to the next on each thread so that
/// validating many games does not grow a new table for each.
type Counts = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

thread_local! {
    static SPARE_COUNTS: std::cell::Cell<Option<Counts>> = const { std::cell::Cell::new(None) };
}

/// The largest table kept for the next replay (a game of a few thousand plies).
const SPARE_CAPACITY: usize = 4096;

impl<G: Game> History<G> {
    /// An empty history whose table is the one the last [`History::recycle`] on this
    /// thread gave back, if any.
    pub(crate) fn reused() -> History<G> {
        let counts = SPARE_COUNTS.with(std::cell::Cell::take).unwrap_or_default();
        History {
            counts,
            forbidden: Forbidden::none(),
            game: PhantomData,
        }
    }

    /// Gives the table back for the next [`History::reused`] on this thread.
    pub(crate) fn recycle(self) {
        let mut counts = self.counts;
        if counts.capacity() <= SPARE_CAPACITY {
            counts.clear();
            SPARE_COUNTS.with(|spare| spare.set(Some(counts)));
        }
    }

    /// Forgets every position, keeping the table unless it grew large.
    pub(crate) fn clear(&mut self) {
        if self.counts.capacity() > SPARE_CAPACITY {
            self.counts = Counts::default();
        } else {
            self.counts.clear();
        }
        self.forbidden = Forbidden::none();
    }

    /// A history that starts at `start` (one occurrence of it).
    #[must_use]
    pub fn starting_at(start: &G) -> History<G> {
        let mut history = History::default();
        history.enter(start);
        history
    }

    /// The history of a line: `start`, then each of `turns` played in order.
    #[must_use]
    pub fn of_line<'a>(start: &G, turns: impl IntoIterator<Item = &'a G::Turn>) -> History<G>
    where
        G::Turn: 'a,
    {
        let mut history = History::starting_at(start);
        let mut position = start.clone();
        for turn in turns {
            position.play(turn);
            history.enter(&position);
        }
        history
    }

    /// Counts one more occurrence of `position`; returns how many there are now.
    pub fn enter(&mut self, position: &G) -> u32 {
        self.enter_key(position.repetition_key())
    }

    /// Counts one more occurrence of the position with this key; returns how many there
    /// are now.
    pub fn enter_key(&mut self, key: u64) -> u32 {
        let count = self.counts.entry(key).or_insert(0);
        *count += 1;
        let count = *count;
        if let RepetitionRule::IllegalAt(limit) = G::REPETITION
            && count + 1 >= limit
        {
            self.forbidden.insert(key, limit);
        }
        count
    }

    /// Takes back one occurrence of the position with this key (a variation ended).
    pub fn leave_key(&mut self, key: u64) {
        let Some(count) = self.counts.get_mut(&key) else {
            return;
        };
        *count = count.saturating_sub(1);
        if let RepetitionRule::IllegalAt(limit) = G::REPETITION
            && *count + 1 < limit
        {
            self.forbidden.remove(key);
        }
    }

    /// How often the position with this key has occurred (0 if never).
    #[must_use]
    pub fn occurrences_of_key(&self, key: u64) -> u32 {
        self.counts.get(&key).copied().unwrap_or(0)
    }

    /// How often `position` has occurred (0 if never).
    #[must_use]
    pub fn occurrences(&self, position: &G) -> u32 {
        self.counts
            .get(&position.repetition_key())
            .copied()
            .unwrap_or(0)
    }

    /// The turns the history forbids now (empty in games without a repetition ban).
    #[must_use]
    pub fn forbidden(&self) -> &Forbidden {
        &self.forbidden
    }

    /// The end of the game at `position`, the last position entered: the rules' own
    /// ([`Game::outcome`]), an automatic draw by repetition, or, under a repetition ban,
    /// the end of a side whose every legal turn is forbidden.
    #[must_use]
    pub fn outcome(&self, position: &G) -> Option<Outcome> {
        repetition_end::<G>(self.occurrences(position))
            .or_else(|| position.outcome())
            .or_else(|| self.every_turn_forbidden(position))
    }

    /// Under a repetition ban, the end of a position with legal turns that the history
    /// forbids every one of ([`Game::outcome_without_legal_turn`]).
    #[must_use]
    pub fn every_turn_forbidden(&self, position: &G) -> Option<Outcome> {
        if self.forbidden.is_empty() {
            return None;
        }
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        let blocked = turns
            .iter()
            .all(|turn| self.forbidden.forbids(position, turn));
        (blocked && !turns.is_empty()).then(|| position.outcome_without_legal_turn())
    }

    /// A draw by repetition the side to move may claim at `position`.
    #[must_use]
    pub fn claimable(&self, position: &G) -> Option<DrawReason> {
        match G::REPETITION {
            RepetitionRule::Draw { claim, .. } if self.occurrences(position) >= claim => {
                Some(DrawReason::ThreefoldRepetition)
            }
            _ => None,
        }
    }
}

/// The draw automatic repetition imposes on a position that occurred `occurrences` times.
pub(crate) fn repetition_end<G: Game>(occurrences: u32) -> Option<Outcome> {
    match G::REPETITION {
        RepetitionRule::Draw {
            automatic: Some(automatic),
            ..
        } if occurrences >= automatic => Some(Outcome::Draw {
            // Cascudo's draw comes at the third occurrence, FIDE's automatic one at the fifth.
            reason: if automatic == 3 {
                DrawReason::ThreefoldRepetition
            } else {
                DrawReason::FivefoldRepetition
            },
        }),
        _ => None,
    }
}
