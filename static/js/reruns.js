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

  // A rerun of several steps (three key types; a crash recovery's insert) draws one curve per
  // step: each step's rows start again from its first report.
  var STEP_COLORS = ["#16a34a", "#2563eb", "#9333ea", "#ea580c"];
  var ONE_RUN_STEPS = ["", "insert"];

  function stepTraceName(step) {
    return ONE_RUN_STEPS.indexOf(step) >= 0 ? "rerun (cumulative)" : "rerun: " + step + " (cumulative)";
  }

  // Where the result says something happened on the curve: deletes began, the server was killed.
  function resultMarkers(result) {
    var marks = [];
    if (result && result.deletes_start_row) marks.push([result.deletes_start_row, "deletes begin"]);
    if (result && result.rows_at_crash) marks.push([result.rows_at_crash, "SIGKILL"]);
    return marks;
  }

  function startPlot(card, claimed, rowsTarget) {
    var plot = card.querySelector(".rerun-plot");
    var traces = [];
    // A scaled verification is the whole claim at 1/k: its rows are drawn divided by k, so the
    // two cliffs fall at the same place; any other run is the claim's first rows.
    var divisor = Number(card.dataset.claimDivisor) || 1;
    if (claimed) {
      var xs = [], ys = [];
      for (var i = 0; i < claimed.x.length; i++) {
        var x = claimed.x[i] / divisor;
        if (x <= rowsTarget || xs.length === 0) { xs.push(x); ys.push(claimed.y[i]); }
      }
      var name = divisor > 1 ? "claimed, rows / " + divisor + " (cumulative)" : "claimed (cumulative)";
      traces.push({ x: xs, y: ys, name: name, mode: "lines+markers", line: { color: "#dc2626", dash: "dot" } });
    }
    window.Plotly.newPlot(plot, traces, window.IIBenchTheme.layout({
      margin: { t: 20, r: 20, b: 45, l: 70 }, height: 280,
      xaxis: { title: { text: "rows inserted" }, tickformat: ",d" },
      yaxis: { title: { text: "rows/s" }, tickformat: ",d", rangemode: "tozero" },
      legend: { orientation: "h", y: 1.15 },
    }), { responsive: true, displaylogo: false });
    return plot;
  }

  function watch(card, claimed) {
    var api = card.dataset.api, samplesUrl = card.dataset.samples;
    var rowsTarget = Number(card.querySelector("progress").max);
    var plot = startPlot(card, claimed, rowsTarget);
    var lastId = 0;
    var stepTraces = {};
    var marked = false;

    function traceFor(step) {
      if (!(step in stepTraces)) {
        var count = Object.keys(stepTraces).length;
        window.Plotly.addTraces(plot, {
          x: [], y: [], name: stepTraceName(step), mode: "lines+markers",
          line: { color: STEP_COLORS[count % STEP_COLORS.length] },
        });
        stepTraces[step] = plot.data.length - 1;
      }
      return stepTraces[step];
    }

    function addSamples(samples) {
      if (!samples.length) return;
      lastId = samples[samples.length - 1].id;
      var byStep = {};
      samples.forEach(function (s) {
        var step = s.step || "";
        (byStep[step] = byStep[step] || []).push(s);
      });
      Object.keys(byStep).forEach(function (step) {
        window.Plotly.extendTraces(plot, {
          x: [byStep[step].map(function (s) { return s.rows; })],
          y: [byStep[step].map(function (s) { return s.cumulative_rate; })],
        }, [traceFor(step)]);
      });
    }

    function markResult(result) {
      var marks = resultMarkers(result);
      if (marked || !marks.length) return;
      marked = true;
      window.Plotly.relayout(plot, {
        shapes: marks.map(function (m) {
          return { type: "line", x0: m[0], x1: m[0], yref: "paper", y0: 0, y1: 1, line: { color: "#6b7280", dash: "dash" } };
        }),
        annotations: marks.map(function (m) {
          return { x: m[0], yref: "paper", y: 1, text: m[1], showarrow: false, yanchor: "bottom" };
        }),
      });
    }

    function show(run) {
      card.dataset.status = run.status;
      var status = setField(card, "status", run.status.replace("_", " "));
      status.className = "badge status " + run.status;
      setField(card, "rows_done", number(run.rows_done));
      setField(card, "rate", number(run.rate));
      card.querySelector("progress").value = run.rows_done;
      setField(card, "repeats_done", number(run.repeats_done));
      // Elapsed and time left, as the server counts them at this poll.
      var timing = card.querySelector(".timing");
      if (timing) {
        setField(card, "elapsed", number(run.elapsed_seconds));
        timing.hidden = !run.elapsed_seconds;
        setField(card, "eta", number(run.eta_seconds));
        timing.querySelector(".eta").hidden = !run.eta_seconds;
      }
      setField(card, "message", run.message || "");
      var finished = FINISHED.indexOf(run.status) >= 0;
      var stepLine = card.querySelector(".step-line");
      if (stepLine) {
        setField(card, "step", run.step || "");
        stepLine.hidden = finished || !run.step;
      }
      var summary = run.result && run.result.summary;
      var result = card.querySelector('[data-field="result"]');
      if (result) {
        setField(card, "result-summary", summary || "");
        result.hidden = !summary;
      }
      markResult(run.result);
      var verdict = card.querySelector('[data-field="verdict"]');
      if (run.verdict) {
        verdict.hidden = false;
        verdict.textContent = run.verdict_label || run.verdict.replace("_", " ");
        verdict.className = "badge verdict " + run.verdict;
      }
      // One outcome: a judged run shows its verdict, not "succeeded" beside it.
      status.hidden = run.outcome !== run.status;
      if (FINISHED.indexOf(run.status) >= 0) {
        var cancel = card.querySelector(".cancel-form");
        if (cancel) cancel.remove();
      }
    }

    function poll() {
      Promise.all([
        fetch(samplesUrl + "?after_id=" + lastId, { credentials: "same-origin" }).then(function (r) { return r.json(); }),
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
