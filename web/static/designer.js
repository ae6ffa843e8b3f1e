// The designer, edited in place. Without this script every control works
// the same, a page load away (internal/web/designer.go). With it:
// - every button of the form but Preview, Save and Publish posts the form
//   with the header X-Designer: live, and the server's answer (the block
//   "designer-live" of the same template: the form, its problems) takes
//   the place of the old one; focus goes where the page would land;
// - changing a question's kind, or a rule's question, presses its
//   "Change kind" / "Show its choices" button for you;
// - a new survey or a draft is saved as it is typed (action=autosave, a
//   second after the last keystroke), the status line says "Saving…",
//   "Saved" or "Not saved: …"; a survey saved elsewhere since is never
//   overwritten: the line says by whom and offers to reload;
// - leaving with edits not saved asks first.
(function () {
  "use strict";
  var live = document.getElementById("designer-live");
  var status = document.getElementById("dz-status");
  if (!live || !window.fetch || !window.FormData) return;
  var form = function () { return document.getElementById("designer"); };
  var dirty = false, timer = null, queue = Promise.resolve(), stopped = false;

  function say(text, kind) {
    if (!status) return;
    status.textContent = text;
    status.className = "dz-status" + (kind ? " dz-status-" + kind : "");
  }

  // A rule's comparison that takes no answer ("is answered") hides its
  // answer; "Show its choices" is pressed for you.
  function showValue(op) {
    var rule = op.closest(".dl-rule");
    var value = rule && rule.querySelector(".dl-value");
    if (value) value.hidden = op.value === "answered" || op.value === "not_answered";
  }
  function enhance() {
    var f = form();
    if (!f) return;
    Array.prototype.forEach.call(f.querySelectorAll(".dl-op"), showValue);
    Array.prototype.forEach.call(f.querySelectorAll(".dl-apply, .dq-apply"), function (b) { b.hidden = true; });
    Array.prototype.forEach.call(f.querySelectorAll(".dq-type"), function (sel) {
      var hint = document.getElementById(sel.id + "-hint");
      if (hint) hint.hidden = true;
    });
  }

  // land focuses what the page would: its summary of problems, or the
  // control marked autofocus, in view.
  function land() {
    var to = document.getElementById("designer-errors") || live.querySelector("[autofocus]");
    if (!to) return;
    if (to.focus) to.focus({ preventScroll: true });
    if (to.scrollIntoView) {
      var r = to.getBoundingClientRect();
      if (r.top < 0 || r.bottom > window.innerHeight) to.scrollIntoView({ block: "center" });
    }
  }

  // send queues one request after the one before, so that a save and an
  // edit never cross (each names the version the one before saved).
  var inflight = 0;
  function send(task) {
    inflight++;
    var done = function () { inflight--; };
    queue = queue.then(task, task).then(done, done);
    return queue;
  }

  // post sends the form with button's action the old way: a page load.
  function post(button) {
    var f = form(), a = document.createElement("input");
    a.type = "hidden"; a.name = button.name; a.value = button.value;
    f.appendChild(a);
    var to = button.getAttribute("formaction");
    if (to) f.setAttribute("action", to);
    if (button.getAttribute("formtarget")) f.setAttribute("target", button.getAttribute("formtarget"));
    HTMLFormElement.prototype.submit.call(f);
  }

  // body is the form as the browser would post it (urlencoded), with
  // button's action.
  function body(f, button) {
    var fd = new URLSearchParams(new FormData(f));
    if (button && button.name) fd.append(button.name, button.value);
    return fd;
  }

  // edit posts the form with button's action and puts the answer in place.
  function edit(button) {
    return send(function () {
      var f = form();
      return fetch(f.getAttribute("action"), { method: "POST", body: body(f, button), headers: { "X-Designer": "live" }, credentials: "same-origin" })
        .then(function (res) {
          // The designer again (200, or 422 and the like with its
          // problems), or an error page: that one the old way.
          if (!res.headers.get("X-Designer")) throw new Error("not the designer");
          return res.text();
        })
        .then(function (html) {
          live.innerHTML = html;
          enhance();
          land();
          if (form() && form().hasAttribute("data-autosave")) { dirty = true; schedule(0); }
        })
        .catch(function () {
          // Not an answer of the designer's: the same button, the old
          // way, and the page the server gives.
          post(button);
        });
    });
  }

  function autosave() {
    return send(function () {
      var f = form();
      if (!f || !f.hasAttribute("data-autosave") || !dirty || stopped) return;
      dirty = false;
      say("Saving…");
      return fetch(f.getAttribute("action"), { method: "POST", body: body(f, { name: "action", value: "autosave" }), credentials: "same-origin" })
        .then(function (res) { return res.json(); })
        .then(function (r) {
          var cur = form();
          if (r.state === "saved") {
            if (cur && cur.elements.version) cur.elements.version.value = r.version;
            if (r.edit && cur) {
              cur.setAttribute("action", r.edit); // (cur.action is its buttons, named "action")
              Array.prototype.forEach.call(cur.querySelectorAll("[formaction]"), function (b) {
                b.setAttribute("formaction", b.getAttribute("formaction").replace(/^[^#]*/, r.edit));
              });
              if (history.replaceState) history.replaceState(null, "", r.edit);
            }
            say(dirty ? "Saving…" : "Saved", "ok");
            return;
          }
          dirty = true;
          if (r.state === "conflict") {
            stopped = true;
            say(r.message, "error");
            var reload = document.createElement("a");
            reload.className = "button dz-reload";
            reload.href = location.pathname;
            reload.textContent = "Reload";
            // Chosen: the edits here go, without asking again.
            reload.addEventListener("click", function () { dirty = false; });
            status.appendChild(document.createTextNode(" "));
            status.appendChild(reload);
            return;
          }
          say(r.message || "Not saved.", "warn");
        })
        .catch(function () { dirty = true; say("Not saved: the server could not be reached. Your edits are kept on this page.", "warn"); });
    });
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(function () { timer = null; autosave(); }, ms === undefined ? 1000 : ms);
  }

  live.addEventListener("submit", function (e) {
    var button = e.submitter;
    var action = button && button.name === "action" ? button.value : "";
    if (action === "save" || action === "publish") {
      clearTimeout(timer); // the button's post saves what is typed
      timer = null;
      dirty = false;
      if (inflight > 0) {
        // A save on its way (the first one makes the survey): the
        // button's post waits for it, and goes to where it saved.
        e.preventDefault();
        send(function () {}).then(function () { post(button); });
      }
      return;
    }
    if (action === "" || action === "preview" || action === "autosave") return;
    e.preventDefault();
    edit(button);
  });
  live.addEventListener("change", function (e) {
    var sel = e.target;
    if (!sel.classList) return;
    if (sel.classList.contains("dl-op")) showValue(sel);
    if (sel.classList.contains("dq-type") || sel.classList.contains("dl-q")) {
      var button = document.getElementById(sel.getAttribute("data-apply"));
      if (button) { edit(button); return; }
    }
    dirty = true;
    if (form().hasAttribute("data-autosave")) schedule();
  });
  live.addEventListener("input", function () {
    dirty = true;
    if (form().hasAttribute("data-autosave")) schedule();
  });
  window.addEventListener("beforeunload", function (e) {
    if (!dirty) return;
    e.preventDefault();
    e.returnValue = "";
  });
  // A tab closed within the second after the last keystroke: the draft
  // goes as the page goes.
  window.addEventListener("pagehide", function () {
    var f = form();
    if (!dirty || stopped || !f || !f.hasAttribute("data-autosave") || !navigator.sendBeacon) return;
    navigator.sendBeacon(f.getAttribute("action"), body(f, { name: "action", value: "autosave" }));
  });

  enhance();
  land();
})();
