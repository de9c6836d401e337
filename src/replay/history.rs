//! A game's history as the rules see it: how often each position has occurred along
//! the line played so far. A position does not know its past, so everything that
//! depends on it lives here: the turns a repetition ban forbids ([`Forbidden`]), and
//! the ends repetition imposes. The replay, `pbem legal`, `pbem move`, the converters
//! and the mail path all count through this one type.

use std::marker::PhantomData;

use crate::games::{DrawReason, Forbidden, Game, Outcome, RepetitionRule};

/// How often each position (by [`Game::repetition_key`]) occurred on the current line,
/// and the turns that this forbids.
#[derive(Clone, Debug)]
pub struct History<G: Game> {
    counts: Counts,
    forbidden: Forbidden,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Default for History<G> {
    fn default() -> Self {
        History {
            counts: Counts::default(),
            forbidden: Forbidden::none(),
            game: PhantomData,
        }
    }
}

/// A count for each repetition key: an open-addressed table with linear probing, which
/// the replay consults once a ply. Keys are never removed (a key taken back keeps its
/// slot with a count of 0, which means the same as no slot), so a probe stops at the
/// first empty slot. A slot belongs to the table's current generation or is empty, so
/// that forgetting every key between two games costs one increment.
#[derive(Clone, Debug)]
struct Counts {
    /// A power of two of slots, or none before the first key.
    slots: Vec<Slot>,
    /// The slots in use.
    used: usize,
    /// The generation of the slots in use; never 0, the generation of a new slot.
    generation: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    count: u32,
    generation: u32,
}

impl Default for Counts {
    fn default() -> Self {
        Counts {
            slots: Vec::new(),
            used: 0,
            generation: 1,
        }
    }
}

impl Counts {
    /// The slots of the first table.
    const FIRST: usize = 64;

    /// The slot holding `key`, or the empty slot where it would go (the table has
    /// slots). Repetition keys are hashes already, but a multiplication spreads any
    /// key's bits over the high end, which picks the first slot to look at.
    #[inline]
    fn find(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let bits = self.slots.len().trailing_zeros();
        let mut at = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize;
        loop {
            let slot = self.slots[at];
            if slot.generation != self.generation || slot.key == key {
                return at;
            }
            at = (at + 1) & mask;
        }
    }

    /// The slot holding `key`, if any.
    fn slot(&mut self, key: u64) -> Option<&mut Slot> {
        if self.slots.is_empty() {
            return None;
        }
        let at = self.find(key);
        let generation = self.generation;
        Some(&mut self.slots[at]).filter(|slot| slot.generation == generation)
    }

    /// How often `key` occurred.
    fn get(&self, key: u64) -> u32 {
        if self.slots.is_empty() {
            return 0;
        }
        let slot = self.slots[self.find(key)];
        if slot.generation == self.generation {
            slot.count
        } else {
            0
        }
    }

    /// Counts one more occurrence of `key`; returns how many there are now.
    #[inline]
    fn increment(&mut self, key: u64) -> u32 {
        // At most half full, so a probe is short and always meets an empty slot.
        if 2 * (self.used + 1) > self.slots.len() {
            self.grow();
        }
        let at = self.find(key);
        let generation = self.generation;
        let slot = &mut self.slots[at];
        if slot.generation != generation {
            *slot = Slot {
                key,
                count: 0,
                generation,
            };
            self.used += 1;
        }
        slot.count += 1;
        slot.count
    }

    /// Takes back one occurrence of `key`; returns how many are left, or `None` if the
    /// key never occurred.
    fn decrement(&mut self, key: u64) -> Option<u32> {
        let slot = self.slot(key)?;
        slot.count = slot.count.saturating_sub(1);
        Some(slot.count)
    }

    /// Twice the slots (or the first table), with the keys moved over.
    #[cold]
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(Counts::FIRST);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        let generation = std::mem::replace(&mut self.generation, 1);
        self.used = 0;
        for slot in old {
            if slot.generation == generation {
                let at = self.find(slot.key);
                self.slots[at] = Slot {
                    generation: 1,
                    ..slot
                };
                self.used += 1;
            }
        }
    }

    /// Forgets every key, keeping a table no larger than the one a short game needs.
    fn clear(&mut self) {
        if self.slots.len() > SPARE_CAPACITY {
            *self = Counts::default();
        } else if self.used > 0 {
            self.used = 0;
            self.generation = self.generation.wrapping_add(1);
            if self.generation == 0 {
                self.slots.fill(Slot::default());
                self.generation = 1;
            }
        }
    }
}

thread_local! {
    static SPARE_COUNTS: std::cell::Cell<Option<Counts>> = const { std::cell::Cell::new(None) };
}

/// The largest table kept for the next replay (a game of a few thousand plies).
const SPARE_CAPACITY: usize = 8192;

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
        if counts.slots.len() <= SPARE_CAPACITY {
            counts.clear();
            SPARE_COUNTS.with(|spare| spare.set(Some(counts)));
        }
    }

    /// Forgets every position, keeping the table unless it grew large.
    pub(crate) fn clear(&mut self) {
        self.counts.clear();
        if !self.forbidden.is_empty() {
            self.forbidden = Forbidden::none();
        }
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

    /// The turns this history allows in `position` (the one it ends at), written
    /// canonically among them, in sorted order: what `pbem legal` lists.
    #[must_use]
    pub fn legal_tokens(&self, position: &G) -> Vec<String> {
        self.legal_turns_written(position)
            .into_iter()
            .map(|(token, _)| token)
            .collect()
    }

    /// [`History::legal_tokens`] with each token's turn (the play page's clicks come
    /// from the turn).
    #[must_use]
    pub fn legal_turns_written(&self, position: &G) -> Vec<(String, G::Turn)> {
        let forbidden = self.forbidden();
        let mut turns = Vec::new();
        position.legal_turns_except(forbidden, &mut turns);
        let tokens = position.write_turns_except(&turns, forbidden);
        let mut written: Vec<(String, G::Turn)> = tokens.into_iter().zip(turns).collect();
        written.sort_by(|a, b| a.0.cmp(&b.0));
        written
    }

    /// Counts one more occurrence of `position`; returns how many there are now.
    pub fn enter(&mut self, position: &G) -> u32 {
        self.enter_key(position.repetition_key())
    }

    /// Counts one more occurrence of the position with this key; returns how many there
    /// are now.
    #[inline]
    pub fn enter_key(&mut self, key: u64) -> u32 {
        let count = self.counts.increment(key);
        if let RepetitionRule::IllegalAt(limit) = G::REPETITION
            && count + 1 >= limit
        {
            self.forbidden.insert(key, limit);
        }
        count
    }

    /// Takes back one occurrence of the position with this key (a variation ended).
    pub fn leave_key(&mut self, key: u64) {
        let Some(count) = self.counts.decrement(key) else {
            return;
        };
        if let RepetitionRule::IllegalAt(limit) = G::REPETITION
            && count + 1 < limit
        {
            self.forbidden.remove(key);
        }
    }

    /// How often the position with this key has occurred (0 if never).
    #[must_use]
    pub fn occurrences_of_key(&self, key: u64) -> u32 {
        self.counts.get(key)
    }

    /// How often `position` has occurred (0 if never).
    #[must_use]
    pub fn occurrences(&self, position: &G) -> u32 {
        self.counts.get(position.repetition_key())
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// xorshift64*, for the operations of the model test.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(2_685_821_657_736_338_717)
    }

    /// The table counts as a hash map would, through growth, keys taken back, clears and
    /// the wrap of its generation, with keys that share their high bits or their slot.
    #[test]
    fn counts_agree_with_a_hash_map() {
        let mut state = 0x1234_5678_9ABC_DEF1;
        let mut counts = Counts::default();
        let mut model: HashMap<u64, u32> = HashMap::new();
        for round in 0..40 {
            if round == 20 {
                counts.generation = u32::MAX - 1;
            }
            // Few distinct keys, so that they repeat; some equal in their high bits.
            let distinct = 1 + next(&mut state) % 300;
            for _ in 0..next(&mut state) % 2000 {
                let pick = next(&mut state) % distinct;
                let key = if pick.is_multiple_of(3) {
                    pick
                } else {
                    pick << 40 | 7
                };
                match next(&mut state) % 4 {
                    0 => {
                        let expected = model.get(&key).copied();
                        let expected = expected.map(|count| count.saturating_sub(1));
                        if let Some(count) = expected {
                            model.insert(key, count);
                        }
                        assert_eq!(counts.decrement(key), expected, "round {round}");
                    }
                    _ => {
                        let count = model.entry(key).or_insert(0);
                        *count += 1;
                        assert_eq!(counts.increment(key), *count, "round {round}");
                    }
                }
                let probe = next(&mut state) % (distinct + 5);
                assert_eq!(
                    counts.get(probe),
                    model.get(&probe).copied().unwrap_or(0),
                    "round {round}"
                );
            }
            for (&key, &count) in &model {
                assert_eq!(counts.get(key), count, "round {round}");
            }
            counts.clear();
            model.clear();
            assert!(counts.generation != 0);
        }
    }
}
