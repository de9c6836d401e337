//! Orthodox chess under the FIDE Laws.

/// A position of orthodox chess.
#[derive(Clone, Debug)]
pub struct Chess;
