// Overlays the interval-rate curves of the entries on the compare page, from their previews.
(function () {
  "use strict";

  var COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
                "#be185d", "#4d7c0f", "#1e293b", "#b45309", "#7c3aed", "#0f766e"];

  // Plotly reads <a href>, <b>, <span style> and entities in trace names as markup: a label
  // holds what entrants typed, so it is escaped to show as the text it is.
  function plain(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function draw(element, curves) {
    var traces = curves.map(function (curve, index) {
      return {
        x: curve.interval_rate.x, y: curve.interval_rate.y, name: plain(curve.label),
        type: "scatter", mode: "lines", line: { color: COLORS[index % COLORS.length], width: 1.5 },
        hovertemplate: "%{x:,} rows: %{y:,.0f} rows/s<extra>" + plain(curve.label) + "</extra>",
      };
    });
    var layout = {
      margin: { t: 50, r: 20, b: 50, l: 70 },
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
      yaxis: { title: { text: "rows/s (interval)" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", y: -0.2 },
      hovermode: "closest",
      updatemenus: [window.IIBenchPlots.scaleButtons()],
    };
    window.Plotly.newPlot(element, traces, layout, { responsive: true, displaylogo: false });
  }

  var element = document.getElementById("compare-curves");
  var data = document.getElementById("compare-data");
  if (element && data) draw(element, JSON.parse(data.textContent));
})();
