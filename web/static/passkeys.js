// Passkeys: the two-step sign-in page adds one (a form with
// data-passkey-create, the URL of its challenge), and the second page of
// a sign-in uses one (a form with data-passkey-get). Each asks the server
// for the options (POST, JSON back), hands them to the browser's
// authenticator (navigator.credentials.create or get), puts the answer,
// as JSON, in the form's hidden field (credential, or passkey) and
// submits the form: the server checks it and answers with a page. Without
// WebAuthn in the browser the button stays hidden.
(function () {
  if (!window.PublicKeyCredential || !navigator.credentials) return;

  function toBytes(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toText(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function ids(list) {
    (list || []).forEach(function (c) { c.id = toBytes(c.id); });
  }
  function say(form, text) {
    var status = form.querySelector("#passkey-status");
    if (status) status.textContent = text;
  }
  // ask posts the form's fields named in names to url and returns the
  // publicKey options, with their binary members decoded.
  function ask(form, url, names) {
    var body = new URLSearchParams();
    names.forEach(function (n) {
      var f = form.elements[n];
      if (f) body.append(n, f.value);
    });
    return fetch(url, { method: "POST", body: body, credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (resp) {
        return resp.json().then(function (data) {
          if (!resp.ok) throw new Error(data.error || "The server refused: try again.");
          return data.publicKey;
        });
      });
  }

  function create(form, button) {
    var name = form.elements["name"];
    if (name && !name.value.trim()) {
      say(form, "Give the passkey a name first.");
      name.focus();
      return;
    }
    button.disabled = true;
    say(form, "Follow what your browser asks…");
    ask(form, form.getAttribute("data-passkey-create"), [])
      .then(function (pk) {
        pk.challenge = toBytes(pk.challenge);
        pk.user.id = toBytes(pk.user.id);
        ids(pk.excludeCredentials);
        return navigator.credentials.create({ publicKey: pk });
      })
      .then(function (cred) {
        var r = cred.response;
        form.elements["credential"].value = JSON.stringify({
          id: cred.id, rawId: toText(cred.rawId), type: cred.type,
          authenticatorAttachment: cred.authenticatorAttachment || undefined,
          clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
          response: {
            clientDataJSON: toText(r.clientDataJSON),
            attestationObject: toText(r.attestationObject),
            transports: r.getTransports ? r.getTransports() : []
          }
        });
        form.submit();
      })
      .catch(function (e) {
        button.disabled = false;
        say(form, e && e.name === "NotAllowedError" ? "The passkey was not made (cancelled, or it took too long). Try again." :
          e && e.name === "InvalidStateError" ? "This passkey is added already." : (e && e.message) || "That did not work: try again.");
      });
  }

  function get(form, button) {
    button.disabled = true;
    say(form, "Follow what your browser asks…");
    ask(form, form.getAttribute("data-passkey-get"), ["token"])
      .then(function (pk) {
        pk.challenge = toBytes(pk.challenge);
        ids(pk.allowCredentials);
        return navigator.credentials.get({ publicKey: pk });
      })
      .then(function (cred) {
        var r = cred.response;
        form.elements["passkey"].value = JSON.stringify({
          id: cred.id, rawId: toText(cred.rawId), type: cred.type,
          clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
          response: {
            clientDataJSON: toText(r.clientDataJSON),
            authenticatorData: toText(r.authenticatorData),
            signature: toText(r.signature),
            userHandle: r.userHandle ? toText(r.userHandle) : undefined
          }
        });
        form.submit();
      })
      .catch(function (e) {
        button.disabled = false;
        say(form, e && e.name === "NotAllowedError" ? "The passkey was not used (cancelled, or it took too long). Try again." : (e && e.message) || "That did not work: try again.");
      });
  }

  document.querySelectorAll("form[data-passkey-create], form[data-passkey-get]").forEach(function (form) {
    var button = form.querySelector("[data-passkey-button]");
    if (!button) return;
    button.hidden = false;
    function go() {
      if (form.hasAttribute("data-passkey-create")) create(form, button); else get(form, button);
    }
    button.addEventListener("click", go);
    // Enter in the name field: the same as the button.
    form.addEventListener("submit", function (e) {
      var field = form.elements["credential"] || form.elements["passkey"];
      if (field && !field.value) { e.preventDefault(); go(); }
    });
  });
})();
