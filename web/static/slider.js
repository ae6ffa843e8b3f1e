// A slider's position becomes the answer as soon as it moves: the box
// under it ("I have set the slider to my answer") is ticked, and its value
// is shown beside it. Without this script the respondent ticks the box,
// and an untouched slider is no answer either way. Each slider's partial
// loads this script: it runs once per range however often it is loaded.
(function () {
  "use strict";
  document.querySelectorAll("input[type=range][data-answer-if]").forEach(function (range) {
    if (range.hasAttribute("data-live")) return;
    range.setAttribute("data-live", "");
    var box = document.getElementById(range.getAttribute("data-answer-if"));
    var out = document.getElementById(range.id + "-value");
    var show = function () {
      if (!out) return;
      out.textContent = range.value;
      out.hidden = false;
    };
    if (box && box.checked) show();
    range.addEventListener("input", function () {
      if (box && !box.checked) {
        box.checked = true;
        box.dispatchEvent(new Event("change", { bubbles: true }));
      }
      show();
    });
  });
})();
