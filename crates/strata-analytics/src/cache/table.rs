//! A [`CachedDataset`] as a DataFusion table: each query scans it whole,
//! in as many partitions as the session runs, so SQL over a cached input
//! reads its SSD part sequentially like any other scan of it.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::common::Result;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use futures::StreamExt;

use super::dataset::CachedDataset;

/// One partition of the table.
struct CachedPartition {
    dataset: Arc<CachedDataset>,
    part: usize,
    parts: usize,
}

impl fmt::Debug for CachedPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CachedPartition({}/{})", self.part, self.parts)
    }
}

impl PartitionStream for CachedPartition {
    fn schema(&self) -> &SchemaRef {
        self.dataset.schema()
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let stream = self
            .dataset
            .scan_partition(self.part, self.parts)
            .map(|item| item.map(|(_, batch)| batch));
        Box::pin(RecordBatchStreamAdapter::new(
            self.dataset.schema().clone(),
            stream,
        ))
    }
}

/// `dataset` as a table of `parts` partitions, to register in a session.
pub fn cached_table(dataset: Arc<CachedDataset>, parts: usize) -> Result<StreamingTable> {
    let parts = parts.max(1);
    let partitions = (0..parts)
        .map(|part| {
            Arc::new(CachedPartition {
                dataset: dataset.clone(),
                part,
                parts,
            }) as Arc<dyn PartitionStream>
        })
        .collect();
    StreamingTable::try_new(dataset.schema().clone(), partitions)
}
