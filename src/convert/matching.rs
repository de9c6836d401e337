//! The one place where a foreign move becomes a pbem turn: by comparing the board a
//! foreign move leaves with the board each legal turn leaves (board operations), or by
//! the game's own notation and then by what a typed move gives (from, to, piece,
//! promotion). The result is always a legal turn of the game that the history does not
//! forbid; anything else is an [`Unmatched`] with the candidates.

use crate::convert::ops::{self, Dialect, Op};
use crate::games::{Forbidden, Game, IllegalKind, Snapshot};

/// How many candidates a message lists at most.
const CANDIDATES_SHOWN: usize = 40;

/// A foreign move that is not exactly one legal turn, with the reason in words and the
/// legal turns that come closest, written canonically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmatched {
    /// Why, in words.
    pub message: String,
    /// The closest legal turns (all of them when none is closer), canonically.
    pub candidates: Vec<String>,
}

/// Every legal turn the history does not forbid, with the board it leaves.
fn outcomes<G: Game>(position: &G, forbidden: &Forbidden) -> Vec<(G::Turn, Snapshot)> {
    let mut turns = Vec::new();
    position.legal_turns_except(forbidden, &mut turns);
    turns
        .into_iter()
        .filter_map(|turn| {
            position
                .snapshot_after(&turn)
                .map(|snapshot| (turn, snapshot.normalized()))
        })
        .collect()
}

fn written<G: Game>(position: &G, forbidden: &Forbidden, turns: &[&G::Turn]) -> Vec<String> {
    turns
        .iter()
        .take(CANDIDATES_SHOWN)
        .map(|turn| position.write_turn_except(turn, forbidden))
        .collect()
}

/// The places a list of operations starts from (moves) or acts on (removals, drops).
fn places_named(ops: &[Op]) -> Vec<&str> {
    ops.iter()
        .map(|op| match op {
            Op::Move { from, .. } => from.as_str(),
            Op::Remove { at } | Op::Drop { at, .. } => at.as_str(),
            Op::Change { at, .. } => at.as_deref().unwrap_or(""),
        })
        .collect()
}

/// The legal turn whose board is the board `ops` leave. When several legal turns leave
/// the same board (a die or a card decided something the board does not show), `hint`
/// (a pbem token carried in a comment) chooses among them. Turns the history forbids
/// (a repetition ban) are not candidates.
pub fn match_ops<G: Game>(
    position: &G,
    forbidden: &Forbidden,
    ops: &[Op],
    hint: Option<&str>,
) -> Result<G::Turn, Unmatched> {
    let before = position
        .snapshot()
        .expect("the caller checked that the game describes its board");
    let outcomes = outcomes(position, forbidden);
    let mut naive = before.clone();
    let applied = ops::apply(&mut naive, G::PIECE_KINDS, position.side_to_move(), ops);
    let fits: Vec<&G::Turn> = match &applied {
        Ok(()) => {
            let naive = naive.clone().normalized();
            outcomes
                .iter()
                .filter(|(_, after)| *after == naive)
                .map(|(turn, _)| turn)
                .collect()
        }
        Err(_) => Vec::new(),
    };
    // A pbem token in a comment chooses among turns that leave the same board, and
    // gives what generation leaves out (the cards of an attempt).
    if let (Some(hint), Ok(())) = (hint, &applied) {
        let chosen = G::parse_turn(hint)
            .ok()
            .and_then(|syntax| position.resolve_except(&syntax, forbidden).ok());
        let leaves_same = |turn: &G::Turn| {
            position.snapshot_after(turn).map(Snapshot::normalized)
                == Some(naive.clone().normalized())
        };
        match chosen {
            Some(turn) if leaves_same(&turn) => return Ok(turn),
            _ if fits.len() != 1 => {
                return Err(Unmatched {
                    message: format!(
                        "the turn given in the comment, {hint}, does not leave the board this \
                         move leaves"
                    ),
                    candidates: written(position, forbidden, &fits),
                });
            }
            _ => {}
        }
    }
    if fits.len() == 1 {
        return Ok(fits[0].clone());
    }
    if fits.len() > 1 {
        return Err(Unmatched {
            message: format!(
                "this move fits {} legal turns that leave the same board; a pbem turn \
                 comment must say which",
                fits.len()
            ),
            candidates: written(position, forbidden, &fits),
        });
    }
    // Nothing fits: the closest are the legal turns that act on the same places.
    let named = places_named(ops);
    let closest: Vec<&G::Turn> = outcomes
        .iter()
        .filter(|(_, after)| {
            named.iter().any(|name| {
                before
                    .find(name)
                    .is_some_and(|index| before.places[index].pieces != after.places[index].pieces)
            })
        })
        .map(|(turn, _)| turn)
        .collect();
    let closest = if closest.is_empty() {
        outcomes.iter().map(|(turn, _)| turn).collect()
    } else {
        closest
    };
    let message = match applied {
        Err(reason) => reason,
        Ok(()) if outcomes.is_empty() => "there is no legal turn in this position".to_owned(),
        Ok(()) => "no legal turn leaves the board this move leaves".to_owned(),
    };
    Err(Unmatched {
        message,
        candidates: written(position, forbidden, &closest),
    })
}

/// What a typed move in coordinates gives: `e2-e4`, `Ng1-f3`, `e7e8q`, `e7-e8=Q`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Coordinates {
    piece: Option<String>,
    from: String,
    to: String,
    promotion: Option<String>,
}

/// Reads a place name: a letter and digits.
fn place_at(text: &str) -> Option<(&str, &str)> {
    let mut chars = text.char_indices();
    let (_, file) = chars.next()?;
    if !file.is_ascii_lowercase() {
        return None;
    }
    let digits = text[1..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |at| at + 1);
    (digits > 1).then(|| (&text[..digits], &text[digits..]))
}

fn coordinates(token: &str) -> Option<Coordinates> {
    let token = token.trim_end_matches(['+', '#']);
    let start = token
        .find(|c: char| c.is_ascii_lowercase())
        .filter(|&at| place_at(&token[at..]).is_some())?;
    let piece = (start > 0).then(|| token[..start].to_owned());
    let (from, rest) = place_at(&token[start..])?;
    let rest = rest.trim_start_matches(['-', 'x', ':', '×']);
    let (to, rest) = place_at(rest)?;
    let promotion = rest
        .trim_start_matches(['=', '/', '('])
        .trim_end_matches(')')
        .to_owned();
    // Anything after the destination but a piece is more than a move from one place to
    // another (a chain, a second move): the game's own notation has the last word.
    if !promotion.chars().all(char::is_alphabetic) {
        return None;
    }
    Some(Coordinates {
        piece,
        from: from.to_owned(),
        to: to.to_owned(),
        promotion: (!promotion.is_empty()).then_some(promotion),
    })
}

/// The legal turn a typed token means: first by the game's own notation, then, for a
/// move in coordinates, by the legal turns that move a piece from that place to that
/// place (of that kind, promoting to that kind, when the token says so).
pub fn match_token<G: Game>(
    position: &G,
    forbidden: &Forbidden,
    token: &str,
) -> Result<G::Turn, Unmatched> {
    let mut ambiguous = false;
    let (mut reason, mut candidates) = match G::parse_turn(token) {
        Ok(syntax) => match position.resolve_except(&syntax, forbidden) {
            Ok(turn) => return Ok(turn),
            Err(illegal) => match illegal.kind {
                IllegalKind::Ambiguous(list) => {
                    ambiguous = true;
                    (illegal.message, list)
                }
                _ => (illegal.message, Vec::new()),
            },
        },
        Err(error) => (error.message, Vec::new()),
    };
    if let Some(wanted) = coordinates(token) {
        let before = position
            .snapshot()
            .expect("the caller checked that the game describes its board");
        let outcomes = outcomes(position, forbidden);
        let mover = position.side_to_move();
        let mut fits = Vec::new();
        for (turn, after) in &outcomes {
            let derived = ops::derive(
                &before,
                after,
                G::PIECE_KINDS,
                mover,
                Dialect::WithoutChange,
            );
            let moves_it = derived.iter().enumerate().any(|(at, op)| {
                let Op::Move {
                    piece, from, to, ..
                } = op
                else {
                    return false;
                };
                if *from != wanted.from || *to != wanted.to {
                    return false;
                }
                let piece_fits = wanted.piece.as_ref().is_none_or(|letter| {
                    piece
                        .as_deref()
                        .is_some_and(|label| label.eq_ignore_ascii_case(letter))
                });
                let promotion_fits = match (&wanted.promotion, derived.get(at + 1)) {
                    (None, _) => true,
                    (
                        Some(letter),
                        Some(Op::Drop {
                            piece, at: place, ..
                        }),
                    ) => *place == wanted.to && piece.eq_ignore_ascii_case(letter),
                    (Some(_), _) => false,
                };
                piece_fits && promotion_fits
            });
            if moves_it {
                fits.push(turn);
            }
        }
        if fits.len() == 1 {
            return Ok(fits[0].clone());
        }
        if fits.len() > 1 {
            reason = format!("{token} fits {} legal turns", fits.len());
            candidates = written(position, forbidden, &fits);
        } else if !ambiguous {
            // (A token the game's notation finds ambiguous keeps its readings.)
            let from_there: Vec<&G::Turn> = outcomes
                .iter()
                .filter(|(_, after)| {
                    before.find(&wanted.from).is_some_and(|index| {
                        before.places[index].pieces != after.places[index].pieces
                    })
                })
                .map(|(turn, _)| turn)
                .collect();
            reason = format!(
                "no legal turn moves a piece from {} to {}",
                wanted.from, wanted.to
            );
            candidates = written(position, forbidden, &from_there);
        }
    }
    if candidates.is_empty() {
        let mut turns = Vec::new();
        position.legal_turns_except(forbidden, &mut turns);
        candidates = written(position, forbidden, &turns.iter().collect::<Vec<_>>());
    }
    Err(Unmatched {
        message: reason,
        candidates,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_read_the_usual_forms() {
        let read = |text: &str| coordinates(text).expect("coordinates");
        assert_eq!(read("e2-e4").from, "e2");
        assert_eq!(read("Ng1-f3").piece.as_deref(), Some("N"));
        assert_eq!(read("e7e8q").promotion.as_deref(), Some("q"));
        assert_eq!(read("e7-e8=Q+").promotion.as_deref(), Some("Q"));
        assert_eq!(read("d4xe5").to, "e5");
        assert_eq!(coordinates("Nf3"), None);
        assert_eq!(coordinates("Rg5-f6-c7"), None);
        assert_eq!(coordinates("Qa6xPa4,a4"), None);
    }
}
