#!/usr/bin/env python3
"""The HTML report in a real browser: renders a passing and a failing report, opens each in
headless Chromium, and asserts that the page loads with no console errors and that every image
(the error map, the speed charts) decodes. Saves a screenshot of each with --screenshots DIR
(docs/img/ holds the ones the docs show).

    check_report.py --work DIR [--screenshots DIR]

Exits 0 when both pages hold, 1 saying what failed, 77 (CTest's skip) when no Chromium is
installed. Registered as kit.report.browser (label `browser`) by grader/tests/CMakeLists.txt."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))              # grader/: tilelab
sys.path.insert(0, str(HERE.parent / "python"))        # the fake reports of the pytest suite
import fakes  # noqa: E402
from tilelab.report.formats import html  # noqa: E402

SKIP = 77
# Put first into a copy of the page: records error events (a script error, an image or other
# resource that fails to load) and console errors, then, once the page has loaded, whether each
# image decoded; Chromium's --dump-dom returns the DOM with the verdict in it.
PROBE = """<script>  // first in <head>: installed before anything else on the page runs
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || (e.target && (e.target.src || e.target.href)) || e)), true);
const __err = console.error; console.error = (...a) => { window.__errors.push(a.join(' ')); __err(...a); };
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const out = {images: imgs.length, broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt),
               sizes: imgs.map(i => [i.naturalWidth, i.naturalHeight]), errors: window.__errors};
  const pre = document.createElement('pre'); pre.id = 'tilelab-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def run(browser: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--disable-extensions", "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def console_errors(stderr: str) -> list[str]:
    """Console messages of level error that Chromium logged (lines 'CONSOLE(...)' after an ERROR tag)."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line and re.search(r":ERROR:|Uncaught", line)]


def check(browser: str, page: Path, want_images: int) -> list[str]:
    probe = page.with_name(page.stem + ".probe.html")
    text = page.read_text()
    probe.write_text(text.replace("<head>", "<head>\n" + PROBE, 1) if "<head>" in text else PROBE + text)
    p = run(browser, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    m = re.search(r'<pre id="tilelab-probe">(.*?)</pre>', p.stdout, re.S)
    if not m:
        return [f"{page.name}: the page did not finish loading in Chromium (exit {p.returncode}): {p.stderr[-1500:]}"]
    got = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    bad = []
    if got["errors"] or console_errors(p.stderr):
        bad.append(f"{page.name}: console errors {got['errors'] + console_errors(p.stderr)}")
    if got["broken"]:
        bad.append(f"{page.name}: images that did not load: {got['broken']}")
    if got["images"] < want_images:
        bad.append(f"{page.name}: {got['images']} images, expected at least {want_images}")
    print(f"{page.name}: {got['images']} images, all decoded ({got['sizes']}), no console errors"
          if not bad else "\n".join(bad))
    return bad


def screenshot(browser: str, page: Path, png: Path, height: int) -> list[str]:
    png.parent.mkdir(parents=True, exist_ok=True)
    p = run(browser, f"--screenshot={png}", f"--window-size=1100,{height}", page.as_uri())
    if not png.exists() or png.stat().st_size == 0:
        return [f"no screenshot of {page.name} (exit {p.returncode}): {p.stderr[-800:]}"]
    print(f"wrote {png}")
    return []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="check_report.py", description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--screenshots", type=Path, help="save report-passing.png and report-failing.png here")
    a = ap.parse_args(argv)
    browser = chromium()
    if browser is None:
        print("skipped: no Chromium here (Debian: apt-get install chromium; "
              "grader/setup/install-deps.sh installs it with TILELAB_BROWSER=1)")
        return SKIP
    a.work.mkdir(parents=True, exist_ok=True)
    passing, failing = fakes.report("alice", ratio=0.95, hidden=False), fakes.failing_report("bob")
    bad = []
    # Passing: the overall chart and each stage's speed chart. Failing: those and the error map.
    stages = len(passing.stages)
    for name, report, images in (("passing", passing, 1 + stages), ("failing", failing, 2 + stages)):
        page = a.work / f"report-{name}.html"
        page.write_text(html.render(report))
        bad += check(browser, page, images)
        if a.screenshots:
            bad += screenshot(browser, page, a.screenshots / f"report-{name}.png", 3300 if name == "failing" else 1500)
    if bad:
        print("the HTML report in Chromium: NOT as expected\n" + "\n".join(bad))
        return 1
    print("the HTML report in Chromium: both pages render, every image loads, no console errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
