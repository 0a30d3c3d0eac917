//! `LATENCY GRAPH`: Redis's ASCII graph of an event's samples
//! (`latencyCommandGenSparkeline` over `sparkline.c`'s renderer, with
//! its fill and four rows), rewritten from its logic: a header, a rule of
//! 80 dashes, then for every 80 samples four rows of `_`, `o`, `#` and
//! `|` (a sample's height, in twelfths of the range between the lowest
//! and the highest), a blank row, and each sample's age (`12s`, `3m`,
//! `2h`, `1d`) written downwards under it.

use crate::latency::Series;

/// Columns of the graph (Redis's `LATENCY_GRAPH_COLS`).
const COLUMNS: usize = 80;
/// Rows of the curve.
const ROWS: usize = 4;
/// Characters of the filled curve, by height within a row.
const FILL: [u8; 3] = *b"_o#";

/// The graph of `series` as of Unix second `now`.
pub fn graph(series: &Series, now: u64) -> String {
    let values: Vec<f64> = series
        .samples
        .iter()
        .map(|s| f64::from(s.latency_ms))
        .collect();
    let labels: Vec<String> = series
        .samples
        .iter()
        .map(|s| age(now.saturating_sub(s.time)))
        .collect();
    let low = series
        .samples
        .iter()
        .map(|s| s.latency_ms)
        .min()
        .unwrap_or(0);
    let high = series
        .samples
        .iter()
        .map(|s| s.latency_ms)
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "{} - high {high} ms, low {low} ms (all time high {} ms)\n",
        series.event, series.max_ms
    );
    out.push_str(&"-".repeat(COLUMNS));
    out.push('\n');
    let (min, max) = (f64::from(low), f64::from(high));
    for (i, start) in (0..values.len()).step_by(COLUMNS).enumerate() {
        if i != 0 {
            out.push('\n');
        }
        let end = (start + COLUMNS).min(values.len());
        render(&mut out, &values[start..end], &labels[start..end], min, max);
    }
    out
}

/// How long ago, as Redis labels a sample.
fn age(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// One stretch of at most [`COLUMNS`] samples: the curve's rows, then
/// (every sample having a label) a blank row and the labels' rows.
fn render(out: &mut String, values: &[f64], labels: &[String], min: f64, max: f64) {
    let steps = FILL.len() * ROWS;
    let range = if max == min { 1.0 } else { max - min };
    // A sample's height in steps: its distance from the lowest, scaled,
    // truncated, then divided by the range and truncated again.
    let heights: Vec<usize> = values
        .iter()
        .map(|v| {
            let scaled = ((v - min) * steps as f64) as i64 as f64;
            ((scaled / range) as i64).clamp(0, steps as i64 - 1) as usize
        })
        .collect();
    let mut line = vec![b' '; values.len()];
    for row in 0..ROWS {
        let floor = (ROWS - row - 1) * FILL.len();
        for (cell, &height) in line.iter_mut().zip(&heights) {
            *cell = match height.checked_sub(floor) {
                None => b' ',
                Some(i) => FILL.get(i).copied().unwrap_or(b'|'),
            };
        }
        push_line(out, &line);
    }
    if labels.is_empty() {
        return;
    }
    line.fill(b' ');
    push_line(out, &line);
    for depth in 0.. {
        let mut any = false;
        for (cell, label) in line.iter_mut().zip(labels) {
            *cell = match label.as_bytes().get(depth) {
                Some(&c) => {
                    any = true;
                    c
                }
                None => b' ',
            };
        }
        if !any {
            break;
        }
        push_line(out, &line);
    }
}

fn push_line(out: &mut String, line: &[u8]) {
    out.push_str(&String::from_utf8_lossy(line));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::Sample;

    fn series(samples: &[(u64, u32)], max_ms: u32) -> Series {
        Series {
            event: "command",
            samples: samples
                .iter()
                .map(|&(time, latency_ms)| Sample { time, latency_ms })
                .collect(),
            max_ms,
        }
    }

    /// What redis-server 7.0.15 drew for one sample of 12 ms taken in the
    /// same second.
    #[test]
    fn one_sample_as_redis_draws_it() {
        let got = graph(&series(&[(100, 12)], 12), 100);
        let want = format!(
            "command - high 12 ms, low 12 ms (all time high 12 ms)\n{}\n \n \n \n_\n \n0\ns\n",
            "-".repeat(80)
        );
        assert_eq!(got, want);
    }

    /// What redis-server 7.0.15 drew (`MULTI`, `TIME`, `LATENCY HISTORY
    /// command`, `LATENCY GRAPH command`, `EXEC`) after nine `EVAL`s of
    /// 2 to 30 ms, about a second apart.
    #[test]
    fn nine_samples_as_redis_draws_them() {
        let t = 1_796_156_172;
        let samples = [
            (t, 3),
            (t + 1, 7),
            (t + 2, 15),
            (t + 3, 2),
            (t + 4, 11),
            (t + 5, 30),
            (t + 7, 4),
            (t + 8, 12),
            (t + 9, 5),
        ];
        let got = graph(&series(&samples, 30), t + 10);
        let want = format!(
            "command - high 30 ms, low 2 ms (all time high 30 ms)\n{}\n     #   \n     |   \n  # _| o \n_#|_||_|o\n         \n198765321\n0ssssssss\ns        \n",
            "-".repeat(80)
        );
        assert_eq!(got, want);
    }

    #[test]
    fn heights_fill_and_labels_run_down() {
        // 0, 5, 10 ms over a range of 10: heights 0, 6 and 11 of 12.
        let got = graph(&series(&[(40, 0), (100, 5), (158, 10)], 20), 160);
        let body: Vec<&str> = got.lines().skip(2).collect();
        assert_eq!(body, ["  #", " _|", " ||", "_||", "   ", "212", "mms"]);
        assert!(got.starts_with("command - high 10 ms, low 0 ms (all time high 20 ms)\n"));
    }

    #[test]
    fn past_80_samples_the_graph_wraps() {
        let samples: Vec<(u64, u32)> = (0..100).map(|i| (1000 + i, 5)).collect();
        let got = graph(&series(&samples, 5), 1099);
        let body = got.split_once(&"-".repeat(80)).unwrap().1;
        let stretches: Vec<&str> = body.split("\n\n").collect();
        assert_eq!(stretches.len(), 2, "{got}");
        assert!(stretches[0].lines().all(|l| l.len() == 80 || l.is_empty()));
        assert!(stretches[1].lines().all(|l| l.len() == 20));
    }

    #[test]
    fn ages_are_labelled_in_the_largest_unit() {
        assert_eq!(age(59), "59s");
        assert_eq!(age(60), "1m");
        assert_eq!(age(3599), "59m");
        assert_eq!(age(7200), "2h");
        assert_eq!(age(86_400 * 3), "3d");
    }
}
