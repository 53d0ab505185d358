"""`make bench`: every benchmark, figures printed."""

from __future__ import annotations

import platform
import sys
import time

from . import engine, money, rtp


def main() -> int:
    print(f"# make bench — {time.strftime('%Y-%m-%d %H:%M')} — Python {platform.python_version()}")
    print(f"# {platform.machine()}, {platform.processor() or 'cpu'}; figures are medians of 5")
    for section in (engine, money, rtp):
        print()
        print("\n".join(section.run()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
