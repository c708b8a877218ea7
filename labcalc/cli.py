"""The ``labcalc`` command.

Subcommands::

    labcalc answers lab5 [--accounting wire|tc|frame|ip] [--csv] [--variant SEED | --student ID --salt S]
    labcalc solve SCENARIO.toml --fairness maxmin|proportional|alpha=A|reno|fifo [--variant V]
    labcalc convert FILE -o OUT.csv [--format FORMAT]
    labcalc measurements build MANIFEST -o TABLE.csv [--allow-outside]
    labcalc grade lab5 ANSWERS.csv -o GRADES.csv [--assignment A.toml] [--report REPORT.html]
                  [--feedback FEEDBACK.csv] [--problems PROBLEMS.csv] [--moodle-grades FILE.csv]
                  [--salt S] [--column FIELD=HEADER] [--hide-expected-until 2025-06-01T23:59]
                  [--lms moodle-en|moodle-fr|moodle-de]
    labcalc export lab5 --format moodle-xml|gift [--assignment A.toml] [--variants N] [--first-seed S]
                  [--lms moodle-en] [-o QUIZ]
    labcalc simulate SCENARIO.toml [--variant V] [--duration S] [--seed N] [--tcp NAME] -o OUT_DIR
    labcalc sweep SCENARIO.toml --grid NAME=V1,V2,... [--grid ...] [--seeds 1-5] [--workers N]
                  [--scheduler tcp://HOST:8786] [--cache-dir DIR | --no-cache] [--duration S] -o TABLE.csv

Errors in the input (a bad scenario file, an unknown fairness) print one line naming
the problem and exit with status 2; they never print a traceback. Output piped into a
command that stops reading early (``| head``) ends quietly.

Examples
--------
>>> main(["solve", str(__import__("labcalc.data").data.scenario_path("lab53")),
...       "--fairness", "proportional"])  # doctest: +NORMALIZE_WHITESPACE
lab53: proportional fairness (dual Newton)
flow  rate [Mbit/s]  goodput [Mbit/s]  loss [%]  bottleneck
1to3          1.667             1.616         -     r1-eth1
1to2          3.333             3.233         -     r1-eth1
2to3          3.333             3.233         -     r2-eth2
0
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def _parse_fairness(text: str):
    text = text.strip().lower()
    if text in ("maxmin", "max-min", "proportional", "reno", "fifo"):
        return text.replace("-", ""), None
    if text.startswith("alpha="):
        try:
            alpha = float(text.split("=", 1)[1])
        except ValueError:
            raise argparse.ArgumentTypeError(f"alpha must be a number; got {text!r}") from None
        if not alpha > 0:
            raise argparse.ArgumentTypeError(f"alpha must be > 0; got {alpha!r}")
        return "alpha", alpha
    raise argparse.ArgumentTypeError(
        f"fairness must be maxmin, proportional, alpha=A, reno or fifo; got {text!r}"
    )


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="labcalc",
        description="Theory next to measurement for congestion-control labs.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p_answers = sub.add_parser("answers", help="print every theory answer of a lab handout")
    p_answers.add_argument("lab", help="lab name, e.g. lab5")
    p_answers.add_argument("--accounting", default="wire", choices=["wire", "frame", "tc", "ip"],
                           help="byte accounting of the links (wire = handout theory, tc = Linux shaper)")
    p_answers.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    p_answers.add_argument("--variant", type=_seed, default=None, metavar="SEED",
                           help="answer key of a variant (seed 0 = the handout's numbers)")
    p_answers.add_argument("--student", default=None, help="answer key of this student's variant (needs --salt)")
    p_answers.add_argument("--salt", default=None, help="course salt that maps student ids to variants")

    p_solve = sub.add_parser("solve", help="allocate rates in a scenario file")
    p_solve.add_argument("scenario", help="scenario TOML file (see data/scenarios)")
    p_solve.add_argument("--fairness", type=_parse_fairness, default=("maxmin", None),
                         help="maxmin, proportional, alpha=A, reno or fifo (UDP without congestion control)")
    p_solve.add_argument("--variant", default=None, help="a [variants.NAME] table of the scenario")
    p_solve.add_argument("--csv", action="store_true", help="print CSV (base units) instead of a table")

    p_convert = sub.add_parser("convert", help="turn a tool's output into a tidy CSV")
    p_convert.add_argument("file", help="tool output (iperf, iperf3, ping, Windows ping, ss, tc, tcp_probe, ns-3, "
                                        "tshark, Wireshark's CSV export, ...)")
    p_convert.add_argument("-o", "--output", required=True, help="CSV file to write")
    p_convert.add_argument("--format", default=None,
                           help="force a format instead of sniffing it: labtool, iperf, iperf3, ping, ping_windows, "
                                "tcp_probe, ss, tc_qdisc, qlen, ns3, tshark, wireshark_csv")

    p_meas = sub.add_parser("measurements", help="build the measurement table from raw files (a manifest)")
    meas_sub = p_meas.add_subparsers(dest="action", required=True)
    p_build = meas_sub.add_parser("build", help="read the raw files a manifest names and write the tidy CSV")
    p_build.add_argument("manifest", help="manifest TOML ([[measurement]] tables), or a folder holding one")
    p_build.add_argument("-o", "--output", required=True, help="CSV file to write ('-' for standard output)")
    p_build.add_argument("--allow-outside", action="store_true",
                         help="let the manifest read files outside its own folder (by default it reads only the "
                              "files in its folder and below: a grader builds students' manifests)")

    p_grade = sub.add_parser("grade", help="grade a class's answers file (CSV: student, question, answer[, variant])")
    p_grade.add_argument("lab", help="lab name, e.g. lab5")
    p_grade.add_argument("answers", help="answers CSV (untrusted: bad rows are reported and skipped)")
    p_grade.add_argument("-o", "--output", required=True, help="grades CSV to write (one row per student)")
    p_grade.add_argument("--report", default=None, help="HTML report to write (statistics, feedback)")
    p_grade.add_argument("--feedback", default=None, help="CSV to write with one row per answer and its message")
    p_grade.add_argument("--problems", default=None, help="CSV to write with every skipped row and why")
    p_grade.add_argument("--salt", default=None,
                         help="course salt: student ids are hashed to variants (a variant column is "
                              "then checked against it, not trusted)")
    p_grade.add_argument("--accounting", default=None, choices=["wire", "frame", "tc", "ip"],
                         help="byte accounting of the answer key (default: the assignment's, else wire as "
                              "the handout)")
    p_grade.add_argument("--sigfigs", type=int, default=None, help="grade on significant digits instead")
    p_grade.add_argument("--max-bytes", type=int, default=None, help="refuse larger answers files")
    p_grade.add_argument("--lms", default=None, choices=_LMS,
                         help="the course grades the exported quiz (Moodle XML) in Moodle, on a site in this "
                              "language (-mysql: a Moodle on MySQL/MariaDB): give Moodle's grade, and say in the "
                              "feedback where labcalc's differs and why")
    p_grade.add_argument("--assignment", default=None,
                         help="assignment TOML: the questions asked, their points, tolerances and slip credits "
                              "(the same file as for labcalc export)")
    p_grade.add_argument("--column", action="append", default=[], metavar="FIELD=HEADER",
                         help="the answers file's column for a field (student, question, answer, variant, state, "
                              "response, question_text); repeat for several")
    p_grade.add_argument("--moodle-grades", default=None,
                         help="CSV to write for Moodle's gradebook import (an identifier column, the grade)")
    p_grade.add_argument("--moodle-id", default=None, choices=["email", "username", "idnumber"],
                         help="what the student ids are, for --moodle-grades (default: from the file)")
    p_grade.add_argument("--hide-expected-until", default=None, metavar="DATETIME",
                         help="hold the expected values back in the report and feedback until then "
                              "(ISO 8601, such as 2025-06-01T23:59)")

    p_export = sub.add_parser("export", help="export the questions as a Moodle quiz (XML or GIFT)")
    p_export.add_argument("lab", help="lab name, e.g. lab5")
    p_export.add_argument("--format", required=True, choices=["moodle-xml", "gift"])
    p_export.add_argument("--assignment", default=None,
                          help="assignment TOML: its questions, variants, points, tolerances and credits")
    p_export.add_argument("--variants", type=int, default=None,
                          help="variants per question (default: the assignment's, else 20)")
    p_export.add_argument("--first-seed", type=_seed, default=None,
                          help="seed of the first variant (default: the assignment's, else 1)")
    p_export.add_argument("--questions", default=None,
                          help="comma-separated answer ids, any case (default: all)")
    p_export.add_argument("--no-slips", action="store_true", help="no partial-credit answers for the slips")
    p_export.add_argument("--accounting", default=None, choices=["wire", "frame", "tc", "ip"],
                          help="byte accounting (default: the assignment's, else wire)")
    p_export.add_argument("--lms", default="moodle-en", choices=_LMS,
                          help="the Moodle site the XML quiz is for, by its language (default moodle-en); "
                               "-mysql for a Moodle on MySQL/MariaDB, whose import refuses unit names that differ "
                               "only in letter case")
    p_export.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")

    _add_sim_parsers(sub)
    return parser


def _add_sim_parsers(sub) -> None:
    """``simulate`` and ``sweep`` (ns-3, with the ``sim`` extra)."""
    p_sim = sub.add_parser("simulate", help="run a scenario in ns-3 (needs labcalc[sim]) and write the traces")
    p_sim.add_argument("scenario", help="scenario TOML file (see data/scenarios)")
    p_sim.add_argument("--variant", default=None, help="a [variants.NAME] table of the scenario")
    p_sim.add_argument("--duration", type=float, default=30.0, help="simulated time in seconds (default 30)")
    p_sim.add_argument("--seed", type=int, default=1, help="ns-3 random seed, >= 1 (default 1)")
    p_sim.add_argument("--tcp", default="NewReno", help="TCP congestion control (NewReno, Cubic, ...)")
    p_sim.add_argument("--queue-disc", default=None,
                       help="override every link's queue: droptail, red (Mininet's RED), codel, fq_codel or pie "
                            "(default: the scenario's own queues)")
    p_sim.add_argument("--queue-packets", type=int, default=None, help="queue size of every link [packets]")
    p_sim.add_argument("--error-rate", type=float, default=0.0, help="random loss on the bottleneck [fraction]")
    p_sim.add_argument("--max-packets", type=float, default=5e6, help="refuse longer runs (default 5e6 packets)")
    p_sim.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="stop the run after this much wall time once ns-3 is loaded (default: no limit)")
    p_sim.add_argument("-o", "--output", required=True, help="folder to write the files into")

    p_sweep = sub.add_parser("sweep", help="run a grid of ns-3 simulations in parallel (cached) and write one table")
    p_sweep.add_argument("scenario", help="scenario TOML file (see data/scenarios)")
    p_sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                         help="a simulate option (or variant) and its values; repeat for more (every combination runs)")
    p_sweep.add_argument("--seeds", default="1", help="ns-3 seeds: 1,2,3 or 1-5 (default 1)")
    p_sweep.add_argument("--variant", default=None, help="a [variants.NAME] table for every run")
    p_sweep.add_argument("--duration", type=float, default=None, help="simulated time of every run in seconds")
    p_sweep.add_argument("--tcp", default=None, help="TCP congestion control of every run")
    p_sweep.add_argument("--queue-disc", default=None, help="queue discipline of every link of every run")
    p_sweep.add_argument("--queue-packets", type=int, default=None, help="queue size of every link [packets]")
    p_sweep.add_argument("--error-rate", type=float, default=None, help="random loss on the bottleneck [fraction]")
    p_sweep.add_argument("--max-packets", type=float, default=None, help="refuse longer runs (default 5e6 packets)")
    p_sweep.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    p_sweep.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                         help="stop a run after this much wall time; its row says so (default: no limit)")
    p_sweep.add_argument("--scheduler", default=None,
                         help="address of a Dask scheduler (tcp://host:8786) to run on instead (labcalc[dask])")
    p_sweep.add_argument("--cache-dir", default=None, help="where finished runs are kept (default ~/.cache/labcalc)")
    p_sweep.add_argument("--no-cache", action="store_true", help="simulate every run again and keep nothing")
    p_sweep.add_argument("-o", "--output", required=True, help="CSV table to write ('-' for standard output)")


#: The LMS modes (labcalc.grading.moodle.LMS_NAMES, written out: the parser stays light).
_LMS = ["moodle-en", "moodle-fr", "moodle-de", "moodle-en-mysql", "moodle-fr-mysql", "moodle-de-mysql"]


#: --grid names whose values are names, kept as text (a variant may be called "1").
_GRID_TEXT = ("variant", "tcp", "transport", "queue_disc", "udp_arrivals")


def _grid_value(text: str, name: str = ""):
    """A value of --grid: a whole number, a number, true/false, or text (a name)."""
    if name in _GRID_TEXT:
        return text
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


#: Most seeds --seeds gives (labcalc.sim.grid.MAX_RUNS, written out: the parser stays light).
_MAX_SEEDS = 10_000


def _parse_seeds(text: str) -> list:
    seeds = []
    for part in text.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            more = range(int(lo), int(hi) + 1) if sep else [int(part)]
        except ValueError:
            raise ValueError(f"--seeds: expected whole numbers such as 1,2,3 or 1-5; got {text!r}") from None
        if len(seeds) + len(more) > _MAX_SEEDS:    # before listing them: 1-10000000000 would fill the memory
            raise ValueError(f"--seeds: {text!r} gives more than {_MAX_SEEDS:,} seeds; a sweep runs at most "
                             f"{_MAX_SEEDS:,} runs: split it into several sweeps (each keeps its runs in the cache)")
        seeds.extend(more)
    if not seeds:
        raise ValueError(f"--seeds: no seed in {text!r}")
    return seeds


def _seed(text: str) -> int:
    try:
        # a variant as labcalc writes it for spreadsheets ("v1526825638187099109") too
        value = int(text[1:] if text[:1] in "vV" else text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number >= 0; got {text!r}") from None
    if not 0 <= value <= 2**63 - 1:
        raise argparse.ArgumentTypeError(f"a seed is between 0 and 2**63 - 1; got {value}")
    return value


def _answers(args) -> int:
    from labcalc.labs import get_lab
    from labcalc.units import format_quantity

    lab = get_lab(args.lab)
    seed = args.variant
    if args.student is not None or args.salt is not None:
        if args.student is None or args.salt is None:
            raise ValueError("--student and --salt go together")
        if seed is not None:
            raise ValueError("give either --variant or --student/--salt, not both")
        seed = lab.variant_for(args.student, args.salt)
    params = None if seed is None else lab.variant(seed)
    df = lab.table(params, accounting=args.accounting)
    # every row carries its answer id (Q13.1 ... Q13.12): the question alone repeats
    df.insert(0, "id", [a.id for a in lab.ANSWERS])
    if args.csv:
        df[["id", "question", "item", "value", "unit"]].to_csv(sys.stdout, index=False)
        return 0
    shown = df[["id", "item", "value", "unit"]].copy()
    shown["value"] = [f"{v:.6g}" for v in df["value"]]
    # as the question asks it: a constant (Q19's c) is a plain number, not a percentage
    shown["reads"] = [format_quantity(v, u) if (u != "1" or a.display_unit == "%") else f"{v:.4g}"
                      for v, u, a in zip(df["value"], df["unit"], lab.ANSWERS)]
    which = "" if seed is None else f", variant {seed}"
    print(f"{args.lab}: theory answers ({args.accounting} accounting{which}; values in base units)")
    if seed is not None:
        phrases = set(lab.accounting_phrases.get(args.accounting, {}))
        fields = {k: v for k, v in (lab.prompt_fields(params, "wire") if lab.prompt_fields else {}).items()
                  if k not in phrases}
        print("scenario: " + ", ".join(f"{k}={v}" for k, v in fields.items()))
    print(shown.to_string(index=False))
    return 0


def _solve(args) -> int:
    import numpy as np
    import pandas as pd

    from labcalc.scenario import load_network

    net = load_network(args.scenario, variant=args.variant)
    kind, alpha = args.fairness
    loss = None
    if kind == "fifo":
        from labcalc.openloop import fifo_split

        res = fifo_split(net)
        title = "FIFO drop-tail split of the offered traffic (no congestion control)"
        rates, goodputs, loss, bottlenecks = res.rates, res.goodputs, res.loss, res.bottlenecks
    else:
        from labcalc import fairness

        if kind == "maxmin":
            alloc = fairness.max_min(net)
            title = "max-min fairness"
        elif kind == "proportional":
            alloc = fairness.proportional(net)
            title = "proportional fairness"
        elif kind == "reno":
            alloc = fairness.reno(net)
            title = "TCP-Reno utility"
        else:
            alloc = fairness.alpha_fair(net, alpha)
            title = f"alpha-fairness, alpha = {alpha:g}"
        solver = getattr(alloc, "solver", "")
        if solver and kind != "maxmin":
            title += f" ({solver})"
        rates, goodputs, bottlenecks = alloc.rates, alloc.goodputs, alloc.bottlenecks
    if args.csv:
        out = pd.DataFrame({"rate_bps": rates, "goodput_bps": goodputs,
                            "loss": loss if loss is not None else np.nan,
                            "bottleneck": bottlenecks})
        out.to_csv(sys.stdout)
        return 0
    table = pd.DataFrame(
        {
            "rate [Mbit/s]": [f"{r / 1e6:.3f}" for r in rates],
            "goodput [Mbit/s]": [f"{g / 1e6:.3f}" for g in goodputs],
            "loss [%]": ["-" if loss is None else f"{100 * x:.1f}" for x in (loss if loss is not None else rates)],
            "bottleneck": [b if b else "-" for b in bottlenecks],
        },
        index=pd.Index(list(rates.index), name="flow"),
    )
    print(f"{net.name or args.scenario}: {title}")
    print(table.reset_index().to_string(index=False))
    return 0


def _convert(args) -> int:
    import os
    import warnings

    from labcalc import measure
    from labcalc.measure.tidy import kind_of, write_tidy

    # The readers warn about skipped lines with a Python warning (source line and a hint at
    # df.attrs); at a terminal we say the same in words, once, from the frame's attrs.
    if os.path.isdir(args.file):
        raise ValueError(f"{args.file}: is a folder; convert reads one tool output file (to read a "
                         "folder of raw files, list them in a manifest: 'labcalc measurements build')")
    if not os.path.isfile(args.file):
        raise ValueError(f"{args.file}: file not found")
    if args.output != "-" and os.path.isdir(args.output):
        raise ValueError(f"-o {args.output}: is a folder; give the CSV file to write "
                         f"(e.g. {os.path.join(args.output, 'converted.csv')})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", measure.MalformedLinesWarning)
        df = measure.read(args.file, format=args.format)
    # Numbers at the precision the tool printed: shortest exact form, no float noise.
    table = df.copy()
    for column in table.columns:
        if table[column].dtype.kind == "f":
            table[column] = [_short_number(v) for v in table[column]]  # floats, without float noise
    # labcalc's own per-sample file: '# labcalc samples v1', the reader's attrs (which side
    # measured, the end-of-test lines), the table; read() and manifests read it back
    write_tidy(table, args.output, kind_of(df), measure.converted_attrs(df, os.path.basename(args.file)))
    bad = df.attrs.get("malformed") or {}
    if bad.get("count"):
        lines = ", ".join(str(n) for n in bad.get("lines", []))
        more = " and more" if bad["count"] > len(bad.get("lines", [])) else ""
        print(f"labcalc: skipped {bad['count']} line(s) of {args.file} that do not read as "
              f"{df.attrs.get('format', 'this format')} output (line {lines}{more})", file=sys.stderr)
    if args.output != "-":
        print(f"wrote {args.output} ({len(df)} row{'' if len(df) == 1 else 's'} of {df.attrs.get('format', '?')} samples; "
              "a per-sample table, not a measurement table: name it (or the raw file) in a manifest's "
              "[[measurement]], see 'labcalc measurements build')")
    return 0


def _short_number(v) -> float:
    """A float rounded to 15 significant digits: written in its shortest form without float noise
    (0.23600000000000002 becomes 0.236), while a Unix time keeps its microseconds."""
    import math

    if v is None or not math.isfinite(v):
        return v
    return float(f"{float(v):.15g}")


def _measurements(args) -> int:
    from labcalc.measure.manifest import build_manifest, write_measurements

    table = build_manifest(args.manifest, allow_outside=args.allow_outside)
    write_measurements(table, args.output)
    if args.output != "-":
        print(f"wrote {args.output} ({len(table)} measurements)")
    return 0


def _same_file(a, b) -> bool:
    import os
    from pathlib import Path

    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:  # pragma: no cover - a path that vanished meanwhile
        pass
    return Path(a).resolve() == Path(b).resolve()


def _columns(pairs) -> dict:
    """``--column FIELD=HEADER`` options as a mapping."""
    from labcalc.grading.assignment import COLUMN_FIELDS

    out = {}
    for pair in pairs:
        field, sep, header = pair.partition("=")
        field = field.strip().lower()
        if not sep or not header.strip():
            raise ValueError(f"--column: expected FIELD=HEADER, such as student=Email address; got {pair!r}")
        if field not in COLUMN_FIELDS + ("finished",):
            raise ValueError(f"--column: unknown field {field!r} (known: {', '.join(COLUMN_FIELDS)}, finished)")
        header = header.strip()
        if len(header) > 1 and header[0] == header[-1] and header[0] in "'\"":
            header = header[1:-1]  # quotes a shell did not remove (Windows cmd keeps '...')
        out[field] = header
    return out


def _grade(args) -> int:
    from labcalc import grading
    from labcalc.grading.assignment import read_assignment
    from labcalc.grading.lmsfiles import write_moodle_grade_import
    from labcalc.grading.report import expected_shown
    from labcalc.labs import get_lab

    get_lab(args.lab)
    task = read_assignment(args.assignment) if args.assignment else None
    expected_shown(args.hide_expected_until)  # a bad date is refused before anything is written
    outputs = [("-o/--output", args.output), ("--report", args.report), ("--feedback", args.feedback),
               ("--problems", args.problems), ("--moodle-grades", args.moodle_grades)]
    outputs = [(flag, path) for flag, path in outputs if path]
    for k, (flag, path) in enumerate(outputs):
        if _same_file(path, args.answers):
            raise ValueError(f"{flag} {path!r} is the answers file itself; choose another file name "
                             f"(the answers would be overwritten)")
        for other_flag, other in outputs[:k]:
            if _same_file(path, other):
                raise ValueError(f"{flag} and {other_flag} name the same file {path!r}")
    options = {}
    if args.max_bytes is not None:
        options["max_bytes"] = args.max_bytes
    columns = {**(task.columns if task else {}), **_columns(args.column)}
    sheet = grading.read_answers(args.answers, columns=columns or None, **options)
    result = grading.grade(sheet, args.lab, assignment=task, salt=args.salt, accounting=args.accounting,
                           sigfigs=args.sigfigs, lms=args.lms)
    result.write_grades(args.output)
    written = [args.output]
    if args.report:
        result.write_report(args.report, expected_after=args.hide_expected_until)
        written.append(args.report)
    if args.feedback:
        result.write_feedback(args.feedback, expected_after=args.hide_expected_until)
        written.append(args.feedback)
    if args.moodle_grades:
        write_moodle_grade_import(result, args.moodle_grades, identifier=args.moodle_id)
        written.append(args.moodle_grades)
    if args.problems:
        result.write_problems(args.problems)
        written.append(args.problems)
    print(result.summary())
    for note in result.notes:
        print(f"note: {note}")
    for problem in result.problems[:20]:
        print(f"  {problem}", file=sys.stderr)
    more = len(result.problems) - 20
    if more > 0:
        from labcalc.grading.report import MAX_LISTED_PROBLEMS

        if args.problems:
            where = f"all are in {args.problems}"
        elif args.report and len(result.problems) <= MAX_LISTED_PROBLEMS:
            where = "all are in the report"
        elif args.report:
            where = (f"the report lists the first {MAX_LISTED_PROBLEMS}; --problems FILE.csv "
                     f"writes them all")
        else:
            where = "--problems FILE.csv writes them all"
        print(f"  ... and {more} more rows skipped ({where})", file=sys.stderr)
    print("wrote " + ", ".join(written))
    return 0


def _export(args) -> int:
    from labcalc import grading
    from labcalc.labs import get_lab

    from labcalc.grading.assignment import read_assignment

    lab = get_lab(args.lab)
    task = read_assignment(args.assignment) if args.assignment else None
    if task is not None and task.lab != lab.name:
        raise ValueError(f"--assignment {args.assignment!r} is for {task.lab}, not {lab.name}")
    variants = args.variants if args.variants is not None else (task.variants if task else 20)
    first_seed = args.first_seed if args.first_seed is not None else (task.first_seed if task else 1)
    if not 1 <= variants <= 1000:
        raise ValueError(f"--variants must be between 1 and 1000; got {variants}")
    ids = None
    if args.questions:
        known = {a.id.lower(): a.id for a in lab.ANSWERS}
        ids = []
        for q in (q.strip() for q in args.questions.split(",")):
            if not q:
                continue
            if q.lower() not in known:
                raise ValueError(f"--questions: {args.lab} has no answer {q!r} (ids look like Q4, Q13.6, Q44.2)")
            if known[q.lower()] not in ids:
                ids.append(known[q.lower()])
        if not ids:
            raise ValueError(f"--questions: no answer id in {args.questions!r}")
    seeds = range(first_seed, first_seed + variants)
    options = {"lms": args.lms} if args.format == "moodle-xml" else {}
    writer = grading.moodle_xml if args.format == "moodle-xml" else grading.gift
    text = writer(args.lab, seeds, answer_ids=ids, accounting=args.accounting, slips=not args.no_slips,
                  assignment=task, **options)
    n_questions = len(ids) if ids else len(task.questions) if task else len(lab.ANSWERS)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    with open(args.output, "w", encoding="utf-8") as fh:
        fh.write(text)
    site = f", written for {args.lms} (grade with labcalc grade --lms {args.lms})" if options else ""
    print(f"wrote {args.output}: {n_questions} questions x {variants} variants "
          f"(seeds {seeds.start}-{seeds.stop - 1}), {args.format}{site}")
    return 0


def _simulate(args) -> int:
    from labcalc import sim

    if sim.available():
        from labcalc.sim import runner

        runner.start()      # ns-3's worker loads while the scenario is read and checked
    try:
        res = sim.simulate(args.scenario, variant=args.variant, duration_s=args.duration, seed=args.seed,
                           tcp=args.tcp, queue_disc=args.queue_disc, queue_packets=args.queue_packets,
                           error_rate=args.error_rate, max_packets=args.max_packets, timeout_s=args.timeout)
    except (sim.SimulationUnavailable, sim.SimulationTimeout) as exc:
        print(f"labcalc: {exc}", file=sys.stderr)
        return 2
    written = res.write(args.output)
    print(res.table().to_string())
    n = sum(len(v) for v in written.values())
    print(f"wrote {n} files to {args.output} (ns-3 {res.attrs['ns3_version']}, seed {args.seed}, "
          f"{res.attrs['wall_s']:.2f} s)")
    first = str(res.summary.index[0]) if len(res.summary) else "FLOW"
    print(f"to compare them with a prediction or a measurement, name them in a manifest.toml in that folder, "
          f"e.g. [[measurement]] with question, scenario, flow = \"{first}\", metric = \"loss\" (or \"goodput\"), "
          f"file = \"summary.csv\"; data/measurements/lab5/simulated/runs/manifest.toml is an example")
    return 0


def _sweep(args) -> int:
    from labcalc import sim

    grid = {}
    for item in args.grid:
        name, sep, values = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not values.strip():
            raise ValueError(f"--grid: expected NAME=V1,V2,...; got {item!r}")
        grid[name] = [_grid_value(v.strip(), name) for v in values.split(",") if v.strip()]
    options = {k: v for k, v in (("variant", args.variant), ("duration_s", args.duration), ("tcp", args.tcp),
                                 ("queue_disc", args.queue_disc), ("queue_packets", args.queue_packets),
                                 ("error_rate", args.error_rate), ("max_packets", args.max_packets)) if v is not None}
    try:
        table = sim.sweep(args.scenario, grid, seeds=_parse_seeds(args.seeds), workers=args.workers,
                          scheduler=args.scheduler, cache_dir=args.cache_dir, cache=not args.no_cache,
                          timeout_s=args.timeout, **options)
    except (sim.SimulationUnavailable, ImportError) as exc:
        print(f"labcalc: {exc}", file=sys.stderr)
        return 2
    if args.output == "-":
        table.to_csv(sys.stdout, index=False)
    else:
        table.to_csv(args.output, index=False)
    a = table.attrs
    where = "" if args.output == "-" else f"; wrote {args.output}"
    failed = f", {a['failed']} failed (see the error column)" if a["failed"] else ""
    print(f"{a['runs']} runs: {a['simulated']} simulated on {a['workers']} worker(s), {a['from_cache']} from the "
          f"cache{failed}, {a['wall_s']:.1f} s{where}", file=sys.stderr if args.output == "-" else sys.stdout)
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; by default those of ``sys.argv``.

    Returns
    -------
    int
        Exit status: 0 on success, 2 when the input is bad (the reason goes to stderr).

    Examples
    --------
    A missing file is reported on stderr in one line, without a traceback:

    >>> main(["solve", "missing.toml"])
    2
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers = {"answers": _answers, "solve": _solve, "convert": _convert, "measurements": _measurements, "grade": _grade,
                "export": _export, "simulate": _simulate, "sweep": _sweep}
    try:
        code = handlers[args.command](args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OSError as exc:
        # "[Errno 13] Permission denied: 'x.csv'" in words: the file, then what went wrong.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"labcalc: {where}{(exc.strerror or str(exc)).lower()}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"labcalc: {exc}", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """After a closed pipe (``labcalc answers lab5 | head``): nothing more to say.

    Standard output is pointed at /dev/null so that Python's own flush at exit does
    not raise a second BrokenPipeError and print a traceback.
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stdout is not a file
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
