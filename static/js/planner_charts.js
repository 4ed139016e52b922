/* Renders Plotly figure specs built on the server (planner/reports/charts.py).
 * A page puts its charts in <script type="application/json" id="chart-data"> (json_script) and one
 * <div data-chart="KEY"> per chart; no inline scripts, no build step, plotly.js served from static/. */
(function () {
  "use strict";

  var CONFIG = {
    displaylogo: false,
    responsive: true,
    modeBarButtonsToRemove: ["lasso2d", "select2d", "autoScale2d"],
    toImageButtonOptions: { format: "svg" }
  };

  function chartElement(container, chart) {
    var el = container.querySelector('[data-chart="' + chart.key + '"]');
    if (!el) {
      el = document.createElement("div");
      el.className = "chart";
      el.setAttribute("data-chart", chart.key);
      el.setAttribute("role", "img");
      container.appendChild(el);
    }
    el.setAttribute("aria-label", chart.title);
    return el;
  }

  var NARROW_PX = 560;

  /* A title broken into lines of about `chars` characters (Plotly does not wrap titles itself). */
  function wrapped(text, chars) {
    var lines = [];
    var line = "";
    String(text).split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > chars) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) { lines.push(line); }
    return lines;
  }

  /* On a narrow chart the legend goes below the plot instead of taking width beside it, and the title wraps
   * (about 8 px per character at its size) instead of running off the edge. */
  function fitted(layout, width) {
    if (width >= NARROW_PX) { return layout; }
    var copy = JSON.parse(JSON.stringify(layout));
    copy.legend = { orientation: "h", x: 0, y: -0.22, xanchor: "left", yanchor: "top" };
    copy.margin = copy.margin || {};
    copy.margin.b = 130;
    var title = copy.title && copy.title.text;
    if (title) {
      var lines = wrapped(title, Math.max(20, Math.floor(width / 8)));
      copy.title.text = lines.join("<br>");
      copy.title.font = { size: 14 };
      copy.margin.t = Math.max(copy.margin.t || 0, 24 + 18 * lines.length);
    }
    return copy;
  }

  /* Draw (or redraw in place) every chart into `container`; drop charts that no longer apply. */
  function render(container, charts) {
    if (typeof Plotly === "undefined" || !container) { return; }
    var keep = {};
    charts.forEach(function (chart) {
      keep[chart.key] = true;
      var el = chartElement(container, chart);
      Plotly.react(el, chart.figure.data, fitted(chart.figure.layout, el.clientWidth), CONFIG);
    });
    Array.prototype.forEach.call(container.querySelectorAll("[data-chart]"), function (el) {
      if (!keep[el.getAttribute("data-chart")]) {
        Plotly.purge(el);
        el.parentNode.removeChild(el);
      }
    });
  }

  window.PlannerCharts = { render: render, fitted: fitted, config: CONFIG };

  document.addEventListener("DOMContentLoaded", function () {
    var data = document.getElementById("chart-data");
    if (!data) { return; }
    var container = document.querySelector(".chart-grid") || document.body;
    render(container, JSON.parse(data.textContent));
  });
})();
