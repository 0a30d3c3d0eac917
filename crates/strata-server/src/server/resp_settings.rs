//! The RESP front end's settings from the configuration, applied before
//! its port opens: the idle timeout, cluster mode (its node id and epoch
//! kept in `cluster_config_file` under the data directory, which the
//! server always has), `proto-max-bulk-len`, the slow log and
//! `notify-keyspace-events`, `enable-debug-command`.

use strata_resp::cluster::NodesFile;
use strata_resp::RespProtocol;

use crate::config::ServerConfig;
use crate::error::ServerError;

/// Applies `config` to `protocol`, whose port is `port` (the plain one, or
/// the TLS one when only that is open). A cluster config file that cannot
/// be read, is corrupted or cannot be written refuses the start, as Redis
/// refuses to start on a corrupted `nodes.conf`.
pub(super) fn apply(
    protocol: &RespProtocol,
    config: &ServerConfig,
    port: Option<u16>,
) -> Result<(), ServerError> {
    let shared = protocol.shared();
    shared.idle_timeout.set(config.timeout);
    protocol.set_cluster_config_file(&config.cluster_config_file.display().to_string());
    protocol.set_enable_debug_command(config.enable_debug_command.access());
    if let (true, Some(port)) = (config.cluster_enabled, port) {
        // A relative path is under the data directory (join keeps an
        // absolute one as it is).
        let path = config.data_dir.join(&config.cluster_config_file);
        let file = NodesFile::open(&path).map_err(|err| {
            ServerError::ClusterConfig(format!("cannot open {}: {err}", path.display()))
        })?;
        protocol
            .enable_cluster(config.bind, port, Some(file))
            .map_err(ServerError::ClusterConfig)?;
    }
    let bulk = usize::try_from(config.proto_max_bulk_len.bytes()).unwrap_or(usize::MAX);
    protocol.set_proto_max_bulk_len(bulk);
    shared
        .slowlog
        .set_slower_than(config.slowlog_log_slower_than);
    shared.slowlog.set_max_len(config.slowlog_max_len);
    // Checked with the settings: unknown letters never get here.
    let events = config.notify_keyspace_events.as_bytes();
    let flags = strata_resp::notify::flags::parse(events).unwrap_or(0);
    shared.notify.set(flags, &shared.keyspace, &shared.pubsub);
    Ok(())
}
