//! Opening game files (or standard input) and picking games out of them.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

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
