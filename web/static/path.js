// "Page 1 of 2" and the page's button as the respondent answers: when the
// answers so far end the path here (a jump to the end, or no later section
// on it), the button says "Submit answers" and sends them; otherwise "Next
// page". The server works it out (POST …/path, pathProbe: nothing stored),
// from the same rules as the pages; without this script the next page it
// renders says the same.
(function () {
  "use strict";
  var form = document.querySelector("form[data-path]");
  if (!form || !window.fetch || !window.FormData || !window.URLSearchParams) return;
  var progress = document.getElementById("page-progress");
  var bar = document.querySelector(".survey-progress progress");
  var go = document.getElementById("page-go");
  var timer = null, asked = 0;

  function ask() {
    var n = ++asked;
    var body = new URLSearchParams(new FormData(form));
    body.delete("action");
    fetch(form.getAttribute("data-path"), { method: "POST", body: body, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (!p || n !== asked) return; // a later answer asked since
        if (progress && progress.textContent !== p.progress) {
          progress.textContent = p.progress;
          if (bar) { bar.max = p.pages; bar.value = p.page; }
        }
        if (go) { go.textContent = p.button; go.value = p.last ? "submit" : "next"; }
      })
      .catch(function () {}); // the page's own render stays right
  }
  function soon(delay) {
    return function () { clearTimeout(timer); timer = setTimeout(ask, delay); };
  }
  form.addEventListener("change", soon(100));
  form.addEventListener("input", soon(400));
})();
