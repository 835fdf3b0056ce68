// Refreshes the pending-approvals list without a page reload. The page is
// complete without this script (it has a refresh link); the script only
// swaps in the server-rendered list when the set of pending protocols
// changes, and never while the operator is typing in it.
(function () {
  "use strict";
  var list = document.getElementById("pending");
  if (!list || !window.fetch) { return; }
  var status = document.getElementById("live-status");
  var url = list.getAttribute("data-live");
  var busy = false;

  function say(text) { if (status) { status.textContent = text; } }

  function tick() {
    if (busy || document.hidden) { return; }
    if (list.contains(document.activeElement) && document.activeElement.tagName === "TEXTAREA") { return; }
    busy = true;
    fetch(url, { credentials: "same-origin", headers: { "X-Console-Have": list.getAttribute("data-version") || "" } })
      .then(function (resp) {
        if (resp.status === 401) { say("Your session has ended; reload the page to sign in."); stop(); return null; }
        if (resp.status === 204 || !resp.ok) { return null; }
        var version = resp.headers.get("X-Console-Version") || "";
        return resp.text().then(function (html) {
          list.innerHTML = html;
          list.setAttribute("data-version", version);
          say("List updated at " + new Date().toLocaleTimeString() + ".");
        });
      })
      .catch(function () { say("Live updates paused: the console is unreachable."); })
      .then(function () { busy = false; });
  }

  var timer = window.setInterval(tick, 3000);
  function stop() { window.clearInterval(timer); }
  say("This list updates itself every few seconds.");
})();
