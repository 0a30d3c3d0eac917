//! A canvas of pixels with a shade each (0 lightest to 3 darkest), lines
//! drawn on it, and its two renderings: Braille characters of 2x4 dots
//! (a dot for each pixel not 0) and terminal cells coloured by shade.

use std::fmt::Write as _;

/// A grid of pixels, row after row.
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    /// A canvas of `width` x `height` pixels of shade `shade`.
    pub fn new(width: usize, height: usize, shade: u8) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![shade; width * height],
        }
    }

    /// Sets a pixel; outside the canvas nothing happens.
    pub fn set(&mut self, x: i64, y: i64, shade: u8) {
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            self.pixels[x as usize + y as usize * self.width] = shade;
        }
    }

    /// The pixel's shade (0 outside the canvas).
    pub fn get(&self, x: usize, y: usize) -> u8 {
        if x < self.width && y < self.height {
            self.pixels[x + y * self.width]
        } else {
            0
        }
    }

    /// A straight line from one end to the other (Bresenham's steps).
    pub fn line(&mut self, (mut x, mut y): (i64, i64), (x2, y2): (i64, i64), shade: u8) {
        let (dx, dy) = ((x2 - x).abs(), -(y2 - y).abs());
        let (sx, sy) = (if x < x2 { 1 } else { -1 }, if y < y2 { 1 } else { -1 });
        let mut err = dx + dy;
        loop {
            self.set(x, y, shade);
            if x == x2 && y == y2 {
                return;
            }
            let doubled = 2 * err;
            if doubled >= dy {
                err += dy;
                x += sx;
            }
            if doubled <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Braille characters, each 2 pixels wide and 4 high, one text line
    /// per 4 pixel rows.
    pub fn braille(&self) -> String {
        // The dot of each pixel of a cell, by (column, row).
        const DOTS: [[u32; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
        let mut text = String::new();
        for top in (0..self.height).step_by(4) {
            for left in (0..self.width).step_by(2) {
                let mut bits = 0;
                for (dx, column) in DOTS.iter().enumerate() {
                    for (dy, dot) in column.iter().enumerate() {
                        if self.get(left + dx, top + dy) != 0 {
                            bits |= dot;
                        }
                    }
                }
                text.push(char::from_u32(0x2800 + bits).unwrap_or(' '));
            }
            text.push('\n');
        }
        text
    }

    /// One terminal cell per pixel, coloured by shade (white, light grey,
    /// dark grey, black), one text line per pixel row.
    pub fn cells(&self) -> String {
        const COLOURS: [&str; 4] = ["0;97;107", "0;37;47", "0;90;100", "0;30;40"];
        let mut text = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let colour = COLOURS[usize::from(self.get(x, y).min(3))];
                let _ = write!(text, "\x1b[{colour}m \x1b[0m");
            }
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_braille_dots() {
        let mut c = Canvas::new(4, 4, 0);
        c.line((0, 0), (3, 3), 1);
        assert!((0..4).all(|i| c.get(i, i) == 1));
        // Left cell: dots 1 (0,0) and 5 (1,1); right: dots 3 (0,2), 8 (1,3).
        assert_eq!(c.braille(), "\u{2811}\u{2884}\n");
        c.set(-1, 9, 1); // outside: ignored
        assert_eq!(Canvas::new(1, 1, 3).cells(), "\x1b[0;30;40m \x1b[0m\n");
    }
}
