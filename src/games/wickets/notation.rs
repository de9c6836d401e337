//! The turn tokens and position strings of Chess with wickets (`notation/wickets.md`).
//!
//! ```text
//! turn     = [ naming ":" ] move [ drop ] [ throw { step } ] [ "+" | "#" ] ;
//! naming   = "D" place ;                        (* the new Defender, named first *)
//! move     = castle | piece-move | pawn-move ;  (* SAN; places may be w0 and w9 *)
//! drop     = "_O" square ;                      (* a captured Ball-haver's Ball *)
//! throw    = ":" place ;                        (* a throw, a pass, a scoring attempt *)
//! step     = "_r" digit | "_s" place            (* a die roll, a sacrifice *)
//!          | "_c" suit value                    (* a card, thrower and opponent in turn *)
//!          | "_c-" ;                            (* Cards II: no second pair *)
//! ```

use std::fmt::{self, Write as _};

use super::cards::{self, Card, CardState};
use super::{Decision, DecisionMode, Loc, Move, MoveKind, Turn, Wickets, idx};
use crate::games::chess::types::{CastlingSide, Role};
use crate::games::{Game, IllegalKind, IllegalTurn, TurnSyntaxError};

/// One step of a written decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// `_r4`: a die roll as written (checked to be 1-6 when resolved).
    Roll(u8),
    /// `_sa2`: a sacrifice.
    Sacrifice(Loc),
    /// `_cS7`: a card as written, suit letter and value (checked when resolved).
    Card(char, u8),
    /// `_c-`: Cards II, the thrower declines the second pair after a failing first one.
    Decline,
}

/// The move part of a token, without a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovePart {
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// A piece or pawn move.
    Normal {
        /// The piece (`Pawn` without a letter).
        role: Role,
        /// A file the piece comes from.
        file: Option<char>,
        /// A rank digit the piece comes from (`0` and `9` for the wickets).
        rank: Option<char>,
        /// Whether `x` was written.
        capture: bool,
        /// Where it goes.
        to: Loc,
        /// `=Q`.
        promotion: Option<Role>,
    },
}

/// A turn token read without a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Syntax {
    /// `Dd8:` the Defender named first.
    pub naming: Option<Loc>,
    /// The move.
    pub mv: MovePart,
    /// `_Of6` the drop square.
    pub drop: Option<Loc>,
    /// `:c4` the throw target.
    pub throw: Option<Loc>,
    /// The decision steps.
    pub steps: Vec<Step>,
    /// `+` (1) or `#` (2), 0 for none.
    pub marker: u8,
}

fn err(offset: usize, message: impl Into<String>) -> TurnSyntaxError {
    TurnSyntaxError::new(offset, message)
}

fn read_loc(text: &str, offset: usize) -> Result<Loc, TurnSyntaxError> {
    Loc::from_name(text).ok_or_else(|| err(offset, format!("\"{text}\" is not a square or wicket")))
}

impl Syntax {
    /// Reads one token.
    pub fn parse(token: &str) -> Result<Syntax, TurnSyntaxError> {
        let mut text = token;
        let mut marker = 0;
        if let Some(rest) = text.strip_suffix('#') {
            marker = 2;
            text = rest;
        } else if let Some(rest) = text.strip_suffix('+') {
            marker = 1;
            text = rest;
        }
        let mut offset = 0;
        let mut naming = None;
        if let Some(rest) = text.strip_prefix('D') {
            let end = rest
                .find(':')
                .ok_or_else(|| err(0, "a Defender naming is D<place>: before the move"))?;
            naming = Some(read_loc(&rest[..end], 1)?);
            offset = end + 2;
            text = &rest[end + 1..];
        }
        let move_end = text.find(['_', ':']).unwrap_or(text.len());
        let mv = parse_move(&text[..move_end], offset)?;
        let mut rest = &text[move_end..];
        offset += move_end;
        let mut drop = None;
        if let Some(after) = rest.strip_prefix("_O") {
            let end = after.find(['_', ':']).unwrap_or(after.len());
            drop = Some(read_loc(&after[..end], offset + 2)?);
            offset += end + 2;
            rest = &after[end..];
        }
        let mut throw = None;
        if let Some(after) = rest.strip_prefix(':') {
            let end = after.find('_').unwrap_or(after.len());
            throw = Some(read_loc(&after[..end], offset + 1)?);
            offset += end + 1;
            rest = &after[end..];
        }
        let mut steps = Vec::new();
        while let Some(after) = rest.strip_prefix('_') {
            let end = after.find('_').unwrap_or(after.len());
            let part = &after[..end];
            let step = if let Some(digits) = part.strip_prefix('r') {
                match digits.as_bytes() {
                    [d @ b'0'..=b'9'] => Step::Roll(d - b'0'),
                    _ => return Err(err(offset + 2, "a die roll is one digit, as in _r4")),
                }
            } else if let Some(place) = part.strip_prefix('s') {
                Step::Sacrifice(read_loc(place, offset + 2)?)
            } else if part == "c-" {
                Step::Decline
            } else if let Some(card) = part.strip_prefix('c') {
                let mut chars = card.chars();
                let suit = chars.next().filter(char::is_ascii_uppercase);
                let value = chars.as_str();
                match (suit, value.parse::<u8>()) {
                    (Some(suit), Ok(v)) if v.to_string() == value => Step::Card(suit, v),
                    _ => {
                        return Err(err(
                            offset + 2,
                            "a card is a suit letter and a value, as in _cS7 or _cH10 (or _c-, \
                             no second pair in Cards II)",
                        ));
                    }
                }
            } else {
                return Err(err(
                    offset + 1,
                    "expected a decision step: _r<roll>, _s<sacrificed piece's place> or \
                     _c<card>",
                ));
            };
            if throw.is_none() {
                return Err(err(offset, "a decision follows a throw into a wicket"));
            }
            steps.push(step);
            offset += end + 1;
            rest = &after[end..];
        }
        if !rest.is_empty() {
            return Err(err(offset, format!("unexpected \"{rest}\"")));
        }
        Ok(Syntax {
            naming,
            mv,
            drop,
            throw,
            steps,
            marker,
        })
    }
}

fn parse_move(text: &str, offset: usize) -> Result<MovePart, TurnSyntaxError> {
    match text {
        "O-O" | "0-0" => return Ok(MovePart::Castle(CastlingSide::KingSide)),
        "O-O-O" | "0-0-0" => return Ok(MovePart::Castle(CastlingSide::QueenSide)),
        "" => return Err(err(offset, "a turn needs a move")),
        _ => {}
    }
    let (body, promotion) = match text.split_once('=') {
        Some((body, promo)) => {
            let role = match promo {
                "Q" => Role::Queen,
                "R" => Role::Rook,
                "B" => Role::Bishop,
                "N" => Role::Knight,
                _ => {
                    return Err(err(
                        offset + body.len() + 1,
                        "a pawn promotes to Q, R, B or N",
                    ));
                }
            };
            (body, Some(role))
        }
        None => (text, None),
    };
    let (role, body, start) = match body.chars().next() {
        Some(c @ ('K' | 'Q' | 'R' | 'B' | 'N')) => {
            (Role::from_char(c).expect("a piece letter"), &body[1..], 1)
        }
        _ => (Role::Pawn, body, 0),
    };
    if body.len() < 2 || !body.is_ascii() {
        return Err(err(offset, format!("\"{text}\" is not a move")));
    }
    let to = read_loc(&body[body.len() - 2..], offset + start + body.len() - 2)?;
    let mut middle = &body[..body.len() - 2];
    let capture = middle.ends_with('x');
    if capture {
        middle = &middle[..middle.len() - 1];
    }
    let (mut file, mut rank) = (None, None);
    match middle {
        "" => {}
        "w0" | "w9" => {
            file = Some('e');
            rank = middle.chars().nth(1);
        }
        _ => {
            for c in middle.chars() {
                match c {
                    'a'..='h' if file.is_none() && rank.is_none() => file = Some(c),
                    '0'..='9' if rank.is_none() => rank = Some(c),
                    _ => return Err(err(offset, format!("\"{text}\" is not a move"))),
                }
            }
        }
    }
    Ok(MovePart::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

impl fmt::Display for Syntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(naming) = self.naming {
            write!(f, "D{naming}:")?;
        }
        match self.mv {
            MovePart::Castle(side) => f.write_str(side.notation())?,
            MovePart::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    f.write_char(role.upper_char())?;
                }
                if let Some(file) = file {
                    f.write_char(file)?;
                }
                if let Some(rank) = rank {
                    f.write_char(rank)?;
                }
                if capture {
                    f.write_char('x')?;
                }
                write!(f, "{to}")?;
                if let Some(role) = promotion {
                    write!(f, "={}", role.upper_char())?;
                }
            }
        }
        if let Some(drop) = self.drop {
            write!(f, "_O{drop}")?;
        }
        if let Some(throw) = self.throw {
            write!(f, ":{throw}")?;
        }
        for step in &self.steps {
            match step {
                Step::Roll(r) => write!(f, "_r{r}")?,
                Step::Sacrifice(loc) => write!(f, "_s{loc}")?,
                Step::Card(suit, value) => write!(f, "_c{suit}{value}")?,
                Step::Decline => f.write_str("_c-")?,
            }
        }
        f.write_str(match self.marker {
            1 => "+",
            2 => "#",
            _ => "",
        })
    }
}

fn move_matches(position: &Wickets, part: &MovePart, m: &Move) -> bool {
    match *part {
        MovePart::Castle(side) => m.kind == MoveKind::Castle(side),
        MovePart::Normal {
            role,
            file,
            rank,
            to,
            promotion,
            ..
        } => {
            let _ = position;
            !matches!(m.kind, MoveKind::Castle(_))
                && m.role == role
                && m.to == to
                && m.promotion == promotion
                && file.is_none_or(|f| m.from.file_char() == f)
                && rank.is_none_or(|r| m.from.rank_char() == r)
        }
    }
}

fn steps_of(decision: &[Decision]) -> Vec<Step> {
    decision
        .iter()
        .map(|d| match *d {
            Decision::Roll(r) => Step::Roll(r),
            Decision::Sacrifice(loc) => Step::Sacrifice(loc),
            Decision::Card(card) => Step::Card(card.suit(), card.value()),
            Decision::Decline => Step::Decline,
        })
        .collect()
}

fn normalized(mode: DecisionMode, steps: &[Step]) -> Vec<Step> {
    let mut steps = steps.to_vec();
    if !mode.is_dice() {
        steps.sort_unstable();
    }
    steps
}

fn other(message: impl Into<String>) -> IllegalTurn {
    IllegalTurn::new(IllegalKind::Other, message)
}

/// Finds the legal turn a token means, or says why there is none.
pub(super) fn resolve(position: &Wickets, syntax: &Syntax) -> Result<Turn, IllegalTurn> {
    if let Some(end) = position.wicket_end() {
        return Err(IllegalTurn::new(
            IllegalKind::GameOver,
            format!("the game is over: {end}"),
        ));
    }
    if let Some(awaited) = position.awaiting() {
        return Err(other(format!(
            "{awaited}: the record must give it before the game goes on"
        )));
    }
    let us = position.turn;
    let side = us.name();
    match (position.defender[idx(us)], syntax.naming) {
        (None, None) => {
            return Err(other(format!(
                "{side} has no Defender and must name one first (D<place>: before the move)"
            )));
        }
        (Some(defender), Some(_)) => {
            return Err(other(format!(
                "{side} already has a Defender (on {defender}); only a side without one names one"
            )));
        }
        (None, Some(named)) => {
            if position.piece_at(named).is_none_or(|p| p.color != us) {
                return Err(other(format!(
                    "{side} has no piece on {named} to name Defender"
                )));
            }
            if position.haver[idx(us)] == Some(named) {
                return Err(other(format!(
                    "the Ball-haver on {named} cannot also be the Defender"
                )));
            }
        }
        (Some(_), None) => {}
    }
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    turns.retain(|t| t.naming == syntax.naming && move_matches(position, &syntax.mv, &t.mv));
    if turns.is_empty() {
        return Err(diagnose_move(position, syntax));
    }
    if syntax.drop.is_some() || turns.iter().all(|t| t.drop.is_none()) {
        turns.retain(|t| t.drop == syntax.drop);
        if turns.is_empty() {
            return Err(match syntax.drop {
                Some(square) => other(format!(
                    "the Ball cannot be dropped on {square}: it goes to an empty place next to \
                     the capture"
                )),
                None => other("this move captures no Ball-haver, so nothing is dropped"),
            });
        }
    } else {
        let drops: Vec<Loc> = turns.iter().filter_map(|t| t.drop).collect();
        if drops.iter().any(|&d| d != drops[0]) {
            return Err(other(format!(
                "capturing the Ball-haver needs a square for its Ball (_O<square>): one of {}",
                list(drops.iter())
            )));
        }
    }
    let by_move = turns.clone();
    turns.retain(|t| t.throw == syntax.throw);
    if turns.is_empty() {
        return Err(diagnose_throw(position, syntax, &by_move));
    }
    if position.mode.is_cards() {
        return resolve_cards(position, syntax, turns);
    }
    // A Dice attempt sent without its roll, for the opponent's pbem to complete.
    if !syntax.steps.iter().any(|s| matches!(s, Step::Roll(_))) {
        let sacrifice = match syntax.steps.as_slice() {
            [] => Some(None),
            [Step::Sacrifice(loc)] => Some(Some(*loc)),
            _ => None,
        };
        if let Some(sacrifice) = sacrifice
            && let Some(pending) = position.pending_roll(&turns, sacrifice)
        {
            return pending.map_err(other);
        }
    }
    let wanted = normalized(position.mode, &syntax.steps);
    let by_throw = turns.clone();
    turns.retain(|t| steps_of(&t.decision) == wanted);
    if turns.is_empty() {
        return Err(diagnose_decision(position, syntax, &by_throw));
    }
    let mut unique: Vec<Turn> = Vec::new();
    for turn in turns {
        if !unique.contains(&turn) {
            unique.push(turn);
        }
    }
    if unique.len() > 1 {
        let written: Vec<String> = unique.iter().map(|t| write_turn(position, t)).collect();
        return Err(IllegalTurn::new(
            IllegalKind::Ambiguous(written.clone()),
            format!("ambiguous: {}", written.join(", ")),
        ));
    }
    Ok(unique.remove(0))
}

/// Checks the cards of a scoring attempt in a Cards mode and completes the turn with them.
fn resolve_cards(
    position: &Wickets,
    syntax: &Syntax,
    mut turns: Vec<Turn>,
) -> Result<Turn, IllegalTurn> {
    let us = position.turn;
    let mut turn = turns.swap_remove(0);
    if syntax.steps.is_empty() {
        return Ok(turn);
    }
    if turn.throw != Some(Loc::wicket_of(us.other())) {
        return Err(other(
            "only a throw into the opposing wicket carries a decision",
        ));
    }
    let mut played = Vec::with_capacity(syntax.steps.len());
    let (steps, declined) = match syntax.steps.split_last() {
        Some((Step::Decline, before)) => (before, true),
        _ => (&syntax.steps[..], false),
    };
    for step in steps {
        if *step == Step::Decline {
            return Err(other(
                "_c- (no second pair) comes last, after the failing first pair",
            ));
        }
        let Step::Card(suit, value) = *step else {
            return Err(other(format!(
                "in {} mode a scoring attempt is decided by cards (_cS7), not by rolls or \
                 sacrifices",
                position.mode.name()
            )));
        };
        let card = Card::new(suit, value).ok_or_else(|| {
            other(format!(
                "{suit}{value} is not a card: the suits are C, D, H and S and the values 1 to 10"
            ))
        })?;
        played.push(card);
    }
    let mut moved = position.clone();
    if turn.naming.is_some() {
        moved.defender[idx(us)] = turn.naming;
    }
    moved.apply_move(&turn.mv);
    let sees = moved.defender_sees_wicket(us.other());
    let mut state: CardState = position.cards.clone();
    let mut lead = None;
    for (i, &card) in played.iter().enumerate() {
        let player = if i % 2 == 0 { us } else { us.other() };
        state
            .play(player, card, lead)
            .map_err(|message| other(format!("card {} of the attempt: {message}", i + 1)))?;
        lead = (i % 2 == 0).then_some(card);
    }
    cards::judge(position.mode, sees, &played, declined).map_err(other)?;
    turn.decision = played.into_iter().map(Decision::Card).collect();
    if declined {
        turn.decision.push(Decision::Decline);
    }
    Ok(turn)
}

fn list<T: fmt::Display>(items: impl Iterator<Item = T>) -> String {
    items.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

fn diagnose_move(position: &Wickets, syntax: &Syntax) -> IllegalTurn {
    let us = position.turn;
    let mut relaxed = Vec::new();
    let mut base = position.clone();
    if syntax.naming.is_some() {
        base.defender[idx(us)] = syntax.naming;
    }
    base.pseudo_moves(false, &mut relaxed);
    relaxed.retain(|m| move_matches(position, &syntax.mv, m));
    let mut strict = Vec::new();
    base.pseudo_moves(true, &mut strict);
    strict.retain(|m| move_matches(position, &syntax.mv, m));
    if let Some(m) = strict.first() {
        let mut moved = base.clone();
        if moved.apply_move(m) && moved.drop_squares(m.to).is_empty() {
            return other(format!(
                "capturing the Ball-haver on {} needs an empty square next to it for its Ball, \
                 and there is none",
                m.to
            ));
        }
        return IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!(
                "{syntax} would leave the {} king in check",
                us.name().to_lowercase()
            ),
        );
    }
    if let Some(m) = relaxed.first() {
        if base.ball_at(m.to).is_some() && base.defender[idx(us)] == Some(m.from) {
            return other("a Defender cannot capture a Ball");
        }
        if m.to.is_wicket() {
            return other(format!(
                "{} may be entered only by {}'s own Defender, the opposing Ball-haver, or a piece \
                 capturing its own side's Ball there",
                m.to,
                if m.to == Loc::W0 { "White" } else { "Black" }
            ));
        }
    }
    IllegalTurn::new(
        IllegalKind::NoSuchPiece,
        format!(
            "no {} piece can make the move {syntax}",
            us.name().to_lowercase()
        ),
    )
}

fn diagnose_throw(position: &Wickets, syntax: &Syntax, by_move: &[Turn]) -> IllegalTurn {
    let us = position.turn;
    let Some(target) = syntax.throw else {
        return IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            "without a throw this move leaves the king in check (a thrown Ball may block it)",
        );
    };
    let m = by_move[0].mv;
    if m.kind == MoveKind::Ball {
        return other("a piece that captured a Ball cannot throw on the same turn");
    }
    let mut moved = position.clone();
    if syntax.naming.is_some() {
        moved.defender[idx(us)] = syntax.naming;
    }
    moved.apply_move(&m);
    if let Some(drop) = by_move[0].drop {
        moved.loose[idx(us.other())] = Some(drop);
    }
    let mut throwers = moved.throwers(&m);
    if throwers.is_empty() {
        return other("only the Ball-haver that moved may throw");
    }
    if moved.is_attempt(target)
        && moved
            .throw_targets(throwers)
            .into_iter()
            .any(|t| t == target)
    {
        return IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!(
                "this scoring attempt would leave the {} king in check (in the Dice and Cards \
                 modes the king must be safe whatever the chance decides, success or failure: \
                 ruling 12)",
                us.name().to_lowercase()
            ),
        );
    }
    if moved.throw_targets(throwers).any(|t| t == target) {
        // The Ball can fly there, so it is the king that forbids it: the move leaves the
        // king in check and a Ball landing there does not block the check. A throw that
        // blocks it, if any, is among the legal turns of this move.
        let blocking: Vec<Loc> = by_move.iter().filter_map(|turn| turn.throw).collect();
        let hint = match blocking.as_slice() {
            [] => String::new(),
            [only] => format!("; a throw to {only} would block it"),
            many => format!("; a throw to one of {} would block it", list(many.iter())),
        };
        return IllegalTurn::new(
            IllegalKind::LeavesKingInCheck,
            format!(
                "the throw to {target} leaves the {} king in check: a Ball there does not \
                 block the check{hint}",
                us.name().to_lowercase()
            ),
        );
    }
    if moved.defender[idx(us)] == Some(target) {
        return other("a Ball cannot be thrown to the Defender");
    }
    if target == Loc::wicket_of(us) {
        return other("a Ball cannot be thrown into its own side's wicket");
    }
    if moved.piece_at(target).is_some_and(|p| p.color != us) {
        return other(format!(
            "a Ball cannot be thrown onto the opposing piece on {target}"
        ));
    }
    let (tf, tr) = target.coords();
    let on_line = throwers.any(|t| {
        let (f, r) = t.coords();
        f == tf || r == tr || (f - tf).abs() == (r - tr).abs()
    });
    if on_line {
        other(format!(
            "the throw to {target} is blocked: a Ball flies only over empty places"
        ))
    } else {
        other(format!("{target} is not on a queen line from the thrower"))
    }
}

fn diagnose_decision(position: &Wickets, syntax: &Syntax, by_throw: &[Turn]) -> IllegalTurn {
    let us = position.turn;
    let mode = position.mode;
    if syntax.throw != Some(Loc::wicket_of(us.other())) {
        return other("only a throw into the opposing wicket carries a decision");
    }
    if let Some(Step::Roll(r)) = syntax
        .steps
        .iter()
        .find(|s| matches!(s, Step::Roll(r) if !(1..=6).contains(r)))
    {
        return other(format!("a die roll is 1 to 6, not {r}"));
    }
    let moved = position.after_move(&by_throw[0]);
    if let Some(target) = syntax.throw
        && !moved.is_attempt(target)
    {
        return other(format!(
            "the throw to {target} is a pass to the own piece standing there, not a scoring \
             attempt (ruling 14): it carries no decision"
        ));
    }
    let sees = moved.defender_sees_wicket(us.other());
    let sight = if sees { "sees" } else { "does not see" };
    let expected = list(by_throw.iter().take(4).map(|t| write_turn(position, t)));
    let rule = match mode {
        DecisionMode::Dice => format!(
            "in Dice mode the attempt is one roll (_r1 to _r6), {} needed",
            if sees { "5 or 6" } else { "3 to 6" }
        ),
        DecisionMode::DiceII => format!(
            "in Dice II mode the attempt is one roll ({} needed), and after a failure at most one \
             sacrifice (not the King or the Defender) and a second roll",
            if sees { "5 or 6" } else { "3 to 6" }
        ),
        _ if !sees => "no sacrifice is needed: the attempt succeeds".to_owned(),
        _ => format!(
            "success needs exactly {} sacrifices of pieces other than the King and the \
             Defender (or none, and the attempt fails)",
            mode.sacrifices()
        ),
    };
    other(format!(
        "the opposing Defender {sight} its wicket; {rule}; for example {expected}"
    ))
}

/// The places of the other pieces of the same kind that could make a legal turn to the
/// same place (with the same naming): disambiguation counts legal turns only, so a
/// pinned piece is no rival. The pseudo-moves come first, as most moves have no rival.
fn rivals(position: &Wickets, turn: &Turn) -> Vec<Loc> {
    let m = &turn.mv;
    let mut base = position.clone();
    if turn.naming.is_some() {
        base.defender[idx(position.turn)] = turn.naming;
    }
    let mut all = Vec::new();
    base.pseudo_moves(true, &mut all);
    if !all
        .iter()
        .any(|o| o.role == m.role && o.to == m.to && o.from != m.from)
    {
        return Vec::new();
    }
    let mut legal = Vec::new();
    position.legal_turns(&mut legal);
    let mut out: Vec<Loc> = legal
        .iter()
        .filter(|t| {
            t.naming == turn.naming
                && !matches!(t.mv.kind, MoveKind::Castle(_))
                && t.mv.role == m.role
                && t.mv.to == m.to
                && t.mv.from != m.from
        })
        .map(|t| t.mv.from)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The canonical token for a legal turn.
pub(super) fn write_turn(position: &Wickets, turn: &Turn) -> String {
    let mut out = String::with_capacity(16);
    if let Some(naming) = turn.naming {
        let _ = write!(out, "D{naming}:");
    }
    let m = &turn.mv;
    if let MoveKind::Castle(side) = m.kind {
        out.push_str(side.notation());
    } else {
        let capture = m.kind != MoveKind::Normal;
        if m.role == Role::Pawn {
            if capture {
                out.push(m.from.file_char());
            }
        } else {
            out.push(m.role.upper_char());
            let rivals = rivals(position, turn);
            if !rivals.is_empty() {
                if rivals.iter().all(|r| r.file_char() != m.from.file_char()) {
                    out.push(m.from.file_char());
                } else if rivals.iter().all(|r| r.rank_char() != m.from.rank_char()) {
                    out.push(m.from.rank_char());
                } else {
                    let _ = write!(out, "{}", m.from);
                }
            }
        }
        if capture {
            out.push('x');
        }
        let _ = write!(out, "{}", m.to);
        if let Some(role) = m.promotion {
            let _ = write!(out, "={}", role.upper_char());
        }
    }
    if let Some(drop) = turn.drop {
        let _ = write!(out, "_O{drop}");
    }
    if let Some(throw) = turn.throw {
        let _ = write!(out, ":{throw}");
    }
    for step in steps_of(&turn.decision) {
        let _ = match step {
            Step::Roll(r) => write!(out, "_r{r}"),
            Step::Sacrifice(loc) => write!(out, "_s{loc}"),
            Step::Card(suit, value) => write!(out, "_c{suit}{value}"),
            Step::Decline => out.write_str("_c-"),
        };
    }
    // Ruling 16: a win by the wicket rules is no mate, nor is an attempt whose cards are
    // still to be played; either carries + at most.
    let mut next = position.clone();
    next.play(turn);
    if next.in_check(next.turn) {
        let mate =
            next.wicket_end().is_none() && next.cards.attempt.is_none() && !next.awaits_roll() && {
                let mut replies = Vec::new();
                next.legal_turns(&mut replies);
                replies.is_empty()
            };
        out.push(if mate { '#' } else { '+' });
    }
    out
}

pub(super) fn annotation_mismatch(position: &Wickets, syntax: &Syntax) -> Option<String> {
    let side = position.turn.name();
    let check = position.in_check(position.turn);
    match syntax.marker {
        1 | 2 if !check => Some(format!(
            "claims {} but {side} is not in check (pieces in a wicket give no check)",
            if syntax.marker == 1 { "check" } else { "mate" }
        )),
        2 if position.awaiting().is_some() => Some(
            "claims mate but the scoring attempt's cards are still to be played, so its outcome \
             is not known (ruling 16: + at most)"
                .to_owned(),
        ),
        2 if position.wicket_end().is_some() => Some(format!(
            "claims mate but {side} loses by the wicket rules, not by mate (ruling 16: + at \
             most)"
        )),
        2 => {
            let mut turns = Vec::new();
            position.legal_turns(&mut turns);
            let example = turns.first()?;
            Some(format!(
                "claims mate but {side} has legal turns, e.g. {}",
                write_turn(position, example)
            ))
        }
        _ => None,
    }
}
