//! pbem: chess variants by email.
//!
//! The library reads and writes pbem's PGN-like notation ([`notation`]), plays the games
//! by their rules ([`games`]) and replays whole records to find what is wrong with them
//! ([`replay`]). The `pbem` binary is a thin layer over it ([`cli`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod clock;
pub mod config;
pub mod convert;
pub mod correspondence;
pub mod fair;
pub mod games;
pub mod mail;
pub mod notation;
pub mod render;
pub mod replay;
pub mod store;

pub mod cli;
