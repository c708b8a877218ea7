"""Answer sheets of every shape (issue 20's answer-sheet surface, issue 23's layouts).

Property tests (hypothesis, derandomised; ``scripts/fuzz_long.py`` runs them with
thousands of fresh examples): a file built from pieces of real layouts -- labcalc's own
(student, question, answer[, variant]), Moodle's Responses report (identity columns,
State, Response n, Question n), a mapped layout -- with random headers, widths, delimiters,
quotes, byte-order marks, ``sep=`` lines, decimal commas, repeated and missing columns, rows
of the wrong length, is either read (then graded, every student getting a row of grades
within the points) or refused with :class:`labcalc.grading.AnswerFileError` naming the file.

The classes found by issue 20 are seeded examples: a header of 100,000 columns (700 KB;
the header check was quadratic, 110 s), with and without the required columns, and the
same width as Moodle response columns.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labcalc.grading import AnswerFileError, grade, read_answers
from labcalc.grading.assignment import assignment_from_text

SHEETS = settings(derandomize=True, deadline=None, max_examples=60,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_CELLS = st.sampled_from(["4.69 Mbit/s", "4,69 Mbit/s", "1066 bytes", "0,0619", "-", "", '"', '""', "=1+1",
                          "<b>x</b>", "Finished", "In progress", "U2501", "u2501", "v12", "12", "Q4", "q13.7",
                          "#3", "ada", "\ufeff", "\x00", "a\nb", "1.234,5 kbit/s", " ", ";", ",",
                          "'+4.69 Mbit/s", "'-0", "'=1+1", "'", "Submitted", "Never submitted", "Terminé"])
_HEADERS = st.sampled_from(["student", "question", "answer", "variant", "Student", "Username", "Email address",
                            "ID number", "State", "Response 1", "Response 2", "Response 13", "Question 1",
                            "Question 2", "Right answer 1", "Last name", "Grade/4.00", "response", "", "x",
                            "Antwort 1", "Matrikel"])

_LAB5 = assignment_from_text('lab = "lab5"\nquestions = ["Q3", "Q4", "Q13.7", "Q29"]\n')


@st.composite
def sheets(draw):
    header = draw(st.lists(_HEADERS, min_size=0, max_size=9))
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    n_rows = draw(st.integers(0, 6))
    rows = []
    for _ in range(n_rows):
        width = len(header) + draw(st.sampled_from([0, 0, 0, -1, 1]))
        rows.append([draw(_CELLS) for _ in range(max(width, 0))])

    def cell(text):
        return f'"{text.replace(chr(34), chr(34) * 2)}"' if (delimiter in text or '"' in text or "\n" in text) \
            else text

    lines = [delimiter.join(cell(h) for h in header)] + [delimiter.join(cell(c) for c in r) for r in rows]
    prefix = draw(st.sampled_from(["", "\ufeff", f"sep={delimiter}\n", "\n\n"]))
    text = prefix + draw(st.sampled_from(["\n", "\r\n"])).join(lines) + "\n"
    return text.encode(draw(st.sampled_from(["utf-8", "cp1252"])), errors="replace")


def _check(data: bytes, columns=None) -> None:
    try:
        sheet = read_answers(data, columns=columns)
    except AnswerFileError as exc:
        assert str(exc).startswith("answers: ")
        return
    df = sheet.answers
    assert list(df.columns) == ["row", "student", "question", "answer", "variant", "question_text"]
    assert (df["row"] >= 1).all() and df["student"].str.len().between(1, 64).all()
    # an LMS report's responses ("#n") need the assignment's slots; the others the lab
    slots = df["question"].str.startswith("#").any()
    result = grade(sheet, assignment=_LAB5) if slots else grade(sheet, "lab5")
    g = result.grades
    assert set(g["student"]) <= {s for s in df["student"]}
    assert g["total"].between(0, g["max_total"]).all()
    assert len(result.detail) + len(result.problems) >= len(df)


@SHEETS
@given(data=sheets())
@example(data=(",".join(["student", "question", "answer"] + [f"c{i}" for i in range(100_000)]) + "\n"
               + "ada,Q4,4.69 Mbit/s" + "," * 100_000 + "\n").encode())
@example(data=",".join(f"c{i}" for i in range(100_000)).encode())
@example(data=(",".join(["Username", "State"] + [f"Response {i}" for i in range(1, 100_001)]) + "\n"
               + "ada,Finished,1 ms\n").encode())
@example(data=b"student,student,question,answer\nada,ada,Q4,1\n")
@example(data=b"Username,Username,Response 1\nada,bob,1\n")
@example(data=b"sep=;\nstudent;question;answer\nada;Q4;4,690 Mbit/s\n")
@example(data=("\ufeffLast name,Email address,State,Response 1,Response 2\nDoe,'-x@u.edu,Submitted,"
               "\"'+1066 bytes\",'=1+1\n").encode())
def test_any_sheet_is_read_and_graded_or_refused_by_name(data):
    _check(data)


@SHEETS
@given(data=sheets(), mapping=st.dictionaries(
    st.sampled_from(["student", "question", "answer", "variant", "state", "response", "question_text",
                     "finished"]), _HEADERS, max_size=4))
def test_any_sheet_with_any_mapping(data, mapping):
    _check(data, mapping)

