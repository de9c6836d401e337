//! `pbem legal`: every legal turn in a position, one canonical token per line.
//!
//! In games where repeating a position too often is illegal (Chesica), the turns that
//! the game file's history forbids are left out; a position given by `--fen` has no
//! history, so every turn the rules allow there is listed.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{CliError, Status, input, parse_variant, position_from, record_variant, show};
use crate::games::{Game, RepetitionRule, Variant};
use crate::notation::Record;
use crate::replay;

/// Arguments of `pbem legal`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game, when no game file names it (a `[Variant]` name; default Chess).
    #[arg(long, value_name = "NAME", value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The position as the game's position string (FEN for chess).
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
        return crate::with_game!(variant, G => {
            let (position, shown) = show::position_after::<G>(&record, args.ply)?;
            let history = history::<G>(&record, shown);
            list(&position, &history, out)
        });
    }
    let variant = args.variant.unwrap_or(Variant::Chess);
    crate::with_game!(variant, G => {
        let position = position_from::<G>(args.fen.as_deref())?;
        list(&position, &HashMap::new(), out)
    })
}

/// How often each position (by repetition key) occurred in the first `plies` turns of
/// the record's main line, the start and the position reached included.
fn history<G: Game>(record: &Record, plies: usize) -> HashMap<u64, u32> {
    let replayed = replay::replay_game::<G>(record);
    let mut counts = HashMap::new();
    let Some(mut position) = replayed.start else {
        return counts;
    };
    *counts.entry(position.repetition_key()).or_insert(0) += 1;
    for turn in replayed.turns.iter().take(plies) {
        position.play(turn);
        *counts.entry(position.repetition_key()).or_insert(0) += 1;
    }
    counts
}

fn list<G: Game>(
    position: &G,
    history: &HashMap<u64, u32>,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    if let RepetitionRule::IllegalAt(limit) = G::REPETITION {
        turns.retain(|turn| {
            let mut next = position.clone();
            next.play(turn);
            history.get(&next.repetition_key()).copied().unwrap_or(0) + 1 < limit
        });
    }
    let mut tokens: Vec<String> = turns.iter().map(|turn| position.write_turn(turn)).collect();
    tokens.sort();
    for token in tokens {
        writeln!(out, "{token}")?;
    }
    Ok(Status::Ok)
}
