//! Opening what a user names: files (plain, `.gz`, `.zst`, `.bz2`, told apart by their
//! first bytes), standard input (`-`, compressed or not), and folders (walked with
//! walkdir). A compressed stream is decompressed on a thread of its own.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::{Error, display_name};

/// The buffer of every stream read.
const BUFFER: usize = 1 << 16;

/// The bytes of the file being read, counted as it is read, for a progress bar: those read
/// from the disk (by the decoder's thread for a compressed file) and those handed on,
/// decompressed, to the reader of games. Clones count into the same numbers.
#[derive(Clone, Debug, Default)]
pub struct ByteCounts {
    /// The bytes read from the disk.
    pub raw: Arc<AtomicU64>,
    /// The bytes handed on, decompressed.
    pub decoded: Arc<AtomicU64>,
}

/// How a stream is compressed, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
    /// bzip2 (`.bz2`).
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

    /// The format's name: `gzip`, `zstd`, `bzip2`.
    #[must_use]
    pub const fn format(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
        }
    }

    /// The command that decompresses a file of the format in place: `gunzip`, `unzstd`,
    /// `bunzip2`.
    #[must_use]
    pub const fn decompress_command(self) -> &'static str {
        match self {
            Compression::Gzip => "gunzip",
            Compression::Zstd => "unzstd",
            Compression::Bzip2 => "bunzip2",
        }
    }

    /// The compression of a stream that starts with `head` (its first four bytes or all
    /// of a shorter stream), if any: what [`open`] decompresses.
    #[must_use]
    pub fn sniff(head: &[u8]) -> Option<Compression> {
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
/// of its own, so that reading the games and decompressing them overlap.
/// `counts`, when given, counts the bytes as read from the disk and as handed on.
pub fn open(path: &Path, counts: Option<&ByteCounts>) -> Result<Box<dyn BufRead>, Error> {
    let name = display_name(path);
    let io_error = |source| Error::Read {
        path: name.clone(),
        source,
    };
    let raw: Box<dyn Read + Send> = if path.as_os_str() == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(io_error)?)
    };
    let raw: Box<dyn Read + Send> = match counts {
        Some(counts) => Box::new(RawCount {
            inner: raw,
            count: Arc::clone(&counts.raw),
        }),
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
        return Err(Error::NotCompressed {
            path: name,
            extension: expected.extension(),
            format: expected.format(),
        });
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
    Ok(match counts {
        Some(counts) => Box::new(Counted {
            inner: stream,
            count: Arc::clone(&counts.decoded),
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

/// The files named on the command line, with each folder replaced by the game files below
/// it (`.pgn`, `.pgn.gz`, `.pgn.zst`, `.pgn.bz2`; sorted, so output is stable). `-` stays
/// as it is. Symbolic links inside a folder are followed only with `follow`, and a link
/// that loops back to a folder above it is skipped and told to `looped` (the link, and
/// the folder it leads back to).
pub fn files(
    paths: &[PathBuf],
    follow: bool,
    looped: &mut dyn FnMut(&Path, &Path),
) -> Result<Vec<PathBuf>, Error> {
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
                    let ancestor = error.loop_ancestor().unwrap_or(path);
                    looped(error.path().unwrap_or(path), ancestor);
                    continue;
                }
                Err(error) => {
                    let at = error.path().unwrap_or(path);
                    return Err(Error::Read {
                        path: display_name(at),
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
            return Err(Error::NoGameFiles(path.display().to_string()));
        }
        files.extend(found);
    }
    Ok(files)
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
}
