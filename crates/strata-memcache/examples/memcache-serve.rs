//! Serves the memcached protocol alone on a port, for trying clients or
//! comparing replies with a real memcached byte for byte:
//! `cargo run -p strata-memcache --example memcache-serve -- 22123`.

use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;

use parking_lot::RwLock;
use strata_kv::{Clock, Keyspace, KeyspaceConfig, SystemClock};
use strata_memcache::MemcacheProtocol;
use strata_service::{Clients, RuntimeSettings, ServerInfo};
use tokio_util::sync::CancellationToken;

fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(22123);
    let keyspace = Keyspace::new(
        KeyspaceConfig::default(),
        Arc::new(SystemClock) as Arc<dyn Clock>,
    );
    let settings = RuntimeSettings {
        bind: "127.0.0.1".parse().unwrap(),
        memcache_port: Some(port),
        resp_port: None,
        threads: 2,
        data_dir: ".".into(),
        max_connections: AtomicUsize::new(1024),
        requirepass: RwLock::new(None),
        verbosity: AtomicU32::new(0),
    };
    let info = Arc::new(ServerInfo::new(env!("CARGO_PKG_VERSION"), settings));
    let clients = Arc::new(Clients::default());
    let protocol = Arc::new(MemcacheProtocol::new(
        keyspace,
        info.clone(),
        clients.clone(),
    ));
    let config = protocol.driver_config();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        eprintln!("memcached protocol on 127.0.0.1:{port}");
        strata_service::serve(
            listener,
            protocol,
            clients,
            info,
            config,
            CancellationToken::new(),
        )
        .await;
    });
}
