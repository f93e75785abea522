// Draws what each interval cost per row, below the rate curve and on the same x axis (rows):
// latency, CPU per row, KiB written per row and the database size, one panel each, only the
// panels whose curves the log carries (a missing curve is absent, never drawn as zero).
(function () {
  "use strict";

  var PANELS = [
    { title: "INSERT latency (ms)", curves: [
      ["latency_p99_ms", "p99 latency", "#2563eb", "solid"],
      ["latency_max_ms", "max latency", "#dc2626", "dot"],
    ], format: ",.1f", unit: "ms" },
    { title: "CPU µs per row", curves: [
      ["server_cpu_us_per_row", "server CPU", "#9333ea", "solid"],
      ["client_cpu_us_per_row", "client CPU", "#0891b2", "dot"],
      ["machine_cpu_us_per_row", "machine CPU", "#475569", "dash"],
    ], format: ",.2f", unit: "µs/row" },
    { title: "KiB per row", curves: [
      ["write_kb_per_row", "KiB written", "#ea580c", "solid"],
      ["read_kb_per_row", "KiB read", "#65a30d", "dot"],
    ], format: ",.2f", unit: "KiB/row" },
    { title: "database size (GiB)", curves: [
      ["db_size_gib", "database size", "#0f766e", "solid"],
    ], format: ",.3f", unit: "GiB" },
  ];

  function draw(element, cost) {
    var panels = PANELS.filter(function (panel) {
      return panel.curves.some(function (curve) { return cost[curve[0]]; });
    });
    if (!panels.length) return;
    var gap = 0.06, height = (1 - gap * (panels.length - 1)) / panels.length;
    var traces = [], layout = {
      margin: { t: 20, r: 20, b: 90, l: 80 },
      legend: { orientation: "h", x: 0, y: -0.12 },
      hovermode: "x unified",
      // The same reports as the rate curve: the same x range once Plotly fits it.
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d", hoverformat: ",d" },
    };
    panels.forEach(function (panel, i) {
      var axis = i === 0 ? "y" : "y" + (i + 1);
      var top = 1 - i * (height + gap);
      layout[i === 0 ? "yaxis" : "yaxis" + (i + 1)] = {
        title: { text: panel.title, font: { size: 11 } }, domain: [top - height, top],
        rangemode: "tozero", tickformat: ",~g", anchor: "x",
      };
      panel.curves.forEach(function (curve) {
        var series = cost[curve[0]];
        if (!series) return;
        traces.push({
          x: series.x, y: series.y, name: curve[1], type: "scatter", mode: "lines",
          yaxis: axis, line: { color: curve[2], width: 1.5, dash: curve[3] },
          hovertemplate: "%{y:" + panel.format + "} " + panel.unit + "<extra>" + curve[1] +
            "</extra>",
        });
      });
    });
    // The shared x axis sits under the bottom panel.
    layout.xaxis.anchor = panels.length > 1 ? "y" + panels.length : "y";
    element.dataset.panels = panels.map(function (panel) { return panel.title; }).join("|");
    window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout(layout), { responsive: true, displaylogo: false });
  }

  var element = document.getElementById("cost-curves");
  var data = document.getElementById("cost-curves-data");
  if (element && data) draw(element, JSON.parse(data.textContent));
})();
