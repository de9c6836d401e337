//! Writing SVG text: a small builder that formats every number the same way, so that a
//! picture is the same bytes from run to run and on every machine.

use std::fmt::Write as _;

/// A number as the pictures write it: at most two decimals, no trailing zeros.
#[must_use]
pub fn num(value: f32) -> String {
    let rounded = (value * 100.0).round() / 100.0;
    let mut text = format!("{rounded:.2}");
    while text.ends_with('0') {
        text.pop();
    }
    if text.ends_with('.') {
        text.pop();
    }
    if text == "-0" {
        text = "0".to_owned();
    }
    text
}

/// Escapes text for an attribute value or element content.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document being written. Attributes are passed as ready text (`fill="#fff"`);
/// coordinates go through [`num`].
#[derive(Debug)]
pub struct Svg {
    out: String,
    depth: usize,
}

impl Svg {
    /// Starts a document `width` by `height` user units (also its size in pixels), with a
    /// title that screen readers and browsers show.
    #[must_use]
    pub fn new(width: f32, height: f32, title: &str) -> Svg {
        let mut out = String::with_capacity(32 * 1024);
        let (w, h) = (num(width), num(height));
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" role=\"img\"><title>{}</title>",
            escape(title)
        );
        Svg { out, depth: 0 }
    }

    /// A part of a document (no `<svg>` element round it), to be put into one that is
    /// written elsewhere: the play page's hit areas.
    #[must_use]
    pub fn fragment() -> Svg {
        Svg {
            out: String::with_capacity(8 * 1024),
            depth: 0,
        }
    }

    /// Ends a [`Svg::fragment`] and returns its markup.
    #[must_use]
    pub fn finish_fragment(mut self) -> String {
        while self.depth > 0 {
            self.close();
        }
        self.out
    }

    /// A rectangle.
    pub fn rect(&mut self, x: f32, y: f32, width: f32, height: f32, attrs: &str) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {attrs}/>",
            num(x),
            num(y),
            num(width),
            num(height)
        );
    }

    /// A circle.
    pub fn circle(&mut self, cx: f32, cy: f32, r: f32, attrs: &str) {
        let _ = write!(
            self.out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {attrs}/>",
            num(cx),
            num(cy),
            num(r)
        );
    }

    /// A path with the given data.
    pub fn path(&mut self, data: &str, attrs: &str) {
        let _ = write!(self.out, "<path d=\"{data}\" {attrs}/>");
    }

    /// A closed polygon through the points.
    pub fn polygon(&mut self, points: &[(f32, f32)], attrs: &str) {
        self.out.push_str("<polygon points=\"");
        for (index, (x, y)) in points.iter().enumerate() {
            if index > 0 {
                self.out.push(' ');
            }
            let _ = write!(self.out, "{},{}", num(*x), num(*y));
        }
        let _ = write!(self.out, "\" {attrs}/>");
    }

    /// Opens a group (`<g attrs>`); [`Svg::close`] ends it.
    pub fn open(&mut self, attrs: &str) {
        self.depth += 1;
        if attrs.is_empty() {
            self.out.push_str("<g>");
        } else {
            let _ = write!(self.out, "<g {attrs}>");
        }
    }

    /// Opens a group moved to `(x, y)` and scaled by `scale`.
    pub fn open_at(&mut self, x: f32, y: f32, scale: f32, attrs: &str) {
        let transform = format!(
            "transform=\"translate({} {}) scale({})\"",
            num(x),
            num(y),
            num(scale)
        );
        if attrs.is_empty() {
            self.open(&transform);
        } else {
            self.open(&format!("{transform} {attrs}"));
        }
    }

    /// Closes the innermost open group.
    pub fn close(&mut self) {
        debug_assert!(self.depth > 0);
        self.depth -= 1;
        self.out.push_str("</g>");
    }

    /// Appends raw SVG markup written elsewhere.
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// Ends the document and returns its text.
    #[must_use]
    pub fn finish(mut self) -> String {
        while self.depth > 0 {
            self.close();
        }
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1.234_5), "1.23");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(60.0 * 7.0), "420");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
