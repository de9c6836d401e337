//! `pbem html`: a self-contained replay page of every game in the given files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{CliError, Status, display_path, input, record_variant, show};
use crate::notation::ReadError;
use crate::render::html;

/// Arguments of `pbem html`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write the page to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The page's title (default: the first file's name).
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
    /// The game files (`-` reads standard input), or ids of your games by mail (or the
    /// start of one); every game of each goes on the page.
    #[arg(value_name = "GAME", required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs `pbem html`: the page is written as the games are replayed, to the output file
/// atomically (it replaces the old file only when whole) or to standard output.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    let title = args.title.clone().unwrap_or_else(|| {
        args.files
            .first()
            .and_then(|path| path.file_stem())
            .map_or_else(
                || "games".to_owned(),
                |stem| stem.to_string_lossy().into_owned(),
            )
    });
    let Some(path) = &args.output else {
        let mut out = io::BufWriter::with_capacity(1 << 16, out);
        write_page(args, config, &title, &mut out)?;
        out.flush()?;
        return Ok(Status::Ok);
    };
    // A game that cannot go on the page stops the writing; the file stays as it was.
    let mut refused = None;
    let written = crate::store::write_atomically_with(path, |file| {
        write_page(args, config, &title, file).map_err(|error| match error {
            CliError::Output(source) => source,
            error => {
                refused = Some(error);
                io::Error::other("the page was not written")
            }
        })
    });
    if let Some(error) = refused {
        return Err(error);
    }
    written.map_err(|source| CliError::Io {
        path: display_path(path),
        source,
    })?;
    Ok(Status::Ok)
}

/// Writes the page, game by game as the files are read.
fn write_page(
    args: &Args,
    config: Option<&Path>,
    title: &str,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    html::write_head(out, title)?;
    let mut number = 0;
    for path in &args.files {
        let path = show::game_file(path, config)?;
        let name = display_path(&path);
        for item in input::open(&path)? {
            let record = match item {
                Ok(record) => record,
                Err(ReadError::Io(source)) => return Err(CliError::Io { path: name, source }),
                Err(ReadError::Parse(error)) => {
                    return Err(CliError::Usage(input::unreadable(&name, &error)));
                }
            };
            let variant = record_variant(&record)?;
            number += 1;
            crate::with_game!(variant, G => html::write_game::<G>(out, number, &record)).map_err(
                |error| match error {
                    html::PageError::Setup(message) => {
                        CliError::Usage(format!("{name}: {message}"))
                    }
                    html::PageError::Io(source) => CliError::Output(source),
                },
            )?;
        }
    }
    html::write_tail(out)?;
    Ok(())
}
