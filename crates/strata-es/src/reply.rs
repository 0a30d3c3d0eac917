//! [`Reply`]: what a handler answers: a status, a payload, and the
//! translog positions that must be durable before the reply may be sent
//! (`request` durability). The server awaits those on the async side.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use strata_search::SearchIndex;

/// A wait for a translog position to be durable; `Err` names the failure.
pub type DurableWait = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A reply body.
#[derive(Debug)]
pub enum Payload {
    /// A JSON document (`filter_path` and `pretty` apply).
    Json(Value),
    /// A JSON document already serialized, for replies too large and
    /// frequent to build as a [`Value`] (bulk); `filter_path` and `pretty`
    /// still apply (the body is parsed again for them).
    Serialized(Vec<u8>),
    /// Plain text (the `_cat` tables).
    Text(String),
    /// JSON sent in chunks while a producer writes it (`_msearch`);
    /// `filter_path` and `pretty` do not apply (the handler builds a
    /// [`Payload::Serialized`] body when they are asked for).
    Chunked(crate::chunked::ChunkedBody),
    /// No body (`HEAD`).
    Empty,
}

/// A handler's answer.
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// The body.
    pub payload: Payload,
    /// Waits that must all succeed before the reply is sent.
    pub durable: Vec<DurableWait>,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("status", &self.status)
            .field("payload", &self.payload)
            .field("durable", &self.durable.len())
            .finish()
    }
}

impl Reply {
    /// 200 with a JSON body.
    pub fn ok(body: Value) -> Reply {
        Reply::json(200, body)
    }

    /// A JSON body with `status`.
    pub fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            payload: Payload::Json(body),
            durable: Vec::new(),
        }
    }

    /// 200 with `body` serialized as JSON now.
    pub fn serialized(body: &impl serde::Serialize) -> Result<Reply, serde_json::Error> {
        Ok(Reply {
            status: 200,
            payload: Payload::Serialized(serde_json::to_vec(body)?),
            durable: Vec::new(),
        })
    }

    /// 200 with a text body.
    pub fn text(body: String) -> Reply {
        Reply {
            status: 200,
            payload: Payload::Text(body),
            durable: Vec::new(),
        }
    }

    /// No body (`HEAD` answers).
    pub fn empty(status: u16) -> Reply {
        Reply {
            status,
            payload: Payload::Empty,
            durable: Vec::new(),
        }
    }

    /// Adds a wait for translog record `lsn` of `index` (nothing for 0,
    /// nothing under `async` durability).
    pub fn after_durable(mut self, index: &SearchIndex, lsn: u64) -> Reply {
        if lsn > 0 {
            let wait = index.durable(lsn);
            self.durable.push(Box::pin(
                async move { wait.await.map_err(|e| e.to_string()) },
            ));
        }
        self
    }
}
