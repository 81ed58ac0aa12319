// The kiosk's script (UI-5..7): live updates over Server-Sent Events, the forms sent to the JSON
// API with the page's CSRF token, keyboard-wedge input, the linking-code hints and the cooldown.
// Plain JavaScript, no inline script anywhere (the Content-Security-Policy forbids it), and no
// HTML built from strings: live messages are typed values that fill the page's own <template>s
// (the same mustache partials the server renders the page with) through data-* bindings, with
// textContent; only a reconnect re-reads the page.
'use strict';

(function () {
  const page = document.body.dataset.page;
  const $ = (selector, root) => (root || document).querySelector(selector);

  function token() { return $('meta[name="csrf-token"]').content; }

  function say(text) { const r = $('#announce'); r.textContent = ''; setTimeout(() => { r.textContent = text; }, 30); }
  function alarm(text) { const r = $('#alert'); r.textContent = ''; setTimeout(() => { r.textContent = text; }, 30); }

  async function api(path, body, method) {
    let response;
    try {
      response = await fetch(path, {
        method: method || 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token() },
        body: JSON.stringify(body || {})
      });
    } catch (e) {
      return { ok: false, status: 0, json: { error: { code: 'offline', message: 'The station agent cannot be reached. It may be restarting; try again in a moment.' } } };
    }
    let json = {};
    try { json = await response.json(); } catch (e) { json = {}; }
    return { ok: response.ok, status: response.status, json: json };
  }

  function errorText(result) {
    return (result.json && result.json.error && result.json.error.message) || ('The request failed (' + result.status + ').');
  }

  // A reconnect catches up by re-reading the page's regions once (the database answers it).
  async function refresh(names) {
    const html = await pageHTML(location.pathname);
    if (!html) return;
    const fresh = new DOMParser().parseFromString(html, 'text/html');
    const meta = $('meta[name="csrf-token"]', fresh);
    if (meta) $('meta[name="csrf-token"]').content = meta.content;
    for (const name of names) {
      const now = $('[data-region="' + name + '"]');
      const next = $('[data-region="' + name + '"]', fresh);
      if (now && next) { now.replaceWith(document.importNode(next, true)); }
    }
    decorate();
  }

  async function pageHTML(path) {
    try {
      const response = await fetch(path, { credentials: 'same-origin' });
      return response.ok ? await response.text() : null;
    } catch (e) { return null; }
  }

  // ---- typed live messages into the page (UI-5) ----
  // Bindings, as the partials write them: data-text="path" (textContent), data-show / data-hide
  // ="path" (hidden unless / when truthy; an empty list is not), data-attr="name:path ..."
  // (attributes), data-each="path" (a list: its <template> child, filled once per item).
  function valueAt(data, path) {
    if (path === '.') return data;
    let value = data;
    for (const key of path.split('.')) { if (value === null || value === undefined) return undefined; value = value[key]; }
    return value;
  }
  function truthy(value) { return Array.isArray(value) ? value.length > 0 : Boolean(value); }

  function fill(root, data) {
    const bound = [root, ...root.querySelectorAll('[data-text],[data-show],[data-hide],[data-attr],[data-each]')];
    for (const el of bound) {
      if (el !== root && !root.contains(el)) continue;  // an old item a list above removed
      // A list's items are filled by the list, from their own item.
      const list = el === root ? null : el.parentElement.closest('[data-each]');
      if (list && root.contains(list) && list !== el) continue;
      const d = el.dataset;
      if (d.text !== undefined) { const v = valueAt(data, d.text); el.textContent = v === null || v === undefined ? '' : String(v); }
      if (d.show !== undefined) el.hidden = !truthy(valueAt(data, d.show));
      if (d.hide !== undefined) el.hidden = truthy(valueAt(data, d.hide));
      if (d.attr) {
        for (const pair of d.attr.split(' ')) {
          const [name, path] = pair.split(':');
          const v = valueAt(data, path);
          if (v === null || v === undefined) el.removeAttribute(name); else el.setAttribute(name, String(v));
        }
      }
      if (d.each !== undefined && el !== root) fillList(el, valueAt(data, d.each) || []);
    }
  }

  function item(list, data) {
    const node = list.querySelector(':scope > template').content.firstElementChild.cloneNode(true);
    fill(node, data);
    return node;
  }

  function fillList(list, items) {
    const template = list.querySelector(':scope > template');
    for (const child of [...list.children]) { if (child !== template) child.remove(); }
    for (const entry of items) list.insertBefore(item(list, entry), template);
  }

  // A scan's row goes on top of "Last scans", which keeps as many rows as the server lists.
  function addScan(scan) {
    const region = $('#recent-scans');
    if (!region) return;
    const list = $('ol', region);
    if (list.querySelector(':scope > li[data-scan-id="' + scan.id + '"]')) return;
    list.insertBefore(item(list, scan), list.firstElementChild);
    const rows = list.querySelectorAll(':scope > li');
    for (let i = Number(region.dataset.limit || 10); i < rows.length; i++) rows[i].remove();
    $('.empty', region).hidden = true;
  }

  // An enrollment's card is filled where it is (focus and the open history stay) and moves to
  // the top, as the server sorts them (most recently changed first).
  function showCard(enrollment) {
    const list = $('#enrollments [data-each="enrollments"]');
    if (!list) return;
    let card = list.querySelector(':scope > article[data-id="' + enrollment.id + '"]');
    if (card) fill(card, enrollment); else card = item(list, enrollment);
    if (list.firstElementChild !== card) {
      const focused = card.contains(document.activeElement) ? document.activeElement : null;
      list.insertBefore(card, list.firstElementChild);
      if (focused) focused.focus();
    }
    $('#enrollments .empty').hidden = true;
    decorate();
  }

  // Sponsor colours arrive as data attributes (#RRGGBB, checked by the server) and are applied
  // through the CSSOM, which the policy allows, rather than as inline styles, which it does not.
  function decorate() {
    for (const el of document.querySelectorAll('[data-primary]')) {
      if (el.dataset.primary) el.style.setProperty('--sponsor-primary', el.dataset.primary);
      if (el.dataset.secondary) el.style.setProperty('--sponsor-secondary', el.dataset.secondary);
    }
  }

  // ---- live updates (UI-5) ----
  let lastScan = ($('[data-last-scan]') || { dataset: {} }).dataset.lastScan || '';
  let knownStart = $('meta[name="started-at"]').content;
  let connected = false;
  function connect() {
    const source = new EventSource('/api/v1/events' + (lastScan ? '?after=' + encodeURIComponent(lastScan) : ''));
    const state = $('#connection');
    source.addEventListener('hello', (e) => {
      const hello = JSON.parse(e.data);
      $('meta[name="csrf-token"]').content = hello.csrf_token;
      state.dataset.state = 'live'; state.textContent = 'Live';
      if (String(hello.started_at) !== String(knownStart)) {
        // The agent restarted while this page stayed open: catch up on everything.
        knownStart = hello.started_at;
        refresh(['recent-scans', 'cameras', 'lookup', 'enrollments', 'status']);
        say('Reconnected to the station agent.');
      } else if (connected && page === 'clinic') {
        // Reconnected to the same agent: missed scans come on the stream (Last-Event-ID) and the
        // status and lookup are sent on connect; the clinic reads its enrollments once.
        refresh(['enrollments']);
      }
      connected = true;
    });
    source.addEventListener('scan', (e) => {
      lastScan = e.lastEventId || lastScan;
      if (page === 'dock') addScan(JSON.parse(e.data));
    });
    // A linking code held to the camera: the kiosk keeps it; the page shows it masked (UI-3).
    source.addEventListener('linking-code', (e) => {
      if (page !== 'clinic') return;
      const read = JSON.parse(e.data);
      const box = $('#camera-code');
      const button = $('#validate-scanned');
      if (read.masked) {
        $('#camera-code-text').textContent = 'Linking code ' + read.masked + ' read by camera ' + read.camera + '.';
        button.hidden = false;
      } else {
        $('#camera-code-text').textContent = 'Camera ' + read.camera + ': ' + read.message;
        button.hidden = true;
      }
      box.hidden = false;
      say($('#camera-code-text').textContent);
    });
    source.addEventListener('lookup', (e) => { if (page === 'dock') cameraLookup(JSON.parse(e.data)); });
    source.addEventListener('receipt', (e) => { if (page === 'dock') showReceipt(JSON.parse(e.data)); });
    source.addEventListener('notice', (e) => { if (page === 'dock') showNotice(JSON.parse(e.data)); });
    source.addEventListener('enrollment', (e) => { if (page === 'clinic') showCard(JSON.parse(e.data)); });
    source.addEventListener('status', (e) => {
      const region = page === 'dock' ? $('#cameras') : page === 'status' ? $('#status') : null;
      if (region) fill(region, JSON.parse(e.data));
    });
    source.onerror = () => { state.dataset.state = 'down'; state.textContent = 'Reconnecting…'; };
  }

  // A label read by the camera while the operator works on an order must not wipe the work: the
  // same order again is ignored, and another label waits behind a button until the operator opens it.
  function formTouched() {
    const form = $('#grn-form');
    if (!form || form.dataset.confirmed) return false;
    if (form.dataset.photo) return true;
    for (const field of form.querySelectorAll('input, select')) { if (field.value !== '') return true; }
    return false;
  }

  // Lookups reach the screen one at a time, in order: a typed scan's own answer and the live
  // event it causes must not refresh the order twice (the second would wipe what was typed).
  let lookupChain = Promise.resolve();
  function inOrder(step) { lookupChain = lookupChain.then(step, step); return lookupChain; }

  // `lookup` is the event's data: kind, seen_at and the label it names.
  function cameraLookup(lookup) {
    return inOrder(async () => {
      const region = $('#lookup');
      if (region && String(lookup.seen_at) === region.dataset.seenAt) return;  // already on screen
      const shown = $('#order');
      if (lookup.kind === 'order' && shown && lookup.label === shown.dataset.po && formTouched()) return;
      if (formTouched()) {
        const notice = $('#new-label');
        const label = lookup.label;
        notice.replaceChildren();
        const text = document.createElement('span');
        text.textContent = 'The camera read another label (' + label + '). ';
        const open = document.createElement('button');
        open.type = 'button';
        open.id = 'open-new-label';
        open.textContent = 'Open it';
        notice.append(text, open);
        notice.hidden = false;
        say(text.textContent + 'Your entries are kept until you open it.');
        return;
      }
      await showLookup(false);
    });
  }

  // The lookup's order form is re-read as its own region, not built here.
  async function showLookup(typed) {
    const html = await pageHTML('/dock/regions/lookup');
    const next = html && $('#lookup', new DOMParser().parseFromString(html, 'text/html'));
    const now = $('#lookup');
    if (now && next) now.replaceWith(document.importNode(next, true));
    $('#grn-result').hidden = true;
    $('#new-label').hidden = true;
    announceLookup(typed);
  }

  // The first quantity takes the focus after a typed scan, or when nothing else has it: a label
  // the camera reads while someone types must not pull their keystrokes into another field.
  function announceLookup(typed) {
    const heading = $('#lookup-title');
    const error = $('#lookup-error p');
    if (error) { alarm(error.textContent); return; }
    if (heading) say(heading.textContent + ' opened.');
    const active = document.activeElement;
    const idle = !active || active === document.body || (active.id === 'scan-input' && active.value === '');
    const first = $('#grn-form input[name^="received-"]');
    if (first && (typed || idle)) first.focus();
  }

  // ---- dock (UI-2) ----
  // What a typed or wedge scan answered: a count or a refusal comes as a `notice` (every screen
  // shows it from the stream); only a lookup is put on screen here.
  const noticeKinds = ['counted', 'excess', 'not-on-order', 'switch', 'failed'];
  async function lookUp(text, open) {
    const result = await api('/api/v1/dock/scans', open ? { text: text, open: true } : { text: text });
    if (!result.ok) { alarm(errorText(result)); return; }
    if (noticeKinds.includes(result.json.kind)) {
      if (result.json.receipt) showReceipt({ po_number: result.json.po_number, receipt: result.json.receipt });
      return;
    }
    await inOrder(async () => {
      // The live event for this very lookup may have put it on screen already.
      const region = $('#lookup');
      if (region && region.dataset.seenAt === String(result.json.seen_at)) return;
      await showLookup(true);
    });
  }

  function showResult(json) {
    const box = $('#grn-result');
    box.replaceChildren();
    box.dataset.outcome = json.outcome;
    box.dataset.key = json.idempotency_key;
    const head = document.createElement('h2');
    const words = { applied: 'Sent: the backend applied it.', queued: 'Queued offline: ' + json.waiting + ' waiting to be sent.',
      conflict: 'Conflict: the order changed on the server.', rejected: 'Refused by the backend.' };
    head.textContent = words[json.outcome] || json.outcome;
    box.append(head);
    const message = document.createElement('p');
    message.textContent = json.message;
    box.append(message);
    if (json.outcome !== 'queued') {
      const waiting = document.createElement('p');
      waiting.textContent = json.waiting + ' waiting to be sent.';
      box.append(waiting);
    }
    if (json.conflict) {
      const list = document.createElement('ul');
      list.id = 'conflict';
      if (json.conflict.server_summary) { const li = document.createElement('li'); li.textContent = 'Server: ' + json.conflict.server_summary; list.append(li); }
      for (const line of json.conflict.lines || []) { const li = document.createElement('li'); li.textContent = line.text; list.append(li); }
      box.append(list);
    }
    box.hidden = false;
    box.tabIndex = -1;
    box.focus();
    tone(json.outcome === 'applied' || json.outcome === 'queued' ? 'done' : 'refused');
    (json.outcome === 'applied' || json.outcome === 'queued' ? say : alarm)(head.textContent + ' ' + json.message);
    if (json.outcome === 'queued') followOutcome(json);
  }

  // A queued receipt is sent by the agent when the backend can be reached: the screen follows it
  // until the backend answered (applied, conflict or refused), while this order stays open.
  let following = null;
  function followOutcome(confirmation) {
    clearInterval(following);
    following = setInterval(async () => {
      const box = $('#grn-result');
      if (!box || box.hidden || box.dataset.key !== confirmation.idempotency_key) { clearInterval(following); return; }
      let outcome;
      try {
        const response = await fetch('/api/v1/dock/grns/' + encodeURIComponent(confirmation.idempotency_key), { credentials: 'same-origin' });
        if (!response.ok) return;
        outcome = await response.json();
      } catch (e) { return; }
      if (outcome.outcome === 'queued') return;
      clearInterval(following);
      const words = { applied: confirmation.po_number + ': the GRN was applied by the backend.',
        conflict: (outcome.conflict && outcome.conflict.server_summary) || confirmation.po_number + ' changed on the server; this GRN was not applied.',
        rejected: confirmation.po_number + ': the backend refused the GRN (' + (outcome.reason || '') + ').' };
      let waiting = confirmation.waiting;
      try { const st = await fetch('/api/v1/status', { credentials: 'same-origin' }); waiting = ((await st.json()).queue || {}).depth; } catch (e) { /* keep */ }
      showResult({ outcome: outcome.outcome, message: words[outcome.outcome] || outcome.outcome, waiting: waiting === undefined ? confirmation.waiting : waiting,
        conflict: outcome.conflict, idempotency_key: confirmation.idempotency_key, po_number: confirmation.po_number });
    }, 3000);
  }

  // ---- receipts in progress (RCV-8, RCV-9): the station keeps them, the page shows them ----
  // Every change to a line is sent as it is made (typed text after a short pause), and the
  // answer, like the `receipt` event every screen gets, puts the station's receipt on screen.
  const lineTimers = new Map();
  function lineChanged(field) {
    const form = field.form;
    if (!form || form.id !== 'grn-form' || form.dataset.confirmed) return;
    const row = field.closest('tr[data-line]');
    if (!row) return;
    const n = row.dataset.line;
    clearTimeout(lineTimers.get(n));
    lineTimers.set(n, setTimeout(() => saveLine(form, n), field.tagName === 'SELECT' ? 0 : 250));
  }

  // Saves go one after another, so the confirmation can wait for the last (flushLines).
  let saving = Promise.resolve();
  function saveLine(form, n) {
    clearTimeout(lineTimers.get(n));
    const body = { received: form.elements['received-' + n].value.trim() || null, discrepancy: form.elements['flag-' + n].value || null,
      note: form.elements['note-' + n].value || null };
    lineTimers.set(n, 'saving');
    saving = saving.then(async () => {
      const result = await api('/api/v1/dock/receipts/' + encodeURIComponent(form.dataset.po) + '/lines/' + n, body, 'PUT');
      if (lineTimers.get(n) === 'saving') lineTimers.delete(n);
      if (!result.ok) { alarm(errorText(result)); return; }
      showReceipt({ po_number: form.dataset.po, receipt: result.json });
    });
    return saving;
  }

  // Everything typed is saved before the receipt is confirmed at the revision it then has.
  async function flushLines(form) {
    for (const [n, timer] of Array.from(lineTimers)) { if (timer !== 'saving') saveLine(form, n); }
    await saving;
  }

  // `event`: {po_number, receipt, closed}. A field being edited keeps what is typed in it.
  function showReceipt(event) {
    const form = $('#grn-form');
    if (!form || form.dataset.po !== event.po_number || form.dataset.confirmed) return;
    if (event.closed) {
      if (event.closed === 'discarded') inOrder(() => showLookup(false));
      return;
    }
    const receipt = event.receipt;
    if (Number(receipt.revision) < Number(form.dataset.revision || 0)) return;  // an older answer
    form.dataset.revision = receipt.revision;
    const byLine = new Map(receipt.lines.map((line) => [String(line.line_no), line]));
    for (const row of form.querySelectorAll('tr[data-line]')) {
      const line = byLine.get(row.dataset.line) || {};
      const fields = [['received-', line.received === undefined || line.received === null ? '' : String(line.received)],
        ['flag-', line.discrepancy || ''], ['note-', line.note || '']];
      for (const [prefix, value] of fields) {
        const field = form.elements[prefix + row.dataset.line];
        if (field && field !== document.activeElement && !lineTimers.has(row.dataset.line)) field.value = value;
      }
      const tracking = $('#tracking-' + row.dataset.line);
      if (tracking) tracking.textContent = trackingText(line.tracking || []);
    }
    const last = receipt.counts[0];
    const trace = last ? trackingText([last]) : '';
    $('#last-count').textContent = last ? 'Last count: line ' + last.line_no + ', +' + last.quantity + ' (' + last.code + (trace ? '; ' + trace : '') + ')' : '';
    $('#undo-count').hidden = !last;
    $('#discard-receipt').hidden = false;
    // A photo taken or removed on another screen.
    const photo = receipt.photos.length ? receipt.photos[receipt.photos.length - 1].sha256 : '';
    if (photo !== (form.dataset.photo || '')) showPhoto(form, photo);
    // The page was served with the newest count's id: a newer one is a count to show.
    if (last && String(last.id) !== form.dataset.lastCount) {
      flash(form.querySelector('tr[data-line="' + last.line_no + '"]'));
      form.dataset.lastCount = String(last.id);
    }
  }

  // A line's GS1 data (RCV-10) as KioskPages.tracking writes it: `lot L-7, expires 2027-03-31 ×7; serial S-1`.
  function trackingText(entries) {
    return entries.map((entry) => {
      const parts = [];
      if (entry.lot) parts.push('lot ' + entry.lot);
      if (entry.serial) parts.push('serial ' + entry.serial);
      if (entry.expiry) parts.push('expires ' + entry.expiry);
      if (!parts.length) return '';
      return parts.join(', ') + (entry.serial && Number(entry.quantity) === 1 ? '' : ' ×' + entry.quantity);
    }).filter((text) => text).join('; ');
  }

  function flash(row) {
    if (!row) return;
    row.classList.remove('counted');
    void row.offsetWidth;  // restart the animation on a second count of the same line
    row.classList.add('counted');
  }

  // Tones an operator hears from a metre away (RCV-9): counted, refused, done. Web Audio, no
  // files; the kiosk's Chromium runs with --autoplay-policy=no-user-gesture-required. A station
  // without a sound device keeps the words and the flash. body[data-last-tone] tells the tests.
  let audio = null;
  const tones = { counted: [[880, 0.09]], refused: [[220, 0.16], [165, 0.24]], done: [[523, 0.1], [659, 0.1], [784, 0.2]] };
  function tone(kind) {
    document.body.dataset.lastTone = kind;
    try {
      audio = audio || new AudioContext();
      if (audio.state === 'suspended') audio.resume();
      let at = audio.currentTime;
      for (const [hertz, seconds] of tones[kind] || []) {
        const oscillator = audio.createOscillator();
        const gain = audio.createGain();
        oscillator.type = kind === 'refused' ? 'square' : 'sine';
        oscillator.frequency.value = hertz;
        gain.gain.setValueAtTime(0.25, at);
        gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
        oscillator.connect(gain).connect(audio.destination);
        oscillator.start(at);
        oscillator.stop(at + seconds);
        at += seconds + 0.03;
      }
    } catch (e) { /* no audio: the words and the flash remain */ }
  }

  // `notice`: {kind, po_number, label, line_no, message}: counted, excess, not-on-order, switch.
  function showNotice(notice) {
    const box = $('#dock-notice');
    if (!box) return;
    box.replaceChildren();
    box.dataset.kind = notice.kind;
    const text = document.createElement('span');
    text.textContent = notice.message;
    box.append(text);
    if (notice.kind === 'switch') {
      const open = document.createElement('button');
      open.type = 'button';
      open.id = 'open-other-order';
      open.dataset.label = notice.label;
      open.textContent = 'Open ' + notice.label;
      box.append(' ', open);
    }
    box.hidden = false;
    tone(notice.kind === 'counted' ? 'counted' : 'refused');
    (notice.kind === 'counted' ? say : alarm)(notice.message);
  }

  async function undoCount() {
    const form = $('#grn-form');
    if (!form) return;
    const result = await api('/api/v1/dock/receipts/' + encodeURIComponent(form.dataset.po) + '/undo', {});
    if (!result.ok) { alarm(errorText(result)); return; }
    showReceipt({ po_number: form.dataset.po, receipt: result.json });
    say('Last count undone.');
  }

  async function discardReceipt() {
    const form = $('#grn-form');
    if (!form) return;
    if (!window.confirm('Discard the receipt for ' + form.dataset.po + '? Everything counted and entered for it is removed.')) return;
    const result = await api('/api/v1/dock/receipts/' + encodeURIComponent(form.dataset.po), {}, 'DELETE');
    if (!result.ok && result.status !== 404) { alarm(errorText(result)); return; }
    await inOrder(() => showLookup(false));
    say('Receipt discarded.');
  }

  async function confirmReceipt(form) {
    await flushLines(form);
    const lines = [];
    for (const row of form.querySelectorAll('tr[data-line]')) {
      const n = row.dataset.line;
      const received = form.elements['received-' + n].value.trim();
      const flag = form.elements['flag-' + n].value;
      const note = form.elements['note-' + n].value;
      if (received === '' && flag === '' && note === '') continue;
      lines.push({ line_no: Number(n), received: received, discrepancy: flag || null, note: note || null });
    }
    if (lines.length === 0) { alarm('Enter the received quantity of at least one line.'); return; }
    const photos = form.dataset.photo ? [form.dataset.photo] : [];
    const button = $('#confirm-grn');
    button.disabled = true;
    say('Confirming…');
    const revision = Number(form.dataset.revision || 0);
    const result = await api('/api/v1/dock/grns', revision > 0 ? { po_number: form.dataset.po, lines: lines, photos: photos, receipt_revision: revision }
      : { po_number: form.dataset.po, lines: lines, photos: photos });
    button.disabled = false;
    if (!result.ok) { alarm(errorText(result)); return; }
    // Confirmed once: a second press would be a second receipt. The next label opens a fresh form.
    form.dataset.confirmed = 'true';
    button.disabled = true;
    button.textContent = 'Confirmed';
    showResult(result.json);
  }

  async function takePhoto(button) {
    button.disabled = true;
    say('Taking a photo…');
    // The photo belongs to the order's receipt (kept by the station); a retake replaces it.
    const form = $('#grn-form');
    const result = await api('/api/v1/dock/photos', { camera: button.dataset.camera || null, po_number: form.dataset.po,
      replaces: form.dataset.photo || null });
    button.disabled = false;
    if (!result.ok) { alarm(errorText(result)); return; }
    showPhoto(form, result.json.id);
    say('Photo taken (' + result.json.width + ' by ' + result.json.height + '). It is sent with the receipt.');
  }

  function showPhoto(form, id) {
    form.dataset.photo = id || '';
    const img = $('#photo-preview');
    if (id) img.src = '/api/v1/dock/photos/' + encodeURIComponent(id); else img.removeAttribute('src');
    img.hidden = !id;
    $('#remove-photo').hidden = !id;
    $('#take-photo').textContent = id ? 'Retake photo' : 'Take photo';
  }

  async function removePhoto() {
    const form = $('#grn-form');
    if (!form || !form.dataset.photo) return;
    const result = await api('/api/v1/dock/receipts/' + encodeURIComponent(form.dataset.po) + '/photos/' + encodeURIComponent(form.dataset.photo), {}, 'DELETE');
    if (!result.ok && result.status !== 404) { alarm(errorText(result)); return; }
    showPhoto(form, '');
    say('Photo removed.');
  }

  // ---- clinic (UI-3) ----
  let cooldownTimer = null;
  // The message is ENR-7's, from the server (the page's #cooldown carries it).
  function startCooldown(seconds) {
    const box = $('#cooldown');
    const message = box.dataset.message;
    const button = $('#enroll-button');
    const until = Date.now() + seconds * 1000;
    clearInterval(cooldownTimer);
    const tick = () => {
      const left = Math.max(0, Math.round((until - Date.now()) / 1000));
      if (left === 0) { clearInterval(cooldownTimer); box.hidden = true; button.disabled = false; say('You can try again now.'); return; }
      box.textContent = message + ' Try again in ' + Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0') + '.';
      box.hidden = false;
      button.disabled = true;
    };
    tick();
    cooldownTimer = setInterval(tick, 1000);
  }

  // #code-input takes up to 512 characters, not ENR-2's 12: a wedge scanner types the whole
  // carrier a QR holds (a link, a JSON card) and the station reads the code out of it (issue #28).
  // The 12-character cap of a typed bare code is the server's (LinkingCodeNormalizer), and a
  // complete carrier comes back from code-check as its formatted code, which replaces it here.
  let checkSerial = 0;
  async function checkCode(input) {
    const serial = ++checkSerial;
    const typed = input.value;
    const hint = $('#code-hint');
    if (typed.trim() === '') { hint.textContent = 'Type or scan the code, e.g. AB-CDE-FGHJK.'; hint.dataset.state = ''; return; }
    const result = await api('/api/v1/clinic/code-check', { code: typed });
    if (serial !== checkSerial || input.value !== typed) return;  // the coordinator typed on
    if (!result.ok) { hint.textContent = errorText(result); return; }
    const check = result.json;
    hint.dataset.state = check.complete ? 'complete' : 'incomplete';
    hint.textContent = check.complete ? 'Ready: ' + check.display + '. Press Enter to validate.' : (check.message || '');
    // Only a bare code is regrouped while it is typed; a link or card half-typed (a scanner that
    // paused) keeps its text, and is replaced by its code once complete.
    const bare = /^[A-Za-z0-9\s\u2010-\u2015\u2212-]*$/.test(typed);
    if (check.display && check.display !== typed && check.display.length <= 12 && (bare || check.complete)) input.value = check.display;
  }

  function showEnrollment(json) {
    const box = $('#enroll-result');
    box.replaceChildren();
    box.dataset.state = json.state;
    const head = document.createElement('h2');
    const words = { ENROLLED: 'Enrolled', STUDY_START_PENDING: 'Linked: Study Start pending', PERSONAL_USE: 'Not linked', LINKING_PENDING: 'Linking…',
      NOT_PARTICIPATING: 'Not participating' };
    head.textContent = (words[json.state] || json.state) + ' · ' + json.masked_code;
    box.append(head);
    if (json.sponsor) {
      const sponsor = document.createElement('div');
      sponsor.id = 'sponsor';
      sponsor.className = 'sponsor';
      const name = document.createElement('strong');
      name.textContent = json.sponsor.name;
      const contact = document.createElement('p');
      contact.textContent = json.sponsor.phone + ' · ' + json.sponsor.email;
      sponsor.append(name, contact);
      if (/^#[0-9a-fA-F]{6}$/.test(json.sponsor.colors.primary)) sponsor.style.setProperty('--sponsor-primary', json.sponsor.colors.primary);
      if (/^#[0-9a-fA-F]{6}$/.test(json.sponsor.colors.secondary)) sponsor.style.setProperty('--sponsor-secondary', json.sponsor.colors.secondary);
      box.append(sponsor);
    }
    box.hidden = false;
    say(head.textContent + (json.sponsor ? '. Sponsor ' + json.sponsor.name + '.' : '.'));
  }

  function showRefusal(result) {
    const box = $('#enroll-result');
    box.replaceChildren();
    box.dataset.state = 'refused';
    const p = document.createElement('p');
    p.className = 'error';
    p.id = 'enroll-error';
    p.dataset.code = (result.json.error && result.json.error.code) || '';
    p.textContent = errorText(result);
    box.append(p);
    box.hidden = false;
    alarm(p.textContent);
    if (result.json.error && result.json.error.retry_after) {
      startCooldown(result.json.error.retry_after);
    }
  }

  async function enroll(form, source) {
    const input = $('#code-input');
    const code = input.value;
    if (source !== 'camera' && code.trim() === '') { alarm('Type or scan the linking code first.'); input.focus(); return; }
    const reenroll = form.elements.reenroll.value;
    const button = $('#enroll-button');
    button.disabled = true;
    say('Validating the code with the sponsor…');
    const result = await api('/api/v1/clinic/enrollments', source === 'camera'
      ? { camera: true, reenroll: reenroll ? Number(reenroll) : null }
      : { code: code, source: source || 'typed', reenroll: reenroll ? Number(reenroll) : null });
    if (source === 'camera') { $('#camera-code').hidden = true; }
    if (!(result.json.error && result.json.error.retry_after)) button.disabled = false;
    if (!result.ok) { showRefusal(result); return; }
    // Validated: the code leaves the screen; only its masked form is shown from now on.
    input.value = '';
    $('#code-hint').textContent = 'Type or scan the code, e.g. AB-CDE-FGHJK.';
    form.elements.reenroll.value = '';
    $('#reenroll-note').hidden = true;
    showEnrollment(result.json);
  }

  async function enrollmentAction(button) {
    const id = button.dataset.id;
    if (button.dataset.action === 'reenroll') {
      $('#reenroll').value = id;
      const note = $('#reenroll-note');
      note.textContent = 'Re-enrolling ' + button.dataset.masked + ': scan or type the same patient\'s new code.';
      note.hidden = false;
      $('#code-input').focus();
      say(note.textContent);
      return;
    }
    button.disabled = true;
    const result = await api('/api/v1/clinic/enrollments/' + encodeURIComponent(id) + '/' + button.dataset.action, {});
    button.disabled = false;
    if (!result.ok) { alarm(errorText(result)); return; }
    say('Enrollment ' + result.json.masked_code + ': ' + result.json.state.replace(/_/g, ' ').toLowerCase() + '.');
  }

  // ---- keyboard wedge (UI-6) ----
  // A USB scanner types the code and Enter into whatever has the focus. When nothing does, the
  // first character moves the focus to the page's scan field (and goes in), so the rest of the
  // code and the Enter land there and the form submits as if typed there: no timing guesses,
  // which a busy station would get wrong.
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey || e.key.length !== 1 || e.key === ' ') return;
    const active = document.activeElement;
    if (active && active !== document.body && active.id !== 'main') return;
    const field = $(page === 'dock' ? '#scan-input' : page === 'clinic' ? '#code-input' : '#none');
    if (!field) return;
    e.preventDefault();
    field.focus();
    field.value += e.key;
    field.dispatchEvent(new Event('input', { bubbles: true }));
  });

  // ---- wiring (delegated: regions are replaced as they update) ----
  document.addEventListener('submit', (e) => {
    const form = e.target;
    e.preventDefault();
    if (form.id === 'scan-form') {
      const input = $('#scan-input');
      const text = input.value;
      input.value = '';
      if (text.trim() !== '') lookUp(text);
    } else if (form.id === 'grn-form') {
      confirmReceipt(form);
    } else if (form.id === 'enroll-form') {
      enroll(form);
    } else if (form.id === 'login-form') {
      api('/api/v1/session', { pin: form.elements.pin.value }).then((result) => {
        form.elements.pin.value = '';
        if (result.ok) location.assign('/'); else alarm(errorText(result));
      });
    }
  });
  document.addEventListener('click', (e) => {
    const button = e.target.closest('button');
    if (!button) return;
    if (button.id === 'take-photo') takePhoto(button);
    else if (button.id === 'open-new-label') inOrder(() => showLookup(true));
    else if (button.id === 'open-other-order') { $('#dock-notice').hidden = true; lookUp(button.dataset.label, true); }
    else if (button.id === 'undo-count') undoCount();
    else if (button.id === 'discard-receipt') discardReceipt();
    else if (button.id === 'validate-scanned') enroll($('#enroll-form'), 'camera');
    else if (button.id === 'remove-photo') removePhoto();
    else if (button.dataset.action) enrollmentAction(button);
  });
  let checkTimer = null;
  document.addEventListener('input', (e) => {
    if (e.target.id === 'code-input') { clearTimeout(checkTimer); checkTimer = setTimeout(() => checkCode(e.target), 120); }
    else if (e.target.closest && e.target.closest('#grn-form')) lineChanged(e.target);
  });

  decorate();
  // A clinic page opened in the middle of an ENR-7 cooldown shows it at once.
  const pendingCooldown = $('#cooldown') && $('#cooldown').dataset.seconds;
  if (pendingCooldown) startCooldown(Number(pendingCooldown));
  if (page !== 'login') connect();
})();
