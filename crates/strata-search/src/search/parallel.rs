//! Running one collector per shard over every segment of the searched
//! shards at once, on the node's search pool: the segments of all shards
//! are the units of work, so a search uses every core whatever the shard
//! count, and a shard's fruits are merged by its own collector (its
//! `DocAddress`es only mean something within that shard).
//!
//! The pool is one per process (Elasticsearch's `search` thread pool), as
//! many threads as the machine has cores. A search waits for its segments
//! on the calling thread; concurrent searches share the pool's threads.

use std::sync::{Arc, OnceLock};

use tantivy::collector::Collector;
use tantivy::query::{EnableScoring, Query, Weight};
use tantivy::{Executor, Searcher};

use crate::shard::merge_yield::SearchInFlight;

/// Stack of each search pool thread. Query trees are depth-limited
/// (`query::MAX_NESTED_DEPTH` levels of compound queries, each holding at
/// most `MAX_GROUP_DEPTH` levels of text-query groups), and tantivy's
/// scorers recurse once per level, so this is ample; it is stated rather
/// than left to the platform's default.
pub const SEARCH_THREAD_STACK_SIZE: usize = 8 << 20;

/// The node's search pool.
fn pool() -> &'static Executor {
    static POOL: OnceLock<Executor> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = crate::kernels::cpu::processors();
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(SEARCH_THREAD_STACK_SIZE)
            .thread_name(|n| format!("strata-search-{n}"))
            .build();
        match built {
            Ok(pool) => Executor::ThreadPool(Arc::new(pool)),
            Err(err) => {
                // Without threads a search still runs, on the caller's thread.
                tracing::warn!(%err, "no search thread pool: searching segments one by one");
                Executor::single_thread()
            }
        }
    })
}

/// Runs `f` over `items` cut into at most one chunk per pool thread, each
/// of at least `min_chunk` items, on the search pool; the results come
/// back in the order of the chunks. A single chunk runs on the caller.
pub(crate) fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> tantivy::Result<Vec<R>> {
    let threads = crate::kernels::cpu::processors();
    let chunk = items.len().div_ceil(threads).max(min_chunk).max(1);
    if items.len() <= chunk {
        return Ok(vec![f(items)]);
    }
    pool().map(|part: &[T]| Ok(f(part)), items.chunks(chunk))
}

/// One shard's part of a search: its searcher, the query (built for the
/// shard's index) and the collector that gathers this shard's fruit.
pub(crate) struct ShardSearch<'a, C> {
    /// The shard's point-in-time view.
    pub searcher: &'a Searcher,
    /// The query, as built for the shard's index.
    pub query: &'a dyn Query,
    /// The collector of this shard.
    pub collector: C,
}

/// Runs every shard's collector over its segments, all segments of all
/// shards in parallel, and returns each shard's merged fruit, in the
/// order of `shards`.
pub(crate) fn collect_shards<C: Collector>(
    shards: &[ShardSearch<'_, C>],
) -> tantivy::Result<Vec<C::Fruit>> {
    let mut weights: Vec<Box<dyn Weight>> = Vec::with_capacity(shards.len());
    let mut tasks = Vec::new();
    for (i, shard) in shards.iter().enumerate() {
        shard.collector.check_schema(shard.searcher.schema())?;
        let scoring = if shard.collector.requires_scoring() {
            EnableScoring::enabled_from_searcher(shard.searcher)
        } else {
            EnableScoring::disabled_from_searcher(shard.searcher)
        };
        weights.push(shard.query.weight(scoring)?);
        let segments = shard.searcher.segment_readers().len() as u32;
        tasks.extend((0..segments).map(|ord| (i, ord)));
    }
    // Merges pause while the segments are collected.
    let _in_flight = SearchInFlight::begin();
    let fruits = pool().map(
        |(i, ord): (usize, u32)| {
            let shard = &shards[i];
            let reader = shard.searcher.segment_reader(ord);
            let fruit = shard
                .collector
                .collect_segment(weights[i].as_ref(), ord, reader)?;
            Ok((i, fruit))
        },
        tasks.into_iter(),
    )?;
    // `map` keeps the order of its arguments: each shard's segments are
    // contiguous and in segment order.
    let mut per_shard: Vec<Vec<_>> = shards.iter().map(|_| Vec::new()).collect();
    for (i, fruit) in fruits {
        per_shard[i].push(fruit);
    }
    shards
        .iter()
        .zip(per_shard)
        .map(|(shard, fruits)| shard.collector.merge_fruits(fruits))
        .collect()
}

#[cfg(test)]
mod tests {
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::AllQuery;
    use tantivy::schema::{Schema, FAST, STORED};
    use tantivy::{doc, Index};

    use super::*;

    fn index_with_segments(segments: u64, per_segment: u64) -> Index {
        let mut b = Schema::builder();
        let n = b.add_u64_field("n", FAST | STORED);
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for s in 0..segments {
            for d in 0..per_segment {
                writer.add_document(doc!(n => s * per_segment + d)).unwrap();
            }
            writer.commit().unwrap();
        }
        index
    }

    #[test]
    fn chunks_come_back_in_order() {
        let items: Vec<u32> = (0..1_000).collect();
        for min_chunk in [1, 7, 64, 5_000] {
            let parts = map_chunks(&items, min_chunk, |c| c.to_vec()).unwrap();
            assert_eq!(parts.concat(), items);
            assert!(parts.iter().all(|p| p.len() >= min_chunk.min(items.len())));
        }
        assert_eq!(map_chunks(&[] as &[u32], 4, |c| c.len()).unwrap(), vec![0]);
    }

    #[test]
    fn every_segment_of_every_shard_is_collected_once() {
        let shards: Vec<Index> = vec![index_with_segments(3, 10), index_with_segments(2, 7)];
        let searchers: Vec<Searcher> = shards
            .iter()
            .map(|i| i.reader().unwrap().searcher())
            .collect();
        assert_eq!(searchers[0].segment_readers().len(), 3);
        let parts: Vec<_> = searchers
            .iter()
            .map(|s| ShardSearch {
                searcher: s,
                query: &AllQuery,
                collector: (Count, TopDocs::with_limit(100).order_by_score()),
            })
            .collect();
        let fruits = collect_shards(&parts).unwrap();
        assert_eq!(fruits[0].0, 30);
        assert_eq!(fruits[1].0, 14);
        assert_eq!(fruits[0].1.len(), 30);
        // Addresses are the shard's own: every one resolves in its searcher.
        for (searcher, (_, top)) in searchers.iter().zip(&fruits) {
            for (_, addr) in top {
                assert!(searcher.segment_reader(addr.segment_ord).max_doc() > addr.doc_id);
            }
        }
    }
}
