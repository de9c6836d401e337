//! Fills the slider attack tables of orthodox chess (and of the games that share its
//! board) once, at build time, so that no process spends its start building them. The
//! filling code is the library's own `games::chess::magics`, included here by path; the
//! tables are written as Rust source into `OUT_DIR/slider_tables.rs`, which
//! `games::chess::attacks` includes.

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/games/chess/magics.rs"]
mod magics;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/games/chess/magics.rs");
    let tables = magics::slider_tables();
    let mut out = String::with_capacity(4 << 20);
    out.push_str("// Written by build.rs from games::chess::magics: do not edit.\n\n");
    write_magics(&mut out, "ROOK_ENTRIES", &tables.rook_magics);
    write_magics(&mut out, "BISHOP_ENTRIES", &tables.bishop_magics);
    write_words(&mut out, "ATTACKS", "[u64; ATTACK_COUNT]", &tables.attacks);
    write_rows(&mut out, "BETWEEN", &tables.between);
    write_rows(&mut out, "LINE", &tables.line);
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("slider_tables.rs");
    std::fs::write(&path, out).expect("OUT_DIR is writable");
}

fn write_magics(out: &mut String, name: &str, magics: &[magics::Magic; 64]) {
    let _ = writeln!(out, "static {name}: [Magic; 64] = [");
    for m in magics {
        let _ = writeln!(
            out,
            "    Magic {{ mask: {:#x}, magic: {:#x}, shift: {}, offset: {} }},",
            m.mask, m.magic, m.shift, m.offset
        );
    }
    out.push_str("];\n\n");
}

fn write_words(out: &mut String, name: &str, ty: &str, words: &[u64]) {
    let _ = writeln!(out, "static {name}: {ty} = [");
    for chunk in words.chunks(8) {
        out.push_str("   ");
        for word in chunk {
            let _ = write!(out, " {word:#x},");
        }
        out.push('\n');
    }
    out.push_str("];\n\n");
}

fn write_rows(out: &mut String, name: &str, rows: &[[u64; 64]]) {
    let _ = writeln!(out, "static {name}: [[u64; 64]; 64] = [");
    for row in rows {
        out.push_str("    [");
        for word in row {
            let _ = write!(out, "{word:#x},");
        }
        out.push_str("],\n");
    }
    out.push_str("];\n\n");
}
