"""The labcalc command: answers, solve, errors without tracebacks."""

import re
import subprocess
import sys

import pytest

from labcalc.cli import main
from labcalc.data import scenario_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_answers_lab5_prints_every_theory_answer(capsys):
    code, out, _ = run(capsys, "answers", "lab5")
    assert code == 0
    for q in ("Q3", "Q4", "Q8", "Q9", "Q13", "Q17", "Q20", "Q21", "Q22", "Q23", "Q24",
              "Q27", "Q29", "Q31", "Q35", "Q39", "Q40", "Q41", "Q44"):
        # each question by its answer ids (Q13 as Q13.1 ... Q13.12)
        assert f"\n{q} " in out or f" {q} " in out or f" {q}.1 " in out, q
    assert "1066" in out and "4.69 Mbit/s" in out


def test_answers_csv_and_tc(capsys):
    code, out, _ = run(capsys, "answers", "lab5", "--accounting", "tc", "--csv")
    assert code == 0
    assert out.splitlines()[0] == "id,question,item,value,unit"
    assert "Q3,Q3,bytes a 1000-byte UDP datagram takes on the link (Ethernet frame),1042.0,byte" in out
    # issue 23 item 7: every row carries its answer id, Q13's twelve parts each their own
    rows = [line.split(",", 2) for line in out.splitlines()[1:]]
    q13 = [r[0] for r in rows if r[1] == "Q13"]
    assert q13 == [f"Q13.{k}" for k in range(1, 13)]
    assert len({r[0] for r in rows}) == len(rows) == 55


def test_solve_lab53_proportional(capsys):
    code, out, _ = run(capsys, "solve", str(scenario_path("lab53")), "--fairness", "proportional")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    assert [rows[f][1] for f in ("1to3", "1to2", "2to3")] == ["1.667", "3.333", "3.333"]


def test_solve_lab53_maxmin_and_alpha(capsys):
    _, out, _ = run(capsys, "solve", str(scenario_path("lab53")), "--fairness", "maxmin")
    assert out.count("2.500") == 3
    _, out, _ = run(capsys, "solve", str(scenario_path("lab53")), "--fairness", "alpha=2")
    x = float(next(l.split()[1] for l in out.splitlines() if l.startswith("1to3")))
    # alpha-fair parking lot: x = c / (1 + 2^(1/alpha)) = 5 / (1 + sqrt 2)
    assert x == pytest.approx(5 / (1 + 2 ** 0.5), abs=0.0005)


def test_solve_fifo_variant_a3(capsys):
    code, out, _ = run(capsys, "solve", str(scenario_path("lab51")), "--variant", "A3", "--fairness", "fifo")
    assert code == 0
    h1 = next(l.split() for l in out.splitlines() if l.startswith("h1_udp"))
    assert h1[1:4] == ["0.500", "0.469", "53.1"]


def test_solve_reno_d2(capsys):
    _, out, _ = run(capsys, "solve", str(scenario_path("lab51")), "--variant", "D2", "--fairness", "reno")
    rates = {l.split()[0]: float(l.split()[1]) for l in out.splitlines()[2:]}
    assert rates["h2_tcp"] / rates["h1_tcp"] == pytest.approx(8 / 3, rel=1e-3)


def test_solve_csv(capsys):
    _, out, _ = run(capsys, "solve", str(scenario_path("lab52")), "--fairness", "fifo", "--csv")
    assert out.splitlines()[0] == "flow,rate_bps,goodput_bps,loss,bottleneck"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["solve", "nope.toml"], "cannot read scenario file"),
        (["answers", "lab9"], "lab must be one of lab5; got 'lab9'"),
        (["solve", "SCEN", "--fairness", "reno"], "rtt"),
    ],
)
def test_errors_are_one_line(capsys, argv, message):
    argv = [str(scenario_path("lab52")) if a == "SCEN" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_fairness_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve", str(scenario_path("lab53")), "--fairness", "alpha=-1"])
    assert exc.value.code == 2
    assert "alpha must be > 0; got -1.0" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "labcalc.cli", "answers", "lab5"],
                         capture_output=True, text=True, check=True).stdout
    assert "Q44" in out


def test_convert_names_a_folder_given_as_input_or_output(tmp_path, capsys):
    ping = scenario_path("lab51").parents[1] / "measurements" / "recorded" / "ping.txt"
    assert main(["convert", str(tmp_path), "-o", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path}: is a folder" in err and "manifest" in err
    assert main(["convert", str(ping), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"-o {tmp_path}: is a folder" in err and "converted.csv" in err


def test_os_errors_are_said_in_words(tmp_path, capsys):
    ping = scenario_path("lab51").parents[1] / "measurements" / "recorded" / "ping.txt"
    target = tmp_path / "missing-folder" / "sub"
    target.parent.write_text("a file where a folder should be")
    assert main(["convert", str(ping), "-o", str(target / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Errno" not in err and str(target.parent) in err


def test_convert_counts_its_rows_in_words(tmp_path, capsys):
    # one reply: "1 row", not "1 rows"; the count is the file's replies, read with a regex here
    text = ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
            "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.052 ms\n")
    (tmp_path / "one.txt").write_text(text)
    assert main(["convert", str(tmp_path / "one.txt"), "-o", str(tmp_path / "one.csv")]) == 0
    assert "(1 row of ping samples;" in capsys.readouterr().out
    more = text + "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.061 ms\n"
    (tmp_path / "two.txt").write_text(more)
    assert main(["convert", str(tmp_path / "two.txt"), "-o", str(tmp_path / "two.csv")]) == 0
    n = len(re.findall(r"icmp_seq=\d+", more))
    assert f"({n} rows of ping samples;" in capsys.readouterr().out


def test_simulate_and_sweep_pass_their_timeout(monkeypatch, capsys, tmp_path):
    # --timeout reaches simulate / sweep as timeout_s; a run past it is one line on stderr, exit 2
    from labcalc import sim
    from labcalc.sim import runner

    seen = {}

    def simulate(*args, **kw):
        seen["simulate"] = kw["timeout_s"]
        raise runner.SimulationTimeout("the run took longer than timeout_s = 0.5 s; its worker was stopped")

    def sweep(*args, **kw):
        seen["sweep"] = kw["timeout_s"]
        raise sim.SimulationUnavailable("ns-3 is not installed (test)")

    monkeypatch.setattr(sim, "available", lambda: False)
    monkeypatch.setattr(sim, "simulate", simulate)
    monkeypatch.setattr(sim, "sweep", sweep)
    lab51 = str(scenario_path("lab51"))
    assert main(["simulate", lab51, "--variant", "A2", "--timeout", "0.5", "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "took longer than timeout_s = 0.5 s" in err and "Traceback" not in err
    assert main(["sweep", lab51, "--grid", "variant=A2", "--timeout", "7", "-o", str(tmp_path / "g.csv")]) == 2
    assert seen == {"simulate": 0.5, "sweep": 7.0}
