//! The RESP front end's settings from the configuration, applied before
//! its port opens: the idle timeout, cluster mode, `proto-max-bulk-len`,
//! the slow log and `notify-keyspace-events`.

use strata_resp::RespProtocol;

use crate::config::ServerConfig;

/// Applies `config` to `protocol`, whose port is `port` (the plain one, or
/// the TLS one when only that is open).
pub(super) fn apply(protocol: &RespProtocol, config: &ServerConfig, port: Option<u16>) {
    let shared = protocol.shared();
    shared.idle_timeout.set(config.timeout);
    if let (true, Some(port)) = (config.cluster_enabled, port) {
        protocol.enable_cluster(config.bind, port);
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
}
