/* Sweep page: live progress. Reads the initial status from <script id="sweep-status-data"> (json_script),
 * then polls the JSON status endpoint (data-status-url) about once a second while the sweep is waiting or
 * running, updating the bar, percent, counts, configurations per second and ETA in place. When the sweep stops
 * (done, cancelled, failed) the page reloads once to show the results. No inline scripts, no build step. */
(function () {
  "use strict";

  var POLL_MS = 1000;
  var RETRY_MS = 3000;

  function setField(root, name, value) {
    Array.prototype.forEach.call(root.querySelectorAll('[data-field="' + name + '"]'), function (el) {
      el.textContent = value;
    });
  }

  function apply(root, status) {
    var bar = root.querySelector("progress");
    if (bar) {
      bar.value = status.percent;
      bar.textContent = status.percent + " %";
    }
    setField(root, "percent", status.percent.toFixed(1));
    setField(root, "status_label", status.status_label);
    setField(root, "chunks_done", String(status.chunks_done));
    ["enumerated", "total", "evaluated", "feasible", "configs_per_s", "eta", "elapsed"].forEach(function (key) {
      setField(root, key, status.text[key]);
    });
    var badge = root.querySelector("#sweep-status");
    if (badge) { badge.className = "badge badge-" + status.status; }
    var error = root.querySelector("#sweep-error");
    if (error) {
      error.textContent = status.error || "";
      error.hidden = !status.error;
    }
    var resume = document.getElementById("resume-form");
    if (resume) { resume.hidden = !status.stalled; }
    var pending = document.getElementById("pending-note");
    if (pending && status.status !== "pending") { pending.hidden = true; }
    root.setAttribute("data-status", status.status);
  }

  function start(root, initial) {
    var url = root.getAttribute("data-status-url");
    function poll() {
      fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (status) {
          apply(root, status);
          if (status.active) {
            window.setTimeout(poll, POLL_MS);
          } else {
            window.location.reload();
          }
        })
        .catch(function () { window.setTimeout(poll, RETRY_MS); });
    }
    apply(root, initial);
    if (initial.active) { window.setTimeout(poll, POLL_MS); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("sweep-progress");
    var data = document.getElementById("sweep-status-data");
    if (!root || !data) { return; }
    start(root, JSON.parse(data.textContent));
  });
})();
