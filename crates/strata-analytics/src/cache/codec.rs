//! [`BatchCodec`]: how a cached segment is laid out on the SSD: an Arrow
//! IPC stream of one batch, its buffers optionally compressed
//! ([`CacheCompression`]), after [`PAYLOAD_ALIGN_PAD`] zero bytes. Decoding
//! reads the arrays in place from the bytes read back (no copy beyond
//! decompression): the SSD tier hands a large read out in the buffer it was
//! read into, and the pad puts the stream, whose buffers are 64-byte aligned
//! within it, on an 8-byte boundary there, so that Arrow need not copy a
//! `Float64` buffer to align it.

use bytes::Bytes;
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::ipc::reader::StreamDecoder;
use datafusion::arrow::ipc::writer::{IpcWriteOptions, StreamWriter};
use datafusion::arrow::ipc::{CompressionType, MetadataVersion};
use datafusion::arrow::record_batch::RecordBatch;
use serde::Serialize;
use strata_ssd::PAYLOAD_ALIGN_PAD;

/// Compression of cached segments written to the SSD. A choice, measured
/// both ways (`docs/benchmarks.md`, analytics): compression trades
/// decompression CPU on every scan for fewer bytes read, and on the
/// generator's points (random doubles) LZ4 saved 12% of the bytes and
/// made logistic regression 1.5-2.7x slower, hence `none` by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CacheCompression {
    /// Arrow buffers as they are.
    #[default]
    None,
    /// LZ4 frames: fast, modest ratio.
    Lz4,
    /// Zstandard: slower, better ratio.
    Zstd,
}

impl CacheCompression {
    /// The IPC compression, if any.
    fn ipc(self) -> Option<CompressionType> {
        match self {
            CacheCompression::None => None,
            CacheCompression::Lz4 => Some(CompressionType::LZ4_FRAME),
            CacheCompression::Zstd => Some(CompressionType::ZSTD),
        }
    }
}

/// Encodes and decodes cached segments.
#[derive(Debug, Clone)]
pub struct BatchCodec {
    options: IpcWriteOptions,
}

impl BatchCodec {
    /// A codec with `compression`.
    pub fn new(compression: CacheCompression) -> Result<BatchCodec, ArrowError> {
        let options = IpcWriteOptions::try_new(64, false, MetadataVersion::V5)?
            .try_with_compression(compression.ipc())?;
        Ok(BatchCodec { options })
    }

    /// `batch` as one IPC stream.
    pub fn encode(&self, batch: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
        let mut out = Vec::with_capacity(batch.get_array_memory_size() + 1024);
        out.resize(PAYLOAD_ALIGN_PAD, 0);
        let mut writer =
            StreamWriter::try_new_with_options(&mut out, &batch.schema(), self.options.clone())?;
        writer.write(batch)?;
        writer.finish()?;
        drop(writer);
        Ok(out)
    }

    /// The batch of an [`encode`](Self::encode)d stream.
    pub fn decode(&self, bytes: Bytes) -> Result<RecordBatch, ArrowError> {
        if bytes.len() < PAYLOAD_ALIGN_PAD {
            return Err(ArrowError::IpcError("a cached segment is truncated".into()));
        }
        let mut buffer = Buffer::from(bytes.slice(PAYLOAD_ALIGN_PAD..));
        let mut decoder = StreamDecoder::new();
        let mut batch = None;
        while !buffer.is_empty() {
            if let Some(decoded) = decoder.decode(&mut buffer)? {
                if batch.replace(decoded).is_some() {
                    return Err(ArrowError::IpcError(
                        "a cached segment holds more than one batch".into(),
                    ));
                }
            }
        }
        decoder.finish()?;
        batch.ok_or_else(|| ArrowError::IpcError("a cached segment holds no batch".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Float64Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn segments_round_trip_with_every_compression() {
        let batch = RecordBatch::try_from_iter([
            (
                "x",
                Arc::new(Float64Array::from_iter_values(
                    (0..5000).map(|i| f64::from(i) * 0.5),
                )) as _,
            ),
            (
                "s",
                Arc::new(StringArray::from_iter_values(
                    (0..5000).map(|i| format!("w{}", i % 7)),
                )) as _,
            ),
        ])
        .unwrap();
        let mut sizes = Vec::new();
        for compression in [
            CacheCompression::None,
            CacheCompression::Lz4,
            CacheCompression::Zstd,
        ] {
            let codec = BatchCodec::new(compression).unwrap();
            let bytes = codec.encode(&batch).unwrap();
            sizes.push(bytes.len());
            assert_eq!(codec.decode(Bytes::from(bytes)).unwrap(), batch);
        }
        assert!(sizes[1] < sizes[0] && sizes[2] < sizes[0], "{sizes:?}");
        let codec = BatchCodec::new(CacheCompression::None).unwrap();
        assert!(codec.decode(Bytes::from_static(b"not arrow")).is_err());
    }
}
