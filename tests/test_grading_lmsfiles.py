"""The LMS's files in and out: Moodle's quiz Responses report read, Moodle's grade import written (issue 23 item 3).

The files are built here as Moodle's own code and documentation lay them out, never
with labcalc's writers:

- **Responses report download** (``mod/quiz/report/responses/report.php`` and
  ``last_responses_table.php``; the column headers from ``attempts_report.php``
  ``add_user_columns`` / ``add_time_columns`` / ``add_grade_columns`` and the language
  strings ``lastname`` "Last name" (older sites: "Surname"), ``firstname`` "First name",
  the identity fields "Email address" / "Username" / "ID number", ``attemptstate``
  "State", ``startedon`` "Started on", ``timecompleted`` "Completed",
  ``attemptduration`` "Time taken", ``gradenoun`` "Grade/<max>", and per slot
  ``questionx`` "Question n", ``responsex`` "Response n", ``rightanswerx`` "Right
  answer n"); a slot without a response is downloaded as ``-``, the grade of an
  unfinished attempt as ``-``; the CSV data format writes UTF-8 with a byte-order mark.
  The question text of a slot is Moodle's plain-text summary of the question's HTML
  (entities decoded).
- **Grade import** (Moodle docs, "Grade import", CSV import; Moodle 5.1's
  ``public/grade/import/csv/classes/load_data.php``): the file's identifier column is
  mapped to ``useremail``, ``username`` or ``useridnumber``; ``check_user_exists``
  matches an email address or a username without regard to case
  (``sql_equal(..., false)``), an ID number exactly, and an unknown user stops the
  whole import; a grade cell is read by ``unformat_float`` (a decimal point), ``-`` or
  empty is no grade, and ``insert_grade_record`` stops the whole import at a grade
  above the grade item's maximum (or below its minimum) unless the site allows
  unlimited grades; columns that are not mapped are ignored (the mapping form's
  default for a column is "Ignore"); the reader drops a byte-order mark
  (``csv_import_reader::load_csv_content``).
"""

from __future__ import annotations

import csv
import html
import io
import re
from xml.etree.ElementTree import fromstring

import pytest

from labcalc import grading
from labcalc.cli import main
from labcalc.grading.assignment import assignment_from_text
from labcalc.grading.lmsfiles import moodle_grade_import

ASKED = ["Q3", "Q4", "Q13.7", "Q29"]
TASK = assignment_from_text(f'lab = "lab5"\ntitle = "Lab 5 quiz"\nquestions = {ASKED!r}\n'
                            f'[export]\nvariants = 4\nfirst_seed = 1\n'.replace("'", '"'))
HEAD = ["Last name", "First name", "Email address", "State", "Started on", "Completed", "Time taken",
        "Grade/4.00"]


def _quiz_questions():
    """Per answer id, (seed, text as Moodle shows it, right answer as Moodle shows it), from the XML."""
    root = fromstring(grading.moodle_xml(assignment=TASK))
    out = {}
    for q in root:
        if q.get("type") != "numerical":
            continue
        answer_id, seed = re.fullmatch(r"lab5-(.+)-v(\d+)", q.find("idnumber").text).groups()
        # Moodle's summary of the question: its HTML as plain text (tags dropped, entities decoded)
        text = html.unescape(re.sub(r"<[^>]+>", "", q.find("questiontext/text").text)).strip()
        unit = q.find("units/unit/unit_name")
        right = q.find("answer/text").text + (f" {unit.text}" if unit is not None else "")
        out.setdefault(answer_id, []).append((int(seed), text, right))
    return out


QUIZ = _quiz_questions()


def _report(rows, *, texts=True, rights=True, identity="Email address", lastname="Last name"):
    """A Responses report download: ``rows`` are (first name, id, state, [(answer id, seed, response)])."""
    head = [h if h != "Last name" else lastname for h in HEAD]
    head[2] = identity
    for n in range(1, len(ASKED) + 1):
        head += ([f"Question {n}"] if texts else []) + [f"Response {n}"] + ([f"Right answer {n}"] if rights else [])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for first, ident, state, answers in rows:
        line = ["Doe", first, ident, state, "3 June 2025  10:02 AM",
                "3 June 2025  10:31 AM" if state == "Finished" else "-", "29 mins 12 secs",
                "3.00" if state == "Finished" else "-"]
        for answer_id, seed, response in answers:
            (text, right), = [(t, r) for s, t, r in QUIZ[answer_id] if s == seed]
            line += ([text] if texts else []) + [response] + ([right] if rights else [])
        w.writerow(line)
    return ("\ufeff" + buf.getvalue()).encode("utf-8")


def _right(answer_id, seed):
    return [r for s, _, r in QUIZ[answer_id] if s == seed][0]


def test_the_responses_report_is_graded_on_the_variant_each_student_drew():
    data = _report([
        ("Ada", "ada@uni.edu", "Finished", [("Q3", 2, _right("Q3", 2)), ("Q4", 3, _right("Q4", 3)),
                                            ("Q13.7", 1, "-"), ("Q29", 4, _right("Q29", 4))]),
        ("Bob", "bob@uni.edu", "Finished", [("Q3", 1, _right("Q3", 2)), ("Q4", 1, "5 Mbit/s"),
                                            ("Q13.7", 2, _right("Q13.7", 2)), ("Q29", 4, "-")]),
        ("Cid", "cid@uni.edu", "In progress", [("Q3", 1, "-"), ("Q4", 1, "-"), ("Q13.7", 1, "-"),
                                               ("Q29", 1, "-")]),
    ])
    sheet = grading.read_answers(data)
    assert sheet.id_column == "Email address" and sheet.question_texts
    res = grading.grade(sheet, assignment=TASK)
    d = res.detail.set_index(["student", "question"])
    # Ada: right on the variants she drew (2, 3, 4), Q13.7 not answered
    assert d.loc[("ada@uni.edu", "Q3"), "variant"] == 2 and d.loc[("ada@uni.edu", "Q3"), "correct"]
    # (two variants with the same numbers in the question have the same text and value:
    # the first of them stands for both)
    assert d.loc[("ada@uni.edu", "Q4"), "expected"] == grading.answer_key("lab5", 3).value("Q4")
    assert d.loc[("ada@uni.edu", "Q4"), "correct"]
    assert d.loc[("ada@uni.edu", "Q13.7"), "diagnosis"] == "empty"
    # Bob gave variant 2's value for his variant 1 of Q3
    key1, key2 = grading.answer_key("lab5", 1), grading.answer_key("lab5", 2)
    assert key1.value("Q3") != key2.value("Q3")
    assert not d.loc[("bob@uni.edu", "Q3"), "correct"] and d.loc[("bob@uni.edu", "Q13.7"), "correct"]
    g = res.grades.set_index("student")
    assert g.loc["ada@uni.edu", "total"] == 3 and g.loc["ada@uni.edu", "max_total"] == 4
    assert g.loc["ada@uni.edu", "variant"] == -1  # a variant per question
    # Cid's attempt is not finished: reported, not graded
    assert [p.reason for p in res.problems] == [
        "attempt of 'cid@uni.edu' is 'In progress': not graded (only 'Finished' or 'Submitted' attempts are)"]
    assert "cid@uni.edu" not in set(res.grades["student"])
    assert any("8 of 8 responses matched" in n for n in res.notes)
    # the hint: Bob's Q3 answer is another student's right value
    hints = grading.analysis.worth_a_look(res.detail)
    assert any(h["kind"] == "another student's value" and h["question"] == "Q3" and h["students"][0] == "bob@uni.edu"
               for h in hints)


def test_without_question_texts_the_assignment_gives_the_slots_and_the_salt_the_variants():
    salt = "moodle-2025"
    seeds = {s: grading.answer_key("lab5", 0).lab and __import__("labcalc").labs.lab5.variant_for(s, salt)
             for s in ("ada", "bob")}
    rows = []
    for name in ("ada", "bob"):
        key = grading.answer_key("lab5", seeds[name])
        rows.append(f"Doe,{name.title()},{name},Finished,x,y,z,1.00,"
                    f"{key.value('Q3'):.0f} bytes,{key.value('Q4') / 1e6:.4f} Mbit/s,-,"
                    f"{key.value('Q29') * 1e3:.1f} ms")
    data = ("Surname,First name,Username,State,Started on,Completed,Time taken,Grade/4.00,"
            "Response 1,Response 2,Response 3,Response 4\n" + "\n".join(rows) + "\n").encode()
    res = grading.grade(grading.read_answers(data), assignment=TASK, salt=salt)
    assert res.problems == ()
    g = res.grades.set_index("student")
    assert list(g["total"]) == [3.0, 3.0] and g.loc["ada", "variant"] == seeds["ada"]
    # without an assignment, a response cannot be placed: reported, with what to do
    bare = grading.grade(grading.read_answers(data), "lab5")
    assert len(bare.problems) == 8 and "give an assignment whose questions are in the quiz's order" in \
        bare.problems[0].reason


def test_several_attempts_the_last_is_graded_and_ids_match_without_case():
    data = _report([
        ("Ada", "Ada@Uni.edu", "Finished", [(q, 1, "-") for q in ASKED]),
        ("Ada", "ada@uni.edu", "Finished", [(q, 1, _right(q, 1)) for q in ASKED]),
    ])
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    assert list(res.grades["student"]) == ["Ada@Uni.edu"]  # one student, named as first written
    assert res.grades.loc[0, "total"] == 4
    assert [str(p) for p in res.problems] == ["row 2: an earlier attempt of 'Ada@Uni.edu': the attempt at row 3 "
                                              "is graded"]
    assert any("taken as the same student" in n and "'Ada@Uni.edu' = 'ada@uni.edu'" in n for n in res.notes)


def test_any_layout_through_a_column_mapping(tmp_path, capsys):
    # a German export re-saved by a spreadsheet: other headers, ';' and decimal commas
    text = ("Nachname;Vorname;Matrikel;Status;Antwort 1;Antwort 2;Antwort 3;Antwort 4\n"
            "Doe;Ada;U2501;Beendet;1066 bytes;4,6904 Mbit/s;0,0619;300 ms\n")
    columns = {"student": "Matrikel", "state": "Status", "response": "Antwort", "finished": "Beendet"}
    # every student had the handout's numbers: a quiz of one variant, seed 0 (without
    # question texts, that is the only way to know the variant)
    quiz = '[export]\nvariants = 1\nfirst_seed = 0\n'
    task = assignment_from_text('lab = "lab5"\nquestions = ["Q3", "Q4", "Q13.7", "Q29"]\n' + quiz)
    res = grading.grade(grading.read_answers(text.encode(), columns=columns), assignment=task)
    assert res.problems == () and res.grades.loc[0, "total"] == 4
    # the same through the command line and the assignment's [columns]
    (tmp_path / "a.toml").write_text('lab = "lab5"\nquestions = ["Q3", "Q4", "Q13.7", "Q29"]\n'
                                     '[columns]\nstudent = "Matrikel"\nstate = "Status"\nresponse = "Antwort"\n'
                                     + quiz, encoding="utf-8")
    (tmp_path / "in.csv").write_text(text, encoding="utf-8")
    assert main(["grade", "lab5", str(tmp_path / "in.csv"), "-o", str(tmp_path / "g.csv"), "--assignment",
                 str(tmp_path / "a.toml"), "--column", "finished=Beendet"]) == 0
    assert "4 answers graded" in capsys.readouterr().out
    # a long layout with other names
    res = grading.grade(grading.read_answers(b"Wer,Frage,Antwort\nada,Q4,4.69 Mbit/s\n",
                                             columns={"student": "wer", "question": "Frage", "answer": "ANTWORT"}),
                        "lab5")
    assert res.grades.loc[0, "Q4"] == 1.0
    with pytest.raises(grading.AnswerFileError, match="no column 'Matrikelnr' \\(given for 'student'\\)"):
        grading.read_answers(text.encode(), columns={"student": "Matrikelnr"})


def _openspout_csv(rows) -> bytes:
    """Rows as Moodle's CSV download writes them: OpenSpout's CSV writer (a byte-order
    mark, ``,``, PHP's ``fputcsv`` quoting: a cell holding a space, a comma, a quote, a
    tab or a line break is quoted) after ``\\core\\dataformat::escape_spreadsheet_formula``
    (``lib/classes/dataformat/spout_base.php`` ``write_record``; its cases in Moodle's
    ``lib/tests/dataformat_test.php``: an apostrophe before a cell starting, after any
    white space, with ``=``, ``+``, ``-`` or ``@``; a lone ``-``, the report's "no
    response", is kept)."""
    def cell(value: str, header: bool) -> str:
        if not header and value != "-" and re.match(r"\s*[=+\-@]", value):
            value = "'" + value
        if re.search(r'[ ,"\t\r\n]', value):
            value = '"' + value.replace('"', '""') + '"'
        return value

    lines = [",".join(cell(v, k == 0) for v in row) for k, row in enumerate(rows)]
    return ("\ufeff" + "\n".join(lines) + "\n").encode("utf-8")


def _attempt(first, ident, state, answers, *, texts=True):
    line = ["Doe", first, ident, state, "3 June 2025  10:02 AM",
            "3 June 2025  10:31 AM" if state in ("Finished", "Submitted") else "-", "29 mins 12 secs",
            "3.00" if state == "Finished" else "-"]
    for answer_id, seed, response in answers:
        (text, right), = [(t, r) for s, t, r in QUIZ[answer_id] if s == seed]
        line += ([text] if texts else []) + [response, right]
    return line


def _head(*, texts=True):
    head = list(HEAD)
    for n in range(1, len(ASKED) + 1):
        head += ([f"Question {n}"] if texts else []) + [f"Response {n}", f"Right answer {n}"]
    return head


def test_a_download_as_moodle_writes_it_signs_escaped_submitted_attempts_graded():
    # Ada typed her answers with signs, which Moodle's download escapes ('+1066 bytes');
    # Bob's attempt is "Submitted" (Moodle 5: submitted, its grading still queued): his
    # responses are final and graded; Cid never submitted; Dan answered "-" (none)
    right = {q: _right(q, 1) for q in ASKED}
    data = _openspout_csv([_head(),
        _attempt("Ada", "ada@uni.edu", "Finished", [("Q3", 1, "+" + right["Q3"]), ("Q4", 1, "+" + right["Q4"]),
                                                   ("Q13.7", 1, "=0.5"), ("Q29", 1, "-" + right["Q29"])]),
        _attempt("Bob", "bob@uni.edu", "Submitted", [(q, 1, right[q]) for q in ASKED]),
        _attempt("Cid", "cid@uni.edu", "Never submitted", [(q, 1, "-") for q in ASKED]),
        _attempt("Dan", "dan@uni.edu", "Finished", [(q, 1, "-") for q in ASKED])])
    assert ("'+" + right["Q3"]).encode() in data  # the file holds Moodle's apostrophes
    sheet = grading.read_answers(data)
    answers = sheet.answers.set_index(["student", "question"])["answer"]
    assert answers["ada@uni.edu", "#1"] == "+" + right["Q3"] and answers["ada@uni.edu", "#3"] == "=0.5"
    assert answers["ada@uni.edu", "#4"] == "-" + right["Q29"] and answers["dan@uni.edu", "#1"] == ""
    res = grading.grade(sheet, assignment=TASK)
    d = res.detail.set_index(["student", "question"])
    assert d.loc[("ada@uni.edu", "Q3"), "correct"] and d.loc[("ada@uni.edu", "Q4"), "correct"]
    assert d.loc[("ada@uni.edu", "Q29"), "diagnosis"] == "negative"
    g = res.grades.set_index("student")
    assert g.loc["bob@uni.edu", "total"] == 4 and g.loc["dan@uni.edu", "total"] == 0
    assert [p.reason for p in res.problems] == [
        "attempt of 'cid@uni.edu' is 'Never submitted': not graded (only 'Finished' or 'Submitted' attempts are)"]



def test_a_download_of_all_tries_grades_each_questions_last_try():
    # 'Which tries' = 'All tries' (an interactive quiz): Moodle writes one row per try
    # (first_or_all_responses_table::load_extra_data), the state only on the row of the
    # last try (col_state), the email only on the first (col_email), and '-' for a
    # question on the rows after its last try. Ada tried Q3 three times, Q4 once, Q13.7
    # twice and left Q29; labcalc graded her last row alone: Q4 and Q13.7 as not answered
    right = {q: _right(q, 1) for q in ASKED}
    ada = [_attempt("Ada", "ada@uni.edu", "", [("Q3", 1, "5 bytes"), ("Q4", 1, right["Q4"]), ("Q13.7", 1, "7"),
                                              ("Q29", 1, "-")]),
           _attempt("Ada", "", "", [("Q3", 1, "6 bytes"), ("Q4", 1, "-"), ("Q13.7", 1, right["Q13.7"]),
                                    ("Q29", 1, "-")]),
           _attempt("Ada", "", "Finished", [("Q3", 1, right["Q3"]), ("Q4", 1, "-"), ("Q13.7", 1, "-"),
                                            ("Q29", 1, "-")])]
    for line in ada[:2]:
        line[7] = ""  # col_sumgrades: only on the row of the last try
    bob = _attempt("Bob", "bob@uni.edu", "Finished", [(q, 1, right[q]) for q in ASKED])  # one try each
    # Cid's first try only ('First try' download of an attempt tried twice): no row has its state
    cid = _attempt("Cid", "cid@uni.edu", "", [(q, 1, right[q]) for q in ASKED])
    cid[7] = ""
    data = _openspout_csv([_head()] + ada + [bob, cid])
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    g = res.grades.set_index("student")
    assert sorted(g.index) == ["ada@uni.edu", "bob@uni.edu"]
    assert g.loc["ada@uni.edu", "total"] == 3 and g.loc["bob@uni.edu", "total"] == 4
    d = res.detail.set_index(["student", "question"])
    assert d.loc[("ada@uni.edu", "Q29"), "diagnosis"] == "empty"
    assert [(p.row, p.reason) for p in res.problems] == [
        (6, "a row of an earlier try of 'cid@uni.edu' (no state: the report was downloaded with 'Which tries' = "
            "'First try' or 'All tries'), and no row of the attempt's last try follows it; download the report "
            "with 'Which tries' = 'Last try'")]

def test_a_site_in_another_language_names_its_finished_state_in_the_assignment(tmp_path, capsys):
    rows = [_head(), _attempt("Ada", "ada@uni.edu", "Terminé", [(q, 1, _right(q, 1)) for q in ASKED])]
    data = _openspout_csv(rows)
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    (reason,) = [p.reason for p in res.problems]
    assert "if 'Terminé' is how the site names a finished attempt, say so: --column finished='Terminé'" in reason
    # the step it names works, from the command line and from the assignment's [lms] finished
    (tmp_path / "r.csv").write_bytes(data)
    toml = (f'lab = "lab5"\nquestions = {ASKED!r}\n[export]\nvariants = 4\n'.replace("'", '"'))
    (tmp_path / "a.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "b.toml").write_text(toml + '[lms]\nfinished = "Terminé"\n', encoding="utf-8")
    base = ["grade", "lab5", str(tmp_path / "r.csv"), "-o", str(tmp_path / "g.csv")]
    assert main(base + ["--assignment", str(tmp_path / "a.toml"), "--column", "finished=Terminé"]) == 0
    assert "1 student, 4 answers graded, mean 100.0 %" in capsys.readouterr().out
    assert main(base + ["--assignment", str(tmp_path / "b.toml")]) == 0
    assert "1 student, 4 answers graded, mean 100.0 %" in capsys.readouterr().out
    # as a shell that keeps the quotes passes the step (Windows cmd)
    assert main(base + ["--assignment", str(tmp_path / "a.toml"), "--column", "finished='Terminé'"]) == 0
    assert "1 student, 4 answers graded, mean 100.0 %" in capsys.readouterr().out


def test_responses_without_question_texts_are_not_graded_on_the_handout_numbers():
    # the default Responses download has no question texts: on a quiz of several
    # variants, which one Moodle drew is unknown, and grading every response on the
    # handout's numbers (as before) gave a right answer 0 points silently
    data = _openspout_csv([_head(texts=False),
                           _attempt("Ada", "ada@uni.edu", "Finished", [(q, 2, _right(q, 2)) for q in ASKED],
                                    texts=False)])
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    assert res.detail.empty and len(res.problems) == len(ASKED)
    assert all("'Question text' ticked" in p.reason and "variants 1-4" in p.reason for p in res.problems)
    # a quiz of one variant says which: then it is graded on it
    one = assignment_from_text(f'lab = "lab5"\nquestions = {ASKED!r}\n[export]\nvariants = 1\n'
                               f'first_seed = 2\n'.replace("'", '"'))
    res = grading.grade(grading.read_answers(data), assignment=one)
    assert res.problems == () and res.grades.loc[0, "total"] == 4


def test_an_empty_identity_cell_names_the_column_and_a_way_that_works():
    # a user without an ID number: "no student id" said neither which column nor what to do
    data = _openspout_csv([["Last name", "ID number", "Email address", "State", "Response 1"],
                           ["Doe", "", "ada@uni.edu", "Finished", "1066 bytes"],
                           ["Roe", "U7", "bob@uni.edu", "Finished", "1066 bytes"]])
    sheet = grading.read_answers(data, columns={"student": "ID number"})
    assert [str(p) for p in sheet.problems] == [
        "row 2: the attempt's 'ID number' is empty (a user without one?); take another identity column of "
        "the report: --column student='Email address'"]
    assert grading.read_answers(data, columns={"student": "Email address"}).answers["student"].tolist() == [
        "ada@uni.edu", "bob@uni.edu"]


def test_a_report_in_another_language_is_refused_with_how_to_name_its_columns():
    # Moodle's German strings: Nachname, E-Mail-Adresse, Status/Beendet, Frage n, Antwort n
    head = ["Nachname", "Vorname", "E-Mail-Adresse", "Status", "Bewertung/4,00"]
    rows = [["Doe", "Ada", "ada@uni.de", "Beendet", "4,00"]]
    for n, answer_id in enumerate(ASKED, 1):
        head += [f"Frage {n}", f"Antwort {n}", f"Richtige Antwort {n}"]
        (text, right), = [(t, r) for s, t, r in QUIZ[answer_id] if s == 1]
        rows[0] += [text, right, right]
    data = _openspout_csv([head] + rows)
    with pytest.raises(grading.AnswerFileError) as err:
        grading.read_answers(data)
    message = str(err.value)
    assert "numbered columns: 'Frage' n, 'Antwort' n, 'Richtige Antwort' n" in message
    assert "--column response=NAME (the prefix of the response columns)" in message
    # the columns it says to name, named: graded
    columns = {"response": "Antwort", "question_text": "Frage", "student": "E-Mail-Adresse", "state": "Status",
               "finished": "Beendet"}
    res = grading.grade(grading.read_answers(data, columns=columns), assignment=TASK)
    assert res.problems == () and res.grades.loc[0, "total"] == len(ASKED)


@pytest.mark.parametrize("data, what", [
    # dataformat_json: "[", then per sheet "[" and pretty-printed objects keyed by the
    # lower-case headers, "]", "]"
    (b'[[{\n    "lastname": "Doe",\n    "emailaddress": "ada@uni.edu",\n    "response1": "1066 bytes"\n}]]',
     "a JSON file"),
    (b"<!DOCTYPE html>\n<html><body><table><tr><th>Last name</th></tr></table></body></html>\n",
     "an HTML or XML page"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document"),
])
def test_the_other_downloads_of_a_report_are_refused_with_the_csv_one_named(data, what):
    with pytest.raises(grading.AnswerFileError, match=f"not a CSV text file \\({what}.*download the table as CSV"):
        grading.read_answers(data)


def test_a_responses_report_without_an_identity_column_is_refused_with_the_fix():
    with pytest.raises(grading.AnswerFileError, match="needs a column that identifies each student: Username, "
                                                      "Email address or ID number"):
        grading.read_answers(b"Last name,First name,State,Response 1\nDoe,Ada,Finished,1\n")


def _moodle_import(text: str, users: set[str], identifier: str, item: str, grademax: float = 100.0):
    """Moodle's CSV grade import, as load_data.php does it: {user as stored: grade or None}.

    ``grademax`` is the grade item's maximum grade (its minimum is 0)."""
    text = text.removeprefix("\ufeff")  # csv_import_reader drops the byte-order mark
    reader = csv.reader(io.StringIO(text))
    header = [h.strip() for h in next(reader)]
    i_user, i_item = header.index(identifier), header.index(item)
    grades = {}
    for line in reader:
        if len(line) <= 1:
            continue
        user = line[i_user].strip()
        if identifier != "ID number":  # emails and usernames: compared without regard to case
            user = next((u for u in users if u.lower() == user.lower()), user)
        if user not in users:  # an unknown user stops the import
            raise AssertionError(f"Moodle would stop the import: no user {user!r}")
        value = line[i_item].strip()
        if value in ("", "-"):
            grades[user] = None
            continue
        grade = float(value)  # unformat_float with the decimal point
        if not 0 <= grade <= grademax:  # insert_grade_record: gradevaluetoobig / gradevaluetoosmall
            raise AssertionError(f"Moodle would stop the import: grade {grade} outside 0..{grademax}")
        grades[user] = grade
    return grades


def test_the_grade_import_file_is_what_moodle_reads(tmp_path):
    data = _report([
        ("Ada", "ada@uni.edu", "Finished", [(q, 1, _right(q, 1)) for q in ASKED]),
        ("Bob", "bob@uni.edu", "Finished", [("Q3", 2, _right("Q3", 2)), ("Q4", 2, "-"), ("Q13.7", 2, "-"),
                                            ("Q29", 2, "-")]),
    ])
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    text = moodle_grade_import(res, grade_max=10)
    assert text.splitlines()[0] == "Email address,Lab 5 quiz,labcalc variant"
    got = _moodle_import(text, {"ada@uni.edu", "bob@uni.edu"}, "Email address", "Lab 5 quiz")
    assert got == {"ada@uni.edu": 10.0, "bob@uni.edu": 2.5}
    # usernames, one column per question, feedback; written with a BOM for Excel
    res2 = grading.grade(grading.read_answers(b"student,question,answer\nu2501,Q4,4.69 Mbit/s\nu2501,Q3,1000 bytes\n"),
                         "lab5")
    path = tmp_path / "moodle.csv"
    grading.write_moodle_grade_import(res2, path, identifier="username", per_question=True, feedback=True)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0]["Username"] == "u2501" and float(rows[0]["labcalc lab5"]) == 1.5
    assert float(rows[0]["labcalc lab5 Q4"]) == 1.0 and float(rows[0]["labcalc lab5 Q3"]) == 0.5
    assert rows[0]["Feedback"].startswith("1.5 of 55 points (3 %), 1 of 55 answers right; slips: header_overhead")
    with pytest.raises(ValueError, match="identifier must be one of email, username, idnumber"):
        moodle_grade_import(res2, identifier="name")


def test_the_grade_import_file_matches_moodles_users_as_moodle_stores_them(tmp_path, capsys):
    # Moodle keeps usernames in lower case (it lowers them when a user is created); its
    # import compares usernames without regard to case, and the file says them as stored
    res = grading.grade(grading.read_answers(b"student,question,answer\nU2501,Q4,4.69 Mbit/s\n"
                                             b"u2502,Q4,4.69 Mbit/s\n"), "lab5")
    text = moodle_grade_import(res, identifier="username")
    assert [line.split(",")[0] for line in text.splitlines()[1:]] == ["u2501", "u2502"]
    got = _moodle_import(text, {"u2501", "u2502"}, "Username", "labcalc lab5")
    assert set(got) == {"u2501", "u2502"}
    # ids that are not email addresses under an "Email address" column: refused with the fix
    data = _report([("Ada", "ada@uni.edu", "Finished", [(q, 1, _right(q, 1)) for q in ASKED])])
    by_name = grading.grade(grading.read_answers(data, columns={"student": "Last name"}), assignment=TASK)
    with pytest.raises(ValueError, match="the student id 'Doe' \\(from column 'Last name'\\) is not an email "
                                         "address, and Moodle's import stops"):
        moodle_grade_import(by_name, identifier="email")
    # the two steps it names work
    assert moodle_grade_import(by_name, identifier="username").splitlines()[1].startswith("doe,")
    by_email = grading.grade(grading.read_answers(data, columns={"student": "Email address"}), assignment=TASK)
    assert _moodle_import(moodle_grade_import(by_email, identifier="email"), {"ada@uni.edu"}, "Email address",
                          "Lab 5 quiz") == {"ada@uni.edu": 4.0}



def test_a_grade_above_the_items_maximum_stops_moodles_import_grade_max_scales_to_it():
    # Moodle 5.1 refuses the whole file at a grade above the grade item's maximum
    # (load_data.php insert_grade_record: "gradevaluetoobig"); it does not cut it to the
    # maximum, as the README said. Points (4 here) on an item out of 2: refused;
    # scaled with grade_max: imported
    data = _report([("Ada", "ada@uni.edu", "Finished", [(q, 1, _right(q, 1)) for q in ASKED]),
                    ("Bob", "bob@uni.edu", "Finished", [(q, 1, "-") for q in ASKED])])
    res = grading.grade(grading.read_answers(data), assignment=TASK)
    with pytest.raises(AssertionError, match="grade 4.0 outside 0..2"):
        _moodle_import(moodle_grade_import(res), {"ada@uni.edu", "bob@uni.edu"}, "Email address", "Lab 5 quiz",
                       grademax=2.0)
    got = _moodle_import(moodle_grade_import(res, grade_max=2), {"ada@uni.edu", "bob@uni.edu"}, "Email address",
                         "Lab 5 quiz", grademax=2.0)
    assert got == {"ada@uni.edu": 2.0, "bob@uni.edu": 0.0}

def _spreadsheet_resave(text: str) -> str:
    """A spreadsheet opening a CSV and saving it again: every cell that reads as a number
    becomes a double and is written back with at most 15 significant digits (Excel keeps
    15 digits of a number: Microsoft support, "Last digits are changed to zeros when you
    type long numbers in cells of Excel"); text cells are kept as they are."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text.removeprefix("\ufeff"))):
        cells = []
        for cell in row:
            if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", cell.strip()):
                cell = f"{float(cell):.15g}"
            cells.append(cell)
        w.writerow(cells)
    return out.getvalue()


def test_a_grade_file_resaved_by_a_spreadsheet_keeps_its_variants(tmp_path):
    df = grading.simulate_class(6, lab="lab5", seed=5, salt="s", answers_per_student=3)
    res = grading.grade(df, "lab5", salt="s")
    seeds = dict(zip(res.grades["student"], res.grades["variant"]))
    assert max(seeds.values()) > 10**17  # 18-19 digits: more than a spreadsheet keeps
    res.write_grades(tmp_path / "grades.csv")
    resaved = _spreadsheet_resave((tmp_path / "grades.csv").read_text(encoding="utf-8"))
    back = {r["student"]: r["variant"] for r in csv.DictReader(io.StringIO(resaved))}
    assert {s: int(v.removeprefix("v")) for s, v in back.items()} == seeds
    # the same model does lose a variant written as a number (what the file did before)
    plain = res.grades.to_csv(index=False)
    lost = {r["student"]: r["variant"] for r in csv.DictReader(io.StringIO(_spreadsheet_resave(plain)))}
    assert any(int(float(v)) != seeds[s] for s, v in lost.items())
    # the LMS file too, and labcalc reads the "v" form back where it reads a variant
    text = _spreadsheet_resave(moodle_grade_import(res))
    variants = [r["labcalc variant"] for r in csv.DictReader(io.StringIO(text))]
    assert [int(v[1:]) for v in variants] == [seeds[s] for s in res.grades["student"]]
    student, variant = next(iter(back.items()))
    sheet = grading.read_answers(f"student,question,answer,variant\n{student},Q4,1 Mbit/s,{variant}\n".encode())
    assert sheet.answers.loc[0, "variant"] == seeds[student]
    assert main(["answers", "lab5", "--variant", variant]) == 0


def test_moodle_shows_right_answers_that_labcalc_grades_right():
    # every "Right answer n" of the report (the quiz's right value at the precision its
    # tolerance needs, with its unit) typed back as the response is right for labcalc
    text = grading.simulate.responses_report(30, TASK, seed=3)
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    for row in rows[1:]:
        for n in range(1, len(ASKED) + 1):
            row[head.index(f"Response {n}")] = row[head.index(f"Right answer {n}")]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    res = grading.grade(grading.read_answers(buf.getvalue().encode()), assignment=TASK)
    assert res.problems == () and len(res.detail) == 30 * len(ASKED)
    assert res.detail["correct"].all() and (res.grades["percent"] == 100).all()
    # and the variants drawn differ from question to question (Moodle's random questions)
    assert res.detail.groupby("student")["variant"].nunique().max() > 1


def test_the_command_line_writes_the_moodle_file_and_holds_expected_values_back(tmp_path, capsys):
    (tmp_path / "a.toml").write_text(f'lab = "lab5"\ntitle = "Lab 5 quiz"\nquestions = {ASKED!r}\n'
                                     f'[export]\nvariants = 4\n[lms]\ngrade_max = 10\n'.replace("'", '"'),
                                     encoding="utf-8")
    (tmp_path / "responses.csv").write_text(grading.simulate.responses_report(5, TASK, seed=1),
                                            encoding="utf-8-sig")
    args = ["grade", "lab5", str(tmp_path / "responses.csv"), "--assignment", str(tmp_path / "a.toml"),
            "-o", str(tmp_path / "g.csv"), "--feedback", str(tmp_path / "f.csv"),
            "--moodle-grades", str(tmp_path / "m.csv"), "--hide-expected-until", "2999-01-01T00:00"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "5 students, 20 answers graded" in out and "wrote" in out and "m.csv" in out
    got = _moodle_import((tmp_path / "m.csv").read_text(encoding="utf-8-sig"), {f"s000{k}" for k in range(1, 6)},
                         "Username", "Lab 5 quiz")
    grades = {r["student"]: float(r["percent"]) for r in csv.DictReader((tmp_path / "g.csv").open())}
    assert got == {s: pytest.approx(p / 10, abs=1e-4) for s, p in grades.items()}
    feedback = list(csv.DictReader((tmp_path / "f.csv").open(encoding="utf-8")))
    assert {r["expected"] for r in feedback} == {"held back"}
    assert main(args[:-1] + ["tomorrow"]) == 2
    assert "must be a date and time such as 2025-06-01T23:59" in capsys.readouterr().err
