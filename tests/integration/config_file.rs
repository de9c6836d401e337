//! A config file others can write or replace is refused, as ssh refuses its own: it names
//! the `password_command` that pbem runs.

#![cfg(unix)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::homes::{assert_error, ok};

const CONFIG: &str = "player:\n  name: Alice\n  email: alice@example.org\nsmtp:\n  host: 127.0.0.1\n  user: alice\n  password_command: echo secret\n";

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let root = std::env::temp_dir().join(format!("pbem-config-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    Scratch(root)
}

fn pbem(config: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbem"))
        .arg("--config")
        .arg(config)
        .args(args)
        .env_remove("PBEM_CONFIG")
        .output()
        .unwrap()
}

#[test]
fn a_config_file_others_can_write_is_refused_with_the_fix() {
    let scratch = scratch("modes");
    // (file mode, folder mode, None when read, else what the refusal says)
    let cases: &[(u32, u32, Option<&str>)] = &[
        (0o600, 0o700, None),
        (0o644, 0o755, None),
        (0o400, 0o750, None),
        // A sticky folder anyone can write (/tmp): others cannot replace the file.
        (0o600, 0o1777, None),
        (0o666, 0o700, Some("can be written by others (mode 666)")),
        (0o620, 0o700, Some("can be written by others (mode 620)")),
        (0o602, 0o755, Some("can be written by others (mode 602)")),
        (0o600, 0o777, Some("a folder others can write (mode 777)")),
        (0o600, 0o770, Some("a folder others can write (mode 770)")),
    ];
    for (index, (file_mode, folder_mode, refusal)) in cases.iter().enumerate() {
        let folder = scratch.0.join(format!("home-{index}"));
        std::fs::create_dir_all(&folder).unwrap();
        let config = folder.join("config.yaml");
        std::fs::write(&config, CONFIG).unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(*file_mode)).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(*folder_mode)).unwrap();
        let output = pbem(&config, &["status"]);
        match refusal {
            None => {
                ok(&output);
            }
            Some(says) => {
                assert_error(&output, says);
                assert_error(&output, &format!("config file {}", config.display()));
                assert_error(&output, "password_command");
                let fix = if says.contains("folder") {
                    format!("chmod go-w {}", folder.display())
                } else {
                    format!("chmod 600 {}", config.display())
                };
                assert_error(&output, &fix);
            }
        }
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
}

#[test]
fn config_init_writes_a_file_and_folders_of_the_user_alone() {
    let scratch = scratch("init");
    let config = scratch.0.join("made/pbem/config.yaml");
    ok(&pbem(
        &config,
        &[
            "config",
            "init",
            "--name",
            "Alice",
            "--email",
            "alice@example.org",
        ],
    ));
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().mode() & 0o7777;
    assert_eq!(mode(&config), 0o600);
    assert_eq!(mode(&scratch.0.join("made/pbem")), 0o700);
    assert_eq!(mode(&scratch.0.join("made")), 0o700);
    ok(&pbem(&config, &["status"]));
}
