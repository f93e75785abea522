// The home page: each engine's best average rate so far, month by month (a step line).
(function () {
  "use strict";

  var data = document.getElementById("engine-bests-data");
  var element = document.getElementById("engine-bests");
  if (!data || !element) return;
  var lines = JSON.parse(data.textContent);
  var traces = lines.map(function (line) {
    return {
      x: line.months, y: line.rates, name: line.name, type: "scatter", mode: "lines+markers",
      line: { shape: "hv" },
      hovertemplate: "%{x|%b %Y}: %{y:,.0f} rows/s<extra>" + line.name + "</extra>",
    };
  });
  var layout = {
    margin: { t: 50, r: 20, b: 60, l: 80 },
    xaxis: { title: { text: "month" }, type: "date" },
    yaxis: { title: { text: "best average rate (rows/s)" }, tickformat: ",d", rangemode: "tozero" },
    legend: { orientation: "h", x: 0, y: -0.2 },
    hovermode: "closest",
    updatemenus: [window.IIBenchPlots.scaleButtons(["yaxis"])],
  };
  window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout(layout),
    window.IIBenchPlots.config("iibench-engine-bests"));
})();
