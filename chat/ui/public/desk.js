// Trading Desk's additions to Chainlit's page (loaded through .chainlit/config.toml custom_js).
//
// Chainlit shows a message's author only as a small avatar with a hover tooltip, keeps the desk's
// Stop action on the run's first message (thousands of pixels up mid-run) and its login page
// asks for an e-mail address. This script, without touching Chainlit's build:
// - writes the speaker's name above every assistant message ("Bull Researcher · round 2"),
//   read from the avatar Chainlit draws for the message's author, or in the thread's language
//   ("多头研究员 · 第 2 轮") from the message's metadata (chat/speakers.py);
// - mirrors the run's Stop action as a button that stays just above the composer;
// - keeps the newest words in view until the person scrolls up, and the card in view at the end;
// - shows the mode (demo) in the header, and on the login page what to type.
// One pass per animation frame at most, whatever the number of DOM changes (tokens stream in
// at tens per second: the pass must stay cheap).

// The socket's messages, delivered in batches (Live-chat helper, issue 10 point 2). Chainlit's
// page re-renders the whole chat for each socket message (~30-50 ms of CPU each, measured with
// benchmarks/browser.py), so a streamed analysis (~130 messages) kept the page seconds behind the
// server. Messages that arrive within a window of the last delivery are handed over together, in
// order, in one task: React renders them once. The window follows the page's own render time
// (twice the last batch's, 170-250 ms; at 40 ms the page rendered twice as often for the same
// words), so a busy page takes bigger batches instead of falling behind. A new chat's first
// message also puts the thread in the address bar at once (Chainlit does it only after reloading
// the thread list, ~1 s later on a busy page), so a reload finds the run instead of a new chat.
(function () {
  "use strict";
  const MIN_MS = 170, MAX_MS = 250;
  const property = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  if (!property || !property.set) return;

  function addressThread(event) {
    if (typeof event.data !== "string" || !event.data.startsWith('42["first_interaction"')) return;
    let data = null;
    try { data = JSON.parse(event.data.slice(2))[1]; } catch (error) { return; }
    if (!data || !data.thread_id || data.interaction === "resume" || window.location.pathname !== "/") return;
    // Only the address: Chainlit's own navigation (after its thread list reloads) remounts the
    // whole chat mid-stream; with the address already right it does not happen.
    window.history.replaceState(window.history.state, "", "/thread/" + data.thread_id);
  }

  // A connection that drops and comes back (Wi-Fi, a laptop waking up, a server restart):
  // socket.io reconnects, but Chainlit's page neither asks for what it missed meanwhile nor knows
  // the messages begun then, so a run in flight looks frozen or loses turns. A thread's page that
  // was showing a run when its connection dropped reloads itself once the connection is back: a
  // page opening a thread is shown everything so far and joins the run (chat/pages.py). What was
  // typed in the composer is put back after the reload. A page showing no run is left as it is
  // (it missed nothing), and so is a socket the page closed on purpose: socket.io says goodbye
  // ("41") before it closes, which a ping timeout or the browser going offline does not.
  const DRAFT = "desk-draft";
  let dropped = null; // the address of a page whose run was showing when its connection dropped
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === "string" && data.startsWith("41")) this.deskLeaving = true;
    return send.call(this, data);
  };
  function watch(socket) {
    if (socket.deskWatched) return;
    socket.deskWatched = true;
    socket.addEventListener("close", () => {
      if (!socket.deskOpened || socket.deskLeaving) return;
      dropped = window.deskRunShowing && window.deskRunShowing() ? window.location.pathname : null;
    });
    socket.addEventListener("open", () => {
      socket.deskOpened = true;
      const path = dropped;
      dropped = null;
      if (!path || path !== window.location.pathname || !path.startsWith("/thread/")) return;
      const input = document.getElementById("chat-input");
      if (input && input.value) sessionStorage.setItem(DRAFT, input.value);
      window.location.reload();
    });
  }
  // Words in the composer outlive Chainlit's swap of composers. A thread's page first draws an empty chat, with
  // the welcome screen's composer, from the moment the server names the thread until the thread's messages come
  // (Chainlit's resume_thread, sent after the app's on_chat_resume: a second or more on a busy server); then the
  // composer under the messages takes its place, empty, and the welcome screen's goes with what it held: the
  // draft put back after a reload (lost once in a loaded CI run), or what the person typed while the thread was
  // on its way. What that composer holds on a thread's page, unsent, is put into the one that takes its place,
  // as it appears (before the person can type into it).
  // {path, box}: the welcome screen's composer typed into on a thread's page, not sent. Its words are read off
  // it when it has gone: React leaves a composer it takes away as it was (a command picked, a favourite put in).
  let carried = null;
  let composers = null; // watches for the composer that takes its place while something is carried
  function fill(input, text) {
    // The composer is React's: set the value as typing would, so React sees it.
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(input, text);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function carry() {
    const input = document.getElementById("chat-input");
    const here = carried && carried.path === window.location.pathname;
    if (here && (!input || input.closest("#welcome-screen"))) return;
    if (here && !input.value && carried.box.value) fill(input, carried.box.value);
    if (here && carried.send) {
      // Sent while waiting (held below): it goes now, once, from the composer under the thread, after React has
      // taken in the words. A run going on shows Stop in the send button's place: the words stay to be sent.
      setTimeout(() => {
        const submit = document.getElementById("chat-submit");
        if (submit && !submit.disabled) submit.click();
      }, 0);
    }
    carried = null; // delivered, or the page went to another thread or a new chat
    composers.disconnect();
    composers = null;
  }
  // A thread's page whose thread has not come yet: the welcome screen there is a new chat's, drawn while it waits.
  // Until Chainlit has been handed the thread (resume_thread, or its error), not only while the welcome screen is
  // there: a thread with no message of a kind Chainlit counts would keep it, and sends would wait for ever.
  let shown = null; // the address of the last thread Chainlit was handed (deliver below)
  const waiting = window.deskThreadComing = (node) => !!node.closest("#welcome-screen")
    && window.location.pathname.startsWith("/thread/") && shown !== window.location.pathname;
  function remember(input) {
    if (!waiting(input)) return;
    if (carried && carried.box === input) return;
    carried = { path: window.location.pathname, box: input, send: false };
    if (!composers) {
      composers = new MutationObserver(carry);
      composers.observe(document, { childList: true, subtree: true });
    }
  }
  document.addEventListener("input", (event) => {
    if (event.target && event.target.id === "chat-input") remember(event.target);
  }, true);
  // Sent, so not carried: an Enter Chainlit sends with (no Shift, no word being composed, no list of commands open
  // to pick from, the send button there and enabled: a Stop in its place or a disabled one sends nothing), or a
  // press of the button (a disabled one has no clicks). Told before Chainlit's own handlers: the chat it draws
  // with the message sent (and the new composer) comes before the event reaches the window's listeners.
  // Sent while the thread is on its way, it is held instead (Chainlit never sees it) and goes once the thread is
  // shown (carry above): sent at once, it was answered, but its bubble went when Chainlit drew the thread, which it
  // replaces the chat with. The page says it is holding (desk.css: #welcome-screen[data-desk-loading]).
  function hold(event) {
    event.preventDefault();
    event.stopPropagation();
    const input = document.getElementById("chat-input");
    if (!input || !waiting(input)) return;
    remember(input);
    carried.send = true;
  }
  window.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || !event.target) return;
    if (event.target.id !== "chat-input" || document.querySelector(".command-item")) return;
    if (waiting(event.target)) { hold(event); return; }
    const submit = document.getElementById("chat-submit");
    if (submit && !submit.disabled) carried = null;
  }, true);
  document.addEventListener("click", (event) => {
    const target = event.target && event.target.closest ? event.target : null;
    const submit = target && target.closest("#chat-submit");
    // The welcome screen's starters ask for a new chat's first analysis: not this thread's, not now.
    const starter = target && target.closest("#starters");
    if (starter && waiting(starter)) {
      event.preventDefault();
      event.stopPropagation();
    } else if (submit && waiting(submit)) {
      hold(event);
    } else if (submit) {
      carried = null;
    }
  }, true);

  // After a reload, the draft goes into the first composer that appears (the welcome screen's, from which it is
  // carried as above); it stays in sessionStorage until then.
  function restoreDraft() {
    const draft = sessionStorage.getItem(DRAFT);
    const input = document.getElementById("chat-input");
    if (draft === null || !input) return draft === null;
    sessionStorage.removeItem(DRAFT);
    fill(input, draft);
    return true;
  }
  if (!restoreDraft()) {
    const first = new MutationObserver(() => { if (restoreDraft()) first.disconnect(); });
    first.observe(document, { childList: true, subtree: true });
    // 30 s: the composer is not coming (a login expired meanwhile); the draft stays for the next load.
    setTimeout(() => first.disconnect(), 30000);
  }

  // The run's stage list (chat/views/stages.py): drawn beside the chat as plain elements, where
  // Chainlit's task list was (a React re-render per change, titles parsed as Markdown, an
  // animated icon per running stage: ~0.3 s of CPU per analysis).
  const STAGES = '42["desk_stages",';
  function drawStages(frame) {
    let data = null;
    try { data = JSON.parse(frame.slice(2))[1]; } catch (error) { return; }
    if (!data || !Array.isArray(data.stages)) return;
    let aside = document.getElementById("desk-stages");
    if (!aside) {
      aside = document.createElement("aside");
      aside.id = "desk-stages";
      aside.setAttribute("aria-label", "The desk's stages");
      aside.innerHTML = '<header><span class="desk-stages-name"></span><span class="desk-stages-title"></span></header><ol></ol>';
    }
    // In the thread's language (chat/views/stages.py), else the page's (/desk/ui.json), English until it has come.
    aside.querySelector(".desk-stages-name").textContent =
      data.name || (window.deskWords && window.deskWords.stages) || "Stages";
    aside.dataset.path = window.location.pathname; // shown on this thread's page only
    aside.querySelector(".desk-stages-title").textContent = data.title || "";
    const list = aside.querySelector("ol");
    data.stages.forEach((stage, i) => {
      let item = list.children[i];
      if (!item) {
        item = document.createElement("li");
        item.innerHTML = '<span class="desk-stage-mark" aria-hidden="true"></span><span class="desk-stage-title"></span>';
        list.appendChild(item);
      }
      item.className = "desk-stage-" + stage.status;
      item.querySelector(".desk-stage-title").textContent = stage.title;
      item.title = stage.status;
    });
    while (list.children.length > data.stages.length) list.lastElementChild.remove();
    window.deskPlaceStages(aside);
  }

  // A speaker's label in the thread's language (chat/speakers.py: metadata.deskSpeaker), by message
  // id, read off the messages that can carry one: a new message, a stream's start, an update, and
  // the steps of a thread the page opens. The avatar keeps the English persona name (its picture,
  // its colour), so the label can only come from here. Tokens (most frames) are not parsed.
  // The same frames say which messages an edit or a switch folded away (chat/edits.py: their words wait in
  // metadata.desk_words): the page shows each as one short line (desk.css), and a message restored loses its mark.
  const LABELLED = ['42["new_message",', '42["stream_start",', '42["update_message",', '42["resume_thread",'];
  const speakers = window.deskSpeakers = new Map();
  const folded = window.deskFolded = new Set();
  function noteSpeakers(frame) {
    const marked = frame.includes('"deskSpeaker"') || frame.includes('"desk_words"');
    if (!(marked || (folded.size && frame.startsWith('42["update_message",')))) return;
    if (!LABELLED.some((prefix) => frame.startsWith(prefix))) return;
    let data = null;
    try { data = JSON.parse(frame.slice(2))[1]; } catch (error) { return; }
    const steps = data && Array.isArray(data.steps) ? data.steps : [data];
    for (const step of steps) {
      const meta = step && step.metadata;
      if (!meta || typeof meta !== "object") continue;
      if (typeof meta.deskSpeaker === "string") speakers.set(step.id, meta.deskSpeaker);
      if (typeof meta.desk_words === "string") folded.add(step.id);
      else folded.delete(step.id);
    }
  }

  // Edit pressed under a past turn (chat/features/edit_actions.py): the desk's question for the new words comes
  // at the end of the thread, maybe far below the turn. The page marks that turn as the one being edited and
  // brings the question into view as it appears (markEdit below); `done` takes the mark away.
  const EDIT = '42["desk_edit",';
  function noteEdit(frame) {
    let data = null;
    try { data = JSON.parse(frame.slice(2))[1]; } catch (error) { return; }
    if (data && typeof data.turn === "string") window.deskEdit = data;
  }

  // The run's decision card (chat/views/card.py show_decision): the message the view brings into sight
  // when the run ends (window.deskFollow below).
  const CARD = '42["desk_card",';
  function noteCard(frame) {
    let data = null;
    try { data = JSON.parse(frame.slice(2))[1]; } catch (error) { return; }
    if (data && typeof data.id === "string") window.deskCardId = data.id;
  }

  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    enumerable: property.enumerable,
    get() { return this.deskOnMessage || null; },
    set(handler) {
      this.deskOnMessage = handler;
      watch(this);
      if (typeof handler !== "function") { property.set.call(this, handler); return; }
      const socket = this;
      let queue = [], timer = 0, last = -Infinity, window_ms = MIN_MS;
      function deliver() {
        timer = 0;
        const started = performance.now();
        last = started;
        const batch = queue;
        queue = [];
        const firsts = [];
        for (const event of batch) {
          try { handler.call(socket, event); } catch (error) { setTimeout(() => { throw error; }); }
          if (typeof event.data !== "string") continue;
          if (event.data.startsWith('42["resume_thread')) shown = window.location.pathname; // and its _error
          if (event.data.startsWith('42["first_interaction"')) firsts.push(event);
        }
        // After React has rendered the batch (the chat knows its thread by then).
        setTimeout(() => {
          window_ms = Math.min(MAX_MS, Math.max(MIN_MS, 2 * (performance.now() - started)));
          firsts.forEach(addressThread);
        }, 0);
      }
      property.set.call(this, (event) => {
        if (typeof event.data === "string" && event.data.startsWith(STAGES)) {
          drawStages(event.data); // the desk's own event: drawn here, Chainlit has no use for it
          return;
        }
        if (typeof event.data === "string" && event.data.startsWith(CARD)) {
          noteCard(event.data); // the desk's own too: the view brings this message in at the end
          return;
        }
        if (typeof event.data === "string" && event.data.startsWith(EDIT)) {
          noteEdit(event.data); // and this: which turn is being edited, where its question is
          if (window.deskSchedule) window.deskSchedule();
          return;
        }
        if (typeof event.data === "string") noteSpeakers(event.data);
        queue.push(event);
        if (!timer) timer = setTimeout(deliver, Math.max(0, last + window_ms - performance.now()));
      });
    },
  });
})();

(function () {
  "use strict";

  const AVATAR_PREFIX = "Avatar for ";
  const STOP_LABEL = "Stop";
  let facts = null; // /desk/ui.json: {mode, login_hint, preload, language, words}
  let scheduled = false;

  // The page's own words in the browser's language (chat/web/serving.py PAGE_WORDS), else the English given.
  function word(name, english) {
    return (facts && facts.words && facts.words[name]) || english;
  }

  function slug(name) {
    return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  }

  // -- who is speaking ------------------------------------------------------------------------

  function labelSpeakers() {
    for (const row of document.querySelectorAll(".ai-message:not([data-desk-speaker])")) {
      const step = row.closest("[data-step-type]");
      if (!step || !step.getAttribute("data-step-type").endsWith("_message")) continue;
      // Radix draws the <img> only once the avatar has loaded: until then, try again next pass.
      const img = row.querySelector(":scope > span img[alt^='" + AVATAR_PREFIX + "']");
      const column = row.lastElementChild;
      if (!img || !column || column.contains(img)) continue;
      const speaker = img.alt.slice(AVATAR_PREFIX.length).trim();
      if (!speaker) continue;
      const persona = speaker.split(" · ")[0];
      const box = row.closest("[id^='step-']");
      const shown = (box && window.deskSpeakers && window.deskSpeakers.get(box.id.slice(5))) || speaker;
      const label = document.createElement("div");
      label.className = "desk-speaker";
      label.dataset.persona = slug(persona);
      label.textContent = shown;
      column.insertBefore(label, column.firstChild);
      row.setAttribute("data-desk-speaker", speaker);
    }
  }

  // -- Stop, one click away ----------------------------------------------------------------

  // A run's Stop action, by its label in any language the desk words it in (/desk/ui.json: stops); the
  // page's Stop button then speaks the thread's language, whatever the browser's.
  function stopWords(label) {
    return (facts && facts.stops && facts.stops[label]) || null;
  }

  function stopActions() {
    const found = [];
    for (const button of document.querySelectorAll(".step button")) {
      const label = button.textContent.trim();
      if ((label === STOP_LABEL || stopWords(label)) && !button.closest("#desk-stop")) found.push(button);
    }
    return found;
  }

  function stopButton() {
    let button = document.getElementById("desk-stop");
    if (!button) {
      button = document.createElement("button");
      button.id = "desk-stop";
      button.type = "button";
      button.title = word("stop_title", "Stop the desk's run (or type /stop)");
      button.innerHTML = '<span class="desk-stop-square" aria-hidden="true"></span><span></span>';
      button.lastElementChild.textContent = word("stop", "Stop the desk");
      button.addEventListener("click", () => {
        const targets = stopActions();
        const target = targets[targets.length - 1];
        if (target && !target.disabled) {
          target.click();
          // Pressed once: the run's end takes the action (and this button) away; if the run goes
          // on regardless (the stop did not reach it), the button comes back to be pressed again.
          button.disabled = true;
          setTimeout(() => { button.disabled = false; }, 5000);
        }
      });
      document.body.appendChild(button);
    }
    return button;
  }

  function placeStop() {
    const actions = stopActions();
    const existing = document.getElementById("desk-stop");
    if (!actions.length) {
      if (existing) existing.hidden = true;
      return;
    }
    const button = stopButton();
    const words = stopWords(actions[actions.length - 1].textContent.trim());
    if (words) { // the run's own language
      if (button.lastElementChild.textContent !== words.stop) button.lastElementChild.textContent = words.stop;
      button.title = words.stop_title;
    }
    const composer = document.getElementById("message-composer");
    const box = composer ? composer.getBoundingClientRect() : null;
    if (box && box.width) {
      button.style.top = Math.max(8, box.top - 46) + "px";
      button.style.left = box.right - button.offsetWidth + "px";
    }
    if (button.hidden) button.disabled = false;
    button.hidden = false;
  }

  // -- a thread's page waiting for its thread ----------------------------------------------

  // Until the thread comes, its page shows the welcome screen: marked with what the page says meanwhile (desk.css
  // shows it and hides the starters; a message sent then waits for the thread, see hold in the first part).
  function markWaiting() {
    const screen = document.getElementById("welcome-screen");
    if (!screen) return;
    if (!window.deskThreadComing(screen)) {
      screen.removeAttribute("data-desk-loading");
      return;
    }
    const note = word("thread_loading", "Loading the thread… A message sent now goes once it is shown.");
    if (screen.getAttribute("data-desk-loading") !== note) screen.setAttribute("data-desk-loading", note);
  }

  // -- the mode and the login page ---------------------------------------------------------

  function showMode() {
    if (!facts || facts.mode !== "demo") return;
    const header = document.getElementById("header");
    if (!header || header.querySelector("#desk-mode")) return;
    const badge = document.createElement("div");
    badge.id = "desk-mode";
    badge.title = word("badge_title", "An offline deterministic model and synthetic market data: no figure here is " +
      "real. To go live, set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server) and restart.");
    badge.textContent = word("badge", "Demo mode · synthetic data, no real figures");
    header.appendChild(badge);
  }

  function explainLogin() {
    const email = document.getElementById("email");
    if (!email || !facts) return;
    const form = email.closest("form");
    const placeholder = word("user_name_placeholder", "your user name");
    if (email.placeholder !== placeholder) email.placeholder = placeholder;
    const label = form && form.querySelector("label[for='email']");
    const name = word("user_name", "User name");
    if (label && label.textContent !== name) label.textContent = name;
    const title = form && form.querySelector("h1");
    const heading = word("login_title", "Log in to the Trading Desk");
    if (title && title.textContent !== heading) title.textContent = heading;
    if (form && !form.querySelector("#desk-login-hint")) {
      const hint = document.createElement("p");
      hint.id = "desk-login-hint";
      hint.textContent = facts.login_hint;
      const title = form.querySelector("h1");
      (title ? title.parentElement : form).appendChild(hint);
    }
  }

  // -- the stage list (drawn by drawStages above) ------------------------------------------

  // In the row that holds the chat (where Chainlit put its task list), last; gone from another
  // thread's page (the sidebar or "new chat" moved the page on without reloading it).
  function placeStages(aside) {
    aside = aside || document.getElementById("desk-stages");
    if (!aside) return;
    // A new chat's list may come before the address names its thread (addressThread).
    if (aside.dataset.path === "/" && window.location.pathname.startsWith("/thread/")) {
      aside.dataset.path = window.location.pathname;
    }
    if (aside.dataset.path !== window.location.pathname) {
      // Another thread (or a new chat): this list is that run's. A page coming back to the
      // thread mid-run is sent the list again (chat/views/render.py catch_up); a finished run has none.
      aside.remove();
      return;
    }
    const row = document.querySelector("[data-panel-group-direction='horizontal']");
    if (row && (aside.parentElement !== row || row.lastElementChild !== aside)) row.appendChild(aside);
  }
  window.deskPlaceStages = placeStages;

  // Whether the page shows a run going on (its Stop action, or a running stage).
  window.deskRunShowing = () =>
    stopActions().length > 0 || !!document.querySelector("#desk-stages .desk-stage-running");

  // -- the view follows the run -------------------------------------------------------------

  // Chainlit follows new words only while its last scroll event found the view at the bottom;
  // words, speaker labels and charts drawn between its scroll and that event (every few frames
  // while four analysts stream) made it stop for good, so the view stayed on an early message.
  // Here the view follows the newest words until the person scrolls up themselves (a wheel, a
  // touch, a key or the scrollbar moved the view up), and again once they are back at the bottom
  // (or send a message); when the run's card comes, its top is brought into view and the view
  // stays there, the card being taller than the window.
  const NEAR_BOTTOM_PX = 40, INPUT_MS = 1500;
  const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);
  let following = true, inputAt = -Infinity, scroller = null, userMessages = 0;

  function chatScroller() {
    if (scroller && scroller.isConnected) return scroller;
    scroller = null;
    const step = document.querySelector(".step");
    for (let box = step && step.parentElement; box && box !== document.body; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowY;
      if ((overflow === "auto" || overflow === "scroll") && box.scrollHeight > box.clientHeight) {
        scroller = box;
        return box;
      }
    }
    return null;
  }

  function gap(box) {
    return box.scrollHeight - box.clientHeight - box.scrollTop;
  }

  function personScrolls(event) {
    if (event.type === "keydown" && (!SCROLL_KEYS.has(event.key) || event.target.closest("textarea, input"))) return;
    inputAt = performance.now();
  }
  for (const type of ["wheel", "touchmove", "keydown", "mousedown"]) {
    window.addEventListener(type, personScrolls, { capture: true, passive: true });
  }
  document.addEventListener("scroll", (event) => {
    const box = chatScroller();
    if (!box || event.target !== box) return;
    if (gap(box) < NEAR_BOTTOM_PX) following = true;
    else if (performance.now() - inputAt < INPUT_MS) following = false;
  }, true);

  function follow() {
    const sent = document.querySelectorAll('[data-step-type="user_message"]').length;
    if (sent > userMessages) following = true; // the person sent something: show what answers it
    userMessages = sent;
    const box = chatScroller();
    if (!box) return;
    const card = window.deskCardId && document.getElementById("step-" + window.deskCardId);
    if (card) {
      window.deskCardId = null; // a person reading higher up is not moved, now or later
      if (following) {
        following = false;
        box.scrollTop += card.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
        // Chainlit learns the view left the bottom from the scroll event, which comes a frame
        // later; a message drawn in between (the card's chart, on a slow page) still found it
        // following and took the view to the bottom. Told now, it leaves the card where it is.
        box.dispatchEvent(new Event("scroll"));
        return;
      }
    }
    if (following && gap(box) > 1) box.scrollTop = box.scrollHeight;
  }
  window.deskFollowing = () => following;

  // -- scripts loaded ahead ----------------------------------------------------------------

  // Chainlit's Plotly chunk, evaluated while the chat page is idle (see chat/app.py PRELOAD):
  // the same module Chainlit imports for the card's chart, so it is not evaluated again then.
  let preloading = false;
  function preload() {
    if (preloading || !facts || !Array.isArray(facts.preload) || !document.getElementById("chat-input")) return;
    preloading = true;
    const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 200));
    setTimeout(() => idle(() => {
      Promise.all(facts.preload.map((url) => import(url)))
        .then(() => { window.deskPreloaded = true; })
        .catch(() => {});
    }, { timeout: 5000 }), 1000);
  }

  // -- the pass ----------------------------------------------------------------------------

  // -- table cells that must not wrap ---------------------------------------------------------

  // A date, a time or a figure in a table cell reads whole: "2026-11-" / "27" in the track record's
  // narrow columns was no date (issue 35, point 9). Marked once per cell; CSS keeps it on one line.
  const WHOLE = /^[\s\-+−]*(?:\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?|[\d.,%$€¥£+\-−]+)\s*$/;
  function keepCellsWhole() {
    for (const cell of document.querySelectorAll(".ai-message td:not([data-desk-cell])")) {
      cell.dataset.deskCell = WHOLE.test(cell.textContent || "") ? "whole" : "text";
    }
  }

  // -- folded messages and the turn being edited ------------------------------------------------

  // A message an edit or a switch folded away is one short line (desk.css: [data-desk-folded]).
  function markFolded() {
    const ids = window.deskFolded;
    if (!ids) return;
    for (const box of document.querySelectorAll("[data-desk-folded]")) {
      if (!ids.has(box.id.slice(5))) box.removeAttribute("data-desk-folded");
    }
    for (const id of ids) {
      const box = document.getElementById("step-" + id);
      if (box && !box.hasAttribute("data-desk-folded")) box.setAttribute("data-desk-folded", "");
    }
  }

  // The turn being edited carries a mark that says where its question is (desk.css: [data-desk-editing]); the
  // question, once drawn, is brought into view, once: a person who pressed Edit high up sees at once what it did.
  function markEdit() {
    const edit = window.deskEdit;
    if (!edit) return;
    for (const box of document.querySelectorAll("[data-desk-editing]")) {
      if (edit.done || box.id !== "step-" + edit.turn) {
        box.removeAttribute("data-desk-editing");
        box.querySelectorAll(".desk-edit-note").forEach((note) => note.remove());
      }
    }
    if (edit.done) {
      window.deskEdit = null;
      return;
    }
    const turn = document.getElementById("step-" + edit.turn);
    const column = turn && turn.querySelector(".ai-message > :last-child");
    if (column && !turn.hasAttribute("data-desk-editing")) {
      turn.setAttribute("data-desk-editing", "");
      const note = document.createElement("div");
      note.className = "desk-edit-note";
      note.textContent = edit.label || "✏️";
      column.appendChild(note);
    }
    const question = edit.question && document.getElementById("step-" + edit.question);
    if (!question) return;
    edit.question = null;
    question.scrollIntoView({ block: "end" });
    question.setAttribute("data-desk-asking", "");
    setTimeout(() => question.removeAttribute("data-desk-asking"), 2500);
    const box = chatScroller();
    if (box) box.dispatchEvent(new Event("scroll")); // at the bottom again: the re-run's words are followed
  }

  // -- dates whole in running text ------------------------------------------------------------

  // Chromium breaks a line after a hyphen, inside a date too ("交易日 2026-11-" / "27"): a date the desk writes
  // reads whole wherever it stands (issue 35, point 9). Each date in a message's or a step's text goes into a
  // span CSS keeps on one line. React owns the text node it wrote and may write it again (a streamed update):
  // that node stays where it is, holding the text before the first date, and the pieces after it are ours; when
  // React writes it again or takes it away, ours go and the node is split anew. Only what changed is looked at.
  const DATE = /\d{4}-\d{2}-\d{2}(?![\d-])/g;
  const SKIP = "code, pre, textarea, svg, .katex, [contenteditable], .desk-date, [data-step-type='user_message']";
  const splitNodes = new Set();
  let touched = [document.body];

  function splitDates(node) {
    const text = node.nodeValue;
    DATE.lastIndex = 0;
    const found = [...text.matchAll(DATE)];
    if (!found.length) return;
    const pieces = [];
    for (const [i, hit] of found.entries()) {
      const date = document.createElement("span");
      date.className = "desk-date";
      date.textContent = hit[0];
      pieces.push(date);
      const end = hit.index + hit[0].length;
      const next = i + 1 < found.length ? found[i + 1].index : text.length;
      if (next > end) pieces.push(document.createTextNode(text.slice(end, next)));
    }
    const kept = text.slice(0, found[0].index);
    node.nodeValue = kept;
    node.after(...pieces);
    node.deskDates = { kept, pieces };
    splitNodes.add(node);
  }

  function keepDatesWhole() {
    for (const node of splitNodes) {
      if (node.isConnected && node.nodeValue === node.deskDates.kept) continue;
      for (const piece of node.deskDates.pieces) piece.remove();
      splitNodes.delete(node);
      delete node.deskDates;
      if (node.isConnected) splitDates(node);
    }
    const roots = touched;
    touched = [];
    for (const root of roots) {
      if (!root.isConnected) continue;
      const where = root.nodeType === Node.TEXT_NODE ? root.parentElement : root;
      if (!where || !(where.closest("[data-step-type]") || where.querySelector("[data-step-type]"))) continue;
      const walker = document.createTreeWalker(where, NodeFilter.SHOW_TEXT);
      const found = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.deskDates || !/\d{4}-\d{2}-\d{2}/.test(node.nodeValue)) continue;
        const parent = node.parentElement;
        if (parent && parent.closest("[data-step-type]") && !parent.closest(SKIP)) found.push(node);
      }
      for (const node of found) if (!node.deskDates) splitDates(node);
    }
  }

  function noteTouched(records) {
    for (const record of records) {
      if (record.type === "characterData") touched.push(record.target);
      else for (const added of record.addedNodes) touched.push(added);
    }
  }

  // -- a command typed out goes with its Enter --------------------------------------------------

  // The composer offers the chat's commands (chat/kit/commands.py) when one types "/": Enter then picks the
  // command as a chip and waits for a second Enter. A command typed out in full ("/book", "/stop") and Enter is
  // sent at once, as typed text always was; and Stop and the track record take no words, so a chip of theirs
  // picked with the mouse goes at once too. A chip picked from "/bo" waits for the words that follow it.
  const BARE = ["stop", "record"];
  let typedAtEnter = "";
  let sentChip = null;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target && event.target.id === "chat-input") {
      typedAtEnter = (event.target.value || "").trim().toLowerCase();
    }
  }, true);
  function sendTypedCommand() {
    const box = document.getElementById("chat-input");
    const chip = box && document.querySelector(".command-buttons-container [id^='command-']");
    // Not from a thread's page still waiting for its thread: the chip stays into the composer under the thread.
    if (!chip || chip === sentChip || box.value.trim() || window.deskThreadComing(box)) return;
    const name = chip.id.slice("command-".length);
    if (!BARE.includes(name) && typedAtEnter !== "/" + name) return;
    const submit = document.getElementById("chat-submit");
    if (submit && !submit.disabled) {
      sentChip = chip;
      typedAtEnter = "";
      submit.click();
    }
  }

  function pass() {
    scheduled = false;
    sendTypedCommand();
    preload();
    keepCellsWhole();
    keepDatesWhole();
    labelSpeakers();
    markFolded();
    markEdit();
    follow();
    placeStop();
    placeStages();
    markWaiting();
    showMode();
    explainLogin();
  }

  function schedule() {
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(pass);
    }
  }
  window.deskSchedule = schedule;

  fetch("/desk/ui.json", { credentials: "include" })
    .then((r) => (r.ok ? r.json() : null))
    .then((json) => {
      facts = json;
      window.deskWords = json && json.words;
      schedule();
    })
    .catch(() => {});

  function start() {
    new MutationObserver((records) => { noteTouched(records); schedule(); })
      .observe(document.body, { childList: true, subtree: true, characterData: true });
    window.addEventListener("resize", schedule);
    document.addEventListener("input", schedule, true); // the composer grows as one types
    schedule();
  }

  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start);
})();
