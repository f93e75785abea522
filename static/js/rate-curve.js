// Draws an entry's insertion-rate curve from the downsampled preview embedded in the page.
(function () {
  "use strict";

  function trace(series, name, color, dash) {
    return {
      x: series.x, y: series.y, name: name, type: "scatter", mode: "lines",
      line: { color: color, width: 1.5, dash: dash || "solid" },
      hovertemplate: "%{x:,} rows<br>%{y:,.0f} rows/s<extra>" + name + "</extra>",
    };
  }

  function terminalBand(element) {
    var start = Number(element.dataset.terminalStart), end = Number(element.dataset.terminalEnd);
    if (!(end > start)) return [];
    return [{
      type: "rect", xref: "x", yref: "paper", x0: start, x1: end, y0: 0, y1: 1,
      fillcolor: "rgba(234, 179, 8, 0.18)", line: { width: 0 }, layer: "below",
    }];
  }

  function draw(element, preview) {
    var traces = [];
    if (preview.interval_rate) traces.push(trace(preview.interval_rate, "interval", "#2563eb"));
    if (preview.cumulative_rate) traces.push(trace(preview.cumulative_rate, "cumulative", "#dc2626", "dot"));
    if (preview.interval_delete_rate) traces.push(trace(preview.interval_delete_rate, "deletes", "#16a34a"));
    var layout = {
      margin: { t: 40, r: 20, b: 50, l: 70 },
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
      yaxis: { title: { text: "rows/s" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", y: 1.12 },
      shapes: terminalBand(element),
      hovermode: "x unified",
      updatemenus: [{
        type: "buttons", direction: "right", x: 1, xanchor: "right", y: 1.2, yanchor: "top",
        buttons: [
          { label: "linear", method: "relayout", args: [{ "yaxis.type": "linear" }] },
          { label: "log", method: "relayout", args: [{ "yaxis.type": "log" }] },
        ],
      }],
    };
    window.Plotly.newPlot(element, traces, layout, { responsive: true, displaylogo: false });
  }

  var element = document.getElementById("rate-curve");
  var data = document.getElementById("rate-curve-data");
  if (element && data) draw(element, JSON.parse(data.textContent));
})();
