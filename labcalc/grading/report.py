"""The HTML report of a graded class: statistics per question, problems, feedback.

Everything that comes from the students' file (ids, answers, and the messages that
quote them) goes through :func:`html.escape`; the page has no script and a content
security policy that forbids any, so a hostile answer stays text.

Examples
--------
>>> from labcalc.grading import grade, read_answers
>>> res = grade(read_answers(b"student,question,answer\\n<b>eve</b>,Q4,<script>1</script>\\n"), "lab5")
>>> page = res.report_html()
>>> "<script>" in page, "&lt;script&gt;" in page, "&lt;b&gt;eve&lt;/b&gt;" in page
(False, True, True)
"""

from __future__ import annotations

import html
import math

__all__ = ["report_html"]

#: At most this many skipped rows are listed (a hostile file could hold a million).
MAX_LISTED_PROBLEMS = 1000

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 70em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.right td { background: #f3fbf3; } tr.partial td { background: #fffbea; }
tr.wrong td { background: #fdf1f1; }
details { margin: 0.2em 0; } summary { cursor: pointer; }
.bar { display: inline-block; background: #4a7ebb; height: 0.8em; }
"""


def _e(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value), quote=True)


def _pct(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.0f} %"


def _num(x) -> str:
    return f"{x:.4g}"


def report_html(result, title: str | None = None) -> str:
    """Render a :class:`labcalc.grading.GradeResult` as a self-contained HTML page.

    Parameters
    ----------
    result : GradeResult
    title : str, optional
        Page title; ``"labcalc grading report: <lab>"`` by default.

    Returns
    -------
    str
        The page: summary, distribution of totals, statistics per question (share
        right, mean score, most frequent slip), slips overall, skipped rows, and each
        student's answers with their feedback messages.
    """
    from labcalc.grading.diagnosis import SLIPS

    title = title or f"labcalc grading report: {result.lab}"
    detail, grades, stats = result.detail, result.grades, result.stats
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(result.summary())}. Answer key: {_e(result.accounting)} accounting; "
        f"source file: {_e(result.source)}.</p>",
    ]
    notes = getattr(result, "notes", ())
    if notes:
        out.append("<p>Reading the file: " + "; ".join(_e(n) for n in notes) + ".</p>")

    # distribution of the totals
    if len(grades):
        pct = grades["percent"].to_numpy(float)
        out.append("<h2>Distribution of the totals</h2><table><tr><th>percent of the points</th>"
                   "<th>students</th><th></th></tr>")
        edges = list(range(0, 101, 10))
        counts = [int(((pct >= lo) & ((pct < lo + 10) if lo < 90 else (pct <= 100))).sum())
                  for lo in edges[:-1]]
        most = max(counts) or 1
        for lo, c in zip(edges[:-1], counts):
            hi = lo + 10
            out.append(f"<tr><td>{lo}-{hi} %</td><td class=\"num\">{c}</td>"
                       f"<td><span class=\"bar\" style=\"width:{20 * c / most:.1f}em\"></span></td></tr>")
        out.append("</table>")

    # per question
    variants = set(detail["variant"].tolist()) if len(detail) else set()
    asked = ("what is asked (with the handout's numbers; each variant has its own)"
             if variants - {0} else "what is asked")
    out.append(f"<h2>Questions</h2><table><tr><th>id</th><th>{_e(asked)}</th><th>points</th>"
               "<th>answered</th><th>right</th><th>mean score</th><th>most frequent slip</th>"
               "<th>share of the wrong answers</th></tr>")
    for answer_id, row in stats.iterrows():
        top = row["top_diagnosis"]
        top_text = f"{top}: {SLIPS.get(top, '')}" if isinstance(top, str) else ""
        out.append(
            f"<tr><td>{_e(answer_id)}</td><td>{_e(row['item'])}</td><td class=\"num\">{_num(row['points'])}</td>"
            f"<td class=\"num\">{int(row['answered'])}</td><td class=\"num\">{_pct(row['correct'])}</td>"
            f"<td class=\"num\">{_pct(row['mean_score'])}</td><td>{_e(top_text)}</td>"
            f"<td class=\"num\">{_pct(row['top_share'])}</td></tr>")
    out.append("</table>")

    # slips overall
    if len(detail):
        counts = detail["diagnosis"].dropna().value_counts()
        if len(counts):
            out.append("<h2>Slips over all answers</h2><table><tr><th>diagnosis</th><th>meaning</th>"
                       "<th>answers</th></tr>")
            for code, n in counts.items():
                meaning = " + ".join(SLIPS.get(c, c) for c in str(code).split("+"))
                out.append(f"<tr><td>{_e(code)}</td><td>{_e(meaning)}</td><td class=\"num\">{int(n)}</td></tr>")
            out.append("</table>")

    # problems
    listed = min(len(result.problems), MAX_LISTED_PROBLEMS)
    heading = (f"Skipped rows ({len(result.problems)}; the first {listed} are listed)"
               if len(result.problems) > MAX_LISTED_PROBLEMS else f"Skipped rows ({len(result.problems)})")
    out.append(f"<h2>{_e(heading)}</h2>")
    if result.problems:
        out.append("<table><tr><th>row</th><th>reason</th></tr>")
        for p in result.problems[:MAX_LISTED_PROBLEMS]:
            out.append(f"<tr><td class=\"num\">{p.row}</td><td>{_e(p.reason)}</td></tr>")
        out.append("</table>")
        if len(result.problems) > MAX_LISTED_PROBLEMS:
            out.append(f"<p>... and {len(result.problems) - MAX_LISTED_PROBLEMS} more, not listed "
                       f"(the command line prints them all with --problems).</p>")
    else:
        out.append("<p>None: every row was graded.</p>")

    # per student
    out.append("<h2>Feedback per student</h2>")
    if len(detail):
        totals = grades.set_index("student")
        for student, g in detail.groupby("student", sort=True):
            t = totals.loc[student]
            out.append(f"<details><summary>{_e(student)}: {_num(t['total'])} / {_num(t['max_total'])} "
                       f"points ({t['percent']:.0f} %), variant {int(t['variant'])}</summary>")
            out.append("<table><tr><th>id</th><th>answer</th><th>points</th><th>feedback</th></tr>")
            for r in g.itertuples(index=False):
                css = "right" if r.correct else ("partial" if r.score > 0 else "wrong")
                out.append(f"<tr class=\"{css}\"><td>{_e(r.question)}</td><td>{_e(r.answer)}</td>"
                           f"<td class=\"num\">{_num(r.points)} / {_num(r.max_points)}</td>"
                           f"<td>{_e(r.message)}</td></tr>")
            out.append("</table></details>")
    out.append("</body></html>")
    return "\n".join(out)
