//! Unit tests of what the scenario table does not reach: token spelling, the diagram.

use super::*;

