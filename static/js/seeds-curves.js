// The seeds' table page: each comparison's runs as interval rate against rows inserted.
(function () {
  "use strict";

  var data = document.getElementById("seeds-curves-data");
  if (!data) return;
  var curves = JSON.parse(data.textContent);
  document.querySelectorAll(".seeds-curve").forEach(function (element) {
    var runs = curves[element.dataset.comparison] || [];
    if (!runs.length) return;
    var traces = runs.map(function (run) {
      return {
        x: run.rows, y: run.rates, name: run.name, type: "scatter", mode: "lines",
        hovertemplate: "%{x:,d} rows: %{y:,.0f} rows/s<extra>" + run.name + "</extra>",
      };
    });
    var layout = {
      margin: { t: 50, r: 20, b: 70, l: 70 },
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
      yaxis: { title: { text: "insertion rate (rows/s)" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", x: 0, y: -0.25 },
      hovermode: "closest",
      updatemenus: [window.IIBenchPlots.scaleButtons(["yaxis"])],
    };
    window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout(layout),
      window.IIBenchPlots.config("iibench-seeds-" + element.dataset.comparison));
  });
})();
