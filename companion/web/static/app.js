// The dashboard's live part: one EventSource stream of states, warnings and link status,
// rendered into the page; writes go through post() with a single-use CSRF token.
// No build step: plain modern JavaScript that every phone browser runs.
(() => {
  "use strict";
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const json = (id) => { const el = document.getElementById(id); return el ? JSON.parse(el.textContent) : null; };
  const S = json("strings") || {};
  let state = json("initial-state");
  let links = {};
  const body = document.body;
  const page = body.dataset.page;
  const me = body.dataset.player === "" || body.dataset.player === undefined ? null : Number(body.dataset.player);
  const canWrite = body.dataset.canWrite === "true";
  const viewWind = body.dataset.view || "E";
  let csrf = ($('meta[name="csrf-token"]') || {}).content || "";

  const fmt = (text, values) => String(text || "").replace(/%\((\w+)\)[sd]/g, (_, k) => (k in values ? values[k] : ""));
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  };
  // winds in the phone's language (in sentences too: "Süd" inside English reads as a slip); where a
  // wind stands alone, the variant's customary word after it ("East (Ton)"), unless that word is
  // only the wind's name in one of the dashboard's languages (German house rules' "Süd")
  const windName = (w) => S["wind_" + w] || w;
  function windLabel(w) {
    const term = state && state.variant.terms && state.variant.terms[w];
    const words = String(S["wind_words_" + w] || "").split("|");
    return term && !words.includes(term.toLocaleLowerCase()) ? `${windName(w)} (${term})` : windName(w);
  }
  const windOf = (name) => state.seat_winds[name];
  // the names a game gets when nobody typed any ("East", …): a seat is not called "East (South)"
  const placeholder = (name) => String(S.placeholder_names || "").split("|").includes(name);
  // (the phone's word only in the brackets: "Ann (East (Ton))" would nest them)
  const seatLabel = (i) => (placeholder(state.players[i]) ? windLabel(windOf(state.players[i]))
    : `${state.players[i]} (${windName(windOf(state.players[i]))})`);
  const variantTitle = () => S["title_" + state.variant.title] || state.variant.title;
  // replaceChildren writes a null as the text "null": the steps leave out what a variant has not
  const fill = (node, ...children) => node.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  const bind = (name, text) => $$(`[data-bind="${name}"]`).forEach((n) => { n.textContent = text; });

  // --- writes -----------------------------------------------------------------------------------
  const randomKey = () => {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes); // available without HTTPS, unlike crypto.randomUUID
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  };
  // One press is one write: it gets one Idempotency-Key, kept across every retry, and names the
  // state this phone showed (If-Match: its version); its button is disabled while it is on its way.
  // A 412 (the game moved on: another phone, the camera) is said in words and the state fetched
  // again. A write that cannot reach the companion (no network, a timeout, a 5xx) waits in the
  // outbox: kept in localStorage, shown on the page, sent again with the same key when the
  // connection returns (and when a page loads), and its outcome shown (companion/web/writes.py).
  const OUTBOX = "companion-outbox";
  const WRITE_TIMEOUT_MS = 10000;
  const failure = (kind, message, answer) => Object.assign(new Error(message || kind), { kind, answer });
  let queue = Promise.resolve();
  let lastWrite = -Infinity;  // when this page's latest write was pressed or answered
  let lastPath = null;        // and where it went
  async function send(item, mayRetry) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf, "Idempotency-Key": item.key };
    if (Number.isInteger(item.version)) headers["If-Match"] = `"${item.version}"`;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), WRITE_TIMEOUT_MS);
    let resp;
    try {
      resp = await fetch(item.path, { method: "POST", credentials: "same-origin", headers,
        body: JSON.stringify(item.data || {}), signal: abort.signal });
    } catch (e) {
      throw failure("pending");  // not heard: it may or may not have arrived; the key makes a resend safe
    } finally { clearTimeout(timer); }
    const fresh = resp.headers.get("X-CSRF-Token");
    if (fresh) csrf = fresh;
    let answer = null;
    try { answer = await resp.json(); } catch (e) { answer = null; }
    if (resp.status >= 500) throw failure("pending");
    const code = answer && answer.error && answer.error.code;
    if (resp.status === 403 && code === "csrf" && mayRetry) return send(item, false);
    if (resp.status === 412) throw failure("stale", (answer && answer.message) || S.state_changed, answer);
    if (!resp.ok) {
      const message = (answer && answer.error && answer.error.message) || resp.statusText;
      throw failure("refused", resp.status === 429 ? S.too_many : message, answer);
    }
    clearError();  // this write went through: an earlier refusal no longer stands
    if (answer && answer.state && newer(answer.state)) { state = answer.state; render(); }
    return answer;
  }
  // a state older than the one shown is not shown: a write's answer can arrive after the stream
  // brought a later state (another phone's throw, the dice box), and the log's ids only grow
  function newer(s) {
    return !state || !Number.isInteger(s.version) || !Number.isInteger(state.version) || s.version >= state.version;
  }
  async function refreshState() {
    try {
      const resp = await fetch("/api/state", { credentials: "same-origin" });
      if (resp.ok) { const fresh = await resp.json(); if (fresh && newer(fresh)) { state = fresh; render(); } }
    } catch (e) { /* the stream brings it */ }
  }
  // one write at a time, in the order the player tapped (each needs the previous one's token)
  // `version`: the state the action was begun on, where that is not the state shown now (a result
  // picked before another phone's result came in); by default the state this phone shows
  function post(path, data, button, version) {
    // a press of the same write this soon after the last is the second tap of a double tap that
    // landed on a button drawn anew under the finger (the history's Undo becomes "↺ Undo"): not an
    // action. Another write (a penalty, then "End the game") is one, however soon.
    if (button && path === lastPath && performance.now() - lastWrite < DOUBLE_TAP_MS) return Promise.reject(failure("ignored"));
    lastWrite = performance.now();
    lastPath = path;
    const item = { key: randomKey(), path, data, version: version ?? (state ? state.version : null), at: Date.now() };
    if (button) button.disabled = true;
    let settled = false;
    const run = () => send(item, true);
    const done = queue.then(run, run).catch((err) => {
      if (err.kind === "pending") { keep(item); setConnection(false); } else showError(err.message);
      if (err.kind === "stale") refreshState();
      throw err;
    }).then((answer) => { settled = true; return answer; }).finally(() => {
      lastWrite = performance.now();
      // after a write that went through, the button stays off a moment: the second tap of a double
      // tap is no new action (a second throw would count as the breaker's, R17)
      if (button) setTimeout(() => { button.disabled = false; }, settled ? DOUBLE_TAP_MS : 0);
    });
    queue = done.catch(() => null);
    return done;
  }
  window.companionPost = post;
  // a request that records nothing (POST /api/score): the page's single-use token, in turn with the
  // writes; no key, no outbox (a score is asked again, never sent later)
  function ask(path, data, isForm) {
    const run = async () => {
      const headers = { "X-CSRF-Token": csrf };
      if (!isForm) headers["Content-Type"] = "application/json";
      let resp;
      try {
        resp = await fetch(path, { method: "POST", credentials: "same-origin", headers, body: isForm ? data : JSON.stringify(data) });
      } catch (e) { throw failure("pending", S.offline); }
      const fresh = resp.headers.get("X-CSRF-Token");
      if (fresh) csrf = fresh;
      let answer = null;
      try { answer = await resp.json(); } catch (e) { answer = null; }
      if (!resp.ok) throw failure("refused", (answer && answer.error && answer.error.message) || resp.statusText, answer);
      return answer;
    };
    const done = queue.then(run, run);
    queue = done.catch(() => null);
    return done;
  }
  // the hand scorer (score.js): it asks with the page's token and records through record() below
  // (riichi: the declarations ticked in the recorder's step count too: each is a stick on the table)
  window.companionScoring = { ask, state: () => state, seatLabel, el, fmt,
    record: (result) => record(result.riichi ? { ...result, riichi: sorted(new Set([...riichiTicked, ...result.riichi])) } : result) };

  // --- the outbox: writes that could not be sent yet ------------------------------------------------
  const pending = () => { try { return JSON.parse(localStorage.getItem(OUTBOX) || "[]"); } catch (e) { return []; } };
  const savePending = (items) => { try { localStorage.setItem(OUTBOX, JSON.stringify(items)); } catch (e) { /* private mode */ } };
  const outcomes = [];
  function keep(item) {
    savePending([...pending().filter((p) => p.key !== item.key), item]);
    renderOutbox();
  }
  function writeName(item) {
    const d = item.data || {};
    const name = (i) => (state && Number.isInteger(i) ? state.players[i] : String(i));
    if (item.path === "/api/hands") {
      if (d.result === "draw") return S.drawn;
      return d.from === null || d.from === undefined ? fmt(S.won, { winner: name(d.winner) })
        : fmt(S.won_from, { winner: name(d.winner), from: name(d.from) });
    }
    if (item.path === "/api/dice" && Array.isArray(d.faces)) return fmt(S.dice_event, { faces: d.faces.join(" + ") });
    if (item.path === "/api/undo") return S.undone;
    if (item.path.endsWith("/correct")) return S.corrected;
    return S.write_other;
  }
  function renderOutbox() {
    let box = $("#outbox");
    if (!box) {
      const errors = $("#errors");
      if (!errors) return;
      // inside the errors' box, which stays in view at the top of the screen while scrolling
      box = el("div", { id: "outbox", class: "outbox", role: "status", "aria-live": "polite" });
      errors.append(box);
    }
    const items = pending();
    box.hidden = !items.length && !outcomes.length;
    fill(box,  // (a null left out, not written as "null")
      items.length ? el("p", { class: "warning", text: S.outbox_pending }) : null,
      items.length ? el("ul", {}, ...items.map((it) => el("li", { "data-outbox": "pending", "data-key": it.key, text: writeName(it) }))) : null,
      ...outcomes.map((o) => el("p", { class: o.ok ? "outbox-done" : "outbox-refused", "data-outbox": o.ok ? "recorded" : "refused", text: o.text })));
  }
  function outcome(ok, text) {
    const o = { ok, text };
    outcomes.push(o);
    renderOutbox();
    setTimeout(() => { outcomes.splice(outcomes.indexOf(o), 1); renderOutbox(); }, 30000);
  }
  // send what waits, oldest first, each with its own key and the version it was made on
  let flushing = false;
  function flushOutbox() {
    if (flushing || !pending().length || !canWrite) return;
    flushing = true;
    const run = async () => {
      for (const item of pending()) {
        try {
          await send(item, true);
          outcome(true, fmt(S.outbox_recorded, { what: writeName(item) }));
        } catch (err) {
          if (err.kind === "pending") break;  // still unreachable: it stays
          outcome(false, fmt(S.outbox_refused, { what: writeName(item), reason: err.message }));
          if (err.kind === "stale") refreshState();
        }
        savePending(pending().filter((p) => p.key !== item.key));
        renderOutbox();
      }
    };
    queue = queue.then(run, run).finally(() => { flushing = false; renderOutbox(); });
  }
  setInterval(flushOutbox, 5000);

  // --- messages to the player ---------------------------------------------------------------------
  // the latest event, in the page's flow under the bar (never over a button); its Undo only on the
  // phone that recorded it, for a while: the others were not asked and take back from the history
  let toastTimer = null;
  const mine = new Set();  // ids of the events this page recorded
  function toast(text, undoTarget) {
    const box = $("#toast");
    if (!box) return;
    box.replaceChildren(el("span", { text }));
    if (undoTarget && canWrite && mine.has(undoTarget)) {
      box.append(el("button", { type: "button", class: "link-button", "data-action": "undo", text: S.undo,
        onclick: (e) => { post("/api/undo", { target: undoTarget }).catch(() => null); e.target.remove(); } }));
    }
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { $$("button", box).forEach((b) => b.remove()); }, 15000);
  }
  function recordedHere(answer) {
    if (!answer || !answer.record) return;
    mine.add(answer.record.id);
    toast(`${S.recorded}: ${describeEvent(answer.record)}`, answer.record.id);
  }
  let errorTimer = null;
  function showError(message) {
    const box = $("#errors");
    if (!box) return;
    clearError();
    box.prepend(el("p", { class: "error", text: S.error_colon + message }));
    clearTimeout(errorTimer);  // one timer: an older error's must not cut a newer one short
    errorTimer = setTimeout(clearError, 10000);
  }
  function clearError() {
    const box = $("#errors");
    if (box) $$(":scope > p.error", box).forEach((p) => p.remove());  // the outbox in it stays
  }
  // a warning in the page's language, from its code and details; the server's English text
  // where the details do not say enough (an older server, a warning the page has no words for)
  // a stack number (counted from its wall's right end, as every position is) as the players of
  // a variant that counts the break from the left end count it as well
  function stackNo(n) {
    const v = state && state.variant;
    return v && v.count_from === "left" ? fmt(S.counted_left, { stack: n, left: v.stacks_per_wall + 1 - n }) : String(n);
  }
  const stackAt = (p) => `${windName(p[0])} ${stackNo(p[1])}`;
  function warningText(w) {
    const at = stackAt;
    const pair = (p) => Array.isArray(p) && p.length === 2;
    switch (w.code) {
      case "wrong_break":
        return pair(w.expected) && pair(w.observed) ? fmt(S.break_wrong, { observed: at(w.observed), expected: at(w.expected) }) : null;
      case "wrong_marker":
        return w.observed && state ? fmt(S.warn_wrong_marker, { east: windName("E"), seat: windName(w.observed), player: state.seats.E }) : null;
      case "wrong_wind":
        return w.observed && w.expected ? fmt(S.warn_wrong_wind, { shown: windName(w.observed), round: windName(w.expected) }) : null;
      case "wrong_wall_length":
        return Number.isInteger(w.observed) && Number.isInteger(w.expected) && w.variant
          ? fmt(S.warn_wall_length, { seen: w.observed, n: w.expected, variant: w.variant }) : null;
      case "few_tiles_left":
        return Number.isInteger(w.live_tiles) ? fmt(S.warn_few_tiles, { n: w.live_tiles }) : null;
      case "rethrow":
        return Number.isInteger(w.die) ? fmt(S.warn_rethrow, { die: w.die + 1 }) : null;
      case "dice_unsure":
        return Number.isInteger(w.die) && Number.isInteger(w.face) ? fmt(S.warn_dice_unsure, { die: w.die + 1, face: w.face }) : null;
      case "dice_refused":
        return Array.isArray(w.faces) && w.reason ? fmt(S.warn_dice_refused, { faces: w.faces.join(" + "), reason: w.reason }) : null;
      case "dice_link":
        return { disconnected: S.warn_dice_disconnected, silent: S.warn_dice_silent }[w.state] || null;
      default:
        return null;
    }
  }
  function showWarning(w) {
    const box = $("#warnings");
    if (!box) return;
    const item = el("p", { class: "warning", "data-code": w.code }, el("strong", { text: S.warning_colon }),
      warningText(w) || w.message || w.code);
    // a throw the camera is unsure of: one tap takes it back, then the dice are typed as they lie
    if (w.code === "dice_unsure" && Number.isInteger(w.event) && canWrite) {
      item.append(" ", el("button", { type: "button", class: "link-button", "data-action": "undo", text: S.undo,
        onclick: () => { post("/api/undo", { target: w.event }).catch(() => null); item.remove(); } }));
    }
    box.prepend(item);
    while (box.children.length > 3) box.lastChild.remove();
    setTimeout(() => item.remove(), 30000);
  }
  function describeEvent(ev) {
    if (!ev || !state) return null;
    const name = (i) => (i === null || i === undefined ? "" : state.players[i]);
    switch (ev.type) {
      case "hand_won": {
        // several winners on one discard (seed 002): "Bob, Cat won from Ann"
        const winners = [ev.winner, ...(ev.also || []).map((a) => a.winner)].map(name).join(", ");
        return ev.discarder === undefined || ev.discarder === null
          ? fmt(S.won_self, { winner: winners })
          : fmt(S.won_from, { winner: winners, from: name(ev.discarder) });
      }
      case "hand_drawn": return S.drawn;
      case "dice": return fmt(S.dice_event, { faces: ev.faces.join(" + ") });
      case "undo": return S.undone;
      case "correct": return S.corrected;
      case "game_started": return fmt(S.started, { variant: variantTitle() });
      case "wall_broken": return fmt(S.wall_broken, { wind: windName(ev.seat), stack: ev.stack });
      case "player_renamed": return fmt(S.renamed, { name: ev.name });
      case "game_resumed": return S.resumed;
      case "redeal": return S.ev_redeal;
      case "penalty": return fmt(S.ev_penalty, { player: name(ev.player), points: ev.points });
      case "adjustment": return fmt(S.ev_adjustment, { moves: Object.entries(ev.deltas || {})
        .map(([p, d]) => `${name(Number(p))} ${d > 0 ? "+" : ""}${d}`).join(", ") });
      case "game_ended": return S.ev_game_ended;
      case "seats": return fmt(S.ev_seats, { east: name(ev.order ? ev.order[0] : 0) });
      default: return ev.type;
    }
  }

  // --- rendering ---------------------------------------------------------------------------------
  let drawnFor = state ? state.last_event : null; // the page came with the wall drawn
  function render() {
    if (!state) return;
    const myName = me === null ? null : state.players[me];
    if (myName) {
      bind("my-wind", windLabel(windOf(myName)));
      bind("my-name", myName);
      $$('[data-show="i-am-east"]').forEach((n) => { n.hidden = state.dealer !== me; });
    }
    bind("variant", variantTitle());
    bind("east", `${state.east} (${windName("E")})`);
    bind("prevalent", windLabel(state.prevalent));
    bind("hand", fmt(S.hand, { hand: state.hand }));
    bind("round", fmt(S.round, { wind: windName(state.prevalent) }) + " · " +
      fmt(S.round_of, { round: state.round, rounds: state.rounds }));
    const counter = state.variant.counter;
    $$('[data-show="counter"]').forEach((n) => { n.hidden = !counter || counter === "none"; });
    bind("counter-label", S["counter_" + counter] || counter || "");
    bind("counter", String(state.counter));
    bind("pot", String(state.pot || 0));
    $$('[data-show="pot"]').forEach((n) => { n.hidden = !state.pot; });
    // this hand's dice only: the hand before's are no news once its result is in
    const lastThrow = state.throws && state.throws.length ? state.throws[state.throws.length - 1] : null;
    bind("last-dice", lastThrow ? lastThrow.faces.join(" + ") + lastDiceSource() : S.no_dice);
    $$('[data-show="throw-due"]').forEach((n) => { n.hidden = !state.expected_throw; });
    // the phase is announced to screen readers (aria-live): written only when it changes, so that
    // an unrelated update does not say it again
    const phase = phaseText();
    $$('[data-bind="phase"]').forEach((n) => { if (n.textContent !== phase) n.textContent = phase; });
    $$('[data-show="over"]').forEach((n) => { n.hidden = !state.game_over; });
    renderBreakCheck();
    sayBreak();
    renderScores();
    renderRecorder();
    renderRolls();
    renderWholeGame();
    if (page === "history") renderHistory();
    if (drawnFor !== state.last_event) { drawnFor = state.last_event; refreshWall(); }
  }

  // --- a whole game: sitting down, a misdeal, a penalty, ending it, the standings (docs/game.md) ----
  // drawn again only when what it shows changes: a penalty's points being typed stay as they are
  let wholeGameShown = null;
  function renderWholeGame() {
    const box = $("#whole-game");
    if (!box) return;
    const write = canWrite && box.dataset.canWrite === "true";
    const seating = state.seating || { open: false, throws: [] };
    const throws = state.throws || [];
    const sitting = !state.game_over && !(state.history_count ?? (state.history || []).length) && !throws.length
      && !seating.decided;
    const shown = JSON.stringify([state.game, state.players, state.game_over, sitting, seating, throws.length,
      state.standings, state.ended, write]);
    if (shown === wholeGameShown) return;
    wholeGameShown = shown;
    const options = (selected) => state.players.map((p, i) => el("option", { value: i, text: p, selected: i === selected }));
    const parts = [];
    if (sitting) {  // choosing the first East, before hand 1
      const by = seating.method === "highest_throw" || seating.method === "counted_throw";
      parts.push(el("div", { class: "seating", "data-part": "seating" },
        el("h2", { text: S.seats_title }),
        el("p", { class: "muted", text: by && seating.open ? S.seats_by_dice : S.seats_as_typed }),
        seating.throws.length ? el("ul", { class: "seat-throws" }, ...seating.throws.map((t) =>
          el("li", { text: fmt(S.seat_throw, { who: t.by, total: t.total }) }))) : null,
        write ? el("p", { class: "inline-form" },
          el("label", { for: "first-east", text: S.first_east + " " }),
          el("select", { id: "first-east", name: "first_east" }, ...options(0)),
          el("button", { type: "button", class: "secondary", "data-action": "first-east", text: S.set_first_east,
            onclick: (e) => post("/api/seats", { first_east: Number($("#first-east").value) }, e.currentTarget).catch(() => null) })) : null,
        write ? el("p", {}, el("button", { type: "button", class: "secondary", "data-action": "draw-seats", text: S.draw_seats,
          onclick: (e) => {  // the phone draws the wind tiles: a random order, East first
            const order = [0, 1, 2, 3];
            const r = new Uint32Array(4);
            crypto.getRandomValues(r);
            for (let i = 3; i > 0; i--) { const j = r[i] % (i + 1); [order[i], order[j]] = [order[j], order[i]]; }
            post("/api/seats", { order }, e.currentTarget).catch(() => null);
          } })) : null));
    }
    if (write && !state.game_over) {
      parts.push(el("div", { class: "game-actions", "data-part": "actions" },
        throws.length ? el("p", {}, el("button", { type: "button", class: "secondary", "data-action": "redeal", text: S.redeal,
          onclick: (e) => post("/api/redeal", {}, e.currentTarget).catch(() => null) })) : null,
        el("details", { class: "penalty" }, el("summary", { text: S.penalty }),
          el("p", {}, el("label", { for: "penalty-player", text: S.penalty_player + " " }),
            el("select", { id: "penalty-player", name: "penalty_player" }, ...options(me ?? 0))),
          el("p", {}, el("label", { for: "penalty-points", text: S.penalty_points + " " }),
            el("input", { id: "penalty-points", name: "penalty_points", type: "number", inputmode: "numeric", min: "3",
              step: "3", max: "1000000", value: "30" })),
          el("p", {}, el("label", { for: "penalty-reason", text: S.reason + " " }),
            el("input", { id: "penalty-reason", name: "penalty_reason", maxlength: "200" })),
          el("button", { type: "button", class: "primary", "data-action": "penalty", text: S.record_penalty,
            onclick: (e) => post("/api/penalties", { player: Number($("#penalty-player").value),
              points: Number($("#penalty-points").value), reason: $("#penalty-reason").value }, e.currentTarget).catch(() => null) })),
        el("details", { class: "end-game" }, el("summary", { text: S.end_game }),
          el("p", { class: "muted", text: S.end_game_note }),
          el("p", {}, el("label", { for: "end-how", text: S.end_how + " " }),
            el("select", { id: "end-how", name: "end_how" },
              el("option", { value: "time", text: S.end_by_time }), el("option", { value: "agreement", text: S.end_by_agreement }))),
          el("button", { type: "button", class: "primary", "data-action": "end-game", text: S.end_game_confirm,
            onclick: (e) => post("/api/end", { how: $("#end-how").value }, e.currentTarget).catch(() => null) }))));
    }
    const rows = state.standings || [];
    const final = rows.some((r) => r.final !== undefined);
    parts.push(el("details", { class: "standings", "data-part": "standings", open: state.game_over },
      el("summary", { text: S.standings }),
      state.ended ? el("p", { class: "muted", text: S.game_ended }) : null,
      el("table", { id: "standings", class: "scores" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col", text: S.rank }), el("th", { scope: "col", text: S.player }),
          el("th", { scope: "col", class: "num", text: S.score }), final ? el("th", { scope: "col", class: "num", text: S.final }) : null)),
        el("tbody", {}, ...rows.map((r) => el("tr", { "data-player": r.player },
          el("td", { text: String(r.rank) }), el("th", { scope: "row", text: r.player }),
          el("td", { class: "num", text: String(r.score) }),
          final ? el("td", { class: "num", text: (r.final > 0 ? "+" : "") + r.final }) : null))))));
    fill(box, ...parts);
  }

  function lastDiceSource() {
    // this hand's latest throw says where it came from; dice of the hand before say nothing
    const t = state.throws && state.throws.length ? state.throws[state.throws.length - 1] : null;
    const said = t && S["source_" + t.source];
    return said ? ` (${said})` : "";
  }

  function phaseText() {
    if (state.game_over) return S.game_over;
    const t = state.expected_throw;
    if (t && t.for === "seats") return fmt(S.seat_throw_by, { who: t.by, index: t.index, of: t.of });
    if (t) {
      const who = t.by ? `${windName(t.by)} · ${state.seats[t.by]}` : null;
      const text = who ? fmt(S.throw_by, { index: t.index, of: t.of, who }) : fmt(S.throw_unknown, { index: t.index, of: t.of });
      return t.rethrow && t.rethrow.length ? `${text} — ${S.rethrow}` : text;
    }
    if (state.break) return fmt(S.break_at, { wind: windName(state.break.wall), stack: stackNo(state.break.stack) });
    return S.play;
  }
  function renderBreakCheck() {
    const box = $("#break-check");
    if (!box) return;
    const c = state.break_check;
    box.hidden = !c || c.ok;
    if (c && !c.ok) {
      box.textContent = fmt(S.break_wrong, { observed: stackAt(c.observed), expected: stackAt(c.expected) });
    }
  }
  function renderScores() {
    const tbody = $("#scores tbody");
    if (!tbody) return;
    const order = ["E", "S", "W", "N"].map((w) => state.players.indexOf(state.seats[w]));
    tbody.replaceChildren(...order.map((i) => {
      const name = state.players[i];
      const w = windOf(name);
      const row = el("tr", { class: [i === me ? "me" : "", i === state.dealer ? "east" : ""].join(" ").trim() || null },
        el("td", { class: "wind" }, el("span", { class: "wind-tile", text: windLabel(w) })),
        el("th", { scope: "row", text: name + (i === me ? ` (${S.you})` : "") }),
        el("td", { class: "num", text: String(state.scores[name]) }));
      return row;
    }));
  }

  // two taps: who won (or draw), then from whom (or self-drawn); the value is optional (riichi: han
  // and fu, and who declared riichi). What was typed or ticked lives here, not only in the form: a
  // refused result goes back to the step it came from with it. A step that is open is not drawn
  // again on a state update (another phone's result, the camera's dice) unless it has to be: a
  // redraw would move the caret in the value being typed ("1", update, "2" gave 21).
  let pickedWinner = null;
  let typedValue = "";
  let typedFu = "";
  const readyTicked = new Set();
  const riichiTicked = new Set();
  // others who won on the same discard (variants that let several win, seed 002): player → typed value
  const alsoTicked = new Map();
  let shownStep = null;
  let drawnAt = -Infinity;
  // a tap on "who won" this soon after a result was sent is the second tap of a double tap on the
  // result button, landing on the first step drawn under the finger
  const DOUBLE_TAP_MS = 400;
  // the hand a result is picked for: another result (or its undo) in between makes it another hand
  const handMark = () => JSON.stringify([state.game, state.hand, state.history_count ?? (state.history || []).length]);
  let pickedOn = null;  // {mark, version} when "who won" was tapped
  function pick(winner) {
    if (performance.now() - drawnAt < DOUBLE_TAP_MS) return;
    pickedOn = { mark: handMark(), version: state.version };
    pickedWinner = winner; typedValue = ""; typedFu = ""; readyTicked.clear(); riichiTicked.clear(); alsoTicked.clear();
    renderRecorder();
  }
  function startOver() { pickedWinner = null; renderRecorder(); if (window.companionScorer) window.companionScorer.close(); }
  // a box per player (who declared riichi, who was tenpai), ticked where `ticked(i)`; with `set`,
  // each change is kept there (the recorder); without, the form is read when sent (a correction)
  function playerBoxes(name, legend, ticked, set = null) {
    return el("fieldset", { class: "ready" }, el("legend", { text: legend }),
      ...state.players.map((player, i) => el("label", {}, el("input", { type: "checkbox", name, value: i,
        checked: ticked(i), onchange: set && ((e) => (e.target.checked ? set.add(i) : set.delete(i))) }), " " + player)));
  }
  const ticks = (name, set, legend) => playerBoxes(name, legend, (i) => set.has(i), set);
  // who else won on this discard, each with their own value (and fu in riichi scoring)
  function alsoBoxes(winner, riichi) {
    return el("fieldset", { class: "also" }, el("legend", { text: S.also_won }),
      ...state.players.map((player, i) => {
        if (i === winner) return null;
        const typed = alsoTicked.get(i);
        return el("p", {}, el("label", {}, el("input", { type: "checkbox", name: "also", value: i, checked: Boolean(typed),
          onchange: (e) => { if (e.target.checked) alsoTicked.set(i, { value: "", fu: "" }); else alsoTicked.delete(i); renderRecorder(); } }),
          " " + player),
          typed ? el("input", { type: "number", inputmode: "numeric", min: "0", max: "1000000", name: `also-value-${i}`,
            "aria-label": fmt(S.also_value, { player, value: riichi ? S.han : S.value }), value: typed.value || null,
            oninput: (e) => { typed.value = e.target.value; } }) : null,
          typed && riichi ? el("input", { type: "number", inputmode: "numeric", min: "0", max: "200", name: `also-fu-${i}`,
            "aria-label": fmt(S.also_value, { player, value: S.fu }), value: typed.fu || null,
            oninput: (e) => { typed.fu = e.target.value; } }) : null);
      }));
  }
  function numberInput(id, label, value, oninput, max) {
    return el("p", { class: "value" }, el("label", { for: id, text: label + " " }),
      el("input", { id, type: "number", inputmode: "numeric", min: "0", max, name: id, value: value || null,
        oninput: (e) => oninput(e.target.value) }));
  }
  function renderRecorder() {
    const box = $("#recorder");
    if (!box || !canWrite) return;
    const steps = $("#recorder-steps", box);
    if (!steps) return;
    const step = JSON.stringify([pickedWinner, state.game, state.game_over, state.players, state.seat_winds, [...alsoTicked.keys()]]);
    if (step === shownStep && steps.childElementCount) return;  // the same step is open: leave it as it is
    shownStep = step;
    const focusInside = box.contains(document.activeElement);
    const riichi = state.variant.scoring === "riichi";
    if (state.game_over) { fill(steps, el("p", { text: S.game_over })); return; }
    if (pickedWinner === null) {
      fill(steps,
        el("p", { class: "step", id: "step-title", text: S.who_won }),
        el("div", { class: "choices", role: "group", "aria-labelledby": "step-title" },
          ...state.players.map((_, i) => el("button", { type: "button", class: "choice", "data-winner": i,
            text: seatLabel(i), onclick: () => pick(i) })),
          el("button", { type: "button", class: "choice secondary", "data-winner": "draw", text: S.draw,
            onclick: () => pick("draw") })));
    } else if (pickedWinner === "draw") {
      const ready = state.variant.counter === "honba";
      fill(steps,
        el("p", { class: "step", id: "step-title", text: S.drawn }),
        ready ? ticks("ready", readyTicked, S.tenpai) : null,
        riichi ? ticks("riichi", riichiTicked, S.riichi_declared) : null,
        el("div", { class: "choices", role: "group", "aria-labelledby": "step-title" },
          el("button", { type: "button", class: "choice", "data-confirm": "draw", text: S.confirm_draw,
            onclick: () => record({ result: "draw", ready: sorted(readyTicked), riichi: sorted(riichiTicked) }) }),
          el("button", { type: "button", class: "choice secondary", text: S.cancel, onclick: startOver })));
    } else {
      const winner = pickedWinner;
      const several = Boolean(state.variant.several_winners);
      const also = () => [...alsoTicked].map(([i, typed]) => ({ winner: i, value: readNumber(typed.value),
        ...(riichi ? { fu: readNumber(typed.fu) } : {}) }));
      const win = (from) => record({ result: "win", winner, from, value: readNumber(typedValue),
        ...(riichi ? { fu: readNumber(typedFu), riichi: sorted(riichiTicked) } : {}),
        ...(alsoTicked.size ? { also: also() } : {}) });
      fill(steps,
        el("p", { class: "step", id: "step-title", text: fmt(S.from_whom, { winner: state.players[winner] }) }),
        window.companionScorer ? el("p", {}, el("button", { type: "button", class: "secondary", "data-action": "score-hand",
          text: window.companionScorer.label, onclick: () => window.companionScorer.open(winner) })) : null,
        numberInput("hand-value", riichi ? S.han : S.value, typedValue, (v) => { typedValue = v; }, "1000000"),
        riichi ? numberInput("hand-fu", S.fu, typedFu, (v) => { typedFu = v; }, "200") : null,
        riichi ? ticks("riichi", riichiTicked, S.riichi_declared) : null,
        several ? alsoBoxes(winner, riichi) : null,
        el("div", { class: "choices", role: "group", "aria-labelledby": "step-title" },
          // several winners won on a discard: not self-drawn, and none of them discarded it
          alsoTicked.size ? null : el("button", { type: "button", class: "choice", "data-from": "self", text: S.self_drawn, onclick: () => win(null) }),
          ...state.players.map((_, i) => (i === winner || alsoTicked.has(i) ? null : el("button", { type: "button", class: "choice", "data-from": i,
            text: seatLabel(i), onclick: () => win(i) }))),
          el("button", { type: "button", class: "choice secondary", text: S.cancel, onclick: startOver })));
    }
    if (focusInside) { const first = $("button, input", steps); if (first) first.focus(); }
  }
  const sorted = (set) => [...set].sort((a, b) => a - b);
  const readNumber = (v) => (v === "" || v === undefined || v === null ? null : Number(v));
  function record(result) {
    const picked = pickedWinner;
    pickedWinner = null;  // at once, so that a second tap cannot record it twice
    drawnAt = performance.now();
    renderRecorder();
    // a result for the hand picked on: if another phone's result came in meanwhile, the version
    // it was picked on (the server then says who recorded what, 412); else the state as it is now
    const version = pickedOn && pickedOn.mark !== handMark() ? pickedOn.version : undefined;
    post("/api/hands", result, null, version).then((answer) => {
      typedValue = ""; typedFu = ""; readyTicked.clear(); riichiTicked.clear(); alsoTicked.clear();
      recordedHere(answer);
    }).catch((err) => {
      // refused (the reason shows at the top): back to the step, with what was typed, to mend it;
      // not when it waits to be sent (the outbox) or the game moved on (that result is history)
      if (pickedWinner === null && err.kind === "refused") { pickedWinner = picked; renderRecorder(); }
    });
  }

  function renderRolls() {
    const box = $("#rolls");
    if (!box) return;
    const rolls = state.unassigned_rolls || [];
    box.hidden = rolls.length === 0;
    const list = $("ul", box);
    const due = Boolean(state.expected_throw);  // a roll can count only while a throw is due
    list.replaceChildren(...rolls.map((r) => el("li", {}, `${r.faces.join(" + ")} (${S["source_" + r.source] || r.source}) `,
      canWrite && due ? el("button", { type: "button", class: "link-button", text: S.assign,
        onclick: (e) => post(`/api/rolls/${r.event}/assign`, {}, e.currentTarget).catch(() => null) }) : null,
      canWrite ? el("button", { type: "button", class: "link-button", text: S.discard,
        onclick: (e) => post(`/api/rolls/${r.event}/discard`, {}, e.currentTarget).catch(() => null) }) : null)));
  }

  // the wall from where this viewer sits now: the winds move on when the dealer changes, so a
  // seated phone asks for its own seat (the server works out its wind at that moment) and the
  // table's screen for the side of the table it stands at; a spectator keeps the wind it chose
  const SIDE_KEY = "companion.tableSide";
  function tableSide() {
    let side = null;
    try { side = localStorage.getItem(SIDE_KEY); } catch (e) { side = null; }
    return ["0", "1", "2", "3"].includes(side) ? side : null;
  }
  function wallQuery() {
    if (page === "table") {
      const form = $("#side-form");
      return `?seat=${tableSide() ?? (form ? form.dataset.side : "0")}`;
    }
    if (me !== null) return "";
    return `?view=${encodeURIComponent(viewWind)}`;
  }
  // the table's screen can say the break aloud (speech synthesis), switched on there and kept by
  // its browser; said once for each hand's break, in the page's language
  const SPEAK_KEY = "companion.sayBreak";
  const canSpeak = "speechSynthesis" in window && typeof window.SpeechSynthesisUtterance === "function";
  const breakKey = () => (state && state.break ? `${state.game}:${state.hand}:${state.break.wall}:${state.break.stack}` : null);
  let saidBreak = breakKey();  // the break the page came with is not news
  function speaking() {
    try { return localStorage.getItem(SPEAK_KEY) === "on"; } catch (e) { return false; }
  }
  function sayBreak() {
    const key = breakKey();
    if (key === saidBreak) return;
    saidBreak = key;
    if (!key || page !== "table" || !canSpeak || !speaking()) return;
    const words = new SpeechSynthesisUtterance(fmt(S.say_break, { wind: windName(state.break.wall), stack: stackNo(state.break.stack) }));
    words.lang = document.documentElement.lang || "en";
    window.speechSynthesis.cancel();
    window.speechSynthesis.speak(words);
  }
  function wireSpeech() {
    const box = $("#say-break");
    if (!box) return;
    const setting = box.closest("[data-speech]");
    if (!canSpeak) { if (setting) setting.hidden = true; return; }
    box.checked = speaking();
    box.addEventListener("change", () => {
      try { localStorage.setItem(SPEAK_KEY, box.checked ? "on" : "off"); } catch (e) { /* private mode */ }
    });
  }
  function wireSide() {
    const form = $("#side-form");
    const select = $("#side");
    if (!form || !select) return;
    $$("[data-js-hides]", form).forEach((n) => { n.hidden = true; });
    const kept = tableSide();
    if (kept !== null && kept !== form.dataset.side) { select.value = kept; refreshWall(); }
    select.addEventListener("change", () => {
      try { localStorage.setItem(SIDE_KEY, select.value); } catch (e) { /* private mode: for this page only */ }
      form.dataset.side = select.value;
      refreshWall();
    });
  }

  async function refreshWall() {
    const box = $("#wall");
    if (!box) return;
    try {
      const resp = await fetch(`/wall.svg${wallQuery()}`, { credentials: "same-origin" });
      if (resp.ok) box.innerHTML = await resp.text(); // our own server's SVG, escaped there
    } catch (e) { /* the stream's reconnect brings it back */ }
  }

  function renderLinks() {
    const list = $("#links");
    if (list) {
      list.replaceChildren(...["dice", "camera", "gpio", "vision"].map((name) => {
        const s = links[name];
        const ok = s && s.connected;
        const text = !s ? S.unknown_link : ok ? S.connected : S.disconnected;
        // the dice link counts its bad lines by kind ({bad_checksum: 2, …}): their sum is what a player can use
        const errors = s && s.errors && typeof s.errors === "object"
          ? Object.values(s.errors).reduce((sum, n) => sum + (Number(n) || 0), 0) : Number(s && s.errors) || 0;
        // the table watcher says what calibrates the camera: the markers, corners set by hand, or nothing
        const calibration = name === "vision" && ok ? (s.calibrated ? S["vision_" + s.calibration] : S.vision_uncalibrated) : null;
        const detail = s ? [s.kind, s.url, s.firmware, errors ? fmt(S.link_errors, { n: errors }) : null, calibration]
          .filter(Boolean).join(" · ") : "";
        return el("li", { class: `link ${!s ? "absent" : ok ? "ok" : "down"}`, "data-link": name },
          el("strong", { text: `${S["link_" + name] || name}: ` }), text,
          detail ? el("span", { class: "muted", text: ` ${detail}` }) : null);
      }));
    }
    const cam = $("#camera");
    if (cam) {
      const on = links.camera && links.camera.connected;
      if (on && !$("img", cam)) cam.append(el("img", { src: "/camera/stream.mjpg", alt: S.camera_alt || "camera" }));
      if (!on) cam.replaceChildren();
      cam.hidden = !on;
    }
  }

  // --- history ---------------------------------------------------------------------------------------
  // the log is read from its end, a page at a time (a long game has thousands of events): the
  // latest page when the view opens, what came since on each update, an older page each time the
  // end of the list scrolls into view
  const HISTORY_PAGE = 200;
  let logRecords = [];  // the part of this game's log read so far, oldest first
  const getLog = async (query) => {
    const resp = await fetch(`/api/events?${query}`, { credentials: "same-origin" });
    if (!resp.ok) throw new Error(resp.statusText);
    return resp.json();
  };
  async function readLog() {
    if (!logRecords.length || logRecords[0].game !== state.game) {
      logRecords = await getLog(`limit=${HISTORY_PAGE}`);
      return;
    }
    const newer = await getLog(`after=${logRecords[logRecords.length - 1].id}`);
    const last = logRecords[logRecords.length - 1].id;  // read again: another call may have added some
    logRecords = logRecords.concat(newer.filter((r) => r.id > last && r.game === state.game));
  }
  const logComplete = () => !logRecords.length || logRecords[0].type === "game_started";
  let readingOlder = false;
  async function readOlder() {
    if (readingOlder || logComplete()) return;
    readingOlder = true;
    try {
      const older = await getLog(`before=${logRecords[0].id}&limit=${HISTORY_PAGE}`);
      const first = logRecords[0].id;
      logRecords = older.filter((r) => r.id < first && r.game === logRecords[0].game).concat(logRecords);
    } catch (e) { return; } finally { readingOlder = false; }
    historyFor = null;
    renderHistory();
  }
  const olderObserver = "IntersectionObserver" in window
    ? new IntersectionObserver((seen) => { if (seen.some((s) => s.isIntersecting)) readOlder(); }) : null;
  let historyFor = null;
  async function renderHistory() {
    const list = $("#log");
    if (!list || historyFor === state.last_event) return;
    // a correction being typed is not swept away by another phone's event: the list is drawn
    // again when the form closes (saved or cancelled)
    if ($("form.correct", list)) return;
    historyFor = state.last_event;
    try { await readLog(); } catch (e) { return; }
    if ($("form.correct", list)) { historyFor = null; return; }  // opened while the log was read
    const records = logRecords;
    // the same resolution as the game's fold: an undo cancels its target, an undo of an undo revives it
    const cancelled = new Set();
    const corrected = new Map();
    for (const r of [...records].reverse()) {
      if (cancelled.has(r.id)) continue;
      if (r.type === "undo") cancelled.add(r.target);
      else if (r.type === "correct" && !corrected.has(r.target)) corrected.set(r.target, r.event);
    }
    const ignored = new Set((state.ignored || []).map((i) => i.event));
    const items = records.filter((r) => r.type !== "undo" && r.type !== "correct").reverse();
    if (!items.length && logComplete()) { list.replaceChildren(el("li", { text: S.nothing_yet })); return; }
    list.replaceChildren(...items.map((r) => {
      const shown = corrected.has(r.id) ? { ...corrected.get(r.id) } : r;
      const off = cancelled.has(r.id);
      const marks = [off ? S.undone_mark : null, corrected.has(r.id) ? S.corrected : null, ignored.has(r.id) ? S.ignored_mark : null].filter(Boolean);
      // in the page's language (chosen on the page), not the browser's
      const time = new Date(r.at).toLocaleTimeString(document.documentElement.lang || [], { hour: "2-digit", minute: "2-digit" });
      const value = shown.value !== undefined && shown.value !== null ? ` · ${S.value} ${shown.value}` : "";
      const li = el("li", { class: off ? "undone" : null, "data-event": r.id },
        el("span", { class: "muted", text: `#${r.id} ${time} ` }),
        el("span", { text: describeEvent(shown) + value }),
        marks.length ? el("span", { class: "marks", text: ` (${marks.join(", ")})` }) : null);
      if (canWrite && r.type !== "game_started" && r.type !== "game_resumed") {
        const undoTarget = off ? records.find((u) => u.type === "undo" && u.target === r.id && !cancelled.has(u.id)) : null;
        li.append(el("button", { type: "button", class: "link-button", "data-action": off ? "redo" : "undo",
          text: off ? "↺ " + S.undo : S.undo,
          onclick: (e) => post("/api/undo", { target: off && undoTarget ? undoTarget.id : r.id }, e.currentTarget).catch(() => null) }));
        if (!off && (r.type === "hand_won" || r.type === "hand_drawn")) {
          li.append(el("button", { type: "button", class: "link-button", "data-action": "correct", text: S.correct,
            onclick: () => openCorrection(li, r.id, shown) }));
        }
      }
      return li;
    }));
    if (!logComplete()) {  // older events: read when the end of the list comes into view
      const more = el("li", { class: "more", "aria-hidden": "true" });
      list.append(more);
      if (olderObserver) { olderObserver.disconnect(); olderObserver.observe(more); } else readOlder();
    }
  }
  function openCorrection(li, id, ev) {
    if ($("form", li)) return;
    const options = (selected, withNone) => [
      withNone ? el("option", { value: "", text: S.self_drawn, selected: selected === null || selected === undefined }) : null,
      ...state.players.map((name, i) => el("option", { value: String(i), text: name, selected: selected === i })),
    ];
    // riichi: han and fu, who declared riichi and who was tenpai, as the recorder takes them
    const riichi = state.variant.scoring === "riichi";
    const ticked = (name, legend, chosen) => playerBoxes(name, legend, (i) => (chosen || []).includes(i));
    const form = el("form", { class: "correct" },
      el("label", {}, S.who_won + " ", el("select", { name: "winner" },
        el("option", { value: "draw", text: S.draw, selected: ev.type === "hand_drawn" }), ...options(ev.winner, false))),
      el("label", {}, S.discarder + " ", el("select", { name: "from" }, ...options(ev.discarder, true))),
      el("label", {}, (riichi ? S.han : S.value) + " ", el("input", { type: "number", name: "value", value: ev.value ?? "" })),
      riichi ? el("label", {}, S.fu + " ", el("input", { type: "number", name: "fu", value: ev.fu ?? "" })) : null,
      riichi ? ticked("riichi", S.riichi_declared, ev.riichi) : null,
      state.variant.counter === "honba" ? ticked("ready", S.tenpai, ev.ready) : null,
      el("button", { type: "submit", text: S.save }),
      el("button", { type: "button", class: "secondary", text: S.cancel, onclick: () => closeCorrection(form) }));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const f = new FormData(form);
      const winner = f.get("winner");
      const players = (name) => f.getAll(name).map(Number);
      const from = readNumber(f.get("from"));
      // the others who won on the same discard stay, unless the corrected result leaves no room for them
      const also = (ev.also || []).filter((a) => from !== null && a.winner !== Number(winner) && a.winner !== from);
      const data = winner === "draw" ? { result: "draw", ready: players("ready"), riichi: players("riichi") } : {
        result: "win", winner: Number(winner), from,
        value: readNumber(f.get("value")), ...(riichi ? { fu: readNumber(f.get("fu")), riichi: players("riichi") } : {}),
        ...(also.length ? { also } : {}) };
      post(`/api/events/${id}/correct`, data, $('button[type="submit"]', form)).then(() => closeCorrection(form)).catch(() => null);
    });
    li.append(form);
  }
  function closeCorrection(form) {
    form.remove();
    renderHistory();  // what came in while it was open
  }

  // --- the live stream --------------------------------------------------------------------------
  let source = null;
  let lastId = null;
  let lastHeard = Date.now();
  let backoff = 1000;
  let heartbeatMs = 15000;
  let lastConnect = 0;
  function setConnection(ok) {
    const c = $("#conn");
    if (!c) return;
    c.textContent = ok ? S.live : (navigator.onLine === false ? S.offline : S.not_live);
    c.dataset.state = ok ? "live" : "reconnecting";
    body.dataset.connection = ok ? "live" : "reconnecting";
  }
  function heard(e) {
    lastHeard = Date.now();
    if (e && e.lastEventId) lastId = Number(e.lastEventId);
  }
  // a spectator who joined without the code gets no live stream unless the table allows some
  // (server.spectator_streams): the page fetches the state every 10 s instead
  let polling = null;
  function pollState() {
    fetch("/api/state", { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((s) => { if (s && newer(s)) { state = s; render(); } })
      .catch(() => setConnection(false));
  }
  function connect() {
    if (body.dataset.live === "false") {
      if (!polling) { polling = setInterval(pollState, 10000); pollState(); }
      return;
    }
    lastConnect = Date.now();
    if (source) source.close();
    const url = "/api/stream" + (lastId !== null ? `?last_id=${lastId}` : "");
    source = new EventSource(url);
    source.addEventListener("open", () => { backoff = 1000; heard(); setConnection(true); flushOutbox(); });
    // the server's heartbeat says how often it comes: a stream quiet for two of them is not live
    source.addEventListener("ping", (e) => {
      heard();
      try { const every = JSON.parse(e.data).every; if (every > 0) heartbeatMs = every * 1000; } catch (x) { /* an older server */ }
    });
    source.addEventListener("state", (e) => {
      heard(e);
      const msg = JSON.parse(e.data);
      if (!msg.state) return;
      const before = state;
      state = msg.state;
      if (before && msg.state.game !== before.game && me !== null) { location.reload(); return; }
      render();
      if (msg.event && msg.event.type !== "game_started") {
        const text = describeEvent(msg.event);
        if (text) toast(text, msg.event.type === "undo" ? null : msg.event.id);
      }
    });
    source.addEventListener("warning", (e) => { heard(e); showWarning(JSON.parse(e.data)); });
    // another phone took over this phone's seat: the page is drawn again without it, saying so
    source.addEventListener("seat", (e) => {
      heard(e);
      const taken = JSON.parse(e.data);
      if (me !== null && taken.player === me && taken.claim !== body.dataset.claim) location.reload();
    });
    source.addEventListener("status", (e) => { heard(e); Object.assign(links, JSON.parse(e.data)); renderLinks(); });
    source.addEventListener("error", () => {
      setConnection(false);
      if (source.readyState === EventSource.CLOSED) {  // refused (503, 401) or gone: try again ourselves
        source.close();
        setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 15000);
      }
    });
  }
  // a phone that slept may hold a dead connection: reconnect (with the last id) if nothing was heard
  const quiet = () => Date.now() - lastHeard > 2 * heartbeatMs + 1000;
  setInterval(() => {
    if (!source || !quiet()) return;
    setConnection(false);  // said at once; a new stream is tried at most once a heartbeat
    if (Date.now() - lastConnect > heartbeatMs) connect();
  }, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && quiet()) connect();
  });
  window.addEventListener("online", () => { connect(); flushOutbox(); });

  // --- small page behaviours --------------------------------------------------------------------
  function wireForms() {
    $$("select[data-autosubmit]").forEach((s) => s.addEventListener("change", () => s.form.requestSubmit()));
    const code = $("#code");
    const codeFromLink = () => {
      if (code && location.hash.startsWith("#code=")) {
        code.value = decodeURIComponent(location.hash.slice(6));
        history.replaceState(null, "", location.pathname); // the code leaves the address bar at once
      }
    };
    codeFromLink();
    window.addEventListener("hashchange", codeFromLink); // a join link opened on the join page itself
    const roll = $("#roll");
    if (roll) roll.addEventListener("click", (e) => post("/api/dice/roll", {}, e.currentTarget).catch(() => null));
    const dice = $("#dice-form");
    if (dice) {
      // the throw the dice are typed for: another throw recorded meanwhile (another phone typed the
      // same dice, the camera read them) makes this one a write on an older state (412, said)
      const throwMark = () => JSON.stringify([state.game, state.hand, (state.throws || []).length]);
      let typedOn = null;
      dice.addEventListener("change", () => { if (!typedOn) typedOn = { mark: throwMark(), version: state.version }; });
      dice.addEventListener("submit", (e) => {
        e.preventDefault();
        const button = e.submitter || $('button[type="submit"]', dice);
        if (button && button.disabled) return;  // its throw is on its way: a second tap is the same throw
        const version = typedOn && typedOn.mark !== throwMark() ? typedOn.version : undefined;
        typedOn = null;
        const faces = $$("select[name=die]", dice).map((s) => Number(s.value));
        const cocked = faces.map((f, i) => (f === 0 ? i : -1)).filter((i) => i >= 0);
        const t = state.expected_throw;
        // R18: after a cocked throw only the cocked dice are thrown again
        const sent = t && t.rethrow && t.rethrow.length ? faces.slice(0, t.rethrow.length) : faces;
        post("/api/dice", { faces: sent, cocked: cocked.filter((i) => i < sent.length) }, button, version).then(recordedHere).catch(() => null);
      });
    }
    if ("serviceWorker" in navigator && window.isSecureContext) {
      navigator.serviceWorker.register("/sw.js").catch(() => null);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    wireForms();
    wireSide();
    wireSpeech();
    render();
    renderLinks();
    renderOutbox();  // what a page before this one could not send: shown, and sent now
    if (page !== "join" && page !== "offline") connect();
    if (page !== "join") flushOutbox();
  });
})();
