"""Hostile chat text (service/text.py): each refused class refused with its reason and place,
markup and real scripts accepted as typed, anything accepted NFC, within the limits and clean."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat_api.limits import CHAT_MAX_BYTES, CHAT_MAX_CHARS
from baccarat_api.service.errors import DomainError
from baccarat_api.service.text import MAX_COMBINING_RUN, REFUSED_CATEGORIES, check_text


def chat(text: str) -> str:
    return check_text(text, CHAT_MAX_CHARS, CHAT_MAX_BYTES)


def refusal(text: str) -> DomainError:
    with pytest.raises(DomainError) as caught:
        chat(text)
    return caught.value


#: (text, reason, index): one of each refused class, at a known place.
HOSTILE = [
    ("hi\nthere", "control", 2),
    ("tab\there", "control", 3),
    ("cr\r", "control", 2),
    ("nul\x00", "control", 3),
    ("esc \x1b[31mred", "control", 4),
    ("del\x7f", "control", 3),
    ("c1\x85", "control", 2),
    ("lone \ud800 surrogate", "surrogate", 5),
    ("private \ue000", "private_use", 8),
    ("plane 15 \U000f0000", "private_use", 9),
    ("unassigned \u0378", "unassigned", 11),
    ("nonchar \ufdd0", "unassigned", 8),
    ("nonchar \uffff", "unassigned", 8),
    ("line\u2028sep", "line_separator", 4),
    ("para\u2029sep", "paragraph_separator", 4),
    ("abc\u202edcba", "format", 3),  # RIGHT-TO-LEFT OVERRIDE
    ("\u202aembedding", "format", 0),
    ("x\u202cpop", "format", 1),
    ("isolate \u2066x\u2069", "format", 8),
    ("\u2067rtl isolate", "format", 0),
    ("mark\u200e", "format", 4),
    ("mark\u200f", "format", 4),
    ("arabic mark \u061c", "format", 12),
    ("\ufeffbom", "format", 0),
    ("word\u2060joiner", "format", 4),
    ("invisible\u2062times", "format", 9),
    ("soft\u00adhyphen", "format", 4),
    ("flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "format", 6),
    ("x" + "\u0316\u0317\u0318\u0319\u031c", "combining_run", 5),
    ("ok a\u0300\u0301\u0302\u0303 then " + "e" + "\u0316" * 9, "combining_run", 18),
]


@pytest.mark.parametrize(("text", "reason", "index"), HOSTILE)
def test_each_hostile_class_is_refused_with_its_reason_and_place(
    text: str, reason: str, index: int
) -> None:
    refused = refusal(text)
    assert refused.code == "chat_text_invalid"
    assert refused.details["reason"] == reason
    assert refused.details["index"] == index


@pytest.mark.parametrize("text", ["", " ", "   ", "\u3000", "\u00a0 \u2003"])
def test_empty_or_blank_text_is_refused(text: str) -> None:
    refused = refusal(text)
    assert (refused.code, refused.details["reason"]) == ("chat_text_invalid", "empty")


def test_the_limits_are_code_points_and_bytes_after_nfc() -> None:
    assert chat("a" * CHAT_MAX_CHARS) == "a" * CHAT_MAX_CHARS
    too_many = refusal("a" * (CHAT_MAX_CHARS + 1))
    assert too_many.code == "chat_text_too_long"
    assert too_many.details["chars"] == CHAT_MAX_CHARS + 1
    # 200 four-byte emoji are 800 bytes: accepted; 201 are refused by both counts
    assert chat("😀" * CHAT_MAX_CHARS) == "😀" * CHAT_MAX_CHARS
    assert refusal("😀" * (CHAT_MAX_CHARS + 1)).code == "chat_text_too_long"
    # e + COMBINING ACUTE is two code points as sent, one (é) after NFC: counted after
    decomposed = "e\u0301" * CHAT_MAX_CHARS
    assert len(decomposed) == 2 * CHAT_MAX_CHARS
    assert chat(decomposed) == "\u00e9" * CHAT_MAX_CHARS


def test_the_byte_limit_bites_alone() -> None:
    with pytest.raises(DomainError) as caught:
        check_text("é" * 10, 100, 19)
    assert caught.value.code == "chat_text_too_long"
    assert caught.value.details["bytes"] == 20
    assert check_text("é" * 10, 100, 20) == "é" * 10


@pytest.mark.parametrize(
    "text",
    [
        "<b>bold</b>",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "&amp; &lt;",
        "\"quoted\" 'single' `tick`",
        "👨\u200d👩\u200d👧\u200d👦 family",  # an emoji ZWJ sequence
        "می\u200cخواهم",  # Persian with ZWNJ
        "क्\u200dष",  # Devanagari with ZWJ
        "莊家贏了！ 閒對子",
        "مرحبا بالعالم",  # Arabic, right to left by its letters alone
        "שלום",
        "👍🏽 ❤️ 🇹🇼",  # skin tone modifier, variation selector, regional indicators
        "a" + "\u0301" * MAX_COMBINING_RUN,  # four marks: accepted
    ],
)
def test_markup_and_real_scripts_are_accepted_as_typed(text: str) -> None:
    assert chat(text) == unicodedata.normalize("NFC", text)


def test_another_caller_names_its_own_codes() -> None:
    with pytest.raises(DomainError) as caught:
        check_text("x\u202e", 32, 128, invalid="invalid_table", too_long="invalid_table")
    assert caught.value.code == "invalid_table"


def _clean(text: str) -> bool:
    run = 0
    for char in text:
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES and char not in "\u200c\u200d":
            return False
        run = run + 1 if category in ("Mn", "Me") else 0
        if run > MAX_COMBINING_RUN:
            return False
    return True


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=260))
def test_anything_accepted_is_nfc_within_the_limits_and_clean(text: str) -> None:
    try:
        out = chat(text)
    except DomainError as refused:
        assert refused.code in ("chat_text_invalid", "chat_text_too_long")
        # a refusal is right: the text (as NFC) really is dirty, blank or too long
        normal = unicodedata.normalize("NFC", text)
        too_long = len(normal) > CHAT_MAX_CHARS or len(normal.encode("utf-8", "surrogatepass")) > (
            CHAT_MAX_BYTES
        )
        assert not _clean(normal) or not normal.strip() or too_long
        return
    assert out == unicodedata.normalize("NFC", out) == unicodedata.normalize("NFC", text)
    assert 0 < len(out) <= CHAT_MAX_CHARS
    assert len(out.encode("utf-8")) <= CHAT_MAX_BYTES
    assert out.strip()
    assert _clean(out)
