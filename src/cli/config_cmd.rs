//! `pbem config`: create the config file, and check it (including the SMTP login).

use std::io::Write;
use std::path::Path;

use super::home::{self, Home};
use super::{CliError, Status};
use crate::config::{Settings, is_plausible_address};

/// The config subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ConfigCommand {
    /// Write a new config file (at --config, $PBEM_CONFIG or the per-user place).
    #[command(after_help = "\
The smtp and imap sections are written as comments to fill in (README.md, \"Play a game
by email\").

Examples:
  pbem config init --name Alice --email alice@example.org
  pbem config init --name Alice --email alice@example.org --shared-folder ~/Sync/pbem
  pbem --config ~/pbem-test.yaml config init --name Bob --email bob@example.org --force")]
    Init {
        /// Your name, as games name you.
        #[arg(long)]
        name: String,
        /// Your mail address.
        #[arg(long)]
        email: String,
        /// Play through this folder, shared with your opponent (synced, mounted, or on
        /// this machine), instead of mail servers: `pbem send` delivers into it and
        /// `pbem sync` takes in from it. A Maildir (new/, cur/, tmp/) or a plain folder.
        #[arg(long, value_name = "DIR")]
        shared_folder: Option<std::path::PathBuf>,
        /// Replace an existing config file.
        #[arg(long)]
        force: bool,
    },
    /// Read the config file and say what is wrong, if anything: the shared folder is
    /// there, and with SMTP or IMAP configured, connect and log in.
    #[command(after_help = "\
Examples:
  pbem config check
  pbem --config ~/pbem-test.yaml config check")]
    Check,
}

/// Runs a config subcommand.
pub fn run(
    command: &ConfigCommand,
    config: Option<&Path>,
    out: &mut dyn Write,
) -> Result<Status, CliError> {
    match command {
        ConfigCommand::Init {
            name,
            email,
            shared_folder,
            force,
        } => {
            let path = home::config_path(config)?;
            if !is_plausible_address(email) {
                return Err(CliError::Usage(format!(
                    "\"{email}\" is not a mail address (expected name@domain)"
                )));
            }
            if path.exists() && !force {
                return Err(CliError::Usage(format!(
                    "{} exists already (use --force to replace it)",
                    path.display()
                )));
            }
            if let Some(parent) = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
            {
                // Folders made here are the user's alone, whatever the umask: pbem refuses
                // a config in a folder others can write (cli::home).
                let mut builder = std::fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
                builder.create(parent).map_err(|source| CliError::Io {
                    path: parent.display().to_string(),
                    source,
                })?;
            }
            // The config reads a relative folder from its own folder: write it absolute,
            // as the command line meant it (from the current folder).
            let shared_folder = match shared_folder {
                Some(folder) if folder.is_relative() => Some(
                    std::env::current_dir()
                        .map_err(|source| CliError::Io {
                            path: ".".to_owned(),
                            source,
                        })?
                        .join(folder),
                ),
                other => other.clone(),
            };
            let shared_folder = match &shared_folder {
                Some(folder) => Some(folder.to_str().ok_or_else(|| {
                    CliError::Usage(format!(
                        "--shared-folder {}: the config file holds only UTF-8 folder names",
                        folder.display()
                    ))
                })?),
                None => None,
            };
            let text = Settings::template(name, email, shared_folder)
                .map_err(|error| CliError::Usage(format!("cannot write the config: {error}")))?;
            // Mode 600: pbem refuses a config file others can write (cli::home).
            crate::store::write_private(&path, text.as_bytes()).map_err(|source| CliError::Io {
                path: path.display().to_string(),
                source,
            })?;
            writeln!(out, "{}", path.display())?;
            Ok(Status::Ok)
        }
        ConfigCommand::Check => {
            let home = Home::load(config)?;
            let settings = &home.settings;
            writeln!(out, "config: {}", home.path.display())?;
            writeln!(
                out,
                "player: {} <{}>",
                settings.player.name, settings.player.email
            )?;
            writeln!(out, "games: {}", settings.games.display())?;
            writeln!(out, "outbox: {}", settings.outbox.display())?;
            super::mail::check_shared(&home, out)?;
            super::mail::check_smtp(&home, out)?;
            super::mail::check_imap(&home, out)
        }
    }
}
