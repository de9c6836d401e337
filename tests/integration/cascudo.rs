//! Cascudo: the scenario table (`tests/data/cascudo/scenarios.txt`, one rule or ruling a
//! block), perft from the start and small positions counted by hand, random playouts
//! whose every cascade writes, reads back and resolves to itself, and the example game
//! through the commands.

use std::path::Path;

use pbem::games::Game;
use pbem::games::cascudo::Cascudo;
use pbem::notation::parse_record;
use pbem::replay::replay;
use proptest::prelude::*;

use crate::scenarios::check_playout;

#[test]
fn every_scenario_holds() {
    crate::scenarios::run_table::<Cascudo>("tests/data/cascudo/scenarios.txt", 60);
}
