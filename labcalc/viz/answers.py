"""The answer checker: a text box that checks a handout question as the grader does (notebook 00).

The widget calls :func:`labcalc.grading.check_cell` with the question's id, which is
:func:`labcalc.grading.check_answer` on the lab's answer key: the same function, and so
the same verdict, credit and message, as a notebook's ``check("Q4", ...)`` cell and as
``labcalc grade`` (with ``lms=``, as ``labcalc grade --lms``).

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


def answer_values(answer="", question="Q4", lab="lab5", seed=0, lms=None):
    """The verdict of :func:`labcalc.grading.check_cell` on a typed answer to a handout question.

    Parameters
    ----------
    answer : str or float, default ""
        What the student typed; an empty text means "not answered yet".
    question : str, default "Q4"
        The answer id (``"Q4"``, ``"Q13.7"``).
    lab : str or Lab, default "lab5"
        The lab whose answer key grades it.
    seed : int, default 0
        The variant (0: the handout's numbers).
    lms : str, optional
        ``"moodle-en"``, ``"moodle-fr"`` or ``"moodle-de"``: grade as that Moodle site
        grades the exported quiz, and say where it differs (see
        :func:`labcalc.grading.check_cell`).

    Returns
    -------
    dict
        ``correct`` (bool), ``score`` (share of the points, 0..1) and ``message`` (the
        line a ``check`` cell prints: the question id, then the verdict).

    Examples
    --------
    >>> v = answer_values("4798 kbit/s")
    >>> v["correct"], v["score"]
    (False, 0.75)
    """
    from labcalc.grading import check_cell

    text = answer if str(answer).strip() else None
    result = check_cell(question, text, lab=lab, seed=seed, lms=lms, quiet=True)
    return {"correct": result.correct, "score": result.score, "message": f"{question}: {result.message}"}


def answer_readout(values) -> str:
    """The answer checker's text: the verdict line.

    Parameters
    ----------
    values : dict
        The result of :func:`answer_values`.

    Returns
    -------
    str
        The verdict line (``values["message"]``), as a ``check`` cell prints it.

    Examples
    --------
    >>> answer_readout(answer_values("4690 kbps"))
    "Q4: Correct: '4690 kbps' is within 1 % of the expected value."
    """
    return values["message"]


def answer_checker(question="Q4", lab="lab5", seed=0, lms=None) -> Explorer:
    """A text box that checks an answer to a handout question as you type it (no figure).

    Parameters
    ----------
    question : str, default "Q4"
        The answer id: the label of the text box and the answer checked.
    lab : str or Lab, default "lab5"
        The lab whose answer key grades it.
    seed : int, default 0
        The variant (0: the handout's numbers).
    lms : str, optional
        Grade as that Moodle site does (see :func:`answer_values`).

    Returns
    -------
    Explorer
        The widget: controls, readout (no figure); its ``values`` hold the result of
        :func:`answer_values` for the current text.

    Examples
    --------
    >>> ex = answer_checker()
    >>> ex.set(answer="4798 kbit/s")
    >>> ex.values["score"], "shaper" in ex.text
    (0.75, True)
    """
    box = text_input(f"{question} answer", "e.g. 4.7 Mbit/s")
    compute = functools.partial(answer_values, question=question, lab=lab, seed=seed, lms=lms)
    return Explorer({"answer": box}, compute, answer_readout, None, title=f"Check your answer to {question}")
