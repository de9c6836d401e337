//! The one place that opens what a user names: files (plain, `.gz`, `.zst`, `.bz2`, told
//! apart by their first bytes), standard input (`-`, compressed or not), folders (walked
//! with walkdir), text that is not UTF-8 (read in a fallback encoding with one warning a
//! file), and the progress bar of long runs. `validate`, `fmt`, `convert`, `show`,
//! `legal` and `bench` read through it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use encoding_rs::Encoding;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CliError, display_path};
use crate::notation::{Decoded, ReadError, Reader, Record};

/// The buffer of every stream read.
const BUFFER: usize = 1 << 16;

/// The options of the commands that read games, shared so that every command reads alike.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct InputArgs {
    /// How to read text that is not UTF-8: an encoding label (windows-1252, latin1,
    /// iso-8859-2, ...); utf-8 refuses it instead.
    #[arg(long, value_name = "ENCODING", value_parser = parse_encoding, default_value = "windows-1252")]
    pub encoding: Fallback,
    /// Follow symbolic links when walking folders (loops are detected and skipped).
    #[arg(long)]
    pub follow: bool,
}

impl Default for InputArgs {
    fn default() -> InputArgs {
        InputArgs {
            encoding: Fallback::DEFAULT,
            follow: false,
        }
    }
}

/// The encoding of text that is not UTF-8, or `None` to refuse such text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fallback(pub Option<&'static Encoding>);

impl Fallback {
    /// Windows-1252, what most old archives are written in.
    pub const DEFAULT: Fallback = Fallback(Some(encoding_rs::WINDOWS_1252));
}

/// Reads an `--encoding` label (the WHATWG labels: `latin1` is Windows-1252, as browsers
/// read it).
pub fn parse_encoding(label: &str) -> Result<Fallback, String> {
    let encoding = Encoding::for_label(label.trim().as_bytes())
        .ok_or_else(|| format!("unknown encoding \"{label}\" (try windows-1252, utf-8)"))?;
    Ok(Fallback(
        (encoding != encoding_rs::UTF_8).then_some(encoding),
    ))
}

/// How a stream is compressed, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compression {
    Gzip,
    Zstd,
    Bzip2,
}

impl Compression {
    const ALL: [Compression; 3] = [Compression::Gzip, Compression::Zstd, Compression::Bzip2];

    fn magic(self) -> &'static [u8] {
        match self {
            Compression::Gzip => b"\x1f\x8b",
            Compression::Zstd => b"\x28\xb5\x2f\xfd",
            Compression::Bzip2 => b"BZh",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Compression::Gzip => "gz",
            Compression::Zstd => "zst",
            Compression::Bzip2 => "bz2",
        }
    }

    fn sniff(head: &[u8]) -> Option<Compression> {
        Compression::ALL
            .into_iter()
            .find(|compression| head.starts_with(compression.magic()))
    }

    fn from_extension(path: &Path) -> Option<Compression> {
        let extension = path.extension()?.to_str()?;
        Compression::ALL
            .into_iter()
            .find(|compression| extension.eq_ignore_ascii_case(compression.extension()))
    }
}

/// Whether a file found in a folder is a game file: `.pgn`, or `.pgn` compressed.
fn is_game_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    [".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Opens a path, or standard input for `-`, as a stream of decompressed bytes. The
/// compression is told by the first bytes; a name that promises one (`.gz`, `.zst`,
/// `.bz2`) with other bytes is an error. `progress` counts the bytes as read from the disk.
pub fn open_bytes(path: &Path, progress: Option<&Progress>) -> Result<Box<dyn BufRead>, CliError> {
    let name = display_path(path);
    let io_error = |source| CliError::Io {
        path: name.clone(),
        source,
    };
    let raw: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(io_error)?)
    };
    let raw: Box<dyn Read> = match progress {
        Some(progress) => Box::new(progress.bar.wrap_read(raw)),
        None => raw,
    };
    let mut raw = BufReader::with_capacity(BUFFER, raw);
    // The first bytes, however the stream delivers them.
    let mut head = Vec::with_capacity(4);
    while head.len() < 4 {
        let available = match raw.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(io_error(error)),
        };
        if available.is_empty() {
            break;
        }
        let take = available.len().min(4 - head.len());
        head.extend_from_slice(&available[..take]);
        raw.consume(take);
    }
    let found = Compression::sniff(&head);
    if let Some(expected) = Compression::from_extension(path)
        && found != Some(expected)
    {
        return Err(CliError::Usage(format!(
            "{name}: the name says .{} but the content is not {} data",
            expected.extension(),
            match expected {
                Compression::Gzip => "gzip",
                Compression::Zstd => "zstd",
                Compression::Bzip2 => "bzip2",
            }
        )));
    }
    let stream = Cursor::new(head).chain(raw);
    Ok(match found {
        None => Box::new(stream),
        Some(Compression::Gzip) => Box::new(BufReader::with_capacity(
            BUFFER,
            flate2::bufread::MultiGzDecoder::new(stream),
        )),
        Some(Compression::Zstd) => Box::new(BufReader::with_capacity(
            BUFFER,
            zstd::stream::read::Decoder::with_buffer(stream).map_err(io_error)?,
        )),
        Some(Compression::Bzip2) => Box::new(BufReader::with_capacity(
            BUFFER,
            bzip2::bufread::MultiBzDecoder::new(stream),
        )),
    })
}

/// Opens a path, or standard input for `-`, as a reader of games, text that is not UTF-8
/// read in Windows-1252.
pub fn open(path: &Path) -> Result<Reader<Box<dyn BufRead>>, CliError> {
    open_with(path, Fallback::DEFAULT, None)
}

/// Opens a path, or standard input for `-`, as a reader of games, with the options the
/// user gave.
pub fn open_with(
    path: &Path,
    encoding: Fallback,
    progress: Option<&Progress>,
) -> Result<Reader<Box<dyn BufRead>>, CliError> {
    Ok(Reader::new(open_bytes(path, progress)?).with_fallback_encoding(encoding.0))
}

/// Says once per file that games were not UTF-8 and how they were read: call it after each
/// game with the reader; it prints when the first such game was read.
pub fn warn_decoded<R: BufRead>(reader: &Reader<R>, name: &str, warned: &mut bool) {
    if *warned {
        return;
    }
    if let Some(decoded) = reader.decoded() {
        *warned = true;
        warn_decoded_at(name, decoded);
    }
}

/// The warning of [`warn_decoded`], for the first game of a file that was not UTF-8.
pub fn warn_decoded_at(name: &str, decoded: Decoded) {
    eprintln!(
        "warning: {name}:{}:{}: not utf-8 text (the byte 0x{:02x}); game {} and the \
         games like it are read as {}",
        decoded.first.line,
        decoded.first.column,
        decoded.byte,
        decoded.game,
        decoded.encoding.name().to_ascii_lowercase()
    );
}

/// Reads game number `number` (from 1) of a file; a parse error in it is a usage error
/// here, since the commands that pick one game need it whole.
pub fn game(path: &Path, number: usize) -> Result<Record, CliError> {
    let name = display_path(path);
    let mut reader = open(path)?;
    let mut seen = 0;
    let mut warned = false;
    while let Some(item) = reader.next() {
        warn_decoded(&reader, &name, &mut warned);
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

/// The files named on the command line, with each folder replaced by the game files below
/// it (`.pgn`, `.pgn.gz`, `.pgn.zst`, `.pgn.bz2`; sorted, so output is stable). `-` stays
/// as it is. Symbolic links inside a folder are followed only with `follow`, and a link
/// that loops back to a folder above it is reported and skipped.
pub fn expand(paths: &[PathBuf], follow: bool) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let mut found = Vec::new();
        let walk = walkdir::WalkDir::new(path)
            .follow_links(follow)
            .sort_by_file_name();
        for entry in walk {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) if error.loop_ancestor().is_some() => {
                    let at = error.path().map(display_path).unwrap_or_default();
                    eprintln!(
                        "warning: {at}: a symbolic link back to {}; not walked again",
                        error.loop_ancestor().map(display_path).unwrap_or_default()
                    );
                    continue;
                }
                Err(error) => {
                    let at = error.path().unwrap_or(path);
                    return Err(CliError::Io {
                        path: display_path(at),
                        source: error
                            .into_io_error()
                            .unwrap_or_else(|| io::Error::other("cannot walk the folder")),
                    });
                }
            };
            if entry.file_type().is_file() && is_game_file(entry.path()) {
                found.push(entry.into_path());
            }
        }
        if found.is_empty() {
            return Err(CliError::Usage(format!(
                "{}: no .pgn files in this folder",
                path.display()
            )));
        }
        files.extend(found);
    }
    Ok(files)
}

/// A progress bar on standard error (games, MB/s, time left), drawn only when standard
/// error is a terminal.
pub struct Progress {
    bar: ProgressBar,
    games: u64,
}

impl Progress {
    /// A bar over these files (their size on disk), or `None` when it would not be seen:
    /// `quiet`, or standard error is not a terminal.
    #[must_use]
    pub fn new(files: &[PathBuf], quiet: bool) -> Option<Progress> {
        use std::io::IsTerminal;
        if quiet || !io::stderr().is_terminal() {
            return None;
        }
        let total: u64 = files
            .iter()
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum();
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Some(Progress { bar, games: 0 })
    }

    /// Counts one game read.
    pub fn game(&mut self) {
        self.games += 1;
        if self.games.is_multiple_of(256) {
            self.bar.set_message(format!("{} games", self.games));
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
