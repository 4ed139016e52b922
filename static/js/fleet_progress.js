/* Fleet plan page: while the plan waits for a worker or solves, poll its JSON status (data-status-url) about once
 * a second, move the progress bar and phase, and reload once when it stops. No inline scripts, no build step. */
(function () {
  "use strict";
  var POLL_MS = 1000;
  var root = document.getElementById("fleet-status");
  if (!root) { return; }
  var status = root.getAttribute("data-status");
  if ((status !== "pending" && status !== "running") || !root.getAttribute("data-status-url")) { return; }
  function poll() {
    fetch(root.getAttribute("data-status-url"), {credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (s) {
        var bar = root.querySelector("progress");
        if (bar) { bar.value = s.progress; }
        var phase = root.querySelector('[data-field="phase"]');
        if (phase) { phase.textContent = s.phase; }
        if (s.done) { window.location.reload(); } else { window.setTimeout(poll, POLL_MS); }
      })
      .catch(function () { window.setTimeout(poll, 3 * POLL_MS); });
  }
  window.setTimeout(poll, POLL_MS);
})();
