//! A city skyline at night, in the spirit of 8-bit games: three rows of
//! buildings, the farther ones lighter, each with lit windows, against a
//! white sky; one terminal cell per pixel.

use rand::Rng;

use super::canvas::Canvas;

/// The skyline `columns` cells wide and `rows` high.
pub fn draw(columns: usize, rows: usize) -> String {
    let mut canvas = Canvas::new(columns, rows, 0);
    let mut rng = rand::thread_rng();
    // Far to near: lighter buildings behind, taller ones in front.
    for (shade, least, most) in [(1u8, 2usize, 2usize), (2, 3, 2), (3, 2, 3)] {
        let mut x = rng.gen_range(0..4usize);
        while x < columns {
            let width = rng.gen_range(3..9usize);
            let height = (rows * least / 5 + rng.gen_range(0..=rows * most / 5)).min(rows);
            building(&mut canvas, &mut rng, (x, width), height, shade);
            x += width + rng.gen_range(0..4usize);
        }
    }
    canvas.cells()
}

/// A building `height` cells tall over the columns `x..x + width`, its
/// windows lit at random in every other cell.
fn building(
    canvas: &mut Canvas,
    rng: &mut impl Rng,
    (x, width): (usize, usize),
    height: usize,
    shade: u8,
) {
    let top = canvas.height - height;
    for dy in 0..height {
        for dx in 0..width {
            let window = dx % 2 == 1 && dy % 2 == 1 && dx + 1 < width && rng.gen_bool(0.4);
            let cell = if window { 0 } else { shade };
            canvas.set((x + dx) as i64, (top + dy) as i64, cell);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_line_per_row_one_cell_per_column() {
        let art = super::draw(30, 8);
        let lines: Vec<&str> = art.lines().collect();
        assert_eq!(lines.len(), 8);
        assert!(lines.iter().all(|l| l.matches("\x1b[0m").count() == 30));
        assert!(art.contains("0;30;40"), "no near building: {art:?}");
    }
}
