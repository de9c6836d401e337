//! pbem's integration tests: one test binary, one module per area. Everything here runs
//! anywhere; what needs a server, Python or the shared data set is in the `outside`
//! binary, which shows such tests as ignored when their need is missing.

#[path = "../support/mod.rs"]
mod support;

mod african;
mod archives;
mod board;
mod by_mail;
mod cascudo;
mod chesica;
mod chess;
mod chesscala;
mod cli;
mod conditional;
mod config_file;
mod convert;
mod desk;
mod fair_cards;
mod fair_cards_proof;
mod fair_cards_twice;
mod fair_dice;
mod files_read_whole;
mod lost;
mod mail;
mod mistyped;
mod notation;
mod play;
mod play_page;
mod properties;
mod render;
mod robustness;
mod roundtrip;
mod scenarios;
mod shared_folder;
mod told;
mod typed;
mod validate;
mod wickets;
