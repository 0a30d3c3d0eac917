//! A device whose engine keeps its index elsewhere (`IndexHome::Persistent`):
//! formatted as such and refused the other way, started with `adopt`
//! (only blocks written since the last sync are read; an entry past its
//! block's durable end is refused as not live).

use crate::common;

use std::sync::Arc;

use common::{config, mem_device, payload, PUT};
use strata_ssd::{IndexHome, SsdConfig, SsdError, SsdStore};

fn persistent() -> SsdConfig {
    SsdConfig {
        index_home: IndexHome::Persistent,
        ..config()
    }
}

#[test]
fn the_index_home_is_fixed_at_format_and_each_start_fits_it() {
    let device = mem_device(40);
    let mut recovery = SsdStore::open(Arc::new(device.clone()), persistent()).unwrap();
    let scanned = recovery.scan(|_, _, _| {});
    assert!(matches!(scanned, Err(SsdError::Misuse(_))), "{scanned:?}");
    recovery.adopt().unwrap();
    recovery.finish().unwrap();
    let Err(err) = SsdStore::open(Arc::new(device.clone()), config()) else {
        panic!("a persistent-index device opened for a rebuild");
    };
    assert!(err.to_string().contains("persistent index"), "{err}");
    let blank = mem_device(40);
    let mut recovery = SsdStore::open(Arc::new(blank), config()).unwrap();
    assert!(matches!(recovery.adopt(), Err(SsdError::Misuse(_))));
}

#[test]
fn adopting_keeps_what_was_synced_and_refuses_what_was_not() {
    let device = mem_device(40);
    let mut recovery = SsdStore::open(Arc::new(device.clone()), persistent()).unwrap();
    recovery.adopt().unwrap();
    let id = recovery.device_id();
    let store = recovery.finish().unwrap();
    let old = payload(1, 1, 5_000);
    let synced: Vec<_> = (0..40).map(|_| store.append(PUT, &old).unwrap()).collect();
    store.flush().unwrap();
    // The second sync makes the first's frontier durable in the headers.
    store.flush().unwrap();
    let new = payload(2, 1, 300);
    let unsynced = store.append(PUT, &new).unwrap();
    drop(store);

    let image = device.crash();
    let mut recovery = SsdStore::open(Arc::new(image), persistent()).unwrap();
    assert_eq!(recovery.device_id(), id);
    recovery.adopt().unwrap();
    // The synced blocks were not read: only the open one was.
    assert!(recovery.stats().entries < 40, "{:?}", recovery.stats());
    for &loc in &synced {
        recovery.set_live(loc, old.len()).unwrap();
    }
    let lost = recovery.set_live(unsynced, new.len());
    assert!(matches!(lost, Err(SsdError::NotLive { .. })), "{lost:?}");
    let store = recovery.finish().unwrap();
    assert_eq!(store.read(synced[7]).unwrap(), old);
}
