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
// - leaving with edits not saved asks first;
// - a question's card opens (its one line, a summary) closing the others,
//   and its line follows what is typed; its handle drags it to another
//   place (SortableJS, vendored) or moves it with the arrow keys: the
//   page again with the card there ("moved.N", "up.N", "down.N") and the
//   focus on its handle.
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
    var blocks = document.getElementById("dz-blocks");
    var handles = f.querySelectorAll(".dq-handle");
    Array.prototype.forEach.call(handles, function (h) { h.hidden = handles.length < 2; });
    if (blocks && window.Sortable && handles.length > 1) {
      window.Sortable.create(blocks, {
        handle: ".dq-handle", draggable: ".dq", animation: 150, forceFallback: true,
        ghostClass: "dq-ghost", chosenClass: "dq-chosen",
        onEnd: function (e) { if (e.oldIndex !== e.newIndex) dropped(e.item); }
      });
    }
  }

  // dropped numbers the cards as they now stand, each in the section
  // whose panel is above it, and asks for the page with card there.
  function dropped(card) {
    var pos = 0, sec = 0;
    Array.prototype.forEach.call(document.getElementById("dz-blocks").children, function (el) {
      var m = el.classList.contains("dz-section") && /^s(\d+)-panel$/.exec(el.id);
      if (m) { sec = +m[1]; return; }
      if (!el.classList.contains("dq")) return;
      pos++;
      var i = el.getAttribute("data-q"), f = form();
      var p = f.elements["q." + i + ".pos"], s = f.elements["q." + i + ".section"];
      if (p) p.value = pos;
      if (s) s.value = sec;
    });
    edit(action("moved." + card.getAttribute("data-q")));
  }

  // action is a button of the form's, made here: the server's own
  // action for what was done by other means.
  function action(value) {
    var b = document.createElement("button");
    b.name = "action"; b.value = value;
    return b;
  }

  // A card's line opened by the person closes the other cards (not those
  // with a problem); a card's field "open" says whether it is, so the
  // page sent back keeps them as they were.
  live.addEventListener("click", function (e) {
    var line = e.target.closest && e.target.closest(".dq-line");
    if (!line || line.parentNode.open) return;
    Array.prototype.forEach.call(form().querySelectorAll(".dq-card[open]"), function (d) {
      if (d !== line.parentNode && !d.closest(".dq").classList.contains("has-error")) d.open = false;
    });
  });
  live.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d.classList || !d.classList.contains("dq-card")) return;
    var open = d.parentNode.querySelector(".dq-open");
    if (open) open.value = d.open ? "1" : "";
  }, true);
  // The arrow keys on a card's handle move it, as its Up and Down
  // buttons do, the focus staying on the handle.
  live.addEventListener("keydown", function (e) {
    var h = e.target;
    if (!h.classList || !h.classList.contains("dq-handle") || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
    e.preventDefault();
    var b = document.getElementById(h.id.replace(/-handle$/, e.key === "ArrowUp" ? "-up" : "-down"));
    if (b && !b.disabled) edit(b, { focus: "handle" });
  });
  // A card's line says what its question says, as it is typed.
  function follow(el) {
    var card = el.closest && el.closest(".dq");
    if (!card) return;
    if (/-text$/.test(el.id)) {
      var t = card.querySelector(".dq-line-text");
      t.textContent = el.value.trim() || "Untitled question";
      t.classList.toggle("dq-untitled", !el.value.trim());
    }
    if (/-optional$/.test(el.id)) card.querySelector(".dq-line-req").textContent = el.checked ? "Optional" : "Required";
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
  function post(button, extra) {
    var f = form(), a = document.createElement("input");
    a.type = "hidden"; a.name = button.name; a.value = button.value;
    f.appendChild(a);
    for (var k in extra || {}) {
      var e = document.createElement("input");
      e.type = "hidden"; e.name = k; e.value = extra[k];
      f.appendChild(e);
    }
    var to = button.getAttribute("formaction");
    if (to) f.setAttribute("action", to);
    if (button.getAttribute("formtarget")) f.setAttribute("target", button.getAttribute("formtarget"));
    HTMLFormElement.prototype.submit.call(f);
  }

  // body is the form as the browser would post it, urlencoded (without
  // its files: a picture chosen goes with a page load, see edit), with
  // button's action.
  function body(f, button, extra) {
    var fd = new URLSearchParams();
    new FormData(f).forEach(function (v, k) { if (typeof v === "string") fd.append(k, v); });
    if (button && button.name) fd.append(button.name, button.value);
    for (var k in extra || {}) fd.append(k, extra[k]);
    return fd;
  }

  // edit posts the form with button's action (and the fields extra) and
  // puts the answer in place.
  function edit(button, extra) {
    return send(function () {
      var f = form();
      // A picture chosen to upload goes with the form the old way, a
      // page load, rather than be lost with the old form.
      var chosen = Array.prototype.some.call(f.querySelectorAll("input[type=file]"), function (i) { return i.files && i.files.length > 0; });
      if (chosen) { post(button, extra); return; }
      return fetch(f.getAttribute("action"), { method: "POST", body: body(f, button, extra), headers: { "X-Designer": "live" }, credentials: "same-origin" })
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
    follow(sel);
    if (sel.classList.contains("dq-type") || sel.classList.contains("dl-q")) {
      var button = document.getElementById(sel.getAttribute("data-apply"));
      if (button) { edit(button); return; }
    }
    dirty = true;
    if (form().hasAttribute("data-autosave")) schedule();
  });
  live.addEventListener("input", function (e) {
    follow(e.target);
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
