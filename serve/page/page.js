// page.js - the page of `ilmap serve` (docs/serve.md "The page"). It talks to the service that
// served it and to nothing else (the Content-Security-Policy allows no other origin):
//   POST /symbolicate          the text exactly as `ilmap symbolicate` prints it (copy, download)
//   POST /symbolicate?json=1   one object per frame, to show each frame's place or reason
//   GET  /lookup/<id>/<token>/<il>  the lookup form (a file name goes through ?json=1 instead)
// Text from a trace is only ever put into the page as text (textContent), never as markup.
'use strict';

const $ = (id) => document.getElementById(id);
const kTokenKey = 'ilmap-token';
// Rows built per animation frame: the tab stays responsive on a trace of 10,000 frames (about
// 20,000 rows) since no frame spends long on building and laying out its share.
const kRowsPerChunk = 250;
// Lines of source around a frame, when the service was started with --source-context.
const kContextLines = 3;

let droppedFile = null;     // a file dropped or chosen: sent byte for byte, not the textarea's text
let sourceContext = true;   // false once the service said it returns no source text
let answerText = '';        // the text answer, for the copy button
let downloadUrl = null;     // the blob: URL of the download link, released on the next answer
let renderRun = 0;          // the render in progress; a newer answer stops an older render

// The token is kept in sessionStorage: it lives as long as the tab and is sent to this origin only.
function token() { return sessionStorage.getItem(kTokenKey) || ''; }

function headers() {
  const t = token();
  return t ? { Authorization: 'Bearer ' + t } : {};
}

// The service's error message ({"error": ...}), or the status line when the body is not one.
async function errorOf(response) {
  const body = await response.text();
  try {
    const message = JSON.parse(body).error;
    if (typeof message === 'string') return message;
  } catch (e) { /* not JSON: said below */ }
  return 'HTTP ' + response.status + (body ? ': ' + body.slice(0, 200) : '');
}

// What a person can do about a status, after the service's own words.
function explain(status, message) {
  const advice = {
    401: 'Enter the token this service was started with (its --token-file) in "Bearer token" above.',
    413: 'The paste is larger than this service accepts (its --max-body, or --max-frames for the ' +
         'number of frames). Send the trace in smaller parts, or ask whoever runs the service for a larger limit.',
    415: 'Send text, a Sentry event or an envelope.',
    429: 'The service is busy with other requests: try again in a moment.',
    503: 'The service did not finish in time (its --request-timeout); what it started is kept: try again.',
  }[status];
  return 'The service answered ' + status + ': ' + message + (advice ? '\n' + advice : '');
}

function showError(text, target = 'error') {
  $(target).textContent = text;
  if (text && target === 'error' && /^The service answered 401/.test(text)) $('token').focus();
}

// POST /symbolicate with the body as bytes and no Content-Type: the service then reads it as the
// command reads its input (a Sentry event or envelope by its first line, anything else as text).
async function post(query, body) {
  try {
    return await fetch('symbolicate' + query, { method: 'POST', headers: headers(), body: body, cache: 'no-store' });
  } catch (e) {
    // A body refused from its Content-Length is answered and the connection closed before the
    // body is read; a browser may see only the closed connection.
    throw new Error('The service did not answer (' + e.message + '). If the paste is large, it may be over the ' +
                    "service's --max-body: send it in smaller parts.");
  }
}

async function symbolicate() {
  showError('');
  const body = droppedFile || new Blob([$('trace').value]);
  if (body.size === 0) return showError('Paste a trace first, or drop a file on the text box.');
  $('go').disabled = true;
  $('status').textContent = 'Symbolicating...';
  try {
    const text = await post('', body);
    if (!text.ok) {
      $('status').textContent = '';
      return showError(explain(text.status, await errorOf(text)));
    }
    const bytes = await text.arrayBuffer();
    const type = text.headers.get('Content-Type') || '';
    const counts = ['Frames', 'Resolved', 'Unresolved'].map((h) => Number(text.headers.get('X-Ilmap-' + h) || 0));
    let frames = [];
    if (!type.startsWith('application/')) {
      const json = await frameObjects(body);
      if (json.error) showError(json.error);
      frames = json.frames || [];
    }
    await show(bytes, type, counts, frames, await body.text());
  } catch (e) {
    $('status').textContent = '';
    showError(e.message);
  } finally {
    $('go').disabled = false;
  }
}

// The frames as objects (?json=1), with source context when the service has it: a service
// without --source-context answers ?context with a 400, and is then asked without it.
async function frameObjects(body) {
  let r = await post('?json=1' + (sourceContext ? '&context=' + kContextLines : ''), body);
  if (r.status === 400 && sourceContext) {
    const message = await errorOf(r);
    if (!/--source-context/.test(message)) return { error: explain(400, message) };
    sourceContext = false;
    r = await post('?json=1', body);
  }
  if (!r.ok) return { error: explain(r.status, await errorOf(r)) };
  const frames = [];
  for (const line of (await r.text()).split('\n')) if (line) frames.push(JSON.parse(line));
  return { frames };
}

function show(bytes, type, counts, frames, input) {
  // The copy and the download are the answer's bytes, untouched.
  answerText = new TextDecoder().decode(bytes);
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = URL.createObjectURL(new Blob([bytes], { type: type || 'text/plain' }));
  $('download').href = downloadUrl;
  $('download').download = type.startsWith('application/') ? 'symbolicated.json' : 'symbolicated.txt';
  summarize(counts, frames);
  $('result').hidden = false;
  // A Sentry event or batch comes back as JSON: shown as it came (its frames hold their lines).
  if (type.startsWith('application/')) return render([answerText], new Map());
  // The text answer keeps the input's lines; a frame is shown on its line, rewritten. When the
  // line counts differ (they should not), the input's lines are shown with the frames below them.
  const out = answerText.split('\n');
  const inLines = input.split('\n');
  const byLine = new Map();
  for (const f of frames) {
    if (!byLine.has(f.input_line)) byLine.set(f.input_line, []);
    byLine.get(f.input_line).push(f);
  }
  return render(out.length === inLines.length ? out : inLines, byLine);
}

// "61 frames, 47 resolved, 14 unresolved" and one item per reason, as the command's summary.
function summarize([frames, resolved, unresolved], objects) {
  $('summary').textContent = frames + ' frames, ' + resolved + ' resolved, ' + unresolved + ' unresolved';
  const reasons = new Map();  // reason -> {count, modules}
  for (const f of objects) {
    if (f.resolved) continue;
    const r = reasons.get(f.reason) || { count: 0, modules: new Set() };
    r.count++;
    if (f.reason === 'module not found' && f.module) r.modules.add(f.module);
    reasons.set(f.reason, r);
  }
  const list = $('reasons');
  list.replaceChildren();
  for (const [reason, r] of reasons) {
    const li = document.createElement('li');
    li.textContent = r.count + ' ' + reason + (r.modules.size ? ' (' + [...r.modules].join(', ') + ')' : '');
    list.append(li);
  }
}

function span(cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}

// One frame's place (file:line:column as a link to its SourceLink URL), method and source
// context; or why it was left.
function frameInfo(f) {
  const where = span('where', '');
  if (f.resolved) {
    const loc = f.url ? document.createElement('a') : document.createElement('span');
    loc.className = 'loc';
    loc.textContent = f.file + ':' + f.line + ':' + f.column;
    if (f.url) { loc.href = f.url; loc.rel = 'noreferrer'; loc.target = '_blank'; }
    where.append(loc, ' ', span('method', f.method || ''));
  } else {
    const reason = f.reason + (f.reason === 'module not found' && f.module ? ' (' + f.module + ')' : '');
    where.append(span('reason', reason), ' ', span('method', (f.method || '') + ' ' + f.token + '+0x' + f.il_offset.toString(16)));
  }
  const items = [where];
  if (f.context_line !== undefined) {
    const ctx = span('ctx', '');
    const pre = f.pre_context || [];
    const all = [...pre, f.context_line, ...(f.post_context || [])];
    all.forEach((text, i) => {
      const n = f.line - pre.length + i;
      const row = span(n === f.line ? 'at' : '', (n === f.line ? '> ' : '  ') + n + ' | ' + text + '\n');
      ctx.append(row);
    });
    items.push(ctx);
  } else if (f.context_missing) {
    items.push(span('where', 'no source context: ' + f.context_missing));
  }
  return items;
}

// Builds the rows a chunk at a time, one chunk per animation frame, so the browser lays out and
// paints between chunks. Each chunk is a list of its own that the browser may skip laying out
// while it is off screen (content-visibility in page.css), so a chunk costs the same at the end
// of a long trace as at its start. The times are kept on #result (the browser test reads them):
// all of it, and the longest chunk (building plus the frame before it).
function render(lines, byLine) {
  const run = ++renderRun;
  const list = $('lines');
  list.replaceChildren();
  const start = performance.now();
  let longest = 0, chunks = 0, at = 0, last = start;
  // A text that ends with a line end has no line after it.
  const count = lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  return new Promise((done) => {
    const step = () => {
      if (run !== renderRun) return done();
      const t0 = performance.now();
      const chunk = document.createElement('ol');
      chunk.className = 'chunk';
      chunk.start = at + 1;
      for (const end = Math.min(count, at + kRowsPerChunk); at < end; at++) {
        const li = document.createElement('li');
        li.append(lines[at]);
        const frames = byLine.get(at + 1);
        if (frames) {
          li.className = 'frame' + (frames.every((f) => f.resolved) ? '' : ' unresolved');
          for (const f of frames) li.append('\n', ...frameInfo(f));
        }
        chunk.append(li);
      }
      list.append(chunk);
      chunks++;
      longest = Math.max(longest, performance.now() - Math.min(t0, last));
      last = performance.now();
      $('status').textContent = at < count ? 'Showing ' + at + ' of ' + count + ' lines...' : '';
      if (at < count) return requestAnimationFrame(step);
      const result = $('result');
      result.dataset.renderMs = (performance.now() - start).toFixed(1);
      result.dataset.longestChunkMs = longest.toFixed(1);
      result.dataset.chunks = String(chunks);
      done();
    };
    requestAnimationFrame(step);
  });
}

// Copies the answer as it came; where the Clipboard API is not offered (a page not served over
// https or from localhost), through a selected text area.
async function copy() {
  try {
    await navigator.clipboard.writeText(answerText);
  } catch (e) {
    const area = document.createElement('textarea');
    area.value = answerText;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  $('status').textContent = 'Copied.';
}

// A debug id goes to GET /lookup/; a file name is looked up as the module of a one-frame CoreCLR
// trace (?json=1), so both are answered by the same module index.
async function lookup() {
  const [module, method, il] = ['module', 'method', 'il'].map((id) => $(id).value.trim());
  showError('', 'lookup-error');
  $('lookup-out').textContent = '';
  let r;
  try {
    if (/^[0-9a-fA-F-]{32,}$/.test(module)) {
      const path = [module, method, il].map(encodeURIComponent).join('/');
      r = await fetch('lookup/' + path, { headers: headers(), cache: 'no-store' });
    } else {
      const row = /^0x/i.test(method) ? parseInt(method, 16) & 0xffffff : parseInt(method, 10);
      const offset = /^0x/i.test(il) ? parseInt(il, 16) : parseInt(il, 10);
      if (!(row > 0) || !(offset >= 0)) return showError('The method is a token (0x06000001) or a row, the IL offset a number.', 'lookup-error');
      const frame = '   at ? in ' + module + ':token 0x' + (0x06000000 + row).toString(16) + '+0x' + offset.toString(16) + '\n';
      r = await post('?json=1', new Blob([frame]));
    }
  } catch (e) {
    return showError(e.message, 'lookup-error');
  }
  if (!r.ok) return showError(explain(r.status, await errorOf(r)), 'lookup-error');
  const text = (await r.text()).trim();
  $('lookup-out').textContent = text ? JSON.stringify(JSON.parse(text), null, 2) : 'No frame was read from that module name.';
}

function init() {
  $('token').value = token();
  $('token').addEventListener('input', () => sessionStorage.setItem(kTokenKey, $('token').value.trim()));
  $('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(kTokenKey, $('token').value.trim());
    $('trace').focus();
  });
  $('trace-form').addEventListener('submit', (e) => { e.preventDefault(); symbolicate(); });
  $('trace').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); symbolicate(); }
  });
  $('trace').addEventListener('input', () => { droppedFile = null; });
  const useFile = async (file) => {
    droppedFile = file;
    $('trace').value = await file.text();
  };
  $('file').addEventListener('change', () => { if ($('file').files[0]) useFile($('file').files[0]); });
  $('trace').addEventListener('dragover', (e) => e.preventDefault());
  $('trace').addEventListener('drop', (e) => {
    if (!e.dataTransfer.files.length) return;
    e.preventDefault();
    useFile(e.dataTransfer.files[0]);
  });
  $('copy').addEventListener('click', copy);
  $('lookup-form').addEventListener('submit', (e) => { e.preventDefault(); lookup(); });
}

init();
