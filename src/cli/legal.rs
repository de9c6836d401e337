//! `pbem legal`: every legal turn in a position, one canonical token per line.
//!
//! In games where repeating a position too often is illegal (Chesica), the turns that
//! the game file's history forbids are left out, and written as if they did not exist
//! (a piece's origin is named only when another allowed turn needs it); a position given
//! by `--fen` has no history, so every turn the rules allow there is listed.
//!
//! In a game with fair dice (Chess with wickets' Dice modes played through pbem), a
//! scoring attempt is listed as the player types it, without its roll (`Nxe5:w9`, not
//! `Nxe5:w9_r1` to `_r6`): pbem draws the roll from both players' values.
//!
//! A position whose last turn awaits a part from a player (a card in Chess with wickets'
//! Cards modes) has no turn either: what is awaited, and from whom, goes to standard
//! error, and the parts that player may add are listed, one a line, as `pbem move` takes
//! them (`S5`; `-` for no second pair in Cards II).
//!
//! A position where the game is over (checkmate, no legal turn, every turn forbidden by
//! repetition, a draw the rules impose; or, at the end of a game file whose `[Result]` is
//! set, a resignation, a draw agreed or claimed, a claim on time) has no turn to list: the reason goes to standard
//! error and the exit status is 1, so that a script can tell it from a list.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Status, input, parse_variant, position_from, record_variant, show};
use crate::board::{Offer, Written, offer};
use crate::games::{Game, Variant};
use crate::replay::History;

/// Arguments of `pbem legal`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game, when no game file names it (a `[Variant]` name; default Chess).
    #[arg(long, value_name = "NAME", value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The position as the game's position string (FEN for chess), or `start`.
    #[arg(long, value_name = "POS", conflicts_with = "file")]
    pub fen: Option<String>,
    /// Use the position after this many plies of the game file (default: its end).
    #[arg(long, value_name = "N", requires = "file")]
    pub ply: Option<usize>,
    /// Which game of the file, from 1.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "file")]
    pub game: usize,
    /// A game file, or the id of one of your games by mail (or the start of it), whose
    /// final position (or the one after --ply) is used.
    #[arg(value_name = "GAME")]
    pub file: Option<PathBuf>,
}

/// Runs `pbem legal`.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    if let Some(file) = &args.file {
        let file = show::game_file(file, config)?;
        let record = input::game(&file, args.game)?;
        let variant = record_variant(&record)?;
        if let Some(wanted) = args.variant.filter(|wanted| *wanted != variant) {
            return Err(CliError::Usage(format!(
                "the game is {variant}, not {wanted}"
            )));
        }
        // A fair deal: the awaited card comes from the player's own hand (at the ply
        // asked for).
        let at = show::at_ply(&record, args.ply);
        // A game ended by its record (a resignation, a draw agreed or claimed, a claim on
        // time) has no turn at the record's end.
        let ended = if args.ply.is_none_or(|ply| ply >= record.moves.turns.len()) {
            crate::board::ended(&record)
        } else {
            None
        };
        if ended.is_none()
            && let Ok(home) = super::home::Home::load(config)
            && let Some((you, dealer, _)) = super::play::own_hand(&at, &home)
            && let Some(cards) = crate::fair::cards::may_play(&at, you, &dealer)
        {
            eprintln!(
                "pbem: the cards you may play from your hand (by mail: `pbem move GAME CARD`)"
            );
            for card in cards {
                writeln!(out, "{card}")?;
            }
            if crate::fair::cards::may_decline(&at) {
                writeln!(out, "-")?;
            }
            return Ok(Status::Ok);
        }
        // With fair dice pbem draws the rolls: an attempt is listed as it is typed.
        let written = Written::of(&record);
        return crate::with_game!(variant, G => {
            let name = super::display_path(&file);
            let show::Shown {
                position, history, ..
            } = show::position_after::<G>(&record, &name, args.ply)?;
            list(&position, &history, written, ended, out)
        });
    }
    let variant = args.variant.unwrap_or(Variant::Chess);
    crate::with_game!(variant, G => {
        let position = position_from::<G>(args.fen.as_deref())?;
        list(&position, &History::starting_at(&position), Written::Canonical, None, out)
    })
}

fn list<G: Game>(
    position: &G,
    history: &History<G>,
    written: Written,
    ended: Option<String>,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let offered = offer(position, history, written);
    if !matches!(offered, Offer::Over(_))
        && let Some(ended) = ended
    {
        eprintln!("pbem: the game is over ({ended}): there is no turn to list");
        return Ok(Status::Invalid);
    }
    match offered {
        Offer::Awaiting { what, parts } => {
            eprintln!(
                "pbem: no turn until the last one is completed: {what}; the parts it may \
                 take follow (by mail: `pbem move GAME PART`)"
            );
            for part in parts {
                writeln!(out, "{part}")?;
            }
            Ok(Status::Ok)
        }
        Offer::Over(outcome) => {
            eprintln!("pbem: the game is over ({outcome}): there is no turn to list");
            Ok(Status::Invalid)
        }
        Offer::Turns(turns) => {
            for (token, _) in turns {
                writeln!(out, "{token}")?;
            }
            Ok(Status::Ok)
        }
    }
}
