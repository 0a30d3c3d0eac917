//! Authentication at start: the RESP users (`requirepass`, `aclfile`), the
//! memcached auth file (`memcache_auth_file`), and the rule that keeps the
//! memcached port from being the open back door of a protected keyspace:
//! when RESP asks for credentials and memcached has none, Strata refuses to
//! start unless `memcache_unauthenticated` says so explicitly (then it
//! warns).

use strata_memcache::auth_file::AuthFile;
use strata_resp::acl::Acl;

use crate::config::ServerConfig;
use crate::error::ServerError;

/// What the front ends authenticate with.
#[derive(Debug)]
pub struct Credentials {
    /// The RESP users.
    pub acl: Acl,
    /// The memcached logins, when required.
    pub memcache: Option<AuthFile>,
}

/// Reads the ACL and memcached auth files and applies the start-up rule.
pub fn load(config: &ServerConfig) -> Result<Credentials, ServerError> {
    let requirepass = config.requirepass.as_deref();
    let acl = match &config.aclfile {
        Some(path) => Acl::with_file(path.clone(), requirepass)
            .map_err(|err| ServerError::AclFile(err.to_string()))?,
        None => Acl::new(requirepass),
    };
    let memcache = config
        .memcache_auth_file
        .as_deref()
        .map(AuthFile::load)
        .transpose()
        .map_err(ServerError::MemcacheAuthFile)?;
    let exposed =
        config.memcache_enabled && memcache.is_none() && config.resp_enabled && acl.requires_auth();
    if exposed && !config.memcache_unauthenticated {
        return Err(ServerError::InvalidOption {
            option: "memcache_unauthenticated",
            message: "the Redis port requires authentication (requirepass or ACL users \
                      with passwords) but the memcached port has none, and it reads, writes \
                      and flush_alls the same keyspace. Set memcache_auth_file \
                      (--memcache-auth-file) to require memcached logins, switch memcached \
                      off (memcache_enabled = false, --no-memcache), or set \
                      memcache_unauthenticated = true (--memcache-unauthenticated) to serve \
                      it open anyway"
                .into(),
        });
    }
    if exposed {
        tracing::warn!(
            "the memcached port serves the keyspace without authentication although the \
             Redis port requires it (memcache_unauthenticated = true)"
        );
    }
    Ok(Credentials { acl, memcache })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(edit: impl FnOnce(&mut ServerConfig)) -> ServerConfig {
        let mut config = ServerConfig::default();
        edit(&mut config);
        config
    }

    #[test]
    fn open_memcached_beside_a_protected_resp_is_refused() {
        let err = load(&config(|c| c.requirepass = Some("pw".into()))).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("invalid value for memcache_unauthenticated: "),
            "{err}"
        );
        assert!(
            err.to_string().contains("--memcache-unauthenticated"),
            "{err}"
        );
        assert_eq!(err.exit_code(), 2);
        // Said explicitly, or memcached protected or off: it starts.
        for allowed in [
            config(|c| {
                c.requirepass = Some("pw".into());
                c.memcache_unauthenticated = true;
            }),
            config(|c| {
                c.requirepass = Some("pw".into());
                c.memcache_enabled = false;
            }),
            config(|c| c.resp_enabled = false),
            ServerConfig::default(),
        ] {
            assert!(load(&allowed).is_ok(), "{allowed:?}");
        }
    }

    #[test]
    fn acl_users_with_passwords_protect_resp_too() {
        let dir = std::env::temp_dir().join(format!("strata-server-auth-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let acl = dir.join("users.acl");
        std::fs::write(&acl, "user app on >pw ~* +@all\n").unwrap();
        let with_acl = config(|c| c.aclfile = Some(acl.clone()));
        assert!(load(&with_acl).is_err());
        let auth = dir.join("mc.auth");
        std::fs::write(&auth, "app:pw\n").unwrap();
        let both = config(|c| {
            c.aclfile = Some(acl.clone());
            c.memcache_auth_file = Some(auth.clone());
        });
        let credentials = load(&both).unwrap();
        assert!(credentials.memcache.is_some_and(|a| a.check(b"app", b"pw")));
        // Bad files refuse to start, naming the line.
        std::fs::write(&acl, "user app on >pw\nuser bad +nosuch\n").unwrap();
        let err = load(&both).unwrap_err().to_string();
        assert!(err.starts_with("cannot load aclfile: "), "{err}");
        assert!(
            err.contains("users.acl:2: Error in applying operation '+nosuch'"),
            "{err}"
        );
        std::fs::write(&acl, "user app on >pw\n").unwrap();
        std::fs::write(&auth, "nocolon\n").unwrap();
        let err = load(&both).unwrap_err().to_string();
        assert!(err.contains("mc.auth:1: malformed entry"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
