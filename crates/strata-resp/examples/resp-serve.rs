//! Serves the RESP front end alone, for trying it with `redis-cli`,
//! `redis-benchmark` or a differential check against a real Redis:
//!
//! `cargo run -p strata-resp --example resp-serve -- [port] [requirepass]`

use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;

use parking_lot::RwLock;
use strata_kv::{Keyspace, KeyspaceConfig, SystemClock};
use strata_resp::RespProtocol;
use strata_service::{serve, Clients, RuntimeSettings, ServerInfo};
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().and_then(|p| p.parse().ok()).unwrap_or(6390);
    let requirepass = args.next();
    let keyspace = Keyspace::new(KeyspaceConfig::default(), Arc::new(SystemClock));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let settings = RuntimeSettings {
        bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
        memcache_port: None,
        resp_port: Some(port),
        threads: 2,
        data_dir: String::new(),
        max_connections: AtomicUsize::new(10_000),
        requirepass: RwLock::new(requirepass),
        verbosity: AtomicU32::new(0),
    };
    let info = Arc::new(ServerInfo::new(env!("CARGO_PKG_VERSION"), settings));
    let clients = Arc::new(Clients::default());
    let protocol = Arc::new(RespProtocol::new(keyspace, info.clone(), clients.clone()));
    let config = protocol.driver_config();
    eprintln!("serving RESP on 127.0.0.1:{port}");
    serve(
        listener,
        protocol,
        clients,
        info,
        config,
        CancellationToken::new(),
    )
    .await;
    Ok(())
}
