//! Tests that need something from outside the project: a real SMTP server (aiosmtpd,
//! installed by `.ci/smtp-setup`), a real IMAP server (Dovecot, `.ci/imap-setup`), the
//! Python interpreter for the independent references, headless Chromium with
//! chromedriver for the replay pages (`.ci/browser-setup`), or the shared data set (real
//! PGN files, perft tables, Zillions games: `../shared/data`
//! beside the project, or where `PBEM_SHARED_DATA` points).
//!
//! This binary is its own harness (libtest-mimic) so that it can decide at start, for each
//! test, whether what it needs is there. A test whose need is missing shows as `ignored`
//! with the reason, never as `ok`; under CI (`CI` set to anything but `0` or `false`) it
//! fails instead, so nothing is skipped there. `cargo test` runs this binary with the
//! others; `cargo test --test outside -- --ignored` also runs the slow, by-hand checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

#[path = "../support/mod.rs"]
mod support;

mod browser;
mod conditional;
mod email;
mod imap;
mod links;
mod perft_tables;
mod play_mail;
mod play_page;
mod reference;
mod shared_files;
mod shared_samples;
mod smtp;
mod walkthrough;
mod webdriver;
mod wickets_reference;

/// Something a test needs from outside the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Need {
    /// The shared data set ([`shared_data`]).
    SharedData,
    /// A Python 3 interpreter on the `PATH` (the independent rules references).
    Python,
    /// Python with aiosmtpd and openssl, to start the test SMTP server ([`smtp::python`]).
    Smtp,
    /// Dovecot and openssl, to start the test IMAP server ([`imap::start`]).
    Imap,
    /// Headless Chromium ([`webdriver::CHROMIUM`]) and chromedriver on the `PATH`.
    Chromium,
    /// The right to give a file to another user (root): files and links planted by
    /// someone else ([`links`]).
    OtherOwner,
}

impl Need {
    /// Whether it is here, or why not, with what to do about it.
    fn probe(self) -> Result<(), String> {
        match self {
            Need::SharedData => {
                let dir = shared_data_dir();
                if dir.is_dir() {
                    Ok(())
                } else {
                    Err(format!(
                        "needs the shared data set, not found at {} (set PBEM_SHARED_DATA)",
                        dir.display()
                    ))
                }
            }
            Need::Python => runs(Command::new("python3").arg("--version"))
                .map_err(|why| format!("needs python3: {why}")),
            Need::Smtp => {
                let python = smtp::python();
                runs(Command::new(&python).args(["-c", "import aiosmtpd"]))
                    .and_then(|()| runs(Command::new("openssl").arg("version")))
                    .map_err(|why| {
                        format!(
                            "needs the test SMTP server (aiosmtpd for {}, openssl): {why}; run .ci/smtp-setup",
                            python.display()
                        )
                    })
            }
            Need::Imap => imap::probe(),
            Need::OtherOwner => links::probe(),
            Need::Chromium => runs(Command::new(webdriver::CHROMIUM).arg("--version"))
                .and_then(|()| runs(Command::new("chromedriver").arg("--version")))
                .map_err(|why| {
                    format!("needs chromium and chromedriver: {why}; run .ci/browser-setup")
                }),
        }
    }
}

/// Runs a probe command quietly: `Ok` when it exits 0.
fn runs(command: &mut Command) -> Result<(), String> {
    let program = command.get_program().to_string_lossy().into_owned();
    match command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{program} exited with {status}")),
        Err(error) => Err(format!("cannot run {program}: {error}")),
    }
}

/// One test of this binary: its name, what it needs, and its body, which panics on
/// failure like a `#[test]` function.
pub struct Test {
    /// The name as the summary shows it (module and function).
    pub name: String,
    /// Everything it needs; it runs only when all are there.
    pub needs: &'static [Need],
    /// Slow checks run by hand only (`-- --ignored`), like `#[ignore = "..."]`: why, and
    /// how to run them, shown beside `ignored` in every other run.
    pub by_hand: Option<&'static str>,
    /// The test itself.
    pub run: fn(),
}

/// The tests of a module: `tests![&[Need::Smtp]; a, b]` names each function with its
/// module and what it needs.
#[macro_export]
macro_rules! tests {
    ($needs:expr; $($test:ident),* $(,)?) => {
        vec![$($crate::Test {
            name: format!("{}::{}", module_path!().trim_start_matches("outside::"), stringify!($test)),
            needs: $needs,
            by_hand: None,
            run: $test,
        }),*]
    };
}

/// The shared data folder: `PBEM_SHARED_DATA`, else `../shared/data` beside the project.
pub fn shared_data_dir() -> PathBuf {
    match std::env::var_os("PBEM_SHARED_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    }
}

/// The shared data folder, for tests that declare [`Need::SharedData`].
pub fn shared_data() -> PathBuf {
    shared_data_dir()
}

/// Whether this run is CI's, where a missing need fails instead of being skipped.
fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| !matches!(value.as_str(), "" | "0" | "false"))
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let ci = under_ci();
    // libtest-mimic shows a trial flagged ignored as a bare `ignored`; a by-hand check is
    // therefore flagged only when this run asks for the ignored tests, and otherwise
    // reports itself ignored with its reason, without running.
    let by_hand_runs = args.ignored || args.include_ignored;
    let tests: Vec<Test> = [
        browser::tests(),
        email::tests(),
        imap::tests(),
        conditional::tests(),
        links::tests(),
        perft_tables::tests(),
        play_mail::tests(),
        play_page::tests(),
        reference::tests(),
        shared_files::tests(),
        shared_samples::tests(),
        smtp::tests(),
        walkthrough::tests(),
        wickets_reference::tests(),
    ]
    .into_iter()
    .flatten()
    .collect();

    let mut probes: HashMap<Need, Result<(), String>> = HashMap::new();
    let trials = tests
        .into_iter()
        .map(|test| {
            let missing = test.needs.iter().find_map(|need| {
                probes
                    .entry(*need)
                    .or_insert_with(|| need.probe())
                    .clone()
                    .err()
            });
            let run = test.run;
            if let Some(why) = test.by_hand
                && !by_hand_runs
            {
                return Trial::ignorable_test(test.name, move || Ok(Completion::ignored_with(why)));
            }
            let trial = match missing {
                None => Trial::test(test.name, move || {
                    run();
                    Ok(())
                }),
                Some(why) if ci => Trial::test(test.name, move || {
                    Err(Failed::from(format!("under CI nothing is skipped: {why}")))
                }),
                Some(why) => {
                    Trial::ignorable_test(test.name, move || Ok(Completion::ignored_with(why)))
                }
            };
            trial.with_ignored_flag(test.by_hand.is_some())
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
