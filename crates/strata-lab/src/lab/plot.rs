//! Plots of a lab run, each written as PNG and SVG with `plotters`: grouped
//! bars (a figure per configuration and column of a table) and lines (a
//! per-second timeline, with a shaded span such as a checkpoint).
//!
//! Text needs a TrueType font; plotters gets it through `ab_glyph` from a file
//! read once at run time (`STRATA_LAB_FONT`, else DejaVu Sans or Liberation Sans
//! where the distribution installs them), so no fontconfig or freetype is needed.
//! Without a font no plot is drawn and the run records why.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

/// Where fonts are looked for, in order, after `STRATA_LAB_FONT`.
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

const SIZE: (u32, u32) = (960, 540);

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Registers the font with plotters once; `Err` says why plots cannot be drawn.
pub fn font_ready() -> Result<(), String> {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    READY
        .get_or_init(|| {
            let from_env = std::env::var("STRATA_LAB_FONT").ok();
            let candidates = from_env
                .iter()
                .map(String::as_str)
                .chain(FONT_PATHS.iter().copied());
            for path in candidates {
                if let Ok(bytes) = std::fs::read(path) {
                    // The registry keeps fonts for the process's life: leak the bytes once.
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                        .is_ok()
                    {
                        return Ok(());
                    }
                }
            }
            Err("no TrueType font found (install fonts-dejavu-core or set STRATA_LAB_FONT)".into())
        })
        .clone()
}

/// A series of a bar chart: one value (or none) per category.
pub struct Bars<'a> {
    /// Legend name.
    pub name: &'a str,
    /// One per category.
    pub values: Vec<Option<f64>>,
}

impl<'a> Bars<'a> {
    /// One bar series per `(name, values)` pair.
    pub fn from_series<S: AsRef<str>>(series: &'a [(S, Vec<Option<f64>>)]) -> Vec<Self> {
        series
            .iter()
            .map(|(name, values)| Bars {
                name: name.as_ref(),
                values: values.clone(),
            })
            .collect()
    }
}

/// A line of a line chart.
pub struct Line<'a> {
    /// Legend name.
    pub name: &'a str,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
    /// Spans of x to shade in the line's color (e.g. a checkpoint).
    pub spans: Vec<(f64, f64)>,
}

/// Writes `<stem>.png` and `<stem>.svg` of a grouped bar chart.
pub fn bar_chart(
    dir: &Path,
    stem: &str,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[Bars<'_>],
) -> Result<Vec<String>, String> {
    font_ready()?;
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    draw_bars(
        BitMapBackend::new(&png, SIZE).into_drawing_area(),
        title,
        y_label,
        categories,
        series,
    )?;
    draw_bars(
        SVGBackend::new(&svg, SIZE).into_drawing_area(),
        title,
        y_label,
        categories,
        series,
    )?;
    Ok(vec![format!("{stem}.png"), format!("{stem}.svg")])
}

/// Writes `<stem>.png` and `<stem>.svg` of a line chart.
pub fn line_chart(
    dir: &Path,
    stem: &str,
    title: &str,
    (x_label, y_label): (&str, &str),
    lines: &[Line<'_>],
) -> Result<Vec<String>, String> {
    font_ready()?;
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    draw_lines(
        BitMapBackend::new(&png, SIZE).into_drawing_area(),
        title,
        (x_label, y_label),
        lines,
    )?;
    draw_lines(
        SVGBackend::new(&svg, SIZE).into_drawing_area(),
        title,
        (x_label, y_label),
        lines,
    )?;
    Ok(vec![format!("{stem}.png"), format!("{stem}.svg")])
}

fn err(e: impl std::fmt::Display) -> String {
    format!("plot: {e}")
}

fn draw_bars<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[Bars<'_>],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let top = series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(0.0f64, |a, &b| a.max(b));
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let n = categories.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..top)
        .map_err(err)?;
    // Category i is centred on x = i; only whole-number ticks get a name.
    let label = |x: &f64| {
        if (x - x.round()).abs() > 1e-6 || *x < 0.0 {
            return String::new();
        }
        categories
            .get(x.round() as usize)
            .cloned()
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n + 1)
        .x_label_formatter(&label)
        .y_desc(y_label)
        .y_label_formatter(&|y| super::table::number(*y))
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len().max(1) as f64;
    for (j, s) in series.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let bars = s.values.iter().enumerate().filter_map(|(i, v)| {
            let x0 = i as f64 - 0.4 + j as f64 * width;
            v.map(|v| Rectangle::new([(x0, 0.0), (x0 + width * 0.95, v)], color.filled()))
        });
        chart
            .draw_series(bars)
            .map_err(err)?
            .label(s.name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    (x_label, y_label): (&str, &str),
    lines: &[Line<'_>],
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let points = lines.iter().flat_map(|l| l.points.iter());
    let (x_max, y_max) = points.fold((1.0f64, 0.0f64), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let y_max = if y_max > 0.0 { y_max * 1.15 } else { 1.0 };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .y_label_formatter(&|y| super::table::number(*y))
        .draw()
        .map_err(err)?;
    for (j, line) in lines.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let shade = line.spans.iter().map(|&(a, b)| {
            Rectangle::new(
                [(a, 0.0), (b.max(a + 0.05), y_max)],
                color.mix(0.15).filled(),
            )
        });
        chart.draw_series(shade).map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(line.name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}
