// Draws an entry's insertion-rate curve from the downsampled preview embedded in the page.
(function () {
  "use strict";

  function trace(series, name, color, options) {
    options = options || {};
    return {
      x: series.x, y: series.y, name: name, type: "scatter", mode: "lines",
      yaxis: options.yaxis || "y",
      line: { color: color, width: 1.5, dash: options.dash || "solid" },
      hovertemplate: "%{y:,.0f} " + (options.unit || "rows/s") + "<extra>" + name + "</extra>",
    };
  }

  function terminalWindow(element) {
    var start = Number(element.dataset.terminalStart), end = Number(element.dataset.terminalEnd);
    if (!(end > start)) return { shapes: [], annotations: [] };
    return {
      shapes: [{
        type: "rect", xref: "x", yref: "paper", x0: start, x1: end, y0: 0, y1: 1,
        fillcolor: "rgba(234, 179, 8, 0.22)", line: { width: 0 }, layer: "below",
      }],
      annotations: [{
        x: end, xref: "x", xanchor: "right", y: 1, yref: "paper", yanchor: "bottom",
        text: "terminal-rate window", showarrow: false, font: { size: 11, color: "#a16207" },
      }],
    };
  }

  // A track whose figures name where deletes begin: a dashed vertical line there (seed 002's
  // "then the deletions start executing").
  function deletesStart(element) {
    if (!("deletesStart" in element.dataset)) return { shapes: [], annotations: [] };
    var at = Number(element.dataset.deletesStart);
    return {
      shapes: [{
        type: "line", xref: "x", yref: "paper", x0: at, x1: at, y0: 0, y1: 1,
        line: { color: "#16a34a", width: 1.5, dash: "dash" },
      }],
      annotations: [{
        x: at, xref: "x", xanchor: "left", y: 1, yref: "paper", yanchor: "bottom",
        text: "deletes begin", showarrow: false, font: { size: 11, color: "#15803d" },
      }],
    };
  }

  function draw(element, preview) {
    var traces = [];
    if (preview.interval_rate) traces.push(trace(preview.interval_rate, "interval", "#2563eb"));
    if (preview.cumulative_rate) {
      traces.push(trace(preview.cumulative_rate, "cumulative", "#dc2626", { dash: "dot" }));
    }
    if (preview.interval_delete_rate) {
      traces.push(trace(preview.interval_delete_rate, "deletes (interval)", "#16a34a"));
    }
    var queries = Boolean(preview.interval_query_rate);
    if (queries) {
      traces.push(trace(preview.interval_query_rate, "queries (interval)", "#9333ea",
        { dash: "dash", yaxis: "y2", unit: "queries/s" }));
    }
    var band = terminalWindow(element);
    var deletes = deletesStart(element);
    var layout = {
      margin: { t: 50, r: queries ? 70 : 20, b: 90, l: 70 },
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d", hoverformat: ",d" },
      yaxis: { title: { text: "rows/s" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", x: 0, y: -0.22 },
      shapes: band.shapes.concat(deletes.shapes),
      annotations: band.annotations.concat(deletes.annotations),
      hovermode: "x unified",
      updatemenus: [window.IIBenchPlots.scaleButtons(queries ? ["yaxis", "yaxis2"] : ["yaxis"])],
    };
    if (queries) {
      layout.yaxis2 = {
        title: { text: "queries/s" }, overlaying: "y", side: "right", rangemode: "tozero",
        showgrid: false, tickformat: ",d",
      };
    }
    window.Plotly.newPlot(element, traces, window.IIBenchTheme.layout(layout), window.IIBenchPlots.config("iibench-rate-curve"));
  }

  var element = document.getElementById("rate-curve");
  var data = document.getElementById("rate-curve-data");
  if (element && data) draw(element, JSON.parse(data.textContent));
})();
