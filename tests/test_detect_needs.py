"""The required-literal skip (needs.py) is sound: it never skips a window a pattern matches in."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from toolbound._detect.needs import Presence, check_view, required_literals, satisfied
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
            assert {check_view("x" + x)[1] for x in got} == {c.lower()}, c  # type: ignore[index]


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


def test_check_view_reads_case_variants_as_their_letter() -> None:
    assert check_view("\u1c80ызови") == "вызови"  # Cyrillic Extended-C variant of "в"
    assert check_view("ſend") == "send"
    assert check_view("Σοφίας") == "σοφίασ"  # final sigma read as sigma


def test_required_scripts_of_simple_shapes() -> None:
    from toolbound._detect.needs import required_scripts

    assert required_scripts(r"忽略(?:之前|以前)的指令") == {frozenset({"cjk"})}
    assert required_scripts(r"(?:игнорируй|ignore)\s+\w+") == frozenset()  # an ASCII alternative
    assert required_scripts(r"(?:무시|無視)하") == {frozenset({"hangul"})}
    assert required_scripts(r"(?:무시해|無視して)") == {frozenset({"cjk", "hangul"})}
    assert required_scripts(r"(?=.*忽略)ignore") == {frozenset({"cjk"})}  # lookahead text is in the text
    assert required_scripts(r"(?!忽略)ignore") == frozenset()
    assert required_scripts(r"(?:ab)?[а-я]{2,}") == {frozenset({"cyrillic"})}
    assert required_scripts(r"ſ") == frozenset()  # matches "s" and "S"
    assert required_scripts(r"[(") == frozenset()


def test_every_character_matching_a_script_character_is_in_its_text_ranges() -> None:
    # required_scripts trusts a pattern character for a script only if every character the regex
    # module matches to it case-insensitively is in that script's text ranges (text_scripts).
    from toolbound._detect.needs import _script_of, text_scripts

    chars = {ch for r in RULES for p in r.patterns for ch in p if not ch.isascii()}
    chars |= {chr(c) for c in range(0x80, 0x3000)}  # every cased script, not only today's packs
    cls = {}
    for ch in sorted(chars):
        name = _script_of(ord(ch))
        if name is not None:
            cls.setdefault(name, []).append(ch)
    assert set(cls) >= {"latin", "cyrillic", "arabic", "cjk", "hangul"}
    for name, members in cls.items():
        rx = regex.compile("[" + "".join(regex.escape(c) for c in members) + "]", pattern_flags())
        for x in set(rx.findall(ALL_CHARS)):
            assert name in text_scripts("x" + x), (name, x)


def test_script_gate_never_skips_a_match() -> None:
    from toolbound._detect.fold import fold
    from toolbound._detect.needs import required_scripts, scripts_satisfied, text_scripts

    checked = 0
    for r in RULES:
        for ex in r.examples_match + r.examples_no_match:
            ft = fold(ex).text
            present = text_scripts(ft)
            for p, c in zip(r.patterns, r.compiled):
                if c.search(ft):
                    assert scripts_satisfied(required_scripts(p), present), (r.id, p, ex)
                    checked += 1
    assert checked > 500


def test_min_width_of_simple_shapes_and_every_example_match_is_at_least_that_long() -> None:
    from toolbound._detect.fold import fold
    from toolbound._detect.needs import min_width

    assert min_width(r"ignore\s+(?:all\s+)?previous") == len("ignore previous")
    assert min_width(r"(?<=not\s)x?") == 0  # lookarounds span nothing; x? may be empty
    assert min_width(r"a{3,}|bb") == 2
    checked = 0
    for r in RULES:
        for ex in r.examples_match + r.examples_no_match:
            ft = fold(ex).text
            for p, c in zip(r.patterns, r.compiled):
                w = min_width(p)
                for m in c.finditer(ft):
                    assert m.end() - m.start() >= w, (r.id, p, m.group())
                    checked += 1
    assert checked > 300


def test_latin_extended_a_letters_are_literals() -> None:
    # session 15: "a[zž]" and "[cč]te" of a Czech rule gave only "a" and "te"-less groups, so the rule
    # ran over English text ("selected" holds "cte"); Latin Extended-A letters are trusted now
    from toolbound._detect.needs import _cased_ok

    needs = required_literals(r"\ba[zž]\s+(?:\w+\s+){0,2}?[cč]te\b")
    assert ("az", "až") in needs
    assert any(set(g) == {"cte", "čte"} for g in needs)
    for ch in "žřłşğčěůąę":
        assert _cased_ok(ch) and _cased_ok(ch.upper()), ch
    for ch in "\u0130\u0131\u0138\u0149\u017f":  # İ ı ĸ ŉ ſ: case mappings that are not one letter to one
        assert not _cased_ok(ch), ch


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcxyz \n\x00\u2003\x1c", max_size=120),
       st.lists(st.lists(st.text(alphabet="abcxyz \x00\u2003\x1c", min_size=1, max_size=4), min_size=1, max_size=4),
                min_size=1, max_size=3),
       st.lists(st.tuples(st.integers(0, 130), st.integers(0, 130)), min_size=1, max_size=8))
def test_satisfied_with_a_presence_cache_answers_as_without(view, groups, windows):
    """One Presence per view, shared by every window as the scanner shares it: literals with and
    without whitespace (looked up in the distinct tokens or in the view), small and large windows."""
    needs = tuple(tuple(g) for g in groups)
    seen = Presence(view)
    for a, b in windows:
        assert satisfied(needs, view, a, b, seen) == satisfied(needs, view, a, b), (a, b)
    for g in groups:
        for s in g:
            assert seen.has(s) == (s in view), s


def test_every_shipped_pattern_is_understood_by_the_analyses() -> None:
    """A pattern the standard library's parser cannot read (``\\p{Han}``, other regex-module-only
    syntax) gets no required literals, no start strings and no scripts: it runs in every window of
    every text, Chinese rule on English text included. Round 62's first merge had 27 such patterns,
    found when one timed out on 200 KB of ``%41``; write explicit ranges instead."""
    from toolbound._detect.needs import _parse

    bad = [(r.id, j) for r in RULES for j, p in enumerate(r.patterns) if _parse(p, pattern_flags()) is None]
    assert not bad, bad
