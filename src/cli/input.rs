//! Opening game files (or standard input) and picking games out of them.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::{CliError, display_path};
use crate::notation::{ReadError, Reader, Record};

/// Opens a path, or standard input for `-`, as a buffered reader of games.
pub fn open(path: &Path) -> Result<Reader<Box<dyn BufRead>>, CliError> {
    let source: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::with_capacity(1 << 16, io::stdin()))
    } else {
        let file = File::open(path).map_err(|source| CliError::Io {
            path: display_path(path),
            source,
        })?;
        Box::new(BufReader::with_capacity(1 << 16, file))
    };
    Ok(Reader::new(source))
}

/// Reads game number `number` (from 1) of a file; a parse error in it is a usage error
/// here, since the commands that pick one game need it whole.
pub fn game(path: &Path, number: usize) -> Result<Record, CliError> {
    let name = display_path(path);
    let reader = open(path)?;
    let mut seen = 0;
    for item in reader {
        seen += 1;
        if seen < number {
            continue;
        }
        return match item {
            Ok(record) => Ok(record),
            Err(ReadError::Io(source)) => Err(CliError::Io { path: name, source }),
            Err(ReadError::Parse(error)) => Err(CliError::Usage(format!(
                "{name}:{}:{}: game {} cannot be read: {}",
                error.span.line, error.span.column, error.game, error.message
            ))),
        };
    }
    Err(CliError::Usage(format!(
        "{name} has {seen} game{}, not a game {number}",
        if seen == 1 { "" } else { "s" }
    )))
}

/// The files named on the command line, with each folder replaced by the `.pgn` files
/// below it (sorted, so output is stable). `-` stays as it is.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            collect_pgn_files(path, &mut found)?;
            if found.is_empty() {
                return Err(CliError::Usage(format!(
                    "{}: no .pgn files in this folder",
                    path.display()
                )));
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

fn collect_pgn_files(folder: &Path, found: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let io_error = |source| CliError::Io {
        path: folder.display().to_string(),
        source,
    };
    for entry in std::fs::read_dir(folder).map_err(io_error)? {
        let path = entry.map_err(io_error)?.path();
        if path.is_dir() {
            collect_pgn_files(&path, found)?;
        } else if path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("pgn"))
        {
            found.push(path);
        }
    }
    Ok(())
}
