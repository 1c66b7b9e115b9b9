/* The web board's page: play over one WebSocket, watch databases over small JSON requests. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var token = new URLSearchParams(location.search).get("token") || "";
  var q = token ? "?token=" + encodeURIComponent(token) : "";
  var ws = null, state = null, stateAt = 0, thinking = [], lastPv = null;

  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  }
  function status(text, isError) {
    var s = $("status");
    s.textContent = text;
    s.className = isError ? "error" : "muted";
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws" + q);
    ws.onopen = function () { $("conn").textContent = "connected"; };
    ws.onclose = function () {
      $("conn").textContent = "disconnected: reload the page";
      document.body.dataset.ws = "closed";
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "hello") hello(msg);
      else if (msg.type === "state") { state = msg.game; stateAt = performance.now(); render(); }
      else if (msg.type === "thinking") think(msg);
      else if (msg.type === "error") status(msg.error, true);
    };
  }

  function option(select, value, text) {
    var o = document.createElement("option");
    o.value = value; o.textContent = text;
    select.appendChild(o);
  }

  function hello(msg) {
    var eng = $("engine");
    eng.innerHTML = "";
    msg.engines.forEach(function (name) { option(eng, name, name); });
    if (msg.engines.indexOf("gomocup-bot") >= 0) eng.value = "gomocup-bot";
    var size = $("size");
    size.innerHTML = "";
    for (var s = msg.size[0]; s <= msg.size[1]; s++) option(size, s, s + " x " + s);
    size.value = 15;
    var rule = $("rule");
    rule.innerHTML = "";
    msg.rules.forEach(function (r) { option(rule, r, r); });
    document.body.dataset.ready = "1";
    drawBoard();
  }

  function drawBoard() {
    var w = state ? state.width : +$("size").value || 15, h = state ? state.height : w;
    var stones = state ? GomokuBoard.stonesOf(state.moves, state.moves.length) : [];
    var myTurn = state && !state.result && !state.busy && state.to_move === state.human;
    /* the engine's principal variation: while it thinks, and after its move (what it expects next)
       until the position changes again */
    var pv = null, pvColour = 1, pvFrom = 1;
    if (state && lastPv && lastPv.game === state.id &&
        ((state.busy === "thinking" && lastPv.plies === state.moves.length) ||
         (!state.busy && !state.result && lastPv.plies === state.moves.length - 1))) {
      pv = lastPv.moves;
      pvColour = state.human === "black" ? 2 : 1;
      pvFrom = lastPv.plies + 1;  /* its first move is the one after the stones it was searched on */
    }
    $("board").innerHTML = GomokuBoard.svg({ width: w, height: h, stones: stones, numbers: true, hits: myTurn, pv: pv, pvColour: pvColour, pvFrom: pvFrom });
  }

  function fmt(ms) { return (ms / 1000).toFixed(1); }

  function render() {
    drawBoard();
    var list = $("moves");
    list.innerHTML = "";
    if (!state) return;
    state.moves.forEach(function (m, i) {
      var li = document.createElement("li");
      li.className = i % 2 === 0 ? "black" : "white";
      li.textContent = m[0] + "," + m[1] + (m[2] ? " " + fmt(m[2]) + "s" : "");
      list.appendChild(li);
    });
    list.scrollTop = list.scrollHeight;
    var r = $("result");
    if (state.result) {
      var res = state.result;
      var who = res.who === "draw" ? "Draw" : res.who === "you" ? "You win" : res.who + " wins";
      r.textContent = who + " — " + res.description + " (" + res.detail + ")";
      r.className = res.who === "you" ? "win" : "";
      r.dataset.ending = res.ending;
    } else {
      r.textContent = ""; r.className = ""; delete r.dataset.ending;
    }
    if (state.busy) status(state.engine + " is " + state.busy + "…");
    else if (!state.result) status(state.to_move === state.human ? "your move (" + state.human + ")" : "waiting for " + state.engine);
    else status("game over: new game, or undo to go back", false);
    $("undo").disabled = !!state.busy;
    $("swap").disabled = !!state.busy || !!state.result || state.to_move !== state.human;
    tick();
  }

  function think(msg) {
    if (!state || msg.game !== state.id) return;
    var line;
    if (msg.kind === "summary") {
      line = msg.text;
      if (msg.pv && msg.pv.length) lastPv = { game: msg.game, moves: msg.pv, plies: state.moves.length };
      var head = [];
      if (msg.depth !== undefined) head.push("depth " + msg.depth);
      if (msg.winrate !== undefined) head.push("winrate " + (100 * msg.winrate).toFixed(1) + "%");
      if (msg.score !== undefined) head.push("eval " + msg.score);
      if (msg.pv && msg.pv.length) head.push("pv " + msg.pv.map(function (m) { return m[0] + "," + m[1]; }).join(" "));
      if (head.length) $("thinking-head").textContent = head.join(" · ");
    } else {
      line = msg.kind + " " + msg.move[0] + "," + msg.move[1];
      if (msg.kind === "best") lastPv = { game: msg.game, moves: [msg.move], plies: state.moves.length };
    }
    thinking.push(line);
    if (thinking.length > 40) thinking.shift();
    var box = $("thinking");
    box.textContent = thinking.join("\n");
    box.scrollTop = box.scrollHeight;
    drawBoard();
  }

  function tick() {
    if (!state) return;
    var c = state.clock, running = !state.result && (state.busy === "thinking" || (!state.busy && state.to_move === state.human));
    var extra = running ? performance.now() - stateAt : 0;
    var engineTurn = state.busy === "thinking";
    $("clock-human").querySelector(".t").textContent = fmt(c.human_ms + (running && !engineTurn ? extra : 0));
    var eng = fmt(c.engine_ms + (running && engineTurn ? extra : 0));
    if (engineTurn && c.turn_ms) eng += " (" + fmt(Math.max(0, c.turn_ms - extra)) + " left)";
    $("clock-engine").querySelector(".t").textContent = eng;
    $("clock-engine").querySelector(".muted").textContent = state.engine + " (" + (state.human === "black" ? "white" : "black") + ")";
    $("clock-human").querySelector(".muted").textContent = "you (" + state.human + ")";
    $("clock-human").classList.toggle("on", running && !engineTurn);
    $("clock-engine").classList.toggle("on", running && engineTurn);
  }
  setInterval(tick, 100);

  $("board").addEventListener("click", function (ev) {
    var t = ev.target;
    if (!t.classList || !t.classList.contains("hit")) return;
    send({ type: "move", x: +t.dataset.x, y: +t.dataset.y });
  });
  $("new").addEventListener("click", function () {
    thinking = []; lastPv = null;
    $("thinking").textContent = "—";
    $("thinking-head").textContent = "";
    send({ type: "new", engine: $("engine").value, size: +$("size").value, rule: $("rule").value,
           turn: +$("turn").value, colour: $("colour").value });
  });
  $("undo").addEventListener("click", function () { send({ type: "undo" }); });
  $("swap").addEventListener("click", function () { send({ type: "swap" }); });
  $("size").addEventListener("change", function () { if (!state) drawBoard(); });

  /* ---------------------------------------------------------------- watch */
  var watchTimer = null, watchDb = null, selected = null;
  function tab(which) {
    $("tab-play").classList.toggle("active", which === "play");
    $("tab-watch").classList.toggle("active", which === "watch");
    $("view-play").classList.toggle("hidden", which !== "play");
    $("view-watch").classList.toggle("hidden", which !== "watch");
    if (which === "watch") loadDbs();
  }
  $("tab-play").addEventListener("click", function () { tab("play"); });
  $("tab-watch").addEventListener("click", function () { tab("watch"); });

  function getJSON(path) {
    return fetch(path + q, { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(r.status + " " + r.statusText);
      return r.json();
    });
  }
  function loadDbs() {
    getJSON("api/dbs").then(function (dbs) {
      var sel = $("db");
      if (sel.options.length === dbs.length) return;
      sel.innerHTML = "";
      dbs.forEach(function (d, i) { option(sel, i, d); });
      if (!dbs.length) { $("db-info").textContent = "start the server with --db FILE to watch a tournament"; return; }
      watchDb = 0;
      poll();
    });
  }
  $("db").addEventListener("change", function () { watchDb = +$("db").value; selected = null; poll(); });

  function poll() {
    clearTimeout(watchTimer);
    if (watchDb === null) return;
    getJSON("api/db/" + watchDb).then(showDb, function (e) { $("db-info").textContent = "cannot read: " + e.message; })
      .then(function () { watchTimer = setTimeout(poll, 2000); });
  }

  function showDb(d) {
    var s = d.settings || {};
    $("db-info").textContent = [s.kind, s.board ? s.board.join("x") : "", s.rule, d.games_count + " games",
      "updated " + new Date().toLocaleTimeString()].filter(Boolean).join(" · ");
    var rows = d.standings.map(function (r, i) {
      return "<tr class=\"standing\"><td>" + (i + 1) + "</td><td class=\"name\">" + GomokuBoard.esc(r.name) + "</td><td>" +
        (r.elo >= 0 ? "+" : "") + Math.round(r.elo) + "</td><td>" + (r.error95 === null ? "inf" : Math.round(r.error95)) +
        "</td><td>" + r.games + "</td><td>" + r.wins + "-" + r.draws + "-" + r.losses + "</td></tr>";
    }).join("");
    $("watch-standings").innerHTML = "<table><thead><tr><th>#</th><th>engine</th><th>Elo</th><th>±95%</th><th>games</th><th>W-D-L</th></tr></thead><tbody>" +
      rows + "</tbody></table>" + (d.sprt ? "<p>SPRT " + GomokuBoard.esc(d.sprt.engine) + ": LLR " + d.sprt.llr + " in [" +
      d.sprt.lower + ", " + d.sprt.upper + "] " + (d.sprt.decision || "undecided") + "</p>" : "");
    $("watch-chart").innerHTML = d.chart;
    var colour = d.by_colour;
    $("watch-colours").innerHTML = colour.rows.length ? "<table><thead><tr><th></th>" + colour.columns.map(function (c) {
      return "<th>" + GomokuBoard.esc(c.colour) + " " + c.stones + "</th>";
    }).join("") + "</tr></thead><tbody>" + colour.rows.map(function (r) {
      return "<tr><th class=\"name\">" + GomokuBoard.esc(r.name) + "</th>" + r.cells.map(function (c) {
        return "<td>" + (c === null ? "-" : c[0] + "/" + c[1]) + "</td>";
      }).join("") + "</tr>";
    }).join("") + "</tbody></table>" : "";
    var body = $("watch-games").querySelector("tbody");
    body.innerHTML = d.games.slice().reverse().map(function (g) {
      return "<tr data-slot=\"" + g.slot + "\"" + (g.slot === selected ? " class=\"sel\"" : "") + "><td>#" + g.slot + "</td><td class=\"name\">" +
        GomokuBoard.esc(g.black) + "</td><td class=\"name\">" + GomokuBoard.esc(g.white) + "</td><td>" + g.result +
        "</td><td>" + g.ending + "</td><td>" + g.plies + "</td></tr>";
    }).join("");
  }
  $("watch-games").addEventListener("click", function (ev) {
    var tr = ev.target.closest("tr");
    if (!tr) return;
    selected = +tr.dataset.slot;
    Array.prototype.forEach.call($("watch-games").querySelectorAll("tr"), function (r) { r.classList.toggle("sel", r === tr); });
    getJSON("api/db/" + watchDb + "/game/" + selected).then(function (g) {
      GomokuBoard.replay($("watch-replay"), g);
    });
  });

  connect();
})();
