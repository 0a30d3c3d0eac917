//! `strata users`: manages the HTTP file realm's `users` and
//! `users_roles` files, as Elasticsearch's `elasticsearch-users` does
//! (`useradd NAME -p PASS -r ROLES`, `passwd`, `roles`, `userdel`, `list`).
//! A running server picks the change up within seconds (it re-reads the
//! files when they change).
//!
//! The directory is `--dir`, else `http_security_dir` of `--config`.
//! Passwords are hashed with bcrypt (`$2a$`, cost 10 as Elasticsearch's
//! default); without `-p` the password is read from standard input.

use std::io::BufRead;
use std::path::PathBuf;

use strata_es::security::realm::files::{self, Users, UsersRoles};
use strata_es::security::realm::FileRealm;

use crate::config::ServerConfig;

/// Shortest password (Elasticsearch's rule).
const MIN_PASSWORD: usize = 6;

/// Options of `strata users`.
#[derive(Debug, clap::Args)]
pub struct UsersArgs {
    /// The file realm directory [default: `http_security_dir` of --config].
    #[arg(long, global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// A server configuration file naming `http_security_dir`.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: UsersCommand,
}

/// The `strata users` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum UsersCommand {
    /// Add a user with a password and roles.
    Useradd {
        /// The user name.
        name: String,
        /// The password (read from standard input when absent).
        #[arg(short = 'p', long)]
        password: Option<String>,
        /// Comma-separated roles.
        #[arg(short = 'r', long, value_delimiter = ',')]
        roles: Vec<String>,
        /// bcrypt cost (4 to 31).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(4..=31))]
        bcrypt_cost: u32,
    },
    /// Change a user's password.
    Passwd {
        /// The user name.
        name: String,
        /// The new password (read from standard input when absent).
        #[arg(short = 'p', long)]
        password: Option<String>,
        /// bcrypt cost (4 to 31).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(4..=31))]
        bcrypt_cost: u32,
    },
    /// Add (`-a`) or remove (`-r`) roles of a user.
    Roles {
        /// The user name.
        name: String,
        /// Comma-separated roles to add.
        #[arg(short = 'a', long, value_delimiter = ',')]
        add: Vec<String>,
        /// Comma-separated roles to remove.
        #[arg(short = 'r', long, value_delimiter = ',')]
        remove: Vec<String>,
    },
    /// Remove a user.
    Userdel {
        /// The user name.
        name: String,
    },
    /// List users and their roles (or one user's).
    List {
        /// Only this user.
        name: Option<String>,
    },
}

/// Runs the command; the error is a message for the user.
pub fn run_users(args: &UsersArgs) -> Result<(), String> {
    let dir = match (&args.dir, &args.config) {
        (Some(dir), _) => dir.clone(),
        (None, Some(path)) => ServerConfig::from_file(path)
            .map_err(|e| e.to_string())?
            .http_security_dir
            .ok_or_else(|| format!("{} does not set http_security_dir", path.display()))?,
        (None, None) => return Err("name the realm directory with --dir or --config".into()),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut users = files::read_users(&dir)?;
    let mut roles = files::read_users_roles(&dir)?;
    match &args.command {
        UsersCommand::Useradd {
            name,
            password,
            roles: wanted,
            bcrypt_cost,
        } => {
            files::validate_username(name)?;
            if users.contains_key(name) {
                return Err(format!("User [{name}] already exists"));
            }
            let hash = hash(password.as_deref(), *bcrypt_cost)?;
            warn_unknown_roles(&dir, wanted);
            users.insert(name.clone(), hash);
            for role in wanted.iter().filter(|r| !r.is_empty()) {
                add_role(&mut roles, role, name);
            }
            save(&dir, &users, &roles)
        }
        UsersCommand::Passwd {
            name,
            password,
            bcrypt_cost,
        } => {
            exists(&users, name)?;
            users.insert(name.clone(), hash(password.as_deref(), *bcrypt_cost)?);
            files::write_users(&dir, &users)
        }
        UsersCommand::Roles { name, add, remove } => {
            exists(&users, name)?;
            warn_unknown_roles(&dir, add);
            for role in remove {
                if let Some(members) = roles.get_mut(role) {
                    members.retain(|u| u != name);
                }
            }
            for role in add.iter().filter(|r| !r.is_empty()) {
                add_role(&mut roles, role, name);
            }
            files::write_users_roles(&dir, &roles)
        }
        UsersCommand::Userdel { name } => {
            exists(&users, name)?;
            users.remove(name);
            for members in roles.values_mut() {
                members.retain(|u| u != name);
            }
            save(&dir, &users, &roles)
        }
        UsersCommand::List { name } => {
            if let Some(n) = name {
                exists(&users, n)?;
            }
            for user in users
                .keys()
                .filter(|u| name.as_ref().is_none_or(|n| n == *u))
            {
                let of: Vec<&str> = roles
                    .iter()
                    .filter(|(_, members)| members.contains(user))
                    .map(|(r, _)| r.as_str())
                    .collect();
                println!(
                    "{user:<15}: {}",
                    if of.is_empty() {
                        "-".into()
                    } else {
                        of.join(",")
                    }
                );
            }
            Ok(())
        }
    }
}

fn exists(users: &Users, name: &str) -> Result<(), String> {
    if users.contains_key(name) {
        Ok(())
    } else {
        Err(format!("User [{name}] doesn't exist"))
    }
}

fn add_role(roles: &mut UsersRoles, role: &str, user: &str) {
    let members = roles.entry(role.to_string()).or_default();
    if !members.iter().any(|u| u == user) {
        members.push(user.to_string());
    }
}

fn save(dir: &std::path::Path, users: &Users, roles: &UsersRoles) -> Result<(), String> {
    files::write_users(dir, users)?;
    files::write_users_roles(dir, roles)
}

/// The bcrypt hash of the given password, or of one line of stdin.
fn hash(password: Option<&str>, cost: u32) -> Result<String, String> {
    let password = match password {
        Some(p) => p.to_string(),
        None => {
            eprintln!("Enter new password:");
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| format!("cannot read the password: {e}"))?;
            line.trim_end_matches(['\r', '\n']).to_string()
        }
    };
    if password.chars().count() < MIN_PASSWORD {
        return Err(format!(
            "Invalid password: passwords must be at least [{MIN_PASSWORD}] characters long"
        ));
    }
    bcrypt::hash_with_result(password, cost)
        .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// Elasticsearch warns (and goes on) when a role is neither built in nor
/// in `roles.yml`.
fn warn_unknown_roles(dir: &std::path::Path, wanted: &[String]) {
    let Ok(realm) = FileRealm::open(dir, std::time::Duration::from_secs(3600)) else {
        return;
    };
    let unknown: Vec<&str> = wanted
        .iter()
        .filter(|r| !r.is_empty() && realm.role(r).is_none())
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        eprintln!(
            "Warning: The following roles [{}] are not in the [{}] file. Make sure the names are correct. If the names are correct and the roles were created using the API please disregard this message. Nonetheless the command will still run.",
            unknown.join(","),
            dir.join(files::ROLES).display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn run(dir: &std::path::Path, command: UsersCommand) -> Result<(), String> {
        run_users(&UsersArgs {
            dir: Some(dir.to_path_buf()),
            config: None,
            command,
        })
    }

    fn add(name: &str, roles: &[&str]) -> UsersCommand {
        UsersCommand::Useradd {
            name: name.into(),
            password: Some(format!("{name}-password")),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            bcrypt_cost: 4,
        }
    }

    #[test]
    fn users_are_added_changed_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("realm");
        run(&dir, add("ann", &["superuser"])).unwrap();
        run(&dir, add("bob", &["viewer", "editor"])).unwrap();
        assert!(run(&dir, add("ann", &[]))
            .unwrap_err()
            .contains("already exists"));
        let short = UsersCommand::Passwd {
            name: "ann".into(),
            password: Some("abc".into()),
            bcrypt_cost: 4,
        };
        assert!(run(&dir, short).unwrap_err().contains("at least [6]"));
        run(
            &dir,
            UsersCommand::Passwd {
                name: "ann".into(),
                password: Some("new-password".into()),
                bcrypt_cost: 4,
            },
        )
        .unwrap();
        run(
            &dir,
            UsersCommand::Roles {
                name: "bob".into(),
                add: vec!["superuser".into()],
                remove: vec!["editor".into()],
            },
        )
        .unwrap();
        let realm = FileRealm::open(&dir, Duration::ZERO).unwrap();
        assert!(realm.authenticate("ann", b"new-password").is_ok());
        assert!(realm.authenticate("ann", b"ann-password").is_err());
        let bob = realm.authenticate("bob", b"bob-password").unwrap();
        assert!(bob.index("indices:admin/delete", "logs"));
        run(&dir, UsersCommand::Userdel { name: "bob".into() }).unwrap();
        assert!(realm.authenticate("bob", b"bob-password").is_err());
        assert!(run(&dir, UsersCommand::Userdel { name: "bob".into() })
            .unwrap_err()
            .contains("doesn't exist"));
        let roles = files::read_users_roles(&dir).unwrap();
        assert_eq!(roles.get("superuser").unwrap(), &["ann"]);
        assert!(files::read_users(&dir).unwrap()["ann"].starts_with("$2a$04$"));
    }

    #[test]
    fn the_directory_comes_from_the_config_file() {
        let tmp = tempfile::tempdir().unwrap();
        let realm = tmp.path().join("realm");
        let config = tmp.path().join("strata.toml");
        std::fs::write(&config, format!("http_security_dir = {:?}\n", realm)).unwrap();
        let loaded = ServerConfig::from_file(&config).unwrap();
        assert!(loaded.http_requires_authentication());
        assert!(!ServerConfig::default().http_requires_authentication());
        run_users(&UsersArgs {
            dir: None,
            config: Some(config),
            command: add("ann", &["viewer"]),
        })
        .unwrap();
        assert!(files::read_users(&realm).unwrap().contains_key("ann"));
        let mut empty = ServerConfig::from_toml("http_security_dir = \"\"\n").unwrap();
        assert!(empty.validate().is_err());
        let bare = tmp.path().join("bare.toml");
        std::fs::write(&bare, "http_port = 9201\n").unwrap();
        let err = run_users(&UsersArgs {
            dir: None,
            config: Some(bare),
            command: UsersCommand::List { name: None },
        })
        .unwrap_err();
        assert!(err.contains("does not set http_security_dir"), "{err}");
    }
}
