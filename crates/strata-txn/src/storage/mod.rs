//! Where rows live: [`Table`]s of records with a primary hash index and
//! ordered indexes, and the collector that frees deleted records.
//!
//! - `record`: [`RecPtr`], the record allocation (the crate's unsafe code).
//! - `table`: [`Table`]: the primary index (`scc::HashIndex`, lock-free
//!   reads) from key to record, and the ordered indexes.
//! - `ordered`: [`OrderedIndex`] on `crossbeam-skiplist`, with the
//!   partition words that protect scans against phantoms.
//! - `hasher`: the key mixer both indexes hash with.
//! - `garbage`: deletion candidates and retired records, freed after an
//!   epoch-based grace period.

pub(crate) mod garbage;
pub(crate) mod hasher;
pub(crate) mod ordered;
#[allow(unsafe_code)]
pub(crate) mod record;
pub(crate) mod table;

pub(crate) use ordered::OrderedIndex;
pub(crate) use record::RecPtr;
pub(crate) use table::Table;
