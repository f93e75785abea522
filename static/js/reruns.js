// Live progress of verification reruns: polls the API, grows the curve, shows the verdict
// when the run ends, all without reloading the page. The plot draws what the judge compares:
// the claim and each rerun over the fraction of its own run, each rate over its own start
// (a 1/k rerun on another disk runs at other rows/s; its curve's shape is what is judged).
(function () {
  "use strict";
  var FINISHED = ["succeeded", "failed", "cancelled", "timed_out"];
  var POLL_MS = 1000;

  function claimedCurve() {
    var data = document.getElementById("rate-curve-data");
    if (!data) return null;
    var preview = JSON.parse(data.textContent);
    return preview.interval_rate || preview.cumulative_rate || null;
  }

  var START_POINTS = 3; // a run's start rate: the median of its first three reports

  function startRate(ys) {
    var first = ys.slice(0, START_POINTS).filter(function (y) { return y > 0; }).sort(function (a, b) { return a - b; });
    return first.length ? first[Math.floor(first.length / 2)] : null;
  }

  // Over the fraction of the run, each rate over the run's start rate.
  function normalised(xs, ys, total) {
    var start = startRate(ys);
    return {
      x: xs.map(function (x) { return total ? x / total : 0; }),
      y: ys.map(function (y) { return start ? y / start : null; }),
    };
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
    return ONE_RUN_STEPS.indexOf(step) >= 0 ? "rerun (over its start)" : "rerun: " + step + " (over its start)";
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
    if (claimed && claimed.x.length) {
      // A scaled verification is the whole claim at 1/k: both over their whole run. Any other
      // run is the claim's first rows: the claim over those rows, as a fraction of the run's.
      var scaled = (Number(card.dataset.claimDivisor) || 1) > 1;
      var xs = [], ys = [];
      for (var i = 0; i < claimed.x.length; i++) {
        if (scaled || claimed.x[i] <= rowsTarget || xs.length === 0) { xs.push(claimed.x[i]); ys.push(claimed.y[i]); }
      }
      var claim = normalised(xs, ys, scaled ? claimed.x[claimed.x.length - 1] : rowsTarget);
      traces.push({ x: claim.x, y: claim.y, name: "claimed (over its start)", mode: "lines+markers", line: { color: "#dc2626", dash: "dot" } });
    }
    window.Plotly.newPlot(plot, traces, window.IIBenchTheme.layout({
      margin: { t: 20, r: 20, b: 45, l: 70 }, height: 280,
      xaxis: { title: { text: "fraction of the run" }, tickformat: ".0%", range: [0, 1] },
      yaxis: { title: { text: "rate / its start rate" }, type: "log" },
      legend: { orientation: "h", y: 1.15 },
    }), { responsive: true, displaylogo: false });
    return plot;
  }

  // The verdict's one sentence first; the paragraph behind it folded away.
  function showHeadline(card, headline) {
    var head = card.querySelector('[data-field="headline"]');
    if (!head || !headline) return;
    head.hidden = false;
    head.replaceChildren(document.createElement("strong"));
    head.firstChild.textContent = headline;
    var message = card.querySelector('[data-field="message"]');
    if (message && !message.closest("details")) {
      var details = document.createElement("details");
      details.className = "verdict-details";
      var summary = document.createElement("summary");
      summary.textContent = "How this verdict was reached";
      details.appendChild(summary);
      message.parentNode.insertBefore(details, message);
      details.appendChild(message);
    }
  }

  // One progress bar a run of the repeats: the done ones whole, the one under way as far as
  // it got (the card's first bar, with its rate), the rest empty.
  function showRepeats(card, run) {
    var repeats = card.querySelectorAll("[data-repeat]");
    if (!repeats.length) return;
    var done = Math.min(run.repeats_done, repeats.length);
    setField(card, "current_repeat", number(Math.min(done + 1, repeats.length)));
    repeats.forEach(function (item, index) {
      var rows = index < done ? run.rows_target : index === done ? run.rows_done : 0;
      item.querySelector("progress").value = rows;
      item.querySelector("[data-repeat-rows]").textContent = number(rows);
    });
  }

  function watch(card, claimed) {
    // A run that ended before inserting a row has no plot (the page says so): nothing to draw.
    if (!card.querySelector(".rerun-plot")) return;
    var api = card.dataset.api, samplesUrl = card.dataset.samples;
    var rowsTarget = Number(card.querySelector("progress").max);
    var plot = startPlot(card, claimed, rowsTarget);
    var lastId = 0;
    var stepTraces = {};
    var stepPoints = {}; // each step's rows and interval rates so far: redrawn normalised
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
        var points = stepPoints[step] = stepPoints[step] || { x: [], y: [] };
        byStep[step].forEach(function (s) { points.x.push(s.rows); points.y.push(s.interval_rate); });
        var drawn = normalised(points.x, points.y, rowsTarget);
        window.Plotly.restyle(plot, { x: [drawn.x], y: [drawn.y] }, [traceFor(step)]);
      });
    }

    function markResult(result) {
      var marks = resultMarkers(result);
      if (marked || !marks.length) return;
      marked = true;
      window.Plotly.relayout(plot, {
        shapes: marks.map(function (m) {
          var x = m[0] / rowsTarget;
          return { type: "line", x0: x, x1: x, yref: "paper", y0: 0, y1: 1, line: { color: "#6b7280", dash: "dash" } };
        }),
        annotations: marks.map(function (m) {
          return { x: m[0] / rowsTarget, yref: "paper", y: 1, text: m[1], showarrow: false, yanchor: "bottom" };
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
      showRepeats(card, run);
      // Elapsed and time left, as the server counts them at this poll.
      var timing = card.querySelector(".timing");
      if (timing) {
        setField(card, "elapsed", window.IIBenchDuration(run.elapsed_seconds));
        timing.hidden = !run.elapsed_seconds;
        setField(card, "eta", window.IIBenchDuration(run.eta_seconds));
        timing.querySelector(".eta").hidden = !run.eta_seconds;
      }
      // The card reads the verdict with each figure said once (runner/verdict_reading.py);
      // the judge's words as stored are the API's message, headline and result.
      var reading = run.reading || {};
      setField(card, "message", reading.message || run.message || "");
      setField(card, "ratio-words", reading.ratio || "");
      showHeadline(card, run.headline);
      var finished = FINISHED.indexOf(run.status) >= 0;
      var stepLine = card.querySelector(".step-line");
      if (stepLine) {
        setField(card, "step", run.step || "");
        stepLine.hidden = finished || !run.step;
      }
      var summary = reading.measured;
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
