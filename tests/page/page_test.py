#!/usr/bin/python3
# page_test.py ILMAP CORPUS OUT_DIR - the page of `ilmap serve` (issue 46, docs/serve.md "The
# page") in a real browser: Debian's headless Chromium driven through Selenium. Two servers on
# 127.0.0.1 over the corpus' search folder: A asks for a bearer token, B does not and has a small
# --max-body. Checked in the DOM, against what `ilmap symbolicate` prints for the same input:
#   - the page and its files load with no token, under a Content-Security-Policy, and the browser
#     reports no violation of it;
#   - without the token and with a wrong one, the service's 401 message is shown;
#   - the recorded CoreCLR trace, pasted (through the clipboard) and sent with the button: every
#     frame the CLI resolves shows the same file:line:column, every frame it leaves shows its
#     reason, the summary gives the CLI's counts, each line is the CLI's line;
#   - the copied text and the downloaded file equal the CLI's output byte for byte;
#   - a prefixed log (journald) keeps its prefixes and other lines;
#   - the lookup form, by debug id and by file name, answers the CLI's line;
#   - 10,000 frames are shown in chunks (the times are printed: the figure in docs/serve.md);
#   - on B, with no token, the trace again; a paste over --max-body shows the 413 explained.
# The screenshot of a narrow window (OUT_DIR/serve-page.png) is taken after the trace on A.
# Run by Debian's own /usr/bin/python3 (python3-selenium); exit 77 (skip) with the reason when
# Chromium, its driver or Selenium are absent (scripts/install-deps.sh installs them).
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service as DriverService
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:
    skip("python3-selenium is not installed for %s (%s): scripts/install-deps.sh installs it" % (sys.executable, e))

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
for path, package in ((CHROMIUM, "chromium"), (DRIVER, "chromium-driver")):
    if not os.access(path, os.X_OK):
        skip("%s is not installed (Debian package %s; scripts/install-deps.sh installs it)" % (path, package))

ilmap, corpus, out_dir = sys.argv[1:4]
search = os.path.join(corpus, "out", "cs-frames")
trace_file = os.path.join(corpus, "traces", "cs-frames.il-offsets.txt")
log_file = os.path.join(corpus, "traces", "logs", "journald.short.txt")
failures = []


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "\n  " + str(detail)[:2000]))
    if not ok:
        failures.append(what)


work = tempfile.mkdtemp(prefix="ilmap-page.")
servers = []


def serve(name, *args):
    """Starts `ilmap serve --port 0` and returns its URL, read from its first line."""
    log = open(os.path.join(work, name + ".log"), "w+")
    p = subprocess.Popen([ilmap, "serve", "--port", "0", "--search", search, "--cache-dir",
                          os.path.join(work, "cache-" + name)] + list(args), stderr=log)
    servers.append(p)
    for _ in range(200):
        log.seek(0)
        m = re.match(r"ilmap serve: listening on (http://127\.0\.0\.1:\d+)\n", log.readline())
        if m:
            return m.group(1) + "/"
        if p.poll() is not None:
            break
        time.sleep(0.05)
    log.seek(0)
    sys.exit("FAIL: server %s did not start: %s" % (name, log.read()))


def cli(*args, input_file):
    r = subprocess.run([ilmap, "symbolicate", "--search", search, "--cache-dir", os.path.join(work, "cache-cli")] +
                       list(args) + [input_file], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return r.stdout, r.stderr.decode()


with open(os.path.join(work, "token"), "w") as f:
    f.write("s3cret-page-token\n")
url_a = serve("A", "--token-file", os.path.join(work, "token"))
url_b = serve("B", "--max-body", "64KiB")

# The page's files as compiled in: the bytes of serve/page/, with no token asked.
page_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "serve", "page")
for path, name in (("", "index.html"), ("page.css", "page.css"), ("page.js", "page.js")):
    try:
        with urllib.request.urlopen(url_a + path) as r:
            body, policy = r.read(), r.headers.get("Content-Security-Policy", "")
            check("GET /%s: serve/page/%s byte for byte, under its policy" % (path, name),
                  body == open(os.path.join(page_dir, name), "rb").read() and "default-src 'none'" in policy,
                  (len(body), policy))
    except urllib.error.HTTPError as e:
        check("GET /%s with no token: 200" % path, False, "%d %s" % (e.code, e.read()[:200]))
if failures:
    for p in servers:
        p.kill()
    sys.exit("FAIL: the service does not serve the page")

downloads = os.path.join(work, "downloads")
os.makedirs(downloads)
options = Options()
options.binary_location = CHROMIUM
for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,900",
            "--no-first-run", "--disable-extensions", "--user-data-dir=" + os.path.join(work, "profile")):
    options.add_argument(arg)
options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                          "download.prompt_for_download": False})
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=DriverService(DRIVER), options=options)
driver.set_script_timeout(60)


def js(script, *args):
    return driver.execute_script(script, *args)


def wait_for(what, condition, timeout=30):
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition())
        return True
    except Exception:
        check(what, False, "timed out after %d s; status: %r, error: %r" % (
            timeout, js("return document.getElementById('status').textContent"),
            js("return document.getElementById('error').textContent")))
        return False


def paste(text):
    """A real paste: the text on the clipboard, then Ctrl+V in the text box."""
    js("arguments[0].value = ''", driver.find_element(By.ID, "trace"))
    driver.execute_async_script("navigator.clipboard.writeText(arguments[0]).then(arguments[1], e => arguments[1](String(e)))", text)
    area = driver.find_element(By.ID, "trace")
    area.click()
    area.send_keys(Keys.CONTROL, "v")
    return area.get_attribute("value")


def set_text(text):
    """Puts a large text in the box at once (typing or pasting megabytes through the driver is slow)."""
    js("const a = document.getElementById('trace'); a.value = arguments[0]; a.dispatchEvent(new Event('input'))", text)


def submit_and_wait():
    """Presses the button and waits until the answer is shown or an error is."""
    js("document.getElementById('result').removeAttribute('data-render-ms');"
       "document.getElementById('result').hidden = true; document.getElementById('error').textContent = ''")
    driver.find_element(By.ID, "go").click()
    return wait_for("an answer or an error", lambda: js(
        "const r = document.getElementById('result'); return r.dataset.renderMs !== undefined || "
        "document.getElementById('error').textContent !== ''"))


def shown():
    """The page's rows: each line's text, and per frame its place or reason."""
    return js("""
      const rows = [...document.querySelectorAll('#lines li')];
      return {
        lines: rows.map(li => li.firstChild ? li.firstChild.textContent : ''),
        locs: [...document.querySelectorAll('#lines .loc')].map(e => e.textContent),
        reasons: [...document.querySelectorAll('#lines .reason')].map(e => e.textContent),
        summary: document.getElementById('summary').textContent,
        reasonItems: [...document.querySelectorAll('#reasons li')].map(e => e.textContent),
        error: document.getElementById('error').textContent,
      };""")


def expected(input_file):
    """What the CLI prints, and its frames as the page shows them."""
    text, err = cli(input_file=input_file)
    frames = [json.loads(l) for l in cli("--json", input_file=input_file)[0].decode().splitlines() if l]
    locs = ["%s:%d:%d" % (f["file"], f["line"], f["column"]) for f in frames if f["resolved"]]
    reasons = [f["reason"] + (" (%s)" % f["module"] if f["reason"] == "module not found" else "")
               for f in frames if not f["resolved"]]
    return text, err, locs, reasons


try:
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": url_a.rstrip("/"),
                                                        "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})

    # The page loads without a token (the address bar cannot send one) under its policy.
    driver.get(url_a)
    check("the page loads from GET / with no token", driver.title.startswith("ilmap"), driver.title)
    trace = open(trace_file, "rb").read().decode()
    pasted = paste(trace)
    check("the trace is pasted into the text box", pasted == trace, "%d of %d characters" % (len(pasted), len(trace)))

    # No token, then a wrong one: the service's 401 message.
    submit_and_wait()
    error = shown()["error"]
    check("no token: the 401 message", "401" in error and "this server asks for a bearer token" in error, error)
    token_box = driver.find_element(By.ID, "token")
    token_box.send_keys("wrong-token")
    submit_and_wait()
    error = shown()["error"]
    check("a wrong token: the 401 message", "401" in error and "the bearer token is not the one this server was given" in error, error)
    check("a 401 puts the focus on the token box", js("return document.activeElement.id") == "token")
    token_box.clear()
    token_box.send_keys("s3cret-page-token")

    # The trace, answered as the CLI answers it.
    cli_text, cli_err, cli_locs, cli_reasons = expected(trace_file)
    started = time.monotonic()
    submit_and_wait()
    print("the trace (%d frames) shown %.0f ms after the click" % (len(cli_locs) + len(cli_reasons),
                                                                     (time.monotonic() - started) * 1000))
    page = shown()
    check("the trace: no error", page["error"] == "", page["error"])
    check("every frame the CLI resolves shows the CLI's file:line:column, in order", page["locs"] == cli_locs,
          (page["locs"][:5], cli_locs[:5], len(page["locs"]), len(cli_locs)))
    check("every frame the CLI leaves shows its reason", page["reasons"] == cli_reasons, (page["reasons"], cli_reasons))
    check("the rows are the CLI's lines", page["lines"] == cli_text.decode().split("\n")[:-1],
          (page["lines"][:3], len(page["lines"])))
    m = re.match(r"ilmap symbolicate: (\d+) frames, (\d+) resolved, (\d+) unresolved \((.*)\)$", cli_err.splitlines()[0])
    check("the summary gives the CLI's counts", m and page["summary"] == "%s frames, %s resolved, %s unresolved" % m.groups()[:3],
          (page["summary"], cli_err))
    check("the summary gives each reason as the CLI does", m and page["reasonItems"] == [m.group(4)], (page["reasonItems"], cli_err))

    # The screenshot: a narrow window, the top of the answer in view.
    driver.set_window_size(480, 1000)
    js("document.getElementById('summary').scrollIntoView()")
    js("window.scrollBy(0, -260)")
    png = os.path.join(out_dir, "serve-page.png")
    driver.save_screenshot(png)
    print("screenshot: %s (%d bytes)" % (png, os.path.getsize(png)))
    check("a narrow window does not scroll sideways", js("return document.documentElement.scrollWidth <= window.innerWidth"),
          js("return [document.documentElement.scrollWidth, window.innerWidth]"))
    driver.set_window_size(1100, 900)

    # Copy and download: the CLI's bytes.
    driver.find_element(By.ID, "copy").click()
    copied = driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('ERROR ' + e))")
    check("the copied text is the CLI's output byte for byte", copied.encode() == cli_text, copied[:300])
    driver.find_element(By.ID, "download").click()
    target = os.path.join(downloads, "symbolicated.txt")
    for _ in range(100):
        if os.path.exists(target):
            break
        time.sleep(0.05)
    check("the downloaded file is the CLI's output byte for byte",
          os.path.exists(target) and open(target, "rb").read() == cli_text, os.listdir(downloads))

    # A prefixed log: its prefixes and other lines kept.
    log_text, _, log_locs, log_reasons = expected(log_file)
    set_text(open(log_file, "rb").read().decode())
    submit_and_wait()
    page = shown()
    check("a journald log: every line is the CLI's line, prefixes kept", page["lines"] == log_text.decode().split("\n")[:-1],
          page["lines"][:4])
    check("a journald log: the CLI's places and reasons", page["locs"] == log_locs and page["reasons"] == log_reasons,
          (page["locs"], page["reasons"]))

    # The lookup form, by debug id and by file name.
    for module in ("6c544a86-3ccb-4fa9-810a-691444a2b613-d4ed59c0", "Ilmap.Corpus.Frames.dll"):
        for field, value in (("module", module), ("method", "0x0600000a"), ("il", "0x7")):
            box = driver.find_element(By.ID, field)
            box.clear()
            box.send_keys(value)
        js("document.getElementById('lookup-out').textContent = ''")
        box.send_keys(Keys.ENTER)  # the keyboard submits the form
        wait_for("a lookup answer", lambda: js("return document.getElementById('lookup-out').textContent !== '' || "
                                               "document.getElementById('lookup-error').textContent !== ''"))
        answer = js("return document.getElementById('lookup-out').textContent")
        check("lookup by %s: Scenarios.cs line 37" % module,
              '"/_/Frames/Scenarios.cs"' in answer and '"line": 37' in answer, answer)

    # 10,000 frames: every one shown, in chunks; the times are the figure docs/serve.md gives.
    lines = [l for l in trace.split("\n") if ":token 0x" in l]
    big = "\n".join((lines * (10000 // len(lines) + 1))[:10000]) + "\n"
    set_text(big)
    started = time.monotonic()
    submit_and_wait()
    click_ms = (time.monotonic() - started) * 1000
    figures = js("const d = document.getElementById('result').dataset; return [d.renderMs, d.longestChunkMs, d.chunks]")
    count = js("return document.querySelectorAll('#lines li.frame').length")
    print("10,000 frames: shown %.0f ms after the click; rendering %s ms in %s chunks, the longest %s ms" %
          (click_ms, figures[0], figures[2], figures[1]))
    check("10,000 frames: every one shown", count == 10000, count)
    check("10,000 frames: rendered in chunks", int(figures[2] or 0) >= 20, figures)

    # B: no token asked; the trace again, then a paste over --max-body.
    driver.get(url_b)
    set_text(trace)
    submit_and_wait()
    page = shown()
    check("no token on the service: the trace answered", page["error"] == "" and page["locs"] == cli_locs, page["error"])
    set_text("x" * (100 * 1024))
    submit_and_wait()
    error = shown()["error"]
    check("a paste over --max-body: the 413 explained", "413" in error and "--max-body" in error and "smaller parts" in error, error)

    logs = driver.get_log("browser")
    csp = [l for l in logs if "Content Security Policy" in l.get("message", "")]
    check("the browser reports no Content-Security-Policy violation", not csp, csp)
finally:
    driver.quit()
    for p in servers:
        p.kill()
        p.wait()
    shutil.rmtree(work, ignore_errors=True)

if failures:
    print("%d check(s) failed: %s" % (len(failures), "; ".join(failures)))
    sys.exit(1)
print("all checks passed")
