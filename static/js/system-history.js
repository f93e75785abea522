// An engine's or a CPU model's page: each entry's terminal rate on the date it was submitted,
// and the best so far as a step line up to the last entry.
(function () {
  "use strict";

  function draw(element, history) {
    var best = history.best;
    var steps = {
      x: best.map(function (result) { return result.when; }).concat([history.until]),
      y: best.map(function (result) { return result.rate; }).concat([best[best.length - 1].rate]),
      text: best.map(function (result) { return result.label; }).concat([best[best.length - 1].label]),
      name: "best so far", type: "scatter", mode: "lines", line: { shape: "hv", color: "#dc2626", width: 2 },
      hovertemplate: "%{y:,.0f} rows/s<extra>%{text}</extra>",
    };
    var points = {
      x: history.entries.map(function (result) { return result.when; }),
      y: history.entries.map(function (result) { return result.rate; }),
      text: history.entries.map(function (result) { return result.label; }),
      name: "entries", type: "scatter", mode: "markers", marker: { color: "#2563eb", size: 8 },
      hovertemplate: "%{y:,.0f} rows/s<extra>%{text}</extra>",
    };
    var layout = {
      margin: { t: 50, r: 20, b: 70, l: 70 },
      xaxis: { title: { text: "submitted" }, type: "date" },
      yaxis: { title: { text: "terminal rate (rows/s)" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", x: 0, y: -0.25 },
      hovermode: "closest",
      updatemenus: [window.IIBenchPlots.scaleButtons(["yaxis"])],
    };
    window.Plotly.newPlot(element, [points, steps], window.IIBenchTheme.layout(layout),
      window.IIBenchPlots.config("iibench-best-over-time"));
  }

  var element = document.getElementById("system-history");
  var data = document.getElementById("system-history-data");
  if (element && data) draw(element, JSON.parse(data.textContent));
})();
