/* Scenario form: shows only the sections that apply, and recalculates live. Every change posts the form to
 * the preview endpoint (data-preview-url), which answers JSON {ok, headline_html, charts, errors, server_ms};
 * the headline, the charts and the messages next to the fields update without reloading the page. */
(function () {
  "use strict";

  var DEBOUNCE_MS = 250;
  var form = document.getElementById("scenario-form");
  if (!form) { return; }
  var previewUrl = form.getAttribute("data-preview-url");
  var headline = document.getElementById("live-headline");
  var chartsBox = document.getElementById("live-charts");
  var formErrors = document.getElementById("live-errors");
  var statusBox = document.getElementById("live-status");
  var liveBox = document.querySelector(".live-inner");
  var staleNote = document.getElementById("live-stale-note");
  var bar = document.getElementById("live-bar");
  var barVerdict = document.getElementById("live-bar-verdict");
  var barFigures = document.getElementById("live-bar-figures");
  var timer = null;
  var inFlight = null;
  var sequence = 0;

  function valueOf(name) {
    var checked = form.querySelector('input[name="' + name + '"]:checked');
    if (checked) { return checked.value; }
    var el = form.elements.namedItem(name);
    return el && el.value !== undefined ? el.value : "";
  }

  function applyVisibility() {
    Array.prototype.forEach.call(form.querySelectorAll("[data-show-when]"), function (el) {
      var rule = el.getAttribute("data-show-when").split("=");
      var allowed = rule[1].split("|");
      el.hidden = allowed.indexOf(valueOf(rule[0])) === -1;
    });
    var source = valueOf("gpu_source");
    toggleField("gpu", source === "catalog");
    toggleField("system", source === "system");
    toggleField("gpus_per_node", source !== "system");
    var kind = valueOf("workload_kind");
    toggleField("model_preset", kind !== "job");
    toggleField("precision", kind !== "job");
    toggleField("tokens_b", kind === "training");
    toggleField("optimizer", kind === "training");
    var customModel = document.getElementById("fs-custom_model");
    if (customModel && kind === "job") { customModel.hidden = true; }
    toggleField("colocation", valueOf("facility") === "colocation");
    var manual = kind === "training" && valueOf("parallelism_mode") === "manual";
    toggleField("parallelism_mode", kind === "training");
    toggleField("global_batch", kind === "training");
    ["tp", "pp"].forEach(function (name) { toggleField(name, manual || kind === "inference"); });
    ["dp", "cp", "ep", "zero_stage", "recompute", "micro_batch"].forEach(function (name) {
      toggleField(name, manual);
    });
  }

  function toggleField(name, visible) {
    var wrapper = document.getElementById("field-" + name);
    if (wrapper) { wrapper.hidden = !visible; }
  }

  var barStatus = document.getElementById("live-bar-status");

  function setStatus(text) {
    if (statusBox) { statusBox.textContent = text; }
    if (barStatus) { barStatus.textContent = text.indexOf("updated") === 0 ? "" : text; }
  }

  /* The summary bar (narrow screens, where the live panel sits under the form): the verdict and the headline
   * figures marked data-short, copied from the live panel after each update. */
  function updateBar() {
    if (!bar) { return; }
    var verdict = headline.querySelector(".verdict");
    barVerdict.textContent = verdict ? (verdict.classList.contains("verdict-good") ? "Fits" : "Does not fit") : "";
    barVerdict.className = "live-bar-verdict" + (verdict ? (verdict.classList.contains("verdict-good") ? " good" : " bad") : "");
    barFigures.textContent = "";
    Array.prototype.forEach.call(headline.querySelectorAll(".kpi[data-short]"), function (kpi) {
      var value = kpi.querySelector(".kpi-value");
      if (!value) { return; }
      var item = document.createElement("span");
      item.className = "live-bar-figure";
      var label = document.createElement("small");
      label.textContent = kpi.getAttribute("data-short");
      item.appendChild(label);
      item.appendChild(document.createTextNode(" " + value.textContent.replace(/[ \t\r\n]+/g, " ").trim()));
      barFigures.appendChild(item);
    });
    bar.hidden = false;
  }

  /* While the form has errors every figure (headline, bar and charts) is greyed out: they belong to the last
   * inputs that worked, not to what is on the form now. */
  function setStale(stale) {
    if (liveBox) { liveBox.classList.toggle("stale", stale); }
    if (bar) { bar.classList.toggle("stale", stale); }
    if (staleNote) { staleNote.hidden = !stale; }
    if (stale && bar && bar.hidden) {
      barVerdict.textContent = "No estimate yet";
      barVerdict.className = "live-bar-verdict bad";
      bar.hidden = false;
    }
  }

  /* The bar steps aside while the live panel's own headline is on screen. */
  if (bar && window.IntersectionObserver) {
    new IntersectionObserver(function (entries) {
      bar.classList.toggle("covered", entries[0].isIntersecting);
    }).observe(headline);
  }

  function showErrors(errors) {
    Array.prototype.forEach.call(form.querySelectorAll(".field"), function (wrapper) {
      var name = wrapper.getAttribute("data-field");
      var list = document.getElementById("errors-" + name);
      var messages = errors[name] || [];
      wrapper.classList.toggle("field-error", messages.length > 0);
      if (!list) { return; }
      list.textContent = "";
      messages.forEach(function (message) {
        var item = document.createElement("li");
        item.textContent = message;
        list.appendChild(item);
      });
      var input = wrapper.querySelector("input, select, textarea");
      if (input) {
        if (messages.length) { input.setAttribute("aria-invalid", "true"); }
        else { input.removeAttribute("aria-invalid"); }
      }
    });
    formErrors.textContent = "";
    (errors.__all__ || []).forEach(function (message) {
      var p = document.createElement("p");
      p.textContent = message;
      formErrors.appendChild(p);
    });
  }

  function preview() {
    if (!previewUrl) { return; }
    if (inFlight) { inFlight.abort(); }
    var controller = window.AbortController ? new AbortController() : null;
    inFlight = controller;
    var mine = ++sequence;
    setStatus("calculating…");
    chartsBox.classList.add("updating");
    fetch(previewUrl, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-Requested-With": "fetch", "Accept": "application/json" },
      credentials: "same-origin",
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      if (response.status === 429) {  // fair-use limit: say so and try once more when it allows
        return response.json().then(function (body) {
          if (mine !== sequence) { return null; }
          setStatus(((body.errors || {}).__all__ || ["paused"])[0]);
          window.clearTimeout(timer);
          timer = window.setTimeout(preview, 1000 * (body.retry_after_s || 5));
          return null;
        });
      }
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.json();
    }).then(function (body) {
      if (!body || mine !== sequence) { return; }
      showErrors(body.errors || {});
      chartsBox.classList.remove("updating");
      if (body.ok) {
        headline.innerHTML = body.headline_html;
        window.PlannerCharts.render(chartsBox, body.charts || []);
        setStale(false);
        updateBar();
        setStatus("updated in " + Math.round(body.server_ms) + " ms");
        form.setAttribute("data-preview-count", String(mine));
      } else {
        setStale(true);
        setStatus("fix the highlighted fields");
      }
    }).catch(function (error) {
      if (error && error.name === "AbortError") { return; }
      setStatus("could not update (" + error.message + ")");
    });
  }

  function schedule() {
    applyVisibility();
    window.clearTimeout(timer);
    timer = window.setTimeout(preview, DEBOUNCE_MS);
  }

  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  applyVisibility();
  preview();
})();
