//! `strata bench eventdata`: Rally's eventdata track reproduced.
pub mod generator;
mod tables;
pub mod timestamp;
mod weighted;
