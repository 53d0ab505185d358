"""``baccarat shoe`` (and that ``baccarat rtp --help`` works): in-process through
``baccarat.cli.main`` for speed, and a few runs of the installed console script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
SHOES = json.loads((VECTORS / "shoes.json").read_text(encoding="utf-8"))["shoes"]
BY_NAME = {v["name"]: v for v in SHOES}
SCRIPT = Path(sys.executable).with_name("baccarat")

SPEC_S1 = "bc0d405a0361266fe6e6cee0ed4d5370cb4dfecffac340c17ee0bf1aaf2aca7b"
SPEC_ANCHOR = "cdde3d9965e506c2da1abc8577df22cbd6776269c294cd943e87bb7d44781d9a"
SPEC_SEED = "operator-7:table-12:shoe-seed"
SPEC_ARGS = [
    "shoe",
    "--server-seed",
    SPEC_S1,
    "--shoe-number",
    "1",
    "--client-seed",
    SPEC_SEED,
    "--profile",
    "bid-squeeze",
]
REQUIRED_KEYS = {"client_hash", "cut_index", "burn", "cards", "rounds"}
ROUND_KEYS = {"start", "player", "banker", "player_total", "banker_total", "result"}


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def run_ok(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    rc, out, err = run(capsys, argv)
    assert (rc, err) == (0, "")
    data: dict[str, Any] = json.loads(out)
    return data


def run_script(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    assert SCRIPT.exists(), f"the console script is not installed at {SCRIPT}"
    return subprocess.run([SCRIPT, *args], capture_output=True, timeout=60, check=False)


def rule_flags(rules: dict[str, int]) -> list[str]:
    return [
        "--decks",
        str(rules["decks"]),
        "--burn",
        str(rules["burn"]),
        "--cut-min",
        str(rules["cut_min"]),
        "--cut-max",
        str(rules["cut_max"]),
        "--round-limit",
        str(rules["round_limit"]),
    ]


def vector_args(v: dict[str, Any]) -> list[str]:
    return [
        "shoe",
        "--server-seed",
        v["secret"],
        "--shoe-number",
        str(v["shoe_number"]),
        "--client-seed",
        v["client_seed"],
        *rule_flags(v["rules"]),
    ]


def check_against_vector(out: dict[str, Any], v: dict[str, Any]) -> None:
    assert out["client_hash"] == v["client_hash"]
    assert out["cards"] == v["cards"]
    assert out["cut_index"] == v["cut_index"]
    assert out["burn"] == v["burn"]
    assert out["burn_exposed"] == v["burn_exposed"]
    assert out["first_round_start"] == v["first_round_start"]
    assert [{k: r[k] for k in ROUND_KEYS} for r in out["rounds"]] == v["rounds"]
    assert [r["round_number"] for r in out["rounds"]] == list(range(1, len(v["rounds"]) + 1))


# --- output -------------------------------------------------------------------------------------


def test_shoe_output_keys(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_ok(capsys, SPEC_ARGS)
    assert set(out) >= REQUIRED_KEYS
    assert "anchor_ok" not in out
    assert out["spec"] == "bacc-pf-v1"
    assert out["shoe_number"] == 1
    assert out["client_seed"] == SPEC_SEED
    assert out["rules"] == {"decks": 8, "burn": 1, "cut_min": 14, "cut_max": 26, "round_limit": 0}
    assert len(out["cards"]) == 416
    for r in out["rounds"]:
        assert set(r) >= ROUND_KEYS
        assert r["result"] in {"player", "banker", "tie"}


def test_no_cut_card_prints_null_cut_index(capsys: pytest.CaptureFixture[str]) -> None:
    v = BY_NAME["star-city-4d"]
    out = run_ok(capsys, vector_args(v))
    assert out["cut_index"] is None
    assert out["burn"] == 0 and out["burn_exposed"] is None
    assert len(out["cards"]) == 208 and len(out["rounds"]) == 30


def test_spec_vector_through_the_installed_script() -> None:
    proc = run_script(*SPEC_ARGS, "--anchor", SPEC_ANCHOR)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    out = json.loads(proc.stdout)
    assert out["client_hash"] == "b8fbb059f1b0269d422b6b6e2a7b0b9b4f31e02ec402e85e0277549532dfcc1b"
    first_12 = ["AS", "9C", "8D", "8D", "TD", "6H", "QS", "QS", "3H", "5C", "4S", "6C"]
    assert out["cards"][:12] == first_12
    assert out["cut_index"] == 393
    assert (out["burn_exposed"], out["burn"], out["first_round_start"]) == ("AS", 1, 2)
    assert len(out["rounds"]) == 78
    want = {
        0: (2, "8D TD", "8D 6H", 8, 4, "player"),
        1: (6, "QS 3H 4S", "QS 5C 6C", 7, 1, "player"),
        77: (393, "4S 4H", "7H 9S", 8, 6, "player"),
    }
    for i, (start, player, banker, pt, bt, result) in want.items():
        r = out["rounds"][i]
        assert (r["start"], r["player"], r["banker"]) == (start, player.split(), banker.split())
        assert (r["player_total"], r["banker_total"], r["result"]) == (pt, bt, result)
    assert out["anchor_ok"] is True


def test_non_ascii_vector_through_the_installed_script() -> None:
    """The client seed reaches the script as UTF-8 argv and is used exactly as received."""
    v = BY_NAME["non-ascii-client-seed"]
    proc = run_script(*vector_args(v), "--anchor", v["anchor"])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.decode("utf-8"))
    assert out["client_seed"] == v["client_seed"]
    check_against_vector(out, v)
    assert out["anchor_ok"] is True


@pytest.mark.parametrize("v", SHOES, ids=[v["name"] for v in SHOES])
def test_every_shoe_vector(capsys: pytest.CaptureFixture[str], v: dict[str, Any]) -> None:
    argv = vector_args(v)
    if v["anchor"] is not None:
        argv += ["--anchor", v["anchor"]]
    out = run_ok(capsys, argv)
    check_against_vector(out, v)
    assert out["rules"] == v["rules"]
    assert out.get("anchor_ok", None) is (True if v["anchor"] is not None else None)


@pytest.mark.parametrize("profile", ["star-city", "bid-squeeze"])
def test_profile_equals_explicit_flags(capsys: pytest.CaptureFixture[str], profile: str) -> None:
    rules = {
        "star-city": {"decks": 4, "burn": 0, "cut_min": 0, "cut_max": 0, "round_limit": 30},
        "bid-squeeze": {"decks": 8, "burn": 1, "cut_min": 14, "cut_max": 26, "round_limit": 0},
    }[profile]
    base = ["shoe", "--server-seed", "ab" * 32, "--shoe-number", "3", "--client-seed", "p"]
    by_profile = run_ok(capsys, [*base, "--profile", profile])
    by_flags = run_ok(capsys, [*base, *rule_flags(rules)])
    assert by_profile == by_flags
    assert by_profile["rules"] == rules
    # and a different rule set really gives a different shoe
    other = dict(rules, round_limit=rules["round_limit"] + 1)
    assert run_ok(capsys, [*base, *rule_flags(other)])["cards"] != by_flags["cards"]


# --- --anchor -------------------------------------------------------------------------------------


def test_anchor_ok_true_and_false(capsys: pytest.CaptureFixture[str]) -> None:
    v = BY_NAME["bid-squeeze-8d"]  # shoe 2 of the test chain
    assert run_ok(capsys, [*vector_args(v), "--anchor", v["anchor"]])["anchor_ok"] is True
    # the spec chain's anchor is not this table's
    assert run_ok(capsys, [*vector_args(v), "--anchor", SPEC_ANCHOR])["anchor_ok"] is False
    # the right anchor but the wrong shoe number (one chain step too few)
    argv = vector_args(v)
    argv[argv.index("--shoe-number") + 1] = "1"
    assert run_ok(capsys, [*argv, "--anchor", v["anchor"]])["anchor_ok"] is False
    # s_1 of the same chain verifies with shoe number 1
    s1 = BY_NAME["star-city-4d"]
    assert run_ok(capsys, [*vector_args(s1), "--anchor", v["anchor"]])["anchor_ok"] is True


# --- bad input ------------------------------------------------------------------------------------

GOOD = {
    "--server-seed": "ab" * 32,
    "--shoe-number": "1",
    "--client-seed": "c",
}


def shoe_argv(*extra: str, drop: str = "", **overrides: str) -> list[str]:
    flags = dict(GOOD)
    for k, val in overrides.items():
        flags["--" + k.replace("_", "-")] = val
    argv = ["shoe"]
    for k, val in flags.items():
        if k != drop:
            argv += [k, val]
    return [*argv, *extra]


BID = ["--profile", "bid-squeeze"]
STAR_FLAGS = ["--decks", "4", "--burn", "0", "--cut-min", "0", "--cut-max", "0"]

# Errors the CLI reports itself.
BAD_INPUT = {
    "profile and rule flags together": shoe_argv("--profile", "star-city", "--decks", "8"),
    "bad hex": shoe_argv(*BID, server_seed="zz" * 32),
    "odd hex": shoe_argv(*BID, server_seed="abc"),
    "empty secret": shoe_argv(*BID, server_seed=""),
    "31-byte secret": shoe_argv(*BID, server_seed="ab" * 31),
    "33-byte secret": shoe_argv(*BID, server_seed="ab" * 33),
    "bad anchor hex": shoe_argv(*BID, "--anchor", "xy" * 32),
    "short anchor": shoe_argv(*BID, "--anchor", "ab" * 16),
    "negative shoe number": shoe_argv(*BID, shoe_number="-1"),
    "shoe number 0": shoe_argv(*BID, shoe_number="0"),
    "shoe number 2^32": shoe_argv(*BID, shoe_number=str(2**32)),
    "257-byte client seed": shoe_argv(*BID, client_seed="é" * 128 + "x"),
    "missing all rule flags": shoe_argv(),
    "missing some rule flags": shoe_argv("--decks", "8", "--burn", "1"),
    "unsafe: cut_min 10": shoe_argv(
        "--decks", "8", "--burn", "1", "--cut-min", "10", "--cut-max", "26", "--round-limit", "0"
    ),
    "unsafe: no cut card, no limit": shoe_argv(*STAR_FLAGS, "--round-limit", "0"),
    "unsafe: 33 rounds of 4 decks": shoe_argv(*STAR_FLAGS, "--round-limit", "33"),
    "unsafe: 3 decks": shoe_argv(
        "--decks", "3", "--burn", "0", "--cut-min", "0", "--cut-max", "0", "--round-limit", "10"
    ),
    "unsafe: 9 decks": shoe_argv(
        "--decks", "9", "--burn", "1", "--cut-min", "14", "--cut-max", "26", "--round-limit", "0"
    ),
    "unsafe: cut_min > cut_max": shoe_argv(
        "--decks", "8", "--burn", "1", "--cut-min", "27", "--cut-max", "26", "--round-limit", "0"
    ),
    "unsafe: 256 decks": shoe_argv(
        "--decks", "256", "--burn", "1", "--cut-min", "14", "--cut-max", "26", "--round-limit", "0"
    ),
}
# Errors argparse reports (through the one-line parser error).
ARGPARSE_BAD_INPUT = {
    "unknown profile": shoe_argv("--profile", "macau"),
    "missing --server-seed": shoe_argv(*BID, drop="--server-seed"),
    "missing --client-seed": shoe_argv(*BID, drop="--client-seed"),
    "non-integer shoe number": shoe_argv(*BID, shoe_number="one"),
    "burn 2": shoe_argv(
        "--decks", "8", "--burn", "2", "--cut-min", "14", "--cut-max", "26", "--round-limit", "0"
    ),
    "no command": [],
}


def check_failure(rc: int, out: str, err: str) -> None:
    assert rc != 0
    assert out == ""
    assert "Traceback" not in err
    assert "error" in err


@pytest.mark.parametrize("argv", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    rc, out, err = run(capsys, argv)
    check_failure(rc, out, err)
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("baccarat: error: ")


@pytest.mark.parametrize("argv", ARGPARSE_BAD_INPUT.values(), ids=ARGPARSE_BAD_INPUT.keys())
def test_argparse_bad_input_one_line_error(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    rc, out, err = run(capsys, argv)
    check_failure(rc, out, err)
    assert err.count("\n") == 1, err


def test_non_utf8_client_seed_is_an_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, err = run(capsys, shoe_argv(*BID, client_seed="bad\udcff"))
    check_failure(rc, out, err)
    assert err.count("\n") == 1


def test_bad_input_through_the_installed_script() -> None:
    for argv in (BAD_INPUT["bad hex"], BAD_INPUT["unsafe: cut_min 10"]):
        proc = run_script(*argv)
        assert proc.returncode != 0
        assert proc.stdout == b""
        err = proc.stderr.decode()
        assert err.startswith("baccarat: error: ") and err.count("\n") == 1, err
    proc = run_script(*ARGPARSE_BAD_INPUT["unknown profile"])
    assert proc.returncode != 0 and proc.stdout == b""
    assert b"Traceback" not in proc.stderr and b"macau" in proc.stderr


def test_non_utf8_argv_through_the_installed_script() -> None:
    proc = run_script(*shoe_argv(*BID, client_seed="x"), "--client-seed", b"\xff\xfe")
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr


# --- help -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["--help"], ["shoe", "--help"], ["rtp", "--help"]])
def test_help(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    rc, out, err = run(capsys, argv)
    assert rc == 0 and err == ""
    assert out.startswith("usage: baccarat")


def test_rtp_help_through_the_installed_script() -> None:
    proc = run_script("rtp", "--help")
    assert proc.returncode == 0, proc.stderr
    assert b"--profile" in proc.stdout and b"--decks" in proc.stdout


def test_script_is_the_console_entry_point() -> None:
    assert os.access(SCRIPT, os.X_OK)
    proc = run_script("shoe", "--help")
    assert proc.returncode == 0 and b"--server-seed" in proc.stdout
