// The designer, enhanced: changing a question's kind shows its settings at
// once (the page's "Change kind" button, pressed for you); the page lands
// on the question a button was about. Without this script every control
// works the same, a press away.
(function () {
  "use strict";
  var form = document.getElementById("designer");
  if (!form) return;
  form.addEventListener("change", function (e) {
    var sel = e.target;
    if (!sel.classList || !sel.classList.contains("dq-type")) return;
    var button = document.getElementById(sel.getAttribute("data-apply"));
    if (!button) return;
    if (form.requestSubmit) form.requestSubmit(button); else button.click();
  });
  var errors = document.getElementById("designer-errors");
  if (errors) { errors.focus(); return; }
  var focus = document.querySelector("#designer [autofocus]");
  if (focus && focus.scrollIntoView) focus.scrollIntoView({ block: "center" });
})();
