//! The `pbem` command: see `pbem --help`.

fn main() -> std::process::ExitCode {
    pbem::cli::run(std::env::args_os())
}
