// The designer, enhanced: changing a question's kind shows its settings at
// once (the page's "Change kind" button, pressed for you); the page lands
// on the question a button was about. Without this script every control
// works the same, a press away.
(function () {
  "use strict";
  var form = document.getElementById("designer");
  if (!form) return;
  // A rule's comparison that takes no answer ("is answered") hides its
  // answer; the choices of a rule's question come with the page, so
  // choosing another question fetches them ("Show its choices", pressed
  // for you, which is then not needed on the page).
  function showValue(op) {
    var rule = op.closest(".dl-rule");
    var value = rule && rule.querySelector(".dl-value");
    if (value) value.hidden = op.value === "answered" || op.value === "not_answered";
  }
  Array.prototype.forEach.call(form.querySelectorAll(".dl-op"), showValue);
  Array.prototype.forEach.call(form.querySelectorAll(".dl-apply"), function (b) { b.hidden = true; });
  form.addEventListener("change", function (e) {
    var sel = e.target;
    if (!sel.classList) return;
    if (sel.classList.contains("dl-op")) { showValue(sel); return; }
    if (!sel.classList.contains("dq-type") && !sel.classList.contains("dl-q")) return;
    var button = document.getElementById(sel.getAttribute("data-apply"));
    if (!button) return;
    if (form.requestSubmit) form.requestSubmit(button); else button.click();
  });
  var errors = document.getElementById("designer-errors");
  if (errors) { errors.focus(); return; }
  var focus = document.querySelector("#designer [autofocus]");
  if (focus && focus.scrollIntoView) focus.scrollIntoView({ block: "center" });
})();
