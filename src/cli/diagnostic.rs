//! Rendering findings for people: file:line:column, the source line with a caret under
//! the token, the reason, and what would have been legal.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::notation::Span;
use crate::replay::{Finding, Severity};

/// How many legal turns a diagnostic lists before it says "and N more".
const LEGAL_SHOWN: usize = 40;

/// The source a finding points into: the text of its game and where that text starts.
pub struct Source<'a> {
    /// The file name as the user gave it.
    pub path: &'a str,
    /// The raw text of the game.
    pub text: &'a str,
    /// Where `text` starts in the file.
    pub start: Span,
}

impl Source<'_> {
    /// The length in bytes of the run of non-blank text at `span` (at least 1).
    fn word_length_at(&self, span: Span) -> usize {
        span.offset
            .checked_sub(self.start.offset)
            .and_then(|at| self.text.get(at..))
            .map_or(1, |rest| {
                let mut length = 0;
                for c in rest.chars().take(WINDOW) {
                    if c.is_whitespace() {
                        break;
                    }
                    length += c.len_utf8();
                }
                length.max(1)
            })
    }

    /// The line containing `span` and the byte range of `length` bytes at `span` in it,
    /// and whether the line was cut: at most [`WINDOW`] bytes are shown on each side, so
    /// that many findings on one long line cost each the same.
    fn line_at(&self, span: Span, length: usize) -> Option<(&str, std::ops::Range<usize>, bool)> {
        let at = span.offset.checked_sub(self.start.offset)?;
        if at > self.text.len() || !self.text.is_char_boundary(at) {
            return None;
        }
        let mut low = at.saturating_sub(WINDOW);
        while !self.text.is_char_boundary(low) {
            low += 1;
        }
        let mut high = (at + WINDOW).min(self.text.len());
        while !self.text.is_char_boundary(high) {
            high -= 1;
        }
        let line_start = self.text[low..at]
            .rfind('\n')
            .map_or(low, |index| low + index + 1);
        let line_end = self.text[at..high]
            .find('\n')
            .map_or(high, |index| at + index);
        let cut = (line_start == low && low > 0 && self.text.as_bytes()[low - 1] != b'\n')
            || (line_end == high && high < self.text.len() && self.text.as_bytes()[high] != b'\n');
        let line = self.text[line_start..line_end].trim_end_matches('\r');
        let begin = (at - line_start).min(line.len());
        let mut end = (begin + length.max(1)).min(line.len());
        while !line.is_char_boundary(end) {
            end += 1;
        }
        Some((line, begin..end.max(begin), cut))
    }
}

/// The most bytes of a line shown on each side of a finding.
const WINDOW: usize = 200;

/// Renders one finding about game `game` as a multi-line diagnostic.
pub fn render(finding: &Finding, game: usize, source: &Source<'_>, styled: bool) -> String {
    let level = match finding.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut title = format!("game {game}");
    if let Some(number) = &finding.move_number {
        title.push_str(&format!(", {number}"));
        if let Some(ply) = finding.ply {
            title.push_str(&format!(" (ply {ply}"));
            if finding.in_variation {
                title.push_str(", in a variation");
            }
            title.push(')');
        }
    }
    title.push_str(": ");
    title.push_str(&super::escape_controls(&finding.message));

    // Underline the token; for findings about other text (a result, a tag), the word
    // at the position.
    let length = finding
        .token
        .as_ref()
        .map_or_else(|| source.word_length_at(finding.span), String::len);
    let path_line = format!(
        "{}:{}:{}",
        source.path, finding.span.line, finding.span.column
    );
    let mut notes: Vec<String> = Vec::new();
    if let Some(closest) = &finding.closest {
        notes.push(format!(
            "closest legal turn: {}",
            super::escape_controls(closest)
        ));
    }
    if !finding.legal.is_empty() {
        let shown: Vec<&str> = finding
            .legal
            .iter()
            .take(LEGAL_SHOWN)
            .map(String::as_str)
            .collect();
        let more = finding.legal.len().saturating_sub(LEGAL_SHOWN);
        let mut line = format!("legal turns ({}): {}", finding.legal.len(), shown.join(" "));
        if more > 0 {
            line.push_str(&format!(" and {more} more"));
        }
        notes.push(line);
    } else if finding.kind == crate::replay::FindingKind::Illegal {
        notes.push("there is no legal turn in this position".to_owned());
    }

    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut report = Vec::new();
    let located = source.line_at(finding.span, length);
    let group = match located {
        Some((line, range, false)) => level.primary_title(title).element(
            Snippet::source(line)
                .line_start(finding.span.line as usize)
                .path(source.path)
                .annotation(AnnotationKind::Primary.span(range)),
        ),
        // Part of a long line: the place is in the title, since the snippet's columns
        // would count from the cut.
        Some((line, range, true)) => level
            .primary_title(format!("{path_line}: {title}"))
            .element(
                Snippet::source(line)
                    .line_start(finding.span.line as usize)
                    .annotation(AnnotationKind::Primary.span(range)),
            ),
        None => Group::with_title(level.primary_title(format!("{path_line}: {title}"))),
    };
    report.push(group);
    for note in &notes {
        report.push(Group::with_title(
            Level::HELP.secondary_title(note.as_str()),
        ));
    }
    renderer.render(&report).to_string()
}
