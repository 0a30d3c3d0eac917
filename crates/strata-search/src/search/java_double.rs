//! Numbers written as Elasticsearch (Java) writes them in messages and
//! keys ([`java_double`]) and as JSON values ([`java_number`]).

use serde_json::{json, Value};

/// A double as Java's `Double.toString` writes it (`100.0`, `1.5E7`).
pub fn java_double(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-3..1e7).contains(&a) {
        let s = format!("{v}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let exp = a.log10().floor() as i32;
        let mantissa = v / 10f64.powi(exp);
        let m = format!("{mantissa}");
        let m = if m.contains('.') { m } else { format!("{m}.0") };
        format!("{m}E{exp}")
    }
}

/// A double as Elasticsearch writes it in a reply: a number, or `"NaN"`,
/// `"Infinity"`, `"-Infinity"` (Jackson's quoted non-numeric numbers).
pub fn java_number(v: f64) -> Value {
    match v {
        v if v.is_finite() => json!(v),
        v if v.is_nan() => json!("NaN"),
        v if v > 0.0 => json!("Infinity"),
        _ => json!("-Infinity"),
    }
}

#[cfg(test)]
mod tests {
    use super::java_double;

    #[test]
    fn doubles_are_written_as_java_does() {
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(-2.5), "-2.5");
        assert_eq!(java_double(-0.4), "-0.4");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_double(15_000_000.0), "1.5E7");
    }
}
