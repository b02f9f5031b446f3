"""The required-literal skip (needs.py) is sound: it never skips a window a pattern matches in."""

from __future__ import annotations

import regex

from toolbound._detect.needs import check_view, required_literals, satisfied
from toolbound._detect.packs import load_rules, pattern_flags

RULES = load_rules()
ALL_CHARS = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


def test_required_literals_of_simple_shapes() -> None:
    assert required_literals(r"\b(?:use|call)\s+[a-z]+(?:_[a-z]+)+") == (("call", "use"), ("_",))
    assert required_literals(r"ignore\s+(?:all\s+)?previous") == (("previous",), ("ignore",))
    assert required_literals(r"(?:ab)?c{0,3}\w+") == ()
    assert required_literals(r"(?-i:DAN)\b") == (("dan",),)
    assert required_literals(r"[(") == ()  # a pattern the parser rejects is always run


def test_no_full_case_folding() -> None:
    # Multi-character folds ("ss" ~ "ß") would break the literal check; the packs do not use them.
    assert not pattern_flags() & regex.FULLCASE
    assert regex.compile("ss", pattern_flags()).search("straße") is None


def test_only_known_non_ascii_characters_match_ascii_letters() -> None:
    # The check view lower-cases the text and reads "ſ" as "s"; "K" (Kelvin) lower-cases to "k";
    # a text with "İ" (whose lower case is two characters) is not checked.
    found = set(regex.compile("[a-z]", pattern_flags()).findall(ALL_CHARS))
    assert {c for c in found if not c.isascii()} <= {"\u212a", "\u017f", "\u0130"}
    for c in found:
        view = check_view("x" + c)
        assert view is None or view[1] in "abcdefghijklmnopqrstuvwxyz"


def test_non_ascii_literals_match_only_what_lower_cases_to_them() -> None:
    from toolbound._detect.needs import first_literals

    lits = {s for r in RULES for p in r.patterns for g in required_literals(p) for s in g}
    lits |= {s for r in RULES for p in r.patterns for s in first_literals(p) or ()}
    chars = {ch for s in lits for ch in s if not ch.isascii()}
    assert chars  # the CJK, Arabic, Hangul and Cyrillic rules have some
    assert any("\u0430" <= c <= "\u044f" for c in chars)
    cls = "[" + "".join(regex.escape(c) for c in sorted(chars)) + "]"
    for x in set(regex.compile(cls, pattern_flags()).findall(ALL_CHARS)):
        view = check_view("x" + x)
        assert view is not None and view[1] in chars, x
    # every cased character the analysis accepts, not only those the packs use today
    from toolbound._detect.needs import _cased_ok

    for c in map(chr, range(0x80, 0x500)):
        if _cased_ok(c):
            got = set(regex.compile(regex.escape(c), pattern_flags()).findall(ALL_CHARS))
            assert {x.lower() for x in got} == {c.lower()}, c


def test_every_example_match_satisfies_its_pattern_needs() -> None:
    from toolbound._detect.fold import fold

    checked = 0
    for r in RULES:
        for ex in r.examples_match + r.examples_no_match:
            ft = fold(ex).text
            view = check_view(ft)
            for p, c in zip(r.patterns, r.compiled):
                needs = required_literals(p)
                for m in c.finditer(ft):
                    if view is not None and m.end() > m.start():
                        assert satisfied(needs, view, m.start(), m.end()), (r.id, p, m.group())
                        checked += 1
    assert checked > 300


def test_variant_list_is_complete() -> None:
    from toolbound._detect.needs import _VARIANTS

    found = {x for x in ALL_CHARS if len(x.upper()) == 1 and len(x.lower()) == 1 and x.upper().lower() != x.lower()}
    assert found == set(_VARIANTS)
