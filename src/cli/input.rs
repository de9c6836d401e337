//! The one place that opens what a user names, over [`crate::batch`]'s opening of files
//! (plain or compressed), standard input and folders: text that is not UTF-8 (read in a
//! fallback encoding with one warning a file), the options every command that reads
//! games shares, and the progress bar of long runs. `validate`, `fmt`, `convert`, `show`,
//! `legal` and `bench` read through it; a file read whole (lines for `pbem if --file`, a
//! book for `pbem book add`, a game `pbem play FILE` plays) through [`read_text`], which
//! refuses what is not a regular file or is larger than [`MAX_TEXT_BYTES`].

use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use encoding_rs::Encoding;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CliError, display_path};
use crate::batch::{self, ByteCounts, Compression};
use crate::notation::{Decoded, ParseError, ReadError, Reader, Record};

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

/// Opens a path, or standard input for `-`, as a stream of decompressed bytes
/// ([`batch::open`]); `progress` counts the bytes as read from the disk and as handed on.
pub fn open_bytes(path: &Path, progress: Option<&Progress>) -> Result<Box<dyn BufRead>, CliError> {
    Ok(batch::open(
        path,
        progress.map(|progress| &progress.counts),
    )?)
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

/// Text from bytes: UTF-8, or the fallback encoding (with whether it was needed).
#[must_use]
pub fn decode(bytes: &[u8], encoding: Fallback) -> (String, bool) {
    match (std::str::from_utf8(bytes), encoding.0) {
        (Ok(text), _) => (text.to_owned(), false),
        (Err(_), Some(encoding)) => (
            encoding.decode_without_bom_handling(bytes).0.into_owned(),
            true,
        ),
        (Err(_), None) => (String::from_utf8_lossy(bytes).into_owned(), false),
    }
}

/// Says that a file read whole was not UTF-8 and how it was read.
pub fn warn_not_utf8(name: &str, encoding: Fallback) {
    if let Some(encoding) = encoding.0 {
        eprintln!(
            "warning: {name}: not utf-8 text; read as {}",
            encoding.name().to_ascii_lowercase()
        );
    }
}

/// The largest file read whole by [`read_text`], on disk and decompressed: 64 MB, the
/// largest game `convert` reads.
pub const MAX_TEXT_BYTES: usize = super::convert::MAX_GAME_BYTES;

/// A text file read whole.
#[derive(Clone, Debug)]
pub struct TextFile {
    /// Its text.
    pub text: String,
    /// The compression its bytes were in, if any.
    pub compressed: Option<Compression>,
}

/// Reads a file whole as text (a file of lines, a book's games, a game played locally) as
/// the commands that read games read one: plain or compressed, text that is not UTF-8
/// read as Windows-1252 with a warning. What is not a regular file (a device such as
/// `/dev/zero`, a pipe, a folder) and a file larger than [`MAX_TEXT_BYTES`], on disk or
/// decompressed, are refused before they are read, or as soon as the cap is passed, with
/// the file and the cause.
pub fn read_text(path: &Path) -> Result<TextFile, CliError> {
    let name = display_path(path);
    let io_error = |source| CliError::Io {
        path: name.clone(),
        source,
    };
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    if !metadata.is_file() {
        return Err(CliError::Usage(format!(
            "{name} is {}, not a regular file: give a file (a .pgn, or one compressed)",
            kind_of(&metadata)
        )));
    }
    let too_large = |how: &str| {
        CliError::Invalid(format!(
            "{name} is too large: more than {} MB{how}; pbem reads a file of lines, a book or              a game played locally up to that size (split it, or give the part you need)",
            MAX_TEXT_BYTES >> 20
        ))
    };
    if metadata.len() > MAX_TEXT_BYTES as u64 {
        return Err(too_large(""));
    }
    let mut head = Vec::with_capacity(4);
    std::fs::File::open(path)
        .and_then(|file| file.take(4).read_to_end(&mut head))
        .map_err(io_error)?;
    let mut bytes = Vec::new();
    open_bytes(path, None)?
        .take(MAX_TEXT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() > MAX_TEXT_BYTES {
        return Err(too_large(" once decompressed"));
    }
    let (text, decoded) = decode(&bytes, Fallback::DEFAULT);
    if decoded {
        warn_not_utf8(&name, Fallback::DEFAULT);
    }
    Ok(TextFile {
        text,
        compressed: Compression::sniff(&head),
    })
}

/// What a path that is not a regular file names, in words: `a folder`, `a pipe`.
fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    if metadata.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a pipe";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a device"
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

/// What is said of a game that cannot be read: `FILE:LINE:COLUMN: game N cannot be read:
/// REASON`.
pub fn unreadable(name: &str, error: &ParseError) -> String {
    format!(
        "{name}:{}:{}: game {} cannot be read: {}",
        error.span.line, error.span.column, error.game, error.message
    )
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
            Err(ReadError::Parse(error)) => Err(CliError::Usage(unreadable(&name, &error))),
        };
    }
    Err(CliError::Usage(format!(
        "{name} has {seen} game{}, not a game {number}",
        if seen == 1 { "" } else { "s" }
    )))
}

/// The files named on the command line, with each folder replaced by the game files below
/// it ([`batch::files`]); a symbolic link that loops back to a folder above it is told on
/// standard error and skipped.
pub fn expand(paths: &[PathBuf], follow: bool) -> Result<Vec<PathBuf>, CliError> {
    Ok(batch::files(paths, follow, &mut |link, ancestor| {
        eprintln!(
            "warning: {}: a symbolic link back to {}; not walked again",
            display_path(link),
            display_path(ancestor)
        );
    })?)
}

/// A progress bar on standard error (games, MB/s, time left), drawn only when standard
/// error is a terminal. It moves by the bytes read from the disk, spread over the games
/// as the reader hands them out: the reader takes games without tags in chunks of many
/// games, and the bar still moves game by game.
pub struct Progress {
    bar: ProgressBar,
    games: u64,
    /// The bytes of the files before the current one.
    done: u64,
    /// The current file's bytes read from the disk (by the decoder thread for a
    /// compressed file) and decompressed, taken by the reader of games.
    counts: ByteCounts,
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
        let progress = Progress::with_target(total, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        progress.bar.set_style(style);
        progress.bar.enable_steady_tick(Duration::from_millis(200));
        Some(progress)
    }

    fn with_target(total: u64, target: ProgressDrawTarget) -> Progress {
        Progress {
            bar: ProgressBar::with_draw_target(Some(total), target),
            games: 0,
            done: 0,
            counts: ByteCounts::default(),
        }
    }

    /// The bytes on disk that hold the first `end` bytes of the current file's text: the
    /// bytes read from the disk, in the proportion of the text taken that is read.
    fn on_disk(&self, end: u64) -> u64 {
        let raw = self.counts.raw.load(Ordering::Relaxed);
        let decoded = self.counts.decoded.load(Ordering::Relaxed).max(1);
        let end = end.min(decoded);
        u64::try_from(u128::from(raw) * u128::from(end) / u128::from(decoded)).unwrap_or(raw)
    }
}

impl batch::Progress for Progress {
    fn counts(&self) -> &ByteCounts {
        &self.counts
    }

    /// Counts `games` more games and moves the bar to `end` bytes into the current file's
    /// text, if that is further (when games are read elsewhere than the bytes).
    fn advance(&mut self, end: u64, games: u64) {
        let before = self.games;
        self.games += games;
        if self.games / 256 != before / 256 {
            self.bar.set_message(format!("{} games", self.games));
        }
        // The proportion moves a little as the next chunk is read: never back.
        let at = self.done + self.on_disk(end);
        if at > self.bar.position() {
            self.bar.set_position(at);
        }
    }

    /// Ends the current file: the bar stands after all of it.
    fn end_file(&mut self) {
        self.done += self.counts.raw.swap(0, Ordering::Relaxed);
        self.counts.decoded.store(0, Ordering::Relaxed);
        self.bar.set_position(self.done);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::Progress as _;

    fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!("pbem-input-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// The positions of the bar after each game of a file, and after its end.
    fn bar_positions(path: &Path) -> (Vec<u64>, u64) {
        let size = std::fs::metadata(path).unwrap().len();
        let mut progress = Progress::with_target(size, ProgressDrawTarget::hidden());
        let mut reader = open_with(path, Fallback::DEFAULT, Some(&progress)).unwrap();
        let mut positions = Vec::new();
        while let Some(game) = reader.next() {
            game.unwrap();
            // What the validation tells the bar after each game.
            let (text, start) = reader.game_text();
            progress.advance((start.offset + text.len()) as u64, 1);
            positions.push(progress.bar.position());
        }
        progress.end_file();
        (positions, progress.bar.position())
    }

    #[test]
    fn the_bar_moves_game_by_game_through_games_without_tags() {
        // Games without tags are read as one chunk: the bar used to jump to the end at
        // the first game and stand there.
        let game = "1. e4 e5 2. Nf3 Nc6 *\n\n";
        let text = game.repeat(20_000);
        let plain = scratch("tagless.pgn", text.as_bytes());
        let (positions, end) = bar_positions(&plain);
        assert_eq!(positions.len(), 20_000);
        assert!(positions.windows(2).all(|pair| pair[0] <= pair[1]));
        let steps = positions.windows(2).map(|pair| pair[1] - pair[0]);
        assert!(steps.max().unwrap() <= game.len() as u64);
        assert_eq!(end, text.len() as u64);
        // Compressed, the bar counts the file's bytes on disk, spread over the games.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let compressed = gz.finish().unwrap();
        let gzipped = scratch("tagless.pgn.gz", &compressed);
        let (positions, end) = bar_positions(&gzipped);
        assert_eq!(positions.len(), 20_000);
        assert!(positions.windows(2).all(|pair| pair[0] <= pair[1]));
        let steps = positions.windows(2).map(|pair| pair[1] - pair[0]);
        assert!(steps.max().unwrap() <= compressed.len() as u64 / 1000);
        assert_eq!(end, compressed.len() as u64);
        let _ = std::fs::remove_file(plain);
        let _ = std::fs::remove_file(gzipped);
    }

    #[test]
    fn no_bar_when_quiet() {
        assert!(Progress::new(&[PathBuf::from("tests/data")], true).is_none());
    }
}
