// Links between the three columns. Every line knows its own links (data-dsl on DSL and CUDA
// lines, data-dsl / data-cu on SASS instructions); the maps below are built once at load.
(function () {
  "use strict";
  var all = function (s) { return Array.prototype.slice.call(document.querySelectorAll(s)); };
  var push = function (m, k, v) { (m[k] = m[k] || []).push(v); };
  var dsl = {}, cuByDsl = {}, sassByDsl = {}, sassByCu = {};
  all("#dsl .ln").forEach(function (e) { dsl[e.dataset.dsl] = e; });
  all("#cu .ln[data-dsl]").forEach(function (e) { push(cuByDsl, e.dataset.dsl, e); });
  all("#sass .ln").forEach(function (e) {
    if (e.dataset.dsl) push(sassByDsl, e.dataset.dsl, e);
    (e.dataset.cu || "").split(" ").forEach(function (c) { if (c) push(sassByCu, c, e); });
  });
  var byId = function (id) { return document.getElementById(id); };

  // The lines linked to one line: [the line itself, …].
  function related(kind, v) {
    var e, d;
    if (kind === "dsl") {
      return [dsl[v]].concat(cuByDsl[v] || [], sassByDsl[v] || []).filter(Boolean);
    }
    if (kind === "cu") {
      e = byId("c" + v);
      if (!e) return [];
      d = e.dataset.dsl;
      return [e].concat(d && dsl[d] ? [dsl[d]] : [], sassByCu[v] || []);
    }
    if (kind === "sass") {
      e = byId("s" + v);
      if (!e) return [];
      d = e.dataset.dsl;
      var cus = (e.dataset.cu || "").split(" ").filter(Boolean).map(function (c) { return byId("c" + c); });
      return [e].concat(d && dsl[d] ? [dsl[d]] : [], cus.filter(Boolean));
    }
    return [];
  }

  var marked = { sel: [], hov: [] };
  function mark(cls, els) {
    marked[cls].forEach(function (e) { e.classList.remove(cls); });
    marked[cls] = els;
    els.forEach(function (e) { e.classList.add(cls); });
  }

  function keyOf(target) {
    var ln = target.closest ? target.closest(".ln") : null;
    if (!ln || !ln.parentElement) return null;
    var col = ln.parentElement.id;
    if (col === "dsl") return ["dsl", ln.dataset.dsl];
    if (col === "cu") return ["cu", ln.id.slice(1)];
    if (col === "sass") return ["sass", ln.id.slice(1)];
    return null;
  }

  function describe(kind, v, els) {
    var n = { cu: 0, sass: 0 }, cls = {};
    els.forEach(function (e) {
      var col = e.parentElement.id;
      if (col === "cu") n.cu++;
      if (col === "sass") { n.sass++; cls[e.dataset.c] = (cls[e.dataset.c] || 0) + 1; }
    });
    var what = { dsl: "DSL line ", cu: "CUDA line ", sass: "SASS /*" }[kind] + v + (kind === "sass" ? "*/" : "");
    var s = document.createDocumentFragment();
    var plural = function (k, one) { return k + " " + one + (k === 1 ? "" : "s"); };
    s.appendChild(document.createTextNode(what + " → " + plural(n.cu, "CUDA line") + ", " + plural(n.sass, "SASS instruction")));
    Object.keys(cls).sort().forEach(function (c) {
      var i = document.createElement("i");
      i.textContent = c + "×" + cls[c];
      s.appendChild(i);
    });
    var st = byId("status");
    st.textContent = "";
    st.appendChild(s);
  }

  // Scrolls each column (but `except`) to its first marked line.
  function scrollCols(els, except) {
    ["dsl", "cu", "sass"].forEach(function (col) {
      if (col === except) return;
      var box = byId(col);
      var first = els.filter(function (e) { return e.parentElement === box; })[0];
      if (first) {
        var dy = first.getBoundingClientRect().top - box.getBoundingClientRect().top;
        box.scrollTop = Math.max(0, box.scrollTop + dy - box.clientHeight / 3);
      }
    });
  }

  function select(kind, v, scroll, except) {
    var els = related(kind, v);
    mark("sel", els);
    document.body.setAttribute("data-selected", kind + ":" + v);
    describe(kind, v, els);
    if (scroll) scrollCols(els, except);
  }

  function fromHash() {
    var m = /select=(dsl|cu|sass):(?:0x)?([0-9a-fA-F]+)/.exec(location.hash);
    if (m) {
      select(m[1], m[1] === "sass" ? ("0000" + m[2].toLowerCase()).slice(-Math.max(4, m[2].length)) : m[2], true);
      return true;
    }
    return false;
  }

  document.querySelector(".cols").addEventListener("click", function (ev) {
    var k = keyOf(ev.target);
    if (!k) return;
    // The clicked column stays put; the other two bring the linked lines into view.
    var ln = ev.target.closest(".ln");
    select(k[0], k[1], true, ln.parentElement.id);
    history.replaceState(null, "", "#select=" + k[0] + ":" + k[1]);
  });
  document.querySelector(".cols").addEventListener("mouseover", function (ev) {
    var k = keyOf(ev.target);
    mark("hov", k ? related(k[0], k[1]) : []);
  });
  document.querySelector(".cols").addEventListener("mouseleave", function () { mark("hov", []); });
  window.addEventListener("hashchange", fromHash);

  // `#click=KIND:N` / `#hover=KIND:N` play that mouse event on the line, as a user would
  // (scripted demos and the browser test use them).
  function line(kind, v) {
    if (kind === "dsl") return dsl[v];
    if (kind === "cu") return byId("c" + v);
    return byId("s" + ("0000" + v.toLowerCase()).slice(-Math.max(4, v.length)));
  }
  var act = /(click|hover)=(dsl|cu|sass):(?:0x)?([0-9a-fA-F]+)/.exec(location.hash);
  var target = act && line(act[2], act[3]);
  if (target) {
    target.querySelector(".tx").dispatchEvent(
      new MouseEvent(act[1] === "click" ? "click" : "mouseover", { bubbles: true }));
  } else if (!fromHash()) {
    var start = document.querySelector("#cu [data-kernel-start]");
    if (start) byId("cu").scrollTop = start.offsetTop;
  }
  // Layout may settle after this script (fonts, window size): scroll the selection again.
  window.addEventListener("load", function () { if (marked.sel.length) scrollCols(marked.sel); });
  // Ready: parsed, linked and laid out (reading offsetHeight forces the layout now).
  void document.body.offsetHeight;
  var ms = performance.now().toFixed(1);
  document.body.setAttribute("data-ready-ms", ms);
  byId("load-ms").textContent = ms;
})();
