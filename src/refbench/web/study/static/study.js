// refbench study pages: save every answer the moment it is given, keyboard shortcuts, chain
// highlighting. The pages work without this script (plain forms); with it, answers are sent as
// JSON to the form's data-api URL. Text from the server is only ever set as textContent.
"use strict";

(function () {
  function fieldsOf(form, submitter) {
    var data = new FormData(form);
    var out = {};
    data.forEach(function (value, key) { out[key] = String(value); });
    if (submitter && submitter.name) { out[submitter.name] = submitter.value; }
    return out;
  }

  function setStatus(form, text, cls) {
    var el = form.querySelector(".status");
    if (!el) { return; }
    el.textContent = text;
    el.className = "status" + (cls ? " " + cls : "");
  }

  function showWarnings(list) {
    var ul = document.getElementById("warnings");
    if (!ul) { return; }
    while (ul.firstChild) { ul.removeChild(ul.firstChild); }
    (list || []).forEach(function (w) {
      var li = document.createElement("li");
      li.textContent = w;
      ul.appendChild(li);
    });
  }

  // The header's bar and count, and the item's "done" mark, follow each save (not only the
  // next page load).
  function showProgress(progress, complete) {
    var bar = document.getElementById("study-progress");
    var count = document.getElementById("study-count");
    if (progress && bar) { bar.max = progress.total; bar.value = progress.done; }
    if (progress && count) { count.textContent = progress.done + " / " + progress.total + " done"; }
    var head = document.querySelector(".item-head");
    var mark = head && head.querySelector(".ok");
    if (head && complete && !mark) {
      mark = document.createElement("span");
      mark.className = "ok";
      mark.textContent = head.dataset.done || "done";
      head.appendChild(document.createTextNode(" "));
      head.appendChild(mark);
    } else if (mark && complete === false) {
      mark.remove();
    }
  }

  var pending = 0;
  var dirty = false;
  // One save at a time, in the order they were asked for: two saves in flight could reach the
  // server in either order, and an older answer would overwrite a newer one. Each save reads
  // the form when its turn comes, so it always sends the latest values.
  var queue = Promise.resolve();

  function save(form, submitter) {
    pending += 1;
    dirty = false;
    setStatus(form, "Saving…", "");
    var turn = queue.then(function () { return send(form, submitter); });
    queue = turn.catch(function () { return null; });
    return turn;
  }

  function send(form, submitter) {
    return fetch(form.dataset.api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify({ fields: fieldsOf(form, submitter) })
    }).then(function (resp) {
      return resp.json().then(function (body) { return { ok: resp.ok, body: body }; });
    }).then(function (r) {
      pending -= 1;
      if (!r.ok || !r.body.ok) {
        setStatus(form, "Not saved: " + (r.body.error || "error"), "failed");
        return null;
      }
      if (pending === 0) { setStatus(form, "Saved", "saved"); }
      form.dataset.saved = String(r.body.revision);
      showWarnings(r.body.warnings);
      showProgress(r.body.progress, r.body.complete);
      return r.body;
    }).catch(function () {
      pending -= 1;
      dirty = true;
      setStatus(form, "Not saved: the server did not answer", "failed");
      return null;
    });
  }

  function wire(form) {
    var mode = form.dataset.autosave;
    var timer = null;
    if (mode === "change") {
      form.addEventListener("change", function () {
        save(form, null).then(function (body) {
          if (body && form.dataset.advance && body.next) { window.location.assign(body.next); }
        });
      });
    } else if (mode === "input") {
      form.addEventListener("input", function () {
        dirty = true;
        setStatus(form, "Typing…", "");
        if (timer) { clearTimeout(timer); }
        timer = setTimeout(function () { timer = null; save(form, null); }, 500);
      });
      form.addEventListener("focusout", function () {
        if (timer) { clearTimeout(timer); timer = null; save(form, null); }
      });
      // Closing the tab while a save is still waiting for its pause: send it anyway.
      window.addEventListener("pagehide", function () {
        if (!timer) { return; }
        clearTimeout(timer);
        timer = null;
        var body = JSON.stringify({ fields: fieldsOf(form, null) });
        navigator.sendBeacon(form.dataset.api, new Blob([body], { type: "application/json" }));
        dirty = false;
      });
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      if (timer) { clearTimeout(timer); timer = null; }
      save(form, ev.submitter || null).then(function (body) {
        if (body && body.next) { window.location.assign(body.next); }
      });
    });
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" && target.type === "text" || tag === "TEXTAREA" || tag === "SELECT";
  }

  function keys(form) {
    var name = form.dataset.keys;
    document.addEventListener("keydown", function (ev) {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) { return; }
      var key = ev.key.toLowerCase();
      if (key === "enter") {
        var tag = ev.target && ev.target.tagName;
        if (tag === "A" || tag === "BUTTON") { return; }
        ev.preventDefault();
        form.requestSubmit();
        return;
      }
      if (key === "arrowleft") {
        var prev = document.querySelector("[data-nav=prev]");
        if (prev) { ev.preventDefault(); window.location.assign(prev.href); }
        return;
      }
      var radios = form.querySelectorAll("input[type=radio][name='" + name + "']");
      for (var i = 0; i < radios.length; i += 1) {
        var wanted = (radios[i].dataset.key || "").split(" ");
        if (wanted.indexOf(key) >= 0) {
          ev.preventDefault();
          radios[i].checked = true;
          radios[i].focus();
          radios[i].dispatchEvent(new Event("change", { bubbles: true }));
          return;
        }
      }
    });
  }

  function chains() {
    document.querySelectorAll("[data-chain]").forEach(function (el) {
      if (el.classList.contains("np")) { return; }
      var rep = el.dataset.chain;
      function mark(on) {
        el.classList.toggle("hl", on);
        document.querySelectorAll(".np[data-chain='" + rep + "']").forEach(function (np) {
          np.classList.toggle("hl", on);
        });
      }
      el.addEventListener("mouseenter", function () { mark(true); });
      el.addEventListener("mouseleave", function () { mark(false); });
      el.addEventListener("focusin", function () { mark(true); });
      el.addEventListener("focusout", function () { mark(false); });
    });
  }

  // The study index: check an admin token with fetch, then open the admin page (or say why
  // not). Without this script the form posts and the server answers with a page.
  function adminForms() {
    document.querySelectorAll("form.admin-open").forEach(function (form) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        fetch(form.action, {
          method: "POST",
          credentials: "same-origin",
          headers: { "Accept": "application/json" },
          body: new URLSearchParams(new FormData(form))
        }).then(function (resp) { return resp.json(); }).then(function (body) {
          if (body.ok) { window.location.assign(body.url); return; }
          var box = document.getElementById("index-error");
          box.textContent = body.error || "error";
          box.hidden = false;
          var input = form.querySelector("input[name=token]");
          input.setAttribute("aria-invalid", "true");
          input.focus();
        }).catch(function () {
          var box = document.getElementById("index-error");
          box.textContent = "The server did not answer.";
          box.hidden = false;
        });
      });
    });
  }

  window.addEventListener("beforeunload", function (ev) {
    if (pending > 0 || dirty) { ev.preventDefault(); ev.returnValue = ""; }
  });

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-api]").forEach(function (form) {
      wire(form);
      if (form.dataset.keys) { keys(form); }
    });
    chains();
    adminForms();
    document.documentElement.dataset.studyReady = "1";  // shortcuts are live from here on
  });
}());
