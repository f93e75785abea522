// Live progress of verification reruns: polls the API, grows the curve, shows the verdict
// when the run ends, all without reloading the page.
(function () {
  "use strict";
  var FINISHED = ["succeeded", "failed", "cancelled", "timed_out"];
  var POLL_MS = 1000;

  function claimedCurve() {
    var data = document.getElementById("rate-curve-data");
    if (!data) return null;
    var preview = JSON.parse(data.textContent);
    return preview.cumulative_rate || null;
  }

  function number(value, digits) {
    if (value === null || value === undefined) return "—";
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
  }

  function setField(card, name, text) {
    var element = card.querySelector('[data-field="' + name + '"]');
    if (element) element.textContent = text;
    return element;
  }

  function startPlot(card, claimed, rowsTarget) {
    var plot = card.querySelector(".rerun-plot");
    var traces = [{ x: [], y: [], name: "rerun (cumulative)", mode: "lines+markers", line: { color: "#16a34a" } }];
    if (claimed) {
      var xs = [], ys = [];
      for (var i = 0; i < claimed.x.length; i++) {
        if (claimed.x[i] <= rowsTarget || xs.length === 0) { xs.push(claimed.x[i]); ys.push(claimed.y[i]); }
      }
      traces.push({ x: xs, y: ys, name: "claimed (cumulative)", mode: "lines+markers", line: { color: "#dc2626", dash: "dot" } });
    }
    window.Plotly.newPlot(plot, traces, {
      margin: { t: 20, r: 20, b: 45, l: 70 }, height: 280,
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
      yaxis: { title: { text: "rows/s" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", y: 1.15 },
    }, { responsive: true, displaylogo: false });
    return plot;
  }

  function watch(card, claimed) {
    var api = card.dataset.api, samplesUrl = card.dataset.samples;
    var rowsTarget = Number(card.querySelector("progress").max);
    var plot = startPlot(card, claimed, rowsTarget);
    var lastRows = 0;

    function addSamples(samples) {
      if (!samples.length) return;
      lastRows = samples[samples.length - 1].rows;
      window.Plotly.extendTraces(plot, {
        x: [samples.map(function (s) { return s.rows; })],
        y: [samples.map(function (s) { return s.cumulative_rate; })],
      }, [0]);
    }

    function show(run) {
      card.dataset.status = run.status;
      var status = setField(card, "status", run.status.replace("_", " "));
      status.className = "badge status " + run.status;
      setField(card, "rows_done", number(run.rows_done));
      setField(card, "rate", number(run.rate));
      card.querySelector("progress").value = run.rows_done;
      setField(card, "message", run.message || "");
      var verdict = card.querySelector('[data-field="verdict"]');
      if (run.verdict) {
        verdict.hidden = false;
        verdict.textContent = run.verdict.replace("_", " ");
        verdict.className = "badge verdict " + run.verdict;
      }
      if (FINISHED.indexOf(run.status) >= 0) {
        var cancel = card.querySelector(".cancel-form");
        if (cancel) cancel.remove();
      }
    }

    function poll() {
      Promise.all([
        fetch(samplesUrl + "?after=" + lastRows, { credentials: "same-origin" }).then(function (r) { return r.json(); }),
        fetch(api, { credentials: "same-origin" }).then(function (r) { return r.json(); }),
      ]).then(function (results) {
        addSamples(results[0]);
        show(results[1]);
        if (FINISHED.indexOf(results[1].status) < 0) window.setTimeout(poll, POLL_MS);
      }).catch(function () { window.setTimeout(poll, POLL_MS * 3); });
    }
    poll();
  }

  if (!window.Plotly) return;
  var claimed = claimedCurve();
  document.querySelectorAll("[data-rerun]").forEach(function (card) { watch(card, claimed); });
})();
