//! `strata bench eventdata`: Rally's eventdata track reproduced.
pub mod args;
pub mod generator;
pub mod http;
pub mod mapping;
pub mod queries;
pub mod replies;
mod tables;
pub mod timestamp;
mod weighted;

pub use args::EventdataArgs;
