"""Every answer id a notebook lists can be checked (issue 19, item 8).

Notebook 00's table says, per notebook, which handout questions it covers and which
numeric answers ``check`` knows; the rest of each range must be named as free text.
Read from the notebook's own text (regular expressions) and compared with the lab's
answer key. Every ``check("Q...")`` call of any notebook names an answer id of the key,
or a question whose parts the key lists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from labcalc import grading
from labcalc.grading import answer_key

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
DASH = "\u2013"


def _source(name: str) -> str:
    cells = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells)


def _expand(text: str) -> list[str]:
    """'Q13.1–Q13.12, Q19' -> ['Q13.1', ..., 'Q13.12', 'Q19']; 'Q1–Q11' -> Q1..Q11."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part in ("", "none"):
            continue
        m = re.fullmatch(rf"Q(\d+)(?:\.(\d+))?(?:{DASH}Q(\d+)(?:\.(\d+))?)?", part)
        assert m, part
        q, a, q2, b = m.groups()
        if q2 is None:
            out.append(part)
        elif a is None:
            out += [f"Q{n}" for n in range(int(q), int(q2) + 1)]
        else:
            out += [f"Q{q}.{n}" for n in range(int(a), int(b) + 1)]
    return out


def test_notebook_00_lists_what_check_knows_and_names_the_free_text():
    text = _source("00-start-here.ipynb")
    rows = re.findall(r"^\| `(\d\d)-[\w-]+` \| (Q[^|]+?) \| ([^|]+?) \| [^|]+\|$", text, re.MULTILINE)
    assert len(rows) == 7
    key_ids = set(answer_key("lab5").ids)
    free = set(_expand(re.search(r"The other questions of each range \(([^)]*)\)", text.replace("\n", " "))
                       .group(1).replace(" and ", ", ")))
    listed = set()
    for _, handout, known in rows:
        ids = _expand(known)
        assert set(ids) <= key_ids, ids  # every listed id is checkable
        listed |= set(ids)
        # each handout question of the range is checkable (by its parts) or free text
        for q in _expand(handout):
            has_parts = q in key_ids or any(i.startswith(q + ".") for i in key_ids)
            assert has_parts != (q in free), q
    assert listed == key_ids  # and the table lists every answer of the key


def test_every_check_call_of_the_notebooks_names_a_known_answer():
    key = answer_key("lab5")
    seen = 0
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for qid in re.findall(r"""\bcheck\(\s*["'](Q[\d.]+)["']""", _source(path.name)):
            seen += 1
            assert qid in key.ids or key.parts(qid), (path.name, qid)
    assert seen > 20


def test_a_question_with_parts_is_not_unknown_to_the_grader():
    res = grading.grade(pd.DataFrame({"student": ["a"], "question": ["Q13"], "answer": ["1 Mbit/s"]}), "lab5")
    (problem,) = res.problems
    assert "'Q13' asks for 12 numbers; give each its own row with its id: Q13.1 (A1: goodput of h1 (UDP))" \
        in str(problem)
    assert "unknown question" not in str(problem)


@pytest.mark.parametrize("qid", ["Q1", "Q46", "Q53"])
def test_free_text_questions_are_not_in_the_key(qid):
    assert qid not in answer_key("lab5").ids and not answer_key("lab5").parts(qid)
