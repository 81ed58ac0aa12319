#!/usr/bin/env python3
"""End-to-end browser tests of the kiosk (issue #14, kiosk.md UI-8): Debian's chromium, driven
headless by Playwright for Python, against `edge run` and the stand-in backend.

    python3 Tests/Browser/run.py [--bin .build/debug] [--screenshots DIR]
                                 [--keep-screenshots docs/screenshots] [--only NAME,...] [--list]

Each scenario starts its own stand-in (`edge-standin --control --seed-demo-data`) and station
(`edge run` with a temporary edge.json and state directory), so they run in any order. Every
failure names the scenario, the check and what the page showed; the run then goes on with the
other scenarios and exits 1. A missing chromium, Playwright or build exits 2: a test CI needs
fails, it never skips.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def fail_setup(message):
    print(f"browser tests: FAIL: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/debug", help="directory holding edge and edge-standin (default .build/debug)")
    parser.add_argument("--chromium", default=os.environ.get("EDGE_CHROMIUM", "/usr/bin/chromium"),
                        help="the Chromium executable (default Debian's /usr/bin/chromium)")
    parser.add_argument("--screenshots", help="where screenshots go (default: a temporary directory, printed)")
    parser.add_argument("--keep-screenshots", metavar="DIR", help="copy the screens of the README (both orientations) here")
    parser.add_argument("--findings", metavar="FILE", help="append every failure, with the HTML seen, to this Markdown file")
    parser.add_argument("--only", help="comma-separated scenario names")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--headed", action="store_true", help="show the browser (needs a display)")
    args = parser.parse_args()

    try:
        from playwright.sync_api import sync_playwright, expect
    except ImportError as error:
        fail_setup(f"Playwright for Python is not installed ({error}); .ci/install-deps installs it (python3 -m pip install playwright)")
    import scenarios
    from harness import Failure

    if args.list:
        for name, function in scenarios.SCENARIOS:
            print(f"{name}: {' '.join((function.__doc__ or '').split())}")
        return 0
    selected = scenarios.SCENARIOS
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in dict(scenarios.SCENARIOS)]
        if unknown:
            fail_setup(f"no scenario named {', '.join(unknown)} (--list names them)")
        selected = [s for s in scenarios.SCENARIOS if s[0] in wanted]

    if not (os.path.isfile(args.chromium) and os.access(args.chromium, os.X_OK)):
        fail_setup(f"Chromium is not installed at {args.chromium} (Debian: apt-get install chromium; .ci/install-deps installs it)")
    try:
        import axe_playwright_python  # noqa: F401  (UI-9: a missing checker fails, it never skips)
    except ImportError:
        fail_setup("axe-playwright-python is not installed (python3 -m pip install axe-playwright-python; .ci/install-deps installs it)")
    bin_dir = os.path.abspath(args.bin)
    for tool in ("edge", "edge-agent", "edge-standin"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            fail_setup(f"{tool} is not built in {bin_dir} (swift build --build-tests; pass --bin \"$(swift build --show-bin-path)\")")

    work = tempfile.mkdtemp(prefix="edge-browser-")
    shots = os.path.abspath(args.screenshots) if args.screenshots else os.path.join(work, "screenshots")
    os.makedirs(shots, exist_ok=True)
    expect.set_options(timeout=10_000)

    results = []
    axe_runs = 0
    started = time.monotonic()
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=args.chromium, headless=not args.headed)
        except Exception as error:
            fail_setup(f"Chromium at {args.chromium} did not start under Playwright: {error}")
        print(f"browser tests: Chromium {browser.version}, edge from {bin_dir}, work in {work}", flush=True)
        for name, function in selected:
            stale = os.path.join(shots, f"FAILED-{name}.png")
            if os.path.exists(stale):
                os.remove(stale)
            test = Scenario(name, browser, bin_dir, os.path.join(work, name), shots, args.findings)
            began = time.monotonic()
            error = None
            try:
                function(test)
            except (Failure, AssertionError, Exception) as caught:  # every failure is reported, then the next scenario runs
                error = caught
                test.record_failure(caught, traceback.format_exc())
            finally:
                test.close()
            seconds = time.monotonic() - began
            failed = error is not None or bool(test.soft_failures)
            results.append((name, not failed, seconds))
            axe_runs += test.axe_runs
            status = "FAIL" if failed else "ok"
            print(f"browser tests: {status:4} {name} ({seconds:.1f} s)", flush=True)
            for line in test.report_lines():
                print("    " + line, flush=True)
        browser.close()

    total = time.monotonic() - started
    failed = [name for name, ok, _ in results if not ok]
    print(f"browser tests: {len(results) - len(failed)} of {len(results)} scenarios passed in {total:.0f} s; "
          f"axe-core checked {axe_runs} screens; screenshots in {shots}")
    if args.keep_screenshots:
        keep = os.path.abspath(args.keep_screenshots)
        os.makedirs(keep, exist_ok=True)
        kept = 0
        for screen in scenarios.SCREENS:
            for orientation in ("landscape", "portrait"):
                source = os.path.join(shots, f"{screen}-{orientation}.png")
                if os.path.exists(source):
                    shutil.copy2(source, os.path.join(keep, os.path.basename(source)))
                    kept += 1
        print(f"browser tests: kept {kept} screenshots in {keep}")
    if failed:
        print(f"browser tests: FAIL: {', '.join(failed)}", file=sys.stderr)
        return 1
    # Passed: the scenarios' state (databases, vault keys, logs) goes; the screenshots stay.
    for name, _, _ in results:
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    return 0


def brief(error):
    """An assertion's message without Playwright's call log (the HTML seen follows it)."""
    return str(error).split("Call log:")[0].strip()


class Scenario:
    """What one scenario uses: its processes, its browser pages, screenshots and findings."""

    LANDSCAPE = {"width": 1280, "height": 800}
    PORTRAIT = {"width": 800, "height": 1280}

    def __init__(self, name, browser, bin_dir, directory, shots, findings):
        from harness import blank_png
        self.name = name
        self.browser = browser
        self.bin_dir = bin_dir
        self.dir = directory
        self.shots = shots
        self.findings = findings
        os.makedirs(directory, exist_ok=True)
        blank_png(os.path.join(directory, "blank.png"))
        self.processes = []
        self.contexts = []
        self.pages = []
        self.requests_seen = {}
        self.api_calls = []
        self.soft_failures = []
        self.failure = None
        self.stations = []
        self.axe_runs = 0

    # -- processes
    def standin(self):
        from harness import Standin
        standin = Standin(self.bin_dir, self.dir)
        self.processes.append(standin)
        return standin

    def station(self, standin, name, **options):
        from harness import Station
        station = Station(self.bin_dir, self.dir, standin, name=name, **options)
        self.processes.append(station)
        self.stations.append(station)
        return station

    # -- pages
    def page(self, station, path):
        context = self.browser.new_context(viewport=self.LANDSCAPE)
        self.contexts.append(context)
        page = context.new_page()
        self.pages.append(page)
        # A trace for failure reports: where the focus went and what the live regions said, in order
        # (injected by Playwright, outside the page's Content-Security-Policy).
        page.add_init_script("""(() => {
            const trace = window.__trace = [];
            const t0 = performance.now();
            const note = (what) => { trace.push(Math.round(performance.now() - t0) + ' ms ' + what); if (trace.length > 200) trace.shift(); };
            document.addEventListener('focusin', (e) => note('focus ' + (e.target.id ? '#' + e.target.id : e.target.tagName)), true);
            document.addEventListener('DOMContentLoaded', () => {
                for (const id of ['announce', 'alert']) {
                    const el = document.getElementById(id);
                    if (el) new MutationObserver(() => { if (el.textContent) note(id + ': ' + el.textContent); }).observe(el, {childList: true, characterData: true, subtree: true});
                }
            });
        })()""")
        urls = self.requests_seen.setdefault(id(page), [])
        page.on("request", lambda request: urls.append(request.url))
        calls = self.api_calls
        page.on("response", lambda r: calls.append(f"{r.request.method} {r.url.split('/', 3)[-1]} -> {r.status}")
                if "/api/v1/" in r.url and "/events" not in r.url else None)
        page.on("requestfailed", lambda r: calls.append(f"{r.method} {r.url.split('/', 3)[-1]} -> failed {r.failure}")
                if "/api/v1/" in r.url and "/events" not in r.url else None)
        page.on("pageerror", lambda error: self.soft_failures.append(f"JavaScript error on {page.url}: {error}"))
        response = page.goto(station.url + path)
        if response is None or response.status != 200:
            from harness import Failure
            raise Failure(f"GET {path} answered {response.status if response else 'nothing'}")
        return page

    def request_urls(self, page):
        return list(self.requests_seen.get(id(page), []))

    def shot(self, page, screen):
        """The screen at 1280x800 landscape and 800x1280 portrait; at each, the layout checks of
        UI-6: nothing wider than the screen (no sideways scrolling on a kiosk) and touch targets
        at least 40 px high."""
        for orientation, size in (("landscape", self.LANDSCAPE), ("portrait", self.PORTRAIT)):
            page.set_viewport_size(size)
            page.screenshot(path=os.path.join(self.shots, f"{screen}-{orientation}.png"))
            layout = page.evaluate("""() => {
                const wide = document.documentElement.scrollWidth > window.innerWidth + 1;
                const small = Array.from(document.querySelectorAll('button, input:not([type=hidden]), select, nav a'))
                    .filter(e => e.offsetParent !== null && !e.closest('[hidden]'))
                    .filter(e => e.getBoundingClientRect().height < 40)
                    .map(e => e.outerHTML.slice(0, 120) + ' (' + Math.round(e.getBoundingClientRect().height) + ' px high)');
                return {wide: wide, width: document.documentElement.scrollWidth, small: small};
            }""")
            if layout["wide"]:
                self.finding(f"{screen} at {size['width']}x{size['height']}: the page is {layout['width']} px wide, wider than the "
                             "screen (sideways scrolling on a kiosk)", page, "main")
            if layout["small"]:
                self.finding(f"{screen} at {size['width']}x{size['height']}: touch targets under 40 px high: {layout['small'][:5]}",
                             page, "main")
            self.accessibility(page, f"{screen} at {size['width']}x{size['height']}")
        page.set_viewport_size(self.LANDSCAPE)

    def accessibility(self, page, what):
        """UI-9: axe-core (axe-playwright-python, injected by Playwright outside the page's CSP) on
        the page as it is: every serious or critical violation is a finding, with the rule, what
        it asks and the first elements it names."""
        from axe_playwright_python.sync_playwright import Axe
        results = Axe().run(page)
        self.axe_runs += 1
        for violation in results.response.get("violations", []):
            if violation.get("impact") not in ("serious", "critical"):
                continue
            nodes = [node.get("html", "")[:160] for node in violation.get("nodes", [])[:3]]
            self.finding(f"{what}: axe-core {violation['id']} ({violation['impact']}): {violation.get('help')}: {nodes}", page, "main")

    # -- checks
    def html(self, page, selector):
        try:
            locator = page.locator(selector)
            if locator.count():
                return locator.first.evaluate("e => e.outerHTML")[:4000]
            return f"(no element matches {selector}) body: " + page.evaluate("() => document.body.outerHTML")[:3000]
        except Exception as error:
            return f"(could not read the HTML: {error})"

    def check_html(self, what, check, page, selector):
        """A check that stops the scenario; its failure carries the HTML around `selector`."""
        from harness import Failure
        try:
            check()
        except (AssertionError, Failure) as error:
            raise Failure(f"{what}: {brief(error)}\nURL {page.url}\nHTML of {selector}:\n{self.html(page, selector)}") from None

    def soft(self, what, check, page, selector):
        """A check whose failure is recorded (the scenario fails) while the scenario goes on."""
        from harness import Failure
        try:
            check()
        except (AssertionError, Failure) as error:
            self.finding(f"{what}: {brief(error)}", page, selector)

    def finding(self, what, page, selector):
        message = f"{what}\nURL {page.url}\nHTML of {selector}:\n{self.html(page, selector)}"
        try:
            message += f"\nthe page's last API calls: {self.api_calls[-8:]}"
            message += f"\nfocus and announcements: {page.evaluate('() => (window.__trace || []).slice(-12)')}"
        except Exception:
            pass
        self.soft_failures.append(message)
        self.write_finding(message)

    def record_failure(self, error, trace):
        detail = str(error).strip() or repr(error)
        where = [line for line in trace.splitlines() if "scenarios.py" in line]
        self.failure = detail + (f"\n(at {where[-1].strip()})" if where else "")
        if self.pages:
            page = self.pages[-1]
            try:
                spoken = page.evaluate("""() => ['#alert', '#announce'].map(s => {
                    const e = document.querySelector(s); return s + ': ' + JSON.stringify(e ? e.textContent : null) }).join('; ')""")
                self.failure += f"\nlive regions: {spoken}\nthe page's last API calls: {self.api_calls[-8:]}"
                self.failure += f"\nfocus and announcements: {page.evaluate('() => (window.__trace || []).slice(-12)')}"
                if "HTML of" not in detail:
                    self.failure += f"\nURL {page.url}\nHTML of main:\n{self.html(page, 'main')}"
            except Exception:
                pass
        for page in self.pages[-1:]:
            try:
                page.screenshot(path=os.path.join(self.shots, f"FAILED-{self.name}.png"))
            except Exception:
                pass
        for station in self.stations[-1:]:
            from harness import tail
            self.failure += f"\nlast lines of the agent's log ({station.log_path}):\n{tail(station.log_path, 15)}"
        self.write_finding(self.failure)

    def write_finding(self, message):
        if not self.findings:
            return
        with open(self.findings, "a") as handle:
            handle.write(f"\n## {self.name} ({time.strftime('%H:%M:%S')})\n\n```\n{message.strip()}\n```\n")

    def report_lines(self):
        lines = []
        for message in self.soft_failures + ([self.failure] if self.failure else []):
            lines.extend(message.splitlines()[:40])
        return lines

    def close(self):
        for context in self.contexts:
            try:
                context.close()
            except Exception:
                pass
        for process in reversed(self.processes):
            try:
                process.stop()
            except Exception as error:
                self.soft_failures.append(f"stopping {process}: {error}")


if __name__ == "__main__":
    sys.exit(main())
