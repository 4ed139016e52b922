/* Report page: one click to a PDF. While the report waits for or is on a worker (data-active="1"), poll the
 * JSON status endpoint (data-status-url) about once a second; when it is ready, show the download button and,
 * when the page was opened by a click on "PDF report" (data-download-when-ready), start the download at once.
 * A report that failed or ran past its time limit reloads the page once, which then offers "Try again".
 * Without JavaScript a <noscript> refresh reloads the page instead. No inline scripts, no build step. */
(function () {
  "use strict";

  var POLL_MS = 1000;
  var RETRY_MS = 3000;

  function startDownload(root) {
    var link = root.querySelector("a[data-download]");
    if (!link) { return; }
    link.click();
    // A reload or a return to this page must not download the file again.
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname);
    }
  }

  function showReady(root, status) {
    var active = root.querySelector('[data-when="active"]');
    var ready = root.querySelector('[data-when="ready"]');
    if (!ready) { window.location.reload(); return; }
    var pages = ready.querySelector('[data-field="pages"]');
    if (pages && status.summary) { pages.textContent = status.summary + "."; }
    if (active) { active.hidden = true; }
    ready.hidden = false;
    root.setAttribute("data-status", status.status);
    if (root.hasAttribute("data-download-when-ready")) { startDownload(root); }
  }

  function poll(root) {
    var url = root.getAttribute("data-status-url");
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (status) {
        if (status.ready) {
          showReady(root, status);
        } else if (status.active) {
          var detail = root.querySelector('[data-field="detail"]');
          if (detail && status.status === "running") { detail.textContent = "A worker is rendering the PDF."; }
          root.setAttribute("data-status", status.status);
          window.setTimeout(function () { poll(root); }, POLL_MS);
        } else {
          window.location.reload();  // failed or overdue: the page offers "Try again"
        }
      })
      .catch(function () { window.setTimeout(function () { poll(root); }, RETRY_MS); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("report-status");
    if (!root) { return; }
    if (root.getAttribute("data-active") === "1") {
      window.setTimeout(function () { poll(root); }, POLL_MS);
    } else if (root.getAttribute("data-status") === "done" && root.hasAttribute("data-download-when-ready")) {
      startDownload(root);
    }
  });
})();
