//! The other side of `benches/compare.sh`: reads PGN files with pgn-reader and replays
//! every main-line move with shakmaty, as pgn-reader's own `validate` example does
//! (variations skipped, a FEN tag honoured, a game stops at its first bad move).
//!
//! Usage: `pbem-compare [--passes N] FILE...`. Prints one line per file:
//! `<file> games=<n> plies=<n> invalid=<n> best_seconds=<s> median_seconds=<s>`.

use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::time::Instant;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

#[derive(Default)]
struct Validator {
    games: usize,
    plies: u64,
}

impl Visitor for Validator {
    type Tags = Option<Chess>;
    type Movetext = Result<Chess, ()>;
    type Output = bool;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.games += 1;
        ControlFlow::Continue(None)
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"FEN" {
            let Ok(fen) = Fen::from_ascii(value.as_bytes()) else {
                return ControlFlow::Break(false);
            };
            let Ok(position) = fen.into_position(CastlingMode::Chess960) else {
                return ControlFlow::Break(false);
            };
            *tags = Some(position);
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Ok(tags.unwrap_or_default()))
    }

    fn san(
        &mut self,
        movetext: &mut Self::Movetext,
        san_plus: SanPlus,
    ) -> ControlFlow<Self::Output> {
        let Ok(position) = movetext else {
            return ControlFlow::Continue(());
        };
        match san_plus.san.to_move(position) {
            Ok(m) => {
                position.play_unchecked(m);
                self.plies += 1;
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext.is_ok()
    }
}

/// One pass over a file: games, plies, invalid games.
fn pass(path: &str) -> io::Result<(usize, u64, usize)> {
    let mut reader = Reader::new(File::open(path)?);
    let mut validator = Validator::default();
    let mut invalid = 0;
    while let Some(ok) = reader.read_game(&mut validator)? {
        invalid += usize::from(!ok);
    }
    Ok((validator.games, validator.plies, invalid))
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    let mut passes = 1usize;
    if args.peek().map(String::as_str) == Some("--passes") {
        args.next();
        passes = args
            .next()
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .expect("--passes takes a positive number");
    }
    for path in args {
        let mut seconds = Vec::with_capacity(passes);
        let mut counts = (0, 0, 0);
        for _ in 0..passes {
            let started = Instant::now();
            counts = pass(&path)?;
            seconds.push(started.elapsed().as_secs_f64());
        }
        seconds.sort_by(f64::total_cmp);
        println!(
            "{path} games={} plies={} invalid={} best_seconds={:.4} median_seconds={:.4}",
            counts.0,
            counts.1,
            counts.2,
            seconds[0],
            seconds[seconds.len() / 2]
        );
    }
    Ok(())
}
