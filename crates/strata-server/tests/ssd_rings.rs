//! The SSD tier with `ssd_io_engine = uring` end to end: with a record
//! cache far smaller than the data, reads from many connections at once
//! miss, go through the serving threads' own rings (INFO's
//! `tier_ssd_thread_ring_reads`), and every value comes back whole.

use crate::common;

use std::time::Duration;

use common::{info_numbers, resp_command, round_trip, test_config};
use strata_server::config::{DataPlacement, SsdIo, SsdIoEngine};
use strata_server::{ByteSize, Server};
use tokio::net::TcpStream;

/// Key `i`'s value: 700 bytes that differ from every other key's.
fn value(i: usize) -> String {
    format!("{i:08}-").repeat(78)[..700].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn misses_read_through_the_serving_threads_rings_come_back_whole() {
    const KEYS: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| {
        c.data = DataPlacement::Ssd;
        c.ssd_path = Some(dir.path().join("ssd-device"));
        c.ssd_size = ByteSize::new(64 << 20).unwrap();
        c.ssd_io = SsdIo::Buffered;
        c.ssd_io_engine = SsdIoEngine::Uring;
        c.dram_cache_size = ByteSize::new(64 << 10);
    });
    let server = Server::start(&config).await.unwrap();
    let addr = server.resp_addr().unwrap();
    let mut resp = TcpStream::connect(addr).await.unwrap();
    for i in 0..KEYS {
        let set = resp_command(&["SET", &format!("k{i}"), &value(i)]);
        round_trip(&mut resp, &set, b"+OK\r\n").await;
    }
    // Eight connections read every key, each in its own order.
    let readers: Vec<_> = (0..8usize)
        .map(|r| {
            tokio::spawn(async move {
                let mut conn = TcpStream::connect(addr).await.unwrap();
                for n in 0..KEYS {
                    let i = (n * 7 + r * 379) % KEYS;
                    let v = value(i);
                    let want = format!("${}\r\n{v}\r\n", v.len());
                    let get = resp_command(&["GET", &format!("k{i}")]);
                    round_trip(&mut conn, &get, want.as_bytes()).await;
                }
            })
        })
        .collect();
    for reader in readers {
        reader.await.unwrap();
    }
    let tiers = info_numbers(&mut resp, "tiers").await;
    assert!(tiers["tier_ssd_device_reads"] > 1000, "{tiers:?}");
    // The keyspace is the device's one user.
    assert_eq!(
        tiers["tier_ssd_user_kv_bytes_live"],
        tiers["tier_ssd_bytes_live"]
    );
    assert!(tiers["tier_ssd_user_kv_blocks"] > 0, "{tiers:?}");
    if strata_device::uring_available().is_ok() {
        assert!(tiers["tier_ssd_thread_ring_reads"] > 1000, "{tiers:?}");
    }
    server.shutdown(Duration::from_secs(5)).await;
}
