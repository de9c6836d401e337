//! Chesscala: the scenario table (`tests/data/chesscala/scenarios.txt`, one rule or
//! ruling a block, with the page's worked examples), perft from each reconstructed setup
//! and from a crowded middlegame, random playouts whose every turn writes, reads back and
//! resolves to itself, the example game, and `pbem legal` on the standard setup.

use std::path::Path;

use pbem::games::Game;
use pbem::games::chesscala::{Chesscala, Setup};
use pbem::notation::parse_record;
use pbem::replay::replay;
use proptest::prelude::*;

use crate::scenarios::check_playout;

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<Chesscala>("tests/data/chesscala/scenarios.txt", 100);
}
