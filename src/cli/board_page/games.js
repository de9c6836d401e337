// The list of games of `pbem play` (`/`): its Sync button runs `pbem sync` on the server
// (`POST /api/sync`), shows what it printed in `#messages`, and lists the games again (a
// game the opponent started comes in by its first mail). Plain JavaScript, no build step.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  let busy = false;

  function say(text, failed) {
    $("messages").textContent = text;
    $("messages").classList.toggle("error", failed);
  }

  // The list of games as the server writes it now.
  async function relist() {
    const answer = await fetch("/");
    if (!answer.ok) throw new Error(await answer.text());
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    $("games").replaceChildren(...fresh.getElementById("games").childNodes);
  }

  async function sync() {
    if (busy) return;
    busy = true;
    try {
      const answer = await fetch("/api/sync", { method: "POST" });
      let ok = answer.ok;
      let output;
      if ((answer.headers.get("Content-Type") || "").startsWith("application/json")) {
        const acted = await answer.json();
        ok = ok && acted.ok;
        output = acted.output;
      } else {
        output = await answer.text();
      }
      await relist();
      say(output, !ok);
    } catch (error) {
      say(String(error), true);
    } finally {
      busy = false;
    }
  }

  $("sync").addEventListener("click", sync);
})();
