// "Score the hand" on the seat page (docs/scoring.md): after "X won", a photo of the hand (or tiles
// picked from the palette) → the tiles in a row, tapped to correct them (the unsure ones marked) →
// the sets, the winning tile and the flags marked → the score and its items at once, in the page's
// language → "Record" sends the result through the page's own write (app.js record(): If-Match and
// Idempotency-Key), with the hand and the photo kept with it. Classical: each loser's own hand can
// be scored the same way; its value goes into the losers' scores.
(() => {
  "use strict";
  const app = window.companionScoring;
  const holder = document.getElementById("scorer");
  const wordsEl = document.getElementById("scoring-strings");
  if (!app || !holder || !wordsEl) return;
  const W = JSON.parse(wordsEl.textContent);
  const T = W.tiles;          // tile code -> name in the page's language
  const ITEMS = W.items;      // item key -> name in the page's language
  const $ = (sel, root = holder) => root.querySelector(sel);
  const { el, fmt } = app;   // the page's own helpers (app.js)
  const isBonus = (code) => code.endsWith("f");
  // the scoring system: the server says it with every answer; before the first, the settlement's
  const SYSTEMS = { mcr: "mcr", riichi: "riichi", hongkong: "hongkong", classical: "classical" };
  const FLAGS = {
    common: ["self_drawn", "last_tile", "replacement", "robbing_kong"],
    mcr: ["fourth_tile"],
    riichi: ["riichi", "ippatsu", "double_riichi", "heavenly", "earthly"],
    classical: ["original_call", "heavenly", "earthly"],
    german: ["heavenly", "earthly"],
    hongkong: ["heavenly", "earthly"],
  };

  let hands = {};        // player -> the hand being scored {tiles, melds, win, flags, photo, answer, dora, ura}
  let winner = null;     // the winner this step is for
  let current = null;    // whose hand is shown
  let selected = new Set();
  let system = null;
  let asking = 0;

  const fresh = () => ({ tiles: [], melds: [], win: null, flags: {}, photo: null, answer: null, error: null, dora: "", ura: "" });
  const st = () => app.state();
  const handOf = () => hands[current];
  const losing = () => current !== winner;

  function open(player) {
    winner = player; current = player; hands = { [player]: fresh() }; selected = new Set();
    system = SYSTEMS[st().variant.scoring] || "classical";
    holder.hidden = false;
    draw();
    holder.scrollIntoView({ block: "start" });
  }
  function close() { holder.hidden = true; holder.replaceChildren(); winner = null; hands = {}; }
  window.companionScorer = { open, close, label: W.score_hand };

  // --- the hand as JSON (docs/scoring.md) -------------------------------------------------------
  const codes = (text) => String(text || "").trim().split(/[\s,]+/).filter(Boolean);
  function handJson(h, withTiles = true) {
    const s = st();
    const player = s.players[current];
    const live = h.tiles.map((t, i) => ({ ...t, i })).filter((t) => !t.removed);
    const inMeld = new Set(h.melds.flatMap((m) => m.tiles));
    const hand = { seat_wind: s.seat_winds[player], prevalent_wind: s.prevalent, ...h.flags };
    if (losing()) { delete hand.self_drawn; }
    if (!withTiles) return hand;
    hand.melds = h.melds.map((m) => ({ tiles: m.tiles.map((i) => h.tiles[i].tile), concealed: m.concealed }));
    hand.winning_tile = losing() || h.win === null || h.tiles[h.win].removed ? null : h.tiles[h.win].tile;
    hand.concealed = live.filter((t) => !inMeld.has(t.i) && t.i !== h.win && !isBonus(t.tile)).map((t) => t.tile);
    hand.flowers = live.filter((t) => isBonus(t.tile)).map((t) => t.tile);
    if (system === "riichi") { hand.dora_indicators = codes(h.dora); hand.ura_indicators = codes(h.ura); }
    return hand;
  }

  // --- asking the companion -------------------------------------------------------------------
  async function score() {
    const h = handOf();
    if (!h.tiles.some((t) => !t.removed)) { h.answer = null; h.error = null; drawResult(); return; }
    const n = ++asking;
    try {
      const answer = await app.ask("/api/score", handJson(h));
      if (n !== asking) return;
      h.answer = answer; h.error = null; system = answer.score.system || system;
    } catch (err) {
      if (n !== asking) return;
      h.answer = null; h.error = err.message;
    }
    drawResult();
  }
  // a change is scored a moment later (taps in a row ask once); "Record" waits for that answer,
  // so that the value recorded is always the one of the hand as it is marked
  let timer = null;
  let inflight = null;
  const busy = (on) => { const box = $("#score-result"); if (box) box.toggleAttribute("data-pending", on); };
  function run() {
    timer = null;
    const p = score();
    inflight = p;
    p.finally(() => { if (inflight === p) { inflight = null; if (!timer) busy(false); } });
    return p;
  }
  const rescore = () => { clearTimeout(timer); busy(true); timer = setTimeout(run, 120); };
  async function settled() {
    if (timer) { clearTimeout(timer); await run(); } else if (inflight) await inflight;
  }

  async function readPhoto(file) {
    const h = handOf();
    const form = new FormData();
    const marks = handJson(h, false);
    if (losing()) marks.winning_tile = null;
    form.append("hand", JSON.stringify(marks));
    form.append("photo", file, file.name || "hand.jpg");
    h.error = null; h.reading = true; drawResult(); busy(true);
    try {
      const answer = await app.ask("/api/score", form, true);
      h.tiles = answer.tiles.map((t) => ({ tile: t.tile, read: t.tile, unsure: t.unsure, score: t.score }));
      h.melds = []; selected = new Set();
      h.photo = answer.photo;
      const w = answer.hand.winning_tile;
      h.win = null;
      if (w) for (let i = h.tiles.length - 1; i >= 0; i -= 1) if (h.tiles[i].tile === w) { h.win = i; break; }
      h.answer = answer; system = answer.score.system || system;
    } catch (err) {
      h.error = err.message;
    }
    h.reading = false;
    draw();
    if (!timer && !inflight) busy(false);
  }

  // --- acting on the tiles picked ---------------------------------------------------------------
  function act(what, code) {
    const h = handOf();
    const picked = [...selected].sort((a, b) => a - b);
    const dropMelds = (idx) => { h.melds = h.melds.filter((m) => !m.tiles.some((i) => idx.includes(i))); };
    if (what === "change") picked.forEach((i) => { h.tiles[i].tile = code; h.tiles[i].unsure = false; });
    if (what === "remove") { dropMelds(picked); picked.forEach((i) => { h.tiles[i].removed = true; if (h.win === i) h.win = null; }); }
    if (what === "unmark") { dropMelds(picked); if (picked.includes(h.win)) h.win = null; }
    if (what === "win") { if (picked.length !== 1) return say(W.pick_one); dropMelds(picked); h.win = picked[0]; }
    if (what === "meld" || what === "kong") {
      const kong = what === "kong";
      if (kong ? picked.length !== 4 : ![3, 4].includes(picked.length)) return say(kong ? W.pick_four : W.pick_set);
      dropMelds(picked);
      if (picked.includes(h.win)) h.win = null;
      h.melds.push({ tiles: picked, concealed: kong });
    }
    selected = new Set();
    draw();
    rescore();
  }
  function say(text) { const h = handOf(); h.error = text; drawResult(); }

  // --- drawing --------------------------------------------------------------------------------
  const tileName = (code) => T[code] || code;
  function tileButton(t, i, h) {
    const meld = h.melds.findIndex((m) => m.tiles.includes(i));
    const marks = [];
    if (meld >= 0) marks.push(fmt(h.melds[meld].concealed ? W.kong_n : W.set_n, { n: meld + 1 }));
    if (i === h.win && !losing()) marks.push(W.winning);
    if (t.unsure) marks.push(W.check);
    const cls = ["tile", t.unsure ? "unsure" : "", selected.has(i) ? "selected" : "", meld >= 0 ? "in-meld" : "",
      i === h.win && !losing() ? "winning" : ""].filter(Boolean).join(" ");
    return el("li", {}, el("button", {
      type: "button", class: cls, "data-index": i, "data-tile": t.tile, "aria-pressed": selected.has(i) ? "true" : "false",
      title: t.unsure ? fmt(W.unsure_title, { score: Math.round(100 * (t.score || 0)) }) : null,
      onclick: () => { if (selected.has(i)) selected.delete(i); else selected.add(i); drawTiles(); },
    }, el("span", { class: "code", text: t.tile }), el("span", { class: "name", text: tileName(t.tile) }),
    marks.length ? el("span", { class: "marks", text: marks.join(" · ") }) : null));
  }
  function tileOptions(selectedCode) {
    return Object.keys(T).map((c) => el("option", { value: c, text: `${tileName(c)} (${c})`, selected: c === selectedCode }));
  }
  function drawTiles() {
    const h = handOf();
    const row = $("#score-tiles");
    row.replaceChildren(...h.tiles.map((t, i) => (t.removed ? null : tileButton(t, i, h))).filter(Boolean));
    const acts = $("#score-acts");
    acts.hidden = selected.size === 0;
    const unsure = h.tiles.filter((t) => t.unsure && !t.removed).length;
    $("#score-unsure").textContent = unsure ? fmt(W.unsure_n, { n: unsure }) : "";
  }
  function flagBoxes() {
    const shown = losing() ? [] : [...new Set([...FLAGS.common, ...(FLAGS[system] || [])])];  // a loser's hand: no win
    const h = handOf();
    const boxes = shown.map((f) => el("label", {}, el("input", { type: "checkbox", name: f, checked: Boolean(h.flags[f]),
      onchange: (e) => { h.flags[f] = e.target.checked; if (f === "self_drawn") drawFrom(); rescore(); } }), " " + (W["flag_" + f] || f)));
    const riichi = system === "riichi" && !losing() ? [
      el("label", {}, W.dora + " ", el("input", { name: "dora", value: h.dora, placeholder: "1p 5s", size: "8",
        oninput: (e) => { h.dora = e.target.value; rescore(); } })),
      el("label", {}, W.ura + " ", el("input", { name: "ura", value: h.ura, placeholder: "3m", size: "8",
        oninput: (e) => { h.ura = e.target.value; rescore(); } })),
    ] : [];
    return el("fieldset", { class: "flags", id: "score-flags" }, el("legend", { text: W.flags }), ...boxes, ...riichi);
  }
  function drawFrom() {
    const box = $("#score-from-box");
    if (!box) return;
    const h = hands[winner];
    const s = st();
    box.hidden = Boolean(h.flags.self_drawn);
    const sel = $("#score-from");
    const keep = sel ? sel.value : "";
    box.replaceChildren(el("label", { for: "score-from", text: W.from + " " }),
      el("select", { id: "score-from", name: "from" }, el("option", { value: "", text: "—" }),
        ...s.players.map((p, i) => (i === winner ? null : el("option", { value: String(i), text: app.seatLabel(i), selected: String(i) === keep })))));
  }
  function itemName(item) {
    const mine = ITEMS[item.key];
    const std = item.native && item.native !== item.name ? item.native : null;
    if (mine) return std ? `${mine} (${std})` : mine;
    return std ? `${item.name} (${std})` : item.name;  // no words of the page's own: English, the standard name beside
  }
  function drawResult() {
    const box = $("#score-result");
    if (!box) return;
    const h = handOf();
    const a = h.answer;
    const out = [];
    if (h.reading) out.push(el("p", { class: "muted", text: W.reading }));
    if (h.error) out.push(el("p", { class: "error", "data-score": "error", text: h.error }));
    if (a && a.score) {
      const s = a.score;
      if (!s.valid) out.push(el("p", { class: "warning", "data-score": "invalid", text: fmt(W.no_win, { reason: s.reason || "" }) }));
      const head = a.record ? (s.system === "riichi" ? fmt(W.total_riichi, { han: s.han, fu: s.fu, points: s.total })
        : fmt(W["total_" + s.system] || W.total_points, { total: a.record.value, points: s.total })) : null;
      if (head) out.push(el("p", { class: "score-total", "data-score": "total", "data-value": a.record.value, text: head }));
      if (s.items && s.items.length) {
        out.push(el("ul", { id: "score-items", class: "score-items" }, ...s.items.map((it) => el("li", { "data-key": it.key },
          el("span", { class: "num", text: `${it.value} ${W["unit_" + it.unit] || it.unit}` }), " ", itemName(it),
          it.count > 1 && it.unit !== "han" ? ` ×${it.count}` : ""))));
      }
    }
    box.replaceChildren(...out);
    const rec = $("#score-record");
    if (rec) rec.disabled = !(a && a.record);
    drawLosers();
  }
  function drawLosers() {
    const box = $("#score-losers");
    if (!box) return;
    const classicalFamily = system === "classical" || system === "german";
    box.hidden = !classicalFamily || losing();
    if (box.hidden) return;
    const s = st();
    box.replaceChildren(el("p", { class: "step", text: W.losers }), ...s.players.map((p, i) => {
      if (i === winner) return null;
      const h = hands[i];
      const value = h && h.answer && h.answer.record ? h.answer.record.value : null;
      return el("p", {}, el("button", { type: "button", class: "link-button", "data-loser": i, text: fmt(W.score_loser, { player: p }),
        onclick: () => { current = i; hands[i] = hands[i] || fresh(); selected = new Set(); draw(); } }),
      value !== null ? el("span", { "data-loser-value": i, text: ` ${value}` }) : null);
    }));
  }
  function draw() {
    const s = st();
    const h = handOf();
    const who = s.players[current];
    holder.replaceChildren(
      el("h2", { id: "scorer-h", text: losing() ? fmt(W.loser_title, { player: who }) : fmt(W.title, { player: who }) }),
      el("p", { class: "muted", text: W.how }),
      el("p", {}, el("label", { for: "score-photo", class: "button", text: W.photo + " " }),
        el("input", { id: "score-photo", type: "file", accept: "image/*", capture: "environment", name: "photo",
          onchange: (e) => { if (e.target.files && e.target.files[0]) readPhoto(e.target.files[0]); } })),
      el("p", { class: "palette" }, el("label", { for: "score-add", text: W.add + " " }),
        el("select", { id: "score-add" }, ...tileOptions("1m")),
        el("button", { type: "button", id: "score-add-btn", class: "secondary", text: W.add_button,
          onclick: () => { h.tiles.push({ tile: $("#score-add").value, read: null, unsure: false }); drawTiles(); rescore(); } })),
      el("p", { class: "muted", id: "score-unsure" }),
      el("ol", { id: "score-tiles", class: "tiles", "aria-label": W.tiles_label }),
      el("div", { id: "score-acts", class: "choices", hidden: true },
        el("select", { id: "score-change", "aria-label": W.change }, ...tileOptions("1m")),
        el("button", { type: "button", "data-act": "change", text: W.change, onclick: () => act("change", $("#score-change").value) }),
        losing() ? null : el("button", { type: "button", "data-act": "win", text: W.winning_tile, onclick: () => act("win") }),
        el("button", { type: "button", "data-act": "meld", text: W.exposed_set, onclick: () => act("meld") }),
        el("button", { type: "button", "data-act": "kong", text: W.concealed_kong, onclick: () => act("kong") }),
        el("button", { type: "button", "data-act": "unmark", class: "secondary", text: W.unmark, onclick: () => act("unmark") }),
        el("button", { type: "button", "data-act": "remove", class: "secondary", text: W.remove, onclick: () => act("remove") })),
      flagBoxes(),
      losing() ? null : el("p", { id: "score-from-box" }),
      el("div", { id: "score-result", role: "status", "aria-live": "polite" }),
      el("div", { id: "score-losers", hidden: true }),
      el("div", { class: "choices" },
        losing()
          ? el("button", { type: "button", id: "score-use", class: "choice", text: fmt(W.use_loser, { player: who }),
            onclick: () => { current = winner; selected = new Set(); draw(); } })
          : el("button", { type: "button", id: "score-record", class: "choice", text: W.record, disabled: true, onclick: recordIt }),
        el("button", { type: "button", id: "score-cancel", class: "choice secondary", text: W.cancel,
          onclick: () => { if (losing()) { delete hands[current]; current = winner; draw(); } else close(); } })));
    drawTiles();
    drawFrom();
    drawResult();
  }

  // --- recording: the page's own write (app.js record) --------------------------------------------
  function scoredOf(player) {
    const h = hands[player];
    const hand = (() => { const keep = current; current = player; const j = handJson(h); current = keep; return j; })();
    const photoTiles = h.photo ? h.tiles.filter((t) => t.read !== null).map((t) => (t.removed ? "-" : t.tile)) : null;
    const added = h.photo ? h.tiles.filter((t) => t.read === null && !t.removed).map((t) => t.tile) : [];
    return { player, hand, photo: h.photo, tiles: h.photo ? photoTiles.concat(added) : null };
  }
  async function recordIt() {
    const button = $("#score-record");
    if (button) button.disabled = true;
    await settled();
    const h = hands[winner];
    const a = h.answer;
    if (!a || !a.record) return;
    const from = h.flags.self_drawn ? null : ($("#score-from") || {}).value;
    if (from === "" || from === undefined) { say(W.from_needed); return; }
    const result = { result: "win", winner, from: from === null ? null : Number(from), value: a.record.value };
    if (system === "riichi") { result.fu = a.record.fu; result.riichi = h.flags.riichi || h.flags.double_riichi ? [winner] : []; }
    const losers = Object.keys(hands).map(Number).filter((p) => p !== winner && hands[p].answer && hands[p].answer.record);
    if (losers.length) result.hand_scores = Object.fromEntries(losers.map((p) => [String(p), hands[p].answer.record.value]));
    result.scored = [scoredOf(winner), ...losers.map(scoredOf)];
    app.record(result);
    close();
  }
})();
