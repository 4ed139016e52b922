/* Compare-GPUs charts: reads the JSON that the page embeds with json_script and draws two Plotly charts.
 * (a) dense BF16 TFLOPS vs memory bandwidth, bubble area = memory, colour = vendor;
 * (b) dense BF16 TFLOPS per watt of TDP, one bar per GPU, best first. */
(function () {
  "use strict";

  var dataNode = document.getElementById("gpu-chart-data");
  if (!dataNode || typeof Plotly === "undefined") { return; }
  var data = JSON.parse(dataNode.textContent);
  var colours = data.colours || {};
  var FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif", size: 13, color: "#1c2430" };
  var CONFIG = { responsive: true, displaylogo: false, modeBarButtonsToRemove: ["lasso2d", "select2d", "autoScale2d"] };
  var MAX_BUBBLE_PX = 46;

  function vendorsOf(rows) {
    var seen = [];
    rows.forEach(function (row) { if (seen.indexOf(row.vendor) < 0) { seen.push(row.vendor); } });
    return seen.sort();
  }

  function fmt(value, decimals) {
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: decimals });
  }

  /* GPUs with identical bandwidth and BF16 (B200 and B300, GB200 and MI355X) sit on one spot: each one's
   * hover names the others so none is hidden. */
  function sharedSpotNames(points) {
    var bySpot = {};
    points.forEach(function (p) {
      var key = p.mem_bandwidth_tbs + "|" + p.bf16_tflops;
      (bySpot[key] = bySpot[key] || []).push(p);
    });
    var names = {};
    points.forEach(function (p) {
      var others = bySpot[p.mem_bandwidth_tbs + "|" + p.bf16_tflops].filter(function (q) { return q.id !== p.id; });
      names[p.id] = others.length ? "<br><i>Same spot: " + others.map(function (q) {
        return q.model + " (" + fmt(q.memory_gb, 1) + " GB)";
      }).join(", ") + "</i>" : "";
    });
    return names;
  }

  function drawBandwidthChart(node, points) {
    var sameSpot = sharedSpotNames(points);
    var maxMemory = Math.max.apply(null, points.map(function (p) { return p.memory_gb || 0; }));
    var traces = vendorsOf(points).map(function (vendor) {
      // Largest first, so a smaller bubble on the same spot is drawn on top of a larger one.
      var rows = points.filter(function (p) { return p.vendor === vendor; })
        .sort(function (a, b) { return (b.memory_gb || 0) - (a.memory_gb || 0); });
      return {
        type: "scatter",
        mode: "markers",
        name: vendor,
        x: rows.map(function (p) { return p.mem_bandwidth_tbs; }),
        y: rows.map(function (p) { return p.bf16_tflops; }),
        customdata: rows.map(function (p) {
          return [p.model, fmt(p.memory_gb, 1), p.tdp_w === null ? "not published" : fmt(p.tdp_w, 0) + " W", sameSpot[p.id]];
        }),
        hovertemplate: "<b>%{customdata[0]}</b><br>BF16 dense: %{y:,} TFLOPS<br>Memory bandwidth: %{x} TB/s" +
          "<br>Memory: %{customdata[1]} GB<br>TDP: %{customdata[2]}%{customdata[3]}<extra>" + vendor + "</extra>",
        marker: {
          size: rows.map(function (p) { return p.memory_gb || 0; }),
          sizemode: "area",
          sizeref: (2 * maxMemory) / (MAX_BUBBLE_PX * MAX_BUBBLE_PX),
          sizemin: 5,
          color: colours[vendor] || "#6b7280",
          opacity: 0.72,
          line: { color: "#ffffff", width: 1 }
        }
      };
    });
    var layout = {
      title: { text: "Dense BF16 throughput vs memory bandwidth (bubble area = memory, GB)", font: { size: 17 } },
      font: FONT,
      xaxis: { title: { text: "Memory bandwidth (TB/s)" }, rangemode: "tozero", zeroline: false, gridcolor: "#e6e9ee" },
      yaxis: { title: { text: "Dense BF16 (TFLOPS)" }, rangemode: "tozero", zeroline: false, gridcolor: "#e6e9ee", tickformat: "," },
      legend: { title: { text: "Vendor" }, orientation: "v" },
      margin: { l: 70, r: 20, t: 60, b: 60 },
      height: 480,
      hovermode: "closest",
      plot_bgcolor: "#ffffff",
      paper_bgcolor: "#ffffff"
    };
    Plotly.newPlot(node, traces, layout, CONFIG);
  }

  function drawEfficiencyChart(node, rows) {
    var order = rows.map(function (r) { return r.model; });
    var traces = vendorsOf(rows).map(function (vendor) {
      var subset = rows.filter(function (r) { return r.vendor === vendor; });
      return {
        type: "bar",
        orientation: "h",
        name: vendor,
        y: subset.map(function (r) { return r.model; }),
        x: subset.map(function (r) { return r.tflops_per_w; }),
        text: subset.map(function (r) { return fmt(r.tflops_per_w, 2); }),
        textposition: "outside",
        cliponaxis: false,
        customdata: subset.map(function (r) { return [fmt(r.bf16_tflops, 1), fmt(r.tdp_w, 0)]; }),
        hovertemplate: "<b>%{y}</b><br>%{x:.2f} TFLOPS per W<br>BF16 dense: %{customdata[0]} TFLOPS" +
          "<br>TDP: %{customdata[1]} W<extra>" + vendor + "</extra>",
        marker: { color: colours[vendor] || "#6b7280" }
      };
    });
    var layout = {
      title: { text: "Dense BF16 TFLOPS per watt of TDP", font: { size: 17 } },
      font: FONT,
      barmode: "overlay",
      xaxis: { title: { text: "TFLOPS per watt (dense BF16 TFLOPS ÷ TDP in W)" }, rangemode: "tozero", gridcolor: "#e6e9ee" },
      yaxis: { categoryorder: "array", categoryarray: order.slice().reverse(), automargin: true, title: { text: "" } },
      legend: { title: { text: "Vendor" } },
      margin: { l: 20, r: 40, t: 60, b: 60 },
      height: Math.max(360, 120 + rows.length * 26),
      plot_bgcolor: "#ffffff",
      paper_bgcolor: "#ffffff"
    };
    Plotly.newPlot(node, traces, layout, CONFIG);
  }

  var bandwidthNode = document.getElementById("chart-bandwidth");
  var efficiencyNode = document.getElementById("chart-efficiency");
  if (bandwidthNode) { drawBandwidthChart(bandwidthNode, data.points || []); }
  if (efficiencyNode) { drawEfficiencyChart(efficiencyNode, data.efficiency || []); }
})();
