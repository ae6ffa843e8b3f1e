// The browser's Back and Forward on a survey of several pages. Each page
// after the first is the answer to a POST (Next, Back), which the browser
// would send again when it comes back to it ("Confirm Form Resubmission").
// The server gives each page the address that shows it again
// (data-page-url: its token and its answers, sealed); putting it in place
// of the POST makes the history hold pages the browser can simply load.
// What the respondent typed on a page after it was shown is kept in its
// entry of the history (history.state, in this browser only) and put back
// when they come back to it: the address holds the answers the server had
// when it made the page, not those typed since.
// Without this script the pages work as before; Back asks first.
(function () {
  "use strict";
  // (The first page has an address of its own; every page of several
  // has data-path.)
  var form = document.querySelector("form[data-page-url], form[data-path]");
  if (!form || !window.history || !history.replaceState || !window.FormData) return;
  var url = form.getAttribute("data-page-url") || location.href;
  var isAnswer = function (name) { return name.indexOf("q-") === 0; };

  // restore puts the answers kept ([name, value] pairs) in the form's
  // answer fields, and tells the page's other scripts (conditions, path).
  function restore(kept) {
    var values = {};
    kept.forEach(function (p) { (values[p[0]] = values[p[0]] || []).push(p[1]); });
    var used = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || !isAnswer(el.name) || el.type === "hidden") return;
      var vs = values[el.name] || [];
      if (el.type === "radio" || el.type === "checkbox") {
        el.checked = vs.indexOf(el.value) >= 0;
      } else if (el.multiple) {
        Array.prototype.forEach.call(el.options, function (o) { o.selected = vs.indexOf(o.value) >= 0; });
      } else {
        // Fields sharing a name take its values in turn.
        var i = used[el.name] || 0;
        el.value = i < vs.length ? vs[i] : "";
        used[el.name] = i + 1;
      }
    });
    // Once every script of the page listens.
    document.addEventListener("DOMContentLoaded", function () {
      form.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  function keep() {
    var pairs = [];
    new FormData(form).forEach(function (v, k) {
      if (typeof v === "string" && isAnswer(k)) pairs.push([k, v]);
    });
    history.replaceState({ surveyAnswers: pairs }, "", url);
  }

  var kept = history.state && history.state.surveyAnswers;
  if (kept) restore(kept);
  history.replaceState({ surveyAnswers: kept || null }, "", url);
  // (Browsers refuse a flood of replaceState: typing is kept once it
  // pauses.)
  var timer = null;
  form.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(keep, 300); });
  form.addEventListener("change", keep);
  form.addEventListener("submit", keep);
})();
