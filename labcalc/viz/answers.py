"""The answer checker: a text box, checked like the grader checks (notebook 00).

Examples
--------
>>> answer_values("4.69 Mbit/s")["correct"]
True
"""

from __future__ import annotations

import functools

from labcalc.viz._base import Explorer, text_input

__all__ = ["answer_values", "answer_readout", "answer_checker"]


# --------------------------------------------------------------------------------------
# 00: checking an answer
# --------------------------------------------------------------------------------------


def answer_values(answer="", expected=4_690_431.5, unit="kbit/s", rtol=0.01, alternatives=None):
    """The verdict of :func:`labcalc.grading.check_cell` for a typed answer.

    ``alternatives`` are the values of scenario-dependent slips, passed to
    :func:`labcalc.grading.check` (e.g. ``{"wire_vs_shaper": ...}``).

    Parameters
    ----------
    answer : str or float, default ""
        What the student typed; an empty text means "not answered yet".
    expected : float, default 4690431.5
        The expected value [base units, e.g. bit/s].
    unit : str, default "kbit/s"
        Unit of the question, used for a bare number.
    rtol : float, default 0.01
        Relative tolerance [1].
    alternatives : dict, optional
        Slip code -> the value a student making that slip finds [base units].

    Returns
    -------
    dict
        ``correct`` (bool) and ``message`` (the verdict, one line).

    Examples
    --------
    >>> answer_values("4.69 Mbit/s")["correct"]
    True
    """
    from labcalc.grading import check_cell

    result = check_cell(answer if str(answer).strip() else None, expected, unit=unit, rtol=rtol,
                          label="your answer", quiet=True, alternatives=alternatives)
    return {"correct": result.correct, "message": f"your answer: {result.message}"}


def answer_readout(values) -> str:
    """The answer checker's text: the verdict line.

    Parameters
    ----------
    values : dict
        The result of :func:`answer_values`.

    Returns
    -------
    str
        The verdict line (``values["message"]``).

    Examples
    --------
    >>> answer_readout(answer_values("4690 kbps"))
    "your answer: Correct: '4690 kbps' is within 1 % of the expected value."
    """
    return values["message"]


def answer_checker(expected=None, unit="kbit/s", rtol=0.01, question="Q4", alternatives=None) -> Explorer:
    """A text box that checks an answer as you type it (no figure).

    With the defaults it checks handout Q4 (maximum UDP goodput) and recognises the
    Linux shaper's value as the "wire vs shaper" slip.

    Parameters
    ----------
    expected : float, optional
        The expected value [base units]; by default the lab 5 answer to ``question``
        (and its shaper value as the ``"wire_vs_shaper"`` alternative).
    unit : str, default "kbit/s"
        Unit of the question, used for a bare number.
    rtol : float, default 0.01
        Relative tolerance [1].
    question : str, default "Q4"
        Question id: the label of the text box and, without ``expected``, the answer
        looked up.
    alternatives : dict, optional
        Slip code -> the value a student making that slip finds [base units].

    Returns
    -------
    Explorer
        The widget: controls, readout (no figure); its ``values`` hold the result of
        :func:`answer_values` for the current settings.

    Examples
    --------
    >>> ex = answer_checker()
    >>> ex.set(answer="4798 kbit/s")
    >>> ex.values["correct"], "shaper" in ex.text
    (False, True)
    """
    if expected is None:
        from labcalc.labs import lab5

        expected = lab5.answers().query("question == @question").value.iloc[0]
        shaper = lab5.answers(accounting="tc").query("question == @question").value.iloc[0]
        alternatives = {"wire_vs_shaper": float(shaper)} if alternatives is None else alternatives
    box = text_input(f"{question} answer", "e.g. 4.7 Mbit/s")
    compute = functools.partial(answer_values, expected=float(expected), unit=unit, rtol=rtol,
                                alternatives=alternatives)
    return Explorer({"answer": box}, compute, answer_readout, None, title=f"Check your answer to {question}")
