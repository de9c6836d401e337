//! Helpers shared by the test binaries: `integration` (everything that runs anywhere) and
//! `outside` (what needs a server, Python or the shared data set). Each binary uses a part.
#![allow(dead_code)]

pub mod homes;
pub mod mail;
pub mod page;
pub mod playouts;
pub mod records;
