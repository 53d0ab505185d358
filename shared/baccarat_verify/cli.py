"""``baccarat``'s player commands (``shoe``, ``rtp``, ``verify``) with ES256 signature checks
and bacc-pf-v2's beacon checks: the core's parser (:func:`baccarat.cli.build_parser`) given
:func:`baccarat_verify.es256.check` and :func:`baccarat_bls.verify_beacon`.
The console script (``baccarat_api.cli``) builds on this parser and adds the operator commands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from baccarat.cli import Subcommands, parse, run
from baccarat.cli import build_parser as core_parser
from baccarat_bls import verify_beacon

from .es256 import check


def build_parser() -> tuple[argparse.ArgumentParser, Subcommands[Any]]:
    return core_parser(signature_check=check, beacon_check=verify_beacon)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(build_parser()[0], argv)
    return args if isinstance(args, int) else run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
