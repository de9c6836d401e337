//! The one place that opens what a user names: files (plain, `.gz`, `.zst`, `.bz2`, told
//! apart by their first bytes), standard input (`-`, compressed or not), folders (walked
//! with walkdir), text that is not UTF-8 (read in a fallback encoding with one warning a
//! file), and the progress bar of long runs. `validate`, `fmt`, `convert`, `show`,
//! `legal` and `bench` read through it.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::Duration;

use encoding_rs::Encoding;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CliError, display_path};
use crate::notation::{Decoded, ParseError, ReadError, Reader, Record};

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
/// `.bz2`) with other bytes is an error. A compressed stream is decompressed on a thread
/// of its own ([`Pipe`]), so that reading the games and decompressing them overlap.
/// `progress` counts the bytes as read from the disk and as handed on.
pub fn open_bytes(path: &Path, progress: Option<&Progress>) -> Result<Box<dyn BufRead>, CliError> {
    let name = display_path(path);
    let io_error = |source| CliError::Io {
        path: name.clone(),
        source,
    };
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(io_error)?)
    };
    let raw: Box<dyn Read + Send> = match progress {
        Some(progress) => Box::new(progress.start_file(raw)),
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
    let stream: Box<dyn BufRead> = match found {
        None => Box::new(stream),
        Some(Compression::Gzip) => Box::new(Pipe::spawn(Box::new(
            flate2::bufread::MultiGzDecoder::new(stream),
        ))),
        Some(Compression::Zstd) => Box::new(Pipe::spawn(Box::new(
            zstd::stream::read::Decoder::with_buffer(stream).map_err(io_error)?,
        ))),
        Some(Compression::Bzip2) => Box::new(Pipe::spawn(Box::new(
            bzip2::bufread::MultiBzDecoder::new(stream),
        ))),
    };
    Ok(match progress {
        Some(progress) => Box::new(Counted {
            inner: stream,
            count: Arc::clone(&progress.decoded),
        }),
        None => stream,
    })
}

/// How many decompressed buffers the decoder thread may be ahead of the reader.
const PIPE_DEPTH: usize = 16;

/// The reading end of a bounded pipe of buffers filled by a decoder on a thread of its
/// own: decompressing (gzip, zstd, bzip2) costs about as much as reading the games, and
/// the two then overlap. At most [`PIPE_DEPTH`] buffers of [`BUFFER`] bytes are in flight,
/// so memory stays flat; buffers go back to the decoder to be filled again. An error of
/// the decoder comes after the bytes before it, as from the decoder itself. Dropping the
/// pipe ends the thread at its next buffer.
struct Pipe {
    full: Receiver<io::Result<Vec<u8>>>,
    empty: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    position: usize,
    ended: bool,
}

impl Pipe {
    fn spawn(mut decoder: Box<dyn Read + Send>) -> Pipe {
        let (filled, full) = mpsc::sync_channel::<io::Result<Vec<u8>>>(PIPE_DEPTH);
        let (empty, recycled) = mpsc::sync_channel::<Vec<u8>>(PIPE_DEPTH + 2);
        std::thread::spawn(move || {
            loop {
                let mut buffer = recycled.try_recv().unwrap_or_default();
                buffer.resize(BUFFER, 0);
                let mut length = 0;
                let mut failed = None;
                while length < BUFFER {
                    match decoder.read(&mut buffer[length..]) {
                        Ok(0) => break,
                        Ok(read) => length += read,
                        Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                        Err(error) => {
                            failed = Some(error);
                            break;
                        }
                    }
                }
                buffer.truncate(length);
                let end = length < BUFFER;
                if length > 0 && filled.send(Ok(buffer)).is_err() {
                    return;
                }
                if let Some(error) = failed {
                    let _ = filled.send(Err(error));
                    return;
                }
                if end {
                    // The end of the stream: the channel closes when this thread ends.
                    return;
                }
            }
        });
        Pipe {
            full,
            empty,
            current: Vec::new(),
            position: 0,
            ended: false,
        }
    }
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let length = available.len().min(buf.len());
        buf[..length].copy_from_slice(&available[..length]);
        self.consume(length);
        Ok(length)
    }
}

impl BufRead for Pipe {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.position == self.current.len() && !self.ended {
            match self.full.recv() {
                Ok(Ok(buffer)) => {
                    let used = std::mem::replace(&mut self.current, buffer);
                    self.position = 0;
                    // The decoder may have ended; a buffer it does not take is dropped.
                    let _ = self.empty.try_send(used);
                }
                Ok(Err(error)) => {
                    self.ended = true;
                    return Err(error);
                }
                Err(mpsc::RecvError) => self.ended = true,
            }
        }
        Ok(&self.current[self.position..])
    }

    fn consume(&mut self, amount: usize) {
        self.position = (self.position + amount).min(self.current.len());
    }
}

/// A stream that counts the bytes consumed from it (the decompressed bytes the reader of
/// games has taken), for the progress bar.
struct Counted {
    inner: Box<dyn BufRead>,
    count: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.count.fetch_add(amount as u64, Ordering::Relaxed);
        self.inner.consume(amount);
    }
}

/// A stream that counts the bytes read from it (the bytes read from the disk).
struct RawCount {
    inner: Box<dyn Read + Send>,
    count: Arc<AtomicU64>,
}

impl Read for RawCount {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
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
/// error is a terminal. It moves by the bytes read from the disk, spread over the games
/// as the reader hands them out: the reader takes games without tags in chunks of many
/// games, and the bar still moves game by game.
pub struct Progress {
    bar: ProgressBar,
    games: u64,
    /// The bytes of the files before the current one.
    done: u64,
    /// The current file's bytes read from the disk (by the decoder thread for a
    /// compressed file).
    raw: Arc<AtomicU64>,
    /// The current file's bytes, decompressed, taken by the reader of games.
    decoded: Arc<AtomicU64>,
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
            raw: Arc::default(),
            decoded: Arc::default(),
        }
    }

    /// Starts counting a new file read through `raw`.
    fn start_file(&self, raw: Box<dyn Read + Send>) -> RawCount {
        RawCount {
            inner: raw,
            count: Arc::clone(&self.raw),
        }
    }

    /// Counts one game read, the one `reader` returned last, and moves the bar to where
    /// that game ends, in bytes of the file on disk.
    pub fn game<R: BufRead>(&mut self, reader: &Reader<R>) {
        let (text, start) = reader.game_text();
        self.game_ending_at((start.offset + text.len()) as u64);
    }

    /// Counts one game (a chunk split at a game boundary, when the games are read
    /// elsewhere) and moves the bar to where it ends, `end` bytes into the current
    /// file's text.
    pub fn game_ending_at(&mut self, end: u64) {
        self.advance(end, 1);
    }

    /// Counts `games` more games and moves the bar to `end` bytes into the current file's
    /// text, if that is further (when games are read elsewhere than the bytes).
    pub fn advance(&mut self, end: u64, games: u64) {
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

    /// The bytes on disk that hold the first `end` bytes of the current file's text: the
    /// bytes read from the disk, in the proportion of the text taken that is read.
    fn on_disk(&self, end: u64) -> u64 {
        let raw = self.raw.load(Ordering::Relaxed);
        let decoded = self.decoded.load(Ordering::Relaxed).max(1);
        let end = end.min(decoded);
        u64::try_from(u128::from(raw) * u128::from(end) / u128::from(decoded)).unwrap_or(raw)
    }

    /// Ends the current file: the bar stands after all of it.
    pub fn end_file(&mut self) {
        self.done += self.raw.swap(0, Ordering::Relaxed);
        self.decoded.store(0, Ordering::Relaxed);
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

    /// Bytes, then a read error.
    struct Failing(Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("the disk is gone")),
                read => Ok(read),
            }
        }
    }

    #[test]
    fn the_pipe_hands_on_every_byte_then_the_error() {
        let bytes: Vec<u8> = (0..BUFFER * 5 + 123).map(|at| (at % 251) as u8).collect();
        let mut read = Vec::new();
        Pipe::spawn(Box::new(Cursor::new(bytes.clone())))
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, bytes);
        let mut pipe = Pipe::spawn(Box::new(Failing(Cursor::new(bytes.clone()))));
        let mut read = Vec::new();
        let error = pipe.read_to_end(&mut read).unwrap_err();
        assert_eq!(error.to_string(), "the disk is gone");
        assert_eq!(read, bytes);
        // A pipe dropped early ends its thread (the decoder's next send fails).
        let mut pipe = Pipe::spawn(Box::new(io::repeat(b'x')));
        assert_eq!(pipe.fill_buf().unwrap()[0], b'x');
        drop(pipe);
    }

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
            progress.game(&reader);
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
