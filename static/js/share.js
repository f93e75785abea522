// The entry page's "Copy" buttons: put a snippet on the clipboard and say so.
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.dataset.copy);
      field.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, done);
      else done();
    });
  });
})();
