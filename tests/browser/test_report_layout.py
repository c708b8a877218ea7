"""The grading report in headless Chromium: no table overflows the page, at 420 px and at 1280 px (issue 23 item 4).

A report of a class with long student ids and answers is opened as a file (the page
forbids scripts; the test's own checks run through the browser's devtools). Every
``<details>`` is opened, a full-page screenshot goes to build/screenshots/ (ignored by
git), and the page is measured: nothing is wider than the window, every table sits in a
box inside the window, and at 420 px the wide tables scroll inside their box.

Skipped (with the reason) when Chromium or Playwright is missing, unless
LABCALC_REQUIRE_BROWSER=1 (``make test-browser``), where a missing browser fails.
"""

from __future__ import annotations

import pytest

from labcalc import grading
from tests.browser.test_jupyterlab import SHOTS, _MISSING, chromium  # noqa: F401 - the same browser fixture

pytestmark = pytest.mark.skipif(_MISSING is not None, reason=f"browser test skipped: {_MISSING}")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    df = grading.simulate_class(8, lab="lab5", seed=4, salt="layout", answers_per_student=13)
    df = df.drop(columns="variant")  # the salt gives the variants, whatever the ids
    df.loc[df["student"] == "s0001", "student"] = "a.student.with.a.long.id@institution-long-name.example.edu"
    df.loc[3, "answer"] = "4.69 Mbit/s (I used the formula from the lecture slides, page 12, with headers)"
    path = tmp_path_factory.mktemp("report") / "report.html"
    result = grading.grade(df, "lab5", salt="layout")
    assert result.problems == ()
    result.write_report(path)
    return path


_MEASURE = """() => {
    document.querySelectorAll('details').forEach(d => d.open = true);
    const width = window.innerWidth;
    const boxes = [...document.querySelectorAll('table')].map(t => {
        const box = t.parentElement;
        const r = box.getBoundingClientRect();
        return {inBox: box.classList.contains('scroll'), left: r.left, right: r.right,
                scrolls: box.scrollWidth > box.clientWidth + 1};
    });
    return {width, page: document.documentElement.scrollWidth, body: document.body.scrollWidth, boxes};
}"""


@pytest.mark.parametrize("width", [420, 1280])
def test_no_table_overflows_the_page(chromium, report, width):  # noqa: F811 - the imported fixture
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = chromium.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(report.as_uri())
        m = page.evaluate(_MEASURE)
        page.screenshot(path=str(SHOTS / f"report-{width}px.png"), full_page=True)
    finally:
        page.close()
    assert m["width"] == width
    assert m["page"] <= width and m["body"] <= width, m
    assert len(m["boxes"]) > 10
    for box in m["boxes"]:
        assert box["inBox"] and box["left"] >= 0 and box["right"] <= width + 0.5, box
    if width == 420:
        # the wide tables (questions, feedback) are wider than a phone: they scroll in their box
        assert sum(b["scrolls"] for b in m["boxes"]) >= 2
