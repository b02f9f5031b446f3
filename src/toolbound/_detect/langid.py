"""Which of the ten added languages a text is written in, if any (round 42 of
``benchmarks/model_selection.md``).

The shipped model learnt the corpus's eleven languages (en, zh, es, fr, de, ja, ko, ru, pt, it, ar);
a second, expert model also learnt ten more (:data:`ADDED_LANGUAGES`). :func:`added_language` routes
a text to the expert when it is written in one of those ten, and to the shipped model otherwise. It
is a cheap function of the first :data:`HEAD` characters, not a general language identifier:

- a script decides where it can: Devanagari is Hindi; Arabic script is Persian when its Persian
  letters (پ چ ژ گ, Persian kaf and yeh) outnumber its Arabic-only ones (ي ك ة ى); Cyrillic is
  Ukrainian when its Ukrainian letters (і ї є ґ) outnumber its Russian-only ones (ы э ъ ё);
- Latin script is decided by common function words: the language with the most distinct words of
  its list among the text's words (letters that only it writes count as words too, and six of them
  are enough alone: round 55, for JSON, CSV and logs, whose values hold few function words), when it
  is one of the added languages, holds at least :data:`MIN_WORDS` of them and more than any of the six
  Latin-script languages the shipped model learnt (en, es, fr, de, it, pt). A word listed for an
  added and for a known language counts for neither.

A text whose letters are mostly of another script (Chinese, Japanese, Korean) or that holds too few
letters is not routed. A misrouted text is still scored by a model that learnt every corpus
language, so the cost of a mistake is a differently calibrated score, not a blind one.
"""

from __future__ import annotations

import re

__all__ = ["ADDED_LANGUAGES", "GATED_LANGUAGES", "added_language", "gate_allows", "gate_markers", "writes_any"]

ADDED_LANGUAGES = ("cs", "fa", "hi", "id", "nl", "pl", "sv", "tr", "uk", "vi")
HEAD = 4000
MIN_LETTERS = 20  # letters of the deciding script needed before a script decides
MIN_WORDS = 3  # distinct function words of a Latin-script added language needed to route it

# Function words, written from knowledge of each language (not from any evaluation data).
_WORDS: dict[str, str] = {
    # the six Latin-script languages the shipped model learnt
    "en": "the and of to is that for with you this are be not on your please from have it was will "
          "an or by we can all has our if they their which would there been were should",
    "es": "el los las que y por para con una es no se del su al lo como pero más este esta usted "
          "también hay muy sin sobre entre cuando todo ya fue ser están",
    "fr": "le les des et est que pour dans une du pas vous sur avec ce qui au nous sont cette mais "
          "été être fait leur aux ou votre tout très elle il",
    "de": "der die das und ist nicht mit für den ein eine zu auf sie wir bitte ich von auch dem "
          "sich wird sind noch wie einen nach bei aus oder werden haben",
    "it": "il di che per non sono con del della gli si è alla questo anche nel come più ma le "
          "dei delle sul ha essere tutti questa hanno",
    "pt": "os as do da em com não uma um você no na ao dos das mais mas como pelo pela foi são "
          "está ser também seu sua isso este",
    # the Latin-script added languages
    "pl": "na do to się nie jest że oraz dla przez są który która które czy proszę tak już może będzie "
          "tylko jak ale bardzo jeśli mamy został została pan pani też od po ze za przy lub jej ich "
          "jego tego tym ten tej należy można dzień dobry pozdrawiam prosimy zł gdy gdzie więc żeby aby "
          "bez przed pod nad wszystkie wszystkich swoje nasz nasze wasz państwa dziękuję jeszcze teraz "
          "tutaj kiedy których której którym jesteś jesteśmy",
    "cs": "na do to se je že pro jsou jako není které který která prosím také byl bylo bude může když "
          "nebo jsme jsem tak už ale při jeho její od po ze za ten tento tato toto dobrý děkuji kč "
          "pokud jen jste máte ve jak aby kde protože proto však jestli všechny všech svůj své náš naše "
          "vaše váš bez před pod nad mezi podle ještě teď zde tady byla byli budou můžete prosíme "
          "děkujeme",
    "nl": "het een van dat niet voor zijn ook aan bij naar wordt worden deze er wij ons onze uw kunt "
          "graag maar nog heeft hebben dit zal om op uit met jij zij hun hem mijn jouw als dan omdat "
          "wanneer wel geen niets alle alleen hier daar waar moet moeten kunnen wil willen gaan gaat "
          "tot door tegen zonder onder bedankt groeten alstublieft alsjeblieft",
    "sv": "den var och att det som är för inte till av jag vi har om ett kan du på med ni vår våra "
          "eller också efter skulle finns alla så nu här där när vad vem hur varför detta dessa sitt "
          "sina mitt mina ditt dina ert era oss ska kommer måste får blir vara hade mellan hos från "
          "tack hälsningar vänligen inga ingen något några mycket",
    "id": "yang dan di ke dari untuk dengan ini itu tidak akan ada dalam pada kami anda atau bisa sudah "
          "juga mohon kepada oleh telah harus saya kamu kita mereka adalah bahwa agar supaya jika kalau "
          "karena tetapi tapi namun lebih sangat belum masih sedang bagi tersebut setiap semua hanya "
          "sebagai serta antara hingga sampai terima kasih silakan tolong segera bapak ibu",
    "tr": "ve bir bu için ile değil çok olarak daha gibi olan ama sonra lütfen var veya kadar şu tüm "
          "ancak sizin bizim olduğu sen biz siz onlar benim senin onun bunu buna bunun şimdi hemen yok "
          "evet hayır hiç nasıl neden çünkü eğer ise yani bile artık göre önce tarafından üzere ilgili "
          "hakkında teşekkür teşekkürler rica ederiz ederim bize edilen yapılan olup",
    "vi": "của và là không có được các cho với những này một trong người để đã khi tôi bạn chúng anh "
          "chị vui lòng theo từ sẽ đang rất cũng nếu thì nhưng vì hoặc tại về trên dưới sau trước ngày "
          "tháng năm xin cảm ơn quý khách hàng mình họ nào gì đến ra vào lại nhé ạ",
}
_LATIN_KNOWN = ("en", "es", "fr", "de", "it", "pt")
_LATIN_ADDED = ("pl", "cs", "nl", "sv", "id", "tr", "vi")


def _word_table() -> dict[str, tuple[str, ...]]:
    """word -> the languages whose list holds it, for words that only added languages list or only
    known languages list (a word on the list of an added and of a known language counts for none)."""
    seen: dict[str, set[str]] = {}
    for lang, words in _WORDS.items():
        for w in words.split():
            seen.setdefault(w, set()).add(lang)
    return {w: tuple(sorted(ls)) for w, ls in seen.items()
            if ls <= set(_LATIN_ADDED) or not ls & set(_LATIN_ADDED)}


_WORD_LANG = _word_table()
_WORD_RE = re.compile(r"[^\W\d_]+")
_WORD_ASCII_RE = re.compile(r"[A-Za-z]+")  # the same words in ASCII text (a plain class: faster to test)


# On ASCII text every character that is no letter becomes a space, and str.split() gives the runs of
# letters that _WORD_ASCII_RE finds (a test checks them), several times faster than the regex.
_NOT_LETTER_ASCII = {i: " " for i in range(128) if not chr(i).isalpha()}


def _words(text: str) -> list[str]:
    """The runs of letters in ``text`` (:data:`_WORD_RE`), in order."""
    if text.isascii():
        return text.translate(_NOT_LETTER_ASCII).split()
    return _WORD_RE.findall(text)
_DEVANAGARI = re.compile(r"[\u0900-\u097f]+")
_ARABIC = re.compile(r"[\u0600-\u06ff]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]+")
# scripts that mean "not routed" when they hold more letters: CJK, kana, Hangul, Greek, Hebrew, Thai
_OTHER = re.compile(r"[\u0370-\u03ff\u0590-\u05ff\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")
_PERSIAN_ONLY = frozenset("\u067e\u0686\u0698\u06af\u06a9\u06cc")  # پ چ ژ گ ک ی
_ARABIC_ONLY = frozenset("\u064a\u0643\u0629\u0649")  # ي ك ة ى
_UKRAINIAN_ONLY = frozenset("іїєґ")
_RUSSIAN_ONLY = frozenset("ыэъё")
# Latin letters that only one language of the twelve Latin-script ones writes (Vietnamese also: its
# tone-marked vowels U+1EA0-U+1EF9); they count as WORDS_PER_LETTERS words once LETTERS_ENOUGH occur,
# and as MIN_WORDS (enough alone) once LETTERS_DECIDE occur (round 55: a JSON record or a log line
# holds few function words, but its names and values still spell the language's letters).
_LATIN_LETTERS = {"pl": frozenset("ąęłśźżń"), "cs": frozenset("ěřů"), "tr": frozenset("ığş"),
                  "vi": frozenset("ơưđă"), "sv": frozenset("å")}
_VI_TONES = re.compile(r"[\u1ea0-\u1ef9]+")
LETTERS_ENOUGH = 3
WORDS_PER_LETTERS = 2
LETTERS_DECIDE = 6
FIRST_LOOK = 1000


def _count(chars: frozenset[str], text: str) -> int:
    return sum(text.count(c) for c in chars)


def _run_letters(pat: re.Pattern[str], text: str) -> int:
    return sum(map(len, pat.findall(text)))


def added_language(text: str) -> str | None:
    """The added language (one of :data:`ADDED_LANGUAGES`) ``text`` is written in, else None."""
    if len(text) < MIN_LETTERS:
        return None  # ids, names, statuses: too short to tell
    head = text[:HEAD].lower()
    if head.isascii():
        return _latin_language(head, False)
    counts = (("hi", _run_letters(_DEVANAGARI, head)), ("fa", _run_letters(_ARABIC, head)),
              ("uk", _run_letters(_CYRILLIC, head)))
    script, n = max(counts, key=lambda kv: kv[1])
    if n >= MIN_LETTERS and n >= _run_letters(_OTHER, head):
        # the text's main non-Latin script decides (Latin letters of code, keys and URLs do not)
        if script == "hi":
            return "hi"
        if script == "fa":
            return "fa" if _count(_PERSIAN_ONLY, head) > _count(_ARABIC_ONLY, head) else None
        return "uk" if _count(_UKRAINIAN_ONLY, head) > _count(_RUSSIAN_ONLY, head) else None
    if n >= MIN_LETTERS or _OTHER.search(head):
        return None  # Arabic, Russian, Chinese, Japanese, Korean, ...
    return _latin_language(head, True)


def _latin_language(head: str, accented: bool) -> str | None:
    # The first FIRST_LOOK characters settle most texts: clearly a known language (twice MIN_WORDS of
    # its words, none of an added language) ends the look there; anything else reads the whole head.
    if len(head) > FIRST_LOOK:
        found = _function_words(head[:FIRST_LOOK])
        if (max((len(found.get(lang, ())) for lang in _LATIN_KNOWN), default=0) >= 2 * MIN_WORDS
                and not any(lang in found for lang in _LATIN_ADDED)
                and not (accented and _any_added_letters(head[:FIRST_LOOK]))):
            return None
    found = _function_words(head)
    score = {lang: len(found.get(lang, ())) for lang in _LATIN_ADDED}
    if accented:
        for lang, chars in _LATIN_LETTERS.items():
            k = _count(chars, head) + (_run_letters(_VI_TONES, head) if lang == "vi" else 0)
            if k >= LETTERS_DECIDE:
                score[lang] += MIN_WORDS
            elif k >= LETTERS_ENOUGH:
                score[lang] += WORDS_PER_LETTERS
    best = max(_LATIN_ADDED, key=lambda lang: score[lang])
    k = score[best]
    if k < MIN_WORDS:
        return None
    if any(len(found.get(lang, ())) >= k for lang in _LATIN_KNOWN):
        return None
    return best


def _function_words(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    table = _WORD_LANG
    for w in set(_words(text)):
        for lang in table.get(w, ()):
            found.setdefault(lang, set()).add(w)
    return found


def _any_added_letters(text: str) -> bool:
    return any(c in text for chars in _LATIN_LETTERS.values() for c in chars) or _VI_TONES.search(text) is not None


# The language gate of the rules (round 60 of ``benchmarks/model_selection.md``): a rule whose
# languages are all Latin-script added languages does not run on a text written in a known language
# (see gate_allows) unless the text holds a marker of one of them, so the Dutch rules do not run
# over English text that happens to say "ai" or "agent". A marker is a letter of :data:`_LATIN_LETTERS` (Vietnamese: also its tone-marked vowels), or a function word
# of the language's list that no list of the six known Latin-script languages holds, except the
# words in :data:`GATE_COMMON`: those occur in more than :data:`GATE_MAX_SHARE` of the English
# train-split records or of the benign 4 KB stdlib chunks (counted by ``benchmarks/gate_words.py``,
# which checks this constant).
GATED_LANGUAGES = _LATIN_ADDED
GATE_MAX_SHARE = 0.01
GATE_COMMON = frozenset({"dan", "door", "pro", "proto", "ve"})
# every word of the six known Latin-script languages' lists (no marker can be one of them)
KNOWN_LATIN_WORDS = frozenset(w for lang in _LATIN_KNOWN for w in _WORDS[lang].split())


def _gate_words() -> dict[str, frozenset[str]]:
    # Rules run on folded text, where some letters read as others (Turkish dotless ı as i): each
    # word counts in its folded spelling too.
    from toolbound._detect.fold import fold

    out = {}
    for lang in _LATIN_ADDED:
        words = set(_WORDS[lang].split()) - KNOWN_LATIN_WORDS - GATE_COMMON
        out[lang] = frozenset(words | {fold(w).text.lower() for w in words})
    return out


_GATE_WORDS = _gate_words()


def gate_markers(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(marker words, marker letters)`` of a Latin-script added language (see :data:`GATE_COMMON`)."""
    return _GATE_WORDS[lang], _LATIN_LETTERS.get(lang, frozenset())


def text_words(low: str) -> frozenset[str]:
    """The distinct words (runs of letters) of lower-cased ``low``."""
    return frozenset(_words(low))


def writes_any(langs: tuple[str, ...], low: str, words: frozenset[str], raw_low: str | None = None) -> bool:
    """Whether lower-cased ``low`` (whose :func:`text_words` are ``words``) holds a marker of one
    of ``langs`` (Latin-script added languages); letters are also looked for in ``raw_low``, the
    lower-cased text before folding, when given."""
    views = [v for v in (low, raw_low) if v is not None and not v.isascii()]
    for lang in langs:
        if not _GATE_WORDS[lang].isdisjoint(words):
            return True
        letters = _LATIN_LETTERS.get(lang)
        for view in views:
            if letters is not None and any(c in view for c in letters):
                return True
            if lang == "vi" and _VI_TONES.search(view) is not None:
                return True
    return False


def gate_allows(langs: tuple[str, ...], low: str, words: frozenset[str], raw_low: str | None = None) -> bool:
    """Whether a rule for ``langs`` (Latin-script added languages) runs on lower-cased ``low``
    (whose :func:`text_words` are ``words``; ``raw_low`` as :func:`writes_any`): unless the text
    is written in a known language (at least :data:`GATE_KNOWN_WORDS` distinct function words of the
    six known Latin-script languages) and holds no marker of ``langs``. A one-line command or a JSON value with no function word is
    not judged: the rule runs."""
    if len(_KNOWN_ONLY_WORDS.intersection(words)) < GATE_KNOWN_WORDS:
        return True
    return writes_any(langs, low, words, raw_low)


GATE_KNOWN_WORDS = MIN_WORDS
_KNOWN_ONLY_WORDS = frozenset(w for w, ls in _WORD_LANG.items() if not set(ls) & set(_LATIN_ADDED))
