//! Transaction mixes and their inputs.
//!
//! - [`Mix::Full`]: TPC-C's five transactions, 45% NewOrder, 43%
//!   Payment, 4% each OrderStatus, Delivery and StockLevel (clause 5.2.3);
//!   NewOrder with 5-15 lines, 1% of lines from a remote warehouse and 1%
//!   of transactions rolled back (an unused item id); Payment with 60% of
//!   customers by last name and 15% from a remote warehouse; inserts and
//!   deletes as specified.
//! - [`Mix::Dbx1000`]: what DBx1000's master branch runs by default:
//!   NewOrder and Payment 50/50 with its generator's parameters (the same
//!   NURand draws, 1% remote lines, duplicate items removed, no rollback,
//!   15% remote and 60% by-name payments, amounts in whole dollars) and
//!   without the inserts it comments out (no ORDER, NEW_ORDER,
//!   ORDER_LINE or HISTORY rows) or the `c_data` update.
//!
//! In both, a worker's home warehouse is `worker % warehouses + 1`, as
//! DBx1000's `FIRST_PART_LOCAL`.

use crate::random::TpccRng;
use crate::schema::{DISTRICTS, ITEMS};

/// Which transactions run, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mix {
    /// The standard mix of all five transactions.
    Full,
    /// DBx1000's default: NewOrder and Payment 50/50, no inserts.
    Dbx1000,
}

impl Mix {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mix::Full => "full",
            Mix::Dbx1000 => "dbx1000",
        }
    }
}

/// The five transaction types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxnType {
    /// NewOrder.
    NewOrder,
    /// Payment.
    Payment,
    /// OrderStatus.
    OrderStatus,
    /// Delivery.
    Delivery,
    /// StockLevel.
    StockLevel,
}

impl TxnType {
    /// Every type in report order.
    pub const ALL: [TxnType; 5] = [
        TxnType::NewOrder,
        TxnType::Payment,
        TxnType::OrderStatus,
        TxnType::Delivery,
        TxnType::StockLevel,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            TxnType::NewOrder => "new_order",
            TxnType::Payment => "payment",
            TxnType::OrderStatus => "order_status",
            TxnType::Delivery => "delivery",
            TxnType::StockLevel => "stock_level",
        }
    }
}

/// A customer, by id or by last name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerBy {
    /// `c_id`.
    Id(u32),
    /// `c_last`.
    Name(String),
}

/// A NewOrder's input.
#[derive(Debug, Clone)]
pub struct NewOrderInput {
    /// Warehouse, district, customer.
    pub w: u32,
    /// District.
    pub d: u32,
    /// Customer.
    pub c: u32,
    /// (item, supplying warehouse, quantity) per line.
    pub lines: Vec<(u32, u32, u32)>,
    /// The last item is unused: the transaction rolls back.
    pub rollback: bool,
}

/// A Payment's input.
#[derive(Debug, Clone)]
pub struct PaymentInput {
    /// Warehouse.
    pub w: u32,
    /// District.
    pub d: u32,
    /// The customer's warehouse.
    pub c_w: u32,
    /// The customer's district.
    pub c_d: u32,
    /// The customer.
    pub customer: CustomerBy,
    /// Cents.
    pub amount: i64,
}

/// One transaction's input.
#[derive(Debug, Clone)]
pub enum Input {
    /// NewOrder.
    NewOrder(NewOrderInput),
    /// Payment.
    Payment(PaymentInput),
    /// OrderStatus: warehouse, district, customer.
    OrderStatus(u32, u32, CustomerBy),
    /// Delivery: warehouse, carrier.
    Delivery(u32, u32),
    /// StockLevel: warehouse, district, threshold.
    StockLevel(u32, u32, u32),
}

impl Input {
    /// Its type.
    pub fn kind(&self) -> TxnType {
        match self {
            Input::NewOrder(_) => TxnType::NewOrder,
            Input::Payment(_) => TxnType::Payment,
            Input::OrderStatus(..) => TxnType::OrderStatus,
            Input::Delivery(..) => TxnType::Delivery,
            Input::StockLevel(..) => TxnType::StockLevel,
        }
    }
}

/// Draws the next input for a worker whose home warehouse is `w`.
pub fn next_input(mix: Mix, rng: &mut TpccRng, w: u32, warehouses: u32) -> Input {
    let roll = rng.uniform(1, 100);
    match mix {
        Mix::Dbx1000 if roll <= 50 => Input::Payment(payment(rng, w, warehouses, true)),
        Mix::Dbx1000 => Input::NewOrder(new_order(rng, w, warehouses, true)),
        Mix::Full => match roll {
            1..=45 => Input::NewOrder(new_order(rng, w, warehouses, false)),
            46..=88 => Input::Payment(payment(rng, w, warehouses, false)),
            89..=92 => Input::OrderStatus(w, rng.uniform(1, DISTRICTS), customer(rng)),
            93..=96 => Input::Delivery(w, rng.uniform(1, 10)),
            _ => Input::StockLevel(w, rng.uniform(1, DISTRICTS), rng.uniform(10, 20)),
        },
    }
}

fn other_warehouse(rng: &mut TpccRng, w: u32, warehouses: u32) -> u32 {
    loop {
        let x = rng.uniform(1, warehouses);
        if x != w {
            return x;
        }
    }
}

fn customer(rng: &mut TpccRng) -> CustomerBy {
    if rng.uniform(1, 100) <= 60 {
        CustomerBy::Name(rng.last_name_run())
    } else {
        CustomerBy::Id(rng.customer_id())
    }
}

fn new_order(rng: &mut TpccRng, w: u32, warehouses: u32, dbx: bool) -> NewOrderInput {
    let d = rng.uniform(1, DISTRICTS);
    let c = rng.customer_id();
    let rollback = !dbx && rng.uniform(1, 100) == 1;
    let count = rng.uniform(5, 15);
    let mut lines: Vec<(u32, u32, u32)> = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let item = rng.item_id();
        let supply = if rng.uniform(1, 100) > 1 || warehouses == 1 {
            w
        } else {
            other_warehouse(rng, w, warehouses)
        };
        let quantity = rng.uniform(1, 10);
        if dbx && lines.iter().any(|l| l.0 == item) {
            continue;
        }
        lines.push((item, supply, quantity));
    }
    if rollback {
        if let Some(last) = lines.last_mut() {
            last.0 = ITEMS + 1;
        }
    }
    NewOrderInput {
        w,
        d,
        c,
        lines,
        rollback,
    }
}

fn payment(rng: &mut TpccRng, w: u32, warehouses: u32, dbx: bool) -> PaymentInput {
    let d = rng.uniform(1, DISTRICTS);
    let amount = if dbx {
        i64::from(rng.uniform(1, 5000)) * 100
    } else {
        i64::from(rng.uniform(100, 500_000))
    };
    let (c_w, c_d) = if rng.uniform(1, 100) <= 85 || warehouses == 1 {
        (w, d)
    } else {
        (
            other_warehouse(rng, w, warehouses),
            rng.uniform(1, DISTRICTS),
        )
    };
    PaymentInput {
        w,
        d,
        c_w,
        c_d,
        customer: customer(rng),
        amount,
    }
}
