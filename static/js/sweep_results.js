/* Sweep page: the Pareto chart (a Plotly figure built on the server, in <script id="sweep-chart-data">) and
 * sortable tables (click a column header; numbers sort by their raw data-value, text alphabetically). */
(function () {
  "use strict";

  /* Drawn like the planning pages' charts (static/js/planner_charts.js: shared options, narrow layout). */
  function drawChart() {
    var data = document.getElementById("sweep-chart-data");
    if (!data || typeof Plotly === "undefined" || !window.PlannerCharts) { return; }
    var chart = JSON.parse(data.textContent);
    var el = document.querySelector('[data-chart="' + chart.key + '"]');
    if (!el) { return; }
    var layout = window.PlannerCharts.fitted(chart.figure.layout, el.clientWidth);
    Plotly.newPlot(el, chart.figure.data, layout, window.PlannerCharts.config);
  }

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var raw = cell.getAttribute("data-value");
    var text = raw === null ? cell.textContent.trim() : raw;
    var number = parseFloat(text);
    return text !== "" && !isNaN(number) && isFinite(text) ? number : text.toLowerCase();
  }

  function sortBy(table, index, button) {
    var body = table.tBodies[0];
    var ascending = button.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index);
      var y = cellValue(b, index);
      if (x === y) { return 0; }
      if (typeof x !== typeof y) { return typeof x === "number" ? -1 : 1; }
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.querySelectorAll("th[aria-sort]"), function (th) {
      th.removeAttribute("aria-sort");
    });
    button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function makeSortable(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) { return; }
    Array.prototype.forEach.call(head.cells, function (th, index) {
      if (!th.textContent.trim()) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.title = "Sort by " + th.textContent.trim();
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, index, th); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawChart();
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  });
})();
