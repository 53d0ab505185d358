"""Docs that run: every request/response example of README.md, docs/api.md and docs/quick-tour.md,
executed against a local server and compared with what the docs show. The convention is stated
in docs/api.md ("Examples that run"); this module is its one implementation. Values that differ
from run to run (ids, times, keys, UUIDs, dates, long hex) are masked on both sides; cards and
money are not: the docs' server draws its secrets from a fixed seed (:mod:`baccarat_dev.entropy`).

``python -m baccarat_dev.docs_run docs/api.md --url URL --key KEY [--fix]`` against a server
started with ``BACCARAT_DEV_ENTROPY=docs make run``; ``--fix`` writes the answers the API gave
into the document where they differ (keeping the pattern's ``…``): examples are fixed by running
them, never by hand. ``tests/live/test_docs_run.py`` runs all three in ``make test``."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/api.md", "docs/quick-tour.md")
#: What the scratch directory links from the repo (the docs' commands use these paths).
LINKED = (".venv", "examples", "web", "shared", "Makefile", "pyproject.toml", "infra")
ELLIPSIS = "…"
ARROW = "# → "
WIDTH = 100

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"tbl_[a-z2-7]{16}"), "tbl_ID"),
    (re.compile(r"http://127\.0\.0\.1:\d+"), "http://127.0.0.1:PORT"),
    (re.compile(r"\bbk_[A-Za-z0-9_-]{43}"), "bk_KEY"),
    (re.compile(r"\bbr_[a-z2-7]{24}"), "br_REF"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z"), "TIME"),
    (re.compile(r"(?<![0-9A-Za-z])\d{4}-\d\d-\d\d(?![0-9A-Za-z])"), "DATE"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "UUID"),
    (re.compile(r"[0-9a-f]{8}-…"), "UUID"),  # a UUID the docs shorten: "da639408-…"
    (re.compile(r"(?<![0-9A-Za-z_])[0-9a-f]{8,}(?![0-9A-Za-z])"), "HEX"),
)


def mask(text: str) -> str:
    for pattern, placeholder in _MASKS:
        text = pattern.sub(placeholder, text)
    return text


# -- the markdown ----------------------------------------------------------------------------


@dataclass
class Step:
    """Commands and what the docs say they print (``expected`` None: not checked)."""

    commands: list[str]
    expected: list[str] | None = None  # the answer's lines, "#" and the indent stripped
    lines: tuple[int, int] | None = None  # 0-based [start, end) of the answer in the file


@dataclass
class Block:
    line: int  # 0-based line of the fence's first content line
    steps: list[Step] = field(default_factory=list)


def _fences(text: str) -> Iterator[tuple[str, int, list[str]]]:
    for token in MarkdownIt().parse(text):
        if token.type == "fence" and token.map:
            yield token.info.strip(), token.map[0] + 1, token.content.splitlines()


def blocks(text: str) -> list[Block]:
    """The document's ``sh run`` blocks, split into steps."""
    out = []
    for info, first, content in _fences(text):
        if info.split() != ["sh", "run"]:
            continue
        block = Block(first)
        step = Step([])
        i = 0
        while i < len(content):
            line = content[i]
            if line.startswith(ARROW.rstrip()):
                start = i
                answer = [line[len(ARROW) :] if line.startswith(ARROW) else ""]
                while i + 1 < len(content) and re.match(r"#\s{2,}\S", content[i + 1]):
                    i += 1
                    answer.append(content[i][1:].strip())
                step.expected = answer
                step.lines = (first + start, first + i + 1)
                block.steps.append(step)
                step = Step([])
            else:
                step.commands.append(line)
            i += 1
        if step.commands:
            block.steps.append(step)
        out.append(block)
    return out


def unrunnable_blocks(text: str) -> list[int]:
    """1-based lines of ``sh`` blocks that call the API but are not ``sh run``."""
    calls = re.compile(r"^\s*curl\b|\$BACCARAT_URL", re.MULTILINE)
    return [
        first
        for info, first, content in _fences(text)
        if info.split()[:1] == ["sh"]
        and info.split() != ["sh", "run"]
        and calls.search("\n".join(content))
    ]


# -- patterns ---------------------------------------------------------------------------------


class Open:
    """``…`` in an object or array: more not shown."""


OPEN = Open()


class _PatternParser:
    """JSON with ``…`` as an object member or array element."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.decoder = json.JSONDecoder()

    def ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.i : self.i + 1]

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise ValueError(f"expected {ch!r} at {self.i}: {self.text[self.i : self.i + 30]!r}")
        self.i += 1

    def value(self) -> Any:
        ch = self.peek()
        if ch == ELLIPSIS:
            self.i += 1
            return OPEN
        if ch == "{":
            self.i += 1
            obj: dict[str, Any] = {}
            while self.peek() != "}":
                if self.peek() == ELLIPSIS:
                    self.i += 1
                    obj[ELLIPSIS] = OPEN
                else:
                    key = self.value()
                    if not isinstance(key, str):
                        raise ValueError(f"object key expected at {self.i}")
                    self.expect(":")
                    obj[key] = self.value()
                if self.peek() == ",":
                    self.i += 1
            self.i += 1
            return obj
        if ch == "[":
            self.i += 1
            arr: list[Any] = []
            while self.peek() != "]":
                arr.append(self.value())
                if self.peek() == ",":
                    self.i += 1
            self.i += 1
            return arr
        value, self.i = self.decoder.raw_decode(self.text, self.i)
        return value


def parse_pattern(text: str) -> Any:
    parser = _PatternParser(text)
    value = parser.value()
    if parser.peek():
        raise ValueError(f"text after the pattern: {parser.text[parser.i : parser.i + 40]!r}")
    return value


def _glob(pattern: str, text: str) -> bool:
    parts = [re.escape(p) for p in mask(pattern).split(ELLIPSIS)]
    return re.fullmatch(".*".join(parts), mask(text), re.DOTALL) is not None


def mismatches(pattern: Any, actual: Any, path: str = "$") -> list[str]:
    """Where ``actual`` does not match ``pattern`` (empty: it matches)."""
    if pattern is OPEN:
        return []
    if isinstance(pattern, dict):
        return _object_mismatches(pattern, actual, path)
    if isinstance(pattern, list):
        return _array_mismatches(pattern, actual, path)
    if isinstance(pattern, str):
        if isinstance(actual, str) and _glob(pattern, actual):
            return []
        return [f"{path}: expected {pattern!r}, found {_short(actual)}"]
    if type(pattern) is not type(actual) or pattern != actual:
        return [f"{path}: expected {pattern!r}, found {_short(actual)}"]
    return []


def _object_mismatches(pattern: dict[str, Any], actual: Any, path: str) -> list[str]:
    """Every key shown, in the answer's order; no other key unless the pattern has ``…``."""
    if not isinstance(actual, dict):
        return [f"{path}: expected an object, found {_short(actual)}"]
    found: list[str] = []
    shown = [k for k in pattern if k != ELLIPSIS]
    for key in shown:
        if key not in actual:
            found.append(f"{path}.{key}: missing")
        else:
            found += mismatches(pattern[key], actual[key], f"{path}.{key}")
    extra = [k for k in actual if k not in pattern]
    if extra and ELLIPSIS not in pattern:
        found.append(f"{path}: keys not shown: {', '.join(extra)}")
    order = [k for k in actual if k in shown]
    if order != [k for k in shown if k in actual]:
        found.append(f"{path}: keys in another order: {', '.join(order)}")
    return found


def _array_mismatches(pattern: list[Any], actual: Any, path: str) -> list[str]:
    """Every element shown, in order; more only after a final ``…``."""
    if not isinstance(actual, list):
        return [f"{path}: expected an array, found {_short(actual)}"]
    open_end = bool(pattern) and pattern[-1] is OPEN
    items = pattern[:-1] if open_end else pattern
    if len(actual) < len(items) or (not open_end and len(actual) != len(items)):
        return [f"{path}: {len(actual)} elements, the docs show {len(items)}"]
    return [m for i, p in enumerate(items) for m in mismatches(p, actual[i], f"{path}[{i}]")]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) < 80 else text[:77] + "…"


def text_mismatches(expected: list[str], actual: list[str]) -> list[str]:
    """Line globs; a line ``…`` matches any number of lines."""
    exp = [e.strip() for e in expected]
    act = [a.strip() for a in actual]

    def match(i: int, j: int) -> bool:
        if i == len(exp):
            return j == len(act)
        if exp[i] == ELLIPSIS:
            return any(match(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and _glob(exp[i], act[j]) and match(i + 1, j + 1)

    if match(0, 0):
        return []
    return ["the output differs:\n" + "\n".join(f"    {a}" for a in act)]


# -- fixing: the pattern's shape, the answer's values ------------------------------------------


def fill(pattern: Any, actual: Any) -> Any:
    """``actual`` shown the way ``pattern`` shows it: its ``…`` kept, every value the answer's."""
    if pattern is OPEN:
        return OPEN
    if isinstance(pattern, dict) and isinstance(actual, dict):
        if ELLIPSIS not in pattern:
            return {k: fill(pattern.get(k, actual[k]), actual[k]) for k in actual}
        out = {k: fill(pattern[k], actual[k]) for k in actual if k in pattern}
        out[ELLIPSIS] = OPEN
        return out
    if isinstance(pattern, list) and isinstance(actual, list):
        open_end = bool(pattern) and pattern[-1] is OPEN
        items = pattern[:-1] if open_end else pattern
        if open_end:
            kept = [fill(p, a) for p, a in zip(items, actual, strict=False)]
            return [*kept, OPEN]
        return [fill(items[i] if i < len(items) else a, a) for i, a in enumerate(actual)]
    if isinstance(pattern, str) and isinstance(actual, str) and _glob(pattern, actual):
        return pattern
    return actual


def render(value: Any) -> str:
    if value is OPEN:
        return ELLIPSIS
    if isinstance(value, dict):
        items = [
            ELLIPSIS if k == ELLIPSIS else f"{json.dumps(k, ensure_ascii=False)}:{render(v)}"
            for k, v in value.items()
        ]
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def wrap(text: str, width: int = WIDTH) -> list[str]:
    """``text`` as comment lines: ``# → `` then ``#   `` continuations, broken after commas."""
    pieces: list[str] = []
    current, in_string, escaped = "", False, False
    for ch in text:
        current += ch
        if in_string:
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == ",":
            pieces.append(current)
            current = ""
    pieces.append(current)
    lines, line = [], ARROW
    for piece in pieces:
        if len(line) + len(piece) > width and line.strip("#→ "):
            lines.append(line)
            line = "#   "
        line += piece
    lines.append(line)
    return lines


# -- running ----------------------------------------------------------------------------------

_MARK = "\x1estep-done\x1e"


@dataclass
class Result:
    step: Step
    output: str
    problems: list[str]


def _script(doc: list[Block]) -> str:
    parts = ["set -eo pipefail"]
    for block in doc:
        for step in block.steps:
            parts.extend(step.commands)
            parts.append(f"printf '\\n{_MARK}\\n'")
    return "\n".join(parts) + "\n"


def run_document(
    path: Path, env: Mapping[str, str], *, timeout: float = 600
) -> tuple[list[Result], str]:
    """Run ``path``'s examples; every checked step with its problems, and bash's stderr."""
    doc = blocks(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="docs-run-") as scratch:
        for name in LINKED:
            if (ROOT / name).exists():
                os.symlink(ROOT / name, Path(scratch) / name)
        proc = subprocess.run(
            ["bash", "-c", _script(doc)],
            cwd=scratch,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    outputs = proc.stdout.split(f"\n{_MARK}\n")
    steps = [s for b in doc for s in b.steps]
    results = []
    for i, step in enumerate(steps):
        if i >= len(outputs) - 1:  # bash stopped before this step finished
            problems = [f"bash stopped (exit {proc.returncode}) before this step finished"]
            results.append(Result(step, outputs[i] if i < len(outputs) else "", problems))
            break
        if step.expected is not None:
            results.append(Result(step, outputs[i], check(step.expected, outputs[i])))
    return results, proc.stderr


def check(expected: list[str], output: str) -> list[str]:
    text = "\n".join(expected).strip()
    if text[:1] in "{[":
        try:
            pattern = parse_pattern(text)
        except ValueError as exc:
            return [f"the docs' answer is not a pattern: {exc}"]
        try:
            actual = json.loads(output)
        except json.JSONDecodeError:
            return [f"the answer is not JSON: {output[:200]!r}"]
        return mismatches(pattern, actual)
    return text_mismatches(expected, output.strip("\n").splitlines())


def fixed_lines(step: Step, output: str) -> list[str]:
    """The answer ``output`` written the way the docs show ``step``'s."""
    assert step.expected is not None
    text = "\n".join(step.expected).strip()
    if text[:1] in "{[":
        return wrap(render(fill(parse_pattern(text), json.loads(output))))
    lines = output.strip("\n").splitlines() or [""]
    return [ARROW + lines[0]] + [f"#   {line}" for line in lines[1:]]


def fix(path: Path, results: list[Result]) -> int:
    """Rewrite the answers that differ with what the API answered; how many."""
    lines = path.read_text(encoding="utf-8").split("\n")
    todo = [r for r in results if r.problems and r.step.lines and r.output.strip()]
    for r in sorted(todo, key=lambda r: r.step.lines or (0, 0), reverse=True):
        assert r.step.lines is not None
        start, end = r.step.lines
        try:
            lines[start:end] = fixed_lines(r.step, r.output)
        except (ValueError, json.JSONDecodeError):
            continue
    path.write_text("\n".join(lines), encoding="utf-8")
    return len(todo)


def report(path: Path, results: list[Result], stderr: str) -> str:
    out = []
    for r in results:
        if r.problems:
            where = f"{path.name}:{(r.step.lines or (0, 0))[0] + 1}"
            cmd = next((c for c in r.step.commands if c.strip() and not c.startswith("#")), "")
            out.append(f"{where} ({cmd.strip()[:90]}):\n  " + "\n  ".join(r.problems))
    if out and stderr.strip():
        out.append("bash stderr (last lines):\n  " + "\n  ".join(stderr.splitlines()[-15:]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baccarat_dev.docs_run", description=__doc__)
    parser.add_argument("docs", nargs="*", default=list(DOCS))
    parser.add_argument("--url", default=os.environ.get("BACCARAT_URL"))
    parser.add_argument("--key", default=os.environ.get("KEY"))
    parser.add_argument("--fix", action="store_true", help="write the API's answers into the docs")
    args = parser.parse_args(argv)
    env = {"BACCARAT_URL": args.url or "", "KEY": args.key or ""}
    failed = 0
    for name in args.docs:
        path = ROOT / name if not Path(name).is_absolute() else Path(name)
        results, stderr = run_document(path, env)
        text = report(path, results, stderr)
        if text:
            failed += 1
            print(text)
            if args.fix:
                print(f"{path}: {fix(path, results)} answers rewritten")
        else:
            print(f"{path}: {len(results)} answers as documented")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
