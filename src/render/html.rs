//! The replay page (`pbem html`): one self-contained HTML file, with no network and no
//! external script, that steps through one or several games. A small inline script
//! shows one ply at a time, steps with the buttons, the arrow keys (Left, Right, Home,
//! End) or a click on a move, and highlights the current move in the list.
//!
//! The page is written as it is made, one ply at a time, so that neither the page nor
//! pbem's memory grows by more than a few hundred bytes a ply. Each ply's picture is the
//! very SVG that `pbem show --format svg --ply N` writes, cut into parts (the document's
//! open tag, its title, each element at the top and each child of a top-level group:
//! a square, a mark, a piece's group); a ply gives only the splices that turn the last
//! ply's parts into its own, and a part's text travels once, the first time it appears,
//! in a dictionary the page builds as it reads. A piece's drawing (the content of a
//! `translate(..) scale(..)` group with no group inside) is a dictionary entry of its
//! own that every piece of that kind refers to, so that a piece on a new square costs a
//! short entry. The page's script puts the parts back together into the same SVG text.

use std::collections::HashMap;
use std::io::{self, Write};
use std::ops::Range;

use serde_json::{Value, json};

use super::svg::escape;
use super::{Render, svg};
use crate::games::{Color, Game};
use crate::notation::Record;
use crate::replay;

/// Why a game could not go on the page.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The record's starting position cannot be set up (the message names the game).
    #[error("{0}")]
    Setup(String),
    /// Writing the page failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes the page's head and heading, everything before the first game.
pub fn write_head(out: &mut dyn Write, title: &str) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    )
}

/// Writes the page's script and end, everything after the last game.
pub fn write_tail(out: &mut dyn Write) -> io::Result<()> {
    write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n")
}

/// Replays `record` in the game `G` and writes it as the page's game `number` (from 1):
/// the heading, the board and its buttons, the result, and the data the page's script
/// reads, one ply after another as the replay goes (two pictures in memory at a time).
pub fn write_game<G: Render>(
    out: &mut dyn Write,
    number: usize,
    record: &Record,
) -> Result<(), PageError> {
    let replayed = replay::replay_game::<G>(record);
    let Some(start) = replayed.start else {
        let reason = replayed
            .report
            .findings
            .first()
            .map_or_else(|| "invalid setup".to_owned(), |f| f.message.clone());
        return Err(PageError::Setup(format!(
            "game {}: {reason}",
            record.number
        )));
    };
    let white = record.tag("White").unwrap_or("?");
    let black = record.tag("Black").unwrap_or("?");
    let mut subtitle = vec![G::VARIANT.name().to_owned()];
    for name in ["Event", "Site", "Date"] {
        if let Some(value) = record
            .tag(name)
            .filter(|v| !v.is_empty() && *v != "?" && *v != "-")
        {
            subtitle.push(value.to_owned());
        }
    }
    let marker = record
        .result
        .or_else(|| {
            record
                .tag("Result")
                .and_then(crate::games::GameResult::from_token)
        })
        .map_or("*", |result| result.as_str());
    let mut result = format!("Result: {marker}");
    if let Some(outcome) = replayed.report.outcome {
        result.push_str(&format!(" ({outcome})"));
    }
    if let Some(error) = replayed.report.errors().next() {
        result.push_str(&format!(
            "; the record stops being playable at line {}: {}",
            error.span.line, error.message
        ));
    }
    write!(
        out,
        "<section class=\"game\" id=\"game-{number}\" data-ply=\"0\">\n<header><h2>{}</h2>\
         <p class=\"subtitle\">{}</p></header>\n\
         <div>\n<div class=\"board\" aria-live=\"polite\"></div>\n\
         <div class=\"controls\"><button type=\"button\" data-step=\"first\" title=\"Start (Home)\">« Start</button>\
         <button type=\"button\" data-step=\"back\" title=\"Back (Left arrow)\">‹ Back</button>\
         <button type=\"button\" data-step=\"forward\" title=\"Forward (Right arrow)\">Forward ›</button>\
         <button type=\"button\" data-step=\"last\" title=\"End (End)\">End »</button></div>\n\
         </div>\n<div>\n<p class=\"status\"></p>\n<p class=\"comment\"></p>\n<ol class=\"moves\"></ol>\n\
         <p class=\"result\">{}</p>\n</div>\n<script type=\"application/json\" class=\"frames\">[",
        escape(&format!("{white} – {black}")),
        escape(&subtitle.join(" · ")),
        escape(&result)
    )?;
    let nodes = &record.moves.turns;
    let mut frames = Frames::default();
    let comments = join_comments(record.moves.comments.iter().map(|c| c.text.as_str()));
    frames.write(out, ["", "", &comments], &state(&start), svg(&start, None))?;
    let mut position = start;
    for (index, turn) in replayed.turns.iter().enumerate() {
        let number = match (position.side_to_move(), index) {
            (Color::White, _) => format!("{}.", position.fullmove_number()),
            (Color::Black, 0) => format!("{}...", position.fullmove_number()),
            _ => String::new(),
        };
        let node = nodes.get(index);
        let token = node.map_or_else(|| position.write_turn(turn), |node| node.token.to_string());
        let comments = node
            .map(|node| join_comments(node.comments.iter().map(|c| c.text.as_str())))
            .unwrap_or_default();
        let before = position.clone();
        position.play(turn);
        let picture = svg(&position, Some((&before, turn)));
        out.write_all(b",\n")?;
        frames.write(
            out,
            [&number, &token, &comments],
            &state(&position),
            picture,
        )?;
    }
    out.write_all(b"]</script>\n</section>\n")?;
    Ok(())
}

/// The pictures of one game as they are written: the last ply's picture and its parts,
/// and the dictionary of every part's text written so far.
#[derive(Default)]
struct Frames {
    picture: String,
    parts: Vec<Range<usize>>,
    dictionary: Dictionary,
}

impl Frames {
    /// Writes one ply's data: `[number, token, comments, status, new entries, splices]`,
    /// the status a dictionary entry, each splice `at, removed, inserted, entries...`
    /// (applied in order to the last ply's parts).
    fn write(
        &mut self,
        out: &mut dyn Write,
        [number, token, comments]: [&str; 3],
        status: &str,
        picture: String,
    ) -> io::Result<()> {
        let parts = parts(&picture);
        let Frames {
            picture: last,
            parts: last_parts,
            dictionary,
        } = self;
        let old: Vec<&str> = last_parts.iter().map(|r| &last[r.clone()]).collect();
        let new: Vec<&str> = parts.iter().map(|r| &picture[r.clone()]).collect();
        let mut added = Vec::new();
        let mut edits = Vec::new();
        for splice in splices(&old, &new) {
            edits.extend([splice.at, splice.removed, splice.inserted.len()].map(|n| n as u32));
            for part in &new[splice.inserted] {
                edits.push(dictionary.part(part, &mut added));
            }
        }
        let status = dictionary.text(status, &mut added);
        let entry = json!([number, token, comments, status, added, edits]);
        out.write_all(json(&entry).as_bytes())?;
        self.picture = picture;
        self.parts = parts;
        Ok(())
    }
}

/// The texts the page has been given, by number in the order given: a part of a
/// picture, a piece's drawing, a status line.
#[derive(Default)]
struct Dictionary {
    numbers: HashMap<String, u32>,
}

/// How a piece's drawing starts: a group that places and scales it.
const DRAWING: &str = "<g transform=\"translate(";

impl Dictionary {
    /// The number of a text, added as a string to `added` if new.
    fn text(&mut self, text: &str, added: &mut Vec<Value>) -> u32 {
        if let Some(&number) = self.numbers.get(text) {
            return number;
        }
        added.push(Value::from(text));
        self.insert(text)
    }

    /// The number of a picture's part, added if new: as a string, or, when it holds
    /// pieces' drawings, as a list of its texts between them and the drawings' numbers.
    fn part(&mut self, part: &str, added: &mut Vec<Value>) -> u32 {
        if let Some(&number) = self.numbers.get(part) {
            return number;
        }
        let drawings = drawings(part);
        if drawings.is_empty() {
            added.push(Value::from(part));
            return self.insert(part);
        }
        let mut pieces = Vec::with_capacity(2 * drawings.len() + 1);
        let mut from = 0;
        for drawing in drawings {
            pieces.push(Value::from(&part[from..drawing.start]));
            pieces.push(Value::from(self.text(&part[drawing.clone()], added)));
            from = drawing.end;
        }
        pieces.push(Value::from(&part[from..]));
        added.push(Value::Array(pieces));
        self.insert(part)
    }

    fn insert(&mut self, text: &str) -> u32 {
        let number = u32::try_from(self.numbers.len()).unwrap_or(u32::MAX);
        self.numbers.insert(text.to_owned(), number);
        number
    }
}

/// Where the pieces' drawings are in a part: the content of each group that
/// [`DRAWING`] opens and that holds no group itself.
fn drawings(part: &str) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = part[from..].find(DRAWING) {
        let open = from + at;
        let Some(body) = part[open..].find('>').map(|end| open + end + 1) else {
            break;
        };
        let Some(end) = part[body..].find("</g>").map(|end| body + end) else {
            break;
        };
        if part[body..end].contains("<g") {
            from = body;
        } else {
            if end > body {
                found.push(body..end);
            }
            from = end;
        }
    }
    found
}

/// Where the parts of a picture are, in order: the document's open tag, each element
/// inside it, except that a group is cut into its open tag, each element inside it and
/// its end tag, and the document's end. A picture pbem did not write this way is one
/// part.
fn parts(svg: &str) -> Vec<Range<usize>> {
    // One range, not the range's numbers.
    let whole = || std::iter::once(0..svg.len()).collect();
    let Some(mut at) = tag_end(svg, 0) else {
        return whole();
    };
    let mut parts: Vec<Range<usize>> = std::iter::once(0..at).collect();
    loop {
        if svg[at..].starts_with("</svg>") {
            parts.push(at..svg.len());
            return parts;
        }
        let Some(end) = element_end(svg, at) else {
            return whole();
        };
        let Some(open_end) = tag_end(svg, at) else {
            return whole();
        };
        if !svg[at..].starts_with("<g") || open_end == end {
            parts.push(at..end);
            at = end;
            continue;
        }
        parts.push(at..open_end);
        let mut inner = open_end;
        while inner < end - "</g>".len() {
            let Some(child) = element_end(svg, inner).filter(|&child| child <= end) else {
                return whole();
            };
            parts.push(inner..child);
            inner = child;
        }
        parts.push(inner..end);
        at = end;
    }
}

/// Where the tag that starts at `at` ends (after its `>`).
fn tag_end(svg: &str, at: usize) -> Option<usize> {
    if !svg[at..].starts_with('<') {
        return None;
    }
    svg[at..].find('>').map(|end| at + end + 1)
}

/// Where the element that starts at `at` ends: after its end tag, or after the tag
/// itself when it closes itself.
fn element_end(svg: &str, at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut tag = at;
    loop {
        let end = tag_end(svg, tag)?;
        let text = &svg[tag..end];
        if text.starts_with("</") {
            depth = depth.checked_sub(1)?;
        } else if !text.ends_with("/>") {
            depth += 1;
        }
        if depth == 0 {
            return Some(end);
        }
        tag = end + svg[end..].find('<')?;
    }
}

/// One step of turning a list into another: at `at` (in the list as the earlier steps
/// left it), remove `removed` items and put in the new list's `inserted`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Splice {
    at: usize,
    removed: usize,
    inserted: Range<usize>,
}

/// The splices that turn `old` into `new`, fewest items removed and inserted (Myers's
/// O(ND) difference algorithm, after the common start and end are set aside).
fn splices<T: PartialEq>(old: &[T], new: &[T]) -> Vec<Splice> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
    );
    let steps = if a.is_empty() || b.is_empty() {
        let mut steps = vec![Step::Remove; a.len()];
        steps.resize(a.len() + b.len(), Step::Insert);
        steps
    } else {
        shortest_edit(a, b)
    };
    let mut out = Vec::new();
    let (mut y, mut index) = (0, 0);
    while index < steps.len() {
        if steps[index] == Step::Keep {
            y += 1;
            index += 1;
            continue;
        }
        let (start, mut removed) = (y, 0);
        while let Some(&step) = steps.get(index).filter(|&&step| step != Step::Keep) {
            match step {
                Step::Remove => removed += 1,
                _ => y += 1,
            }
            index += 1;
        }
        out.push(Splice {
            at: prefix + start,
            removed,
            inserted: prefix + start..prefix + y,
        });
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Keep,
    Remove,
    Insert,
}

/// The shortest edit script from `a` to `b`, in order (Myers, 1986: the furthest
/// reaching path on each diagonal for D = 0, 1, ... differences, then back along it).
fn shortest_edit<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Step> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = n + m;
    let index = |k: isize| (k + max) as usize;
    let mut furthest = vec![0isize; 2 * max as usize + 2];
    let mut trace = Vec::new();
    'search: for d in 0..=max {
        trace.push(furthest.clone());
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && furthest[index(k - 1)] < furthest[index(k + 1)]) {
                furthest[index(k + 1)]
            } else {
                furthest[index(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            furthest[index(k)] = x;
            if x >= n && y >= m {
                break 'search;
            }
        }
    }
    let mut steps = Vec::with_capacity((n + m) as usize);
    let (mut x, mut y) = (n, m);
    for (d, furthest) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let k = x - y;
        let previous = if k == -d || (k != d && furthest[index(k - 1)] < furthest[index(k + 1)]) {
            k + 1
        } else {
            k - 1
        };
        let previous_x = furthest[index(previous)];
        let previous_y = previous_x - previous;
        while x > previous_x && y > previous_y {
            steps.push(Step::Keep);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            steps.push(if x == previous_x {
                Step::Insert
            } else {
                Step::Remove
            });
        }
        x = previous_x;
        y = previous_y;
    }
    steps.reverse();
    steps
}

fn join_comments<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn state<G: Game>(position: &G) -> String {
    match (position.awaiting(), position.outcome()) {
        (Some(awaited), _) => awaited,
        (None, Some(outcome)) => outcome.to_string(),
        (None, None) => format!("{} to move", position.side_to_move()),
    }
}

/// JSON text safe inside a `<script>` element. An HTML5 parser leaves a script's text
/// only at `</script` and changes how it reads the rest after `<!--` (a later `<script`
/// would then make it pass over the real `</script>`), in any letter case. JSON has `<`
/// only inside strings, where `<\/` and `\u003c` read back as `</` and `<`: every `</`
/// becomes `<\/` (the pictures' end tags, one byte more each) and every `<!` and
/// `<script` becomes `\u003c!` and `\u003cscript`, so the parser sees none of the three.
fn json(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut rest = text.as_str();
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest.as_bytes()[at + 1..];
        if after.first() == Some(&b'/') {
            out.push_str("<\\/");
            rest = &rest[at + 2..];
            continue;
        }
        let opens_script = after
            .get(..6)
            .is_some_and(|name| name.eq_ignore_ascii_case(b"script"));
        if after.first() == Some(&b'!') || opens_script {
            out.push_str("\\u003c");
        } else {
            out.push('<');
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

const STYLE: &str = "\
body{font-family:system-ui,sans-serif;background:#f6f1e7;color:#222;margin:1.5em}\
section.game{display:grid;grid-template-columns:minmax(300px,540px) minmax(14em,1fr);\
gap:1em 2em;margin-bottom:3em;padding:1em;background:#fffdf8;border:1px solid #d8ccb4;border-radius:8px}\
section.game.active{border-color:#8a6a3a;box-shadow:0 0 0 2px #e6d3a8}\
section.game>div{min-width:0}header{grid-column:1/-1}h1{font-size:1.3em}h2{margin:0;font-size:1.2em}\
.subtitle{margin:.2em 0;color:#6b5a44}.board svg{width:100%;height:auto;display:block}\
.controls{display:flex;gap:.4em;margin:.6em 0}.controls button{font-size:1.1em;padding:.2em .8em}\
.status{font-weight:600}.comment{font-style:italic;min-height:1.4em;color:#4a3b28}\
ol.moves{list-style:none;padding:0;margin:0;line-height:1.9;max-height:30em;overflow:auto;overflow-wrap:break-word}\
ol.moves li{display:inline}.num{color:#8a7a62;margin-left:.3em}\
.ply{cursor:pointer;padding:.1em .3em;border-radius:4px}\
.ply.current{background:#e8c75a;color:#000;font-weight:600}.result{font-weight:600}";

const SCRIPT: &str = r#"(function () {
  "use strict";
  var EVERY = 64;
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.game"));
  var active = null;
  function activate(game) {
    if (active) { active.section.classList.remove("active"); }
    active = game;
    game.section.classList.add("active");
  }
  function setup(section) {
    // Each ply: [number, token, comments, status, new entries, splices].
    var data = JSON.parse(section.querySelector("script.frames").textContent);
    var board = section.querySelector(".board");
    var comment = section.querySelector(".comment");
    var status = section.querySelector(".status");
    var entries = [];
    var texts = [];
    var plies = [];
    var list = document.createDocumentFragment();
    data.forEach(function (ply, n) {
      ply[4].forEach(function (entry) { entries.push(entry); });
      var item = document.createElement("li");
      if (ply[0]) {
        var number = document.createElement("span");
        number.className = "num";
        number.textContent = ply[0];
        item.appendChild(number);
      }
      var move = document.createElement("span");
      move.className = "ply";
      move.setAttribute("data-ply", String(n));
      move.textContent = n === 0 ? "start" : ply[1];
      item.appendChild(move);
      list.appendChild(item);
      plies.push(move);
    });
    section.querySelector("ol.moves").appendChild(list);
    // An entry's text: a string, or its texts and the numbers of the drawings in it.
    function text(id) {
      if (texts[id] === undefined) {
        var entry = entries[id];
        texts[id] = typeof entry === "string" ? entry : entry.map(function (piece) {
          return typeof piece === "number" ? text(piece) : piece;
        }).join("");
      }
      return texts[id];
    }
    // The parts of the picture at ply `at`, and copies at every EVERY-th ply passed.
    var parts = [];
    var at = -1;
    var saved = [];
    function partsAt(n) {
      if (n < at) {
        var kept = Math.floor(n / EVERY);
        parts = saved[kept].slice();
        at = kept * EVERY;
      }
      while (at < n) {
        at += 1;
        var splices = data[at][5];
        for (var i = 0; i < splices.length; i += 3 + splices[i + 2]) {
          var args = [splices[i], splices[i + 1]];
          Array.prototype.splice.apply(parts,
            args.concat(splices.slice(i + 3, i + 3 + splices[i + 2])));
        }
        if (at % EVERY === 0) { saved[at / EVERY] = parts.slice(); }
      }
      return parts;
    }
    var game = { section: section, ply: 0, last: data.length - 1 };
    var current = null;
    game.show = function (n) {
      n = Math.max(0, Math.min(game.last, n));
      game.ply = n;
      board.innerHTML = partsAt(n).map(text).join("");
      if (current) {
        current.classList.remove("current");
        current.removeAttribute("aria-current");
      }
      current = plies[n];
      current.classList.add("current");
      current.setAttribute("aria-current", "step");
      current.scrollIntoView({ block: "nearest" });
      comment.textContent = data[n][2];
      status.textContent = (n === 0 ? "start" : "after ply " + n) + ": " + text(data[n][3]);
      section.setAttribute("data-ply", String(n));
    };
    var steps = {
      first: function () { return 0; },
      back: function () { return game.ply - 1; },
      forward: function () { return game.ply + 1; },
      last: function () { return game.last; }
    };
    section.addEventListener("click", function (event) {
      activate(game);
      var target = event.target.closest("[data-step], .ply");
      if (!target) { return; }
      var step = target.getAttribute("data-step");
      game.show(step ? steps[step]() : Number(target.getAttribute("data-ply")));
    });
    game.steps = steps;
    game.show(0);
    return game;
  }
  var games = sections.map(setup);
  if (games.length > 0) { activate(games[0]); }
  document.addEventListener("keydown", function (event) {
    if (!active) { return; }
    var keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    var step = keys[event.key];
    if (!step) { return; }
    event.preventDefault();
    active.show(active.steps[step]());
  });
})();"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies splices as the page's script does.
    fn apply<'a>(mut list: Vec<&'a str>, new: &[&'a str], splices: &[Splice]) -> Vec<&'a str> {
        for splice in splices {
            list.splice(
                splice.at..splice.at + splice.removed,
                new[splice.inserted.clone()].iter().copied(),
            );
        }
        list
    }

    #[test]
    fn splices_turn_the_old_list_into_the_new_one_with_fewest_changes() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "", 3),
            ("abcabba", "cbabac", 5),
            ("svg title a b c d /svg", "svg other a c d e /svg", 4),
            ("a b c d e f", "a x c d y f", 4),
            ("x", "x", 0),
        ];
        for (old, new, changed) in cases {
            let split = |text: &'static str| -> Vec<&'static str> {
                if text.contains(' ') {
                    text.split(' ').collect()
                } else {
                    text.split_terminator("").skip(1).collect()
                }
            };
            let (old, new) = (split(old), split(new));
            let splices = splices(&old, &new);
            assert_eq!(
                apply(old.clone(), &new, &splices),
                new,
                "{old:?} -> {new:?}"
            );
            let count: usize = splices.iter().map(|s| s.removed + s.inserted.len()).sum();
            assert_eq!(count, *changed, "{old:?} -> {new:?}: {splices:?}");
        }
    }

    #[test]
    fn a_picture_is_cut_into_its_elements_and_its_groups_children() {
        let svg = "<svg a=\"1\"><title>Chess: x &lt; y</title><rect/><g id=\"pieces\">\
                   <g id=\"piece-a1\"><g transform=\"translate(1 2) scale(3)\"><path/></g></g>\
                   <circle/></g><g id=\"empty\"></g></svg>\n";
        let parts: Vec<&str> = parts(svg).into_iter().map(|r| &svg[r]).collect();
        assert_eq!(
            parts,
            [
                "<svg a=\"1\">",
                "<title>Chess: x &lt; y</title>",
                "<rect/>",
                "<g id=\"pieces\">",
                "<g id=\"piece-a1\"><g transform=\"translate(1 2) scale(3)\"><path/></g></g>",
                "<circle/>",
                "</g>",
                "<g id=\"empty\">",
                "</g>",
                "</svg>\n"
            ]
        );
        assert_eq!(parts.concat(), svg);
        let piece = parts[4];
        let found: Vec<&str> = drawings(piece).into_iter().map(|r| &piece[r]).collect();
        assert_eq!(found, ["<path/>"]);
        let whole: Vec<Range<usize>> = std::iter::once(0..13).collect();
        assert_eq!(super::parts("not a picture"), whole);
    }
}
