// agcore management page: small progressive enhancements and the chat panel
// (served as a file: the Content-Security-Policy allows no inline script).
// Text from the server is only ever set with textContent, never as HTML.
"use strict";

// The agent form: the database field applies to MySQL and SQLite only.
function wireBackend() {
  const backend = document.getElementById("backend");
  const location = document.getElementById("backend_location");
  if (!backend || !location || backend.disabled) return;
  const sync = () => { location.disabled = backend.value === "server"; };
  backend.addEventListener("change", sync);
  sync();
}

// Splits a server-sent-events buffer into complete events; returns the rest.
function takeEvents(buffer, onEvent) {
  let end;
  while ((end = buffer.indexOf("\n\n")) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    let name = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length) onEvent(name, JSON.parse(data.join("\n")));
  }
  return buffer;
}

function addTurn(log, who, text) {
  const turn = document.createElement("div");
  turn.className = "turn " + who;
  const label = document.createElement("strong");
  label.textContent = who === "user" ? "You: " : "Agent: ";
  const body = document.createElement("span");
  body.className = "content";
  body.textContent = text;
  turn.append(label, body);
  log.append(turn);
  return body;
}

function showContext(memoriesUrl, data) {
  const pre = document.getElementById("memory-context");
  pre.textContent = data.text || "(empty: memory is off for this agent, or nothing was recalled)";
  const list = document.getElementById("memory-ids");
  list.replaceChildren();
  for (const id of data.memory_ids || []) {
    if (!Number.isInteger(id)) continue;
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = memoriesUrl + "/" + id;
    link.textContent = "memory #" + id;
    item.append(link);
    list.append(item);
  }
}

async function sendTurn(form, state) {
  const input = document.getElementById("chat-message");
  const status = document.getElementById("chat-status");
  const message = input.value.trim();
  if (!message) return;
  const log = document.getElementById("chat-log");
  addTurn(log, "user", message);
  const reply = addTurn(log, "agent", "");
  input.value = "";
  status.textContent = "The agent is answering…";
  const response = await fetch(form.dataset.endpoint, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "content-type": "application/json",
      "x-csrf-token": document.getElementById("chat-csrf").value,
    },
    body: JSON.stringify(state.session ? { message, session: state.session } : { message }),
  });
  if (!response.ok || !response.body) {
    status.textContent = "The turn failed (" + response.status + ").";
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const onEvent = (name, data) => {
    if (name === "memory_context") showContext(form.dataset.memories, data);
    else if (name === "delta") reply.textContent += data.text;
    else if (name === "done") {
      reply.textContent = data.reply;
      state.session = data.session;
      status.textContent = "Done.";
    } else if (name === "error") status.textContent = "The turn failed: " + data.error;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer = takeEvents(buffer + decoder.decode(value, { stream: true }), onEvent);
  }
}

function wireChat() {
  const form = document.getElementById("chat-form");
  if (!form) return;
  const state = { session: null };
  const send = document.getElementById("chat-send");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send.disabled = true;
    sendTurn(form, state)
      .catch((error) => { document.getElementById("chat-status").textContent = "The turn failed: " + error; })
      .finally(() => { send.disabled = false; });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  wireBackend();
  wireChat();
});
