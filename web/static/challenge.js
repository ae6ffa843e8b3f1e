// The robot check of a survey that asks for one (internal/web/formtoken.go):
// find the number n, at most data-max, for which SHA-256(token + n) is the
// challenge, and send it as "pow". It runs while the respondent answers,
// in small steps so that the page stays responsive; a submit before it is
// done waits for it. The status line is read out by screen readers.
(function () {
  "use strict";
  var input = document.querySelector("input[name=pow][data-challenge]");
  if (!input) return;
  var form = input.form;
  var status = document.getElementById("pow-status");
  var salt = form.elements.token.value;
  var challenge = input.getAttribute("data-challenge");
  var max = parseInt(input.getAttribute("data-max"), 10);
  var done = false, waiting = false, sent = false, n = 0;
  var say = function (text) { if (status) status.textContent = text; };

  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ];
  var W = new Array(64);
  function ror(x, r) { return (x >>> r) | (x << (32 - r)); }

  // sha256hex hashes an ASCII string (the token and a number are ASCII).
  function sha256hex(s) {
    var len = s.length, words = ((len + 9 + 63) >> 6) << 4, m = new Array(words), i, j;
    for (i = 0; i < words; i++) m[i] = 0;
    for (i = 0; i < len; i++) m[i >> 2] |= (s.charCodeAt(i) & 0xff) << (24 - (i & 3) * 8);
    m[len >> 2] |= 0x80 << (24 - (len & 3) * 8);
    m[words - 1] = len * 8;
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    for (j = 0; j < words; j += 16) {
      for (i = 0; i < 16; i++) W[i] = m[j + i];
      for (i = 16; i < 64; i++) {
        var x = W[i - 15], y = W[i - 2];
        W[i] = (W[i - 16] + (ror(x, 7) ^ ror(x, 18) ^ (x >>> 3)) + W[i - 7] + (ror(y, 17) ^ ror(y, 19) ^ (y >>> 10))) | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (i = 0; i < 64; i++) {
        var t1 = (k + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
        var t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
    }
    var out = "";
    for (i = 0; i < 8; i++) out += ("0000000" + (h[i] >>> 0).toString(16)).slice(-8);
    return out;
  }

  function step() {
    var end = Math.min(n + 2000, max + 1);
    for (; n < end; n++) {
      if (sha256hex(salt + n) === challenge) {
        input.value = String(n);
        done = true;
        say("Checking you are not a robot… done");
        if (waiting) {
          sent = true;
          form.submit();
        }
        return;
      }
    }
    if (n > max) {
      say("Checking you are not a robot… it did not work; reload the page to try again.");
      return;
    }
    setTimeout(step, 0);
  }

  form.addEventListener("submit", function (ev) {
    if (done && !sent) {
      // A solution is accepted once: a second click sends nothing, unless
      // the first got no answer for a while (the network failed).
      sent = true;
      setTimeout(function () { sent = false; }, 15000);
      return;
    }
    ev.preventDefault();
    if (done) return;
    waiting = true;
    say("Checking you are not a robot… your answers are sent when it is done.");
  });
  say("Checking you are not a robot…");
  setTimeout(step, 0);
})();
