"""Imperative morphology: words whose form marks them as commands, whatever the verb.

The passage opener (:func:`toolbound._detect.model.candidate_passages`) opens a passage at an action
verb it knows: the cue lexicon lists a few hundred verbs in eleven languages. Several languages mark
the imperative regularly, so a few patterns stand in for every verb of the language (round 28 of
``benchmarks/model_selection.md``):

- Russian: the polite / plural imperative ends in ``-ите``, ``-йте`` or ``-ьте`` (reflexive
  ``-сь``): "оформите", "добавьте", "свяжитесь".
- French: the second person plural ends in ``-ez`` ("envoyez", "supprimez"), and a pronoun is
  hyphenated after an imperative ("envoie-moi", "dites-lui"). Modal and auxiliary verbs ("vous
  pouvez", "vous avez") are left out; only in text with French function words.
- Spanish: an imperative with enclitic pronouns keeps the stem's stress with a written accent
  ("mándalos", "guárdala", "envíame"); nouns, adjectives and adverbs of the same shape ("artículo",
  "película", "únicamente", "móviles", "diferente") are left out by their endings; only in text with
  Spanish function words.
- Portuguese: enclitic pronouns are hyphenated ("envie-me", "transfira-o"); only in text with
  Portuguese function words.
- Italian: a plural imperative with an enclitic ("inviatelo", "cancellatela", "mandateci").
- German: the polite imperative is the infinitive followed by "Sie" ("Ändern Sie", "Leiten Sie"),
  modal and auxiliary verbs left out.
- Korean and Japanese: command endings the lexicon does not list ("-십시오", "-바랍니다", "-해 줘",
  "-해라"; "しろ", "せよ", "しなさい", "てくれ").

Hits are action-verb cues, nothing more: they open a passage where a lexicon verb would (at a
passage start, next to a request marker or a word for the reader's accounts, or paired with a
second-person, AI or "tell" word), and the passage model decides. :func:`imperative_hits` reads the
lower-cased text; each language's pattern runs only when the text holds its script or letters.
"""

from __future__ import annotations

import re

__all__ = ["imperative_hits"]

# Every pattern starts with a literal (or a set of rare letters), so re scans for it quickly; the
# word's start is then found by walking back over its letters (:func:`_word_start`).
_RU = re.compile(r"те(?:сь)?\b")
_RU_LETTERS = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")

_FR_L = "abcdefghijklmnopqrstuvwxyzàâçéèêëîïôûùüÿœ"
_FR_LETTERS = frozenset(_FR_L)
_FR_PRON = r"(?:moi|toi|nous|lui|leur|les|le|la|y|en)"
_FR = re.compile(rf"ez(?:-{_FR_PRON})?\b(?!-)")
_FR_HY = re.compile(rf"-{_FR_PRON}\b(?!-)")
_FR_SKIP = frozenset({"chez", "assez", "nez", "rez", "avez", "pouvez", "voulez", "devez", "savez", "rendez",
                      "lopez", "perez", "gomez", "suez", "fez", "chavez", "sanchez", "martinez", "gonzalez",
                      "rodriguez", "fernandez", "hernandez", "jimenez", "alvarez", "ramirez", "velazquez",
                      "vasquez", "vazquez", "dominguez", "gutierrez", "juarez", "alvez", "mendez", "nunez",
                      "diez", "vez", "pez", "juez", "nuez", "ajedrez", "jerez", "tez"})
_FR_WORDS = re.compile(r"\b(?:vous|votre|vos|des|du|une|est|avec|dans|cette|sur|pas|nous)\b")

_ES_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzñüáéíóú")
_ES = re.compile(r"[áéíóú][a-zñü]*(?:me|te|le|les|lo|los|la|las|nos)\b")
_ES_SKIP_END = ("mente", "ulo", "ula", "ulos", "ulas", "nte", "ntes", "iles", "ables", "ibles", "ales", "eles",
                "inos", "onos", "enos", "anos")
_ES_WORDS = re.compile(r"\b(?:el|los|del|y|esta|este|para|con|una|por|su|sus)\b")

_PT_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzãõâêôáéíóúçà")
_PT = re.compile(r"-(?:me|nos|lhe|lhes|lo|la|los|las|o|a|os|as)\b(?!-)")
_PT_WORDS = re.compile(r"\b(?:não|você|vocês|seu|sua|dos|das|uma|pelo|pela|está|são|também|sem|foi)\b")

_IT_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzàèéìíòóù")
_IT = re.compile(r"te(?:glielo|gliela|glieli|gliele|lo|la|li|le|mi|ci|vi|gli|ne)\b")

_DE_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzäöüß")
_DE = re.compile(r" sie\b")
_DE_SKIP = frozenset({"haben", "können", "möchten", "sollten", "müssen", "werden", "dürfen", "wollen", "würden",
                      "könnten", "hätten", "wären", "mögen", "wissen", "konnten", "wollten", "sollen", "mussten",
                      "wenn", "denen", "einen", "ihnen", "wegen", "seien", "bekommen", "erhalten", "finden"})

_KO = re.compile(r"(?:십시오|바랍니다|해\s?줘|해\s?주라|해라|하라)(?![가-힣])")
_JA = re.compile(r"(?:しろ|せよ|しなさい|てくれ|でくれ)(?![ぁ-ん])")

_HAS_CYR = re.compile(r"[а-яё]")
_HAS_HANGUL = re.compile(r"[가-힣]")
_HAS_KANA = re.compile(r"[ぁ-ん]")


def _word_start(low: str, i: int, letters: frozenset[str] | None = None) -> int:
    """Where the word that ends at ``i`` starts (its letters: ``letters``, or any letter)."""
    j = i
    if letters is None:
        while j > 0 and low[j - 1].isalpha():
            j -= 1
    else:
        while j > 0 and low[j - 1] in letters:
            j -= 1
    return j


def _lang(words: re.Pattern[str], low: str, need: int = 2) -> bool:
    """Whether ``low`` holds at least ``need`` function words of a language."""
    n = 0
    for _ in words.finditer(low):
        n += 1
        if n >= need:
            return True
    return False


def imperative_hits(low: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the words in an imperative form in lower-cased ``low``, by position."""
    out: list[tuple[int, int]] = []
    ascii_only = low.isascii()
    if not ascii_only and _HAS_CYR.search(low):
        for m in _RU.finditer(low):
            s = _word_start(low, m.start(), _RU_LETTERS)
            if m.start() - s >= 3 and low[m.start() - 1] in "ийь":  # a stem of two letters or more, then и/й/ь
                out.append((s, m.end()))
    fr = []
    for m in _FR.finditer(low):
        s = _word_start(low, m.start(), _FR_LETTERS)
        stem = low[s:m.start()]
        if len(stem) >= 2 and stem + "ez" not in _FR_SKIP:
            fr.append((s, m.end()))
    if "-" in low:
        for m in _FR_HY.finditer(low):
            s = _word_start(low, m.start(), _FR_LETTERS)
            if m.start() - s >= 2:
                fr.append((s, m.end()))
    if fr and _lang(_FR_WORDS, low):
        out.extend(fr)
    if not ascii_only:
        es = []
        for m in _ES.finditer(low):
            s = _word_start(low, m.start(), _ES_LETTERS)
            if not m.group().endswith(_ES_SKIP_END) and m.end() - s >= 5:
                es.append((s, m.end()))
        if es and _lang(_ES_WORDS, low):
            out.extend(es)
    pt = []
    for m in _PT.finditer(low) if "-" in low else ():
        s = _word_start(low, m.start(), _PT_LETTERS)
        if m.start() - s >= 2:
            pt.append((s, m.end()))
    if pt and _lang(_PT_WORDS, low):
        out.extend(pt)
    for m in _IT.finditer(low):
        s = _word_start(low, m.start(), _IT_LETTERS)
        if m.start() - s >= 4 and low[m.start() - 1] in "aei":  # a stem of three letters or more, then a/e/i
            out.append((s, m.end()))
    for m in _DE.finditer(low):
        s = _word_start(low, m.start(), _DE_LETTERS)
        verb = low[s:m.start()]
        if len(verb) >= 5 and verb.endswith(("en", "rn", "ln")) and verb not in _DE_SKIP:
            out.append((s, m.end()))
    if not ascii_only:
        if _HAS_HANGUL.search(low):
            out.extend((_word_start(low, m.start()), m.end()) for m in _KO.finditer(low))
        if _HAS_KANA.search(low):
            out.extend(m.span() for m in _JA.finditer(low))
    return sorted(set(out))
