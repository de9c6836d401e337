// The play page of `pbem play`: the board, the move list, and the turn built by clicks;
// on the list of games (`/`), its Sync button.
// The server lists the legal turns of the position with the places that build each
// (`turns`: {token, clicks}); a click keeps the turns whose clicks start with the clicks
// so far. Plain JavaScript, no build step, nothing from the network.
"use strict";

(function () {
  const game = decodeURIComponent(location.pathname.replace(/^\/game\//, ""));
  const $ = (id) => document.getElementById(id);
  let view = null; // the last view of the server
  let shown = null; // the ply shown, null for the end
  let clicks = []; // the places clicked so far
  let chosen = null; // a turn picked among those that share the clicks
  let busy = false;

  // --- Narrowing: the one code the clicks, the choices and the test hooks use. ---

  // The turns whose clicks start with `picked`, the places that may come next, and the
  // turns whose clicks are all made (those are told apart by buttons).
  function narrow(turns, picked) {
    const left = turns.filter((turn) => picked.every((place, i) => turn.clicks[i] === place));
    const next = [];
    const done = [];
    for (const turn of left) {
      if (turn.clicks.length > picked.length) {
        const place = turn.clicks[picked.length];
        if (!next.includes(place)) next.push(place);
      } else {
        done.push(turn);
      }
    }
    return { left, next, done };
  }

  // The turn the clicks have built: the only one left.
  function single(state) {
    return state.left.length === 1 ? state.left[0].token : null;
  }

  // The buttons to tell turns apart: the finished turns, when more than one turn is left.
  function choicesOf(state) {
    return state.left.length > 1 ? state.done.map((turn) => turn.token) : [];
  }

  // Whether a click on `place` restarts the turn there.
  function starts(turns, place) {
    return turns.some((turn) => turn.clicks[0] === place);
  }

  // Every token the page can build from `turns`, found by walking every click and every
  // choice through `narrow` (not by reading the list), and the awaited parts offered.
  function walk(turns, parts) {
    const found = new Set(parts);
    const go = (picked) => {
      const state = narrow(turns, picked);
      const one = single(state);
      if (one !== null) {
        found.add(one);
        return;
      }
      for (const token of choicesOf(state)) found.add(token);
      for (const place of state.next) go(picked.concat([place]));
    };
    if (turns.length > 0) go([]);
    return Array.from(found).sort();
  }

  // --- The server. ---

  async function fetchView(ply, since) {
    const query = new URLSearchParams();
    if (ply !== null && ply !== undefined) query.set("ply", String(ply));
    if (since !== undefined) query.set("since", String(since));
    const text = query.toString();
    const answer = await fetch("/api/game/" + encodeURIComponent(game) + (text ? "?" + text : ""));
    if (!answer.ok) throw new Error(await answer.text());
    return answer.json();
  }

  // A change asked of the server at `url`: what it printed goes to #messages, then
  // `after(ok)` shows what changed.
  async function ask(url, body, after) {
    if (busy) return;
    busy = true;
    try {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
      });
      let ok = answer.ok;
      let output;
      if ((answer.headers.get("Content-Type") || "").startsWith("application/json")) {
        const acted = await answer.json();
        ok = ok && acted.ok;
        output = acted.output;
      } else {
        output = await answer.text();
      }
      say(output, !ok);
      await after(ok);
    } catch (error) {
      say(String(error), true);
    } finally {
      busy = false;
    }
  }

  // A change of the game shown (`/api/game/ID/ACTION`).
  function post(action, body) {
    return ask("/api/game/" + encodeURIComponent(game) + "/" + action, body, async (ok) => {
      if (ok) $("token").value = "";
      await load(null);
    });
  }

  // The list of games (`/`) as the server writes it now.
  async function relist() {
    const answer = await fetch("/");
    if (!answer.ok) throw new Error(await answer.text());
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    $("games").replaceChildren(...fresh.getElementById("games").childNodes);
  }

  function say(text, failed) {
    $("messages").textContent = text;
    $("messages").classList.toggle("error", failed);
  }

  // --- Drawing. ---

  async function load(ply) {
    try {
      const fresh = await fetchView(ply);
      shown = ply;
      view = fresh;
      draw();
    } catch (error) {
      say(String(error.message || error), true);
    }
  }

  function setText(id, text) {
    $(id).textContent = text || "";
  }

  function draw() {
    document.body.dataset.version = String(view.version);
    document.body.classList.toggle("local", view.local);
    document.title = "pbem play: " + view.id;
    setText("title", view.id === "local" ? "a game played locally" : view.id);
    $("board").innerHTML = view.svg;
    addMarks();
    setText("turn", view.turn);
    setText("clocks", view.clocks);
    setText("hand", view.hand);
    setText("awaited", view.awaiting);
    const moves = $("moves");
    moves.textContent = "";
    const entry = (ply, text) => {
      const item = document.createElement("li");
      item.dataset.ply = String(ply);
      item.textContent = text;
      if (ply === view.ply) item.classList.add("shown");
      moves.appendChild(item);
    };
    // A long game's list is a window around the ply shown: "..." at either end shows
    // the ply just outside it, and the list around that one.
    entry(0, "start");
    if (view.plies_from > 0) entry(view.plies_from, "...");
    view.plies.forEach((token, index) => entry(view.plies_from + index + 1, token));
    const listedEnd = view.plies_from + view.plies.length;
    if (listedEnd < view.plies_total) entry(listedEnd + 1, "...");
    const refused = $("refused");
    refused.textContent = "";
    for (const line of view.refused) {
      const item = document.createElement("li");
      item.textContent = "refused mail " + line;
      refused.appendChild(item);
    }
    const list = $("tokens");
    list.textContent = "";
    for (const token of view.turns.map((turn) => turn.token).concat(view.awaited_parts)) {
      const option = document.createElement("option");
      option.value = token;
      list.appendChild(option);
    }
    clicks = [];
    chosen = null;
    mark();
  }

  // The looks of a target, unlike the last turn's yellow squares: a dot on an empty place,
  // a ring of corners on a place with a piece (a capture, a stack), as the SVG's own
  // gradients (`fill: url(#...)` in page.css); places with a piece get `occupied`.
  function addMarks() {
    const svg = $("board").querySelector("svg");
    if (!svg) return;
    const ns = "http://www.w3.org/2000/svg";
    const defs = document.createElementNS(ns, "defs");
    const gradient = (id, stops) => {
      const radial = document.createElementNS(ns, "radialGradient");
      radial.setAttribute("id", id);
      radial.setAttribute("r", id === "pbem-ring" ? "0.75" : "0.5");
      for (const [offset, opacity] of stops) {
        const stop = document.createElementNS(ns, "stop");
        stop.setAttribute("offset", offset);
        stop.setAttribute("stop-color", "#0b6b3a");
        stop.setAttribute("stop-opacity", opacity);
        radial.appendChild(stop);
      }
      defs.appendChild(radial);
    };
    gradient("pbem-dot", [["0", "0.6"], ["0.34", "0.6"], ["0.36", "0"], ["1", "0"]]);
    gradient("pbem-ring", [["0", "0"], ["0.78", "0"], ["0.8", "0.6"], ["1", "0.6"]]);
    svg.insertBefore(defs, svg.firstChild);
    const pieces = new Set(
      Array.from(svg.querySelectorAll('[id^="piece-"]'), (piece) => piece.id.slice(6)),
    );
    for (const place of svg.querySelectorAll("[data-place]")) {
      place.classList.toggle("occupied", pieces.has(place.getAttribute("data-place")));
    }
  }

  // Marks the places that may be clicked next and those clicked, shows the turn built
  // and the choices.
  function mark() {
    const state = narrow(view.turns, clicks);
    const targets = new Set(state.next);
    for (const place of $("board").querySelectorAll("[data-place]")) {
      const name = place.getAttribute("data-place");
      place.classList.toggle("target", targets.has(name) && chosen === null);
      place.classList.toggle("picked", clicks.includes(name));
    }
    const one = chosen || single(state);
    let built = one;
    if (built === null && clicks.length > 0) built = commonPrefix(state.left.map((t) => t.token));
    setText("built", built);
    const choices = $("choices");
    choices.textContent = "";
    const offered = chosen === null
      ? (clicks.length > 0 ? choicesOf(state) : []).concat(view.awaited_parts)
      : [];
    for (const token of offered) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.token = token;
      button.textContent = token;
      choices.appendChild(button);
    }
    // A turn is tried anywhere but played only at the game's end.
    $("confirm").disabled = (one === null && $("token").value.trim() === "") ||
      (view !== null && view.ply < view.plies_total);
  }

  function commonPrefix(tokens) {
    if (tokens.length === 0) return "";
    let prefix = tokens[0];
    for (const token of tokens) {
      while (!token.startsWith(prefix)) prefix = prefix.slice(0, -1);
    }
    return prefix;
  }

  // --- What the player does. ---

  function clickPlace(place) {
    if (!view) return;
    const state = narrow(view.turns, clicks);
    if (chosen === null && state.next.includes(place)) {
      clicks.push(place);
    } else if (starts(view.turns, place)) {
      clicks = [place];
      chosen = null;
    } else {
      clicks = [];
      chosen = null;
    }
    mark();
  }

  // The ply a turn was built on goes with it: the server plays it only if the game is
  // still there (not an earlier ply looked at, nor a game that moved on meanwhile).
  function confirm() {
    const state = narrow(view.turns, clicks);
    const token = chosen || single(state) || $("token").value.trim();
    if (token) post("move", { token: token, ply: view.ply });
  }

  function step(to) {
    const end = view ? view.plies_total : 0;
    const now = shown === null ? end : shown;
    const ply = Math.max(0, Math.min(end, to(now, end)));
    load(ply === end ? null : ply);
  }

  document.addEventListener("DOMContentLoaded", () => {
    // The list of games: its Sync runs `pbem sync` (a game the opponent started comes
    // in by its first mail), then lists the games again.
    if ($("games")) {
      $("sync").addEventListener("click", () => ask("/api/sync", {}, relist));
      return;
    }
    $("board").addEventListener("click", (event) => {
      const place = event.target.closest("[data-place]");
      if (place) clickPlace(place.getAttribute("data-place"));
    });
    $("choices").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-token]");
      if (!button) return;
      chosen = button.dataset.token;
      mark();
    });
    $("undo").addEventListener("click", () => {
      if (chosen !== null) chosen = null;
      else clicks.pop();
      mark();
    });
    $("confirm").addEventListener("click", confirm);
    $("typed").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = $("token").value.trim();
      if (token) post("move", { token: token, ply: view.ply });
    });
    $("token").addEventListener("input", mark);
    $("send").addEventListener("click", () => post("send"));
    $("sync").addEventListener("click", () => post("sync"));
    $("draw-offer").addEventListener("click", () => post("draw", { action: "offer" }));
    $("draw-accept").addEventListener("click", () => post("draw", { action: "accept" }));
    $("draw-claim").addEventListener("click", () => post("draw", { action: "claim" }));
    $("resign").addEventListener("click", () => {
      if (window.confirm("Resign this game?")) post("resign");
    });
    $("moves").addEventListener("click", (event) => {
      const item = event.target.closest("[data-ply]");
      if (item && view) {
        const ply = Number(item.dataset.ply);
        load(ply === view.plies_total ? null : ply);
      }
    });
    $("first").addEventListener("click", () => step(() => 0));
    $("back").addEventListener("click", () => step((now) => now - 1));
    $("forward").addEventListener("click", () => step((now) => now + 1));
    $("last").addEventListener("click", () => step((now, end) => end));
    document.addEventListener("keydown", (event) => {
      if (event.target === $("token")) return;
      const moves = { ArrowLeft: (now) => now - 1, ArrowRight: (now) => now + 1,
        Home: () => 0, End: (now, end) => end };
      if (moves[event.key]) {
        event.preventDefault();
        step(moves[event.key]);
      }
    });
    load(null);
    // A turn played in another tab, or taken in by `pbem sync`, shows without a reload.
    setInterval(async () => {
      if (!view || busy) return;
      try {
        const fresh = await fetchView(shown, view.version);
        if (!fresh.unchanged) {
          view = fresh;
          draw();
        }
      } catch (error) {
        // The server stopped: say so once.
        if (!$("messages").classList.contains("error")) say(String(error.message || error), true);
      }
    }, 2000);
  });

  // Hooks for the browser tests.
  window.pbem = {
    buildable: () => (view ? walk(view.turns, view.awaited_parts) : []),
    buildableAt: async (ply) => {
      const at = await fetchView(ply);
      return walk(at.turns, at.awaited_parts);
    },
  };
})();
