//! The nine TPC-C tables, their column positions and their keys.
//!
//! Money is in cents (`i64`) and rates in basis points (`i32`), so the
//! consistency conditions compare exact sums. Primary keys pack the key
//! columns into a `u64` ([`keys`]); the ordered indexes are the ones the
//! transactions scan: customers by last name, orders by customer, new
//! orders by district and order lines by order.

use strata_txn::{ColumnType, TableSchema, TxnError};

/// Districts per warehouse.
pub const DISTRICTS: u32 = 10;
/// Customers per district.
pub const CUSTOMERS: u32 = 3000;
/// Items.
pub const ITEMS: u32 = 100_000;
/// Orders per district at load.
pub const ORDERS: u32 = 3000;
/// The first undelivered order at load (orders 2101..=3000 are new).
pub const FIRST_NEW_ORDER: u32 = 2101;

const fn s(max_len: u16) -> ColumnType {
    ColumnType::Str { max_len }
}
const I32: ColumnType = ColumnType::I32;
const I64: ColumnType = ColumnType::I64;

macro_rules! columns {
    ($module:ident: $($name:ident),* $(,)?) => {
        #[allow(missing_docs, dead_code)]
        pub mod $module {
            columns!(@count 0usize; $($name),*);
        }
    };
    (@count $n:expr; $first:ident $(, $rest:ident)*) => {
        pub const $first: usize = $n;
        columns!(@count $n + 1usize; $($rest),*);
    };
    (@count $n:expr;) => {};
}

columns!(w: ID, NAME, STREET_1, STREET_2, CITY, STATE, ZIP, TAX, YTD);
columns!(d: ID, W_ID, NAME, STREET_1, STREET_2, CITY, STATE, ZIP, TAX, YTD, NEXT_O_ID);
columns!(c: ID, D_ID, W_ID, FIRST, MIDDLE, LAST, STREET_1, STREET_2, CITY, STATE, ZIP, PHONE, SINCE,
    CREDIT, CREDIT_LIM, DISCOUNT, BALANCE, YTD_PAYMENT, PAYMENT_CNT, DELIVERY_CNT, DATA);
columns!(h: C_ID, C_D_ID, C_W_ID, D_ID, W_ID, DATE, AMOUNT, DATA);
columns!(no: O_ID, D_ID, W_ID);
columns!(o: ID, D_ID, W_ID, C_ID, ENTRY_D, CARRIER_ID, OL_CNT, ALL_LOCAL);
columns!(ol: O_ID, D_ID, W_ID, NUMBER, I_ID, SUPPLY_W_ID, DELIVERY_D, QUANTITY, AMOUNT, DIST_INFO);
columns!(i: ID, IM_ID, NAME, PRICE, DATA);
columns!(st: I_ID, W_ID, QUANTITY, DIST_01, DIST_02, DIST_03, DIST_04, DIST_05, DIST_06, DIST_07,
    DIST_08, DIST_09, DIST_10, YTD, ORDER_CNT, REMOTE_CNT, DATA);

fn address(b: strata_txn::schema::TableBuilder, p: &str) -> strata_txn::schema::TableBuilder {
    b.column(&format!("{p}_street_1"), s(20))
        .column(&format!("{p}_street_2"), s(20))
        .column(&format!("{p}_city"), s(20))
        .column(&format!("{p}_state"), s(2))
        .column(&format!("{p}_zip"), s(9))
}

/// The nine tables, in [`Tables`] order.
pub fn tables() -> Result<Vec<TableSchema>, TxnError> {
    let warehouse = address(
        TableSchema::builder("warehouse")
            .column("w_id", I32)
            .column("w_name", s(10)),
        "w",
    )
    .column("w_tax", I32)
    .column("w_ytd", I64)
    .build()?;
    let district = address(
        TableSchema::builder("district")
            .column("d_id", I32)
            .column("d_w_id", I32)
            .column("d_name", s(10)),
        "d",
    )
    .column("d_tax", I32)
    .column("d_ytd", I64)
    .column("d_next_o_id", I32)
    .build()?;
    let customer = address(
        TableSchema::builder("customer")
            .column("c_id", I32)
            .column("c_d_id", I32)
            .column("c_w_id", I32)
            .column("c_first", s(16))
            .column("c_middle", s(2))
            .column("c_last", s(16)),
        "c",
    )
    .column("c_phone", s(16))
    .column("c_since", I64)
    .column("c_credit", s(2))
    .column("c_credit_lim", I64)
    .column("c_discount", I32)
    .column("c_balance", I64)
    .column("c_ytd_payment", I64)
    .column("c_payment_cnt", I32)
    .column("c_delivery_cnt", I32)
    .column("c_data", s(500))
    .index("by_name", &["c_w_id", "c_d_id", "c_last", "c_first"], 2)
    .build()?;
    let history = TableSchema::builder("history")
        .column("h_c_id", I32)
        .column("h_c_d_id", I32)
        .column("h_c_w_id", I32)
        .column("h_d_id", I32)
        .column("h_w_id", I32)
        .column("h_date", I64)
        .column("h_amount", I64)
        .column("h_data", s(24))
        .build()?;
    let new_order = TableSchema::builder("new_order")
        .column("no_o_id", I32)
        .column("no_d_id", I32)
        .column("no_w_id", I32)
        .index("by_district", &["no_w_id", "no_d_id", "no_o_id"], 2)
        .build()?;
    let order = TableSchema::builder("order")
        .column("o_id", I32)
        .column("o_d_id", I32)
        .column("o_w_id", I32)
        .column("o_c_id", I32)
        .column("o_entry_d", I64)
        .column("o_carrier_id", I32)
        .column("o_ol_cnt", I32)
        .column("o_all_local", I32)
        .index("by_customer", &["o_w_id", "o_d_id", "o_c_id", "o_id"], 3)
        .build()?;
    let order_line = TableSchema::builder("order_line")
        .column("ol_o_id", I32)
        .column("ol_d_id", I32)
        .column("ol_w_id", I32)
        .column("ol_number", I32)
        .column("ol_i_id", I32)
        .column("ol_supply_w_id", I32)
        .column("ol_delivery_d", I64)
        .column("ol_quantity", I32)
        .column("ol_amount", I64)
        .column("ol_dist_info", s(24))
        .index(
            "by_order",
            &["ol_w_id", "ol_d_id", "ol_o_id", "ol_number"],
            2,
        )
        .build()?;
    let item = TableSchema::builder("item")
        .column("i_id", I32)
        .column("i_im_id", I32)
        .column("i_name", s(24))
        .column("i_price", I64)
        .column("i_data", s(50))
        .build()?;
    let mut stock = TableSchema::builder("stock")
        .column("s_i_id", I32)
        .column("s_w_id", I32)
        .column("s_quantity", I32);
    for n in 1..=10 {
        stock = stock.column(&format!("s_dist_{n:02}"), s(24));
    }
    let stock = stock
        .column("s_ytd", I64)
        .column("s_order_cnt", I32)
        .column("s_remote_cnt", I32)
        .column("s_data", s(50))
        .build()?;
    Ok(vec![
        warehouse, district, customer, history, new_order, order, order_line, item, stock,
    ])
}

/// Table and index ids of an open database.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct Tables {
    pub warehouse: strata_txn::TableId,
    pub district: strata_txn::TableId,
    pub customer: strata_txn::TableId,
    pub history: strata_txn::TableId,
    pub new_order: strata_txn::TableId,
    pub order: strata_txn::TableId,
    pub order_line: strata_txn::TableId,
    pub item: strata_txn::TableId,
    pub stock: strata_txn::TableId,
    pub customer_by_name: strata_txn::IndexId,
    pub order_by_customer: strata_txn::IndexId,
    pub new_order_by_district: strata_txn::IndexId,
    pub order_line_by_order: strata_txn::IndexId,
}

impl Tables {
    /// Looks the ids up.
    pub fn of<C: strata_txn::ConcurrencyControl>(
        db: &strata_txn::Database<C>,
    ) -> Result<Tables, TxnError> {
        let customer = db.table("customer")?;
        let order = db.table("order")?;
        let new_order = db.table("new_order")?;
        let order_line = db.table("order_line")?;
        Ok(Tables {
            warehouse: db.table("warehouse")?,
            district: db.table("district")?,
            customer,
            history: db.table("history")?,
            new_order,
            order,
            order_line,
            item: db.table("item")?,
            stock: db.table("stock")?,
            customer_by_name: db.index(customer, "by_name")?,
            order_by_customer: db.index(order, "by_customer")?,
            new_order_by_district: db.index(new_order, "by_district")?,
            order_line_by_order: db.index(order_line, "by_order")?,
        })
    }
}

/// One reusable row of each table, for a loader or a transaction worker
/// (a row is allocated once and refilled for every read or insert).
#[allow(missing_docs)]
pub(crate) struct Rows {
    pub(crate) w: strata_txn::Row,
    pub(crate) d: strata_txn::Row,
    pub(crate) c: strata_txn::Row,
    pub(crate) h: strata_txn::Row,
    pub(crate) no: strata_txn::Row,
    pub(crate) o: strata_txn::Row,
    pub(crate) ol: strata_txn::Row,
    pub(crate) i: strata_txn::Row,
    pub(crate) st: strata_txn::Row,
}

impl Rows {
    /// A row of each of `db`'s tables `t`.
    pub(crate) fn new<C: strata_txn::ConcurrencyControl>(
        db: &strata_txn::Database<C>,
        t: &Tables,
    ) -> Result<Rows, TxnError> {
        Ok(Rows {
            w: db.new_row(t.warehouse)?,
            d: db.new_row(t.district)?,
            c: db.new_row(t.customer)?,
            h: db.new_row(t.history)?,
            no: db.new_row(t.new_order)?,
            o: db.new_row(t.order)?,
            ol: db.new_row(t.order_line)?,
            i: db.new_row(t.item)?,
            st: db.new_row(t.stock)?,
        })
    }
}

/// Primary keys.
pub mod keys {
    /// A district's number across warehouses.
    fn dist(w: u32, d: u32) -> u64 {
        u64::from(w) * 10 + u64::from(d)
    }
    /// WAREHOUSE.
    pub fn warehouse(w: u32) -> u64 {
        u64::from(w)
    }
    /// DISTRICT.
    pub fn district(w: u32, d: u32) -> u64 {
        dist(w, d)
    }
    /// CUSTOMER.
    pub fn customer(w: u32, d: u32, c: u32) -> u64 {
        dist(w, d) << 12 | u64::from(c)
    }
    /// ORDER and NEW_ORDER.
    pub fn order(w: u32, d: u32, o: u32) -> u64 {
        dist(w, d) << 32 | u64::from(o)
    }
    /// ORDER_LINE.
    pub fn order_line(w: u32, d: u32, o: u32, number: u32) -> u64 {
        order(w, d, o) << 4 | u64::from(number)
    }
    /// ITEM.
    pub fn item(i: u32) -> u64 {
        u64::from(i)
    }
    /// STOCK.
    pub fn stock(w: u32, i: u32) -> u64 {
        u64::from(w) << 17 | u64::from(i)
    }
    /// HISTORY: rows have no natural key; each writer numbers its own.
    pub fn history(origin: u32, n: u64) -> u64 {
        u64::from(origin) << 40 | n
    }
}
