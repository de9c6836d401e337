//! Correspondence time: time controls, the stamps a record carries, and how much time
//! each player has used and has left.
//!
//! Everything here is computed from the record and a `now` the caller passes in; nothing
//! reads the wall clock, so tests use fixed instants. Days are UTC days.
//!
//! Reflection time for a turn runs from the start of the day after the opponent's turn
//! arrived (the day after arrival counts as the day of receipt, as correspondence rules
//! allow) until the turn was made, less any leave days the player took for it.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, NaiveTime, Utc};

use crate::games::Color;
use crate::notation::Comment;

/// How much time the players have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// The allowance.
    pub kind: ControlKind,
    /// Leave days each player may take over the whole game.
    pub leave_days: u32,
}

/// The two kinds of correspondence allowance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlKind {
    /// `moves` turns in `days` days, the time carrying over from one period to the next
    /// (`10/50d`: the 10th turn within 50 days of reflection, the 20th within 100...).
    Period {
        /// Turns per period.
        moves: u32,
        /// Days per period.
        days: u32,
    },
    /// `days` days for each turn, nothing carried over (`3d`).
    PerMove {
        /// Days per turn.
        days: u32,
    },
}

/// A time control string that does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid time control \"{text}\": {reason} (expected e.g. 10/50d, 3d or 10/50d+30d)")]
pub struct TimeControlError {
    text: String,
    reason: &'static str,
}

// time-control = ( moves "/" days "d" | days "d" ) [ "+" days "d" ] ;
impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let fail = |reason| TimeControlError {
            text: text.to_owned(),
            reason,
        };
        let trimmed = text.trim();
        let (allowance, leave) = match trimmed.split_once('+') {
            Some((allowance, leave)) => (allowance, Some(leave)),
            None => (trimmed, None),
        };
        let days = |part: &str| -> Result<u32, TimeControlError> {
            let number = part
                .strip_suffix('d')
                .ok_or_else(|| fail("days end in 'd'"))?;
            number
                .parse::<u32>()
                .map_err(|_| fail("days must be a whole number"))
        };
        let kind = match allowance.split_once('/') {
            Some((moves, period)) => {
                let moves: u32 = moves
                    .parse()
                    .map_err(|_| fail("moves must be a whole number"))?;
                let days = days(period)?;
                if moves == 0 || days == 0 {
                    return Err(fail("moves and days must be at least 1"));
                }
                ControlKind::Period { moves, days }
            }
            None => {
                let days = days(allowance)?;
                if days == 0 {
                    return Err(fail("days must be at least 1"));
                }
                ControlKind::PerMove { days }
            }
        };
        let leave_days = match leave {
            Some(leave) => days(leave)?,
            None => 0,
        };
        Ok(TimeControl { kind, leave_days })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ControlKind::Period { moves, days } => write!(f, "{moves}/{days}d")?,
            ControlKind::PerMove { days } => write!(f, "{days}d")?,
        }
        if self.leave_days > 0 {
            write!(f, "+{}d", self.leave_days)?;
        }
        Ok(())
    }
}

/// What a turn's comments say about its time: when its player received the opponent's
/// turn, when they made this one, and how many leave days they took in between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    /// `[%received T]`: when the opponent's previous turn (or the game) reached the
    /// player.
    pub received: Option<DateTime<Utc>>,
    /// `[%sent T]`: when the player made this turn.
    pub sent: Option<DateTime<Utc>>,
    /// `[%leave N]`: leave days taken while thinking about this turn.
    pub leave_days: u32,
}

impl Stamp {
    /// Reads the stamp commands from a turn's comments (other text is ignored). The
    /// stamps of the parts that completed the turn ([`Stamp::of_part`]) are not the
    /// turn's.
    #[must_use]
    pub fn from_comments(comments: &[Comment]) -> Stamp {
        let mut stamp = Stamp::default();
        for comment in comments {
            if part_side(&comment.text).is_some() {
                continue;
            }
            stamp.read(&comment.text);
        }
        stamp
    }

    /// The stamp of a part that completed a turn (a card answered by mail), with the side
    /// that made it, when the comment is one: `black [%received T] [%sent T]`, the side
    /// first as in the record events.
    #[must_use]
    pub fn of_part(text: &str) -> Option<(Color, Stamp)> {
        let side = part_side(text)?;
        let mut stamp = Stamp::default();
        stamp.read(text);
        Some((side, stamp))
    }

    /// The comment text of a part's stamp: `black [%received T] [%sent T]`.
    #[must_use]
    pub fn to_part_comment(&self, side: Color) -> String {
        format!("{} {}", side.name().to_ascii_lowercase(), self.to_comment())
    }

    /// Takes the stamp commands of a comment's text.
    fn read(&mut self, text: &str) {
        for (name, value) in commands(text) {
            match name {
                "received" => self.received = parse_instant(value).or(self.received),
                "sent" => self.sent = parse_instant(value).or(self.sent),
                "leave" => self.leave_days = value.trim().parse().unwrap_or(self.leave_days),
                _ => {}
            }
        }
    }

    /// The comment text that records this stamp: `[%received T] [%sent T] [%leave N]`.
    #[must_use]
    pub fn to_comment(&self) -> String {
        let mut parts = Vec::new();
        if let Some(received) = self.received {
            parts.push(format!("[%received {}]", format_instant(received)));
        }
        if let Some(sent) = self.sent {
            parts.push(format!("[%sent {}]", format_instant(sent)));
        }
        if self.leave_days > 0 {
            parts.push(format!("[%leave {}]", self.leave_days));
        }
        parts.join(" ")
    }

    /// Reflection time for this turn: from the start of the day after `received` to
    /// `sent` (or `now` while the turn is not made), less the leave days.
    #[must_use]
    pub fn reflection(&self, now: DateTime<Utc>) -> Duration {
        let Some(received) = self.received else {
            return Duration::zero();
        };
        let end = self.sent.unwrap_or(now);
        let used = end - counting_starts(received) - Duration::days(i64::from(self.leave_days));
        used.max(Duration::zero())
    }
}

/// The `[%name value]` commands in a comment's text.
pub fn commands(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split("[%").skip(1).filter_map(|part| {
        let body = &part[..part.find(']')?];
        let (name, value) = body.split_once(' ').unwrap_or((body, ""));
        Some((name, value.trim()))
    })
}

/// The side a part's stamp names first (`white [%sent T]`), when the comment holds a
/// stamp and starts with a side; event comments (`white [%draw offer]`) are not stamps.
fn part_side(text: &str) -> Option<Color> {
    let side = match text.split_whitespace().next()? {
        first if first.eq_ignore_ascii_case("white") => Color::White,
        first if first.eq_ignore_ascii_case("black") => Color::Black,
        _ => return None,
    };
    commands(text)
        .any(|(name, _)| matches!(name, "received" | "sent" | "leave"))
        .then_some(side)
}

/// A stamped act of a player: a turn, or a part that completed the turn before it (a card
/// answered by mail in Chess with wickets' Cards modes), which has its own stamp. Both
/// take reflection time; only turns count toward a time control's number of moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Act {
    /// Who acted.
    pub color: Color,
    /// When.
    pub stamp: Stamp,
    /// Whether it was a part of a turn rather than a turn.
    pub part: bool,
}

impl Act {
    /// A turn.
    #[must_use]
    pub const fn turn(color: Color, stamp: Stamp) -> Act {
        Act {
            color,
            stamp,
            part: false,
        }
    }
}

/// The instant in the form stamps use: `2026-11-22T10:17:00Z`.
#[must_use]
pub fn format_instant(instant: DateTime<Utc>) -> String {
    instant.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Reads an instant written as RFC 3339 (`2026-11-22T10:17:00Z`).
#[must_use]
pub fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|instant| instant.with_timezone(&Utc))
}

/// Midnight (UTC) at the start of the day after `arrival`: when reflection time starts.
#[must_use]
pub fn counting_starts(arrival: DateTime<Utc>) -> DateTime<Utc> {
    let next_day = arrival.date_naive() + Duration::days(1);
    next_day.and_time(NaiveTime::MIN).and_utc()
}

/// One player's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerTime {
    /// Reflection time used over the game, including the running turn.
    pub used: Duration,
    /// Turns made.
    pub turns: u32,
    /// Leave days taken.
    pub leave_taken: u32,
    /// Time left before the next deadline, when there is a time control (negative when
    /// overdue).
    pub left: Option<Duration>,
}

impl PlayerTime {
    /// Whether the player has passed a deadline.
    #[must_use]
    pub fn overdue(&self) -> bool {
        self.left.is_some_and(|left| left < Duration::zero())
    }
}

/// Both players' time at `now`. `acts` are the main line's turns and the parts that
/// completed them, in order; `waiting` is the side whose act is awaited and when the last
/// act (or the game) reached it, if the game goes on. A per-move control limits every
/// act, a card answered as much as a turn.
#[must_use]
pub fn clocks(
    control: Option<TimeControl>,
    acts: &[Act],
    waiting: Option<(Color, DateTime<Utc>)>,
    now: DateTime<Utc>,
) -> [PlayerTime; 2] {
    let mut times = [PlayerTime {
        used: Duration::zero(),
        turns: 0,
        leave_taken: 0,
        left: None,
    }; 2];
    let index = |color: Color| usize::from(color == Color::Black);
    let mut last_turn = [Duration::zero(); 2];
    for act in acts {
        let time = &mut times[index(act.color)];
        let reflection = act.stamp.reflection(now);
        time.used += reflection;
        time.turns += u32::from(!act.part);
        time.leave_taken += act.stamp.leave_days;
        last_turn[index(act.color)] = reflection;
    }
    let mut running = [Duration::zero(); 2];
    if let Some((color, since)) = waiting {
        let pending = Stamp {
            received: Some(since),
            sent: None,
            leave_days: 0,
        };
        running[index(color)] = pending.reflection(now);
        times[index(color)].used += running[index(color)];
    }
    if let Some(control) = control {
        for (side, time) in times.iter_mut().enumerate() {
            time.left = Some(match control.kind {
                ControlKind::Period { moves, days } => {
                    // The deadline of the next turn: the end of the period it falls in.
                    let periods = time.turns / moves + 1;
                    Duration::days(i64::from(periods) * i64::from(days)) - time.used
                }
                ControlKind::PerMove { days } => {
                    let current = if waiting.is_some_and(|(color, _)| index(color) == side) {
                        running[side]
                    } else {
                        last_turn[side]
                    };
                    Duration::days(i64::from(days)) - current
                }
            });
        }
    }
    times
}

/// A duration for people: `3d 4h`, `5h 12m`, `-1d 2h` when overdue.
#[must_use]
pub fn describe(duration: Duration) -> String {
    let sign = if duration < Duration::zero() { "-" } else { "" };
    let minutes = duration.num_minutes().abs();
    let (days, hours, minutes) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    if days > 0 {
        format!("{sign}{days}d {hours}h")
    } else {
        format!("{sign}{hours}h {minutes}m")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::Span;

    fn at(text: &str) -> DateTime<Utc> {
        parse_instant(text).unwrap()
    }

    #[test]
    fn time_controls_read_and_write() {
        for (text, written) in [
            ("10/50d", "10/50d"),
            (" 3d ", "3d"),
            ("10/50d+30d", "10/50d+30d"),
        ] {
            let control: TimeControl = text.parse().unwrap();
            assert_eq!(control.to_string(), written);
        }
        assert_eq!(
            "10/50d+30d".parse::<TimeControl>().unwrap(),
            TimeControl {
                kind: ControlKind::Period {
                    moves: 10,
                    days: 50
                },
                leave_days: 30
            }
        );
        for bad in ["", "10/50", "x/3d", "0/3d", "0d", "3d+x", "3 days"] {
            let error = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(error.contains("invalid time control"), "{bad}: {error}");
        }
    }

    #[test]
    fn stamps_round_trip_through_a_comment() {
        let stamp = Stamp {
            received: Some(at("2026-11-20T18:30:00Z")),
            sent: Some(at("2026-11-22T10:17:00Z")),
            leave_days: 2,
        };
        let comment = Comment {
            text: format!("good move {}", stamp.to_comment()).into(),
            span: Span::default(),
        };
        assert_eq!(Stamp::from_comments(&[comment]), stamp);
    }

    #[test]
    fn a_part_has_its_own_stamp_apart_from_its_turn() {
        let turn = Stamp {
            received: Some(at("2026-11-01T09:00:00Z")),
            sent: Some(at("2026-11-02T10:00:00Z")),
            leave_days: 0,
        };
        let answer = Stamp {
            received: Some(at("2026-11-02T11:00:00Z")),
            sent: Some(at("2026-11-05T10:00:00Z")),
            leave_days: 1,
        };
        let text = answer.to_part_comment(Color::Black);
        assert!(text.starts_with("black [%received "), "{text}");
        assert_eq!(Stamp::of_part(&text), Some((Color::Black, answer)));
        assert_eq!(Stamp::of_part("black [%draw offer]"), None);
        assert_eq!(Stamp::of_part(&turn.to_comment()), None);
        let comment = |text: String| Comment {
            text: text.into(),
            span: Span::default(),
        };
        let comments = [comment(turn.to_comment()), comment(text)];
        assert_eq!(Stamp::from_comments(&comments), turn);
        // Black's answer took two days (from midnight on the 3rd, less a leave day), and
        // is no turn of Black's.
        let acts = [
            Act::turn(Color::White, turn),
            Act {
                color: Color::Black,
                stamp: answer,
                part: true,
            },
        ];
        let [_, black] = clocks(None, &acts, None, at("2026-11-06T00:00:00Z"));
        assert_eq!(black.turns, 0);
        assert_eq!(black.leave_taken, 1);
        assert_eq!(black.used, Duration::hours(34));
    }

    #[test]
    fn reflection_starts_the_day_after_arrival() {
        // Arrived late on the 20th: counting starts at midnight on the 21st.
        let stamp = Stamp {
            received: Some(at("2026-11-20T23:59:00Z")),
            sent: Some(at("2026-11-22T12:00:00Z")),
            leave_days: 0,
        };
        assert_eq!(
            stamp.reflection(at("2030-01-01T00:00:00Z")),
            Duration::hours(36)
        );
        // Answered the same day it arrived: no time used.
        let quick = Stamp {
            sent: Some(at("2026-11-20T23:59:30Z")),
            ..stamp
        };
        assert_eq!(
            quick.reflection(at("2030-01-01T00:00:00Z")),
            Duration::zero()
        );
        // Leave days are not counted.
        let with_leave = Stamp {
            leave_days: 1,
            ..stamp
        };
        assert_eq!(
            with_leave.reflection(at("2030-01-01T00:00:00Z")),
            Duration::hours(12)
        );
    }

    #[test]
    fn period_controls_carry_time_over_and_know_who_is_overdue() {
        let control: TimeControl = "2/10d".parse().unwrap();
        let day = |n: u32| at(&format!("2026-11-{n:02}T12:00:00Z"));
        // White used 4.5 and 3.5 days on two turns; Black 1.5 days on one.
        let turns = [
            (
                Color::White,
                Stamp {
                    received: Some(day(1)),
                    sent: Some(day(6)),
                    leave_days: 0,
                },
            ),
            (
                Color::Black,
                Stamp {
                    received: Some(day(6)),
                    sent: Some(day(8)),
                    leave_days: 0,
                },
            ),
            (
                Color::White,
                Stamp {
                    received: Some(day(8)),
                    sent: Some(day(12)),
                    leave_days: 0,
                },
            ),
        ];
        let turns = turns.map(|(color, stamp)| Act::turn(color, stamp));
        let now = day(20);
        let [white, black] = clocks(Some(control), &turns, Some((Color::Black, day(12))), now);
        assert_eq!(white.turns, 2);
        assert_eq!(white.used, Duration::hours(108) + Duration::hours(84));
        // White's third turn falls in the second period: 20 days in all.
        assert_eq!(white.left, Some(Duration::days(20) - white.used));
        // Black thinks since the 13th (midnight): 7.5 days, plus 1.5 before.
        assert_eq!(black.used, Duration::hours(36) + Duration::hours(180));
        assert!(!black.overdue());
        let later = clocks(
            Some(control),
            &turns,
            Some((Color::Black, day(12))),
            day(23),
        );
        assert!(later[1].overdue());
        assert!(!later[0].overdue());
    }

    #[test]
    fn per_move_controls_look_at_the_running_turn() {
        let control: TimeControl = "3d".parse().unwrap();
        let turns = [Act::turn(
            Color::White,
            Stamp {
                received: Some(at("2026-11-01T09:00:00Z")),
                sent: Some(at("2026-11-03T09:00:00Z")),
                leave_days: 0,
            },
        )];
        let [white, black] = clocks(
            Some(control),
            &turns,
            Some((Color::Black, at("2026-11-03T10:00:00Z"))),
            at("2026-11-08T00:00:00Z"),
        );
        assert_eq!(white.left, Some(Duration::days(3) - Duration::hours(33)));
        assert_eq!(black.left, Some(Duration::days(3) - Duration::days(4)));
        assert!(black.overdue());
        assert_eq!(describe(black.left.unwrap()), "-1d 0h");
    }

    #[test]
    fn commands_are_found_in_any_comment_text() {
        let found: Vec<_> = commands("x [%clk 0:01:00] y [%sent 2026-01-01T00:00:00Z]").collect();
        assert_eq!(
            found,
            [("clk", "0:01:00"), ("sent", "2026-01-01T00:00:00Z")]
        );
        assert_eq!(commands("[%broken").count(), 0);
    }
}
