// Draws the plot of an entry's track from the figures embedded in the page: query time against
// table size, a grouped bar chart per key type, load rates, or recovery times. SVG traces
// (scatter, bar) only: the CSP forbids the eval that WebGL traces need.
(function () {
  "use strict";

  var COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f"];
  var CONFIG = { responsive: true, displaylogo: false };

  function queryTimes(element, data) {
    var traces = [];
    var points = data.figures.points || [];
    traces.push({
      x: points.map(function (p) { return p[0]; }),
      y: points.map(function (p) { return p[1]; }),
      name: "this entry (" + data.figures.source + ")", type: "scatter", mode: "lines+markers",
      line: { color: COLORS[0], width: 1.5 }, marker: { size: 5 },
      hovertemplate: "%{y:.4g} s at %{x:,d} rows<extra>this entry</extra>",
    });
    data.references.forEach(function (reference, index) {
      var refPoints = reference.figures.points || [];
      traces.push({
        x: refPoints.map(function (p) { return p[0]; }),
        y: refPoints.map(function (p) { return p[1]; }),
        name: reference.label, type: "scatter", mode: "lines+markers",
        line: { color: COLORS[(index + 1) % COLORS.length], width: 1, dash: "dot" },
        marker: { size: 7, symbol: "diamond" },
        hovertemplate: "%{y:.4g} s at %{x:,d} rows<extra>" + reference.label + "</extra>",
      });
    });
    var shapes = [], annotations = [];
    if (data.figures.at_rows) {
      shapes.push({
        type: "line", xref: "x", yref: "paper", x0: data.figures.at_rows,
        x1: data.figures.at_rows, y0: 0, y1: 1, line: { color: "#a16207", width: 1, dash: "dash" },
      });
      annotations.push({
        x: data.figures.at_rows, xref: "x", xanchor: "left", y: 0, yref: "paper",
        yanchor: "bottom", text: " ranked at this size", showarrow: false,
        font: { size: 11, color: "#a16207" },
      });
    }
    // The seed's tables held 125M to 202M rows and its queries took seconds to minutes; a run
    // of a million rows answers in milliseconds: log axes show both.
    var wide = data.references.length > 0;
    var buttons = window.IIBenchPlots.scaleButtons(["yaxis"]);
    if (wide) buttons.active = 1;
    window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout({
      margin: { t: 50, r: 20, b: 90, l: 70 },
      xaxis: {
        title: { text: "rows in the table" }, type: wide ? "log" : "linear",
        tickformat: wide ? ",~r" : ",d", hoverformat: ",d",
      },
      yaxis: {
        title: { text: "seconds per query" }, type: wide ? "log" : "linear",
        rangemode: "tozero", tickformat: wide ? ",~r" : "",
      },
      legend: { orientation: "h", x: 0, y: -0.22 },
      shapes: shapes, annotations: annotations,
      updatemenus: [buttons],
    }), CONFIG);
  }

  // Several small bar charts side by side, one per measure; one trace per group and panel,
  // the legend shown once per group.
  function panels(element, measures, groups, valueOf) {
    var traces = [], layout = {
      margin: { t: 40, r: 20, b: 80, l: 60 }, barmode: "group",
      legend: { orientation: "h", x: 0, y: -0.15 }, annotations: [],
    };
    var width = 1 / measures.length;
    measures.forEach(function (measure, m) {
      var suffix = m === 0 ? "" : String(m + 1);
      layout["xaxis" + suffix] = {
        domain: [m * width + 0.04, (m + 1) * width - 0.04], showticklabels: false,
        anchor: "y" + suffix,
      };
      layout["yaxis" + suffix] = {
        anchor: "x" + suffix, rangemode: "tozero", tickformat: measure.format || ",~r",
      };
      layout.annotations.push({
        text: measure.label, xref: "x" + suffix + " domain", yref: "paper", x: 0.5, y: 1.06,
        showarrow: false, font: { size: 12 },
      });
      groups.forEach(function (group, g) {
        var value = valueOf(group, measure);
        traces.push({
          x: [measure.label], y: [value], name: group.label, type: "bar",
          xaxis: "x" + suffix, yaxis: "y" + suffix, legendgroup: group.label,
          showlegend: m === 0, marker: { color: COLORS[g % COLORS.length] },
          hovertemplate: "%{y:,.4~r} " + measure.unit + "<extra>" + group.label + "</extra>",
        });
      });
    });
    window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout(layout), CONFIG);
  }

  var KEY_TYPES = [
    { key: "autoinc", label: "BIGINT auto-increment" },
    { key: "uuid-char", label: "CHAR(36) UUID" },
    { key: "uuid-ordered", label: "ordered BINARY(16) UUID" },
  ];

  function keyTypeBars(element, data) {
    var runs = data.figures.runs || {};
    var groups = KEY_TYPES.filter(function (kind) { return runs[kind.key]; });
    panels(element, [
      { key: "minutes", label: "minutes", unit: "min" },
      { key: "write_rate", label: "rows written/s", unit: "rows/s" },
      { key: "read_rate", label: "range scans/s", unit: "scans/s" },
    ], groups, function (group, measure) {
      var value = runs[group.key][measure.key];
      return value === null || value === undefined ? 0 : value;
    });
  }

  function loadRates(element, data) {
    var groups = [{ label: "this entry", figures: data.figures }].concat(data.references);
    panels(element, [
      { key: "rows_per_s", label: "rows/s", unit: "rows/s" },
      { key: "kv_pairs_per_s", label: "key-value pairs/s", unit: "pairs/s" },
      { key: "mb_per_s", label: "MB/s", unit: "MB/s" },
    ], groups, function (group, measure) { return group.figures[measure.key]; });
  }

  function recoveryBars(element, data) {
    var rows = [{ label: "this entry", figures: data.figures }].concat(data.references);
    // The seed's labels name their rates already.
    var labels = rows.map(function (row, i) {
      if (i > 0) return row.label;
      return row.label + " at " + Number(row.figures.insert_rate).toLocaleString("en") + " rows/s";
    });
    window.Plotly.newPlot(element, [{
      type: "bar", orientation: "h", y: labels,
      x: rows.map(function (row) { return Math.max(row.figures.recovery_seconds, 0.1); }),
      text: rows.map(function (row) { return row.figures.recovery_seconds + " s"; }),
      textposition: "outside",
      marker: { color: rows.map(function (_, i) { return i === 0 ? COLORS[0] : "#9ca3af"; }) },
      hovertemplate: "%{text}<extra>%{y}</extra>",
    }], window.IIBenchTheme.layout({
      margin: { t: 20, r: 60, b: 50, l: 320 },
      xaxis: { title: { text: "seconds to recover" }, type: "log" },
      yaxis: { autorange: "reversed" },
    }), CONFIG);
  }

  var DRAW = {
    query_times: queryTimes,
    key_type_bars: keyTypeBars,
    load_rates: loadRates,
    recovery_bars: recoveryBars,
  };

  var element = document.getElementById("track-plot");
  var source = document.getElementById("track-plot-data");
  if (element && source) {
    var data = JSON.parse(source.textContent);
    if (DRAW[data.kind]) DRAW[data.kind](element, data);
  }
})();
