// carousel serve's page: it only shows what the server holds (carousel_cli/serve/app.py says
// what the messages are). A card is drawn from the sprite sheet by its token: 7H, JK, JK=7H
// (a table joker declaring 7H), back.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const YOU = "you";
const MAX_BACKS = 16; // face-down cards drawn for a hidden hand; more are counted
let games = [];
let socket = null;
let tableId = null;
let lastState = null;

function symbolOf(token) {
  if (token === "back") return "card-back";
  return token.startsWith("JK") ? "card-JK" : "card-" + token;
}

function cardBox(token, action) {
  const box = document.createElement("span");
  box.className = "card-box";
  box.dataset.token = token;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "card");
  svg.setAttribute("viewBox", "0 0 60 84");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", "/cards.svg#" + symbolOf(token));
  svg.appendChild(use);
  box.appendChild(svg);
  if (token.startsWith("JK=")) {
    const declares = document.createElement("span");
    declares.className = "declares";
    declares.textContent = token.slice(3);
    box.appendChild(declares);
  }
  box.title = token === "back" ? "a card face down" : token;
  if (action !== undefined) {
    box.classList.add("playable");
    box.dataset.action = action;
    box.title = "click to play: " + token;
    box.addEventListener("click", () => sendMove(action));
  }
  return box;
}

function cardsEl(tokens, actions) {
  const el = document.createElement("div");
  el.className = "cards";
  for (const token of tokens) el.appendChild(cardBox(token, actions ? actions[token] : undefined));
  return el;
}

function meldsEl(melds, small) {
  const el = document.createElement("div");
  el.className = "cards" + (small ? " small" : "");
  for (const meld of melds) {
    const m = document.createElement("span");
    m.className = "meld";
    for (const token of meld) m.appendChild(cardBox(token));
    el.appendChild(m);
  }
  return el;
}

function zone(label, content, extra) {
  const z = document.createElement("div");
  z.className = "zone" + (extra ? " " + extra : "");
  const l = document.createElement("div");
  l.className = "label";
  l.textContent = label;
  z.appendChild(l);
  if (content) z.appendChild(content);
  return z;
}

function backsEl(count) {
  const el = cardsEl(Array(Math.min(count, MAX_BACKS)).fill("back"));
  el.classList.add("small");
  if (count > MAX_BACKS) {
    const c = document.createElement("span");
    c.className = "count";
    c.textContent = "+" + (count - MAX_BACKS);
    el.appendChild(c);
  }
  return el;
}

function seatName(state, seat) {
  const who = state.seats[seat];
  return "Player " + seat + (seat === state.you ? " (you)" : " \u2013 " + who);
}

// The board of a state (a table's view, or a replay's frame) with the human's moves, if any.
function drawBoard(board, moves, state) {
  const root = $("board");
  root.replaceChildren();
  const title = document.createElement("h2");
  title.id = "title";
  title.textContent = board.title;
  root.appendChild(title);
  const lines = document.createElement("div");
  lines.className = "lines";
  lines.id = "lines";
  lines.textContent = board.lines.join("\n");
  root.appendChild(lines);

  const piles = document.createElement("div");
  piles.className = "row";
  piles.id = "piles";
  for (const pile of board.piles) {
    const face = pile.cards.length ? cardsEl(pile.cards.slice(-1)) : pile.size ? backsEl(1) : null;
    piles.appendChild(zone(pile.label + " (" + pile.size + ")", face));
  }
  root.appendChild(piles);
  if (board.table.length || board.title === "Carousel") {
    const t = zone("Table", meldsEl(board.table));
    t.id = "table";
    root.appendChild(t);
  }
  const seats = document.createElement("div");
  seats.id = "seats-view";
  for (const seat of board.seats) {
    const box = document.createElement("div");
    box.className = "row";
    // Your own hand is drawn once, below, with its moves.
    const mine = seat.seat === state.you;
    const shown = mine ? null : seat.shown.length ? cardsEl(seat.shown) : backsEl(seat.hand_size);
    if (!mine && seat.shown.length) shown.classList.add("small");
    const label = seatName(state, seat.seat) + ": " + seat.status + ", " + seat.hand_size + " cards";
    const z = zone(label, shown, (seat.seat === board.to_act ? "to-act" : "") + (seat.seat === state.you ? " yours" : ""));
    z.dataset.seat = seat.seat;
    box.appendChild(z);
    if (seat.melds.length) box.appendChild(zone("Melds", meldsEl(seat.melds, true)));
    seats.appendChild(box);
  }
  root.appendChild(seats);

  if (state.you !== null && state.you !== undefined) {
    const byCard = {};
    for (const m of moves) if (m.card) byCard[m.card] = m.action;
    const hand = zone("Your hand", cardsEl(board.hand, byCard), "yours");
    hand.id = "hand";
    root.appendChild(hand);
  }
  const list = document.createElement("div");
  list.id = "moves";
  for (const m of moves) {
    if (m.card) continue; // played by clicking the card
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = m.action;
    b.textContent = m.text;
    b.addEventListener("click", () => sendMove(m.action));
    list.appendChild(b);
    if (m.melds.length) {
      const p = meldsEl(m.melds, true);
      p.classList.add("preview");
      list.appendChild(p);
    }
  }
  if (moves.some((m) => m.card)) {
    const hint = document.createElement("div");
    hint.className = "lines";
    hint.textContent = "Click a highlighted card to discard it.";
    list.prepend(hint);
  }
  root.appendChild(list);
}

function showLog(lines) {
  const log = $("log");
  log.replaceChildren();
  for (const line of lines) {
    const li = document.createElement("li");
    li.textContent = line;
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function showError(message) {
  const e = $("error");
  e.textContent = message;
  e.hidden = !message;
}

function onState(state) {
  lastState = state;
  tableId = state.id;
  if (location.hash !== "#" + state.id) history.replaceState(null, "", "#" + state.id);
  document.body.dataset.turn = state.turn;
  document.body.dataset.over = state.over;
  document.body.dataset.toAct = state.board.to_act;
  $("controls").hidden = false;
  $("download").href = "/api/tables/" + state.id + "/replay";
  $("pause").disabled = state.paused || state.over;
  $("resume").disabled = !state.paused || state.over;
  $("step").disabled = !state.paused || state.over;
  drawBoard(state.board, state.moves, state);
  showLog(state.said);
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showError("not connected to the server; reconnecting");
    return;
  }
  socket.send(JSON.stringify(message));
}

function sendMove(action) {
  showError("");
  send({ type: "move", action: action, turn: lastState ? lastState.turn : -1 });
}

function connect() {
  socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  socket.onopen = () => {
    document.body.dataset.connected = "true";
    const id = location.hash.slice(1);
    if (id) socket.send(JSON.stringify({ type: "join", id: id }));
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") onState(message);
    else if (message.type === "error") showError(message.message);
  };
  socket.onclose = () => {
    document.body.dataset.connected = "false";
    setTimeout(connect, 1000);
  };
}

function option(select, value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text || value;
  select.appendChild(o);
}

function currentGame() {
  return games.find((g) => g.game === $("game").value);
}

function fillSeats() {
  const g = currentGame();
  const n = Number($("players").value);
  const seats = $("seats");
  const before = Array.from(seats.querySelectorAll("select")).map((s) => s.value);
  seats.replaceChildren();
  for (let seat = 0; seat < n; seat++) {
    const s = document.createElement("select");
    s.className = "seat";
    s.setAttribute("aria-label", "player " + seat);
    option(s, YOU);
    for (const path of g.checkpoints) option(s, path, path + " (network)");
    for (const p of g.players) option(s, p);
    option(s, "other", "another agent (search@16, a checkpoint path)...");
    const fallback = seat === 0 ? YOU : g.checkpoints[0] || g.players[1] || g.players[0];
    s.value = before[seat] && Array.from(s.options).some((o) => o.value === before[seat]) ? before[seat] : fallback;
    const path = document.createElement("input");
    path.className = "seat-path";
    path.placeholder = "search@16, runs/my_run, ...";
    path.hidden = s.value !== "other";
    s.addEventListener("change", () => (path.hidden = s.value !== "other"));
    seats.append(s, path);
  }
}

function fillGame() {
  const g = currentGame();
  const variant = $("variant");
  variant.replaceChildren();
  for (const v of g.variants) option(variant, v);
  variant.disabled = !g.variants.length;
  if (!g.variants.length) option(variant, "", "-");
  const players = $("players");
  players.replaceChildren();
  for (let n = g.min_players; n <= g.max_players; n++) option(players, String(n));
  fillSeats();
}

function seatNames() {
  const names = [];
  for (const s of $("seats").querySelectorAll("select")) {
    names.push(s.value === "other" ? s.nextSibling.value.trim() : s.value);
  }
  return names;
}

async function startReplay(data) {
  $("setup").hidden = true;
  $("replay-controls").hidden = false;
  const frames = data.frames;
  const state = { seats: data.replay.players, you: null };
  const slider = $("slider");
  slider.max = frames.length - 1;
  const said = [];
  const show = (k) => {
    slider.value = k;
    const f = frames[k];
    drawBoard(f.board, [], state);
    said.length = 0;
    for (let i = 0; i <= k; i++) said.push(...frames[i].said.map((s) => s.trim()));
    if (f.seat >= 0) said.push("next: player " + f.seat + " will " + f.move);
    showLog(said);
    $("frame-out").textContent = "decision " + k + " of " + (frames.length - 1);
    document.body.dataset.frame = k;
  };
  slider.addEventListener("input", () => show(Number(slider.value)));
  $("prev").addEventListener("click", () => show(Math.max(0, Number(slider.value) - 1)));
  $("next").addEventListener("click", () => show(Math.min(frames.length - 1, Number(slider.value) + 1)));
  show(0);
}

async function main() {
  const replay = await (await fetch("/api/replay")).json();
  if (replay.replay) return startReplay(replay);
  games = await (await fetch("/api/games")).json();
  for (const g of games) option($("game"), g.game, g.title);
  $("game").addEventListener("change", fillGame);
  $("players").addEventListener("change", fillSeats);
  $("delay").addEventListener("input", () => {
    $("delay-out").textContent = $("delay").value + " s";
    if (tableId) send({ type: "delay", seconds: Number($("delay").value) });
  });
  fillGame();
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    showError("");
    const g = currentGame();
    send({
      type: "new",
      game: g.game,
      variant: g.variants.length ? $("variant").value : null,
      seats: seatNames(),
      seed: Number($("seed").value),
      delay: Number($("delay").value),
    });
  });
  $("pause").addEventListener("click", () => send({ type: "pause" }));
  $("resume").addEventListener("click", () => send({ type: "resume" }));
  $("step").addEventListener("click", () => send({ type: "step" }));
  connect();
}

main();
