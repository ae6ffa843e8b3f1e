// Shows or hides, as the respondent answers, the questions whose condition
// looks at an answer on the same page (internal/web/path.go): each such
// question's fieldset has data-show-if, its condition's rules on this page.
// Without this script every such question shows, with its condition in
// words ("Answer only if …"), and the server drops the answers whose
// condition fails; it decides in any case. A hidden question's answer
// counts as no answer for the questions after it, as on the server.
(function () {
  "use strict";
  var questions = Array.prototype.slice.call(document.querySelectorAll("fieldset[data-show-if]"));
  if (!questions.length) return;
  var form = questions[0].form || questions[0].closest("form");
  var rules = questions.map(function (fs) {
    try { return JSON.parse(fs.getAttribute("data-show-if")); } catch (e) { return null; }
  });
  document.querySelectorAll(".logic-hint").forEach(function (hint) { hint.hidden = true; });

  // answers are the trimmed values the page gives question id: its
  // checked choices, the text of its fields; none when it is hidden.
  function answers(id) {
    var fs = document.getElementById("q-" + id);
    if (fs && fs.hidden) return [];
    var out = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      var name = el.name || "";
      if (name !== "q-" + id && name.indexOf("q-" + id + "-") !== 0) return;
      if ((el.type === "radio" || el.type === "checkbox") && !el.checked) return;
      // Not an answer in itself: the "Other" radio (its text is), a
      // slider's box; a slider's range only once its box is ticked.
      if (el.hasAttribute("data-not-answer")) return;
      var needs = el.getAttribute("data-answer-if");
      if (needs && !(document.getElementById(needs) || {}).checked) return;
      var v = (el.value || "").trim();
      if (v !== "") out.push(v);
    });
    return out;
  }

  function number(s) {
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s) ? parseFloat(s) : NaN;
  }

  function includes(cells, want) {
    var n = number(want);
    return cells.some(function (c) {
      return c.toLowerCase() === want.toLowerCase() || (!isNaN(n) && number(c) === n);
    });
  }

  function holds(r) {
    var cells = answers(r.q), vs = r.v || [];
    var any = function () { return vs.some(function (v) { return includes(cells, v); }); };
    switch (r.op) {
      case "answered": return cells.length > 0;
      case "not_answered": return cells.length === 0;
      case "equals": case "one_of": return cells.length > 0 && any();
      case "not_equals": return cells.length === 0 || !any();
      case "greater_than": case "less_than":
        if (cells.length !== 1 || vs.length !== 1) return false;
        var a = number(cells[0]), b = number(vs[0]);
        if (isNaN(a) || isNaN(b)) return false;
        return r.op === "greater_than" ? a > b : a < b;
    }
    return true; // a rule this script does not know: the server decides
  }

  function update() {
    // In page order: a condition looks at questions before it only.
    questions.forEach(function (fs, i) {
      var c = rules[i];
      if (!c || !c.rules) return;
      var show = c.match === "any" ? c.rules.some(holds) : c.rules.every(holds);
      fs.hidden = !show;
    });
  }

  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
})();
