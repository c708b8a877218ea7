"""Grading benchmark: a class of 1,000 students x 50 answers, read and graded.

Target (issue 5): 1,000 students x 50 answers graded in under 5 s. Also the quiz
export (issue 12): 300 variants of a question, and of the whole lab (every answer id),
written as Moodle XML and as GIFT, target <= 5 s each, with the size of the file (for 20
and for 300 variants). Printed as tables; nothing here asserts on time. Every row is
timed on its own (the answer keys too: ``answer_keys`` on an empty cache), never
obtained by subtracting timings.

Run: ``.venv/bin/python benchmarks/bench_grading.py [--students N] [--answers K]
[--export-variants V] [--export-only]``
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import sys
import tempfile
import time


def best_of(n, fn):
    times, result = [], None
    for _ in range(n):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return min(times), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--answers", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--export-variants", type=int, default=300)
    parser.add_argument("--export-only", action="store_true", help="only the quiz export table")
    args = parser.parse_args(argv)
    if args.export_only:
        export_table(args.export_variants, args.repeat)
        return 0

    from labcalc import grading
    from labcalc.labs import lab5

    n, k = args.students, args.answers
    load_at_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    t0 = time.perf_counter()
    df = grading.simulate_class(n, seed=2025, salt="bench", answers_per_student=k, lab="lab5")
    t_sim = time.perf_counter() - t0
    buf = io.StringIO()
    df.to_csv(buf, index=False)
    data = buf.getvalue().encode("utf-8")
    rows = len(df)
    n_variants = df["variant"].nunique()
    no_variant = df.drop(columns="variant")
    buf = io.StringIO()
    no_variant.to_csv(buf, index=False)
    data_shared = buf.getvalue().encode("utf-8")

    def clear_keys():
        grading.clear_key_cache()
        lab5.variant.cache_clear()

    # warm: keys of every variant cached (as after a first grading run)
    t_read, sheet = best_of(args.repeat, lambda: grading.read_answers(data))
    t_grade, result = best_of(args.repeat, lambda: grading.grade(sheet, "lab5"))
    t_both, _ = best_of(args.repeat, lambda: grading.grade(grading.read_answers(data), "lab5"))
    with tempfile.TemporaryDirectory() as tmp:
        t_out, _ = best_of(1, lambda: (result.write_grades(os.path.join(tmp, "g.csv")),
                                       result.write_report(os.path.join(tmp, "r.html"))))

    # cold: keys computed during the run
    clear_keys()
    t_cold_shared, _ = best_of(1, lambda: grading.grade(grading.read_answers(data_shared), "lab5"))
    pool = df.assign(variant=df["variant"].rank(method="dense").astype(int) % 20 + 1)
    clear_keys()
    t_cold_pool, _ = best_of(1, lambda: grading.grade(pool, "lab5"))
    clear_keys()
    t_cold_all, _ = best_of(1, lambda: grading.grade(grading.read_answers(data), "lab5"))
    # the answer keys alone, timed directly on an empty cache (as grade computes them)
    seeds = sorted(int(s) for s in df["variant"].unique())
    key_times = []
    for _ in range(args.repeat):
        clear_keys()
        t = time.perf_counter()
        grading.answer_keys("lab5", seeds)
        key_times.append(time.perf_counter() - t)
    t_keys = min(key_times)

    us = lambda t: f"{1e6 * t / rows:9.1f}"  # noqa: E731
    print(f"labcalc grading benchmark: {n:,} students x {k} answers = {rows:,} answers "
          f"({len(data) / 1e6:.1f} MB of CSV), {n_variants:,} variants")
    print(f"machine: {os.cpu_count()} CPUs (load average {load_at_start:.1f} at the start), Python "
          f"{platform.python_version()}, {platform.machine()}; best of {args.repeat} where repeated")
    print()
    print(f"{'step':<66}{'time [s]':>9}{'per answer [us]':>17}")
    table = [
        ("read answers.csv (parse, validate)", t_read),
        (f"grade, answer keys cached ({n_variants:,} variants)", t_grade),
        ("read + grade (the target)", t_both),
        ("write grades.csv + report.html", t_out),
        ("read + grade, cold, one shared key (no variant column)", t_cold_shared),
        ("grade, cold, a pool of 20 variants", t_cold_pool),
        (f"read + grade, cold, own variant per student ({n_variants:,} keys)", t_cold_all),
        (f"computing the {n_variants:,} answer keys alone (wire + tc), cold cache", t_keys),
        ("(synthetic class generation, not part of grading)", t_sim),
    ]
    for label, t in table:
        print(f"{label:<66}{t:9.2f}{us(t):>17}")
    print()
    for label, t in (("answer keys cached", t_both),
                     ("every key computed during the run (own variant per student)", t_cold_all)):
        print(f"target: {n:,} x {k} read and graded in < 5 s, {label}: "
              f"{'met' if t < 5 else 'NOT met'} ({t:.2f} s)")
    print(f"one answer key takes {1e3 * t_keys / max(len(seeds), 1):.2f} ms when computed with "
          f"the others ({len(seeds):,} variants solved together; best of {args.repeat} on an empty "
          f"cache), then it is cached")
    print()
    export_table(args.export_variants, args.repeat)
    return 0


def export_table(variants: int, repeat: int) -> None:
    """Time the quiz export: one question, and the whole lab, in both formats.

    The answer keys are computed (and cached) first: what is timed is the export itself,
    every question of every variant written out. Sizes are those of the text returned
    (UTF-8, as ``labcalc export -o`` writes it).
    """
    from labcalc import grading

    seeds = range(1, variants + 1)
    grading.answer_keys("lab5", seeds)  # keys cached: the export itself is timed
    rows = []
    for qid in ("Q4", "Q13.7"):
        t_xml, xml = best_of(repeat, lambda: grading.moodle_xml("lab5", seeds, answer_ids=[qid]))
        t_gift, text = best_of(repeat, lambda: grading.gift("lab5", seeds, answer_ids=[qid]))
        rows.append((f"moodle_xml, {qid} x {variants} variants ({_mb(xml)})", t_xml, variants))
        rows.append((f"gift, {qid} x {variants} variants ({_mb(text)})", t_gift, variants))
    few = range(1, 11)
    t_lab, xml = best_of(1, lambda: grading.moodle_xml("lab5", few))
    n_lab = xml.count('type="numerical"')
    rows.append((f"moodle_xml, whole lab x 10 variants ({n_lab:,} questions)", t_lab, n_lab))
    # the whole lab (every answer id), as `labcalc export lab5 --variants N` writes it
    sizes = {}
    whole = {}
    for n_var in sorted({20, variants}):
        some = range(1, n_var + 1)
        for fmt, fn in (("moodle_xml", grading.moodle_xml), ("gift", grading.gift)):
            t, text = best_of(1 if n_var > 20 else repeat, lambda: fn("lab5", some))
            n_q = text.count('type="numerical"') if fmt == "moodle_xml" else text.count("\n::")
            sizes[fmt, n_var] = len(text.encode("utf-8"))
            whole[fmt, n_var] = t
            del text
            rows.append((f"{fmt}, whole lab x {n_var} variants ({n_q:,} questions, "
                         f"{sizes[fmt, n_var] / 1e6:.1f} MB)", t, n_q))
    print(f"{'quiz export (answer keys cached)':<66}{'time [s]':>9}{'per question [ms]':>19}")
    for label, t, n in rows:
        print(f"{label:<66}{t:9.2f}{1e3 * t / n:19.3f}")
    worst = max(t for label, t, _ in rows[:4])
    print(f"target: {variants} variants of a question exported in <= 5 s: "
          f"{'met' if worst <= 5 else 'NOT met'} (slowest {worst:.2f} s); the whole lab "
          f"({n_lab // 10} questions) takes {1e3 * t_lab / n_lab:.1f} ms per question")
    for fmt in ("moodle_xml", "gift"):
        t = whole[fmt, variants]
        print(f"target: the whole lab x {variants} variants as {fmt} in <= 5 s: "
              f"{'met' if t <= 5 else 'NOT met'} ({t:.2f} s, {sizes[fmt, variants] / 1e6:.1f} MB)")


def _mb(text: str) -> str:
    return f"{len(text.encode('utf-8')) / 1e6:.1f} MB"


if __name__ == "__main__":
    sys.exit(main())
