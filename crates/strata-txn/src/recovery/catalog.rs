//! The catalog: the table definitions a log root was written with, kept
//! beside the checkpoints so that a database opened with other tables is
//! refused instead of misreading rows.

use strata_device::Directory;

use crate::error::TxnError;
use crate::schema::TableSchema;

const NAME: &str = "catalog";
const HEADER: &str = "strata-txn catalog v1\n";

/// Checks the catalog in `dir` against `tables`, or writes it (durably)
/// if there is none.
pub(crate) fn check_or_write(
    dir: &dyn Directory,
    tables: &[&TableSchema],
    place: &str,
) -> Result<(), TxnError> {
    let mut expected = String::from(HEADER);
    for t in tables {
        expected.push_str(&t.fingerprint());
        expected.push('\n');
    }
    let io = |e: std::io::Error| TxnError::storage(format!("catalog at {place}: {e}"));
    match dir.open(NAME) {
        Ok(dev) => {
            let len = dev.len().map_err(io)? as usize;
            let mut found = vec![0; len];
            dev.read_exact_at(&mut found, 0).map_err(io)?;
            if found != expected.as_bytes() {
                return Err(TxnError::storage(format!(
                    "the log at {place} was written with other tables:\n{}\nthis database has:\n{expected}",
                    String::from_utf8_lossy(&found)
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let tmp = format!("{NAME}.tmp");
            let dev = dir.create(&tmp).map_err(io)?;
            dev.write_all_at(expected.as_bytes(), 0).map_err(io)?;
            dev.sync().map_err(io)?;
            dir.rename(&tmp, NAME).map_err(io)?;
            dir.sync_names().map_err(io)
        }
        Err(e) => Err(io(e)),
    }
}
