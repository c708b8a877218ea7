"""The quiz's question texts (issue 23 item 8): self-contained, one place that words them, how to answer.

Read back from the exported files with ElementTree and regular expressions, and
compared with :func:`labcalc.grading.quiztext.question_text`, the one function that
words a question for every format.
"""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import fromstring

import pytest

from labcalc import grading
from labcalc.grading.export import unit_names
from labcalc.grading.quiztext import answer_instruction, question_text, value_text
from labcalc.labs import get_lab

LAB = get_lab("lab5")


def _xml_texts(xml: str) -> dict[tuple[str, int], str]:
    out = {}
    for q in fromstring(xml):
        if q.get("type") == "numerical":
            answer_id, seed = re.fullmatch(r"lab5-(.+)-v(\d+)", q.find("idnumber").text).groups()
            text = q.find("questiontext/text").text
            assert text.startswith("<p>") and text.endswith("</p>")
            out[answer_id, int(seed)] = html.unescape(text[3:-4])
    return out


def test_xml_and_gift_texts_come_from_the_one_function():
    xml = _xml_texts(grading.moodle_xml("lab5", [2], slips=False))
    gift = dict(((a, int(s)), t.replace("\\:", ":").replace("\\=", "=").replace("\\#", "#"))
                for a, s, t in re.findall(r"^::lab5 (\S+) \(variant (\d+)\)::(.*)\{#$",
                                          grading.gift("lab5", [2], slips=False), re.M))
    assert len(xml) == len(gift) == 55
    params = LAB.variant(2)
    for a in LAB.answers:
        assert xml[a.id, 2] == question_text(a, params, listed=unit_names(a.display_unit))
        assert gift[a.id, 2] == question_text(a, params, unit_field=False)


@pytest.mark.parametrize("answer_id, what_xml, what_gift", [
    ("Q4", "Give the answer in Mbit/s.", "Give the answer in Mbit/s, the number only."),
    ("Q3", "Give the answer in bytes.", "Give the answer in bytes, the number only."),
    ("Q29", "Give the answer in ms.", "Give the answer in ms, the number only."),
    ("Q13.7", "Give the answer as a fraction between 0 and 1, the number only (a share of 25 % is 0.25).",
     "Give the answer as a fraction between 0 and 1, the number only (a share of 25 % is 0.25)."),
    ("Q19", "Give the answer as a plain number.", "Give the answer as a plain number."),
])
def test_every_question_says_how_to_answer(answer_id, what_xml, what_gift):
    a = LAB.answer(answer_id)
    body = a.text()
    xml, gift = question_text(a), question_text(a, unit_field=False)
    # what to give, right after the question, then how to type it (the same words as
    # labcalc.grading.moodle.how_to_answer, for the site's decimal separator)
    assert xml.startswith(body + " " + what_xml + " Type the number ")
    assert gift.startswith(body + " " + what_gift + " Type the number alone, with a decimal point")
    if a.display_unit not in ("%", ""):
        assert f"then a unit written exactly as listed, such as {a.display_unit}" in xml
    else:
        assert "Type the number alone" in xml


def test_the_instruction_follows_the_site_language():
    assert "with a decimal point or a decimal comma" in answer_instruction("Mbit/s", site="fr")
    # a German site's thousands separator is '.': Moodle warns about "4.5" (qtype_numerical
    # is_complete_response: "without using the thousand separator"), so only the comma is asked
    assert "with a decimal comma and no thousands separator (4,5, not 4.5)" in answer_instruction("ms", site="de")
    assert "with a decimal point and no thousands separator (4.5, not 4,5)" in answer_instruction("Mbit/s")


def test_q29_says_the_other_links_add_no_delay():
    text = question_text(LAB.answer("Q29"))
    assert "Every other link and interface adds no delay of its own, and the queues are empty." in text


def test_no_question_leans_on_another():
    for a in LAB.answers:
        text = a.text().lower()
        for phrase in ("same network", "as before", "same definition", "same three", "the previous"):
            assert phrase not in text, (a.id, phrase)


def test_a_question_text_determines_its_answer():
    # two variants whose texts for a question are the same must have the same answer:
    # everything the answer depends on is in the text
    seeds = range(0, 120)
    keys = grading.answer_keys("lab5", seeds)
    clashes = 0
    for i, a in enumerate(LAB.answers):
        seen: dict[str, float] = {}
        for s in seeds:
            text, value = a.text(keys[s].params), float(keys[s].values[i])
            if text in seen:
                clashes += 1
                assert value == pytest.approx(seen[text], rel=1e-9, abs=1e-12), (a.id, s)
            seen.setdefault(text, value)
    assert clashes > 100  # the property is exercised (variants share numbers often)


def test_right_answers_at_the_precision_of_their_tolerance():
    assert value_text(2.8436018957345977, 0.028436018957345977) == "2.8436"
    assert value_text(0.06191369606003749, 0.0016191) == "0.06191"
    assert value_text(1066.0, 0.5) == "1066"
    text = grading.gift("lab5", [1], answer_ids=["Q4"])
    assert "=%100%2.8436:0.0285#Right." in text and "2.8436018957345977" not in text
    # no number of the whole quiz carries 17 digits
    numbers = re.findall(r"<text>([-0-9.]+)</text>|<tolerance>([-0-9.]+)</tolerance>",
                         grading.moodle_xml("lab5", [1, 2]))
    digits = [len(re.sub(r"[^0-9]", "", a or b).strip("0")) for a, b in numbers]
    assert len(digits) > 1000 and max(digits) <= 9
