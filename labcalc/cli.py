"""The ``labcalc`` command.

Subcommands::

    labcalc answers lab5 [--accounting wire|tc|frame|ip] [--csv]
    labcalc solve SCENARIO.toml --fairness maxmin|proportional|alpha=A|reno|fifo [--variant V]
    labcalc convert FILE -o OUT.csv [--format FORMAT]

Errors in the input (a bad scenario file, an unknown fairness) print one line naming
the problem and exit with status 2; they never print a traceback.

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

    p_solve = sub.add_parser("solve", help="allocate rates in a scenario file")
    p_solve.add_argument("scenario", help="scenario TOML file (see data/scenarios)")
    p_solve.add_argument("--fairness", type=_parse_fairness, default=("maxmin", None),
                         help="maxmin, proportional, alpha=A, reno or fifo (UDP without congestion control)")
    p_solve.add_argument("--variant", default=None, help="a [variants.NAME] table of the scenario")
    p_solve.add_argument("--csv", action="store_true", help="print CSV (base units) instead of a table")

    p_convert = sub.add_parser("convert", help="turn a tool's output into a tidy CSV")
    p_convert.add_argument("file", help="tool output (iperf, iperf3, ping, ss, tc, tcp_probe, ns-3, ...)")
    p_convert.add_argument("-o", "--output", required=True, help="CSV file to write")
    p_convert.add_argument("--format", default=None, help="force a format instead of sniffing it")
    return parser


def _answers(args) -> int:
    from labcalc.labs import get_lab
    from labcalc.units import format_quantity

    lab = get_lab(args.lab)
    df = lab.answers(accounting=args.accounting)
    if args.csv:
        df[["question", "item", "value", "unit"]].to_csv(sys.stdout, index=False)
        return 0
    shown = df[["question", "item", "value", "unit"]].copy()
    shown["value"] = [f"{v:.6g}" for v in df["value"]]
    shown["reads"] = [format_quantity(v, u) for v, u in zip(df["value"], df["unit"])]
    print(f"{args.lab}: theory answers ({args.accounting} accounting; values in base units)")
    print(shown.to_string(index=False))
    return 0


def _solve(args) -> int:
    import numpy as np
    import pandas as pd

    from labcalc.network import Network

    net = Network.from_toml(args.scenario, variant=args.variant)
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
    from labcalc import measure

    measure.convert(args.file, args.output, format=args.format)
    print(f"wrote {args.output}")
    return 0


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input).

    Examples
    --------
    A missing file is reported on stderr in one line, without a traceback:

    >>> main(["solve", "missing.toml"])
    2
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    handlers = {"answers": _answers, "solve": _solve, "convert": _convert}
    try:
        return handlers[args.command](args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"labcalc: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
