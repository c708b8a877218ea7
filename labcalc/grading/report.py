"""The HTML report of a graded class: what was asked, how each question went, and why.

Sections: summary (and the assignment: questions asked, points), distribution of the
totals, statistics per question (answered, not answered, right, mean score,
discrimination index, most frequent slip), item analysis (the most common wrong answers
of each question and the slip they correspond to), answers worth a look (hints, not
verdicts: :func:`labcalc.grading.analysis.worth_a_look`), slips over all answers, skipped
rows, and each student's answers with the expected value and the feedback. The expected
values can be held back until a deadline (``expected_after``): before it, the report
says when they will be shown.

Everything that comes from the students' file (ids, answers, and the messages that
quote them) goes through :func:`html.escape`; the page has no script and a content
security policy that forbids any, so a hostile answer stays text. Every table sits in a
box that scrolls sideways on a narrow window (a phone, a split screen) instead of
widening the page.

Examples
--------
>>> from labcalc.grading import grade, read_answers
>>> res = grade(read_answers(b"student,question,answer\\n<b>eve</b>,Q4,<script>1</script>\\n"), "lab5")
>>> page = res.report_html()
>>> "<script>" in page, "&lt;script&gt;" in page, "&lt;b&gt;eve&lt;/b&gt;" in page
(False, True, True)
"""

from __future__ import annotations

import datetime as _dt
import html
import math

__all__ = ["report_html", "expected_shown"]

#: At most this many skipped rows are listed (a hostile file could hold a million).
MAX_LISTED_PROBLEMS = 1000

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 90em;
       overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1.5em 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top;
         overflow-wrap: normal; }
td.text { min-width: 12em; overflow-wrap: anywhere; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.right td { background: #f3fbf3; } tr.partial td { background: #fffbea; }
tr.wrong td { background: #fdf1f1; } tr.blank td { color: #777; }
details { margin: 0.2em 0; } summary { cursor: pointer; }
.bar { display: inline-block; background: #4a7ebb; height: 0.8em; }
.hint { color: #555; }
@media (max-width: 40em) { body { margin: 0.5em; } th, td { padding: 0.2em 0.3em; } }
"""


def _e(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value), quote=True)


def _pct(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.0f} %"


def _num(x) -> str:
    return f"{x:.4g}"


def _table(head: list[str], rows: list[str]) -> str:
    """A table in a box that scrolls sideways when the window is narrower than it."""
    header = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f'<div class="scroll"><table><tr>{header}</tr>' + "".join(rows) + "</table></div>"


def _moment(value, what: str) -> _dt.datetime | None:
    """A moment (datetime, or ISO 8601 text such as ``2025-06-01T23:59``) as an aware datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = _dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{what} must be a date and time such as 2025-06-01T23:59; got {value!r}") from None
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        value = _dt.datetime.combine(value, _dt.time(23, 59, 59))
    if not isinstance(value, _dt.datetime):
        raise ValueError(f"{what} must be a date and time; got {value!r}")
    return value if value.tzinfo else value.astimezone()


def expected_shown(expected_after=None, now=None) -> bool:
    """Whether students' expected values may be shown: no deadline, or it has passed.

    Parameters
    ----------
    expected_after : datetime, date or str, optional
        The deadline (ISO 8601 text such as ``"2025-06-01T23:59"``; a date alone means
        its end; a time without a zone is local time).
    now : datetime, optional
        The present (for tests); the clock by default.

    Returns
    -------
    bool

    Examples
    --------
    >>> expected_shown(), expected_shown("2000-01-01T00:00"), expected_shown("2999-01-01")
    (True, True, False)
    """
    deadline = _moment(expected_after, "expected_after")
    if deadline is None:
        return True
    present = _moment(now, "now") if now is not None else _dt.datetime.now().astimezone()
    return present >= deadline


def report_html(result, title: str | None = None, *, expected_after=None, now=None) -> str:
    """Render a :class:`labcalc.grading.GradeResult` as a self-contained HTML page.

    Parameters
    ----------
    result : GradeResult
    title : str, optional
        Page title; ``"labcalc grading report: <lab>"`` (and the assignment's title) by default.
    expected_after : datetime, date or str, optional
        Hold the expected values back until this moment (see :func:`expected_shown`):
        a report made before it says when they will be shown instead of showing them.
    now : datetime, optional
        The present, for tests.

    Returns
    -------
    str
        The page (see the module documentation for its sections).

    Examples
    --------
    >>> from labcalc.grading import grade, read_answers
    >>> res = grade(read_answers(b"student,question,answer\\nada,Q4,4.69 Mbit/s\\n"), "lab5")
    >>> "4.6904 Mbit/s" in report_html(res), "4.6904" in report_html(res, expected_after="2999-01-01")
    (True, False)
    """
    task = getattr(result, "assignment", None)
    title = title or f"labcalc grading report: {result.lab}" + (f", {task.title}" if task and task.title else "")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{_e(result.summary())}. Answer key: {_e(result.accounting)} accounting; "
        f"source file: {_e(result.source)}.</p>",
    ]
    if task is not None:
        out.append(f"<p>Assignment {_e(task.source)}: {len(task.questions)} questions asked "
                   f"({_e(', '.join(task.questions))}), {_num(task.max_points)} points; percentages "
                   f"are of these points.</p>")
    notes = getattr(result, "notes", ())
    if notes:
        out.append("<p>Reading the file: " + "; ".join(_e(n) for n in notes) + ".</p>")
    out += _distribution(result.grades)
    out += _questions(result)
    if len(result.detail):
        out += _wrong_answers(result)
        out += _hints(result.detail, result.lab)
        out += _slips(result.detail)
    out += _problems(result.problems)
    out += _students(result, expected_after, now)
    out.append("</body></html>")
    return "\n".join(out)


def _distribution(grades) -> list[str]:
    if not len(grades):
        return []
    pct = grades["percent"].to_numpy(float)
    edges = list(range(0, 101, 10))
    counts = [int(((pct >= lo) & ((pct < lo + 10) if lo < 90 else (pct <= 100))).sum()) for lo in edges[:-1]]
    most = max(counts) or 1
    return ["<h2>Distribution of the totals</h2>", _table(["percent of the points", "students", ""], [
        f"<tr><td>{lo}-{lo + 10} %</td><td class=\"num\">{c}</td>"
        f"<td><span class=\"bar\" style=\"width:{12 * c / most:.1f}em\"></span></td></tr>"
        for lo, c in zip(edges[:-1], counts)])]


def _questions(result) -> list[str]:
    from labcalc.grading.diagnosis import SLIPS

    detail = result.detail
    variants = set(detail["variant"].tolist()) if len(detail) else set()
    asked = "what is asked (handout's numbers; each variant has its own)" if variants - {0} else "what is asked"
    rows = []
    for answer_id, row in result.stats.iterrows():
        top = row["top_diagnosis"]
        top_text = f"{top}: {SLIPS.get(top, '')} ({_pct(row['top_share'])})" if isinstance(top, str) else ""
        disc = row["discrimination"]
        rows.append(
            f"<tr><td>{_e(answer_id)}</td><td class=\"text\">{_e(row['item'])}</td>"
            f"<td class=\"num\">{_num(row['points'])}</td><td class=\"num\">{int(row['answered'])}</td>"
            f"<td class=\"num\">{int(row['blank'])}</td><td class=\"num\">{_pct(row['correct'])}</td>"
            f"<td class=\"num\">{_pct(row['mean_score'])}</td>"
            f"<td class=\"num\">{'' if math.isnan(disc) else f'{disc:.2f}'}</td>"
            f"<td class=\"text\">{_e(top_text)}</td></tr>")
    return ["<h2>Questions</h2>",
            '<p class="hint">Right: share of the answers given. Mean score: over the students asked, a '
            "question not answered scoring 0. Discrimination: correlation of the question's points with "
            "the points on the rest (around 0.3 or more separates stronger from weaker students; near 0 "
            "or below, look at the question).</p>",
            _table(["id", asked, "points", "answered", "not answered", "right", "mean score",
                    "discrimination", "most frequent slip (share of the wrong answers)"], rows)]


def _wrong_answers(result) -> list[str]:
    from labcalc.grading.analysis import common_wrong_answers
    from labcalc.grading.diagnosis import SLIPS

    rows = []
    for answer_id in result.stats.index:
        for g in common_wrong_answers(result.detail, answer_id):
            if g["ratio"] is not None:
                what = f"{g['ratio']:g} x the right value"
            elif g["value"] is not None:
                what = f"{g['value']:g} (the right value is 0)"
            else:
                what = "could not be read"
            slip = f"{g['slip']}: {SLIPS.get(g['slip'], '')}" if g["slip"] else "no slip recognised"
            rows.append(f"<tr><td>{_e(answer_id)}</td><td class=\"num\">{g['students']}</td>"
                        f"<td>{_e(what)}</td><td class=\"text\">{_e(slip)}</td>"
                        f"<td class=\"text\">{_e(g['example'])}</td></tr>")
    if not rows:
        return []
    return ["<h2>Most common wrong answers</h2>",
            '<p class="hint">Per question, up to three groups of wrong answers (not blanks), each as a '
            "multiple of the student's own right value, so that a slip made on different variants falls "
            "in one group.</p>",
            _table(["id", "students", "answer", "what it corresponds to", "for example"], rows)]


def _hints(detail, lab) -> list[str]:
    from labcalc.grading.analysis import worth_a_look

    hints = worth_a_look(detail, lab=lab)
    if not hints:
        return ["<h2>Worth a look</h2>", "<p>Nothing: no wrong answer is shared unusually.</p>"]
    return ["<h2>Worth a look</h2>",
            '<p class="hint">Hints, not verdicts: answers shared in a way that chance rarely produces. '
            "Each may have an honest reason.</p>",
            _table(["id", "students", "answer", "why"], [
                f"<tr><td>{_e(h['question'])}</td><td class=\"text\">{_e(', '.join(h['students']))}</td>"
                f"<td class=\"text\">{_e(h['answer'])}</td><td class=\"text\">{_e(h['kind'])}: "
                f"{_e(h['why'])}</td></tr>" for h in hints])]


def _slips(detail) -> list[str]:
    from labcalc.grading.diagnosis import SLIPS

    counts = detail["diagnosis"].dropna().value_counts()
    if not len(counts):
        return []
    return ["<h2>Slips over all answers</h2>", _table(["diagnosis", "meaning", "answers"], [
        f"<tr><td>{_e(code)}</td><td class=\"text\">"
        f"{_e(' + '.join(SLIPS.get(c, c) for c in str(code).split('+')))}</td>"
        f"<td class=\"num\">{int(n)}</td></tr>" for code, n in counts.items()])]


def _problems(problems) -> list[str]:
    listed = min(len(problems), MAX_LISTED_PROBLEMS)
    heading = (f"Skipped rows ({len(problems)}; the first {listed} are listed)"
               if len(problems) > MAX_LISTED_PROBLEMS else f"Skipped rows ({len(problems)})")
    out = [f"<h2>{_e(heading)}</h2>"]
    if not problems:
        return out + ["<p>None: every row was graded.</p>"]
    out.append(_table(["row", "reason"], [
        f"<tr><td class=\"num\">{p.row}</td><td class=\"text\">{_e(p.reason)}</td></tr>"
        for p in problems[:MAX_LISTED_PROBLEMS]]))
    if len(problems) > MAX_LISTED_PROBLEMS:
        out.append(f"<p>... and {len(problems) - MAX_LISTED_PROBLEMS} more, not listed "
                   f"(the command line prints them all with --problems).</p>")
    return out


def _students(result, expected_after, now) -> list[str]:
    from labcalc.grading.analysis import expected_text
    from labcalc.grading.check import display_scale

    detail = result.detail
    show = expected_shown(expected_after, now)
    out = ["<h2>Feedback per student</h2>"]
    if not show:
        out.append(f"<p>The expected values are held back until "
                   f"{_e(str(_moment(expected_after, 'expected_after')))}: make the report again after "
                   f"that moment to show them.</p>")
    if not len(detail):
        return out
    factors = {u: display_scale(u)[0] for u in set(detail["unit"])}
    # plain lists, one pass: a class of 1,000 x 50 answers is 50,000 rows
    cols = {c: detail[c].tolist() for c in ("student", "question", "answer", "diagnosis", "correct", "score",
                                            "expected", "unit", "tolerance", "points", "max_points", "message")}
    rows_of: dict[str, list[int]] = {}
    for i, student in enumerate(cols["student"]):
        rows_of.setdefault(student, []).append(i)
    for student, total, max_total, percent, variant in zip(
            result.grades["student"], result.grades["total"], result.grades["max_total"],
            result.grades["percent"], result.grades["variant"]):
        which = f"variant {int(variant)}" if variant >= 0 else "a variant per question"
        out.append(f"<details><summary>{_e(student)}: {_num(total)} / {_num(max_total)} "
                   f"points ({percent:.0f} %), {_e(which)}</summary>")
        rows = []
        for i in rows_of.get(student, []):
            blank = cols["diagnosis"][i] == "empty"
            css = ("blank" if blank else "right" if cols["correct"][i]
                   else "partial" if cols["score"][i] > 0 else "wrong")
            unit = cols["unit"][i]
            expected = (expected_text(cols["expected"][i], unit, factors[unit], cols["tolerance"][i]) if show
                        else "held back")
            rows.append(f"<tr class=\"{css}\"><td>{_e(cols['question'][i])}</td>"
                        f"<td class=\"text\">{_e('(not answered)' if blank else cols['answer'][i])}</td>"
                        f"<td class=\"num\">{_e(expected)}</td>"
                        f"<td class=\"num\">{_num(cols['points'][i])} / {_num(cols['max_points'][i])}</td>"
                        f"<td class=\"text\">{_e(cols['message'][i])}</td></tr>")
        out.append(_table(["id", "answer", "expected", "points", "feedback"], rows))
        out.append("</details>")
    return out
