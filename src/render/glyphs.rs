//! Letters and digits drawn as strokes, so that pictures need no font: coordinates,
//! counts and the marks of the pictures are paths, the same everywhere and rendered by
//! resvg without its text support.
//!
//! Each glyph is a few polylines on a grid 4 units wide; capitals and digits stand from
//! 0 (top) to 6 (baseline), lowercase letters from 2, descenders reach 8.

use super::svg::{Svg, num};

type Stroke = &'static [(f32, f32)];

fn glyph(c: char) -> &'static [Stroke] {
    match c {
        '0' => &[&[
            (1.0, 0.0),
            (3.0, 0.0),
            (4.0, 1.0),
            (4.0, 5.0),
            (3.0, 6.0),
            (1.0, 6.0),
            (0.0, 5.0),
            (0.0, 1.0),
            (1.0, 0.0),
        ]],
        '1' => &[
            &[(0.8, 1.4), (2.2, 0.0), (2.2, 6.0)],
            &[(0.8, 6.0), (3.6, 6.0)],
        ],
        '2' => &[&[
            (0.0, 1.2),
            (1.0, 0.0),
            (3.0, 0.0),
            (4.0, 1.0),
            (4.0, 2.2),
            (0.0, 6.0),
            (4.0, 6.0),
        ]],
        '3' => &[&[
            (0.0, 0.0),
            (4.0, 0.0),
            (1.8, 2.6),
            (3.0, 2.6),
            (4.0, 3.6),
            (4.0, 5.0),
            (3.0, 6.0),
            (1.0, 6.0),
            (0.0, 5.0),
        ]],
        '4' => &[&[(3.0, 6.0), (3.0, 0.0), (0.0, 4.2), (4.0, 4.2)]],
        '5' => &[&[
            (4.0, 0.0),
            (0.4, 0.0),
            (0.2, 2.6),
            (3.0, 2.6),
            (4.0, 3.6),
            (4.0, 5.0),
            (3.0, 6.0),
            (0.0, 6.0),
        ]],
        '6' => &[&[
            (3.4, 0.0),
            (1.0, 0.0),
            (0.0, 1.0),
            (0.0, 5.0),
            (1.0, 6.0),
            (3.0, 6.0),
            (4.0, 5.0),
            (4.0, 3.6),
            (3.0, 2.6),
            (0.0, 2.6),
        ]],
        '7' => &[&[(0.0, 0.0), (4.0, 0.0), (1.4, 6.0)]],
        '8' => &[
            &[
                (1.0, 0.0),
                (3.0, 0.0),
                (4.0, 1.0),
                (4.0, 2.0),
                (3.0, 3.0),
                (1.0, 3.0),
                (0.0, 2.0),
                (0.0, 1.0),
                (1.0, 0.0),
            ],
            &[
                (1.0, 3.0),
                (0.0, 4.0),
                (0.0, 5.0),
                (1.0, 6.0),
                (3.0, 6.0),
                (4.0, 5.0),
                (4.0, 4.0),
                (3.0, 3.0),
            ],
        ],
        '9' => &[&[
            (4.0, 3.4),
            (1.0, 3.4),
            (0.0, 2.4),
            (0.0, 1.0),
            (1.0, 0.0),
            (3.0, 0.0),
            (4.0, 1.0),
            (4.0, 5.0),
            (3.0, 6.0),
            (0.6, 6.0),
        ]],
        'a' => &[
            &[(0.5, 2.0), (3.0, 2.0), (4.0, 3.0), (4.0, 6.0)],
            &[
                (4.0, 3.8),
                (1.0, 3.8),
                (0.0, 4.6),
                (0.0, 5.2),
                (0.8, 6.0),
                (3.0, 6.0),
                (4.0, 5.0),
            ],
        ],
        'b' => &[
            &[(0.0, 0.0), (0.0, 6.0)],
            &[
                (0.0, 3.0),
                (1.0, 2.0),
                (3.0, 2.0),
                (4.0, 3.0),
                (4.0, 5.0),
                (3.0, 6.0),
                (1.0, 6.0),
                (0.0, 5.0),
            ],
        ],
        'c' => &[&[
            (4.0, 2.6),
            (3.4, 2.0),
            (1.0, 2.0),
            (0.0, 3.0),
            (0.0, 5.0),
            (1.0, 6.0),
            (3.4, 6.0),
            (4.0, 5.4),
        ]],
        'd' => &[
            &[(4.0, 0.0), (4.0, 6.0)],
            &[
                (4.0, 3.0),
                (3.0, 2.0),
                (1.0, 2.0),
                (0.0, 3.0),
                (0.0, 5.0),
                (1.0, 6.0),
                (3.0, 6.0),
                (4.0, 5.0),
            ],
        ],
        'e' => &[&[
            (0.0, 4.0),
            (4.0, 4.0),
            (4.0, 3.0),
            (3.0, 2.0),
            (1.0, 2.0),
            (0.0, 3.0),
            (0.0, 5.0),
            (1.0, 6.0),
            (3.6, 6.0),
        ]],
        'f' => &[
            &[(3.8, 0.4), (3.2, 0.0), (2.2, 0.0), (1.6, 0.6), (1.6, 6.0)],
            &[(0.2, 2.2), (3.2, 2.2)],
        ],
        'g' => &[
            &[(4.0, 2.0), (4.0, 7.0), (3.0, 8.0), (0.6, 8.0)],
            &[
                (4.0, 3.0),
                (3.0, 2.0),
                (1.0, 2.0),
                (0.0, 3.0),
                (0.0, 4.6),
                (1.0, 5.6),
                (3.0, 5.6),
                (4.0, 4.6),
            ],
        ],
        'h' => &[
            &[(0.0, 0.0), (0.0, 6.0)],
            &[(0.0, 3.0), (1.0, 2.0), (3.0, 2.0), (4.0, 3.0), (4.0, 6.0)],
        ],
        'w' => &[&[(0.0, 2.0), (1.0, 6.0), (2.0, 3.4), (3.0, 6.0), (4.0, 2.0)]],
        '+' => &[&[(2.0, 1.6), (2.0, 5.6)], &[(0.0, 3.6), (4.0, 3.6)]],
        _ => &[],
    }
}

/// The path data of `text`, its top left corner at `(x, y)`, `height` high (digit
/// height), glyphs one unit apart.
#[must_use]
pub fn text_path(text: &str, x: f32, y: f32, height: f32) -> String {
    let unit = height / 6.0;
    let mut data = String::new();
    let mut left = x;
    for c in text.chars() {
        for stroke in glyph(c) {
            for (index, (gx, gy)) in stroke.iter().enumerate() {
                data.push(if index == 0 { 'M' } else { 'L' });
                data.push_str(&num(left + gx * unit));
                data.push(' ');
                data.push_str(&num(y + gy * unit));
            }
        }
        left += 5.0 * unit;
    }
    data
}

/// The width of `text` drawn `height` high.
#[must_use]
pub fn text_width(text: &str, height: f32) -> f32 {
    let count = text.chars().count() as f32;
    (count * 5.0 - 1.0).max(0.0) * height / 6.0
}

/// Draws `text` centred on `(cx, cy)`, `height` high, in strokes of `colour`.
pub fn label(svg: &mut Svg, text: &str, cx: f32, cy: f32, height: f32, colour: &str) {
    let x = cx - text_width(text, height) / 2.0;
    let y = cy - height / 2.0;
    let data = text_path(text, x, y, height);
    if data.is_empty() {
        return;
    }
    svg.path(
        &data,
        &format!(
            "fill=\"none\" stroke=\"{colour}\" stroke-width=\"{}\" \
             stroke-linecap=\"round\" stroke-linejoin=\"round\"",
            num((height / 7.0).max(1.0))
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_coordinate_character_has_a_glyph() {
        for c in "abcdefgh0123456789w+".chars() {
            assert!(!glyph(c).is_empty(), "no glyph for {c}");
        }
        assert!(glyph('?').is_empty());
    }

    #[test]
    fn a_glyph_becomes_path_data_at_its_place() {
        assert_eq!(text_path("7", 10.0, 20.0, 6.0), "M10 20L14 20L11.4 26");
        assert_eq!(text_width("10", 6.0), 9.0);
    }
}
