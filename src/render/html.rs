//! The replay page (`pbem html`): one self-contained HTML file, with no network and no
//! external script, that steps through one or several games. Each game's pictures (one
//! SVG per ply), comments and states travel as JSON inside the page; a small inline
//! script shows one ply at a time, steps with the buttons, the arrow keys (Left, Right,
//! Home, End) or a click on a move, and highlights the current move in the list.

use super::svg::escape;
use super::{Render, svg};
use crate::games::Game;
use crate::notation::Record;
use crate::replay;

/// One game of the page, ready to write.
#[derive(Clone, Debug)]
pub struct PageGame {
    /// The heading: the players, or the event.
    pub title: String,
    /// The line under the heading: the game, the event, the date.
    pub subtitle: String,
    /// The picture after each ply, from the start (index 0).
    pub frames: Vec<String>,
    /// The moves: the move number to show before it (`1.`, `1...` or empty) and the token.
    pub moves: Vec<(String, String)>,
    /// The comments after each ply (index 0: before the first turn).
    pub comments: Vec<String>,
    /// Where the game stands after each ply, in words.
    pub status: Vec<String>,
    /// The result line: the termination marker and, when the rules end the game, why.
    pub result: String,
}

/// Replays `record` in the game `G` and draws every position of its main line.
pub fn game<G: Render>(record: &Record) -> Result<PageGame, String> {
    let replayed = replay::replay_game::<G>(record);
    let Some(start) = replayed.start else {
        let reason = replayed
            .report
            .findings
            .first()
            .map_or_else(|| "invalid setup".to_owned(), |f| f.message.clone());
        return Err(format!("game {}: {reason}", record.number));
    };
    let nodes = &record.moves.turns;
    let mut frames = vec![svg(&start, None)];
    let mut status = vec![state(&start)];
    let mut comments = vec![join_comments(
        record.moves.comments.iter().map(|c| c.text.as_str()),
    )];
    let mut moves = Vec::with_capacity(replayed.turns.len());
    let mut position = start;
    for (index, turn) in replayed.turns.iter().enumerate() {
        let number = match (position.side_to_move(), index) {
            (crate::games::Color::White, _) => format!("{}.", position.fullmove_number()),
            (crate::games::Color::Black, 0) => format!("{}...", position.fullmove_number()),
            _ => String::new(),
        };
        let token = nodes
            .get(index)
            .map_or_else(|| position.write_turn(turn), |node| node.token.to_string());
        let before = position.clone();
        position.play(turn);
        frames.push(svg(&position, Some((&before, turn))));
        status.push(state(&position));
        comments.push(
            nodes
                .get(index)
                .map(|node| join_comments(node.comments.iter().map(|c| c.text.as_str())))
                .unwrap_or_default(),
        );
        moves.push((number, token));
    }
    let white = record.tag("White").unwrap_or("?");
    let black = record.tag("Black").unwrap_or("?");
    let title = format!("{white} – {black}");
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
    Ok(PageGame {
        title,
        subtitle: subtitle.join(" · "),
        frames,
        moves,
        comments,
        status,
        result,
    })
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
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.game"));
  var active = null;
  function activate(game) {
    if (active) { active.section.classList.remove("active"); }
    active = game;
    game.section.classList.add("active");
  }
  function setup(section) {
    var data = JSON.parse(section.querySelector("script.frames").textContent);
    var board = section.querySelector(".board");
    var comment = section.querySelector(".comment");
    var status = section.querySelector(".status");
    var plies = Array.prototype.slice.call(section.querySelectorAll(".ply"));
    var game = { section: section, ply: 0, last: data.frames.length - 1 };
    game.show = function (n) {
      n = Math.max(0, Math.min(game.last, n));
      game.ply = n;
      board.innerHTML = data.frames[n];
      plies.forEach(function (p) {
        var on = Number(p.getAttribute("data-ply")) === n;
        p.classList.toggle("current", on);
        if (on) {
          p.setAttribute("aria-current", "step");
          p.scrollIntoView({ block: "nearest" });
        } else {
          p.removeAttribute("aria-current");
        }
      });
      comment.textContent = data.comments[n];
      status.textContent = (n === 0 ? "start" : "after ply " + n) + ": " + data.status[n];
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

/// The whole page for the given games.
#[must_use]
pub fn page(title: &str, games: &[PageGame]) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!(
        "<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    ));
    out.push_str(&format!("<h1>{}</h1>\n", escape(title)));
    for (index, game) in games.iter().enumerate() {
        let number = index + 1;
        out.push_str(&format!(
            "<section class=\"game\" id=\"game-{number}\" data-ply=\"0\">\n<header><h2>{}</h2>\
             <p class=\"subtitle\">{}</p></header>\n",
            escape(&game.title),
            escape(&game.subtitle)
        ));
        out.push_str("<div>\n<div class=\"board\" aria-live=\"polite\"></div>\n");
        out.push_str(
            "<div class=\"controls\"><button type=\"button\" data-step=\"first\" title=\"Start (Home)\">« Start</button>\
             <button type=\"button\" data-step=\"back\" title=\"Back (Left arrow)\">‹ Back</button>\
             <button type=\"button\" data-step=\"forward\" title=\"Forward (Right arrow)\">Forward ›</button>\
             <button type=\"button\" data-step=\"last\" title=\"End (End)\">End »</button></div>\n",
        );
        out.push_str("</div>\n<div>\n<p class=\"status\"></p>\n<p class=\"comment\"></p>\n<ol class=\"moves\">");
        out.push_str("<li><span class=\"ply\" data-ply=\"0\">start</span></li>");
        for (ply, (number, token)) in game.moves.iter().enumerate() {
            out.push_str("<li>");
            if !number.is_empty() {
                out.push_str(&format!("<span class=\"num\">{}</span>", escape(number)));
            }
            out.push_str(&format!(
                "<span class=\"ply\" data-ply=\"{}\">{}</span></li>",
                ply + 1,
                escape(token)
            ));
        }
        out.push_str("</ol>\n");
        out.push_str(&format!(
            "<p class=\"result\">{}</p>\n</div>\n",
            escape(&game.result)
        ));
        let data = serde_json::json!({
            "frames": game.frames,
            "comments": game.comments,
            "status": game.status,
        });
        out.push_str(&format!(
            "<script type=\"application/json\" class=\"frames\">{}</script>\n</section>\n",
            json(&data)
        ));
    }
    out.push_str(&format!("<script>{SCRIPT}</script>\n</body>\n</html>\n"));
    out
}
