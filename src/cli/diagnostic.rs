//! Rendering findings for people: file:line:column, the source line with a caret under
//! the token, the reason, and what would have been legal.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::games::SetupError;
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
    render_about(finding, Some(&format!("game {game}")), source, styled)
}

/// Renders one finding as a multi-line diagnostic whose title starts with `about` (what
/// the finding is in: `game 3`, a game's id), or with the reason alone: how `move` and
/// the commands that read a position string show a mistyped argument.
pub fn render_about(
    finding: &Finding,
    about: Option<&str>,
    source: &Source<'_>,
    styled: bool,
) -> String {
    let level = match finding.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut title = about.unwrap_or_default().to_owned();
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
    if !title.is_empty() {
        title.push_str(": ");
    }
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

/// Whether diagnostics on standard error are coloured: when it is a terminal and
/// `NO_COLOR` is unset.
pub fn stderr_styled() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// The diagnostic for a position string given as the argument `argument` (`--fen`) that
/// does not give a playable position: the reason, with the string and a caret under the
/// field the error is about (the whole string when it names none), its place written as
/// `--fen:1:COLUMN`.
pub fn position_error(argument: &str, text: &str, error: &SetupError) -> String {
    let (offset, length) = error
        .field
        .map_or((0, text.len()), |field| field_place(text, field));
    let column = 1 + u32::try_from(text[..offset].chars().count()).unwrap_or(0);
    let mut message = format!("invalid position: {}", error.message);
    if let Some(field) = error.field
        && !error.message.contains("field")
    {
        message.push_str(&format!(" (field {field})"));
    }
    let finding = Finding {
        token: Some(text[offset..offset + length].to_owned()),
        ..Finding::new(
            Severity::Error,
            crate::replay::FindingKind::Setup,
            message,
            Span {
                offset,
                line: 1,
                column,
            },
        )
    };
    let source = Source {
        path: argument,
        text,
        start: Span::START,
    };
    render_about(&finding, None, &source, stderr_styled())
}

/// Where field `field` (from 1) of a position string is: its byte offset and length, or
/// the end of the string (length 0) for a field past the last.
fn field_place(text: &str, field: usize) -> (usize, usize) {
    let mut start = None;
    let mut count = 0;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(at),
            (true, Some(from)) => {
                count += 1;
                if count == field {
                    return (from, at - from);
                }
                start = None;
            }
            _ => {}
        }
    }
    (text.trim_end().len(), 0)
}

/// The diagnostic for a turn `pbem move` refused ([`crate::desk::DeskError::Turn`]): the
/// reason, the turn typed with a caret, the closest legal turn and the legal turns, and
/// the command that plays the closest.
pub fn refused_turn(id: &str, finding: &Finding) -> super::CliError {
    let token = finding.token.as_deref().unwrap_or_default();
    let source = Source {
        path: "TURN",
        text: token,
        start: Span::START,
    };
    let mut text = render_about(finding, Some(id), &source, stderr_styled());
    text.push_str(&format!("\npbem: {id} is unchanged"));
    if let Some(closest) = &finding.closest {
        text.push_str(&format!(
            "; to play the closest legal turn: pbem move {id} {closest}"
        ));
    }
    super::CliError::Reported(text)
}
