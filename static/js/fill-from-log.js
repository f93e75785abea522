// The entry form's "Fill from my log": the chosen log goes to the preview API (which stores
// nothing), and the declaration fields it states are filled in and marked "from the log". Without
// this script the form is the plain form: every field asked.
(function () {
  "use strict";

  var form = document.querySelector("form.entry-form[data-preview-url]");
  var step = form && form.querySelector(".fill-from-log");
  var input = form && form.querySelector("input[type=file][name=log]");
  if (!step || !input) return;
  var button = step.querySelector("#fill-from-log");
  var status = step.querySelector("#fill-from-log-status");
  step.hidden = false;

  function say(text, isError) {
    status.textContent = text;
    status.classList.toggle("error", Boolean(isError));
  }

  function unmark(field) {
    field.querySelectorAll(".from-log, .from-log-source").forEach(function (node) { node.remove(); });
    delete field.dataset.fromLog;
  }

  function mark(field, source, value) {
    unmark(field);
    var badge = document.createElement("span");
    badge.className = "from-log";
    badge.textContent = "from the log";
    // Inside the label: the field's name reads "CPU model: from the log" to a screen reader too.
    var label = field.querySelector("label");
    if (label) label.appendChild(badge);
    var where = document.createElement("small");
    where.className = "from-log-source";
    where.textContent = source;
    field.querySelector("input, select, textarea").after(where);
    field.dataset.fromLog = String(value);
  }

  // A value the entrant changes afterwards is theirs, no longer the log's.
  form.addEventListener("input", function (event) {
    var field = event.target.closest(".field[data-from-log]");
    if (field && event.target.value !== field.dataset.fromLog) unmark(field);
  });

  function fill(found) {
    var filled = [];
    form.querySelectorAll(".field[data-from-log]").forEach(unmark);
    Object.keys(found.from_log).forEach(function (name) {
      var field = form.querySelector('.field[data-field="' + name + '"]');
      var control = field && field.querySelector("[name=" + name + "]");
      if (!control) return;
      var value = String(found.from_log[name]);
      if (control.tagName === "SELECT" &&
          !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) {
        return;
      }
      var label = field.querySelector("label");
      filled.push(label ? label.textContent.trim().replace(/:$/, "") : name);
      control.value = value;
      mark(field, found.sources[name] || "", value);
    });
    if (!filled.length) {
      say("Your log (" + found.log_format + ") states none of the declaration's fields: fill them in below.");
      return;
    }
    say("Filled from your log (" + found.log_format + "): " + filled.join(", ") +
      ". Check them, and fill in the rest.");
  }

  function errorText(body, status_) {
    if (!body) return "The registry could not read the log (HTTP " + status_ + ").";
    if (body.detail) return body.detail;
    return Object.keys(body).map(function (key) {
      return [].concat(body[key]).join(" ");
    }).join(" ");
  }

  button.addEventListener("click", function () {
    if (!input.files || !input.files.length) {
      say("Choose the log file first, then fill from it.", true);
      input.focus();
      return;
    }
    var data = new FormData();
    data.append("log", input.files[0]);
    data.append("contest", form.dataset.contest || "");
    var token = form.querySelector("[name=csrfmiddlewaretoken]");
    button.disabled = true;
    say("Reading your log…");
    fetch(form.dataset.previewUrl, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": token ? token.value : "", Accept: "application/json" },
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        if (response.ok && body) fill(body);
        else say(errorText(body, response.status), true);
      });
    }).catch(function () {
      say("The registry could not be reached: fill in the fields below.", true);
    }).then(function () { button.disabled = false; });
  });
})();
