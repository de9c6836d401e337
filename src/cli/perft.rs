//! `pbem perft`: count leaf positions, the correctness and speed probe of move generation.

use std::io::Write;
use std::time::Instant;

use super::{CliError, Status, parse_variant, position_from};
use crate::games::{Game, Variant};

/// Arguments of `pbem perft`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game (a `[Variant]` name; default Chess).
    #[arg(long, value_name = "NAME", value_parser = parse_variant)]
    pub variant: Option<Variant>,
    /// The position as the game's position string (FEN for chess), or `start` (the
    /// default).
    #[arg(long, value_name = "POS")]
    pub fen: Option<String>,
    /// Also print the count below each legal turn of the position.
    #[arg(long)]
    pub divide: bool,
    /// How many turns deep to count.
    #[arg(value_name = "DEPTH")]
    pub depth: u32,
}

/// Runs `pbem perft`.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    let variant = args.variant.unwrap_or(Variant::Chess);
    crate::with_game!(variant, G => {
        let position = position_from::<G>(args.fen.as_deref())?;
        count(&position, args, out)
    })
}

fn count<G: Game>(position: &G, args: &Args, out: &mut dyn Write) -> Result<Status, CliError> {
    let started = Instant::now();
    let nodes = if args.divide && args.depth > 0 {
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        let mut lines: Vec<(String, u64)> = turns
            .iter()
            .map(|turn| {
                let mut next = position.clone();
                next.play(turn);
                (position.write_turn(turn), next.perft(args.depth - 1))
            })
            .collect();
        lines.sort();
        for (token, nodes) in &lines {
            writeln!(out, "{token}: {nodes}")?;
        }
        lines.iter().map(|(_, nodes)| nodes).sum()
    } else {
        position.perft(args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    if seconds > 0.0 {
        eprintln!(
            "perft {}: {nodes} nodes in {seconds:.3} s ({:.1} million nodes/s)",
            args.depth,
            nodes as f64 / seconds / 1e6
        );
    }
    writeln!(out, "{nodes}")?;
    Ok(Status::Ok)
}
