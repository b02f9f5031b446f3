#!/usr/bin/env python3
"""Train-only rule-development set: ``corpus/augment_train.jsonl``.

Rules written while looking at the corpus's train and dev splits learn those splits' phrasings.
This script composes many more train-only records from phrase lexicons (``augment_en.py``, ``augment_lexicon.py``:
addressing the AI reader, overriding instructions, impersonating authority, conditional triggers,
secrecy, the actions of each family, template spoofs) and inserts them into the **train-split host
templates** of ``generate.py``, with the same insertion and hiding machinery. Benign records use
the same hosts and the same insertion points with hard-negative sentences (instructions meant for
people, text about prompt injection, notices, specifications of what an assistant should do:
``augment_specs.py``), so the insertion itself teaches nothing.

Guarantees (checked by ``--check`` and the tests):

- only train-split host and hard-negative templates of ``generate.py`` are used, so nothing of a
  dev/test template appears here; every record has ``split = "train"`` and ``source =
  generated:corpus/tools/augment.py``;
- an augmented record whose inserted passage occurs verbatim in a dev or test record of
  ``corpus.jsonl`` is dropped (a phrase shared by chance must not carry the test set into training);
- deterministic: fixed seed, two runs give identical bytes.

The file is read by ``benchmarks/rule_stats.py --augment`` (rule development) and joins the train
split when the model is trained (``python -m toolbound._detect.train``; ``--no-augment`` leaves it
out; chosen on the dev split, see corpus/README.md). ``toolbound bench`` and the corpus statistics
never read it.

    python corpus/tools/augment.py            # write corpus/augment_train.jsonl
    python corpus/tools/augment.py --check    # fail if the file is not what the script produces
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import generate as G  # noqa: E402
from augment_en import EN  # noqa: E402
from augment_specs import ASSISTANT_SPEC, HUMAN_IMPERATIVE, SPECS  # noqa: E402

try:
    from augment_lexicon import LEXICON as _OTHER  # noqa: E402
except ImportError:  # pragma: no cover - the lexicon ships with the repository
    _OTHER = {}

SEED = 20261201
SOURCE = "generated:corpus/tools/augment.py"
DEFAULT_OUT = HERE.parent / "augment_train.jsonl"
CORPUS = HERE.parent / "corpus.jsonl"

LEXICON: dict[str, dict[str, Any]] = {"en": EN, **_OTHER}

# Harder hard negatives, each inserted once (into a train-split host) after the sampled records.
HARD_NEGATIVES: dict[str, dict[str, list[str]]] = {"assistant_spec": ASSISTANT_SPEC,
                                                   "human_imperative": HUMAN_IMPERATIVE}

# (positives, benign) per language
TARGETS: dict[str, tuple[int, int]] = {
    "en": (1600, 1100),
    "zh": (320, 220),
    **{lang: (110, 80) for lang in ("es", "fr", "de", "ja", "ko", "ru", "pt", "it", "ar")},
}

ACTION_FAMILIES = ("exfiltration", "tool_coercion", "task_hijack", "prompt_extraction", "jailbreak_persona")
FAMILIES = ("override", "addressed_to_ai", "authority", "template_spoof", "tool_coercion", "exfiltration",
            "secrecy", "prompt_extraction", "jailbreak_persona", "conditional_trigger", "hidden_carrier",
            "task_hijack")


def _cap(s: str) -> str:
    s = s.lstrip()
    return s[:1].upper() + s[1:] if s else s


def _end(s: str, lang: str) -> str:
    s = s.rstrip()
    if not s or s[-1] in ".!?。！？」』)\"'`":
        return s
    return s + ("。" if lang in ("zh", "ja") else ".")


def compose(family: str, lex: dict[str, Any], lang: str, rng: random.Random) -> str:
    """One injected passage of ``family`` in ``lang`` (slots still unfilled)."""
    j = lex["join"]
    acts = lex["actions"]

    def action(fams: tuple[str, ...] = ACTION_FAMILIES) -> str:
        return rng.choice(acts[rng.choice(fams)])

    def maybe_secret(p: float = 0.25) -> str:
        return (j + rng.choice(lex["secrecy"])) if rng.random() < p else ""

    if family in ACTION_FAMILIES:
        core = rng.choice(acts[family])
        r = rng.random()
        if r < 0.35:
            text = _end(_cap(core), lang)
        elif r < 0.55:
            text = rng.choice(lex["address"]) + _end(core, lang)
        elif r < 0.7:
            text = rng.choice(lex["authority"]) + _end(_cap(core), lang)
        elif r < 0.85:
            text = _cap(rng.choice(lex["override"])) + rng.choice(lex["connector"]) + _end(core, lang)
        else:
            text = rng.choice(lex["conditional"]) + _end(core, lang)
        return text + maybe_secret(0.2)
    if family == "override":
        pre = rng.choice(lex["address"]) if rng.random() < 0.3 else ""
        ov = rng.choice(lex["override"])
        text = pre + (ov if pre else _cap(ov)) + rng.choice(lex["connector"]) + _end(action(), lang)
        return text + maybe_secret()
    if family == "addressed_to_ai":
        return rng.choice(lex["address"]) + _end(action(), lang) + maybe_secret()
    if family == "authority":
        return rng.choice(lex["authority"]) + _end(_cap(action()), lang) + maybe_secret()
    if family == "conditional_trigger":
        return rng.choice(lex["conditional"]) + _end(action(), lang) + maybe_secret()
    if family == "secrecy":
        pre = rng.choice(lex["address"]) if rng.random() < 0.4 else ""
        core = action()
        return pre + _end(core if pre else _cap(core), lang) + j + rng.choice(lex["secrecy"])
    if family == "template_spoof":
        inner = _end(_cap(action()), lang)
        if rng.random() < 0.4:
            inner = _end(_cap(rng.choice(lex["override"])), lang) + j + inner
        return rng.choice(lex["spoof"]).replace("{X}", inner)
    if family == "hidden_carrier":
        other = rng.choice([f for f in FAMILIES if f not in ("hidden_carrier", "template_spoof")])
        return compose(other, lex, lang, rng)
    raise ValueError(f"unknown family {family!r}")


def _heldout_texts(corpus: Path) -> list[str]:
    if not corpus.exists():
        return []
    out = []
    with open(corpus, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["split"] in ("dev", "test"):
                out.append(r["text"])
    return out


def build_records(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    G.assign_template_splits()
    heldout = "\n\u0000".join(_heldout_texts(corpus))
    seen: set[str] = set()
    out: list[dict[str, Any]] = []

    def payload_ok(p: str) -> bool:
        return len(p) < 12 or p not in heldout

    def add(text: str, label: int, family: str, lang: str, carrier: str, group: str) -> bool:
        text = text.strip("\n")
        if not text or text in seen:
            return False
        seen.add(text)
        out.append({"id": "", "text": text, "label": label, "family": family, "lang": lang, "carrier": carrier,
                    "split": "train", "group": f"aug:{group}", "source": SOURCE})
        return True

    for lang, (n_pos, n_benign) in TARGETS.items():
        lex = LEXICON.get(lang)
        if lex is None:
            continue
        hosts = [h for h in G.HOSTS if h.lang == lang and h.split == "train"]
        negs = [n for n in G.NEGS if n.lang == lang and n.split == "train"]
        if not hosts:
            raise SystemExit(f"no train-split host template for {lang}")
        rng = random.Random(f"{SEED}|{lang}")
        made, tries = 0, 0
        while made < n_pos and tries < n_pos * 8:
            fam = FAMILIES[tries % len(FAMILIES)]
            tries += 1
            h = rng.choice(hosts)
            if fam == "hidden_carrier":
                markup = [x for x in hosts if set(G.marker_modes(x.body)) & {"html", "md"}]
                if markup and rng.random() < 0.6:
                    h = rng.choice(markup)
            raw = compose(fam, lex, lang, rng)
            p = G.Template("payload", f"aug:{lang}:{fam}", lang, fam, raw)
            slots_rng = random.Random(rng.random())
            filled = G.fill(raw, G.Slots(slots_rng, lang, h.carrier))
            if not payload_ok(filled):
                continue
            p = G.Template("payload", p.group, lang, fam, filled)
            text, _ = G.make_positive(p, h, slots_rng)
            made += add(text, 1, fam, lang, h.carrier, h.group)
        made, tries = 0, 0
        while made < n_benign and tries < n_benign * 8:
            tries += 1
            r = rng.random()
            srng = random.Random(rng.random())
            if r < 0.45:
                h = rng.choice(hosts)
                pool = lex["benign"] + SPECS.get(lang, [])
                sent = G.fill(rng.choice(pool), G.Slots(srng, lang, h.carrier))
                if not payload_ok(sent):
                    continue
                text, _ = G.make_positive(G.Template("payload", f"aug:{lang}:benign", lang, "benign", sent), h, srng)
                made += add(text, 0, h.family, lang, h.carrier, h.group)
            elif r < 0.75 or not negs:
                h = rng.choice(hosts)
                made += add(G.render(h.body, G.Slots(srng, lang, h.carrier), None, srng), 0, h.family, lang, h.carrier,
                            h.group)
            else:
                n = rng.choice(negs)
                made += add(G.render(n.body, G.Slots(srng, lang, n.carrier), None, srng), 0, n.family, lang, n.carrier,
                            n.group)
    for kind, by_lang in HARD_NEGATIVES.items():
        for lang, sents in by_lang.items():
            if TARGETS.get(lang, (0, 0))[1] == 0:  # no benign records wanted for this language
                continue
            hosts = [h for h in G.HOSTS if h.lang == lang and h.split == "train"]
            rng = random.Random(f"{SEED}|{lang}|{kind}")
            for sent in sents:
                h = rng.choice(hosts)
                srng = random.Random(rng.random())
                if not payload_ok(sent):
                    continue
                text, _ = G.make_positive(G.Template("payload", f"aug:{lang}:{kind}", lang, "benign", sent), h, srng)
                add(text, 0, f"benign:{kind}", lang, h.carrier, h.group)
    random.Random(f"{SEED}|ids").shuffle(out)
    for i, rec in enumerate(out, 1):
        rec["id"] = f"aug-{i:05d}"
    return out


def to_jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="fail if --out differs from what would be written")
    a = ap.parse_args(argv)
    recs = build_records()
    data = to_jsonl(recs)
    if a.check:
        have = a.out.read_text(encoding="utf-8") if a.out.exists() else None
        if have != data:
            print(f"{a.out} is out of date: run python corpus/tools/augment.py", file=sys.stderr)
            return 1
        print(f"{a.out} is up to date ({len(recs)} records)")
        return 0
    a.out.write_text(data, encoding="utf-8", newline="\n")
    pos = sum(r["label"] for r in recs)
    langs = sorted({r["lang"] for r in recs})
    print(f"wrote {len(recs)} records to {a.out}: {pos} injected, {len(recs) - pos} benign; languages {langs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
