//! `pbem html`: a self-contained replay page of every game in the given files.

use std::io::Write;
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

/// Runs `pbem html`.
pub fn run(args: &Args, config: Option<&Path>, out: &mut dyn Write) -> Result<Status, CliError> {
    let mut games = Vec::new();
    for path in &args.files {
        let path = show::game_file(path, config)?;
        let name = display_path(&path);
        for item in input::open(&path)? {
            let record = match item {
                Ok(record) => record,
                Err(ReadError::Io(source)) => return Err(CliError::Io { path: name, source }),
                Err(ReadError::Parse(error)) => {
                    return Err(CliError::Usage(format!(
                        "{name}:{}:{}: game {} cannot be read: {}",
                        error.span.line, error.span.column, error.game, error.message
                    )));
                }
            };
            let variant = record_variant(&record)?;
            let game = crate::with_game!(variant, G => html::game::<G>(&record))
                .map_err(|message| CliError::Usage(format!("{name}: {message}")))?;
            games.push(game);
        }
    }
    let title = args.title.clone().unwrap_or_else(|| {
        args.files
            .first()
            .and_then(|path| path.file_stem())
            .map_or_else(
                || "games".to_owned(),
                |stem| stem.to_string_lossy().into_owned(),
            )
    });
    let page = html::page(&title, &games);
    match &args.output {
        Some(path) => crate::store::write_atomically(path, page.as_bytes()).map_err(|source| {
            CliError::Io {
                path: display_path(path),
                source,
            }
        })?,
        None => out.write_all(page.as_bytes())?,
    }
    Ok(Status::Ok)
}
