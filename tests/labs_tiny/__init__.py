"""A tiny second lab: one link shared by two UDP flows, three answers.

It shows what adding a lab takes: this package (answers, default parameters, a variant
draw, a ``LAB``) and one registry line (``labcalc.labs.LABS["tiny"] =
"tests.labs_tiny"``, which the tests set with monkeypatch).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from labcalc.labs._framework import Answer, AnswerTexts, Computation, Lab, SolveStore, check_seed


@dataclass(frozen=True)
class Params:
    capacity_bps: float = 10e6
    demand_bps: tuple[float, float] = (4e6, 12e6)


def variant(seed: int) -> Params:
    seed = check_seed(seed)
    if seed == 0:
        return Params()
    rng = random.Random(seed)
    return Params(capacity_bps=rng.choice([5, 10, 20]) * 1e6,
                  demand_bps=(rng.randint(1, 4) * 1e6, rng.randint(15, 30) * 1e6))


def _network(p: Params):
    from labcalc.network import Flow, Network

    return Network({"link": p.capacity_bps},
                   {"a": Flow(["link"], demand_bps=p.demand_bps[0]),
                    "b": Flow(["link"], demand_bps=p.demand_bps[1])})


def _fifo(net):
    from labcalc.openloop import fifo_split

    return fifo_split(net)


STORE = SolveStore()
split = Computation("split", _network, _fifo, STORE)
_TEXTS = AnswerTexts(Params, lambda p: {"C": f"{p.capacity_bps / 1e6:g} Mbit/s"},
                     lambda p, acc: {"C": f"{p.capacity_bps / 1e6:g} Mbit/s"})

ANSWERS = (
    Answer("T1", "rate of flow a through {C}", "bit/s", lambda p, acc: float(split(p).rates["a"]),
           id="T1.1", item_template="rate of flow a through {C}", prompt="Which rate does a get on {C}?",
           kind="rate", display_unit="Mbit/s", texts=_TEXTS),
    Answer("T1", "rate of flow b", "bit/s", lambda p, acc: float(split(p).rates["b"]),
           id="T1.2", kind="rate", display_unit="Mbit/s", texts=_TEXTS),
    Answer("T2", "link capacity", "bit/s", lambda p, acc: p.capacity_bps,
           id="T2", kind="rate", display_unit="Mbit/s", points=2.0, texts=_TEXTS),
)

LAB = Lab(name="tiny", answers=ANSWERS, default_params=Params, variant=variant,
          title="two UDP flows on one link", prompt_fields=_TEXTS.prompt_fields, store=STORE)
