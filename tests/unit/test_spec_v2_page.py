"""``docs/bacc-pf-v2.md`` — the normative spec of the v2 draw — shows its known-answer vectors
in fenced blocks marked ``<!-- vector: NAME -->``. Each is computed again here from the engine
(``tests/make_v2_vectors.py``) and must match the page character for character, and the stored
``tests/vectors/v2.json`` (which the JavaScript implementation checks) must be current."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import make_v2_vectors as v2
import pytest

from baccarat import beacon

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "bacc-pf-v2.md"
BLOCK = re.compile(r"<!-- vector: ([\w:.-]+) -->\n```[\w-]*\n(.*?)\n```", re.DOTALL)


def _page_blocks() -> dict[str, str]:
    return dict(BLOCK.findall(PAGE.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", sorted(v2.BLOCKS))
def test_the_pages_vector_block_is_the_engines(name: str) -> None:
    assert _page_blocks().get(name) == v2.BLOCKS[name]()


def test_every_vector_block_of_the_page_is_checked() -> None:
    assert set(_page_blocks()) == set(v2.BLOCKS)


def test_the_stored_vectors_are_current() -> None:
    stored = json.loads(v2.VECTOR_FILE.read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(v2.vectors()))


def test_the_round_record_examples_beacon_round_is_its_locks() -> None:
    """The beacon round of the example's lock, by the beacon module's rule and quicknet's times."""
    record = v2.round_record()
    when = datetime.fromisoformat(record["lock"]["locked_at"].replace("Z", "+00:00"))
    lock_ms = int(when.timestamp() * 1000)
    assert beacon.lock_round(beacon.QUICKNET, lock_ms) == record["beacon"]["round"]
    assert v2.QUICKNET.hex() == beacon.QUICKNET.chain_hash
