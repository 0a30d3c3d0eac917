//! The five transactions, one file each, and what they share (`shared.rs`): the row
//! buffers ([`Buffers`]) and customer lookup by id or last name.
//!
//! Each transaction is a function of an open [`Transaction`] and its
//! input, so the worker's retry loop can run it again unchanged after a
//! conflict (as DBx1000 restarts the same query).

pub mod delivery;
pub mod new_order;
pub mod order_status;
pub mod payment;
mod shared;
pub mod stock_level;

pub(crate) use shared::{find_customer, missing};
pub use shared::{Buffers, Output};

use strata_txn::{ConcurrencyControl, Transaction, TxnError};

use crate::mix::{Input, Mix};
use crate::schema::Tables;

/// Runs `input` in `txn`.
pub fn execute<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    mix: Mix,
    input: &Input,
) -> Result<Output, TxnError> {
    match input {
        Input::NewOrder(i) => new_order::run(txn, t, b, mix, i),
        Input::Payment(i) => payment::run(txn, t, b, mix, i),
        Input::OrderStatus(w, d, c) => {
            order_status::run(txn, t, b, *w, *d, c).map(|()| Output::None)
        }
        Input::Delivery(w, carrier) => {
            delivery::run(txn, t, b, *w, *carrier).map(|()| Output::None)
        }
        Input::StockLevel(w, d, threshold) => {
            stock_level::run(txn, t, b, *w, *d, *threshold).map(|()| Output::None)
        }
    }
}
