"""A longer fuzzing campaign than `make test` can afford, with fresh random examples.

`make test` runs the property suites (tests/test_fuzz_readers.py, tests/test_fuzz_inputs.py,
tests/test_fuzz_units.py, tests/test_fuzz_manifest.py, tests/test_fuzz_manifest_files.py,
tests/test_fuzz_answer_sheets.py, tests/test_fuzz_lms.py) derandomized, a few hundred
examples per target, so that every run checks the same cases in a few seconds. Before a
release, or after changing a reader or the grammar, run this script: it runs the same
properties with N random examples each (new ones every time, no example database) and
prints one line per target. A failure prints the exception and the example; turn it into a
test of its own before fixing it.

Run from the repository root::

    .venv/bin/python scripts/fuzz_long.py            # 5,000 examples per target (~10 min)
    .venv/bin/python scripts/fuzz_long.py -n 500 --only readers

Readers: each example mutates one recorded or test file of the format (byte flips,
truncation, duplicated or shuffled lines, huge numbers, wrong JSON types, deep nesting, NUL
bytes, long lines, gzip) and reads it with the format's reader and with ``measure.read``.
Inputs: ``parse_quantity``, ``grading.check``, one poisoned cell in a class's answers,
mutated measurement CSVs and mutated scenario files (tests/test_fuzz_inputs.py); unit
spellings against the grammar's documented rules, with pint handed only names the grammar
decided (tests/test_fuzz_units.py); answer sheets of every shape
(tests/test_fuzz_answer_sheets.py: labcalc's layout, Moodle's Responses report, mapped
layouts, with random headers, widths, delimiters and cells); the LMS surfaces
(tests/test_fuzz_lms.py: assignment files, Moodle's reading of a response against a
transcription of its PHP, Moodle mode's grades and suggestions, grade files for Moodle's
import); random mixes of Windows ping lines (any encoding) and of Wireshark CSV rows (any
separator) for their readers (tests/test_measure_ping_windows.py,
tests/test_measure_wireshark.py).
Manifest: hostile manifests (names with NUL or newlines, 5,000-character names, symlink
loops, files outside the folder, the same file twice, huge windows, losses combined) and
any file content under every format (tests/test_fuzz_manifest.py); manifests of one to four
entries over mutated real recordings (tests/test_fuzz_manifest_files.py).
Sim: ``labcalc.sim.prepare`` over the newer options (socket_buffer_bytes, linux_rto, a host's
own interface) with numpy scalars, ints beyond float, NaN and wrong types (no ns-3 needed);
then, with ns-3, ``labcalc.sim.simulate`` with values around and beyond ns-3's limits,
through the worker process: a ValueError or a finished run, never an abort or a hang
(``--only sim -n 3000`` takes a minute or two: the valid examples run short simulations).
"""

from __future__ import annotations

import argparse
import inspect
import pathlib
import random
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fuzz_readers(n: int) -> int:
    import tests.test_fuzz_readers as t

    failures = 0
    for fmt in t.FUZZED:
        t0, bad = time.time(), 0
        for i in range(n):
            seed = random.randrange(2**32)
            kind = t.KINDS[i % len(t.KINDS)]
            try:
                t._fuzz_format(fmt, seed % 1001, kind, random.Random(seed))
            except Exception as exc:  # noqa: BLE001 - every escape is a finding
                bad += 1
                if bad <= 3:
                    print(f"  {fmt}: {kind} of sample {seed % 1001}, random seed {seed}: "
                          f"{type(exc).__name__}: {str(exc)[:300]}")
        failures += bad
        print(f"{'FAIL' if bad else 'ok  '} reader {fmt:<10} {n} examples, {bad} failed, {time.time() - t0:.0f} s")
    return failures


def fuzz_inputs(n: int, modules=("tests.test_fuzz_inputs", "tests.test_fuzz_units",
                                        "tests.test_fuzz_answer_sheets", "tests.test_fuzz_lms",
                                        "tests.test_measure_ping_windows", "tests.test_measure_wireshark")) -> int:
    import importlib

    from hypothesis import HealthCheck, settings

    failures = 0
    suites = [importlib.import_module(m) for m in modules]
    for t, name in [(t, name) for t in suites for name in sorted(dir(t))]:
        test = getattr(t, name)
        if not (name.startswith("test_") and hasattr(test, "hypothesis")):
            continue
        test._hypothesis_internal_use_settings = settings(
            test._hypothesis_internal_use_settings, max_examples=n, derandomize=False, database=None,
            suppress_health_check=list(HealthCheck))
        kwargs = {}
        if "tmp_path" in inspect.signature(test).parameters:
            kwargs["tmp_path"] = pathlib.Path(tempfile.mkdtemp(prefix="labcalc-fuzz-"))
        t0 = time.time()
        with warnings.catch_warnings():
            # as under pytest (pyproject: filterwarnings = error::RuntimeWarning)
            warnings.simplefilter("error", RuntimeWarning)
            try:
                test(**kwargs)
                print(f"ok   {name} ({n} examples, {time.time() - t0:.0f} s)")
            except Exception as exc:  # noqa: BLE001 - hypothesis reports the falsifying example
                failures += 1
                print(f"FAIL {name}: {type(exc).__name__}: {str(exc)[:2000]}")
    return failures


def fuzz_sim(n: int) -> int:
    """The ns-3 front end through the worker process (tests/test_fuzz_sim.py): needs ns-3."""
    from hypothesis import HealthCheck, settings

    import tests.test_fuzz_sim as t
    from labcalc import sim
    from labcalc.sim import runner

    checks = t.test_prepare_plans_within_limits_or_refuses_by_name
    checks._hypothesis_internal_use_settings = settings(
        checks._hypothesis_internal_use_settings, max_examples=n, derandomize=False, database=None,
        suppress_health_check=list(HealthCheck))
    t0 = time.time()
    try:
        checks()
    except Exception as exc:  # noqa: BLE001 - hypothesis reports the falsifying example
        print(f"FAIL sim prepare: {type(exc).__name__}: {str(exc)[:2000]}")
        return 1
    print(f"ok   sim prepare: the checks of the newer options ({n} examples: {t.PREPARED['planned']} planned, "
          f"{t.PREPARED['refused']} refused; {time.time() - t0:.0f} s)")
    if not sim.available():
        print("skip sim: ns-3 is not installed (pip install 'labcalc[sim]')")
        return 0
    runner.default_worker().ready()
    test = t.test_simulate_refuses_or_runs_never_aborts
    test._hypothesis_internal_use_settings = settings(
        test._hypothesis_internal_use_settings, max_examples=n, derandomize=False, database=None,
        suppress_health_check=list(HealthCheck))
    t0 = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            test(ns3=runner)
        except Exception as exc:  # noqa: BLE001 - hypothesis reports the falsifying example
            print(f"FAIL sim: {type(exc).__name__}: {str(exc)[:2000]}")
            return 1
    print(f"ok   sim: simulate through the worker ({n} examples: {t.RUNS['runs']} ran, {t.RUNS['refused']} "
          f"refused; {time.time() - t0:.0f} s, {runner.default_worker().starts} worker start(s))")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="examples per target (default 5000)")
    parser.add_argument("--only", choices=["readers", "inputs", "manifest", "sim"], help="one of the four suites")
    args = parser.parse_args(argv)
    failures = 0
    if args.only in (None, "readers"):
        failures += fuzz_readers(args.n)
    if args.only in (None, "inputs"):
        failures += fuzz_inputs(args.n)
    if args.only in (None, "manifest"):
        failures += fuzz_inputs(args.n, ("tests.test_fuzz_manifest", "tests.test_fuzz_manifest_files"))
    if args.only in (None, "sim"):
        failures += fuzz_sim(args.n)
    print(f"{failures} failing target(s)" if failures else "no failure")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
