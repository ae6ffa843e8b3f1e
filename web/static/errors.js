// The error summary's links take the focus to the question's first
// control (its chosen option, if any), its legend in view, rather than to
// the question's frame, as GOV.UK's error summary does. Without this
// script a link focuses the frame (fieldset, tabindex -1).
//
// A link followed with Enter is followed on the key's way down: the focus
// moves once the key is up, or Enter would reach the control (a line in a
// text, or the form sent from a radio button).
(function () {
  "use strict";
  var summary = document.querySelector(".error-summary");
  if (!summary) return;
  summary.addEventListener("click", function (e) {
    var link = e.target.closest("a[href^='#q-']");
    if (!link) return;
    var question = document.getElementById(link.getAttribute("href").slice(1));
    if (!question) return;
    var control = question.querySelector("input[type=radio]:checked, input[type=checkbox]:checked") ||
      question.querySelector("input:not([type=hidden]), select, textarea");
    if (!control) return;
    e.preventDefault();
    (question.querySelector("legend") || question).scrollIntoView();
    var focus = function () { control.focus({ preventScroll: true }); };
    if (e.detail !== 0) return focus(); // a pointer's click
    var done = false;
    var once = function () {
      if (done) return;
      done = true;
      document.removeEventListener("keyup", once, true);
      focus();
    };
    document.addEventListener("keyup", once, true);
    setTimeout(once, 500); // activated with no key (a screen reader's click)
  });
})();
