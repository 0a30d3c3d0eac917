//! The node's cluster config file (Redis's `nodes.conf`, named by
//! `cluster-config-file`), in Redis 7.2's format so the node keeps its id,
//! shard id and epoch across restarts:
//!
//! ```text
//! <id> <ip>:<port>@<bus port>,,shard-id=<shard id> myself,master - 0 0 <config epoch> connected 0-16383
//! vars currentEpoch <epoch> lastVoteEpoch 0
//! ```
//!
//! After the address come the hostname (none: empty) and Redis 7.2's
//! auxiliary fields, `name=value` each; Redis 7.0's files have neither,
//! and a file without a shard id gets a new one at start, as a 7.2 master
//! loading a 7.0 file does. An absent or empty file means a new node
//! (Redis treats an empty one so). Anything else that is not exactly this node's line and the vars
//! line is refused, as Redis refuses to start on a corrupted file;
//! Strata, knowing no other node, also refuses a file naming others.
//! Writes replace the file through strata-device's
//! [`Directory::replace`] (a synced temporary renamed over it, the names
//! synced), one at a time: after a crash the file is whole, old or new.

use std::io;
use std::path::Path;

use parking_lot::Mutex;
use strata_device::{Directory, FsDirectory, SyncMode};

use super::SLOTS;

/// What the file remembers of this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The node id: 40 lowercase hex digits.
    pub id: String,
    /// The shard id (Redis 7.2): 40 lowercase hex digits; `None` in a file
    /// written before 7.2.
    pub shard_id: Option<String>,
    /// The config epoch (the current epoch of a one-node cluster too).
    pub epoch: u64,
}

/// The cluster config file of this node.
pub struct NodesFile {
    dir: Box<dyn Directory>,
    name: String,
    /// Shown in errors and by `CONFIG GET cluster-config-file`.
    shown: String,
    /// One replace at a time: they share the temporary device.
    writing: Mutex<()>,
}

impl std::fmt::Debug for NodesFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodesFile")
            .field("path", &self.shown)
            .finish()
    }
}

impl NodesFile {
    /// The file at `path`, in a directory that exists (the server's data
    /// directory); nothing is read or written yet.
    pub fn open(path: &Path) -> io::Result<NodesFile> {
        let (dir, name) = crate::file_path::split(path)?;
        let fs = FsDirectory::open(dir, SyncMode::Fdatasync)?;
        Ok(Self::in_directory(
            Box::new(fs),
            name,
            &path.display().to_string(),
        ))
    }

    /// The device `name` of `dir` (`shown` names it in messages).
    pub fn in_directory(dir: Box<dyn Directory>, name: &str, shown: &str) -> NodesFile {
        NodesFile {
            dir,
            name: name.to_string(),
            shown: shown.to_string(),
            writing: Mutex::new(()),
        }
    }

    /// The path as configured.
    pub fn path(&self) -> &str {
        &self.shown
    }

    /// What the file holds: `None` when it is absent or empty (a new
    /// node), an error when it cannot be read or is corrupted.
    pub fn load(&self) -> Result<Option<Saved>, String> {
        match self.dir.read_all(&self.name) {
            Ok(bytes) => parse(&bytes).map_err(|why| {
                format!(
                    "Unrecoverable error: corrupted cluster config file \"{}\": {why}",
                    self.shown
                )
            }),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(format!(
                "cannot read the cluster config file \"{}\": {err}",
                self.shown
            )),
        }
    }

    /// Replaces the file with `text`, atomically and durably.
    pub fn save(&self, text: &str) -> io::Result<()> {
        self.save_with(|| text.to_string())
    }

    /// Replaces the file with what `text` gives, made under the write lock
    /// (so concurrent saves land in the order their texts were made).
    pub fn save_with(&self, text: impl FnOnce() -> String) -> io::Result<()> {
        let _one = self.writing.lock();
        self.dir.replace(&self.name, text().as_bytes())
    }
}

/// The file's text for a node at `ip:port` (bus port `bus`).
pub fn render(saved: &Saved, ip: &str, port: u16, bus: u32) -> String {
    let epoch = saved.epoch;
    let aux = match &saved.shard_id {
        Some(shard) => format!(",,shard-id={shard}"),
        None => String::new(),
    };
    format!(
        "{} {ip}:{port}@{bus}{aux} myself,master - 0 0 {epoch} connected 0-{}\n\
         vars currentEpoch {epoch} lastVoteEpoch 0\n",
        saved.id,
        SLOTS - 1
    )
}

/// The node of a file's `bytes`; `None` when there are none.
pub fn parse(bytes: &[u8]) -> Result<Option<Saved>, String> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| "not text".to_string())?;
    let (mut node, mut vars) = (None, false);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        if words[0] == "vars" {
            check_vars(&words[1..])?;
            vars = true;
        } else if node.is_some() {
            return Err("more than one node (Strata runs one-node clusters)".into());
        } else {
            node = Some(node_line(&words)?);
        }
    }
    match (node, vars) {
        (Some(node), true) => Ok(Some(node)),
        (None, _) => Err("no node line".into()),
        (Some(_), false) => Err("no vars line".into()),
    }
}

/// `<id> <address> <flags> <master> <ping> <pong> <epoch> <state> [slots]`
/// of this node (flag `myself`).
fn node_line(words: &[&str]) -> Result<Saved, String> {
    if words.len() < 8 {
        return Err("a node line has fewer than 8 fields".into());
    }
    let id = words[0];
    if !is_id(id) {
        return Err(format!("bad node id {id:?}"));
    }
    let shard_id = shard_id(words[1])?;
    if !words[2].split(',').any(|flag| flag == "myself") {
        return Err("the node line is not this node's (no myself flag)".into());
    }
    let epoch = words[6]
        .parse()
        .map_err(|_| format!("bad config epoch {:?}", words[6]))?;
    Ok(Saved {
        id: id.to_ascii_lowercase(),
        shard_id,
        epoch,
    })
}

/// 40 hex digits, as node and shard ids are.
fn is_id(id: &str) -> bool {
    id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `shard-id` among the auxiliary fields of an address
/// (`<ip>:<port>@<bus>[,<hostname>[,<name>=<value>]...]`); other fields
/// (`nodename`, `tls-port`, `tcp-port`) are Redis's to keep, not ours.
fn shard_id(address: &str) -> Result<Option<String>, String> {
    let mut shard = None;
    for field in address.split(',').skip(2) {
        let Some((name, value)) = field.split_once('=') else {
            return Err(format!("bad auxiliary field {field:?}"));
        };
        if name == "shard-id" {
            if !is_id(value) {
                return Err(format!("bad shard id {value:?}"));
            }
            shard = Some(value.to_ascii_lowercase());
        }
    }
    Ok(shard)
}

/// `vars` pairs: names with numbers.
fn check_vars(pairs: &[&str]) -> Result<(), String> {
    if pairs.len() % 2 != 0 {
        return Err("a vars line has a name without a value".into());
    }
    for pair in pairs.chunks(2) {
        if pair[1].parse::<u64>().is_err() {
            return Err(format!("bad value {:?} of {}", pair[1], pair[0]));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_device::MemDirectory;

    const ID: &str = "7d56580e05bad89a2b9eff8d4adfd735da647104";

    const SHARD: &str = "4b7b8eb2c0fdb5ae4b35e57ae8f2bd4bd1da4cb2";

    #[test]
    fn what_is_rendered_parses_back() {
        let saved = Saved {
            id: ID.into(),
            shard_id: Some(SHARD.into()),
            epoch: 7,
        };
        let text = render(&saved, "", 7702, 17702);
        let line = format!("{ID} :7702@17702,,shard-id={SHARD} myself,master - 0 0 7 ");
        assert!(text.starts_with(&line), "{text}");
        assert_eq!(parse(text.as_bytes()), Ok(Some(saved)));
    }

    #[test]
    fn redis_written_file_is_read() {
        // As redis-server 7.0.15 wrote it after BUMPEPOCH: no shard id.
        let text = format!(
            "{ID} :7702@17702 myself,master - 0 0 1 connected\n\
             vars currentEpoch 1 lastVoteEpoch 0\n"
        );
        let saved = parse(text.as_bytes()).unwrap().unwrap();
        assert_eq!((saved.id.as_str(), saved.epoch), (ID, 1));
        assert_eq!(saved.shard_id, None);
        // As Redis 7.2 writes it: hostname, then auxiliary fields.
        let text = format!(
            "{ID} 127.0.0.1:7702@17702,,tls-port=0,shard-id={SHARD} myself,master - 0 0 1 connected 0-16383\n\
             vars currentEpoch 1 lastVoteEpoch 0\n"
        );
        let saved = parse(text.as_bytes()).unwrap().unwrap();
        assert_eq!(saved.shard_id.as_deref(), Some(SHARD));
        let named = text.replace(",,tls", ",host.example,nodename=n1,tls");
        assert_eq!(parse(named.as_bytes()).unwrap(), Some(saved));
    }

    #[test]
    fn damage_is_refused_and_empty_is_new() {
        assert_eq!(parse(b""), Ok(None));
        let good = format!("{ID} :1@2 myself,master - 0 0 1 connected\nvars currentEpoch 1\n");
        let other = format!("{ID} :1@2 master - 0 0 1 connected\nvars currentEpoch 1\n");
        let two = format!("{good}{}", good.lines().next().unwrap());
        for bad in [
            "garbage\n".to_string(),
            good[..50].to_string(),
            good.replace(ID, &ID[1..]),
            good.replace(" 0 0 1 ", " 0 0 x "),
            good.replace("currentEpoch 1", "currentEpoch"),
            good.replace(":1@2", ":1@2,,shard-id=12"),
            good.replace(":1@2", ":1@2,,tls-port"),
            good.lines().next().unwrap().to_string(),
            other,
            two,
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(parse(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn load_and_save_through_a_directory() {
        let file = NodesFile::in_directory(Box::new(MemDirectory::new()), "nodes.conf", "n");
        assert_eq!(file.load(), Ok(None));
        let saved = Saved {
            id: ID.into(),
            shard_id: Some(SHARD.into()),
            epoch: 3,
        };
        file.save(&render(&saved, "127.0.0.1", 6379, 16379))
            .unwrap();
        assert_eq!(file.load(), Ok(Some(saved)));
        file.save("junk").unwrap();
        let err = file.load().unwrap_err();
        assert!(
            err.starts_with("Unrecoverable error: corrupted cluster config file \"n\""),
            "{err}"
        );
    }
}
