//! One segment's share of a gradient step of logistic regression, in
//! columns: `z = X w` accumulated column by column, then per row the
//! logistic loss `ln(1 + e^(-y z))` and the coefficient
//! `(sigmoid(y z) - 1) y`, then the gradient `X^T coefficient`. Labels
//! are +1 (the label column above 0) or -1, as in Spark's `SparkLR`.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::arrow::record_batch::RecordBatch;

/// Sums over one segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// Sum of the rows' gradients (one entry per feature).
    pub gradient: Vec<f64>,
    /// Sum of the rows' losses.
    pub loss: f64,
    /// Rows.
    pub rows: u64,
}

impl Partial {
    /// Zeros for `features` features.
    pub fn zero(features: usize) -> Partial {
        Partial {
            gradient: vec![0.0; features],
            loss: 0.0,
            rows: 0,
        }
    }

    /// Adds `other` in.
    pub fn add(&mut self, other: &Partial) {
        for (a, b) in self.gradient.iter_mut().zip(&other.gradient) {
            *a += b;
        }
        self.loss += other.loss;
        self.rows += other.rows;
    }
}

/// `ln(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The partial sums of `batch` (column 0 the label, then the features,
/// all `Float64`) at weights `w`. An error names a column with a null.
pub fn partial(batch: &RecordBatch, w: &[f64]) -> Result<Partial, String> {
    let columns = batch.columns();
    debug_assert_eq!(columns.len(), w.len() + 1);
    let schema = batch.schema();
    for (i, column) in columns.iter().enumerate() {
        if column.null_count() > 0 {
            return Err(format!(
                "column `{}` holds a null value",
                schema.field(i).name()
            ));
        }
    }
    let labels = columns[0].as_primitive::<Float64Type>().values();
    let features: Vec<&[f64]> = columns[1..]
        .iter()
        .map(|c| &**c.as_primitive::<Float64Type>().values())
        .collect();
    let rows = batch.num_rows();
    SCRATCH.with_borrow_mut(|z| {
        z.clear();
        z.resize(rows, 0.0);
        Ok(sums(z, labels, &features, w))
    })
}

thread_local! {
    /// Per-row scratch of [`partial`], kept per thread: a fresh vector of a
    /// segment's rows (about 100 KiB) per call was a large allocation, so
    /// each call faulted in new pages and the allocator gave them back
    /// with `madvise`, about 10% of a scan's CPU.
    static SCRATCH: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The sums of [`partial`], with `z` zeroed, one entry per row.
fn sums(z: &mut [f64], labels: &[f64], features: &[&[f64]], w: &[f64]) -> Partial {
    let rows = z.len();
    for (x, wj) in features.iter().zip(w) {
        for (zi, xi) in z.iter_mut().zip(x.iter()) {
            *zi += wj * xi;
        }
    }
    let mut loss = 0.0;
    for (zi, &label) in z.iter_mut().zip(labels.iter()) {
        let y = if label > 0.0 { 1.0 } else { -1.0 };
        let margin = y * *zi;
        loss += softplus(-margin);
        // sigmoid(margin) - 1 = -1 / (1 + e^margin)
        *zi = -y / (1.0 + margin.exp());
    }
    let gradient = features
        .iter()
        .map(|x| x.iter().zip(z.iter()).map(|(xi, ci)| xi * ci).sum())
        .collect();
    Partial {
        gradient,
        loss,
        rows: rows as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Float64Array;
    use std::sync::Arc;

    #[test]
    fn partials_match_the_row_by_row_formula() {
        let batch = RecordBatch::try_from_iter([
            (
                "label",
                Arc::new(Float64Array::from(vec![1.0, 0.0, 1.0])) as _,
            ),
            ("a", Arc::new(Float64Array::from(vec![0.5, -1.0, 2.0])) as _),
            (
                "b",
                Arc::new(Float64Array::from(vec![1.5, 0.25, -0.5])) as _,
            ),
        ])
        .unwrap();
        let w = [0.3, -0.2];
        let got = partial(&batch, &w).unwrap();
        let rows = [(1.0, [0.5, 1.5]), (-1.0, [-1.0, 0.25]), (1.0, [2.0, -0.5])];
        let mut gradient = [0.0; 2];
        let mut loss = 0.0;
        for (y, x) in rows {
            let dot: f64 = x[0] * w[0] + x[1] * w[1];
            let factor = (1.0 / (1.0 + (-y * dot).exp()) - 1.0) * y;
            gradient[0] += factor * x[0];
            gradient[1] += factor * x[1];
            loss += (1.0 + (-y * dot).exp()).ln();
        }
        assert_eq!(got.rows, 3);
        assert!((got.loss - loss).abs() < 1e-12);
        for (got, want) in got.gradient.iter().zip(gradient) {
            assert!((got - want).abs() < 1e-12);
        }
        assert!((softplus(800.0) - 800.0).abs() < 1e-9 && softplus(-800.0) >= 0.0);
    }
}
