"""Batch grading of untrusted answers files: grades, statistics, report, hostile input."""

import builtins
import csv
import io
import os

import numpy as np
import pandas as pd
import pytest

from labcalc import grading
from labcalc.grading import AnswerFileError, grade, grade_file, read_answers, simulate_class
from labcalc.labs import lab5

HEADER = "student,question,answer\n"


def graded(text: str, **options):
    return grade(read_answers(text.encode("utf-8")), "lab5", **options)


def test_a_small_class():
    res = graded(HEADER + "ada,Q4,4.69 Mbit/s\nada,Q3,1000 bytes\nbob,Q4,586 kbit/s\nbob,Q13.7,6.2\n")
    g = res.grades.set_index("student")
    assert g.loc["ada", "Q4"] == 1.0 and g.loc["ada", "Q3"] == 0.5 and g.loc["ada", "total"] == 1.5
    assert g.loc["bob", "Q4"] == 0.5 and g.loc["bob", "Q13.7"] == 0.5 and g.loc["bob", "Q9"] == 0.0
    assert (g["max_total"] == 55).all()
    assert g.loc["ada", "percent"] == pytest.approx(100 * 1.5 / 55)
    assert list(res.grades.columns[:3]) == ["student", "variant", "Q3"]
    assert res.detail.set_index(["student", "question"]).loc[("bob", "Q4"), "diagnosis"] == "bytes_bits"
    assert res.problems == ()
    assert res.summary() == "lab5: 2 students, 4 answers graded, mean 2.3 % of the points; no row skipped"


def test_per_question_statistics():
    rows = [f"s{i},Q4,4.69 Mbit/s" for i in range(6)] + [f"s{i},Q4,5 Mbit/s" for i in range(6, 9)]
    rows += ["s9,Q4,586 kbit/s"]
    res = graded(HEADER + "\n".join(rows) + "\n")
    q4 = res.stats.loc["Q4"]
    assert (q4.answered, q4.correct) == (10, 0.6)
    assert q4.top_diagnosis == "header_overhead" and q4.top_share == 0.75
    assert q4.mean_score == pytest.approx((6 + 3 * 0.5 + 0.5) / 10)
    assert res.stats.loc["Q9", "answered"] == 0


def test_variants_column_and_salt():
    key = grading.answer_key("lab5", 5)
    right = f"{key.value('Q4') / 1e6:.5f} Mbit/s"
    res = graded("student,question,answer,variant\n" + f"ada,Q4,{right},5\n")
    assert res.detail.score.tolist() == [1.0] and res.grades.variant.tolist() == [5]
    # without a variant column: the salt decides, or everybody has the handout's numbers
    seed = lab5.variant_for("ada", "course")
    right = f"{grading.answer_key('lab5', seed).value('Q4') / 1e6:.5f} Mbit/s"
    res = graded(HEADER + f"ada,Q4,{right}\n", salt="course")
    assert res.detail.score.tolist() == [1.0] and res.grades.variant.tolist() == [seed]
    assert graded(HEADER + "ada,Q4,4.69 Mbit/s\n").grades.variant.tolist() == [0]


def test_points_credit_and_sigfigs_options():
    text = HEADER + "ada,Q4,586 kbit/s\nada,Q3,1066 bytes\n"
    res = graded(text, points={"Q4": 4}, credit={"bytes_bits": 0.25})
    g = res.grades.iloc[0]
    assert g.Q4 == 1.0 and g.Q3 == 1.0 and g.max_total == 58
    res = graded(HEADER + "ada,Q4,4.7 Mbit/s\n", sigfigs=2)
    assert res.detail.correct.tolist() == [True]
    with pytest.raises(ValueError, match="Q99"):
        graded(text, points={"Q99": 1})


# -- hostile files -------------------------------------------------------------------

def test_huge_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.csv"
    with open(path, "wb") as fh:
        fh.write(HEADER.encode())
        fh.seek(30_000_000)
        fh.write(b"\n")  # a sparse 30 MB file
    with pytest.raises(AnswerFileError, match="above the limit of 20000000 bytes"):
        read_answers(path)
    with pytest.raises(AnswerFileError, match="limit"):
        read_answers(io.BytesIO(HEADER.encode() + b"x" * 2000), max_bytes=1000)


@pytest.mark.parametrize("data, message", [
    (b"name,question,answer\nada,Q4,1\n", "missing column 'student'"),
    (b"student,answer\nada,1\n", "missing column 'question'"),
    (b"", "empty"),
    (b"\n\n  \n", "empty"),
    (b"student,question,answer,answer\n", "appears twice"),
    (bytes(range(256)) * 40, "not a CSV text file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a CSV text file"),
    (b"PK\x03\x04\x14\x00\x06\x00", "not a CSV text file"),
    (b"\xff\xfes\x00t\x00u\x00", "missing column 'student'"),  # UTF-16: read, then refused for its header
])
def test_files_that_cannot_be_graded(data, message):
    with pytest.raises(AnswerFileError, match=message):
        read_answers(data)


def test_missing_file(tmp_path):
    with pytest.raises(AnswerFileError, match="not found"):
        read_answers(tmp_path / "nope.csv")
    with pytest.raises(AnswerFileError, match="folder"):
        read_answers(tmp_path)


def test_malformed_rows_are_reported_and_skipped():
    text = (
        "student,question,answer,variant\n"   # row 1
        "ada,Q4,4.69 Mbit/s,0\n"              # 2 ok
        "ada,Q4,4,69 Mbit/s,0\n"              # 3 unquoted comma
        'ada,Q3,"1,066 bytes",0\n'            # 4 quoted, graded (ambiguous -> unreadable)
        "bob\n"                               # 5 too few fields
        "\n"                                  # (blank line: ignored)
        ",Q4,1 Mbit/s,0\n"                    # 7 no student
        "eve,Q99,1 Mbit/s,0\n"                # 8 unknown question
        "eve,Q4,1 Mbit/s,seven\n"             # 9 bad variant
        "eve,Q4,1 Mbit/s,-1\n"                # 10 bad variant
        "eve,Q4,1 Mbit/s,99999999999999999999\n"  # 11 variant too large
        "eve,Q9,1 Mbit/s,\n"                  # 12 no variant
        f"eve,Q4,{'9' * 150},0\n"             # 13 answer too long
        f"{'x' * 80},Q4,1 Mbit/s,0\n"         # 14 student id too long
        "ada,Q8,2986 bytes,3\n"               # 15 variant differs from ada's
        "bob,Q9,4.85 Mbit/s,0\n"              # 16 ok
        "bob,Q9,4.80 Mbit/s,0\n"              # 17 second answer: replaces row 16
    )
    res = graded(text)
    problems = {p.row: p.reason for p in res.problems}
    assert set(problems) == {3, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
    assert problems[3] == "5 fields where the header has 4 (an unquoted comma in the answer?)"
    assert "1 field where the header has 4" in problems[5]
    assert problems[7] == "no student id"
    assert problems[8].startswith("unknown question 'Q99'")
    assert "variant 'seven' is not a whole number" in problems[9]
    assert "not a whole number" in problems[10] and "not a whole number" in problems[11]
    assert problems[12].startswith("no variant")
    assert "longer than 100 characters" in problems[13]
    assert "longer than 64 characters" in problems[14]
    assert "differs from variant 0" in problems[15] and "row 2" in problems[15]
    assert "replaced by the answer at row 17" in problems[16]
    assert sorted(res.detail.row) == [2, 4, 17]
    assert [p.row for p in res.problems] == sorted(p.row for p in res.problems)


def test_binary_junk_inside_a_csv():
    # a file that is not UTF-8 is read as cp1252, where the bytes ff fe are the letters
    # "ÿþ": eve's answer is then an unreadable text (graded 0), not binary data
    data = (HEADER.encode() + b"ada,Q4,4.69 Mbit/s\n" + b"bob,Q4,\x00\x01\x02junk\n"
            + b"eve,Q4,\xff\xfe 5 Mbit/s\n" + b"\x1b[31mred,Q4,1 Mbit/s\n" + b"zed,Q3,1066 bytes\n")
    res = grade(read_answers(data), "lab5")
    assert sorted(res.detail.student) == ["ada", "eve", "zed"]
    assert res.detail.set_index("student").loc["eve", "diagnosis"] == "unreadable"
    assert {p.row: p.reason for p in res.problems} == {
        3: "contains binary data or control characters",
        5: "contains binary data or control characters",
    }
    assert "read as cp1252" in res.notes[0]
    # in a UTF-8 file, bytes that are not UTF-8 make their row unreadable: skipped
    data = (HEADER.encode() + "béa,Q4,4.69 Mbit/s\n".encode() + b"eve,Q4,\xff\xfe 5 Mbit/s\n"
            + b"zed,Q3,1066 bytes\n")
    res = grade(read_answers(data), "lab5")
    assert sorted(res.detail.student) == ["béa", "zed"]
    assert [str(p) for p in res.problems] == ["row 3: contains binary data or control characters"]
    assert "UTF-8 with some invalid bytes" in res.notes[0]


def test_one_row_of_control_characters_never_refuses_the_class():
    # CR-only line endings (old Mac spreadsheets): the header is the first CR line, so
    # one answer with an escape sequence is that row's problem, not the file's
    data = b"student,question,answer\rbob,Q4,4.69 Mbit/s\rada,Q4,\x1b[31m\rcarl,Q4,4.69 Mbit/s\r"
    res = grade(read_answers(data), "lab5")
    assert sorted(res.detail.student) == ["bob", "carl"]
    assert {p.row: p.reason for p in res.problems} == {3: "contains binary data or control characters"}
    # one huge cell of control characters: only its row is skipped
    data = (HEADER.encode() + b"bob,Q4,4.69 Mbit/s\nada,Q4,\"" + b"\x01" * 30000
            + b"\"\ncarl,Q4,4.69 Mbit/s\n")
    res = grade(read_answers(data), "lab5")
    assert sorted(res.detail.student) == ["bob", "carl"]
    assert [p.row for p in res.problems] == [3]
    # a binary file (control bytes on most lines) is still refused as a whole
    blob = np.random.default_rng(5).integers(0, 256, 20000, dtype=np.uint8).tobytes()
    with pytest.raises(AnswerFileError, match="binary data"):
        read_answers(HEADER.encode() + blob)


def test_unclosed_quote_and_oversized_field_do_not_stop_grading():
    # a quote never closed is reported where it opened; the rows after it are graded
    data = HEADER + 'ada,Q4,"4.69 Mbit/s\nbob,Q4,4.69 Mbit/s\ncid,Q3,1066 bytes\n'
    res = graded(data)
    assert [p.row for p in res.problems] == [2]
    assert "a quote opened in this row is never closed" in res.problems[0].reason
    assert sorted(res.detail.student) == ["bob", "cid"]
    assert res.notes == ("a quote opened at row 2 is never closed: rows 3 to 4 were read again after "
                         "it; check them (a row read again never replaces an answer read before the quote)",)
    # a quote that closes in a later row is a quoted field, as spreadsheets read it: what
    # it holds is never read as rows (it could be a student's answer), and the message
    # says which lines it swallowed
    data = HEADER + 'ada,Q4,"4.69 Mbit/s\nbob,Q4,4.69 Mbit/s\ncid,Q3,"1066 bytes"\neve,Q4,5 Mbit/s\n'
    res = graded(data)
    assert [str(p) for p in res.problems] == [
        "row 2: a line break inside a quoted field; the quoted field runs over 3 lines, to line 4, "
        "and the lines inside it are not read as rows"]
    assert res.detail.student.tolist() == ["eve"] and res.notes == ()
    # a quoted field with a line break that closes properly is one skipped row
    data = HEADER + 'ada,Q4,"4.69\nMbit/s"\nbob,Q4,4.69 Mbit/s\n'
    res = graded(data)
    assert [str(p) for p in res.problems] == ["row 2: a line break inside a quoted field"]
    assert res.detail.student.tolist() == ["bob"]
    data = HEADER + "ada,Q4," + "1" * 200_000 + "\nbob,Q4,4.69 Mbit/s\n"
    res = graded(data)
    assert res.detail.student.tolist() == ["bob"]
    assert [p.row for p in res.problems] == [2]


def _with_answer(answer: str, after=()) -> bytes:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["student", "question", "answer"])
    w.writerow(["bob", "Q4", "4.69 Mbit/s"])
    w.writerow(["bob", "Q3", "1066 bytes"])
    w.writerow(["mallory", "Q4", answer])
    for row in after:
        w.writerow(row)
    return buf.getvalue().encode()


@pytest.mark.parametrize("answer", [
    "x\nbob,Q4,1 bit/s\nbob,Q3,1 byte\nzz",                        # the reviewer's reproducer
    "x" + "\n" * 12 + "bob,Q4,1 bit/s\nbob,Q3,1 byte\nbob,Q9,4.85 Mbit/s\nzz",  # > 8 lines
    "x\nbob,Q4,1 bit/s\nbob,Q3,1 byte\nbob,Q9,4.85 Mbit/s\n" + "A" * 200_000,  # too large a field
    'x\n"bob","Q9","4.85 Mbit/s"\nbob,Q3,"1 byte\n',                 # quotes inside, doubled by the writer
])
def test_a_quoted_answer_never_becomes_rows(answer):
    # a properly quoted answer with line breaks is one field: its row is skipped, and
    # nothing inside it is read as a row (it would replace other students' answers)
    res = grade(read_answers(_with_answer(answer, [["eve", "Q4", "4.69 Mbit/s"]])), "lab5")
    assert res.grades.set_index("student").loc["bob", ["Q3", "Q4", "Q9"]].tolist() == [1.0, 1.0, 0.0]
    assert sorted(res.detail.student) == ["bob", "bob", "eve"]
    assert [p.row for p in res.problems] == [4]
    assert ("a line break inside a quoted field" in res.problems[0].reason
            or "unreadable CSV (field larger than field limit" in res.problems[0].reason)
    assert res.notes == ()


def test_rows_read_again_after_an_unclosed_quote_never_replace_earlier_answers():
    data = (HEADER + "bob,Q4,4.69 Mbit/s\nbob,Q3,1066 bytes\nmallory,Q4,\"x\nbob,Q4,1 bit/s\n"
            "bob,Q9,4.85 Mbit/s\ncid,Q3,1066 bytes\ncid,Q3,1000 bytes\n")
    sheet = read_answers(data.encode())
    assert sheet.reread == ((5, 4),) and len(sheet.answers) == 6
    res = grade(sheet, "lab5")
    g = res.grades.set_index("student")
    # bob's clean Q4 stays; his Q9, read again but replacing nothing, is graded; among
    # rows read again the last answer wins, as usual
    assert g.loc["bob", ["Q4", "Q9"]].tolist() == [1.0, 1.0] and g.loc["cid", "Q3"] == 0.5
    assert [str(p) for p in res.problems] == [
        "row 4: a quote opened in this row is never closed (it runs to the end of the file); the row "
        "is skipped and the lines after it are read again",
        "row 5: read again after the quote opened at row 4 that is never closed: it would replace "
        "the answer at row 2 (same student and question), so it is skipped",
        "row 7: replaced by the answer at row 8 (same student and question)",
    ]
    assert "rows 5 to 8 were read again" in res.notes[0]


def test_encodings_and_line_endings():
    data = "\ufeffStudent, Question ,ANSWER\r\nada,q4,4.69 Mbit/s\r\nbéa,Q4,4\u00a0690 kbps\r\n".encode()
    res = grade(read_answers(data), "lab5")
    assert sorted(res.detail.student) == ["ada", "béa"] and res.detail.correct.all()


def test_grading_never_evaluates(monkeypatch):
    grading.answer_key("lab5", 0)  # build the key (and its imports) first

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    text = HEADER + "".join(f"s{i},Q4,{a}\n" for i, a in enumerate([
        "__import__('os').system('true')", "=1+1", "9**9**9 bps", "2 bit^9^9^9", "(lambda: 1)()",
        "4.69 Mbit/s"]))
    res = graded(text)
    assert res.detail.score.tolist() == [0, 0, 0, 0, 0, 1]


# -- outputs: formula injection and HTML escaping --------------------------------------

HOSTILE = (
    "student,question,answer\n"
    "=cmd|' /C calc'!A0,Q4,4.69 Mbit/s\n"
    '"@SUM(1+1)*cmd|\' /C calc\'!A0",Q4,"=HYPERLINK(""http://evil"",""x"")"\n'
    "+eve,Q4,-5 Mbit/s\n"
    "-mallory,Q4,+5 Mbit/s\n"
    '"\t=tab",Q4,@x\n'
    "<script>alert(1)</script>,Q4,<img src=x onerror=alert(1)>\n"
)


def _cells(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return [cell for row in csv.reader(fh) for cell in row]


def test_outputs_are_neutralised_against_formula_injection(tmp_path):
    res = graded(HOSTILE)
    assert len(res.detail) == 6
    res.write_grades(tmp_path / "grades.csv")
    res.write_feedback(tmp_path / "feedback.csv")
    for name in ("grades.csv", "feedback.csv"):
        cells = _cells(tmp_path / name)
        dangerous = [c for c in cells if c.lstrip(" ").startswith(("=", "+", "-", "@", "\t", "\r"))]
        assert dangerous == [], (name, dangerous)
        assert any(c.startswith("'=cmd") for c in cells)
    students = pd.read_csv(tmp_path / "grades.csv", dtype=str, keep_default_na=False).student
    assert "'+eve" in set(students) and "'-mallory" in set(students)
    assert grading.csv_safe("  =1") == "'  =1" and grading.csv_safe("4.69") == "4.69"


def test_report_escapes_everything_from_students(tmp_path):
    res = graded(HOSTILE + "bob,Q99,1\n")
    page = res.report_html()
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "default-src 'none'" in page  # no script could run anyway
    assert "Skipped rows (1)" in page and "unknown question" in page
    res.write_report(tmp_path / "report.html")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == page


def test_report_has_statistics_and_feedback():
    res = grade(simulate_class(12, seed=4, lab="lab5"), "lab5")
    page = res.report_html(title="Lab 5 <2025>")
    assert "<title>Lab 5 &lt;2025&gt;</title>" in page
    assert "Questions" in page and "most frequent slip" in page and "Feedback per student" in page
    assert page.count("<details>") == 12
    assert res.detail.message.iloc[0] in page or "&#x27;" in page


# -- the synthetic class and consistency with check -----------------------------------

def test_simulated_class_is_deterministic_and_realistic():
    a = simulate_class(40, seed=9, lab="lab5")
    assert a.equals(simulate_class(40, seed=9, lab="lab5")) and not a.equals(simulate_class(40, seed=10, lab="lab5"))
    res = grade(a, "lab5")
    assert len(res.grades) == 40 and res.problems == ()
    assert 60 < res.grades.percent.mean() < 95
    seen = set(res.detail.diagnosis.dropna())
    for code in ("header_overhead", "wire_vs_shaper", "bytes_bits", "kilo_mega", "percent_fraction",
                 "missing_unit", "goodput_for_rate"):
        assert code in seen, code


def test_batch_agrees_with_check_answer():
    df = simulate_class(6, seed=21, lab="lab5")
    res = grade(df, "lab5")
    for r in res.detail.itertuples():
        one = grading.check_answer(r.question, r.answer, seed=int(r.variant), lab="lab5")
        assert (one.correct, one.score, one.diagnosis, one.message) == (
            r.correct, r.score, r.diagnosis, r.message), (r.question, r.answer)


def test_grade_accepts_a_frame_and_reports_its_rows():
    df = pd.DataFrame({"Student": ["ada", "bob", None], "Question": ["Q4", "Q4", "Q4"],
                       "Answer": ["4.69 Mbit/s", np.nan, "1 Mbit/s"]})
    res = grade(df, "lab5")
    assert res.detail.student.tolist() == ["ada", "bob"]
    assert res.detail.diagnosis.tolist() == [None, "empty"]
    assert [str(p) for p in res.problems] == ["row 4: no student id"]
    with pytest.raises(AnswerFileError, match="question"):
        grade(pd.DataFrame({"student": ["a"], "answer": ["1"]}), "lab5")


def test_grade_file_from_path(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(HEADER + "ada,Q3,1066 bytes\n", encoding="utf-8")
    assert grade_file(path, "lab5").grades.total.tolist() == [1.0]
    assert os.path.getsize(path) < 100


def test_diagnosis_names_the_slip_the_synthetic_students_made():
    df = simulate_class(120, seed=8, with_mistakes=True, lab="lab5")
    res = grade(df.drop(columns="mistake"), "lab5")
    m = df.merge(res.detail[["student", "question", "diagnosis", "correct"]], on=["student", "question"])
    slips = set(grading.SLIPS) - {"rounding"}
    made = m[m.mistake.isin(slips) & ~m.correct]
    agree = (made.mistake == made.diagnosis).mean()
    assert len(made) > 500 and agree > 0.95, agree
    # right answers are never given a diagnosis, and plain wrong values rarely
    assert m[m.mistake.isna()].diagnosis.isna().all()
    wrong = m[m.mistake == "wrong_value"]
    assert wrong.diagnosis.notna().mean() < 0.05


def test_a_variant_whose_key_fails_skips_its_rows(monkeypatch):
    from labcalc.grading import keys

    real = keys._build_key

    def flaky(lab, seed, accounting):
        if seed == 13:
            raise ValueError("solver gave up")
        return real(lab, seed, accounting)

    grading.clear_key_cache()
    monkeypatch.setattr(keys, "_build_key", flaky)
    res = graded("student,question,answer,variant\nada,Q4,4.69 Mbit/s,0\nbob,Q4,1 Mbit/s,13\n")
    assert res.detail.student.tolist() == ["ada"]
    assert [str(p) for p in res.problems] == [
        "row 3: no answer key for variant 13 (ValueError: solver gave up)"]
    with pytest.raises(ValueError, match="variant 13 cannot be computed"):
        grading.answer_keys("lab5", [13], jobs=1)
    grading.clear_key_cache()


# -- review fixes: encodings, delimiters, variants, data frames --------------------------

def test_cp1252_file_with_accented_names():
    text = HEADER + "José,Q4,4.69 Mbit/s\nRenée,Q3,1066 bytes\nada,Q4,4.69 Mbit/s\n"
    for encoding, name in (("cp1252", "cp1252"), ("latin-1", "cp1252")):
        sheet = read_answers(text.encode(encoding))
        assert sheet.problems == ()
        assert sorted(sheet.answers.student) == ["José", "Renée", "ada"]
        assert sheet.notes[0].startswith(f"the file is not UTF-8: read as {name}")
        assert "'José'" in sheet.notes[0]
    # bytes cp1252 leaves undefined: latin-1
    sheet = read_answers(HEADER.encode() + b"Jos\xe9\x81,Q4,4.69 Mbit/s\n")
    assert "latin-1" in sheet.notes[0] and sheet.problems[0].reason.startswith("contains binary")
    # UTF-8 stays UTF-8, without a note
    sheet = read_answers(text.encode("utf-8"))
    assert sheet.notes == () and "José" in set(sheet.answers.student)
    res = grade(read_answers(text.encode("cp1252")), "lab5")
    assert res.notes == sheet.notes or "cp1252" in res.notes[0]


@pytest.mark.parametrize("data, note", [
    (b"student;question;answer\nada;Q4;4,69 Mbit/s\nbob;Q3;1066 bytes\n", "columns separated by ';'"),
    (b"student\tquestion\tanswer\nada\tQ4\t4,69 Mbit/s\nbob\tQ3\t1066 bytes\n", "columns separated by tabs"),
    (b"sep=;\nstudent;question;answer\nada;Q4;4,69 Mbit/s\nbob;Q3;1066 bytes\n", "Excel delimiter line"),
    (b"sep=,\r\nstudent,question,answer\r\nada,Q4,4.69 Mbit/s\r\nbob,Q3,1066 bytes\r\n", "Excel delimiter line"),
    (b"\n\n  \nstudent,question,answer\nada,Q4,4.69 Mbit/s\nbob,Q3,1066 bytes\n", None),
    (b"\xef\xbb\xbf\r\n,,\r\nstudent;question;answer\r\nada;Q4;4.69 Mbit/s\r\nbob;Q3;1066 bytes\r\n", "';'"),
])
def test_delimiters_sep_line_and_leading_blank_lines(data, note):
    res = grade(read_answers(data), "lab5")
    assert res.problems == ()
    assert sorted(res.detail.student) == ["ada", "bob"] and res.detail.correct.all()
    if note:
        assert any(note in n for n in res.notes), res.notes


def test_rows_are_numbered_by_file_line_after_blank_lines():
    res = graded("\n\nstudent,question,answer\nada,Q4,4.69 Mbit/s\nbob,Q99,1\n")
    assert [p.row for p in res.problems] == [5] and res.detail.row.tolist() == [4]


def test_variant_column_is_checked_against_the_salt():
    seed_ada = lab5.variant_for("ada", "course")
    seed_bob = lab5.variant_for("bob", "course")
    right = lambda seed: f"{grading.answer_key('lab5', seed).value('Q4') / 1e6:.5f} Mbit/s"  # noqa: E731
    text = ("student,question,answer,variant\n"
            f"ada,Q4,{right(seed_ada)},{seed_ada}\n"      # 2 right variant
            f"bob,Q4,{right(5)},5\n"                      # 3 a variant of the student's choice
            f"cid,Q4,{right(lab5.variant_for('cid', 'course'))},\n")  # 4 empty: from the salt
    res = graded(text, salt="course")
    assert sorted(res.detail.student) == ["ada", "cid"] and res.detail.correct.all()
    assert [str(p) for p in res.problems] == [
        f"row 3: variant 5 is not the variant of student 'bob' under the course salt ({seed_bob}); "
        f"the row is skipped"]
    assert "checked against the course salt" in res.notes[-1]
    # without a salt the column decides, and an empty cell is reported
    res = graded(text)
    assert sorted(res.detail.student) == ["ada", "bob"]
    assert "no variant" in {p.row: p.reason for p in res.problems}[4]


def test_frame_with_a_float_variant_column():
    key3 = grading.answer_key("lab5", 3)
    df = pd.DataFrame({"student": ["ada", "bob", "cid"], "question": ["Q4", "Q4", "Q3"],
                       "answer": [f"{key3.value('Q4') / 1e6:.5f} Mbit/s", "4.69 Mbit/s", "1066 bytes"],
                       "variant": [3, np.nan, 0]})
    assert df.variant.dtype == float
    res = grade(df, "lab5")  # 3.0 is variant 3; NaN is "no variant" (no salt to derive it)
    assert res.detail.set_index("student").variant.to_dict() == {"ada": 3, "cid": 0}
    assert res.detail.correct.all()
    assert [p.row for p in res.problems] == [3] and "no variant" in res.problems[0].reason
    res = grade(df, "lab5", salt="course")  # NaN: derived from the salt; 3 and 0 are checked
    assert "bob" in set(res.detail.student)
    assert res.detail.set_index("student").loc["bob", "variant"] == lab5.variant_for("bob", "course")
    # a seed too large for a float column is refused, not silently changed
    big = pd.DataFrame({"student": ["ada", "bob"], "question": ["Q4", "Q4"], "answer": ["1 Mbit/s"] * 2,
                        "variant": [1526825638187099109, np.nan]})
    res = grade(big, "lab5")
    assert "has lost digits" in {p.row: p.reason for p in res.problems}[2]
    # nullable integers keep every digit
    big["variant"] = pd.array([1526825638187099109, None], dtype="Int64")
    res = grade(big, "lab5", salt=None)
    assert res.detail.variant.tolist() == [1526825638187099109]


def test_numbers_in_a_frame_read_as_unit_less_text():
    df = pd.DataFrame({"student": ["ada", "bob", "cid", "dan"], "question": ["Q3", "Q3", "Q13.7", "Q19"],
                       "answer": [1066, 1066.0, 0.0619, 1.2247]})
    res = grade(df, "lab5").detail.set_index("student")
    text = grade(pd.DataFrame({"student": ["ada"], "question": ["Q3"], "answer": ["1066"]}), "lab5").detail
    assert res.loc["ada", "diagnosis"] == res.loc["bob", "diagnosis"] == "missing_unit"
    assert res.loc["ada", "message"] == res.loc["bob", "message"] == text.message.iloc[0]
    assert res.loc["cid", "correct"] and res.loc["dan", "correct"]


def test_invisible_characters_in_student_ids_and_answers():
    text = HEADER + "eve\u202egnp.exe,Q4,4.69 Mbit/s\nada,Q4,4.69\u200b Mbit/s\nbob,q\u200b4,4.69 Mbit/s\n"
    res = graded(text)
    assert sorted(res.detail.student) == ["ada", "bob"] and res.detail.correct.all()
    assert [p.row for p in res.problems] == [2]
    assert "invisible or bidirectional control character (U+202E)" in res.problems[0].reason


def test_report_says_how_many_problems_it_lists(monkeypatch):
    from labcalc.grading import report

    monkeypatch.setattr(report, "MAX_LISTED_PROBLEMS", 2)
    res = graded(HEADER + "".join(f"s{i},Q99,1\n" for i in range(5)) + "ada,Q4,4.69 Mbit/s\n")
    page = res.report_html()
    assert "Skipped rows (5; the first 2 are listed)" in page and "3 more, not listed" in page
    res = grade(simulate_class(2, seed=1, lab="lab5"), "lab5")
    assert "each variant has its own" in res.report_html()


def test_many_unclosed_quotes_cost_little():
    import time

    # each quote is closed by the next line's: 50,000 quoted fields with a line break
    data = HEADER.encode() + b'a,Q4,"x\n' * 100_000 + b"bob,Q4,4.69 Mbit/s\n"
    t = time.perf_counter()
    sheet = read_answers(data)
    assert time.perf_counter() - t < 10  # well under a second
    assert len(sheet.problems) == 50_000 and sheet.answers.student.tolist() == ["bob"]
    assert all(p.reason == "a line break inside a quoted field" for p in sheet.problems)
    # quoted fields longer than the csv reader's 8 lines, and a quote never closed
    data = HEADER.encode() + (b'a,Q4,"x' + b"\n" * 20 + b'"\n') * 5_000 + b'c,Q4,"x\n' + b"d,Q4,1 bit/s\n" * 30_000
    t = time.perf_counter()
    sheet = read_answers(data)
    assert time.perf_counter() - t < 10  # about 0.5 s: the file is scanned for quotes once
    assert len(sheet.problems) == 5_001 and len(sheet.answers) == 30_000
    assert "runs over 21 lines" in sheet.problems[0].reason
    assert "never closed (it runs to the end of the file)" in sheet.problems[-1].reason
    sheet = read_answers((HEADER + 'ada,Q4,"4.69 Mbit/s\n' + "bob,Q4,4.69 Mbit/s\n" * 30).encode())
    assert "never closed" in sheet.problems[0].reason and len(sheet.answers) == 30
    assert sheet.reread == ((3, 2),)

def test_a_variant_column_without_salt_is_noted():
    data = b"student,question,answer,variant\nada,Q4,4.69 Mbit/s,0\n"
    res = grade(read_answers(data), "lab5")
    assert res.notes == ("variants taken from the 'variant' column, not checked; pass the course salt "
                         "(--salt, or salt=) to derive and check them",)
    assert "variants taken from the &#x27;variant&#x27; column" in res.report_html()
    assert grade(read_answers(data), "lab5", salt="s").notes[-1] == "the variant column was checked against the course salt"
    assert grade(read_answers(b"student,question,answer\nada,Q4,4.69 Mbit/s\n"), "lab5").notes == ()


def test_batch_refuses_negatives_and_zero_slips_like_check():
    answers = {"Q13.3": "-0.1 %", "Q4": "-4.69 Mbit/s", "Q3": "0 bytes", "Q44.1": "0 ms",
               "Q13.7": "0 %", "Q29": "0.3 ms", "Q9": "10\u2076 bit/s", "Q13.8": "6.2 %%"}
    data = "student,question,answer\n" + "".join(f"ada,{q},{a}\n" for q, a in answers.items())
    res = grade(read_answers(data.encode()), "lab5")
    by = res.detail.set_index("question")
    for q, a in answers.items():
        r = grading.check_answer(q, a, lab="lab5")
        assert (by.loc[q, "score"], by.loc[q, "diagnosis"], by.loc[q, "message"]) == (
            r.score, r.diagnosis, r.message), q
    assert by.loc["Q13.3", "diagnosis"] == "negative" and by.loc["Q29", "diagnosis"] == "kilo_mega"
    assert by.loc[["Q3", "Q44.1", "Q13.7", "Q9", "Q13.8", "Q4"], "score"].tolist() == [0.0] * 6
