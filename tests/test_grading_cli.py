"""labcalc grade: files in, grades and report out, problems reported, never a traceback."""

import csv

from labcalc.cli import main
from labcalc.grading import simulate_class


def test_grade_writes_grades_report_and_feedback(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    simulate_class(8, seed=1, lab="lab5").to_csv(answers, index=False)
    with open(answers, "a", encoding="utf-8") as fh:
        fh.write("zed,0,Q99,1 Mbit/s\n=evil,0,Q4,4.69 Mbit/s\n")
    out = tmp_path / "grades.csv"
    code = main(["grade", "lab5", str(answers), "-o", str(out), "--report", str(tmp_path / "r.html"),
                 "--feedback", str(tmp_path / "f.csv")])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.startswith("lab5: 9 students, 441 answers graded")
    assert "1 row skipped" in captured.out
    assert "row 442: unknown question 'Q99'" in captured.err
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 9 and rows[0]["student"] == "'=evil"
    assert set(rows[0]) >= {"student", "variant", "Q3", "Q44.2", "total", "max_total", "percent"}
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (tmp_path / "f.csv").exists()


def test_grade_with_salt(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    simulate_class(3, seed=2, salt="s", lab="lab5").drop(columns="variant").to_csv(answers, index=False)
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"), "--salt", "s"]) == 0
    with_salt = capsys.readouterr().out
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g2.csv")]) == 0
    without = capsys.readouterr().out
    mean = lambda text: float(text.split("mean ")[1].split(" %")[0])  # noqa: E731
    assert mean(with_salt) > mean(without)  # the right variants give the right keys


def test_grade_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\x00\x01\x02 binary")
    for argv, message in [
        (["grade", "lab5", str(tmp_path / "missing.csv"), "-o", "x.csv"], "answers file not found"),
        (["grade", "lab5", str(bad), "-o", "x.csv"], "not a CSV text file"),
        (["grade", "lab9", str(bad), "-o", "x.csv"], "lab must be one of lab5"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    big = tmp_path / "big.csv"
    big.write_text("student,question,answer\n" + "a,Q4,1 Mbit/s\n" * 100, encoding="utf-8")
    assert main(["grade", "lab5", str(big), "-o", str(tmp_path / "g.csv"), "--max-bytes", "500"]) == 2
    assert "above the limit of 500 bytes" in capsys.readouterr().err


# -- review fixes ----------------------------------------------------------------------

def test_grade_refuses_to_overwrite_the_answers(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    original = "student,question,answer\nada,Q4,4.69 Mbit/s\n"
    answers.write_text(original, encoding="utf-8")
    same = [str(answers), str(tmp_path / "." / "answers.csv")]
    for flag in ("-o", "--report", "--feedback", "--problems"):
        for path in same:
            argv = ["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv")]
            argv = argv[:3] + [flag, path] + (argv[3:] if flag != "-o" else [])
            assert main(argv) == 2, argv
            err = capsys.readouterr().err
            assert "is the answers file itself" in err and "Traceback" not in err
    assert answers.read_text(encoding="utf-8") == original
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"),
                 "--report", str(tmp_path / "g.csv")]) == 2
    assert "name the same file" in capsys.readouterr().err


def test_grade_prints_notes_and_writes_all_problems(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    rows = "".join(f"s{i};Q99;1\n" for i in range(30))
    answers.write_bytes(("sep=;\nstudent;question;answer\nJosé;Q4;4,69 Mbit/s\n" + rows).encode("cp1252"))
    problems = tmp_path / "problems.csv"
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"),
                 "--problems", str(problems)]) == 0
    out, err = capsys.readouterr()
    assert "note: the file is not UTF-8: read as cp1252" in out
    assert "note: line 1 'sep=;'" in out
    assert "... and 10 more rows skipped (all are in" in err
    with open(problems, newline="", encoding="utf-8") as fh:
        listed = list(csv.DictReader(fh))
    assert len(listed) == 30 and listed[0]["row"] == "4"
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"),
                 "--report", str(tmp_path / "r.html")]) == 0
    assert "(all are in the report)" in capsys.readouterr().err


def test_cli_output_into_a_closed_pipe_is_quiet():
    import subprocess
    import sys

    # "true" exits without reading: every write of labcalc meets a closed pipe
    for command in ("answers lab5", "export lab5 --format gift --variants 2"):
        proc = subprocess.run(f"{sys.executable} -m labcalc.cli {command} | true",
                              shell=True, capture_output=True, text=True, check=True)
        assert proc.stderr == "", (command, proc.stderr)


def test_grade_without_salt_says_the_variant_column_is_trusted(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    simulate_class(3, seed=2, salt="s", lab="lab5").to_csv(answers, index=False)
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"),
                 "--report", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    note = ("note: variants taken from the 'variant' column, not checked; pass the course salt "
            "(--salt, or salt=) to derive and check them")
    assert note in out.splitlines()
    assert "variants taken from the &#x27;variant&#x27; column" in (tmp_path / "r.html").read_text(encoding="utf-8")
    assert main(["grade", "lab5", str(answers), "-o", str(tmp_path / "g.csv"), "--salt", "s"]) == 0
    assert "variants taken from" not in capsys.readouterr().out
