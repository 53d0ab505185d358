"""``baccarat``: the command-line tool (derive a shoe, exact RTP, …).

Bad input gets a one-line error on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .bookcli import add_arguments
from .cards import code, codes
from .fairness import SECRET_BYTES, FairnessError, derive_shoe, verify_link
from .rules import PROFILE_RULES, ShoeRules, UnsafeRulesError

if TYPE_CHECKING:
    from .verdict import Verdict
    from .verify import BeaconCheck, SignatureCheck


class CliError(Exception):
    """A one-line error for the user."""


def _hex32(text: str, what: str) -> bytes:
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise CliError(f"{what} must be hex, got {text!r}") from None
    if len(raw) != SECRET_BYTES:
        raise CliError(f"{what} must be {SECRET_BYTES} bytes ({2 * SECRET_BYTES} hex digits)")
    return raw


def shoe_json(
    server_seed: bytes, shoe_number: int, client_seed: str, rules: ShoeRules
) -> dict[str, Any]:
    """The JSON ``baccarat shoe`` prints."""
    from .fairness import client_hash

    shoe = derive_shoe(server_seed, client_seed, shoe_number, rules)
    return {
        "spec": "bacc-pf-v1",
        "shoe_number": shoe_number,
        "client_seed": client_seed,
        "client_hash": client_hash(client_seed).hex(),
        "rules": rules.as_dict(),
        "cut_index": shoe.cut_index,
        "burn": shoe.burn_count,
        "burn_exposed": None if shoe.burn_exposed is None else code(shoe.burn_exposed),
        "first_round_start": shoe.first_start,
        "cards": codes(shoe.cards),
        "rounds": shoe.rounds_json(),
    }


def _cmd_shoe(args: argparse.Namespace) -> dict[str, Any]:
    seed = _hex32(args.server_seed, "--server-seed")
    flags = (args.decks, args.burn, args.cut_min, args.cut_max, args.round_limit)
    if args.profile:
        if any(flag is not None for flag in flags):
            raise CliError("give either --profile or the rule flags, not both")
        rules = PROFILE_RULES[args.profile]
    else:
        missing = [
            flag
            for flag, value in (
                ("--decks", args.decks),
                ("--burn", args.burn),
                ("--cut-min", args.cut_min),
                ("--cut-max", args.cut_max),
                ("--round-limit", args.round_limit),
            )
            if value is None
        ]
        if missing:
            raise CliError("give --profile or all rule flags; missing " + ", ".join(missing))
        rules = ShoeRules(args.decks, args.burn, args.cut_min, args.cut_max, args.round_limit)
    if args.shoe_number < 1:
        raise CliError("--shoe-number must be at least 1")
    out = shoe_json(seed, args.shoe_number, args.client_seed, rules)
    if args.anchor is not None:
        out["anchor_ok"] = verify_link(seed, args.shoe_number, _hex32(args.anchor, "--anchor"))
    return out


def _cmd_rtp(args: argparse.Namespace) -> str | dict[str, Any]:
    from .paytables import PAY_TABLES
    from .rtp import compute_rtp, format_table

    if args.decks < 1 or args.decks > 8:
        raise CliError("--decks must be 1–8")
    table = PAY_TABLES[args.profile]
    if args.dragon:
        table = table.with_dragon(args.dragon)
    report = compute_rtp(table, args.decks)
    return report.as_dict() if args.json else format_table(report)


def _fetch(url: str) -> str:
    """GET ``url`` (the proof route and the signing keys: public, no key). An HTTP error names
    the status and the API's error message (e.g. 404: the shoe has not ended yet)."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "baccarat-verify"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return str(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        why = ""
        try:
            error = json.loads(exc.read().decode("utf-8"))["error"]
            why = f" {error['code']}: {_open_shoe_text(error) or error['message']}"
        except (ValueError, KeyError, TypeError, OSError):
            pass
        raise CliError(f"cannot read {url}: HTTP {exc.code}{why}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise CliError(f"cannot read {url}: {getattr(exc, 'reason', exc)}") from None


def _open_shoe_text(error: dict[str, Any]) -> str | None:
    """The proof route's 409 ``shoe_not_closed`` (a known shoe, still open) in words, with what
    is known before its proof: its table, rounds dealt, voids so far, when it closes at the
    latest. ``None`` for any other error."""
    d = error.get("details")
    if error.get("code") != "shoe_not_closed" or not isinstance(d, dict):
        return None
    return (
        f"the shoe is still open (table {d.get('table_id')}, shoe {d.get('shoe_number')}): "
        f"{d.get('rounds_dealt')} rounds dealt, {d.get('voided_rounds')} voided so far; no "
        f"proof until it ends — the service closes it by {d.get('close_by')} at the latest if "
        "nothing more is dealt"
    )


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object hook: a key given twice is refused (which of the two would count?)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _parse(text: str, source: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except ValueError as exc:
        raise CliError(f"{source} is not JSON: {exc}") from None


def _read_proof(source: str) -> Any:
    """A proof from a file, ``-`` (stdin) or an http(s) URL of the proof route."""
    try:
        if source == "-":
            text = sys.stdin.read()
        elif _is_url(source):
            text = _fetch(source)
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise CliError(f"cannot read {source}: {exc}") from None
    return _parse(text, source)


def _follow(url: str) -> Any:
    """The proof at ``url`` and, for a paged proof, every following page (``page.next``, a path
    on the same origin), in order."""
    from urllib.parse import urljoin, urlsplit

    from .proofdoc import MAX_PAGES

    first = _read_proof(url)
    if not isinstance(first, dict) or not isinstance(first.get("page"), dict):
        return first
    pages = [first]
    while (nxt := pages[-1]["page"].get("next")) is not None:
        if not isinstance(nxt, str) or not nxt.startswith("/v1/shoes/") or urlsplit(nxt).netloc:
            raise CliError(f"page {len(pages)} links to {nxt!r}, not to a proof page of its API")
        if len(pages) >= MAX_PAGES:
            raise CliError(f"the proof links more than {MAX_PAGES} pages")
        url = urljoin(url, nxt)
        page = _read_proof(url)
        if not isinstance(page, dict) or not isinstance(page.get("page"), dict):
            raise CliError(f"{url} is not a proof page")
        pages.append(page)
    return pages


def _pages_of(doc: Any, source: str) -> list[Any]:
    """Pages given one file each, or several per file (a list or a bundle), to put together."""
    if isinstance(doc, dict) and isinstance(doc.get("pages"), list):
        return list(doc["pages"])
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict) and "page" in doc:
        return [doc]
    raise CliError(f"{source} holds no proof page (several sources are the pages of one proof)")


def _signing_keys(args: argparse.Namespace) -> tuple[Any, str] | None:
    """The JWK set to check the signature with, and where it came from: ``--keys`` (a file or a
    URL), else ``GET /v1/signing-keys`` of the first proof URL's origin, else None."""
    from urllib.parse import urlsplit

    if args.keys:
        return _read_proof(args.keys), args.keys
    url = next((s for s in args.proof if _is_url(s)), None)
    if url is None:
        return None
    parts = urlsplit(url)
    keys_url = f"{parts.scheme}://{parts.netloc}/v1/signing-keys"
    return _read_proof(keys_url), keys_url


def _is_signed(document: Any) -> bool:
    pages = document.get("pages", [document]) if isinstance(document, dict) else document
    return isinstance(pages, list) and any(isinstance(p, dict) and "signature" in p for p in pages)


_PROOF_PATH = re.compile(r"/v1/shoes/([^/?#]+)/proof")


def _asked_shoe(args: argparse.Namespace) -> str | None:
    """The shoe the proof must be: ``--shoe``, else the id in the proof URL's path
    (``/v1/shoes/{shoe_id}/proof``); both given, they must agree."""
    from urllib.parse import unquote, urlsplit

    from_urls = {
        unquote(m[1])
        for s in args.proof
        if _is_url(s) and (m := _PROOF_PATH.fullmatch(urlsplit(s).path))
    }
    asked = set(from_urls) | ({args.shoe} if args.shoe else set())
    if len(asked) > 1:
        raise CliError(f"the proof URLs and --shoe name different shoes: {sorted(asked)}")
    return asked.pop() if asked else None


def _print_verdict(as_json: bool, verdict: Verdict, extra: list[tuple[str, Any]]) -> None:
    """The verdict (and the receipt's and books' checks) as lines, or as one JSON report."""
    if as_json:
        report = verdict.as_dict() | {name: v.as_dict() for name, v in extra}
        print(json.dumps(report, ensure_ascii=False))
        return
    print(verdict.line())
    if verdict.beacon is not None:
        never = "" if verdict.beacon == "drand quicknet" else " (never drand)"
        print(f"beacon: {verdict.beacon}{never}")
    if (line := verdict.interventions_line()) is not None:
        print(line)
    for _, v in extra:
        print("\n".join(v.lines()))


def _cmd_verify(args: argparse.Namespace) -> int:
    from .bookcli import checks
    from .verify import verify

    docs = [(_follow(s) if _is_url(s) else _read_proof(s), s) for s in args.proof]
    if len(docs) == 1:
        document = docs[0][0]
    else:
        document = [page for doc, source in docs for page in _pages_of(doc, source)]
    if not isinstance(document, dict | list):
        raise CliError("a proof is a JSON object (or a list of its pages)")
    keys = _signing_keys(args) if _is_signed(document) else None
    if _is_signed(document) and keys is None:
        raise CliError(
            "the proof is signed: give the signing keys with --keys FILE (the JWK set "
            "GET /v1/signing-keys serves) or verify the proof by its URL"
        )
    verdict = verify(
        document,
        keys=None if keys is None else keys[0],
        keys_source="?" if keys is None else keys[1],
        signature_check=args.signature_check,
        require_signature=not args.allow_unsigned,
        shoe_id=_asked_shoe(args),
        beacon_check=args.beacon_check,
    )
    try:
        extra = checks(args, document, _read_proof, verdict.ok)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    _print_verdict(args.json, verdict, extra)
    if not (verdict.ok and all(v.ok for _, v in extra)):
        return 1
    if verdict.beacon not in (None, "drand quicknet") and not args.allow_test_beacon:
        print(
            "NOT trustless: the rounds were keyed by a test beacon with its own key, not drand — "
            "whoever holds that key could know every card before the bets locked (a local or "
            "test run: accept it with --allow-test-beacon)",
            file=sys.stderr,
        )
        return 3
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``baccarat: error: …``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"baccarat: error: {message} (see {self.prog} --help)\n")


Subcommands = argparse._SubParsersAction  # (typeshed's name for what add_subparsers returns)


def build_parser(
    signature_check: SignatureCheck | None = None,
    beacon_check: BeaconCheck | None = None,
) -> tuple[argparse.ArgumentParser, Subcommands[Any]]:
    """The parser and its subcommands (``baccarat_api.cli`` adds ``operator`` to them; each
    subcommand sets ``func``, which :func:`run` calls). ``verify`` checks ES256 signatures with
    ``signature_check`` and a bacc-pf-v2 proof's beacons with ``beacon_check`` (the core has no
    ECDSA and no pairing: ``baccarat_verify.cli`` passes both)."""
    p = _Parser(prog="baccarat", description="Provably fair baccarat engine.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("shoe", help="derive a bacc-pf-v1 shoe and play all its rounds")
    s.add_argument("--server-seed", required=True, help="the shoe secret s_i (64 hex digits)")
    s.add_argument("--shoe-number", required=True, type=int)
    s.add_argument("--client-seed", required=True)
    s.add_argument("--profile", choices=sorted(PROFILE_RULES))
    s.add_argument("--decks", type=int)
    s.add_argument("--burn", type=int, choices=(0, 1))
    s.add_argument("--cut-min", type=int)
    s.add_argument("--cut-max", type=int)
    s.add_argument("--round-limit", type=int)
    s.add_argument("--anchor", help="table anchor s_0: also check the chain link")
    s.set_defaults(func=_cmd_shoe)

    r = sub.add_parser("rtp", help="exact return to player of every bet")
    r.add_argument("--profile", required=True, choices=sorted(PROFILE_RULES))
    r.add_argument("--decks", type=int, default=8)
    r.add_argument("--dragon", choices=("seed", "common"), help="dragon pay table variant")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_rtp)

    v = sub.add_parser(
        "verify",
        help="verify a shoe proof: its URL, page files, a bundle, or - for stdin",
        description="Verify a shoe proof: the signature over every page, the seed chain, every "
        "round's cards, every settlement and void, the lifecycle marks and the interventions "
        "(and, asked for, a bettor's receipt and every round's public book pages). "
        "Give the proof's URL (every page is followed, the keys are read from GET "
        "/v1/signing-keys of its origin), or its pages as files (one per page, or one file "
        'holding the list of pages or {"pages": [...]}). Exit status 0 only when everything '
        "matches (3: it matches, but against a test beacon).",
    )
    v.add_argument("proof", nargs="+", help="the proof URL, page files, a bundle, or -")
    v.add_argument(
        "--keys",
        help="the signing keys, a JWK set (file or URL; default: /v1/signing-keys of the "
        "proof URL's origin)",
    )
    v.add_argument(
        "--shoe",
        metavar="SHOE_ID",
        help="the shoe the proof must be (default: the id in the proof URL); a proof of any other "
        "shoe or table fails",
    )
    v.add_argument(
        "--allow-unsigned",
        action="store_true",
        help="accept a proof without a signature (old v1 proofs): its cards and money are "
        "still checked, but nothing shows who published it",
    )
    v.add_argument(
        "--allow-test-beacon",
        action="store_true",
        help="accept a bacc-pf-v2 proof keyed by a test beacon (make run's, its own key): "
        "without it such a proof exits 3 even when every check passes, as whoever holds a test "
        "beacon's key could know the cards before the bets locked",
    )
    v.add_argument("--json", action="store_true", help="print the full report as JSON")
    add_arguments(v)
    v.set_defaults(func=_cmd_verify, signature_check=signature_check, beacon_check=beacon_check)
    return p, sub


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The parsed arguments, or the exit status when argparse already answered (usage error,
    ``--help``)."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed a one-line usage error
        return int(exc.code or 0)


def run(args: argparse.Namespace) -> int:
    """Run a parsed command: print what it returns (text, or JSON for a dict); a :class:`CliError`
    (or a fairness / rules error) is one line on stderr and exit status 2."""
    try:
        out = args.func(args)
    except (CliError, FairnessError, UnsafeRulesError) as exc:
        print(f"baccarat: error: {exc}", file=sys.stderr)
        return 2
    if isinstance(out, int):  # the command printed its own output; this is its exit status
        return out
    text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
    try:
        print(text)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(build_parser()[0], argv)
    return args if isinstance(args, int) else run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
