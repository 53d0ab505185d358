"""Text people type for other people to read (chat lines; table names may reuse it): refused
rather than cleaned (docs/design/browsers.md §4) — a stripped message would say something its
author did not type. Pure, the standard library's ``unicodedata`` only.

Accepted text is NFC-normalised, one line, at most ``max_chars`` code points and ``max_bytes``
UTF-8 bytes, and holds none of: controls (Cc, CR/LF/TAB included), surrogates (Cs), private use
(Co), unassigned code points (Cn), line and paragraph separators (Zl, Zp), format characters
(Cf) other than ZWNJ/ZWJ (so no bidi embeddings, overrides, isolates or marks, no BOM, no
invisible operators, no tags), nor a run of more than :data:`MAX_COMBINING_RUN` combining marks
(Mn, Me: "zalgo"). Markup is ordinary text: ``<b>`` is stored as typed and rendered inert
(``textContent``)."""

from __future__ import annotations

import unicodedata

from baccarat_api.service.errors import DomainError

#: The longest run of combining marks (Mn, Me) accepted after one base character.
MAX_COMBINING_RUN = 4
#: The format characters accepted: ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER (emoji
#: sequences, Indic and Persian text need them).
ALLOWED_FORMAT = frozenset({"\u200c", "\u200d"})
#: Each refused general category → the ``details.reason`` it is refused with.
REFUSED_CATEGORIES = {
    "Cc": "control",
    "Cs": "surrogate",
    "Co": "private_use",
    "Cn": "unassigned",
    "Zl": "line_separator",
    "Zp": "paragraph_separator",
    "Cf": "format",
}
_COMBINING = frozenset({"Mn", "Me"})


def refused_at(text: str) -> tuple[str, int] | None:
    """The first refused code point of ``text`` (already NFC): ``(reason, index)``, or
    ``None``. ``index`` counts code points."""
    run = 0
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        reason = REFUSED_CATEGORIES.get(category)
        if reason is not None and not (category == "Cf" and char in ALLOWED_FORMAT):
            return reason, index
        run = run + 1 if category in _COMBINING else 0
        if run > MAX_COMBINING_RUN:
            return "combining_run", index
    return None


def check_text(
    text: str,
    max_chars: int,
    max_bytes: int,
    *,
    invalid: str = "chat_text_invalid",
    too_long: str = "chat_text_too_long",
) -> str:
    """``text`` NFC-normalised, or a refusal: ``invalid`` (``details.reason``: ``empty`` or the
    refused class, ``details.index``: the code point's offset in the NFC text) or ``too_long``
    (``details``: the limits and the text's size). The codes are the chat's unless named."""
    normal = unicodedata.normalize("NFC", text)
    found = refused_at(normal)
    if found is not None:
        reason, index = found
        raise DomainError(
            invalid,
            f"the text holds a refused character ({reason}) at code point {index}",
            details={"reason": reason, "index": index, "code_point": f"U+{ord(normal[index]):04X}"},
        )
    if not normal.strip():
        raise DomainError(
            invalid, "the text is empty (or only white space)", details={"reason": "empty"}
        )
    size = len(normal.encode("utf-8"))
    if len(normal) > max_chars or size > max_bytes:
        raise DomainError(
            too_long,
            f"the text is longer than {max_chars} characters or {max_bytes} UTF-8 bytes",
            details={
                "max_chars": max_chars,
                "max_bytes": max_bytes,
                "chars": len(normal),
                "bytes": size,
            },
        )
    return normal
