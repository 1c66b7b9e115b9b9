/* The SVG gomoku board, shared by the web board (play and watch) and the HTML report.
   GomokuBoard.svg(opts) returns SVG markup; GomokuBoard.replay(container, game) builds a board
   with a slider that steps through a stored game. No dependencies, no network. */
(function (root) {
  "use strict";
  var CELL = 30, MARGIN = 30, serial = 0;

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function px(i) { return MARGIN + i * CELL; }

  function stars(w, h) {
    if (w < 9 || h < 9) return [];
    var d = w >= 13 ? 3 : 2, e = h >= 13 ? 3 : 2;
    var out = [[d, e], [w - 1 - d, e], [d, h - 1 - e], [w - 1 - d, h - 1 - e]];
    if (w % 2 && h % 2) out.push([(w - 1) / 2, (h - 1) / 2]);
    return out;
  }

  /* opts: width, height, stones [[x, y, colour(1 black, 2 white)], ...] in play order,
     numbers (bool: move numbers on stones), pv [[x, y], ...] with pvColour (1/2) and pvFrom (the
     move number it would be) for the first, so the ghost stones go on from the played ones' numbers
     (a ghost never shows a number a stone on the board carries), hits (bool: clickable squares with
     data-x/data-y), caption. */
  function svg(opts) {
    var w = opts.width, h = opts.height;
    var W = 2 * MARGIN + (w - 1) * CELL, H = 2 * MARGIN + (h - 1) * CELL;
    var id = "g" + (++serial);  /* gradient ids must be unique in the document (hidden boards too) */
    var p = ['<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 ' + W + " " + H +
      '" width="' + W + '" height="' + H + '" data-width="' + w + '" data-height="' + h + '">'];
    p.push('<defs><radialGradient id="' + id + 'b" cx="35%" cy="35%" r="70%"><stop offset="0" stop-color="#666"/>' +
      '<stop offset="1" stop-color="#111"/></radialGradient><radialGradient id="' + id + 'w" cx="35%" cy="35%" r="75%">' +
      '<stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#cfcac0"/></radialGradient></defs>');
    p.push('<rect class="wood" x="0" y="0" width="' + W + '" height="' + H + '" rx="6" fill="#dcb35c"/>');
    var i;
    for (i = 0; i < w; i++) {
      p.push('<line x1="' + px(i) + '" y1="' + px(0) + '" x2="' + px(i) + '" y2="' + px(h - 1) + '" stroke="#5a4220" stroke-width="1"/>');
      p.push('<text class="coord" x="' + px(i) + '" y="' + (MARGIN - 14) + '" text-anchor="middle">' + i + "</text>");
    }
    for (i = 0; i < h; i++) {
      p.push('<line x1="' + px(0) + '" y1="' + px(i) + '" x2="' + px(w - 1) + '" y2="' + px(i) + '" stroke="#5a4220" stroke-width="1"/>');
      p.push('<text class="coord" x="' + (MARGIN - 16) + '" y="' + (px(i) + 4) + '" text-anchor="middle">' + i + "</text>");
    }
    stars(w, h).forEach(function (s) {
      p.push('<circle cx="' + px(s[0]) + '" cy="' + px(s[1]) + '" r="3" fill="#5a4220"/>');
    });
    var stones = opts.stones || [];
    var taken = {}, occupied = {};
    stones.forEach(function (s, n) {
      occupied[s[0] + "," + s[1]] = 1;
      var fill = s[2] === 1 ? "url(#" + id + "b)" : "url(#" + id + "w)";
      taken[s[0] + "," + s[1]] = 1;
      p.push('<circle class="stone ' + (s[2] === 1 ? "black" : "white") + '" data-x="' + s[0] + '" data-y="' + s[1] +
        '" cx="' + px(s[0]) + '" cy="' + px(s[1]) + '" r="' + (CELL * 0.45) + '" fill="' + fill +
        '" stroke="' + (s[2] === 1 ? "#000" : "#8a8578") + '" stroke-width="1"/>');
      if (opts.numbers) {
        p.push('<text class="num" x="' + px(s[0]) + '" y="' + (px(s[1]) + 4) + '" text-anchor="middle" fill="' +
          (s[2] === 1 ? "#fff" : "#000") + '">' + (n + 1) + "</text>");
      }
    });
    if (stones.length) {
      var last = stones[stones.length - 1];
      p.push('<circle class="last" cx="' + px(last[0]) + '" cy="' + px(last[1]) + '" r="' + (opts.numbers ? CELL * 0.47 : 4) +
        '" fill="' + (opts.numbers ? "none" : "#e0412f") + '" stroke="#e0412f" stroke-width="' + (opts.numbers ? 2 : 0) + '"/>');
    }
    (opts.pv || []).forEach(function (m, k) {
      if (taken[m[0] + "," + m[1]]) return;
      taken[m[0] + "," + m[1]] = 1;
      var colour = k % 2 === 0 ? opts.pvColour : 3 - opts.pvColour;
      p.push('<g class="pv" opacity="0.55"><circle cx="' + px(m[0]) + '" cy="' + px(m[1]) + '" r="' + (CELL * 0.4) +
        '" fill="' + (colour === 1 ? "#222" : "#fff") + '" stroke="#3a6ea5" stroke-width="2" stroke-dasharray="3 2"/>' +
        '<text x="' + px(m[0]) + '" y="' + (px(m[1]) + 4) + '" text-anchor="middle" fill="' + (colour === 1 ? "#fff" : "#000") +
        '" font-size="11">' + (opts.pvFrom + k) + "</text></g>");
    });
    if (opts.hits) {
      for (var y = 0; y < h; y++) {
        for (var x = 0; x < w; x++) {
          if (occupied[x + "," + y]) continue;
          p.push('<rect class="hit" data-x="' + x + '" data-y="' + y + '" x="' + (px(x) - CELL / 2) + '" y="' +
            (px(y) - CELL / 2) + '" width="' + CELL + '" height="' + CELL + '" fill="transparent"/>');
        }
      }
    }
    p.push("</svg>");
    return p.join("");
  }

  function stonesOf(moves, upto) {
    var out = [];
    for (var i = 0; i < Math.min(upto, moves.length); i++) out.push([moves[i][0], moves[i][1], i % 2 === 0 ? 1 : 2]);
    return out;
  }

  /* A stored game (black, white, width, height, moves [[x, y, ms]], ending, result, opening_stones)
     as a board with a slider and step buttons inside `container`. Optional: game.pv_at, a line
     of squares per move number ({"12": [[x, y], ...]}), drawn as numbered ghost stones for the
     side to move when the board shows that many stones (the analysis page's refutations), and
     onDraw(k), called whenever the board shows k stones. Returns {go: function (k)}. */
  function replay(container, game, onDraw) {
    var n = game.moves.length;
    container.innerHTML =
      '<div class="replay-board"></div><div class="replay-controls">' +
      '<button type="button" class="first" title="start">|&lt;</button><button type="button" class="prev" title="back">&lt;</button>' +
      '<input type="range" class="slider" min="0" max="' + n + '" value="' + n + '" step="1" aria-label="move">' +
      '<button type="button" class="next" title="forward">&gt;</button><button type="button" class="end" title="end">&gt;|</button>' +
      '<span class="ply"></span></div><p class="muted replay-info"></p>';
    var slider = container.querySelector(".slider");
    var board = container.querySelector(".replay-board");
    var ply = container.querySelector(".ply");
    container.querySelector(".replay-info").textContent =
      game.black + " (black) vs " + game.white + " (white): " + game.result + " by " + game.ending +
      (game.detail ? " (" + game.detail + ")" : "") + (game.opening_stones ? "; " + game.opening_stones + " opening stones" : "");
    function draw() {
      var k = +slider.value;
      var line = game.pv_at && game.pv_at[String(k)];
      board.innerHTML = svg({ width: game.width, height: game.height, stones: stonesOf(game.moves, k), numbers: true,
        pv: line || [], pvColour: k % 2 === 0 ? 1 : 2, pvFrom: k + 1 });
      var mv = k > 0 ? game.moves[k - 1] : null;
      ply.textContent = "move " + k + " / " + n + (mv ? ": " + mv[0] + "," + mv[1] + (mv[2] ? " (" + mv[2] + " ms)" : "") : "") +
        (line ? "; ghost stones: the refutation" : "");
      if (onDraw) onDraw(k);
    }
    function go(k) { slider.value = Math.max(0, Math.min(n, k)); draw(); }
    slider.addEventListener("input", draw);
    container.querySelector(".first").addEventListener("click", function () { go(0); });
    container.querySelector(".prev").addEventListener("click", function () { go(+slider.value - 1); });
    container.querySelector(".next").addEventListener("click", function () { go(+slider.value + 1); });
    container.querySelector(".end").addEventListener("click", function () { go(n); });
    draw();
    return { go: go };
  }

  root.GomokuBoard = { svg: svg, replay: replay, stonesOf: stonesOf, esc: esc };
})(typeof window !== "undefined" ? window : this);
