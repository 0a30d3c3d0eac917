//! What the crash tests of an index share: a model of the acknowledged
//! documents, batches of writes and deletes each acknowledged once
//! durable, and the check that a reopened catalog holds exactly the model
//! in the index `docs`.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition, SearchIndex};

/// The acknowledged documents by id.
pub type Model = BTreeMap<String, Value>;

/// `count` changes of `round` over the ids `d0`..`d{ids - 1}` (every sixth
/// a delete), each acknowledged once durable; not refreshed.
pub fn write(index: &SearchIndex, model: &mut Model, round: u64, count: u64, ids: u64) {
    write_sized(index, model, round, count, ids, 0);
}

/// [`write`] with `words` more words in each document's text, words that
/// neither compress nor repeat much (to make a flush's files larger).
pub fn write_sized(
    index: &SearchIndex,
    model: &mut Model,
    round: u64,
    count: u64,
    ids: u64,
    words: u64,
) {
    for i in 0..count {
        let id = format!("d{}", (i * 7 + round * 5) % ids);
        if i % 6 == 5 {
            let r = index.delete_document(&id, Precondition::None).unwrap();
            index.wait_durable(r.lsn).unwrap();
            model.remove(&id);
        } else {
            let filler: String = (0..words)
                .map(|j| {
                    format!(
                        " w{:x}",
                        (round * 1_000_000 + i * 1000 + j).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                            >> 40
                    )
                })
                .collect();
            let doc =
                json!({"round": round, "i": i, "text": format!("word{i} round{round}{filler}")});
            let r = index
                .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
                .unwrap();
            index.wait_durable(r.lsn).unwrap();
            model.insert(id, doc);
        }
    }
}

/// Every acknowledged document of `model` is in `docs` with its source,
/// no other of the `ids` is, and a refresh counts exactly them.
pub fn check(catalog: &Catalog, model: &Model, ids: u64, what: &str) {
    let index = catalog.get("docs").unwrap();
    for n in 0..ids {
        let id = format!("d{n}");
        let got = index.get_document(&id).unwrap();
        match model.get(&id) {
            Some(doc) => {
                let got = got.unwrap_or_else(|| panic!("{what}: acknowledged {id} lost"));
                let got: Value = serde_json::from_slice(&got.source).unwrap();
                assert_eq!(&got, doc, "{what}: {id}");
            }
            None => assert!(got.is_none(), "{what}: deleted {id} came back"),
        }
    }
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), model.len() as u64, "{what}");
}
