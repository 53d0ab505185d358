"""The exact ``sam local invoke`` line of every event, and ``sam local start-api``'s."""

from __future__ import annotations

from pathlib import Path

from baccarat_dev.samlocal.catalogue import (
    ENV_FILE,
    NETWORK,
    RENDERED,
    TEMPLATE_FILE,
    Invocation,
    invocations,
)
from baccarat_dev.samlocal.checks import load_event, placeholders
from baccarat_dev.template import load


def event_path(root: Path, inv: Invocation) -> str:
    """Where ``sam local invoke -e`` reads the event: events/ itself, or .aws-sam/events/ for
    an event with placeholders."""
    if (root / inv.file).is_file() and placeholders(load_event(root, inv)):
        return f"{RENDERED}/{inv.name}.json"
    return inv.file


#: The shell variable holding the Lambda image ``sam local`` runs the functions in (AWS's, or the
#: stand-in built here: ``eval "$(scripts/sam-local-images.sh)"`` exports it, docs/sam-local.md).
#: ``--skip-pull-image``: SAM builds its image (its emulator, the layers) on that one as it is
#: here, without asking a registry.
LAMBDA_IMAGE = "$LAMBDA_IMAGE"


def local_flags(arch: str) -> str:
    network = f"--docker-network {NETWORK}"
    image = f"--invoke-image {LAMBDA_IMAGE} --skip-pull-image"
    return f"--env-vars {ENV_FILE} {network} {image} --parameter-overrides Architecture={arch}"


#: Events whose answer, in the recipe's order on its one table (star-city, banked by the house),
#: is a refusal — shown on purpose: that table has no player-banker seat and no betting
#: spectators, and its shoe is closed by the time betting is asked for (docs/sam-local.md).
REFUSED_IN_RECIPE: dict[str, str] = {
    "take_banker": "player_banker_not_allowed",
    "leave_banker": "not_found",
    "join_spectators": "spectator_betting_not_allowed",
    "leave_spectators": "not_found",
    "urge": "player_banker_not_allowed",
    "pause_table": "not_auto_dealing",  # an operator table has no clock
    "resume_table": "not_auto_dealing",
    "give_client_seed": "not_auto_dealing",  # the recipe's table is dealt by its operator
    "get_receipt": "not_in_book",  # the recipe's round is at a table without a book
    "settlement_bettors": "not_in_book",
    "get_book_page": "not_found",  # public; the recipe's round has no book
    "reveal_cards": "no_squeeze",
    "open_betting": "no_open_shoe",
    "place_slip": "betting_closed",
    "cancel_slip": "not_found",  # no slip to cancel (the window is not open either)
    "retry_webhook_failure": "not_found",  # an event never parked
    "remove_chat_message": "not_found",  # a message id nobody posted
}


def invoke_line(root: Path, inv: Invocation, arch: str) -> str:
    expect = REFUSED_IN_RECIPE.get(inv.name)
    return (
        f"sam local invoke {inv.function} -e {event_path(root, inv)} {local_flags(arch)}"
        " | baccarat sam-local take" + ("" if expect is None else f" --expect {expect}")
    )


def start_api_line(arch: str) -> str:
    return f"sam local start-api {local_flags(arch)} --warm-containers EAGER"


def commands(root: Path, arch: str) -> list[str]:
    """For each function, the ``sam local invoke`` line of each of its events; then
    ``sam local start-api``."""
    found, _ = invocations(load(root / TEMPLATE_FILE))
    lines = [
        "# sam local: one line per event of every function (docs/sam-local.md: engines up, "
        "`baccarat sam-local setup`,",
        "# an operator key taken). .aws-sam/events/ holds the events with ids, written by "
        "`baccarat sam-local take`",
        "# from the answers before them (the order: docs/sam-local.md).",
    ]
    current = None
    for inv in found:
        if inv.function != current:
            lines.append(f"# {inv.function}")
            current = inv.function
        lines.append(invoke_line(root, inv, arch))
    lines += ["# the whole API (Ctrl-C stops it)", start_api_line(arch)]
    return lines
