"""Answer checks in a notebook cell: one printed line with the batch grader's verdict.

A notebook's "check your answer" cells call :func:`check_cell` (or the function
:func:`cell_checker` binds to one lab), which grades exactly as :func:`labcalc.grading.grade`
does: same score, diagnosis and message. The line is printed so that nbval can compare
it; the :class:`~labcalc.grading.CheckResult` is returned for code that wants the numbers.

Examples
--------
>>> check = cell_checker("lab5")
>>> ok = check("Q3", "1066 bytes")
Q3: Correct: '1066 bytes' is within ±0.5 bytes of the expected value.
"""

from __future__ import annotations

import functools
import re

from labcalc.grading.check import check
from labcalc.grading.keys import AnswerIdError, check_answer

__all__ = ["check_cell", "cell_checker"]


#: An answer id of a lab (``"Q4"``, ``"Q13.6"``, ``"q13"``): :func:`check_cell` then
#: checks against the lab's answer key.
_ANSWER_ID = re.compile(r"\s*[Qq]\d+(?:\.\d+)?\s*")


def check_cell(answer, expected=None, unit: str | None = None, rtol: float | None = None,
               atol: float | None = None, label: str | None = None, quiet: bool = False,
               *, lab=None, seed: int = 0, lms: str | None = None, **options):
    """Check a student's answer in a notebook: one printed line, the grader's verdict.

    Two forms:

    - ``check_cell("Q13.6", my_answer, lab="lab5")``: a question of the lab's handout, by its
      answer id (this form is taken when the first argument is an answer id and no
      ``unit``, ``rtol`` or ``atol`` is given: the answer key sets them). The answer is checked against the lab's answer key
      (:func:`labcalc.grading.check_answer`) with the question's unit, tolerance and
      every slip the key knows (forgotten headers, the other byte accounting, rate
      for goodput...), exactly as the batch grader :func:`labcalc.grading.grade`
      grades it: same score, diagnosis and message. A question that asks for several
      numbers (``"Q13"``) prints the ids and labels of its parts instead.
    - ``check_cell(my_answer, expected, unit="Mbit/s")``: any other value, through
      :func:`labcalc.grading.check` (which does the unit handling, the tolerance and
      the classic slips). A plain number (``unit="1"``) is quoted without a unit.

    Parameters
    ----------
    answer : str, number or None
        In the first form, the answer id (``"Q4"``, ``"Q13.6"``). In the second, the
        answer: a text with its unit (``"4.69 Mbit/s"``, ``"4690 kbps"``, ``"6.2 %"``,
        ``"300 ms"``); a number is read as the same number typed without quotes, so a
        rate, a size or a time needs its unit, and a share without a % sign is a
        fraction (see :func:`labcalc.grading.check`). None, ``...`` or an empty text
        means "not answered yet".
    expected : float, str or None
        In the first form, the answer (as above). In the second, the expected value
        in base units (as labcalc computes it) or a text with a unit.
    unit : str, optional
        Second form only: unit of the question, e.g. ``"kbit/s"``, ``"Mbit/s"``,
        ``"bytes"``, ``"ms"``, ``"%"``; ``"1"`` (or ``""``) for a plain number.
    rtol, atol : float, optional
        Second form only: relative tolerance (default 0.01) and absolute tolerance
        (default 0) [base units].
    label : str, optional
        Printed at the start of the line; by default the answer id in the first form
        and ``"answer"`` in the second.
    quiet : bool, default False
        Do not print.
    lab : Lab or str
        First form (required there): the lab whose answer key is used, e.g. ``"lab5"``;
        :func:`cell_checker` binds it once for a whole notebook.
    seed : int, default 0
        First form: the variant (0 is the handout's numbers).
    lms : {None, "moodle-en", "moodle-fr", "moodle-de"}, optional
        First form: the course grades the exported quiz in Moodle, on a site in that
        language. Where Moodle will grade the answer differently from labcalc, the
        verdict gives Moodle's grade and says why and what to type
        (:func:`labcalc.grading.lms.moodle_verdict`), exactly as ``labcalc grade
        --lms`` does.
    **options
        First form: ``accounting``, ``sigfigs``, ``credit`` of
        :func:`labcalc.grading.check_answer`. Second form: passed to
        :func:`labcalc.grading.check` (``alternatives``, ``efficiency``, ``sigfigs``,
        ``credit``...) to recognise slips that depend on the scenario.

    Returns
    -------
    labcalc.grading.CheckResult or None
        ``correct``, ``score``, ``message`` (without the label), ``diagnosis``, ...;
        None when the answer id names several answers or none (the line printed says
        which ids there are).

    Examples
    --------
    >>> ok = check_cell("Q4", "5 Mbit/s", lab="lab5")
    Q4: Partly right (50 % of the points): '5 Mbit/s' is off by exactly the frame efficiency (0.938 = payload bytes / frame bytes): count the header bytes of every frame.
    >>> ok = check_cell("Q13.7", "6.2 %", label="Q13 A2 loss", lab="lab5")
    Q13 A2 loss: Correct: '6.2 %' is within 1 % + 0.1 percentage points of the expected value.
    >>> parts = check_cell("Q44", "30 ms", lab="lab5")
    Q44: lab5 question Q44 asks for 2 numbers; check each one by its own id:
      Q44.1   queueing delay at router 2 (both directions)
      Q44.2   queueing delay at router 1 (both directions)
    >>> ok = check_cell("4.69 Mbit/s", 4_690_431.5, unit="kbit/s", label="Q4")
    Q4: Correct: '4.69 Mbit/s' is within 1 % of the expected value.
    >>> check_cell("586 kbit/s", 4_690_431.5, unit="kbit/s", quiet=True).diagnosis
    'bytes_bits'
    >>> ok = check_cell(1.22, 1.2247, unit="1", label="Q19 c")
    Q19 c: Correct: '1.22' is within 1 % of the expected value.
    >>> ok = check_cell("Q3", "1066 bytes.", lab="lab5", lms="moodle-en")
    Q3: Right for labcalc, but Moodle (site in English) will read this as 1066 without a unit it knows (the '.' after the unit makes 'bytes.' a unit it does not know) and give 0 %: type 1066 bytes to get full marks from both. (labcalc: Correct: '1066 bytes.' is within ±0.5 bytes of the expected value.)
    """

    by_id = unit is None and rtol is None and atol is None
    if by_id and isinstance(answer, str) and _ANSWER_ID.fullmatch(answer):
        answer_id = "Q" + answer.strip()[1:]
        label = answer_id if label is None else label
        mine = None if expected is Ellipsis else expected
        if lab is None:
            raise ValueError(f"lab: {answer_id} is a question of a lab; name the lab, e.g. "
                             f"check_cell({answer_id!r}, answer, lab='lab5'), or bind it once with "
                             f"check = cell_checker('lab5')")
        try:
            result = check_answer(answer_id, mine, lab=lab, seed=seed, **options)
        except AnswerIdError as exc:
            if not quiet:
                print(f"{label}: {exc}")
            return None
        if lms is not None:
            result = _moodle_mode(result, answer_id, mine, lab, seed, lms, options)
    else:
        if lms is not None:
            raise ValueError("lms: only a question of the lab, given by its id (check_cell('Q4', answer, "
                             "lab='lab5', lms='moodle-en')), has a Moodle question to compare with")
        if answer is Ellipsis:
            answer = None
        plain = unit is not None and str(unit).strip() in ("", "1")
        result = check(answer, expected, unit="" if plain else unit,
                               rtol=0.01 if rtol is None else rtol, atol=0.0 if atol is None else atol,
                               **options)
        label = "answer" if label is None else label
    if not quiet:
        print(f"{label}: {result.message}")
    return result


def _moodle_mode(result, answer_id: str, answer, lab, seed: int, lms: str, options: dict):
    """The verdict in Moodle mode: :func:`labcalc.grading.lms.moodle_verdict` on the exported question."""
    from labcalc.grading.lms import moodle_question, moodle_verdict

    if options.get("sigfigs") is not None:
        raise ValueError("lms: the Moodle quiz grades on tolerances; sigfigs cannot be used with lms")
    accounting = options.get("accounting", "wire")
    asked = moodle_question(lab, answer_id, seed, accounting=accounting, credit=options.get("credit"), lms=lms)
    return moodle_verdict(result, answer, asked, lms,
                          recheck=lambda text: check_answer(answer_id, text, lab=lab, seed=seed, **options))


def cell_checker(lab, seed: int = 0, lms: str | None = None):
    """:func:`check_cell` with the lab (and variant) bound, for the cells of one notebook.

    Parameters
    ----------
    lab : Lab or str
        The lab whose questions the notebook asks, e.g. ``"lab5"``.
    seed : int, default 0
        The variant (0 is the handout's numbers).
    lms : {None, "moodle-en", "moodle-fr", "moodle-de"}, optional
        The course grades the exported quiz in Moodle on a site in that language: see
        :func:`check_cell`.

    Returns
    -------
    callable
        ``check(answer, expected=None, unit=None, ...)``, the arguments of
        :func:`check_cell` without ``lab``, ``seed`` and ``lms``.

    Examples
    --------
    >>> check = cell_checker("lab5")
    >>> ok = check("Q4", "4.69 Mbit/s")
    Q4: Correct: '4.69 Mbit/s' is within 1 % of the expected value.
    >>> ok = check("4.69 Mbit/s", 4_690_431.5, unit="kbit/s", label="Q4 again")
    Q4 again: Correct: '4.69 Mbit/s' is within 1 % of the expected value.
    """
    from labcalc.labs import get_lab

    if lms is not None:
        from labcalc.grading.moodle import site_language

        site_language(lms)  # a wrong name fails here, not at the first check
    bound = functools.partial(check_cell, lab=get_lab(lab), seed=seed, lms=lms)
    functools.update_wrapper(bound, check_cell)
    return bound
