"""The report folder as a static site, in headless Chromium, from the disk (no server).

Two reports are written from runs stored against the local fake model server, then the browser
opens ``index.html``, checks it lists both (newest first) with their figures, follows the newest
link, and checks on the report page that every chart drew (each Vega view exists and has data
marks), that nothing was fetched from the network, and that the console shows no error.
"""

from __future__ import annotations

import pytest

from tooleval_nb import Suite, Tool, report, save_suite

pytestmark = [pytest.mark.browser]

WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)

#: runs before any page script: records every view vegaEmbed makes (and every failure)
HOOK = """
window.__teViews = []; window.__teFailures = [];
let embed;
Object.defineProperty(window, 'vegaEmbed', {configurable: true, get() { return embed; },
  set(fn) {
    embed = Object.assign(function (el, spec, opt) {
      const done = fn(el, spec, opt);
      done.then(r => window.__teViews.push(r.view),
                e => window.__teFailures.push(String(e)));
      return done;
    }, fn);
  }});
"""

#: per view, how many items its data marks (role "mark", not groups) drew
MARKS = """
function count(node) {
  let n = 0;
  if (node.marktype && node.role === 'mark' && node.marktype !== 'group') {
    n += (node.items || []).length;
  }
  for (const item of node.items || []) { n += count(item); }
  return n;
}
return window.__teViews.map(v => count(v.scenegraph().root));
"""


@pytest.fixture
def site(fake_server, tmp_path):

    path = tmp_path / "weather.json"
    save_suite(
        Suite(
            name="weather",
            tools=[WEATHER],
            cases=[
                {
                    "name": f"c{i}",
                    "prompt": f"get_weather city Town{i}",
                    "expected_tool": "get_weather",
                    "expected_params": {"city": "Town0"},
                    "tags": ["smoke" if i == 0 else "other"],
                }
                for i in range(4)
            ],
        ),
        path,
    )
    store = str(tmp_path / "runs.sqlite")
    server = fake_server()
    params = report.validate_params(
        suites=[str(path)],
        models=["openai/fake"],
        api_base=server.url,
        store=store,
        cache=False,
        mode=["native", "hermes"],
    )
    run_ids = report.run_suites(params).run_ids
    folder = tmp_path / "site"
    report.build_report(folder, runs=run_ids, store=store, title="Older report", timeout=300)
    report.build_report(folder, runs=run_ids, store=store, title="Newest report", timeout=300)
    return folder


def test_index_and_report_open_offline_with_every_chart_drawn(site, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    browser.get((site / "index.html").as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.report")
    assert [r.find_element(By.TAG_NAME, "a").text for r in rows] == [
        "Newest report",
        "Older report",
    ]
    assert "0.700" in rows[0].text and "openai/fake" in rows[0].text  # the headline figures
    assert browser.get_log("browser") == []

    rows[0].find_element(By.TAG_NAME, "a").click()
    WebDriverWait(browser, 30).until(lambda d: "Newest report" in d.title)
    charts = len(browser.find_elements(By.CSS_SELECTOR, "div.tooleval-chart"))
    assert charts >= 8
    WebDriverWait(browser, 60).until(
        lambda d: (
            d.execute_script("return window.__teViews.length + window.__teFailures.length")
            >= charts
        ),
        "not every chart was embedded",
    )
    assert browser.execute_script("return window.__teFailures") == []
    marks = browser.execute_script(MARKS)
    assert len(marks) == charts and all(n > 0 for n in marks), marks
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert all(url.startswith(("file:", "data:", "blob:")) for url in fetched), fetched
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
