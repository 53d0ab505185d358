"""``python -m baccarat_dev.rng``: write ``docs/rng-report.md`` and its figures under
``docs/rng/`` (``make rng-report``)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .report import Config, run


def main(argv: Sequence[str] | None = None) -> int:
    defaults = Config()
    parser = argparse.ArgumentParser(prog="python -m baccarat_dev.rng", description=__doc__)
    parser.add_argument("--seed", default=defaults.seed, help="the report's seed (any text)")
    parser.add_argument("--shoes", type=int, default=defaults.shoes, help="shoes per deck count")
    parser.add_argument("--draws", type=int, default=defaults.draws, help="uniform(m) draws per m")
    parser.add_argument(
        "--sequences", type=int, default=defaults.sequences, help="10⁶-bit sequences per view"
    )
    parser.add_argument(
        "--workers", type=int, default=defaults.workers, help="processes (≤ 2 here)"
    )
    parser.add_argument(
        "--v2-shoes", type=int, default=defaults.v2_shoes, help="bacc-pf-v2 shoes per deck count"
    )
    parser.add_argument("--out", type=Path, default=Path("docs/rng-report.md"))
    args = parser.parse_args(argv)
    if min(args.shoes, args.draws, args.sequences, args.workers, args.v2_shoes) < 1:
        parser.error("--shoes, --draws, --sequences, --workers and --v2-shoes must be at least 1")
    start = time.perf_counter()
    # Imported here: Matplotlib is only needed once the numbers exist.
    from .plots import all_figures
    from .render import render

    res = run(
        Config(args.seed, args.shoes, args.draws, args.sequences, args.workers, args.v2_shoes)
    )
    figure_dir = args.out.parent / "rng"
    for stale in figure_dir.glob("*.png"):  # from scratch: no figure of an earlier run survives
        stale.unlink()
    figures = all_figures(res, figure_dir)
    text = render(res, figures, args.out, time.perf_counter() - start)
    args.out.write_text(text, encoding="utf-8")
    failed = sum(not c.passed for c in res.checks)
    print(
        f"{args.out}: {len(res.checks)} tests, {failed} failed, "
        f"{time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
