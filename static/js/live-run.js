// A live run's page: polls the API and grows the curve without a reload, like the reruns'
// live progress (reruns.js), until the run is sealed.
(function () {
  "use strict";
  var POLL_MS = 2000;
  var page = document.getElementById("live-run");
  if (!page || !window.Plotly) return;
  var plot = document.getElementById("live-plot");
  var lastId = 0;

  function number(value, digits) {
    if (value === null || value === undefined) return "—";
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
  }

  // The site's one duration format (site.js), as the page was first drawn with.
  var duration = window.IIBenchDuration;

  function setField(name, text) {
    var element = page.querySelector('[data-field="' + name + '"]');
    if (element) element.textContent = text;
    return element;
  }

  window.Plotly.newPlot(plot, [
    { x: [], y: [], name: "cumulative rate", mode: "lines+markers", line: { color: "#2563eb" } },
    { x: [], y: [], name: "interval rate", mode: "lines", line: { color: "#9ca3af" } },
  ], window.IIBenchTheme.layout({
    margin: { t: 20, r: 20, b: 45, l: 70 }, height: 320,
    xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
    yaxis: { title: { text: "rows/s" }, tickformat: ",d", rangemode: "tozero" },
    legend: { orientation: "h", y: 1.15 },
  }), { responsive: true, displaylogo: false });

  function show(run) {
    page.dataset.state = run.live;
    var state = setField("live", run.live);
    state.className = "badge status " + run.live;
    setField("rows", number(run.rows));
    setField("current_rate", number(run.current_rate));
    setField("terminal_rate", number(run.terminal_rate));
    setField("eta", duration(run.eta_seconds));
    setField("lines", number(run.lines));
    page.querySelector("progress").value = run.rows;
    // What each row cost over the terminal window so far (a C benchmark's cost columns);
    // a figure the log does not carry stays a dash.
    var costs = document.getElementById("live-costs");
    if (costs && run.cost) {
      costs.hidden = false;
      setField("cost_db_size", run.cost.db_size_bytes === null ? "—"
        : number(run.cost.db_size_bytes / 1073741824, 2) + " GiB");
      ["write_kb_per_row", "server_cpu_us_per_row", "client_cpu_us_per_row",
        "machine_cpu_us_per_row"].forEach(function (name) {
        setField("cost_" + name, number(run.cost[name], 2));
      });
    }
    if (run.samples.length) {
      lastId = run.samples[run.samples.length - 1].id;
      window.Plotly.extendTraces(plot, {
        x: [run.samples.map(function (s) { return s.rows; }), run.samples.map(function (s) { return s.rows; })],
        y: [run.samples.map(function (s) { return s.cumulative_rate; }), run.samples.map(function (s) { return s.interval_rate; })],
      }, [0, 1]);
    }
    if (run.live === "sealed") {
      var entry = page.querySelector('[data-field="entry"]');
      entry.textContent = "";
      if (run.entry) {
        var link = document.createElement("a");
        link.className = "button";
        link.href = run.entry.url;
        link.textContent = "Sealed: entry #" + run.entry.id + " (" + run.trust + ")";
        entry.appendChild(link);
      } else {
        entry.textContent = run.seal_message;
      }
    }
    return run.live !== "sealed";
  }

  function poll() {
    fetch(page.dataset.api + "?after=" + lastId, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (run) {
        if (!run || show(run)) window.setTimeout(poll, POLL_MS);
      })
      .catch(function () { window.setTimeout(poll, POLL_MS * 2); });
  }
  poll();
})();
