//! strata-lab's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-lab --test integration <file>::`.

#[path = "fake_es/mod.rs"]
mod fake_es;
#[path = "support/mod.rs"]
mod support;

#[path = "advise.rs"]
mod advise;
#[path = "binary_commit.rs"]
mod binary_commit;
#[path = "eventdata.rs"]
mod eventdata;
#[path = "fake_server.rs"]
mod fake_server;
#[path = "publish.rs"]
mod publish;
