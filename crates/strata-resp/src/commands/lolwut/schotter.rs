//! *Schotter* ("gravel"), after Georg Nees's 1968 plotter drawing: rows
//! of squares that turn and drift more and more the lower they are,
//! order falling into disorder.

use std::f64::consts::PI;

use rand::Rng;

use super::canvas::Canvas;

/// The drawing `columns` Braille characters wide, `per_row` squares across
/// and `per_column` down, with a margin of one square around them.
pub fn draw(columns: usize, per_row: usize, per_column: usize) -> String {
    let width = columns * 2;
    let side = (width / (per_row + 2)).max(1);
    let height = side * (per_column + 2);
    let mut canvas = Canvas::new(width, height, 0);
    let mut rng = rand::thread_rng();
    for row in 0..per_column {
        // Disorder grows from nothing at the top to its most at the bottom.
        let disorder = row as f64 / per_column as f64;
        for column in 0..per_row {
            let mut swing = |most: f64| rng.gen_range(-1.0..=1.0) * most * disorder;
            let angle = swing(PI / 4.0);
            let shift_x = swing(side as f64 / 2.0);
            let shift_y = swing(side as f64 / 2.0);
            let centre_x = (column + 1) as f64 * side as f64 + side as f64 / 2.0 + shift_x;
            let centre_y = (row + 1) as f64 * side as f64 + side as f64 / 2.0 + shift_y;
            square(&mut canvas, (centre_x, centre_y), side as f64, angle);
        }
    }
    canvas.braille()
}

/// The outline of a square of `side` centred at `centre`, turned by `angle`.
fn square(canvas: &mut Canvas, (cx, cy): (f64, f64), side: f64, angle: f64) {
    let radius = side / 2.0 * std::f64::consts::SQRT_2;
    let corner = |k: usize| {
        let a = angle + PI / 4.0 + k as f64 * PI / 2.0;
        (
            (cx + radius * a.cos()).round() as i64,
            (cy + radius * a.sin()).round() as i64,
        )
    };
    for k in 0..4 {
        canvas.line(corner(k), corner(k + 1), 1);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_drawing_has_the_asked_width_and_ink() {
        let art = super::draw(20, 4, 3);
        let lines: Vec<&str> = art.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() == 20), "{art}");
        assert!(
            art.chars().any(|c| c != '\u{2800}' && c != '\n'),
            "no ink: {art}"
        );
        // Tiny and huge sizes stay sane.
        assert_eq!(super::draw(1, 1, 1).lines().count(), 1);
        assert!(super::draw(1000, 200, 200).len() < 4_000_000);
    }
}
