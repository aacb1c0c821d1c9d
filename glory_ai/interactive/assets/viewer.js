"use strict";
window.addEventListener("error", function (e) {
  document.body.setAttribute("data-error", "1");
  document.getElementById("errors").textContent += "Script error: " + e.message + " ";
});
const DATA = JSON.parse(document.getElementById("game-data").textContent);
const STEPS = DATA.steps, LAST = STEPS.length - 1;
const COLORS = ["#c0392b", "#1f6fb8", "#2f8a3a", "#b8860b", "#8a3fa8"];
let step = 0, timer = null;

function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") node.textContent = v; else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined)
    node.appendChild(typeof kid === "string" ? document.createTextNode(kid) : kid);
  return node;
}
function matVar(m) { return "--mat: var(--" + (m || "Jack") + ")"; }
function card(name, count) {
  const info = DATA.cards[name] || {};
  const tip = info.material ? name + ": " + info.material + ", " + info.role + ", value " + info.value
    + (info.function ? " \u2014 " + info.function : "") : name + ": wild";
  return el("span", {class: "card", style: matVar(info.material), title: tip},
            name, count > 1 ? el("small", {text: " \u00d7" + count}) : null);
}
function cards(list, empty) {
  const span = el("span");
  if (!list || !list.length) { span.appendChild(el("span", {class: "label", text: empty || "\u2013"})); return span; }
  const counts = new Map();
  for (const c of list) counts.set(c, (counts.get(c) || 0) + 1);
  for (const [c, k] of counts) span.appendChild(card(c, k));
  return span;
}
function row(label, content) { return el("div", {class: "row"}, el("span", {class: "label", text: label}), content); }
function phaseWords(t) {
  const words = {lead: "to lead a role or think", follow: "to follow or think", petition: "to pick petition cards",
    pay_more: "to add action units (Palace)", think: "to think", think_choice: "to choose how to think",
    tribunal: "to decide on the Tribunal", legionary_reveal: "to reveal for a Legionary demand",
    legionary_take: "to take demanded materials from the pool", legionary_give: "to give to the Legionary",
    legionary_extra: "to decide on Bridge, Colosseum or Domus Aurea", fountain: "to use the Fountain card",
    prison: "to decide on the Prison", stairway: "to decide on the Stairway", sewer: "to use the Sewer",
    senate: "to decide on the Senate"};
  if (t.phase === "action") return "to perform a " + (t.action_role || "role") + " action";
  return words[t.phase] || t.phase;
}
function player(view, p) {
  const t = view.turn, box = el("div", {class: "player"});
  if (p.seat === t.decider) box.classList.add("deciding");
  if (p.you) box.classList.add("you");
  const h = el("h3", {}, "P" + p.seat, el("span", {class: "spec", text: p.you ? "you" : p.name}));
  if (p.seat === t.leader) h.appendChild(el("span", {class: "tag", text: "leader"}));
  if (p.seat === t.decider) h.appendChild(el("span", {class: "tag", text: "deciding"}));
  if (p.conceded) h.appendChild(el("span", {class: "tag", text: "conceded"}));
  if ((view.winners || []).includes(p.seat)) h.appendChild(el("span", {class: "tag win", text: "winner"}));
  box.appendChild(h);
  const hidden = p.vault === null && p.vault_size > p.known_vault.length;
  const vp = p.score ? p.score.total + " VP" : p.vp.total + (hidden ? "+" : "") + " VP so far";
  box.appendChild(el("div", {class: "row"}, el("b", {text: vp}), " \u00b7 influence " + p.influence));
  const handRow = el("div", {class: "row"}, el("span", {class: "label", text: "hand " + p.hand_size}));
  if (p.hand) handRow.appendChild(cards(p.hand));
  else if (p.known_hand.length) {
    handRow.appendChild(el("span", {class: "label", text: "known:"}));
    handRow.appendChild(cards(p.known_hand));
  }
  if (p.lacks.length) handRow.appendChild(el("span", {class: "label", text: " holds no " + p.lacks.join(", ")}));
  box.appendChild(handRow);
  box.appendChild(row("camp", cards(p.camp)));
  box.appendChild(row("stockpile", cards(p.stockpile)));
  box.appendChild(row("clientele " + p.clientele.length + "/" + p.clientele_limit, cards(p.clientele)));
  const vault = p.vault !== null ? p.vault : p.known_vault;
  const vrow = row("vault " + p.vault_size + "/" + p.vault_limit + (p.vault === null && vault.length ? " known" : ""),
                   cards(vault, p.vault_size ? "hidden" : "\u2013"));
  box.appendChild(vrow);
  const s = el("div", {class: "row"}, el("span", {class: "label", text: "structures"}));
  if (!p.structures.length) s.appendChild(el("span", {class: "label", text: "\u2013"}));
  for (const st of p.structures) {
    const info = DATA.cards[st.building] || {};
    const item = el("span", {class: "struct" + (st.complete ? " done" : ""), style: matVar(st.site),
                             title: st.building + " on a " + st.site + " site" + (st.out_of_town ? " out of town" : "")
                               + (info.function ? " \u2014 " + info.function : "")},
                    card(st.building, 1));
    if (st.complete) item.appendChild(document.createTextNode(" \u2713"));
    else {
      item.appendChild(document.createTextNode(" " + st.placed + "/" + st.needed));
      item.appendChild(el("span", {class: "bar"}, el("i", {style: "width:" + Math.round(100 * st.placed / st.needed) + "%"})));
    }
    s.appendChild(item);
  }
  box.appendChild(s);
  if (p.score) {
    const b = p.score;
    box.appendChild(el("div", {class: "row label", text: "influence " + b.influence + " + vault " + b.vault +
      " + merchant bonus " + b.merchant_bonus + " + statue " + b.statue + " + wall " + b.wall + " = " + b.total}));
  }
  return box;
}
function handTable(p) {
  const table = el("table", {class: "hand"}, el("tr", {}, el("th", {text: "your hand"}), el("th", {text: "material"}),
                   el("th", {text: "role"}), el("th", {text: "value"})));
  for (const c of p.hand) {
    const info = DATA.cards[c] || {};
    table.appendChild(el("tr", {}, el("td", {}, card(c, 1)), el("td", {text: info.material || "\u2013"}),
                         el("td", {text: info.role || "any role"}), el("td", {text: info.value == null ? "\u2013" : String(info.value)})));
  }
  return table;
}
function renderTable() {
  const s = STEPS[step], v = s.view, t = v.turn, box = document.getElementById("table");
  box.replaceChildren();
  const who = t.decider === null ? "" : (t.decider === v.viewer ? "you are " : "P" + t.decider + " is ") + phaseWords(t);
  box.appendChild(el("div", {class: "status", text: "Turn " + t.number + " \u00b7 leader P" + t.leader +
    (t.led_role ? " \u00b7 led role " + t.led_role : "") + (v.over ? " \u00b7 the game is over (" + v.end_reason + ")" : " \u00b7 " + who)}));
  if (s.next) box.appendChild(el("div", {class: "next", text: "Next: " + s.next}));
  if (t.legionary) box.appendChild(row("Rome demands", cards(t.legionary.demand, "(nothing yet)")));
  if (t.fountain_card) box.appendChild(row("the Fountain drew", cards([t.fountain_card])));
  const sites = Object.keys(v.sites.in_town).map(m => m + " " + v.sites.in_town[m] + "/" + v.sites.out_of_town[m]).join(", ");
  box.appendChild(el("div", {class: "row"}, el("span", {class: "label", text: "deck"}), String(v.deck) + " \u00b7 ",
                     el("span", {class: "label", text: "Jacks"}), String(v.jacks) + " \u00b7 ",
                     el("span", {class: "label", text: "sites in/out of town"}), sites));
  box.appendChild(row("pool", cards(v.pool)));
  const grid = el("div", {class: "players"});
  for (const p of v.players) grid.appendChild(player(v, p));
  box.appendChild(grid);
  const me = v.players.find(p => p.you);
  if (me && me.hand && me.hand.length) box.appendChild(handTable(me));
}
function renderLog() {
  const box = document.getElementById("log"), shown = STEPS[step].log;
  box.replaceChildren();
  let last = null;
  for (let i = 0; i < shown; i++) {
    const line = DATA.log[i], isTurn = line.startsWith("-- ");
    last = el("div", {class: isTurn ? "turn" : "", text: isTurn ? line.slice(3) : line.trim()});
    box.appendChild(last);
  }
  if (last) { last.classList.add("last"); box.scrollTop = box.scrollHeight; }
}
function renderChart() {
  const W = 600, H = 220, L = 30, R = 8, T = 10, B = 24, n = DATA.meta.num_players;
  const max = Math.max(5, ...DATA.vp.map(r => Math.max(...r)));
  const x = i => L + (W - L - R) * (LAST ? i / LAST : 0), y = v => T + (H - T - B) * (1 - v / max);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "victory points of every player over the game");
  function add(tag, attrs, text) {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.appendChild(node); return node;
  }
  const tick = max > 40 ? 10 : 5;
  for (let v = 0; v <= max; v += tick) {
    add("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e6e0d4"});
    add("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end"}, String(v));
  }
  add("text", {x: W - R, y: H - 6, "text-anchor": "end"}, "decision " + LAST);
  add("text", {x: L, y: H - 6}, "0");
  for (let p = 0; p < n; p++) {
    const pts = DATA.vp.map((r, i) => x(i).toFixed(1) + "," + y(r[p]).toFixed(1)).join(" ");
    add("polyline", {points: pts, fill: "none", stroke: COLORS[p], "stroke-width": 2});
  }
  add("line", {id: "cursor", x1: x(step), x2: x(step), y1: T, y2: H - B, stroke: "#222", "stroke-dasharray": "3 3"});
  svg.addEventListener("click", function (e) {
    const r = svg.getBoundingClientRect(), fx = (e.clientX - r.left) / r.width * W;
    go(Math.round((fx - L) / (W - L - R) * LAST));
  });
  const chart = document.getElementById("chart");
  chart.replaceChildren(svg);
  const legend = document.getElementById("legend");
  legend.replaceChildren();
  for (let p = 0; p < n; p++)
    legend.appendChild(el("span", {style: "--c:" + COLORS[p], text: "P" + p + " " + (p === DATA.meta.viewer ? "you" : DATA.meta.seats[p]) +
                                    " (" + DATA.vp[step][p] + ")"}));
  renderChart.x = x;
}
function moveCursor() {
  const c = document.getElementById("cursor"), x = renderChart.x(step);
  c.setAttribute("x1", x); c.setAttribute("x2", x);
  const spans = document.getElementById("legend").children;
  for (let p = 0; p < spans.length; p++)
    spans[p].textContent = "P" + p + " " + (p === DATA.meta.viewer ? "you" : DATA.meta.seats[p]) + " (" + DATA.vp[step][p] + ")";
}
function go(i) {
  step = Math.max(0, Math.min(LAST, i | 0));
  renderTable(); renderLog(); moveCursor();
  document.getElementById("slider").value = step;
  document.getElementById("steplabel").textContent = "step " + step + " / " + LAST + " \u00b7 turn " + STEPS[step].view.turn.number;
  if (step === LAST) document.body.setAttribute("data-at-end", "1"); else document.body.removeAttribute("data-at-end");
}
function turnStep(dir) {
  let i = step + dir;
  while (i > 0 && i < LAST && !STEPS[i].turn_start) i += dir;
  go(i);
}
function play() {
  if (timer) { clearInterval(timer); timer = null; document.getElementById("b-play").textContent = "\u25B6 play"; return; }
  if (step === LAST) go(0);
  document.getElementById("b-play").textContent = "|| pause";
  timer = setInterval(function () {
    if (step >= LAST) { play(); reachedEnd(); return; }
    go(step + 1);
    if (step >= LAST) { play(); reachedEnd(); }
  }, SPEED);
}
function reachedEnd() {
  document.body.setAttribute("data-reached-end", "1");
  document.getElementById("steplabel").textContent += " \u00b7 end";
}
const params = new URLSearchParams(location.search);
const SPEED = Math.max(0, Number(params.get("speed") || 700));
const m = DATA.meta;
const seen = m.viewer === null ? "everything" : "P" + m.viewer + "'s view";
document.getElementById("meta").textContent = m.num_players + " players \u00b7 " + m.mode + " \u00b7 seed " + m.seed +
  " \u00b7 " + m.decisions + " decisions \u00b7 " + seen + (m.winners.length ? " \u00b7 winner " + m.winners.map(p => "P" + p).join(", ") +
  " (" + m.end_reason + ")" : "");
document.getElementById("slider").max = LAST;
document.getElementById("slider").addEventListener("input", e => go(Number(e.target.value)));
document.getElementById("b-start").onclick = () => go(0);
document.getElementById("b-back").onclick = () => go(step - 1);
document.getElementById("b-next").onclick = () => go(step + 1);
document.getElementById("b-end").onclick = () => go(LAST);
document.getElementById("b-pturn").onclick = () => turnStep(-1);
document.getElementById("b-nturn").onclick = () => turnStep(1);
document.getElementById("b-play").onclick = play;
document.addEventListener("keydown", function (e) {
  if (e.target && e.target.tagName === "INPUT" && e.target.type !== "range") return;
  const keys = {ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1), Home: () => go(0), End: () => go(LAST),
                PageDown: () => turnStep(1), PageUp: () => turnStep(-1), " ": play};
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
renderChart();
const start = params.get("step");
go(start === "end" ? LAST : Number(start || 0));
if (params.get("autoplay")) play();
