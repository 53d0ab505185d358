"""The product ships everything it cites: README and web/cli.js pointed at
``../shared/…`` — the team's reference folder, outside the repository. Every relative path a
tracked file names must resolve inside the repository, and the rules it cites are in it
(docs/rules/: the game rules, the fairness spec and the original seeds)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: a relative path that climbs: ../x, ../../x/y.md, …
CLIMB = re.compile(r"(?:\.\./)+[\w.-][\w./-]*")
#: the reference folder's own layout, cited as if it were in the repository
REFERENCE = re.compile(r"(?<![\w/])(?:shared/(?:spec|seeds)/|/work/shared/)")
TEXT = {".md", ".py", ".js", ".ts", ".json", ".yaml", ".yml", ".toml", ".html", ".sh", ".txt", ""}


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / p for p in out.split("\0") if p and Path(p).suffix in TEXT]


def test_no_shipped_file_cites_a_path_outside_the_repository() -> None:
    outside: list[str] = []
    for path in _tracked():
        if not path.is_file() or "node_modules" in path.parts or path == Path(__file__).resolve():
            continue  # (this file names the patterns it looks for)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT)
        for m in CLIMB.finditer(text):
            target = (path.parent / m.group(0)).resolve()
            if not target.is_relative_to(ROOT):
                outside.append(f"{rel}: {m.group(0)}")
        for m in REFERENCE.finditer(text):
            line = text[: m.start()].count("\n") + 1
            outside.append(f"{rel}:{line}: {m.group(0)}")
    assert outside == []


def test_the_rules_the_product_cites_ship_with_it() -> None:
    rules = ROOT / "docs" / "rules"
    assert (rules / "game-rules.md").is_file() and (rules / "fairness-v1.md").is_file()
    seeds = sorted(p.name for p in (rules / "seeds").glob("*.txt"))
    assert seeds == ["000_855830b106830d9f.txt", "001_3810e41fa55ddc73.txt"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules/seeds/" in readme and "docs/rules/game-rules.md" in readme
