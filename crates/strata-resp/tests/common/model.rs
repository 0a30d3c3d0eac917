//! Helpers shared by the model tests (`*_model.rs`): reply accessors that
//! fail loudly on the wrong reply type, and a journal that records the
//! size of every record so a test can check that a change to a large
//! collection logs a record that does not grow with it.

use std::sync::Mutex;

use strata_kv::journal::{Journal, Refusal};

use super::Value;

/// The integer of an integer reply.
pub fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The text of a bulk reply; `None` for nil or any other reply.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::Bulk(b) => Some(String::from_utf8(b.clone()).unwrap()),
        _ => None,
    }
}

/// The texts of an array of bulk replies.
pub fn strings(v: &Value) -> Vec<String> {
    v.array().iter().map(|e| text(e).unwrap()).collect()
}

/// A journal that keeps the size of every record.
#[derive(Default)]
pub struct Sizes(pub Mutex<Vec<usize>>);

impl Journal for Sizes {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        let mut sizes = self.0.lock().unwrap();
        sizes.push(body.len());
        Ok(sizes.len() as u64)
    }
}

/// A journal that keeps every record body, to replay into another keyspace
/// (a restart from the command log).
#[derive(Default)]
pub struct Records(pub Mutex<Vec<Vec<u8>>>);

impl Journal for Records {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        let mut records = self.0.lock().unwrap();
        records.push(body.to_vec());
        Ok(records.len() as u64)
    }
}

impl Records {
    /// Applies every record kept so far to `keyspace` (fresh, no journal),
    /// in order, as recovery does.
    pub fn replay_into(&self, keyspace: &strata_kv::Keyspace) {
        for body in self.0.lock().unwrap().iter() {
            let changes = strata_kv::journal::decode(body);
            let restored = keyspace.apply_changes(changes).expect("a record decodes");
            assert_eq!(restored.refused, 0);
        }
    }
}
